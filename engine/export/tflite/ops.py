"""One writer per layer type: the TFLite operators of a compiled step.

A writer gets the model being built (:class:`engine.export.tflite.Model`) and the step; it
reads its inputs' tensors (``m.act``), writes constants (``m.weights``, ``m.bias``,
``m.ints``) and the operators (``m.op``), and returns the output tensor. Activations of
rank 3 in the engine (C, H, W) are NHWC tensors (1, H, W, C) in the file, as TFLite's kernels
want; the others keep their shape behind a batch of 1. A writer that cannot express a step
raises :class:`StepError` with the reason; the export names the layer.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

__all__ = ["StepError", "WRITERS", "ALIASES"]

ALIASES = frozenset({"Identity", "Dropout"})  # their output is their input's tensor


class StepError(Exception):
    """The step cannot be written (the message says why)."""


def _padding(m: Any, step: Any, x: int, size: tuple[int, int], kernel: tuple[int, int],
             pool: bool = False) -> tuple[int, str]:  # fmt: skip
    """(input tensor, "SAME"/"VALID"): explicit padding as a PAD operator where TFLite's SAME
    (which pads more after than before) does not place the windows where the engine does."""
    kw = step.kwargs
    stride = tuple(kw.get("stride") or kernel)
    pad = tuple(kw.get("pad") or (0, 0))
    dilation = tuple(kw.get("dilation") or (1, 1))
    out = step.shape[1:3]
    if pad == (0, 0):
        windows = zip(size, kernel, stride, dilation, strict=True)
        expected = tuple((n - d * (k - 1) - 1) // s + 1 for n, k, s, d in windows)
        if pool and not kw.get("ignore_border", True) and expected != tuple(out):
            raise StepError("IgnoreBorder=False with a partial last window is not written")
        return x, "VALID"
    same = []
    for n, k, s, d in zip(size, kernel, stride, dilation, strict=True):
        total = max((math.ceil(n / s) - 1) * s + d * (k - 1) + 1 - n, 0)
        same.append((total // 2, total - total // 2))
    if all(a == b == p for (a, b), p in zip(same, pad, strict=True)):
        return x, "SAME"
    if pool:
        raise StepError(f"padding {pad} is not TFLite's SAME padding for this size and stride")
    paddings = m.ints("paddings", [[0, 0], [pad[0], pad[0]], [pad[1], pad[1]], [0, 0]])
    shape = [1, size[0] + 2 * pad[0], size[1] + 2 * pad[1], m.shape(x)[3]]
    padded = m.tensor(f"{step.name}/pad", shape, m.qp_of(x))
    m.op("PAD", [x, paddings], [padded])
    return padded, "VALID"


def _convolution(m: Any, step: Any) -> int:
    kw = step.kwargs
    if kw.get("base_axis", 1) != 1 or kw.get("channel_last", False):
        raise StepError("only (C, H, W) inputs, channels first, base axis 1 are written")
    in_shape = m.in_shape(step, 0)
    if len(in_shape) != 3:
        raise StepError("only 2-D convolutions of (C, H, W) inputs are written")
    weight, bias = m.param(step, 1), m.param(step, 2)
    weight, bias = m.batch_norm_folded(step, weight, bias)
    channels = in_shape[0]
    out_channels = step.shape[0]
    depthwise = step.type == "DepthwiseConvolution"
    group = channels if depthwise else int(kw.get("group", 1))
    if not depthwise and group != 1:
        if group != channels or weight.shape[1] != 1:
            raise StepError(f"group {group} (only 1, or one group per channel) is not written")
        depthwise = True
    kernel = tuple(weight.shape[-2:])
    x, padding = _padding(m, step, m.act(step, 0), tuple(in_shape[1:]), kernel)
    x = m.widen(step, x)
    sy, sx = kw["stride"]
    dy, dx = kw.get("dilation") or (1, 1)
    if depthwise:  # engine (C * multiplier, [1,] KH, KW) -> TFLite (1, KH, KW, C * multiplier)
        w = weight.reshape(out_channels, *kernel).transpose(1, 2, 0)[None]
        w_t = m.weights(step, w, axis=3)
        options = dict(padding=padding, strideW=sx, strideH=sy, depthMultiplier=out_channels
                       // channels, dilationWFactor=dx, dilationHFactor=dy,
                       fusedActivationFunction=m.activation(step))  # fmt: skip
        code, kind = "DEPTHWISE_CONV_2D", "DepthwiseConv2DOptions"
    else:  # engine (O, I, KH, KW) -> TFLite (O, KH, KW, I)
        w_t = m.weights(step, weight.transpose(0, 2, 3, 1), axis=0)
        options = dict(padding=padding, strideW=sx, strideH=sy, dilationWFactor=dx,
                       dilationHFactor=dy, fusedActivationFunction=m.activation(step))  # fmt: skip
        code, kind = "CONV_2D", "Conv2DOptions"
    b_t = m.bias(step, bias, out_channels, x, w_t)
    y = m.output(step)
    m.op(code, [x, w_t, b_t], [y], kind, **options)
    return y


def _affine(m: Any, step: Any) -> int:
    if step.kwargs.get("base_axis", 1) != 1:
        raise StepError("only base axis 1 is written")
    in_shape = m.in_shape(step, 0)
    weight, bias = m.param(step, 1), m.param(step, 2)
    weight, bias = m.batch_norm_folded(step, weight, bias)
    inputs = math.prod(in_shape)
    outputs = math.prod(step.shape)
    weight = weight.reshape(inputs, outputs)
    x = m.act(step, 0)
    if m.is_nhwc(x):  # the rows follow the NHWC order of the flattened input
        c, h, w = in_shape
        weight = weight.reshape(c, h, w, outputs).transpose(1, 2, 0, 3).reshape(inputs, outputs)
    x = m.widen(step, x)
    w_t = m.weights(step, weight.T, axis=0)
    b_t = m.bias(step, bias, outputs, x, w_t)
    flat = m.output(step) if len(step.shape) == 1 else m.tensor(f"{step.name}/2d", [1, outputs],
                                                                  m.qp_step(step))  # fmt: skip
    m.op("FULLY_CONNECTED", [x, w_t, b_t], [flat], "FullyConnectedOptions",
         keepNumDims=False, fusedActivationFunction=m.activation(step))  # fmt: skip
    if len(step.shape) == 1:
        return flat
    y = m.output(step)
    m.op("RESHAPE", [flat, m.ints("shape", m.shape(y))], [y], "ReshapeOptions",
         newShape=list(m.shape(y)))  # fmt: skip
    return y


def _batch_normalization(m: Any, step: Any) -> int:
    """A BatchNormalization not folded into the layer before it: x * scale + shift."""
    if tuple(step.kwargs.get("axes", (1,))) != (1,):
        raise StepError("only the channel axis (axes 1) is written")
    scale, shift = m.batch_norm(step)
    x = m.act(step, 0)
    channels = m.in_shape(step, 0)[0]
    tail = [channels] if m.is_nhwc(x) or len(m.in_shape(step, 0)) == 1 else None
    if tail is None:
        raise StepError("only (C,) and (C, H, W) inputs are written")
    scaled = m.tensor(f"{step.name}/scaled", m.shape(x), m.qp_step(step))
    m.op("MUL", [x, m.constant(f"{step.name}/scale", scale, scaled)], [scaled], "MulOptions")
    y = m.output(step)
    m.op("ADD", [scaled, m.constant(f"{step.name}/shift", shift, y)], [y], "AddOptions")
    return y


def _pooling(code: str) -> Callable[[Any, Any], int]:
    def write(m: Any, step: Any) -> int:
        kw = step.kwargs
        if kw.get("channel_last", False) or len(m.in_shape(step, 0)) != 3:
            raise StepError("only (C, H, W) inputs, channels first, are written")
        if (
            code == "AVERAGE_POOL_2D"
            and any(kw.get("pad") or (0, 0))
            and kw.get("including_pad", True)
        ):
            raise StepError("padding counted in the average (IncludingPad) is not written")
        kernel = tuple(kw["kernel"])
        x, padding = _padding(m, step, m.act(step, 0), tuple(m.in_shape(step, 0)[1:]), kernel,
                              pool=True)  # fmt: skip
        sy, sx = kw.get("stride") or kernel
        y = m.output(step, same_as=x)
        m.op(code, [x], [y], "Pool2DOptions", padding=padding, strideW=sx, strideH=sy,
             filterWidth=kernel[1], filterHeight=kernel[0])  # fmt: skip
        return y

    return write


def _global_average_pooling(m: Any, step: Any) -> int:
    shape = m.in_shape(step, 0)
    if len(shape) != 3:
        raise StepError("only (C, H, W) inputs are written")
    x = m.act(step, 0)
    y = m.output(step, same_as=x)
    m.op("AVERAGE_POOL_2D", [x], [y], "Pool2DOptions", padding="VALID", strideW=1, strideH=1,
         filterWidth=shape[2], filterHeight=shape[1])  # fmt: skip
    return y


def _softmax(m: Any, step: Any) -> int:
    shape = m.in_shape(step, 0)
    if step.kwargs.get("axis", 1) != 1 and step.kwargs.get("axis") != len(shape):
        raise StepError("only the channel axis (axis 1) is written")
    x = m.act(step, 0)
    if len(shape) != 1 and not m.is_nhwc(x):
        raise StepError("only (C,) and (C, H, W) inputs are written")
    y = m.output(step, fixed=(1 / 256, -128))
    if m.int8 and m.tensors[x].type == m.s.TensorType.INT16:  # int16 logits: int16 softmax
        wide = m.tensor(f"{step.name}/int16", m.shape(y), (1 / 32768, 0), kind="INT16")
        m.op("SOFTMAX", [x], [wide], "SoftmaxOptions", beta=1.0)
        m.op("QUANTIZE", [wide], [y])
        return y
    m.op("SOFTMAX", [x], [y], "SoftmaxOptions", beta=1.0)
    return y


def _unary(code: str, fixed: tuple[float, int] | None = None, options: str = "",
           **values: Callable[[dict[str, Any]], Any]) -> Callable[[Any, Any], int]:  # fmt: skip
    def write(m: Any, step: Any) -> int:
        x = m.act(step, 0)
        if m.tabled(step):
            return m.table(step, x)
        y = m.output(step, fixed=fixed)
        fields = {k: f(step.kwargs) for k, f in values.items()}
        m.op(code, [x], [y], options, **{k: v for k, v in fields.items() if v is not None})
        return y

    return write


def _one(alpha: float) -> None:
    """TFLite's ELU has alpha 1."""
    if alpha != 1.0:
        raise StepError(f"alpha {alpha:g} (TFLite's ELU has alpha 1)")


def _scalar(code: str, options: str) -> Callable[[Any, Any], int]:
    def write(m: Any, step: Any) -> int:
        x = m.act(step, 0)
        y = m.output(step)
        value = np.array([float(step.kwargs.get("val", 1.0))], dtype=np.float32)
        m.op(code, [x, m.constant(f"{step.name}/val", value, y)], [y], options)
        return y

    return write


def _binary(code: str, options: str) -> Callable[[Any, Any], int]:
    def write(m: Any, step: Any) -> int:
        if m.in_shape(step, 0) != m.in_shape(step, 1):
            raise StepError("inputs of different shapes (broadcast) are not written")
        a, b = m.act(step, 0), m.act(step, 1)
        y = m.output(step)
        m.op(code, [a, b], [y], options)
        return y

    return write


def _concatenate(m: Any, step: Any) -> int:
    rank = len(step.shape)
    axis = int(step.kwargs.get("axis", 1))
    axis = axis + rank + 1 if axis < 0 else axis
    y = m.output(step)
    xs = [m.requantized(m.act(step, k), y) for k in range(len(step.inputs))]
    if rank == 3 and m.is_nhwc(y):
        axis = {1: 3, 2: 1, 3: 2}[axis]
    m.op("CONCATENATION", xs, [y], "ConcatenationOptions", axis=axis)
    return y


def _reshape(m: Any, step: Any) -> int:
    return m.reshaped(m.act(step, 0), m.in_shape(step, 0), step)


def _fixed_point(m: Any, step: Any) -> int:
    """An activation's FixedPointQuantize: in the int8 model the tensor that carries its codes
    (usually the layer before it writes them directly); in the float model the engine's
    rounding in float operations (any number of bits)."""
    x = m.act(step, 0)
    return m.quantizer(step, x)


WRITERS: dict[str, Callable[[Any, Any], int]] = {
    "Convolution": _convolution,
    "DepthwiseConvolution": _convolution,
    "Affine": _affine,
    "BatchNormalization": _batch_normalization,
    "MaxPooling": _pooling("MAX_POOL_2D"),
    "AveragePooling": _pooling("AVERAGE_POOL_2D"),
    "GlobalAveragePooling": _global_average_pooling,
    "Softmax": _softmax,
    "ReLU": _unary("RELU"),
    "ReLU6": _unary("RELU6"),
    "Tanh": _unary("TANH", fixed=(1 / 128, 0)),
    "Sigmoid": _unary("LOGISTIC", fixed=(1 / 256, -128)),
    "ELU": _unary("ELU", alpha=lambda kw: _one(float(kw.get("alpha", 1.0)))),
    "LeakyReLU": _unary(
        "LEAKY_RELU", None, "LeakyReluOptions", alpha=lambda kw: float(kw.get("alpha", 0.1))
    ),  # fmt: skip
    "Abs": _unary("ABS"),
    "Exp": _unary("EXP"),
    "AddScalar": _scalar("ADD", "AddOptions"),
    "MulScalar": _scalar("MUL", "MulOptions"),
    "Add2": _binary("ADD", "AddOptions"),
    "Sub2": _binary("SUB", "SubOptions"),
    "Mul2": _binary("MUL", "MulOptions"),
    "Concatenate": _concatenate,
    "Reshape": _reshape,
    "FixedPointQuantize": _fixed_point,
}

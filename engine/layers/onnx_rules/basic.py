"""ONNX rules of the Basic layers: Conv, ConvTranspose, Gemm/MatMul (see the package docstring).

Convolution and Affine weights keep nnabla's layouts, which are ONNX's (Conv: (M, C/group,
*k), ConvTranspose: (C, M/group, *k)); Affine's (inputs, outputs) weight is MatMul's. Reading,
a Conv with one input channel per group and ``group`` = channels is a DepthwiseConvolution.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from engine.layers.errors import ExportError
from engine.layers.onnx_rules import NONE

__all__ = [
    "write_convolution", "write_depthwise", "write_deconvolution", "write_affine", "read_conv",
    "read_gemm", "read_matmul", "read_affine", "reshape_to", "pads",
]  # fmt: skip


def _conv_attrs(step: Any, kernel: tuple[int, ...]) -> dict[str, Any]:
    kw = step.kwargs
    n = len(kernel)
    pad = tuple(kw.get("pad") or (0,) * n)
    return {
        "kernel_shape": list(kernel),
        "pads": [*pad, *pad],
        "strides": list(kw.get("stride") or (1,) * n),
        "dilations": list(kw.get("dilation") or (1,) * n),
    }


def _check_base_axis(step: Any) -> None:
    if step.kwargs.get("base_axis", 1) != 1 or step.kwargs.get("channel_last"):
        raise ExportError(f'layer "{step.name}": only BaseAxis 1, channels first, is exportable')


def _sign(zero_to: float) -> Callable[[np.ndarray], np.ndarray]:
    return lambda w: np.where(w > 0, 1.0, np.where(w < 0, -1.0, zero_to))


def _weight_and_bias(g: Any, step: Any, ins: list[str], transform: Any = None) -> tuple[str, Any]:
    """The weight (BinaryConnect: binarized at export) and the bias reference of a step."""
    name = step.inputs[1][1]
    if step.type.startswith("BinaryConnect"):
        sign = _sign(float(step.kwargs.get("quantize_zero_to", 1.0)))
        weight = g.param(name, (lambda v: transform(sign(v))) if transform else sign)
        return weight, step.inputs[3] if len(step.inputs) > 3 else NONE
    weight = g.param(name, transform) if transform else ins[1]
    return weight, step.inputs[2] if len(step.inputs) > 2 else NONE


def write_convolution(g: Any, step: Any, ins: list[str]) -> str:
    """Convolution and BinaryConnectConvolution: Conv."""
    _check_base_axis(step)
    w = np.asarray(g.values[step.inputs[1][1]])
    weight, bias = _weight_and_bias(g, step, ins)
    attrs = _conv_attrs(step, tuple(w.shape[2:]))
    inputs = [ins[0], weight] + ([g.ref(bias)] if bias[0] != "none" else [])
    return str(g.node("Conv", inputs, step.name, group=int(step.kwargs.get("group", 1)), **attrs))


def write_depthwise(g: Any, step: Any, ins: list[str]) -> str:
    """DepthwiseConvolution: Conv with group = channels, the weight (C * m, 1, *k)."""
    _check_base_axis(step)
    w = np.asarray(g.values[step.inputs[1][1]])  # (C * multiplier, *kernel)
    channels = w.shape[0] // int(step.kwargs.get("multiplier", 1))
    weight = g.param(step.inputs[1][1], lambda v: v.reshape(v.shape[0], 1, *v.shape[1:]))
    attrs = _conv_attrs(step, tuple(w.shape[1:]))
    bias = step.inputs[2] if len(step.inputs) > 2 else NONE
    inputs = [ins[0], weight] + ([g.ref(bias)] if bias[0] != "none" else [])
    return str(g.node("Conv", inputs, step.name, group=channels, **attrs))


def write_deconvolution(g: Any, step: Any, ins: list[str]) -> str:
    """Deconvolution: ConvTranspose (output_padding as ONNX's attribute)."""
    _check_base_axis(step)
    w = np.asarray(g.values[step.inputs[1][1]])
    attrs = _conv_attrs(step, tuple(w.shape[2:]))
    extra = list(step.kwargs.get("output_padding") or ())
    if any(extra):
        attrs["output_padding"] = extra
    bias = step.inputs[2] if len(step.inputs) > 2 else NONE
    inputs = [ins[0], ins[1]] + ([g.ref(bias)] if bias[0] != "none" else [])
    group = int(step.kwargs.get("group", 1))
    return str(g.node("ConvTranspose", inputs, step.name, group=group, **attrs))


def write_affine(g: Any, step: Any, ins: list[str]) -> str:
    """Affine and BinaryConnectAffine: Flatten, MatMul, Add (the bias), Reshape (OutShape)."""
    _check_base_axis(step)
    size = int(np.prod(step.shape))
    if step.inputs[1][0] == "step":  # a weight quantizer's output (int8 QDQ): keep its codes
        weight, bias = ins[1], step.inputs[2] if len(step.inputs) > 2 else NONE
        if np.ndim(g.values[step.inputs[1][1]]) != 2:
            shape = g.ints(step.name + "/weight_shape", [-1, size])
            weight = str(g.node("Reshape", [ins[1], shape], step.name + "/weight"))
    else:
        weight, bias = _weight_and_bias(g, step, ins, lambda v: v.reshape(-1, size))
    flat = g.node("Flatten", [ins[0]], step.name + "/flatten", axis=1)
    out = g.node("MatMul", [flat, weight], step.name + "/matmul")
    if bias[0] != "none":
        out = g.node("Add", [out, g.param(bias[1], lambda v: v.reshape(size))], step.name)
    if len(step.shape) != 1:
        out = reshape_to(g, out, step.shape, step.name)
    return str(out)


def reshape_to(g: Any, x: str, shape: tuple[int, ...], hint: str) -> str:
    """Reshape to ``(batch, *shape)`` (0 keeps the batch)."""
    return str(g.node("Reshape", [x, g.ints(hint + "/shape", [0, *shape])], hint))


def pads(ctx: Any, node: Any, a: dict[str, Any], kernel: list[int], strides: list[int],
         dilations: list[int]) -> list[int]:  # fmt: skip
    """Symmetric explicit pads (also SAME auto-padding), else a clear error."""
    n = len(kernel)
    auto = a.get("auto_pad", b"NOTSET")
    auto = auto.decode() if isinstance(auto, bytes) else auto
    if auto in ("SAME_UPPER", "SAME_LOWER"):
        size = ctx.shapes[node.input[0]][2:]
        total = [max((-(-s // st) - 1) * st + (k - 1) * d + 1 - s, 0)
                 for s, k, st, d in zip(size, kernel, strides, dilations, strict=True)]  # fmt: skip
        if any(t % 2 for t in total):
            raise ctx.fail(node, "asymmetric SAME padding has no NNC equivalent")
        return [t // 2 for t in total]
    given = list(a.get("pads", [0] * (2 * n)))
    if given[:n] != given[n:]:
        raise ctx.fail(node, f"asymmetric pads {given} have no NNC equivalent")
    return given[:n]


def _transpose_pads(
    ctx: Any, node: Any, a: dict[str, Any], kernel: list[int], strides: list[int], dil: list[int]
) -> tuple[list[int], list[int], list[int]]:
    """ConvTranspose's (begin pads, end pads, output_padding) per axis, ``auto_pad`` and
    ``output_shape`` resolved as the ONNX specification says."""
    n = len(kernel)
    size = ctx.shapes[node.input[0]][2:]
    extra = list(a.get("output_padding", [0] * n))
    full = [(i - 1) * s + (k - 1) * d + 1 + o
            for i, k, s, d, o in zip(size, kernel, strides, dil, extra, strict=True)]  # fmt: skip
    auto = a.get("auto_pad", b"NOTSET")
    auto = auto.decode() if isinstance(auto, bytes) else auto
    if "output_shape" in a and "pads" in a:
        raise ctx.fail(node, "output_shape together with pads has no NNC equivalent")
    if "output_shape" in a or auto in ("SAME_UPPER", "SAME_LOWER"):
        wanted = list(a["output_shape"])[-n:] if "output_shape" in a else [
            i * s for i, s in zip(size, strides, strict=True)]  # fmt: skip
        total = [f - w for f, w in zip(full, wanted, strict=True)]
        if min(total) < 0:
            raise ctx.fail(node, f"output_shape {wanted} is larger than the transposed "
                           "convolution's output")  # fmt: skip
        small = [t // 2 for t in total]
        big = [t - t // 2 for t in total]
        return (small, big, extra) if auto == "SAME_UPPER" else (big, small, extra)
    given = list(a.get("pads", [0] * (2 * n)))
    return given[:n], given[n:], extra


def _read_conv_transpose(ctx: Any, node: Any, a: dict[str, Any], inputs: list[str],
                         kernel: list[int], strides: list[int], dil: list[int],
                         group: int) -> None:  # fmt: skip
    """ConvTranspose as Deconvolution; asymmetric pads, SAME auto-padding, output_shape and
    output_padding (which NNC's Deconvolution lacks) as Deconvolution with the symmetric part
    of the padding, then a Slice that crops the rest (and a zero Pad for output_padding beyond
    the end padding, without a bias)."""
    begin, end, extra = _transpose_pads(ctx, node, a, kernel, strides, dil)
    size = ctx.shapes[node.input[0]][2:]
    full = [(i - 1) * s + (k - 1) * d + 1
            for i, k, s, d in zip(size, kernel, strides, dil, strict=True)]  # fmt: skip
    pad = [min(b, max(e - o, 0)) for b, e, o in zip(begin, end, extra, strict=True)]
    args = {"group": group, "channel_last": False, "pad": pad, "stride": strides,
            "dilation": dil, "base_axis": 1}  # fmt: skip
    start = [b - p for b, p in zip(begin, pad, strict=True)]
    stop = [f + o - e - p for f, o, e, p in zip(full, extra, end, pad, strict=True)]
    have = [f - 2 * p for f, p in zip(full, pad, strict=True)]
    grow = [max(s - h, 0) for s, h in zip(stop, have, strict=True)]
    if start == [0] * len(start) and stop == have:
        ctx.emit(node, "Deconvolution", inputs, **args)
        return
    if any(grow) and len(inputs) > 2:
        raise ctx.fail(node, "output_padding beyond the end padding with a bias has no NNC "
                       "equivalent")  # fmt: skip
    out = node.output[0]
    ctx.emit(node, "Deconvolution", inputs, output=out + "/deconv", suffix="/deconv", **args)
    var = out + "/deconv"
    if any(grow):
        ctx.emit(node, "Pad", [var], output=out + "/pad", suffix="/pad",
                 pad_width=[v for g in grow for v in (0, g)], mode="constant",
                 constant_value=0.0)  # fmt: skip
        var = out + "/pad"
    maps = ctx.shapes[out][1]
    ctx.emit(
        node, "Slice", [var], start=[0, *start], stop=[maps, *stop], step=[1] * (len(start) + 1)
    )


def read_conv(ctx: Any, node: Any) -> None:
    """Conv as Convolution (DepthwiseConvolution when each group is one channel),
    ConvTranspose as Deconvolution."""
    a = ctx.attrs(node)
    w = ctx.const(node, 1, "the weight")
    kernel = list(w.shape[2:])
    strides = list(a.get("strides", [1] * len(kernel)))
    dil = list(a.get("dilations", [1] * len(kernel)))
    inputs = [node.input[0], ctx.param(node, w, "W", source=node.input[1])]
    if len(node.input) > 2 and node.input[2]:
        bias = ctx.const(node, 2, "the bias")
        inputs.append(ctx.param(node, bias, "b", source=node.input[2]))
    group = int(a.get("group", 1))
    channels = ctx.shapes[node.input[0]][1]
    if node.op_type == "ConvTranspose":
        _read_conv_transpose(ctx, node, a, inputs, kernel, strides, dil, group)
        return
    pad = pads(ctx, node, a, kernel, strides, dil)
    common = {"pad": pad, "stride": strides, "dilation": dil, "base_axis": 1}
    if group > 1 and group == channels and w.shape[1] == 1:
        weight = w.reshape(w.shape[0], *kernel)
        inputs[1] = ctx.param(node, weight, "W", source=node.input[1] + "#depthwise")
        ctx.emit(node, "DepthwiseConvolution", inputs, multiplier=w.shape[0] // channels, **common)
    else:
        ctx.emit(node, "Convolution", inputs, group=group, channel_last=False, **common)


def read_gemm(ctx: Any, node: Any) -> None:
    """Gemm (transB, alpha, beta folded into the weights) as Affine."""
    a = ctx.attrs(node)
    if a.get("transA", 0):
        raise ctx.fail(node, "transA=1 has no NNC equivalent")
    w = ctx.const(node, 1, "B") * float(a.get("alpha", 1.0))
    w = w.T if a.get("transB", 0) else w
    inputs = [node.input[0], ctx.param(node, w, "W")]
    if len(node.input) > 2 and node.input[2]:
        bias = ctx.const(node, 2, "C") * float(a.get("beta", 1.0))
        n = w.shape[1]
        if bias.ndim > 2 or bias.size not in (1, n) or (bias.ndim == 2 and bias.shape[0] != 1):
            raise ctx.fail(
                node,
                f"a bias C of shape {tuple(bias.shape)} (one row per sample) "
                f"has no NNC equivalent; Affine takes one of shape ({n},) or (1, {n})",
            )
        inputs.append(ctx.param(node, np.broadcast_to(bias.reshape(-1), (n,)), "b"))
    ctx.emit(node, "Affine", inputs, base_axis=1)


def read_matmul(ctx: Any, node: Any) -> None:
    """(batch, K) x constant (K, N) as Affine without bias (a following Add gives it one)."""
    w = ctx.const(node, 1, "the second input (weights)")
    if w.ndim != 2 or len(ctx.shapes[node.input[0]]) != 2:
        raise ctx.fail(node, "only (batch, K) x constant (K, N) has an NNC equivalent (Affine)")
    weight = ctx.param(node, w, "W", source=node.input[1])
    ctx.emit(node, "Affine", [node.input[0], weight], base_axis=1)


def read_affine(ctx: Any, node: Any) -> None:
    """Gemm or MatMul as Affine."""
    (read_gemm if node.op_type == "Gemm" else read_matmul)(ctx, node)

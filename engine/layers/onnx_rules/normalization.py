"""ONNX rules of LayerNormalization and InstanceNormalization (see the package docstring).

NNC's LayerNormalization normalizes each sample over all its axes: ONNX's over the axes from
``axis`` on is that layer when ``axis`` is 1, else the layers that compute it (Mean, Sub2,
PowScalar, Mean, AddScalar, PowScalar, Mul2, then the scale and bias as Parameter layers with
Mul2 and Add2). InstanceNormalization with a constant scale and bias is NNC's layer.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from engine.layers.errors import ExportError
from engine.layers.onnx_rules.activation import Steps

__all__ = ["read_layer_norm", "read_instance_norm", "write_layer_norm", "write_instance_norm"]


def _scale_and_bias(ctx: Any, node: Any, shape: tuple[int, ...]) -> tuple[np.ndarray, ...]:
    """The constant scale and bias (zeros if absent) broadcast to ``shape``."""
    scale = ctx.const(node, 1, "the scale")
    has_bias = len(node.input) > 2 and node.input[2]
    bias = ctx.const(node, 2, "the bias") if has_bias else np.zeros((), np.float32)
    try:
        return tuple(np.broadcast_to(np.asarray(v, np.float32), shape).copy()
                     for v in (scale, bias))  # fmt: skip
    except ValueError:
        raise ctx.fail(node, f"a scale of shape {scale.shape} or bias of shape "
                       f"{np.shape(bias)} does not broadcast to {shape}") from None  # fmt: skip


def read_layer_norm(ctx: Any, node: Any) -> None:
    """LayerNormalization (see the module docstring)."""
    a = ctx.attrs(node)
    x = node.input[0]
    shape = ctx.shapes[x]
    rank = len(shape)
    axis = int(a.get("axis", -1))
    axis = axis + rank if axis < 0 else axis
    if axis == 0:
        raise ctx.fail(node, "a normalization over the batch axis has no NNC equivalent")
    eps = float(a.get("epsilon", 1e-5))
    gamma, beta = _scale_and_bias(ctx, node, tuple(shape[axis:]))
    if axis == 1:
        full = (1, *shape[1:])
        ctx.emit(node, "LayerNormalization", [x, ctx.param(node, beta.reshape(full), "beta"),
                 ctx.param(node, gamma.reshape(full), "gamma")], batch_axis=[0], eps=eps,
                 output_stat=False)  # fmt: skip
        return
    step = Steps(ctx, node)
    axes = list(range(axis, rank))
    mean = step("Mean", [x], axes=axes, keep_dims=True)
    centred = step("Sub2", [x, mean])
    var = step("Mean", [step("PowScalar", [centred], val=2.0)], axes=axes, keep_dims=True)
    inv = step("PowScalar", [step("AddScalar", [var], val=eps)], val=-0.5)
    y = step("Mul2", [centred, inv])
    aligned = (1,) * (axis - 1) + tuple(shape[axis:])
    g = step("Parameter", [ctx.param(node, gamma.reshape(aligned), "gamma")])
    b = step("Parameter", [ctx.param(node, beta.reshape(aligned), "beta")])
    step("Add2", [step("Mul2", [y, g]), b], last=True)


def read_instance_norm(ctx: Any, node: Any) -> None:
    """InstanceNormalization with a constant scale and bias (one per channel)."""
    x = node.input[0]
    shape = ctx.shapes[x]
    if len(shape) < 3:
        raise ctx.fail(node, f"an input of shape {shape} has no spatial axes to normalize over")
    gamma, beta = _scale_and_bias(ctx, node, (shape[1],))
    channel = (1, shape[1]) + (1,) * (len(shape) - 2)
    ctx.emit(node, "InstanceNormalization", [x, ctx.param(node, beta.reshape(channel), "beta"),
             ctx.param(node, gamma.reshape(channel), "gamma")], channel_axis=1, batch_axis=[0],
             eps=float(ctx.attrs(node).get("epsilon", 1e-5)), output_stat=False)  # fmt: skip


def _export_error(message: str) -> Exception:
    return ExportError(message)


def _axes(value: Any) -> list[int]:
    return [int(v) for v in (value if isinstance(value, list | tuple) else [value])]


def write_layer_norm(g: Any, step: Any, ins: list[str]) -> str:
    """LayerNormalization over every axis but the batch: ONNX's LayerNormalization (axis 1),
    which came in opset 17."""
    kw = step.kwargs
    if _axes(kw.get("batch_axis", 0)) != [0]:
        raise _export_error(f'layer "{step.name}": only a layer normalization with the batch '
                            "axis as its only batch axis is exportable")  # fmt: skip
    if g.opset < 17:
        raise _export_error(f'layer "{step.name}": LayerNormalization needs ONNX opset 17 or '
                            f"later (asked: {g.opset})")  # fmt: skip
    sample = tuple(g.in_shape(step, 0))
    beta, gamma = (g.param(r[1], lambda v: v.reshape(sample)) for r in step.inputs[1:3])
    return str(g.node("LayerNormalization", [ins[0], gamma, beta], step.name, axis=1,
                      epsilon=float(kw.get("eps", 1e-5))))  # fmt: skip


def write_instance_norm(g: Any, step: Any, ins: list[str]) -> str:
    """InstanceNormalization over the channel axis 1 (scale and bias one per channel)."""
    kw = step.kwargs
    if _axes(kw.get("batch_axis", 0)) != [0] or int(kw.get("channel_axis", 1)) != 1:
        raise _export_error(f'layer "{step.name}": only an instance normalization over the '
                            "channel axis is exportable")  # fmt: skip
    beta, gamma = (g.param(r[1], lambda v: v.reshape(-1)) for r in step.inputs[1:3])
    return str(g.node("InstanceNormalization", [ins[0], gamma, beta], step.name,
                      epsilon=float(kw.get("eps", 1e-5))))  # fmt: skip

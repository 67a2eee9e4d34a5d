"""ONNX rules of arithmetic, Clip and the binary activations (see the package docstring).

Add/Sub/Mul/Div/Pow of two tensors of one shape are Add2 ... Pow2; with a constant operand
whose elements are all equal they are the scalar layers (AddScalar, RSubScalar, ...), and a
per-channel constant added after a bias-free Conv/Gemm/MatMul becomes that layer's bias.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from engine.layers.onnx_rules import scalar, uniform

__all__ = ["read_arithmetic", "write_scalar", "write_reverse_scalar", "write_relu6",
           "read_clip", "write_threshold", "read_threshold", "write_selu", "read_selu"]  # fmt: skip

_TWO = {"Add": "Add2", "Sub": "Sub2", "Mul": "Mul2", "Div": "Div2", "Pow": "Pow2"}


def read_arithmetic(ctx: Any, node: Any) -> None:
    """Add, Sub, Mul, Div, Pow (see the module docstring)."""
    op = node.op_type
    a, b = node.input[0], node.input[1]
    if a in ctx.consts and b not in ctx.consts and op in ("Add", "Mul"):
        a, b = b, a
    if b in ctx.consts and a not in ctx.consts:
        value = ctx.consts[b]
        if op == "Add" and _fold_bias(ctx, node, a, value):
            return
        s = uniform(value, ctx.shapes[a])
        if s is None:
            raise ctx.fail(node, "a constant operand must be one value (or a bias after a "
                           "bias-free Conv/Gemm/MatMul)")  # fmt: skip
        if op == "Div" and s == 0:
            raise ctx.fail(node, "a division by the constant 0 has no NNC equivalent")
        fn, val = {"Add": ("AddScalar", s), "Sub": ("AddScalar", -s), "Mul": ("MulScalar", s),
                   "Div": ("MulScalar", 1.0 / (s or 1.0)), "Pow": ("PowScalar", s)}[op]  # fmt: skip
        ctx.emit(node, fn, [a], val=val)
        return
    if a in ctx.consts:
        s = uniform(ctx.consts[a], ctx.shapes[b])
        if s is None or op not in ("Sub", "Div"):
            raise ctx.fail(node, "a constant first operand must be one value")
        ctx.emit(node, "RSubScalar" if op == "Sub" else "RDivScalar", [b], val=s)
        return
    if ctx.shapes.get(a) != ctx.shapes.get(b):
        raise ctx.fail(node, f"operands of shapes {ctx.shapes.get(a)} and {ctx.shapes.get(b)}: "
                       "broadcasting has no NNC equivalent here")  # fmt: skip
    ctx.emit(node, _TWO[op], [a, b])


def _fold_bias(ctx: Any, node: Any, x: str, value: np.ndarray) -> bool:
    """``Add(Conv/Gemm/MatMul without bias, constant per channel)``: the constant is its bias."""
    fn = ctx.producer(x)
    if fn is None or fn.type not in ("Affine", "Convolution") or len(fn.inputs) != 2:
        return False
    out = ctx.shapes[x][1]
    if value.size != out or ctx.uses(x) != 1:
        return False
    bias = node.input[1] if node.input[0] == x else node.input[0]
    fn.inputs.append(ctx.param(node, value.reshape(out), "b", source=bias))
    ctx.alias[node.output[0]] = fn.outputs[0]
    return True


def write_scalar(op: str) -> Callable[[Any, Any, list[str]], str]:
    """``x <op> val`` with the step's ``val`` as a constant (AddScalar, MulScalar, PowScalar)."""

    def write(g: Any, step: Any, ins: list[str]) -> str:
        const = g.const("val", np.float32(step.kwargs.get("val", 1.0)))
        return str(g.node(op, [ins[0], const], step.name))

    return write


def write_reverse_scalar(op: str) -> Callable[[Any, Any, list[str]], str]:
    """``val <op> x`` (RSubScalar, RDivScalar)."""

    def write(g: Any, step: Any, ins: list[str]) -> str:
        const = g.const("val", np.float32(step.kwargs.get("val", 1.0)))
        return str(g.node(op, [const, ins[0]], step.name))

    return write


def write_relu6(g: Any, step: Any, ins: list[str]) -> str:
    """ReLU6: Clip(0, 6)."""
    low, high = g.const("zero", np.float32(0)), g.const("six", np.float32(6))
    return str(g.node("Clip", [ins[0], low, high], step.name))


def read_clip(ctx: Any, node: Any) -> None:
    """Clip(0) as ReLU, Clip(0, 6) as ReLU6."""
    a = ctx.attrs(node)
    low, high = a.get("min"), a.get("max")
    if len(node.input) > 1 and node.input[1]:
        low = scalar(ctx.const(node, 1, "min"))
    if len(node.input) > 2 and node.input[2]:
        high = scalar(ctx.const(node, 2, "max"))
    if low == 0 and high is None:
        ctx.emit(node, "ReLU", node.input[:1], inplace=False)
    elif low == 0 and high == 6:
        ctx.emit(node, "ReLU6", node.input[:1])
    else:
        raise ctx.fail(node, f"Clip({low}, {high}): only Clip(0) and Clip(0, 6) have NNC layers")


def write_selu(g: Any, step: Any, ins: list[str]) -> str:
    """SELU: ONNX's Selu, whose ``gamma`` is NNC's Scale."""
    kw = step.kwargs
    return str(g.node("Selu", ins[:1], step.name, alpha=float(kw["alpha"]),
                      gamma=float(kw["scale"])))  # fmt: skip


def read_selu(ctx: Any, node: Any) -> None:
    """Selu as SELU (ONNX's defaults are the float32 values of NNC's)."""
    a = ctx.attrs(node)
    ctx.emit(node, "SELU", node.input[:1], scale=float(a.get("gamma", 1.0507010221481323)),
             alpha=float(a.get("alpha", 1.6732631921768188)))  # fmt: skip


def write_threshold(low: float) -> Callable[[Any, Any, list[str]], str]:
    """BinaryTanh (low -1), BinarySigmoid (low 0): ``Where(x > 0, 1, low)`` (0 maps to low)."""

    def write(g: Any, step: Any, ins: list[str]) -> str:
        positive = g.node("Greater", [ins[0], g.const("zero", np.zeros((), np.float32))],
                          step.name)  # fmt: skip
        one, other = g.const("one", np.ones((), np.float32)), g.const("low", np.float32(low))
        return str(g.node("Where", [positive, one, other], step.name))

    return write


_THRESHOLDS = {-1.0: "BinaryTanh", 0.0: "BinarySigmoid"}


def read_threshold(ctx: Any, node: Any) -> None:
    """``Where(Greater(x, 0), 1, low)``, low -1 or 0, as BinaryTanh or BinarySigmoid; the
    Greater is read with its Where."""
    where = node if node.op_type == "Where" else next(iter(ctx.consumers(node.output[0])), None)
    greater = ctx.node_of(where.input[0]) if where is not None else None
    layer = _threshold_layer(ctx, where, greater)
    if layer is None:
        raise ctx.fail(node, "only Where(Greater(x, 0), 1, -1 or 0) has NNC layers "
                       "(BinaryTanh, BinarySigmoid)")  # fmt: skip
    if node is where:
        ctx.emit(node, layer, greater.input[:1])


def _threshold_layer(ctx: Any, where: Any, greater: Any) -> str | None:
    if where is None or where.op_type != "Where" or greater is None:
        return None
    if greater.op_type != "Greater" or ctx.uses(greater.output[0]) != 1:
        return None
    if greater.input[0] in ctx.consts or greater.input[1] not in ctx.consts:
        return None
    if uniform(ctx.consts[greater.input[1]], ctx.shapes[greater.input[0]]) != 0.0:
        return None
    values = [ctx.consts.get(name) for name in where.input[1:]]
    if any(v is None or v.size != 1 for v in values):
        return None
    one, low = (float(np.asarray(v).reshape(-1)[0]) for v in values)
    return _THRESHOLDS.get(low) if one == 1.0 else None

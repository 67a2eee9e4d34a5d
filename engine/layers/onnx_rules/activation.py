"""ONNX rules of activations that ONNX writes with other parameters than NNC's layers, or that
NNC computes with several layers (see the package docstring): HardSigmoid and HardSwish,
Gelu and Erf, PRelu.

Erf has no NNC layer: it is Abramowitz and Stegun's formula 7.1.26 (absolute error below
1.5e-7, under float32's resolution around 1), ``sign(x) (1 - t (a1 + t (a2 + ... a5 t))
exp(-x^2))`` with ``t = 1 / (1 + p |x|)``, written with NNC's arithmetic layers; the exact
Gelu is ``0.5 x (1 + erf(x / sqrt 2))`` on it, the tanh Gelu is NNC's GELU.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from engine.layers.onnx_rules.others import _error

__all__ = ["read_hard_sigmoid", "read_gelu", "write_gelu", "read_prelu", "write_prelu",
           "Steps", "read_relu", "read_elu", "read_sign", "write_sign", "write_mish"]  # fmt: skip


class Steps:
    """The layers of one composite, named after the ONNX node (``node/Abs_0``); the last one
    writes the node's output."""

    def __init__(self, ctx: Any, node: Any) -> None:
        self.ctx, self.node, self.count = ctx, node, 0

    def __call__(self, type_: str, inputs: list[str], last: bool = False, **args: Any) -> str:
        if last:
            self.ctx.emit(self.node, type_, inputs, **args)
            return str(self.node.output[0])
        suffix = f"/{type_}_{self.count}"
        self.count += 1
        out = self.node.output[0] + suffix
        self.ctx.emit(self.node, type_, inputs, output=out, suffix=suffix, **args)
        return out


def _close(a: float, b: float) -> bool:
    return abs(a - b) <= 1e-6 * max(1.0, abs(b))


def read_hard_sigmoid(ctx: Any, node: Any) -> None:
    """HardSigmoid ``clip(alpha x + beta, 0, 1)``: NNC's HardSigmoid is alpha 0.2, beta 0.5;
    other values scale and shift first. HardSwish is ``x HardSigmoid(x / 6 + 0.5)``."""
    a = ctx.attrs(node)
    x = node.input[0]
    step = Steps(ctx, node)
    if node.op_type == "HardSwish":
        alpha, beta = 1.0 / 6.0, 0.5
    else:
        alpha, beta = float(a.get("alpha", 0.2)), float(a.get("beta", 0.5))
    last = node.op_type == "HardSigmoid"
    h = x
    if not (_close(alpha, 0.2) and _close(beta, 0.5)):
        h = step("MulScalar", [h], val=alpha / 0.2)
        if not _close(beta, 0.5):
            h = step("AddScalar", [h], val=(beta - 0.5) / 0.2)
    h = step("HardSigmoid", [h], last=last)
    if not last:
        step("Mul2", [x, h], last=True)


# Abramowitz and Stegun 7.1.26
_P = 0.3275911
_A = (0.254829592, -0.284496736, 1.421413741, -1.453152027, 1.061405429)


def _erf(step: Steps, x: str, last: bool) -> str:
    """erf(x) as NNC layers (see the module docstring)."""
    a = step("Abs", [x])
    t = step("RDivScalar", [step("AddScalar", [step("MulScalar", [a], val=_P)], val=1.0)],
             val=1.0)  # fmt: skip
    poly = step("MulScalar", [t], val=_A[4])
    for coef in reversed(_A[:4]):
        poly = step("Mul2", [step("AddScalar", [poly], val=coef), t])
    gauss = step("Exp", [step("MulScalar", [step("PowScalar", [a], val=2.0)], val=-1.0)])
    y = step("RSubScalar", [step("Mul2", [poly, gauss])], val=1.0)
    return step("Mul2", [step("Sign", [x], alpha=0.0), y], last=last)


def read_gelu(ctx: Any, node: Any) -> None:
    """Gelu (approximate tanh: NNC's GELU; none: through Erf) and Erf (see the module
    docstring)."""
    step = Steps(ctx, node)
    x = node.input[0]
    if node.op_type == "Erf":
        _erf(step, x, last=True)
        return
    approximate = ctx.attrs(node).get("approximate", b"none")
    approximate = approximate.decode() if isinstance(approximate, bytes) else approximate
    if approximate == "tanh":
        ctx.emit(node, "GELU", [x])
        return
    erf = _erf(step, step("MulScalar", [x], val=1.0 / math.sqrt(2.0)), last=False)
    half = step("MulScalar", [step("AddScalar", [erf], val=1.0)], val=0.5)
    step("Mul2", [x, half], last=True)


def write_gelu(g: Any, step: Any, ins: list[str]) -> str:
    """NNC's GELU (the tanh form): ``0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3)))``, in
    operators of every opset (ONNX's Gelu came in opset 20)."""
    x, name = ins[0], step.name

    def const(hint: str, value: float) -> str:
        return str(g.const(hint, np.float32(value)))

    cube = g.node("Pow", [x, const("three", 3.0)], name + "/cube")
    inner = g.node("Add", [x, g.node("Mul", [cube, const("c", 0.044715)], name + "/c")],
                   name + "/inner")  # fmt: skip
    scaled = g.node("Mul", [inner, const("k", math.sqrt(2.0 / math.pi))], name + "/scaled")
    t = g.node("Add", [g.node("Tanh", [scaled], name + "/tanh"), const("one", 1.0)],
               name + "/one_plus")  # fmt: skip
    return str(g.node("Mul", [g.node("Mul", [x, t], name + "/x"), const("half", 0.5)], name))


def read_prelu(ctx: Any, node: Any) -> None:
    """PRelu with a constant slope of one value, or one per channel: PReLU (its slope a
    parameter per channel); any other slope that broadcasts without the batch axis:
    ``ReLU(x) + slope min(x, 0)`` with the slope as a Parameter layer (or the data)."""
    x, slope = node.input[0], node.input[1]
    shape = ctx.shapes[x]
    if slope in ctx.consts:
        value = np.asarray(ctx.consts[slope], np.float64)
        if len(shape) >= 2:
            aligned = (1,) * (len(shape) - value.ndim) + tuple(value.shape)
            if value.ndim <= len(shape) and all(d == 1 for i, d in enumerate(aligned) if i != 1):
                vec = np.broadcast_to(value.reshape(-1), (shape[1],)) if value.size == 1 else (
                    value.reshape(-1))  # fmt: skip
                if vec.size == shape[1]:
                    ctx.emit(node, "PReLU", [x, ctx.param(node, vec, "slope")], base_axis=1)
                    return
    step = Steps(ctx, node)
    positive = step("ReLU", [x], inplace=False)
    negative = step("MinimumScalar", [x], val=0.0)
    if slope in ctx.consts:
        value = ctx.consts[slope]
        aligned = (1,) * (len(shape) - value.ndim) + tuple(value.shape)
        if value.ndim > len(shape) or aligned[0] != 1 or any(
            v not in (1, s) for v, s in zip(aligned, shape, strict=True)
        ):  # fmt: skip
            raise ctx.fail(node, f"a slope of shape {value.shape} does not broadcast to the "
                           f"input's shape {shape} without the batch axis")  # fmt: skip
        slope = step("Parameter", [ctx.param(node, np.reshape(value, aligned[1:]), "slope")])
    elif ctx.shapes.get(slope) != shape:
        raise ctx.fail(node, f"a slope of shape {ctx.shapes.get(slope)} computed in the "
                       f"network must have the input's shape {shape}")  # fmt: skip
    step("Add2", [positive, step("Mul2", [negative, slope])], last=True)


def write_prelu(g: Any, step: Any, ins: list[str]) -> str:
    """PReLU: PRelu with the slope shaped (C, 1, ...) to broadcast over the channel axis."""

    base = int(step.kwargs.get("base_axis", 1))
    rank = len(g.in_shape(step, 0)) + 1
    if base != 1 and rank > 2:
        raise _error(f'layer "{step.name}": only a PReLU over the channel axis (BaseAxis 0) is '
                     "exportable")  # fmt: skip
    trail = rank - 2
    slope = g.param(step.inputs[1][1], lambda v: v.reshape(-1, *([1] * trail)) if v.size > 1
                    else v.reshape(1))  # fmt: skip
    return str(g.node("PRelu", [ins[0], slope], step.name))


def read_relu(ctx: Any, node: Any) -> None:
    """Relu as ReLU; ThresholdedRelu (x if x > alpha else 0) as GreaterScalar and Mul2."""
    x = node.input[0]
    if node.op_type == "Relu":
        ctx.emit(node, "ReLU", [x], inplace=False)
        return
    step = Steps(ctx, node)
    above = step("GreaterScalar", [x], val=float(ctx.attrs(node).get("alpha", 1.0)))
    step("Mul2", [x, above], last=True)


def read_elu(ctx: Any, node: Any) -> None:
    """Elu as ELU; ONNX's Celu (``max(0, x) + min(0, alpha (exp(x / alpha) - 1))``, not NNC's
    concatenated CELU) as ``alpha ELU(x / alpha)``: MulScalar, ELU, MulScalar."""
    a = ctx.attrs(node)
    x = node.input[0]
    if node.op_type == "Elu":
        ctx.emit(node, "ELU", [x], alpha=float(a.get("alpha", 1.0)))
        return
    alpha = float(a.get("alpha", 1.0))
    if alpha == 0:
        raise ctx.fail(node, "alpha 0 divides by zero")
    step = Steps(ctx, node)
    elu = step("ELU", [step("MulScalar", [x], val=1.0 / alpha)], alpha=1.0)
    step("MulScalar", [elu], val=alpha, last=True)


def read_sign(ctx: Any, node: Any) -> None:
    """Sign as NNC's Sign with Alpha 0 (ONNX's sign of 0 is 0)."""
    ctx.emit(node, "Sign", node.input[:1], alpha=0.0)


def write_sign(g: Any, step: Any, ins: list[str]) -> str:
    """Sign with Alpha 0 (NNC's default) is ONNX's Sign; another Alpha is refused."""

    if float(step.kwargs.get("alpha", 0.0)) != 0.0:
        raise _error(f'layer "{step.name}": only a Sign with Alpha 0 is exportable (ONNX\'s '
                     "sign of 0 is 0)")  # fmt: skip
    return str(g.node("Sign", ins[:1], step.name))


def write_mish(g: Any, step: Any, ins: list[str]) -> str:
    """Mish ``x tanh(softplus(x))`` in operators of every opset (ONNX's Mish came in 18)."""
    soft = g.node("Softplus", ins[:1], step.name + "/softplus")
    return str(g.node("Mul", [ins[0], g.node("Tanh", [soft], step.name + "/tanh")], step.name))

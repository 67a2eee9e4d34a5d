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
from engine.layers.onnx_rules.activation import Steps

__all__ = ["read_arithmetic", "read_sum", "write_scalar", "write_reverse_scalar", "write_relu6",
           "read_clip", "write_threshold", "read_threshold", "write_selu", "read_selu",
           "read_unary_scalar", "read_extreme"]  # fmt: skip

_TWO = {"Add": "Add2", "Sub": "Sub2", "Mul": "Mul2", "Div": "Div2", "Pow": "Pow2"}


def read_arithmetic(ctx: Any, node: Any) -> None:
    """Add, Sub, Mul, Div, Pow (see the module docstring)."""
    op = node.op_type
    a, b = node.input[0], node.input[1]
    if a in ctx.consts and b not in ctx.consts and op in ("Add", "Mul"):
        a, b = b, a
    if b in ctx.consts and a not in ctx.consts:
        value = ctx.consts[b]
        if op in ("Add", "Sub", "Mul", "Div") and _fold_channels(ctx, node, a, value):
            return
        s = uniform(value, ctx.shapes[a])
        if s is None:
            _with_parameter(ctx, node, a, value, first=False)
            return
        if op == "Div" and s == 0:
            raise ctx.fail(node, "a division by the constant 0 has no NNC equivalent")
        fn, val = {"Add": ("AddScalar", s), "Sub": ("AddScalar", -s), "Mul": ("MulScalar", s),
                   "Div": ("MulScalar", 1.0 / (s or 1.0)), "Pow": ("PowScalar", s)}[op]  # fmt: skip
        ctx.emit(node, fn, [a], val=val)
        return
    if a in ctx.consts:
        s = uniform(ctx.consts[a], ctx.shapes[b])
        if s is None or op not in ("Sub", "Div"):
            _with_parameter(ctx, node, b, ctx.consts[a], first=True)
            return
        ctx.emit(node, "RSubScalar" if op == "Sub" else "RDivScalar", [b], val=s)
        return
    sa, sb = ctx.shapes.get(a), ctx.shapes.get(b)
    if sa != sb and not _broadcastable(sa, sb):
        raise ctx.fail(node, f"operands of shapes {sa} and {sb}: only shapes of one rank "
                       "whose axes agree or are 1 broadcast in NNC")  # fmt: skip
    ctx.emit(node, _TWO[op], [a, b])


def _with_parameter(ctx: Any, node: Any, x: str, value: np.ndarray, first: bool) -> None:
    """``x <op> constant`` (``constant <op> x`` if ``first``) where the constant is neither one
    value nor foldable into the previous layer: a Parameter layer holding the constant (its
    shape without the batch axis) and Add2 ... Pow2."""
    shape = ctx.shapes[x]
    if value.ndim > len(shape) or -1 in shape:
        raise ctx.fail(node, f"a constant of shape {value.shape} does not broadcast to the "
                       f"shape {shape} of its other operand")  # fmt: skip
    aligned = (1,) * (len(shape) - value.ndim) + tuple(value.shape)
    if aligned[0] != 1 or any(v not in (1, s) for v, s in zip(aligned, shape, strict=True)):
        raise ctx.fail(node, f"a constant of shape {value.shape} changes the shape {shape} of "
                       "its other operand (or spans the batch axis): only constants that "
                       "broadcast to it without the batch axis have an NNC equivalent (a "
                       "Parameter layer)")  # fmt: skip
    op, out = node.op_type, node.output[0]
    if first and op == "Pow" and ctx.producer(x) is None:
        raise ctx.fail(node, "a constant base of several values raised to a network input has "
                       "no NNC equivalent")  # fmt: skip
    name = ctx.param(node, np.asarray(value, np.float32).reshape(aligned[1:]), "constant")
    ctx.emit(node, "Parameter", [name], output=out + "/constant", suffix="/constant")
    if first and op == "Sub":  # c - x = -(x - c): x stays the main input (it may be an Input)
        ctx.emit(node, "Sub2", [x, out + "/constant"], output=out + "/sub", suffix="/sub")
        ctx.emit(node, "MulScalar", [out + "/sub"], val=-1.0)
    elif first and op == "Div":  # c / x = (1 / x) c
        ctx.emit(node, "RDivScalar", [x], output=out + "/reciprocal", suffix="/reciprocal",
                 val=1.0)  # fmt: skip
        ctx.emit(node, "Mul2", [out + "/reciprocal", out + "/constant"])
    else:
        ctx.emit(node, _TWO[op], [out + "/constant", x] if first else [x, out + "/constant"])


def _broadcastable(a: Any, b: Any) -> bool:
    """Shapes of one rank whose axes agree or are 1 (what Add2 ... Pow2 broadcast)."""
    if a is None or b is None or len(a) != len(b) or -1 in a or -1 in b:
        return False
    return all(x == y or 1 in (x, y) for x, y in zip(a, b, strict=True))


def _per_channel(ctx: Any, x: str, value: np.ndarray) -> np.ndarray | None:
    """The constant as one value per channel of ``x`` (axis 1), if it broadcasts that way."""
    shape = ctx.shapes[x]
    if len(shape) < 2 or value.ndim > len(shape):
        return None
    aligned = (1,) * (len(shape) - value.ndim) + tuple(value.shape)
    if any(d != 1 for i, d in enumerate(aligned) if i != 1) or aligned[1] not in (1, shape[1]):
        return None
    return np.broadcast_to(value.reshape(-1).astype(np.float64), (shape[1],)).copy()


_OUT_AXIS = {"Convolution": 0, "DepthwiseConvolution": 0, "Affine": 1}


def _fold_channels(ctx: Any, node: Any, x: str, value: np.ndarray) -> bool:
    """``x (+ - * /) constant per channel`` where ``x`` is the output of a Conv, Gemm/MatMul
    or test-mode BatchNormalization read by nothing else: the constant goes into that layer's
    weights, bias or beta/gamma (a batch normalization written as Mul/Add, a bias after a
    bias-free layer)."""
    fn = ctx.producer(x)
    vec = _per_channel(ctx, x, value)
    if fn is None or vec is None or ctx.uses(x) != 1:
        return False
    op = node.op_type
    scale = 1.0 / vec if op == "Div" else vec if op == "Mul" else None
    shift = -vec if op == "Sub" else vec if op == "Add" else None
    if scale is not None and op == "Div" and np.any(vec == 0):
        return False
    if fn.type == "BatchNormalization" and not fn.args.get("batch_stat"):
        beta, gamma = fn.inputs[1], fn.inputs[2]
        if scale is not None:
            _update(ctx, node, gamma, lambda g: g * scale.reshape(g.shape))
            _update(ctx, node, beta, lambda b: b * scale.reshape(b.shape))
        else:
            _update(ctx, node, beta, lambda b: b + shift.reshape(b.shape))
    elif fn.type in _OUT_AXIS and not (fn.type == "Affine" and ctx.params[fn.inputs[1]].ndim != 2):
        if scale is not None:
            axis = _OUT_AXIS[fn.type]
            _update(ctx, node, fn.inputs[1], lambda w: w * np.expand_dims(
                scale, [k for k in range(w.ndim) if k != axis]))  # fmt: skip
            if len(fn.inputs) > 2:
                _update(ctx, node, fn.inputs[2], lambda b: b * scale.reshape(b.shape))
        elif len(fn.inputs) > 2:
            _update(ctx, node, fn.inputs[2], lambda b: b + shift.reshape(b.shape))
        else:
            source = node.input[1] if node.input[0] == x else node.input[0]
            fn.inputs.append(ctx.param(node, shift, "b", source=source if op == "Add" else None))
    else:
        return False
    ctx.alias[node.output[0]] = fn.outputs[0]
    return True


def _update(ctx: Any, node: Any, name: str, change: Any) -> None:
    """Change parameter ``name`` (float32); it is no longer the initializer it was read from,
    so layers that read that initializer do not share it any more."""
    ctx.params[name] = np.asarray(change(ctx.params[name].astype(np.float64)), np.float32)
    if name in ctx.sources:
        ctx.sources[name] += f"#{node.name or node.output[0]}"


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


def read_sum(ctx: Any, node: Any) -> None:
    """Sum of N tensors as AddN (one input: the input itself); Mean as AddN, MulScalar 1/N.
    Constant operands are added as one: AddScalar when it is one value, else a Parameter layer
    and Add2."""

    names = [name for name in node.input if name]
    data = [name for name in names if name not in ctx.consts]
    shapes = [ctx.shapes.get(name) for name in data]
    if any(not _broadcastable(shapes[0], other) for other in shapes[1:]):
        raise ctx.fail(node, f"operands of shapes {', '.join(map(str, shapes))}: only shapes of "
                       "one rank whose axes agree or are 1 broadcast in NNC")  # fmt: skip
    consts = [np.asarray(ctx.consts[name], np.float64) for name in names if name in ctx.consts]
    constant = sum(consts[1:], consts[0]) if consts else None
    mean = node.op_type == "Mean" and len(names) > 1
    step = Steps(ctx, node)
    total = data[0] if len(data) == 1 else step("AddN", data, last=not (mean or consts))
    if constant is not None:
        s = uniform(constant, shapes[0])
        if s is not None:
            total = step("AddScalar", [total], val=s, last=not mean)
        else:
            aligned = (1,) * (len(shapes[0]) - constant.ndim) + tuple(constant.shape)
            if constant.ndim > len(shapes[0]) or aligned[0] != 1 or any(
                v not in (1, d) for v, d in zip(aligned, shapes[0], strict=True)
            ):  # fmt: skip
                raise ctx.fail(node, f"a constant of shape {constant.shape} changes the shape "
                               f"{shapes[0]} of the other operands")  # fmt: skip
            value = ctx.param(node, constant.reshape(aligned[1:]), "constant")
            total = step("Add2", [total, step("Parameter", [value])], last=not mean)
    if mean:
        step("MulScalar", [total], val=1.0 / len(names), last=True)
    elif total == data[0]:  # one operand
        ctx.alias[node.output[0]] = ctx.var(data[0])


_UNARY = {"Neg": ("MulScalar", -1.0), "Sqrt": ("PowScalar", 0.5), "Reciprocal": ("RDivScalar", 1.0)}


def read_unary_scalar(ctx: Any, node: Any) -> None:
    """Neg as MulScalar(-1), Sqrt as PowScalar(0.5), Reciprocal as RDivScalar(1)."""
    layer, val = _UNARY[node.op_type]
    ctx.emit(node, layer, node.input[:1], val=val)


def read_extreme(ctx: Any, node: Any) -> None:
    """Max/Min of N tensors as a chain of Maximum2/Minimum2 (one input: the input itself); the
    constant operands, if each is one value, as a final MaximumScalar/MinimumScalar."""
    two, one, pick = (("Maximum2", "MaximumScalar", max) if node.op_type == "Max"
                      else ("Minimum2", "MinimumScalar", min))  # fmt: skip
    names = [name for name in node.input if name]
    data = [name for name in names if name not in ctx.consts]
    shapes = [ctx.shapes.get(name) for name in data]
    if any(not _broadcastable(shapes[0], other) for other in shapes[1:]):
        raise ctx.fail(node, f"operands of shapes {', '.join(map(str, shapes))}: only shapes of "
                       "one rank whose axes agree or are 1 broadcast in NNC")  # fmt: skip
    bound = None
    for name in names:
        if name in ctx.consts:
            value = uniform(ctx.consts[name], shapes[0])
            if value is None:
                raise ctx.fail(node, "a constant operand must be one value (it becomes "
                               f"{one})")  # fmt: skip
            bound = value if bound is None else pick(bound, value)
    steps = len(data) - 1 + (bound is not None)
    if steps == 0:
        ctx.alias[node.output[0]] = ctx.var(data[0])
        return
    current = data[0]
    for k, other in enumerate(data[1:]):
        last = k == steps - 1
        out = node.output[0] if last else f"{node.output[0]}/{two}_{k}"
        ctx.emit(node, two, [current, other], output=out, suffix="" if last else f"/{two}_{k}")
        current = out
    if bound is not None:
        ctx.emit(node, one, [current], val=bound)

"""ONNX rules of shape layers, Softmax, Dropout and BatchNormalization (package docstring).

Arrays are NCHW with the batch first on both sides; nnabla's Slice lists align to the trailing
axes, ONNX names its axes; reshapes keep the batch (0 on export, -1 on import).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from engine.core import optional
from engine.layers.errors import ExportError
from engine.layers.onnx_rules.basic import reshape_to

__all__ = [
    "write_reshape", "read_reshape", "write_concatenate", "read_concat", "write_slice",
    "write_flip", "read_slice", "write_transpose", "read_transpose", "write_softmax",
    "read_softmax", "write_dropout", "read_dropout", "write_batch_norm", "read_batch_norm",
]  # fmt: skip

_END = -(2**63) + 1  # ONNX's "to the start" for a negative step


def _error(message: str) -> Exception:
    return ExportError(message)


def write_reshape(g: Any, step: Any, ins: list[str]) -> str:
    return reshape_to(g, ins[0], tuple(step.kwargs["shape"]), step.name)


def read_reshape(ctx: Any, node: Any) -> None:
    """Reshape, Flatten, Squeeze, Unsqueeze: the inferred output shape, batch axis kept. A
    Flatten that only feeds Gemm/MatMul is left out: Affine flattens its input itself."""
    out = ctx.shapes[node.output[0]]
    flatten_axis = ctx.attrs(node).get("axis", 1) if node.op_type == "Flatten" else 1
    if not out or out[0] != 1 or flatten_axis in (0, -len(ctx.shapes[node.input[0]])):
        raise ctx.fail(node, "reshaping the batch axis has no NNC equivalent")
    readers = ctx.consumers(node.output[0])
    if node.op_type == "Flatten" and len(out) == 2 and readers and all(
        r.op_type in ("Gemm", "MatMul") and r.input[0] == node.output[0] for r in readers
    ):  # fmt: skip
        ctx.alias[node.output[0]] = ctx.var(node.input[0])
        return
    if _into_affine(ctx, node, out[1:]):
        return
    ctx.emit(node, "Reshape", node.input[:1], shape=[-1, *out[1:]])


def _into_affine(ctx: Any, node: Any, shape: tuple[int, ...]) -> bool:
    """A Reshape that is the only reader of an Affine's output becomes the Affine's OutShape
    (its weight and bias reshaped), as the exporter writes a multi-axis OutShape."""
    fn = ctx.producer(node.input[0])
    if fn is None or fn.type != "Affine" or ctx.uses(node.input[0]) != 1 or not shape:
        return False
    weight = ctx.params[fn.inputs[1]]
    if weight.ndim != 2 or weight.shape[1] != int(np.prod(shape)):
        return False
    ctx.params[fn.inputs[1]] = weight.reshape(weight.shape[0], *shape)
    if len(fn.inputs) > 2:
        ctx.params[fn.inputs[2]] = ctx.params[fn.inputs[2]].reshape(shape)
    for name in fn.inputs[1:]:  # the same initializer reshaped otherwise is another value
        if name in ctx.sources:
            ctx.sources[name] += f"#{shape}"
    ctx.alias[node.output[0]] = fn.outputs[0]
    return True


def write_concatenate(g: Any, step: Any, ins: list[str]) -> str:
    axis = step.kwargs.get("axis")
    return str(g.node("Concat", ins, step.name, axis=-1 if axis is None else int(axis)))


def read_concat(ctx: Any, node: Any) -> None:
    """Concat as Concatenate; a Concat of inputs that each got the concatenation axis from an
    Unsqueeze (read by nothing else) as Stack of the Unsqueeze inputs."""
    axis = int(ctx.attrs(node)["axis"])
    rank = len(ctx.shapes[node.output[0]])
    axis = axis + rank if axis < 0 else axis
    if axis == 0:
        raise ctx.fail(node, "concatenating along the batch axis has no NNC equivalent")
    parts = [_unsqueezed(ctx, name, axis) for name in node.input]
    if all(part is not None for part in parts):
        for name in node.input:
            ctx.functions.remove(ctx.producer(name))
        ctx.emit(node, "Stack", parts, axis=axis)
        return
    ctx.emit(node, "Concatenate", list(node.input), axis=axis)


def _unsqueezed(ctx: Any, var: str, axis: int) -> str | None:
    """The input of the Unsqueeze that wrote ``var`` adding only ``axis``, else None."""
    src = ctx.node_of(var)
    if src is None or src.op_type != "Unsqueeze" or ctx.uses(var) != 1:
        return None
    axes = ctx.attrs(src).get("axes")
    if axes is None and len(src.input) > 1 and src.input[1] in ctx.consts:
        axes = ctx.consts[src.input[1]].reshape(-1).tolist()
    rank = len(ctx.shapes[var])
    fn = ctx.producer(var)
    if axes is None or [a + rank if a < 0 else a for a in axes] != [axis] or fn is None:
        return None
    return str(src.input[0]) if fn.type == "Reshape" else None


def write_slice(g: Any, step: Any, ins: list[str]) -> str:
    kw = step.kwargs
    n = len(kw["start"])
    axes = list(range(-n, 0))  # nnabla aligns the lists to the trailing axes
    inputs = [ins[0], g.ints("starts", kw["start"]), g.ints("ends", kw["stop"]),
              g.ints("axes", axes), g.ints("steps", kw.get("step") or [1] * n)]  # fmt: skip
    return str(g.node("Slice", inputs, step.name))


def write_flip(g: Any, step: Any, ins: list[str]) -> str:
    """Flip: a Slice with step -1 over the whole of each axis."""
    axes = list(step.kwargs["axes"])
    k = len(axes)
    inputs = [ins[0], g.ints("starts", [-1] * k), g.ints("ends", [_END] * k),
              g.ints("axes", axes), g.ints("steps", [-1] * k)]  # fmt: skip
    return str(g.node("Slice", inputs, step.name))


def read_slice(ctx: Any, node: Any) -> None:
    """Constant starts/ends/axes/steps as NNC's Slice over every axis but the batch; a Slice
    that reverses whole axes (step -1) as Flip. Split: one Slice per output."""
    if node.op_type == "Split":
        _read_split(ctx, node)
        return
    shape = ctx.shapes[node.input[0]]
    starts, ends, axes, steps = _slice_arguments(ctx, node)
    start, stop, step = [0] * len(shape), list(shape), [1] * len(shape)
    flipped = []
    for axis, b, e, st in zip(axes, starts, ends, steps, strict=True):
        axis = axis + len(shape) if axis < 0 else axis
        dim = shape[axis]
        if axis == 0:
            raise ctx.fail(node, "slicing the batch axis has no NNC equivalent")
        if st == -1 and min(b + dim if b < 0 else b, dim - 1) == dim - 1 and e < -dim:
            flipped.append(axis)
            continue
        if st < 1:
            raise ctx.fail(node, "slicing backwards has no NNC equivalent (but reversing whole "
                           "axes, Flip)")  # fmt: skip
        start[axis] = min(max(b + dim if b < 0 else b, 0), dim)
        stop[axis] = min(max(e + dim if e < 0 else e, 0), dim)
        step[axis] = st
    if flipped and len(flipped) != len(axes):
        raise ctx.fail(node, "slicing and reversing in one Slice has no NNC equivalent")
    if flipped:
        ctx.emit(node, "Flip", node.input[:1], axes=flipped)
    else:
        ctx.emit(node, "Slice", node.input[:1], start=start[1:], stop=stop[1:], step=step[1:])


def _slice_arguments(ctx: Any, node: Any) -> tuple[list[int], ...]:
    a = ctx.attrs(node)
    if len(node.input) == 1:  # opset < 10: attributes
        starts, ends = list(a["starts"]), list(a["ends"])
        return starts, ends, list(a.get("axes", range(len(starts)))), [1] * len(starts)
    starts, ends = (ctx.const(node, k, w).tolist() for k, w in ((1, "starts"), (2, "ends")))
    given = [k < len(node.input) and bool(node.input[k]) for k in (3, 4)]
    axes = ctx.const(node, 3, "axes").tolist() if given[0] else list(range(len(starts)))
    steps = ctx.const(node, 4, "steps").tolist() if given[1] else [1] * len(starts)
    return starts, ends, axes, steps


def write_transpose(g: Any, step: Any, ins: list[str]) -> str:
    return str(g.node("Transpose", ins[:1], step.name, perm=[int(a) for a in step.kwargs["axes"]]))


def read_transpose(ctx: Any, node: Any) -> None:
    perm = list(ctx.attrs(node).get("perm", []))
    if not perm or perm[0] != 0:
        raise ctx.fail(node, "moving the batch axis has no NNC equivalent")
    ctx.emit(node, "Transpose", node.input[:1], axes=perm)


def write_softmax(g: Any, step: Any, ins: list[str]) -> str:
    """Softmax and LogSoftmax: the operator of the same name over the step's axis."""
    axis = step.kwargs.get("axis")
    return str(g.node(step.type, ins[:1], step.name, axis=-1 if axis is None else int(axis)))


def read_softmax(ctx: Any, node: Any) -> None:
    """Softmax/LogSoftmax over one axis (opset 13+); before opset 13 over the axes from
    ``axis`` on, flattened: one layer when that is the last axis, else Reshape -> the layer
    over the flattened axis -> Reshape back."""
    shape = ctx.shapes[node.input[0]]
    rank = len(shape)
    axis = int(ctx.attrs(node).get("axis", -1 if ctx.opset >= 13 else 1))
    axis = axis + rank if axis < 0 else axis
    layer = node.op_type  # Softmax, LogSoftmax
    if axis == 0:
        raise ctx.fail(node, f"a {layer.lower()} over the batch axis has no NNC equivalent")
    if ctx.opset >= 13 or axis == rank - 1 or all(d == 1 for d in shape[axis + 1 :]):
        ctx.emit(node, layer, node.input[:1], axis=axis)
        return
    if axis == 0:
        raise ctx.fail(node, "a softmax over the batch axis has no NNC equivalent")
    out = node.output[0]
    flat = [-1, *shape[1:axis], int(np.prod(shape[axis:]))]
    ctx.emit(node, "Reshape", node.input[:1], output=out + "/flat", suffix="/flat", shape=flat)
    ctx.emit(node, layer, [out + "/flat"], output=out + "/" + layer, suffix="/" + layer.lower(),
             axis=axis)  # fmt: skip
    ctx.emit(node, "Reshape", [out + "/" + layer], shape=[-1, *shape[1:]])


def write_dropout(g: Any, step: Any, ins: list[str]) -> str:
    """ONNX's Dropout without ``training_mode``: an inference model passes its input, as the
    engine's test mode does (the ratio is kept, so it reads back as the same layer)."""
    ratio = g.const("ratio", np.float32(step.kwargs.get("p", 0.5)))
    return str(g.node("Dropout", [ins[0], ratio], step.name))


def read_dropout(ctx: Any, node: Any) -> None:
    """Dropout of an inference model (no ``training_mode``, or a constant false; opset < 7's
    ``is_test`` too, as runtimes ignore it) passes its input, as onnxruntime does: no layer.
    A training-mode Dropout is the Dropout layer (it drops while training, passes at test)."""
    a = ctx.attrs(node)
    ratio = a.get("ratio", 0.5)
    if len(node.input) > 1 and node.input[1]:
        ratio = float(ctx.const(node, 1, "the ratio").reshape(-1)[0])
    training = False
    if len(node.input) > 2 and node.input[2]:
        training = bool(ctx.const(node, 2, "training_mode").reshape(-1)[0])
    if not training or ratio == 0:
        ctx.alias[node.output[0]] = ctx.var(node.input[0])
        return
    ctx.emit(node, "Dropout", node.input[:1], p=float(ratio), seed=-1)


def write_batch_norm(g: Any, step: Any, ins: list[str]) -> str:
    """Test-mode BatchNormalization over the channel axis."""
    kw = step.kwargs
    if tuple(kw.get("axes", (1,))) != (1,) or kw.get("batch_stat"):
        raise _error(f'layer "{step.name}": only test-mode batch normalization over the '
                     f"channel axis is exportable")  # fmt: skip
    beta, gamma, mean, var = (g.param(r[1], lambda v: v.reshape(-1)) for r in step.inputs[1:5])
    return str(g.node("BatchNormalization", [ins[0], gamma, beta, mean, var], step.name,
                      epsilon=float(kw.get("eps", 1e-5))))  # fmt: skip


def read_batch_norm(ctx: Any, node: Any) -> None:
    a = ctx.attrs(node)
    gamma, beta, mean, var = (ctx.const(node, k, n) for k, n in
                              ((1, "scale"), (2, "B"), (3, "mean"), (4, "var")))  # fmt: skip
    inputs = [node.input[0]] + [
        ctx.param(node, v, n)
        for v, n in ((beta, "beta"), (gamma, "gamma"), (mean, "mean"), (var, "var"))
    ]
    training = bool(a.get("training_mode", 0))  # normalizes by the batch's statistics
    ctx.emit(node, "BatchNormalization", inputs, axes=[1], decay_rate=float(a.get("momentum", 0.9)),
             eps=float(a.get("epsilon", 1e-5)), batch_stat=training)  # fmt: skip


_KEPT = (1, 11)  # FLOAT, DOUBLE: values the network's float32 holds as they are


def read_identity(ctx: Any, node: Any) -> None:
    """Identity as NNC's Identity. Cast and CastLike to float or double pass their input on
    (the network computes in float32; CastLike to a computed tensor is a cast to float); a
    cast to any other type, which rounds the values, is refused."""
    if node.op_type == "Identity":
        ctx.emit(node, "Identity", node.input[:1])
        return
    TensorProto = optional.require("onnx").TensorProto
    helper = optional.require("onnx").helper

    if node.op_type == "Cast":
        to = int(ctx.attrs(node).get("to", TensorProto.FLOAT))
    elif node.input[1] in ctx.consts:
        to = helper.np_dtype_to_tensor_dtype(ctx.consts[node.input[1]].dtype)
    else:  # a graph input's declared type; a computed tensor is float32
        given = {v.name: v.type.tensor_type.elem_type for v in ctx.model.graph.input}
        to = given.get(node.input[1]) or TensorProto.FLOAT
    if to not in _KEPT:
        raise ctx.fail(node, f"a cast to {TensorProto.DataType.Name(to).lower()} rounds the "
                       "values; NNC networks compute in float32")  # fmt: skip
    source = node.input[0]
    if source in ctx.consts:
        ctx.consts[node.output[0]] = np.asarray(ctx.consts[source], np.float32)
    else:
        ctx.alias[node.output[0]] = ctx.var(source)


_PAD_MODES = {"constant": "constant", "reflect": "reflect", "edge": "repeat"}


def read_pad(ctx: Any, node: Any) -> None:
    """Pad (constant, reflect, edge) of the non-batch axes as NNC's Pad (edge is its repeat);
    its pads, value and axes must be constants."""
    a = ctx.attrs(node)
    shape = ctx.shapes[node.input[0]]
    rank = len(shape)
    mode = a.get("mode", b"constant")
    mode = mode.decode() if isinstance(mode, bytes) else mode
    if mode not in _PAD_MODES:
        raise ctx.fail(node, f"mode {mode} has no NNC equivalent (constant, reflect and edge have)")
    given = [node.input[k] if k < len(node.input) else "" for k in range(4)]
    if given[1]:
        pads = [int(v) for v in ctx.const(node, 1, "pads").reshape(-1)]
        value = float(ctx.const(node, 2, "constant_value").reshape(-1)[0]) if given[2] else 0.0
        axes = [int(v) for v in ctx.const(node, 3, "axes").reshape(-1)] if given[3] else None
    else:  # before opset 11: attributes
        pads, value, axes = [int(v) for v in a.get("pads", [])], float(a.get("value", 0.0)), None
    axes = list(range(rank)) if axes is None else [x + rank if x < 0 else x for x in axes]
    if len(pads) != 2 * len(axes):
        raise ctx.fail(node, f"{len(pads)} pads for {len(axes)} axes")
    before, after = [0] * rank, [0] * rank
    for k, axis in enumerate(axes):
        before[axis], after[axis] = pads[k], pads[k + len(axes)]
    if min(before + after) < 0:
        raise ctx.fail(node, "negative pads (cropping) have no NNC Pad equivalent")
    if before[0] or after[0]:
        raise ctx.fail(node, "padding the batch axis has no NNC equivalent")
    padded = [k for k in range(1, rank) if before[k] or after[k]]
    if not padded:
        ctx.alias[node.output[0]] = ctx.var(node.input[0])
        return
    width = [v for k in range(padded[0], rank) for v in (before[k], after[k])]
    ctx.emit(node, "Pad", node.input[:1], pad_width=width, mode=_PAD_MODES[mode],
             constant_value=value)  # fmt: skip


def write_pad(g: Any, step: Any, ins: list[str]) -> str:
    """Pad: ONNX's Pad with the pads of every axis (none on the leading ones)."""
    kw = step.kwargs
    width = [int(v) for v in kw.get("pad_width", ())]
    rank = len(g.in_shape(step, 0)) + 1
    lead = rank - len(width) // 2
    begins = [0] * lead + width[::2]
    ends = [0] * lead + width[1::2]
    mode = {"constant": "constant", "reflect": "reflect", "repeat": "edge"}[
        kw.get("mode", "constant")
    ]
    inputs = [ins[0], g.ints("pads", begins + ends)]
    if mode == "constant":
        inputs.append(g.const("value", np.float32(kw.get("constant_value", 0.0))))
    return str(g.node("Pad", inputs, step.name, mode=mode))


def _read_split(ctx: Any, node: Any) -> None:
    """Split along a non-batch axis (sizes given as a constant or an attribute, or equal parts,
    the last one smaller with ``num_outputs``): one Slice per output, named after the node."""
    a = ctx.attrs(node)
    shape = ctx.shapes[node.input[0]]
    rank = len(shape)
    axis = int(a.get("axis", 0))
    axis = axis + rank if axis < 0 else axis
    if axis == 0:
        raise ctx.fail(node, "splitting the batch axis has no NNC equivalent")
    dim, count = shape[axis], len(node.output)
    if len(node.input) > 1 and node.input[1]:
        sizes = [int(v) for v in ctx.const(node, 1, "split").reshape(-1)]
    elif "split" in a:
        sizes = [int(v) for v in a["split"]]
    else:
        part = -(-dim // count)
        sizes = [min(part, max(dim - part * k, 0)) for k in range(count)]
    if len(sizes) != count or sum(sizes) != dim or min(sizes) < 0:
        raise ctx.fail(node, f"sizes {sizes} do not split {dim} into {count} outputs")
    if 0 in sizes:
        raise ctx.fail(node, f"sizes {sizes}: an empty part has no NNC equivalent")
    begin = 0
    for k, (name, size) in enumerate(zip(node.output, sizes, strict=True)):
        start, stop = [0] * rank, list(shape)
        start[axis], stop[axis] = begin, begin + size
        begin += size
        if name:
            ctx.emit(node, "Slice", node.input[:1], output=name, suffix=f"_{k}" if k else "",
                     start=start[1:], stop=stop[1:], step=[1] * (rank - 1))  # fmt: skip

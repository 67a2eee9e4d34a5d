"""ONNX rules of recurrent loops, written unrolled (one block of nodes per time step).

RecurrentInput's time step ``t`` is a Gather with the constant index ``t``; RecurrentOutput
stacks the steps (Unsqueeze each, one Concat); a Delay's constant initial value is a
``(batch, *shape)`` ConstantOfShape. Reading such a file back gives the unrolled network:
the Gather is a Slice and a Reshape (the axis removed), the Unsqueeze/Concat are Reshape and
Concatenate, the folded initial value a Constant-generator input (the importer's rule for a
constant that a layer takes as data), and each time step has its own copy of the weights.
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["write_time_step", "write_stack", "write_initial", "read_gather"]


def write_time_step(g: Any, step: Any, ins: list[str]) -> str:
    """RecurrentInput, time step ``item``: F.split's slice, the axis removed (Gather)."""
    index = g.const(step.name + "/t", np.array(step.item or 0, dtype=np.int64))  # 0-d
    return str(g.node("Gather", [ins[0], index], step.name, axis=int(step.kwargs["axis"])))


def write_stack(g: Any, step: Any, ins: list[str]) -> str:
    """RecurrentOutput (F.stack): each step gets the new axis, then one Concat."""
    axis = int(step.kwargs["axis"])
    axes = g.ints(step.name + "/axes", [axis])
    parts = [g.node("Unsqueeze", [x, axes], step.name + "/unsqueeze") for x in ins]
    return str(g.node("Concat", parts, step.name, axis=axis))


def write_initial(g: Any, step: Any, ins: list[str]) -> str:
    """A Delay's constant initial value: (batch, *shape) filled with ``val``."""
    return str(g.batch_constant(step.name, step.kwargs["shape"], float(step.kwargs["val"])))


def read_gather(ctx: Any, node: Any) -> None:
    """Gather with a constant index (a scalar: the axis removed, as one time step of an unrolled
    loop; or one index in a list: the axis kept) as Slice (+ Reshape)."""
    index = ctx.const(node, 1, "the index")
    shape = ctx.shapes[node.input[0]]
    axis = int(ctx.attrs(node).get("axis", 0))
    axis = axis + len(shape) if axis < 0 else axis
    if axis == 0 or index.size != 1 or index.ndim > 1:
        raise ctx.fail(node, "only one constant index over an axis other than the batch has an "
                       "NNC equivalent (Slice)")  # fmt: skip
    dim = shape[axis]
    at = int(index.reshape(-1)[0])
    at = at + dim if at < 0 else at
    if not 0 <= at < dim:
        raise ctx.fail(node, f"index {at} is outside the axis of size {dim}")
    start, stop = [0] * len(shape), list(shape)
    start[axis], stop[axis] = at, at + 1
    args = {"start": start[1:], "stop": stop[1:], "step": [1] * (len(shape) - 1)}
    if index.ndim == 1:
        ctx.emit(node, "Slice", node.input[:1], **args)
        return
    sliced = node.output[0] + "/slice"
    ctx.emit(node, "Slice", node.input[:1], output=sliced, suffix="/slice", **args)
    ctx.emit(node, "Reshape", [sliced], shape=[-1, *ctx.shapes[node.output[0]][1:]])

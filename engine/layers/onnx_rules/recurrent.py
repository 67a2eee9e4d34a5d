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
    """Gather with constant indices over an axis other than the batch: indices in steps of one
    stride (one index: a time step of an unrolled loop) as one Slice, others as a Slice per
    index and Concatenate; a Reshape after when the indices are not one list (a scalar index
    removes the axis)."""
    index = np.asarray(ctx.const(node, 1, "the index"))
    shape = ctx.shapes[node.input[0]]
    axis = int(ctx.attrs(node).get("axis", 0))
    axis = axis + len(shape) if axis < 0 else axis
    if axis == 0:
        raise ctx.fail(node, "gathering along the batch axis has no NNC equivalent")
    dim = shape[axis]
    flat = [int(v) + dim if int(v) < 0 else int(v) for v in index.reshape(-1)]
    if not flat or any(not 0 <= at < dim for at in flat):
        raise ctx.fail(node, f"indices {flat} are outside the axis of size {dim} (or none)")
    out = node.output[0]
    last = index.ndim == 1
    stride = flat[1] - flat[0] if len(flat) > 1 else 1
    if stride > 0 and flat == list(range(flat[0], flat[-1] + 1, stride)):
        runs = [(flat[0], flat[-1] + 1, stride)]
    else:
        runs = [(at, at + 1, 1) for at in flat]
    parts = []
    for k, (begin, end, step) in enumerate(runs):
        start, stop, steps = [0] * len(shape), list(shape), [1] * len(shape)
        start[axis], stop[axis], steps[axis] = begin, end, step
        args = {"start": start[1:], "stop": stop[1:], "step": steps[1:]}
        if last and len(runs) == 1:
            ctx.emit(node, "Slice", node.input[:1], **args)
            return
        part = f"{out}/slice_{k}" if len(runs) > 1 else f"{out}/slice"
        ctx.emit(node, "Slice", node.input[:1], output=part, suffix=part[len(out) :], **args)
        parts.append(part)
    joined = parts[0]
    if len(parts) > 1:
        joined = out if last else out + "/concatenate"
        ctx.emit(node, "Concatenate", parts, output=joined, suffix="" if last else "/concatenate",
                 axis=axis)  # fmt: skip
    if not last:
        ctx.emit(node, "Reshape", [joined], shape=[-1, *ctx.shapes[out][1:]])

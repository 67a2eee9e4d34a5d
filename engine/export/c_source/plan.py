"""The static memory of a C export: every activation in one arena, planned from lifetimes.

Each step's output is a buffer of ``prod(shape)`` elements (float32, or int8/int16 codes in
integer arithmetic: ``item_bytes``) alive from the step that writes it to the last step that
reads it (a network output: to the end, when it is copied out). Reshape-like steps
(:data:`ALIASES`) write nothing: their output is their input's buffer. An elementwise step
(:data:`IN_PLACE`) writes into its first input's buffer when no later step reads that buffer.
Buffers are then placed greedily, largest first, at the lowest offset that no buffer alive at
the same time overlaps (as TensorFlow Lite's greedy-by-size planner does), so the arena is known
at export time.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field

from engine.runtime.program import Program

__all__ = ["ALIASES", "IN_PLACE", "Buffer", "ArenaPlan", "plan_arena"]

ALIASES = frozenset({"Reshape", "Identity", "Dropout"})
IN_PLACE = frozenset({
    "ReLU", "ReLU6", "Tanh", "Sigmoid", "ELU", "LeakyReLU", "Abs", "Exp", "BatchNormalization",
    "Add2", "Sub2", "Mul2", "AddScalar", "MulScalar", "FixedPointQuantize", "Pow2Quantize",
})  # fmt: skip
ALIGN = 16  # bytes: aligned offsets


@dataclass
class Buffer:
    """One region of the arena: the steps that share it, its size (bytes) and lifetime."""

    index: int
    size: int
    first: int  # the step that writes it first
    last: int  # the last step that reads it (len(steps): a network output)
    steps: list[str] = field(default_factory=list)
    offset: int = 0


@dataclass
class ArenaPlan:
    """Where each step's output lives (``None``: the network input itself)."""

    buffers: list[Buffer]
    of_step: dict[str, Buffer | None]
    size: int  # bytes

    @property
    def bytes(self) -> int:
        return self.size


def plan_arena(program: Program, constants: Collection[str] = (),
               item_bytes: Mapping[str, int] | None = None,
               aliases: Collection[str] = ()) -> ArenaPlan:  # fmt: skip
    """The arena of ``program``'s steps (see the module docstring); ``constants`` are steps
    computed at export time (from parameters only), which take no arena; ``item_bytes`` the
    element size of a step's output (default 4: float32). A step writes in place only over
    elements of its own size. ``aliases`` are steps whose output is their input's buffer (a
    quantizer whose layer writes the codes itself)."""
    item = dict(item_bytes or {})
    steps = program.steps
    end = len(steps)
    last_read: dict[str, int] = {s.name: -1 for s in steps}
    for i, step in enumerate(steps):
        for ref in step.inputs:
            if ref[0] == "step":
                last_read[ref[1]] = i
    for _, ref in program.outputs:
        if ref[0] == "step":
            last_read[ref[1]] = end
    buffers: list[Buffer] = []
    of_step: dict[str, Buffer | None] = {}
    for i, step in enumerate(steps):
        if step.name in constants:
            continue
        first = step.inputs[0] if step.inputs else ("none",)
        source = of_step.get(first[1]) if first[0] == "step" else None
        if (step.type in ALIASES or step.name in aliases) and first[0] in ("step", "feed"):
            of_step[step.name] = source  # the input's buffer (None: the network input)
            if source is not None:
                source.steps.append(step.name)
                source.last = max(source.last, last_read[step.name])
            continue
        same = source is not None and item.get(source.steps[0], 4) == item.get(step.name, 4)
        if step.type in IN_PLACE and source is not None and same and source.last <= i:
            source.steps.append(step.name)
            source.last = max(source.last, last_read[step.name])
            of_step[step.name] = source
            continue
        size = math.prod(step.shape) * item.get(step.name, 4)
        buffer = Buffer(len(buffers), size, i, max(i, last_read[step.name]), [step.name])
        buffers.append(buffer)
        of_step[step.name] = buffer
    _place(buffers)
    size = max((b.offset + b.size for b in buffers), default=0)
    return ArenaPlan(buffers, of_step, size)


def _place(buffers: list[Buffer]) -> None:
    placed: list[Buffer] = []
    for buffer in sorted(buffers, key=lambda b: (-b.size, b.first)):
        alive = sorted((p for p in placed if p.first <= buffer.last and buffer.first <= p.last),
                       key=lambda p: p.offset)  # fmt: skip
        offset = 0
        for other in alive:
            if offset + buffer.size <= other.offset:
                break
            offset = max(offset, _aligned(other.offset + other.size))
        buffer.offset = offset
        placed.append(buffer)


def _aligned(n: int) -> int:
    return -(-n // ALIGN) * ALIGN

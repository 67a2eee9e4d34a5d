"""Recurrent loops of a compiled network found again, so exported code can write a ``for`` loop.

The compiler unrolls a RecurrentInput ... RecurrentOutput loop (:mod:`engine.runtime.recurrent`):
one block of steps per time step, named ``<layer>[t=<k>]``, on shared parameters. A run of such
blocks is written back as one loop when every block is block 0 with the time step changed:

* the same layers in the same order, with the same function, arguments and shape (train and
  test mode), the RecurrentInput's ``F.split`` taking item ``t``;
* each input is the same value outside the loop, a step of the same block, or (a Delay) the
  previous block's step, which block 0 reads from an initial value outside the loop;
* after the loop only the last block's values and a RecurrentOutput's stack of one value of
  every block are read.

Anything else (a bidirectional loop reading its input backwards, a step reading two blocks
back, a Unit layer inside the loop) is left unrolled.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from engine.runtime.program import Ref, Step

__all__ = ["Loop", "find_loops"]

_TIME = re.compile(r"^(.*)\[t=(\d+)\]$")


@dataclass
class Loop:
    """Blocks ``steps[start : start + length * size]``, ``size`` steps each."""

    start: int
    length: int
    size: int
    body: tuple[Step, ...]  # block 0
    carried: dict[str, Ref] = field(default_factory=dict)  # base name -> its initial value
    last: set[str] = field(default_factory=set)  # base names read after the loop (last block)
    stacked: dict[str, str] = field(default_factory=dict)  # stack step -> base name it stacks
    reads: list[Ref] = field(default_factory=list)  # values from outside, in order

    @property
    def end(self) -> int:
        return self.start + self.length * self.size


def base(name: str) -> tuple[str, int] | None:
    """``("Tanh", 3)`` for ``"Tanh[t=3]"``; None outside a loop."""
    match = _TIME.match(name)
    return (match.group(1), int(match.group(2))) if match else None


def find_loops(
    steps: tuple[Step, ...], test_steps: dict[str, Step], results: list[Ref]
) -> list[Loop]:
    """Every run of time-step blocks that can be written as a ``for`` loop; ``results`` are
    what the network returns."""
    loops, i = [], 0
    while i < len(steps):
        if base(steps[i].name) is None:
            i += 1
            continue
        j = i
        while j < len(steps) and base(steps[j].name) is not None:
            j += 1
        loop = _loop(steps, i, j, test_steps, results)
        if loop is not None:
            loops.append(loop)
        i = j
    return loops


def _loop(steps: tuple[Step, ...], i: int, j: int, test_steps: dict[str, Step],
          results: list[Ref]) -> Loop | None:  # fmt: skip
    run = steps[i:j]
    size = next((n for n, s in enumerate(run) if base(s.name)[1] != 0), len(run))  # type: ignore[index]
    if size == 0 or len(run) % size:
        return None
    length = len(run) // size
    blocks = [run[t * size : (t + 1) * size] for t in range(length)]
    if length < 2 or any(base(s.name) != (base(b.name)[0], t)  # type: ignore[index]
                         for t, block in enumerate(blocks)
                         for s, b in zip(block, blocks[0], strict=True)):  # fmt: skip
        return None
    loop = Loop(i, length, size, tuple(blocks[0]))
    inside, plain = {s.name for s in run}, set()
    for t, block in enumerate(blocks):
        for step, first in zip(block, blocks[0], strict=True):
            if not _same(step, first, t, test_steps):
                return None
            if not _inputs(loop, step, first, t, inside, plain):
                return None
    initial = list(loop.carried.values())
    if any(ref in plain for ref in initial) or len(set(initial)) < len(initial):
        return None  # one value in two roles (a state's start and a constant, two states)
    return loop if _read_after(loop, steps, results, inside) else None


def _same(step: Step, first: Step, t: int, test_steps: dict[str, Step]) -> bool:
    """Block ``t``'s step is block 0's with the time step changed (also in test mode)."""
    if (step.type, step.function, step.shape, step.batch_kwargs) != (
        first.type, first.function, first.shape, first.batch_kwargs
    ) or step.kwargs != first.kwargs or step.stores:  # fmt: skip
        return False
    if (step.item, first.item) != (None, None) and (step.item, first.item) != (t, 0):
        return False
    test, test_first = test_steps.get(step.name), test_steps.get(first.name)
    if (test is None) != (test_first is None):
        return False
    return test is None or test.kwargs == test_first.kwargs  # type: ignore[union-attr]


def _inputs(loop: Loop, step: Step, first: Step, t: int, inside: set[str], plain: set) -> bool:
    """Each input is outside (the same in every block), of this block, or the previous one's."""
    for ref, ref0 in zip(step.inputs, first.inputs, strict=True):
        if ref0[0] == "step" and ref0[1] in inside:  # block 0's step: block t's of that layer
            name, when = base(ref0[1])  # type: ignore[misc]
            if when != 0 or ref != ("step", f"{name}[t={t}]") or first.item is not None:
                return False
        elif ref == ref0:  # from outside, the same in every block
            if ref not in loop.reads:
                loop.reads.append(ref)
            if t > 0:
                plain.add(ref)
        else:  # block 0 reads an initial value, block t the previous block's step: a Delay
            prev = base(ref[1]) if ref[0] == "step" and ref[1] in inside else None
            if prev is None or prev[1] != t - 1:
                return False
            if loop.carried.setdefault(prev[0], ref0) != ref0:
                return False
    return True


def _read_after(loop: Loop, steps: tuple[Step, ...], results: list[Ref], inside: set[str]) -> bool:
    """After the loop: the last block's values, or one value of every block stacked in order."""
    readers = [(s.name if s.function.__name__ == "stack" else "", s.inputs)
               for s in steps[loop.end :]]  # fmt: skip
    for stack, inputs in [*readers, ("", tuple(results))]:
        refs = [r for r in inputs if r[0] == "step" and r[1] in inside]
        if not refs:
            continue
        names = [base(r[1]) for r in refs]
        every = [(names[0][0], t) for t in range(loop.length)]  # type: ignore[index]
        if stack and len(refs) == len(inputs) and names == every:
            loop.stacked[stack] = names[0][0]  # type: ignore[index]
            continue
        if any(n[1] != loop.length - 1 for n in names):  # type: ignore[index]
            return False
        loop.last.update(n[0] for n in names)  # type: ignore[index]
    return True

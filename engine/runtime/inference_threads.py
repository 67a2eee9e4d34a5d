"""How the test-mode plan (:mod:`engine.runtime.inference_plan`) uses two or more threads.

A pass may run three ways, all giving the same bytes (tests compare):

* ``"split"``: the batch cut into one part per thread, the plan's row-local start run on the
  parts at once (``InferencePlan._run_parts``: one hand-off a pass, but the parts' Python
  shares the GIL at every op);
* ``"whole"``: the whole batch, each loop long enough to repay a hand-off shared between the
  threads on its own (``_inference_cpu._split``: one hand-off per such loop);
* ``"one"``: the whole batch on the calling thread alone, BLAS and the kernels at one thread
  for the pass (``_inference_cpu.run_alone``: no hand-off; never slower than one thread).

Which is fastest depends on the network and the machine (issue 33, quiet, 2 cores: ResNet-style
split 6.3 against 10.4 ms on one thread; MobileNet-style split or whole 2.0 against 1.3 ms),
so the first passes of a batch size try each in turn (:data:`TRIALS` each, in :data:`MODES`
order) and the fastest median is kept (:func:`choose`: a function of the times alone), for
:data:`RETRY` passes, then timed again (the load may have changed). The trials and the choice
belong to the network, not to one plan (:func:`remembered`): an
evaluation, a ``forward`` call and each batch call of the plugins' model (LIME, SHAP) build a
plan for a few passes, and the choice carries on from one to the next.
"""

from __future__ import annotations

import statistics
from collections.abc import Mapping, Sequence
from typing import Any

TRIALS = 3  # passes timed each way before a batch size's choice is kept
MODES = ("split", "whole", "one")  # the order of the trials
PREFERENCE = ("one", "whole", "split")  # on equal times, fewer threads first
MEMORY = 32  # networks whose trials and choices this process remembers
# Passes run the kept way before the ways are timed again (the machine's load changes: a way
# kept while another process held the second core may lose once it is free, and back)
RETRY = 500
_MEMORY: dict[tuple, Choice] = {}


class Choice:
    """The timed passes and the kept way per (batch size, threads) of one network."""

    def __init__(self) -> None:
        self.kept: dict[tuple[int, int], str] = {}
        self.trials: dict[tuple[int, int], dict[str, list[float]]] = {}
        self.runs: dict[tuple[int, int], int] = {}  # passes run the kept way

    def next(self, key: tuple[int, int], modes: tuple[str, ...]) -> str:
        """How the next pass of this (batch size, threads) runs: the kept way (RETRY passes),
        else the first of ``modes`` timed fewest times so far (round robin in MODES order)."""
        kept = self.kept.get(key)
        if kept is not None:
            runs = self.runs[key] = self.runs.get(key, 0) + 1
            if runs <= RETRY:
                return kept if kept in modes else modes[0]  # (no parts this time: whole)
            # time the ways again (pop: a plan of this network on another thread may too)
            self.kept.pop(key, None), self.runs.pop(key, None), self.trials.pop(key, None)
        trials = self.trials.get(key, {})
        return min(modes, key=lambda m: len(trials.get(m, ())))

    def timed(self, key: tuple[int, int], mode: str, seconds: float,
              modes: tuple[str, ...]) -> None:  # fmt: skip
        """Note a pass's time in ``mode``; once each of ``modes`` has TRIALS, keep the
        fastest (:func:`choose`)."""
        if key in self.kept:
            return
        trials = self.trials.setdefault(key, {})
        trials.setdefault(mode, []).append(seconds)
        kept = choose(trials, modes)
        if kept is not None:
            self.kept[key] = kept


def modes(threads: int, parts: Sequence[Any]) -> tuple[str, ...]:
    """The ways a pass may run on ``threads``: none to choose from on one thread; the whole
    batch or this thread alone; and the parts when the batch is cut (``parts`` not empty)."""
    if threads < 2:
        return ()
    return MODES if parts else MODES[1:]


def choose(trials: Mapping[str, list[float]], modes: tuple[str, ...]) -> str | None:
    """The mode of ``modes`` whose first TRIALS timed passes (``trials``: mode -> seconds)
    have the lowest median, the one using fewer threads on a tie (PREFERENCE); None until each
    mode has been timed TRIALS times. The same times always give the same choice."""
    if any(len(trials.get(m, ())) < TRIALS for m in modes):
        return None
    return min(modes, key=lambda m: (statistics.median(trials[m][:TRIALS]), PREFERENCE.index(m)))


def signature(program: Any, ops: Sequence[Any]) -> tuple:
    """What a plan's speed depends on: its program's steps (names, layers, shapes) and feeds,
    and its ops (which loop each calls, their activations, what they read and write); not the
    parameters' values."""
    steps = tuple((s.name, s.type, tuple(s.shape)) for s in program.steps)
    calls = tuple((op.name, type(op.function).__name__, op.act, op.inputs, op.out, op.rows,
                   op.residual, op.bias is None) for op in ops)  # fmt: skip
    feeds = tuple(sorted((k, tuple(v)) for k, v in program.feeds.items()))
    return steps, calls, feeds


def remembered(key: tuple) -> Choice:
    """The :class:`Choice` of the network with this :func:`signature` in this process (a new
    one the first time); the last MEMORY networks are remembered."""
    found = _MEMORY.pop(key, None)
    if found is None:
        found = Choice()
        while len(_MEMORY) >= MEMORY:
            _MEMORY.pop(next(iter(_MEMORY)))
    _MEMORY[key] = found  # the most recently used last
    return found

"""How many threads the engine's products and kernels use: forced, or chosen by timing.

NumPy's OpenBLAS and the engine's compiled kernels (:mod:`engine.core.ops._threads`) split a
product across every core whatever else the machine runs. Beside a busy process on a two-core
machine, a two-thread product waits for its descheduled partner thread and a training step gets
2-5x slower than on one thread (issue 33). So, unless a count is forced, a loop of equal units of
work (the trainer's steps, ``evaluate``'s batches) is timed: after a warm-up unit on one thread,
a unit on every core and a unit on one thread (a second pair when the two are close), the faster
count is kept; the choice is checked again every few seconds, and at once when a unit takes
much longer than the ones it was chosen on (a neighbour appeared).

The choice never changes a number: the engine's kernels split output maps, and its matrix
products go through :mod:`engine.core.products`, which cuts a long contraction where OpenBLAS's
one-thread and threaded drivers would sum it in different orders. A seed's run is the same on
one thread, on two, and on whatever mix of the two the timing chose. Where that could not be
ensured (NumPy linked to another BLAS: ``products.blocking()`` is None) the choice is made only
when asked (:func:`adapt`, ``--threads auto``, ``NEUROCANVAS_THREADS=auto``), and every core is
used otherwise.

A count is forced by :func:`force` (``--threads N`` of ``train`` and ``evaluate``), by
``NEUROCANVAS_THREADS=N``, or by the usual ``OMP_NUM_THREADS`` / ``OPENBLAS_NUM_THREADS``.

    chooser = threads.chooser()          # None when forced or one core
    for item in threads.timed(chooser, batches):
        ...                              # each item's production is one timed unit
"""

from __future__ import annotations

import os
import statistics
import time
from collections.abc import Callable, Iterable, Iterator
from typing import Any, TypeVar

from engine.core import products
from engine.core.ops import _threads

__all__ = ["ThreadChooser", "adapt", "chooser", "force", "forced", "timed"]

T = TypeVar("T")
_ENV_FORCING = ("NEUROCANVAS_THREADS", "OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS")
_state: dict[str, Any] = {}


def force(count: int | None) -> None:
    """Run products and kernels on ``count`` threads from now on (``None``: choose again)."""
    if count is None:
        _state.pop("forced", None)
        return
    if count < 1:
        raise ValueError(f"thread count must be 1 or more, not {count}")
    _state["forced"] = count
    # finding the blocking sets the count for a while and puts the old one back: first let it
    # finish (train and evaluate start it on a thread as they begin), then set this one
    products.blocking()
    _threads.set_count(count)


def forced() -> int | None:
    """The forced count, or None when the engine chooses (``NEUROCANVAS_THREADS`` read once)."""
    if "forced" not in _state and "env" not in _state:
        _state["env"] = True
        value = os.environ.get("NEUROCANVAS_THREADS", "").strip()
        if value.isdigit() and int(value) > 0:
            force(int(value))
    return _state.get("forced")


def adapt(on: bool = True) -> None:
    """Choose one thread or every core by timing from now on (``--threads auto``)."""
    _state["adapt"] = on


def chooser(**kwargs: Any) -> ThreadChooser | None:
    """A chooser for one loop, or None when the count is forced, there is one thread to use,
    or the choice could change the numbers (:func:`engine.core.products.blocking` is None) and
    was not asked for (:func:`adapt`, ``NEUROCANVAS_THREADS=auto``)."""
    if forced() is not None:
        return None
    if any(os.environ.get(name) for name in _ENV_FORCING if name != "NEUROCANVAS_THREADS"):
        return None
    most = _threads.count()
    if most < 2:
        return None
    asked = _state.get("adapt") or os.environ.get("NEUROCANVAS_THREADS", "").strip() == "auto"
    if not asked and products.blocking() is None:
        return None
    return ThreadChooser(most, **kwargs)


def timed(choice: ThreadChooser | None, items: Iterable[T]) -> Iterator[T]:
    """``items``, producing each one as a timed unit of ``choice`` (unchanged when None); the
    count in use before is restored at the end."""
    if choice is None:
        yield from items
        return
    source = iter(items)
    try:
        while True:
            choice.begin()
            try:
                item = next(source)
            except StopIteration:
                return
            choice.end()
            yield item
    finally:
        choice.close()


def _allowed_cpus() -> set[int]:
    try:
        return set(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return set(range(os.cpu_count() or 1))


def _cpu_sample() -> tuple[float, float, float] | None:
    """(monotonic seconds, CPU seconds the cores this process may run on spent busy, this
    process's CPU seconds), or None where ``/proc/stat`` cannot be read (not Linux)."""
    allowed = {f"cpu{i}".encode() for i in _allowed_cpus()}
    try:
        with open("/proc/stat", "rb") as f:
            lines = [line.split() for line in f if line.startswith(b"cpu")]
        ticks = os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError):
        return None
    busy = 0
    for fields in lines:
        if fields[0] in allowed and len(fields) >= 6:
            values = [int(v) for v in fields[1:9]]
            busy += sum(values) - values[3] - values[4]  # all but idle and iowait
    if not busy:
        return None
    own = os.times()
    return time.monotonic(), busy / ticks, own.user + own.system


_START = _cpu_sample()  # the first look covers the process's start (imports, reading data)


class _SpareCores:
    """Cores the other processes left idle since the last call, beyond the one this process's
    thread uses: ``cpus - 1 - (machine busy - this process) / wall`` (None: unknown)."""

    def __init__(self, most: int) -> None:
        self.cpus = len(_allowed_cpus()) or most
        self.last = _START

    def __call__(self) -> float | None:
        now = _cpu_sample()
        last, self.last = self.last, now
        if now is None or last is None or now[0] - last[0] < 0.1:
            return None  # too short a window for the clock's ticks (10 ms)
        others = ((now[1] - last[1]) - (now[2] - last[2])) / (now[0] - last[0])
        return self.cpus - 1 - max(0.0, others)


class ThreadChooser:
    """Times units of work on one thread and on ``most``, and keeps the faster count.

    ``begin()`` before a unit sets the count it runs on, ``end()`` after it records its time
    (``clock``: seconds, injectable for tests), ``close()`` restores the count found at the
    start. ``log`` keeps each decision: ``(count, {count: [unit seconds]})``.
    """

    CLEAR = 1.5  # one pair decides when one count is this much faster
    SLOWER = 1.5  # a unit this much slower than the chosen count's median re-checks at once

    def __init__(
        self,
        most: int,
        *,
        clock: Callable[[], float] = time.perf_counter,
        apply: Callable[[int], None] | None = None,
        warmup: int = 1,
        recheck_s: float = 3.0,
        spare: Callable[[], float | None] | None = None,
    ) -> None:
        self.most = most
        self.clock = clock
        self.apply = apply or _threads.set_count
        self.recheck_s = recheck_s
        self.spare = spare or _SpareCores(most).__call__
        self.restore = most
        self.chosen = 1
        self.log: list[tuple[int, dict[int, list[float]]]] = []
        self._plan = [0] * warmup + [most, 1]  # 0: a warm-up unit (one thread, not counted)
        self._samples: dict[int, list[float]] = {1: [], most: []}
        self._recent: list[float] = []
        self._decided_at = 0.0
        self._current = 0
        self._started = 0.0

    def _set(self, count: int) -> None:
        if count != self._current:
            self.apply(count)
            self._current = count

    def begin(self) -> None:
        self._set(max(1, self._plan[0]) if self._plan else self.chosen)
        self._started = self.clock()

    def end(self) -> None:
        now = self.clock()
        elapsed = now - self._started
        if self._plan:
            count = self._plan.pop(0)
            if count:
                self._samples[count].append(elapsed)
            elif self._plan[:1] == [self.most] and not self._a_core_to_spare():
                self._plan = []
                self._keep(1, now)  # every other core busy: no unit on all of them
            if self._plan == []:
                self._decide(now)
            return
        self._recent = [*self._recent[-1:], elapsed]
        neighbour = False
        if self.chosen != 1:  # on one thread a busier machine is no reason for more
            slow = self.SLOWER * statistics.median(self.log[-1][1][self.chosen])
            neighbour = len(self._recent) == 2 and min(self._recent) > slow
        if now - self._decided_at >= self.recheck_s or neighbour:
            if self.chosen == 1 and not self._a_core_to_spare():
                self._keep(1, now)
                return
            self._samples = {1: [], self.most: []}
            self._plan = [self.other, self.chosen]

    def _a_core_to_spare(self) -> bool:
        """False when the other processes kept the cores a second thread needs busy since
        the last look (unknown: True, and the units are timed)."""
        spare = self.spare()
        return spare is None or spare >= 0.5

    def _keep(self, count: int, now: float) -> None:
        self.chosen = count
        self.log.append((count, {}))
        self._decided_at = now
        self._recent = []

    @property
    def other(self) -> int:
        return 1 if self.chosen == self.most else self.most

    def _decide(self, now: float) -> None:
        if not self._samples[1] or not self._samples[self.most]:
            return  # decided without timing (_keep)
        many, one = self._samples[self.most], self._samples[1]
        ratio = statistics.fmean(many) / statistics.fmean(one)
        if len(many) < 2 and 1 / self.CLEAR < ratio < self.CLEAR:
            self._plan = [self.most, 1]  # close: one more pair
            return
        self.chosen = self.most if ratio < 1.0 else 1
        self.log.append((self.chosen, {k: list(v) for k, v in self._samples.items()}))
        self._decided_at = now
        self._recent = []

    def close(self) -> None:
        """Back to the count in use before the loop."""
        self._set(self.restore)

"""Running a compiled (``nogil``) kernel on as many threads as NumPy's BLAS uses.

The compute-bound kernels (the direct convolution) split their output maps between threads, so
a layer uses both cores as the GEMMs it replaces did. The thread count follows BLAS's (set it
with threadpoolctl or OPENBLAS_NUM_THREADS, as for NumPy), so the two never oversubscribe the
cores: the kernels run between GEMMs, never beside them. The memory-bound loops of a training
step (batch normalization, ReLU, padding copies) can split too (:func:`run_rows`), when each
thread gets enough work to repay the hand-off (see MIN_ELEMENTS_PER_THREAD): their rows (channels,
runs of elements) are independent, each computed whole by one thread in a fixed order, so
the numbers do not depend on the thread count.
"""

from __future__ import annotations

import os
import queue
import threading
from collections.abc import Callable
from concurrent.futures import CancelledError
from typing import Any

import numpy  # noqa: F401  (its OpenBLAS must be loaded before threadpoolctl looks for it)

from engine.core import optional

threadpoolctl = optional.lazy("threadpoolctl")

_state: dict[str, Any] = {}
if hasattr(os, "register_at_fork"):  # a forked child has none of the pool's threads
    os.register_at_fork(after_in_child=lambda: _state.pop("pool", None))
# Below this many output maps per thread, a hand-off (tens of microseconds) is not worth it.
MIN_MAPS_PER_THREAD = 8
# A memory-bound loop splits only when each thread gets at least this many elements to read
# (2 MB of float32): batch normalization, ReLU and the padding of a 2 MB activation (16 maps
# of 32x32 at batch 32, the ResNet- and MobileNet-style stems) split, 1 MB ones do not.
# Measured on the Intel Xeon (2 cores, bench_kernel_split.py --threshold 1, load 1.1-1.2):
# two threads took 0.59-0.82x (best of 40) and 0.74-0.96x (median) the one-thread time at
# 2 MB; at 1 MB 0.74-1.24x (ReLU lost), at 512 KB and less 1.2-4.7x (a hand-off between the
# threads costs 50-80 us on this VM, a whole small loop's time). At load 7 (other jobs) two
# threads lost at 2 MB too (BN 1.2-1.9x): a partner that waits for a core.
MIN_ELEMENTS_PER_THREAD = 1 << 19


def count() -> int:
    """The number of threads NumPy's BLAS uses now (1 when threadpoolctl cannot tell).

    NumPy's own library, not the first BLAS threadpoolctl lists: importing numba loads SciPy's
    OpenBLAS too, after a caller may have limited NumPy's (``threadpool_limits(1)`` before the
    first kernel), and that one keeps every core: the kernels then ran on two threads while
    the caller had asked for one."""
    if "blas" not in _state:
        try:
            found = threadpoolctl.ThreadpoolController().select(user_api="blas").lib_controllers
        except ImportError:
            found = []
        numpy_own = [c for c in found if _numpy_libs() in os.path.realpath(c.filepath)]
        found = numpy_own or found
        _state["blas"] = found[0] if found else None
    blas = _state["blas"]
    return 1 if blas is None else max(1, blas.num_threads)


def set_count(threads: int) -> None:
    """Run NumPy's BLAS products, and so the kernels, on ``threads`` threads from now on (a few
    microseconds: OpenBLAS keeps its workers and changes the count it hands work to)."""
    count()  # finds NumPy's BLAS
    blas = _state["blas"]
    if blas is not None:
        blas.set_num_threads(threads)


def _numpy_libs() -> str:
    """The folder holding NumPy's bundled libraries (``numpy.libs`` beside the package, as
    wheels install them; NumPy linked to a system BLAS has none, and any BLAS is taken)."""
    return os.path.realpath(os.path.dirname(numpy.__file__)) + ".libs"


class Task:
    """A job handed to the pool: run once, by a pool thread or, taken back with
    :meth:`cancel` before one started it, by its caller. A Future without the bookkeeping
    (ThreadPoolExecutor's hand-off and wait took 30-46 us on the Intel Xeon, two locks 11-14 us:
    a training step makes about forty)."""

    __slots__ = ("job", "claim", "finished", "value", "error")

    def __init__(self, job: Callable[[], Any]) -> None:
        self.job, self.value, self.error = job, None, None
        self.claim = threading.Lock()  # taken by whoever runs the job
        self.finished = threading.Lock()  # held until the job has run or been taken back
        self.finished.acquire()

    def run(self) -> None:
        """On a pool thread: the job, unless its caller took it back."""
        if self.claim.acquire(blocking=False):
            try:
                self.value = self.job()
            except BaseException as error:  # handed to result()
                self.error = error
            self.finished.release()

    def cancel(self) -> bool:
        """Take the job back if no thread has started it (it then never runs there)."""
        if not self.claim.acquire(blocking=False):
            return False
        self.error = CancelledError()
        self.finished.release()
        return True

    def done(self) -> bool:
        return not self.finished.locked()

    def result(self) -> Any:
        """The job's result once it has run (its error raised; CancelledError if taken back)."""
        with self.finished:
            pass
        if self.error is not None:
            raise self.error
        return self.value


class _Pool:
    """Threads taking :class:`Task` s from one queue, first in first out."""

    def __init__(self) -> None:
        self.tasks: queue.SimpleQueue = queue.SimpleQueue()
        self.workers = 0

    def grow(self, workers: int) -> None:
        while self.workers < workers:
            self.workers += 1
            name = f"neurocanvas-kernel-{self.workers}"
            threading.Thread(target=self._serve, name=name, daemon=True).start()

    def _serve(self) -> None:
        while True:
            self.tasks.get().run()

    def submit(self, job: Callable[[], Any]) -> Task:
        task = Task(job)
        self.tasks.put(task)
        return task


def _pool(workers: int) -> _Pool:
    pool = _state.get("pool")
    if pool is None:
        pool = _state["pool"] = _Pool()
    pool.grow(workers)
    return pool


def submit(job: Callable[[], Any]) -> Any:
    """``job()`` handed to a pool thread when BLAS uses two threads or more (its Task), else
    None: the caller computes it itself. The job queues before any later :func:`run`'s
    partner, which this thread then does not wait for (see :func:`_share`)."""
    threads = count()
    return _pool(threads - 1).submit(job) if threads >= 2 else None


def chunks(total: int, align: int, threads: int) -> list[tuple[int, int]]:
    """``[0, total)`` in chunks of a multiple of ``align``: first one large chunk per thread
    (three quarters of an even share), then one smaller chunk per thread for whichever thread
    is free first, so that a late partner costs little (see :func:`run`)."""

    def up(v: int) -> int:
        return -(-v // align) * align

    big = max(align, up(total * 3 // (4 * threads)))
    small = max(align, up(-(-(total - big * threads) // threads)))
    bounds: list[tuple[int, int]] = []
    lo = 0
    while lo < total:
        size = big if len(bounds) < threads else small
        bounds.append((lo, min(lo + size, total)))
        lo += size
    return bounds


def run(
    kernel: Callable[..., Any], args: tuple, total: int, align: int, parts: int | None = None
) -> None:
    """``kernel(*args, lo, hi)`` over ``[0, total)`` in :func:`chunks` of a multiple of
    ``align``, shared between the threads (this one included; at most ``parts`` threads when
    given): each thread takes the next chunk not yet taken until none is left.

    Shared, not dealt: on a busy machine a partner thread may wait milliseconds for a core
    (a hand-off on a quiet one takes tens of microseconds), and a fixed half of the work then
    waited with it. Here this thread goes on with the chunks the partner has not taken, and a
    partner that has not started by the end is called off. Which thread computes a chunk never
    changes the numbers: each output row is computed by one call, whole."""
    if parts is None:
        parts = total // MIN_MAPS_PER_THREAD
    threads = min(count(), parts)
    if threads < 2:
        kernel(*args, 0, total)
        return
    todo = iter(chunks(total, align, threads))  # next() on it is atomic (the GIL)

    def work() -> None:
        for lo, hi in todo:
            kernel(*args, lo, hi)

    _share(work, threads)


def _share(work: Callable[[], None], threads: int) -> None:
    """``work()`` on this thread and ``threads - 1`` of the pool's; a pool thread that has
    not started when this one is done is called off (its work was done here)."""
    futures = [_pool(threads - 1).submit(work) for _ in range(threads - 1)]
    work()
    for future in futures:
        if not future.cancel():
            future.result()


def run_rows(
    kernel: Callable[..., Any], args: tuple, rows: int, elements: int, align: int = 1
) -> None:
    """``kernel(*args, lo, hi)`` over rows ``[0, rows)`` of a memory-bound loop reading
    ``elements`` elements in all: split between the threads (parts a multiple of ``align``
    rows) when each gets at least :data:`MIN_ELEMENTS_PER_THREAD` of them, else on this one.
    Each row must be computed by one call, independently of the others: the split then
    leaves the numbers as one thread gives them."""
    parts = min(rows // align, elements // MIN_ELEMENTS_PER_THREAD)
    if parts < 2:  # most layers: no need to ask BLAS its thread count (a ctypes call)
        kernel(*args, 0, rows)
        return
    run(kernel, args, rows, align, parts)


def run_all(jobs: list[tuple[float, Callable[[], Any]]]) -> None:
    """Every ``(cost, job)``'s ``job()``, shared between the threads (this one included) as
    :func:`run` shares chunks, the costliest first."""
    threads = min(count(), len(jobs))
    order = [job for _, job in sorted(jobs, key=lambda j: -j[0])]
    if threads < 2:
        for job in order:
            job()
        return
    todo = iter(order)

    def work() -> None:
        for job in todo:
            job()

    _share(work, threads)

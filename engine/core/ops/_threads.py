"""Running a compiled (``nogil``) kernel on as many threads as NumPy's BLAS uses.

The compute-bound kernels (the direct convolution) split their output maps between threads, so
a layer uses both cores as the GEMMs it replaces did. The thread count follows BLAS's (set it
with threadpoolctl or OPENBLAS_NUM_THREADS, as for NumPy), so the two never oversubscribe the
cores: the kernels run between GEMMs, never beside them. The memory-bound loops of a training
step (batch normalization, ReLU, padding copies) split too (:func:`run_rows`), only when each
thread gets enough work to repay the hand-off (tens of microseconds): their rows (channels,
runs of elements) are independent, each computed whole by one thread in a fixed order, so
the numbers do not depend on the thread count.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

_state: dict[str, Any] = {}
if hasattr(os, "register_at_fork"):  # a forked child has none of the pool's threads
    os.register_at_fork(after_in_child=lambda: _state.pop("pool", None))
# Below this many output maps per thread, a hand-off (tens of microseconds) is not worth it.
MIN_MAPS_PER_THREAD = 8
# A memory-bound loop splits only when each thread gets at least this many elements to read
# (256 KB of float32): smaller arrays are done before a hand-off pays for itself.
MIN_ELEMENTS_PER_THREAD = 1 << 16


def count() -> int:
    """The number of threads NumPy's BLAS uses now (1 when threadpoolctl cannot tell).

    NumPy's own library, not the first BLAS threadpoolctl lists: importing numba loads SciPy's
    OpenBLAS too, after a caller may have limited NumPy's (``threadpool_limits(1)`` before the
    first kernel), and that one keeps every core: the kernels then ran on two threads while
    the caller had asked for one."""
    if "blas" not in _state:
        try:
            from threadpoolctl import ThreadpoolController

            found = ThreadpoolController().select(user_api="blas").lib_controllers
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
    import numpy

    return os.path.realpath(os.path.dirname(numpy.__file__)) + ".libs"


def _pool(workers: int) -> ThreadPoolExecutor:
    pool = _state.get("pool")
    if pool is None or pool._max_workers < workers:  # noqa: SLF001
        pool = _state["pool"] = ThreadPoolExecutor(workers, "neurocanvas-kernel")
    return pool


def run(
    kernel: Callable[..., Any], args: tuple, total: int, align: int, parts: int | None = None
) -> None:
    """``kernel(*args, lo, hi)`` over ``[0, total)`` in parts of a multiple of ``align``, one
    part per thread (this one included); at most ``parts`` parts when given."""
    if parts is None:
        parts = total // MIN_MAPS_PER_THREAD
    parts = min(count(), parts) or 1
    step = -(-total // parts)
    step = -(-step // align) * align
    bounds = [(lo, min(lo + step, total)) for lo in range(0, total, step)]
    if len(bounds) == 1:
        kernel(*args, 0, total)
        return
    futures = [_pool(len(bounds) - 1).submit(kernel, *args, lo, hi) for lo, hi in bounds[1:]]
    kernel(*args, *bounds[0])
    for future in futures:
        future.result()


def run_rows(
    kernel: Callable[..., Any], args: tuple, rows: int, elements: int, align: int = 1
) -> None:
    """``kernel(*args, lo, hi)`` over rows ``[0, rows)`` of a memory-bound loop reading
    ``elements`` elements in all: split between the threads (parts a multiple of ``align``
    rows) when each gets at least :data:`MIN_ELEMENTS_PER_THREAD` of them, else on this one.
    Each row must be computed by one call, independently of the others: the split then
    leaves the numbers as one thread gives them."""
    run(kernel, args, rows, align, min(rows // align, elements // MIN_ELEMENTS_PER_THREAD))


def deal(costs: list[float], threads: int) -> list[list[int]]:
    """Indices of ``costs`` dealt to ``threads`` shares, largest first to the lightest share."""
    shares: list[list[int]] = [[] for _ in range(max(1, min(threads, len(costs))))]
    loads = [0.0] * len(shares)
    for i in sorted(range(len(costs)), key=lambda i: -costs[i]):
        least = loads.index(min(loads))
        shares[least].append(i)
        loads[least] += costs[i]
    return shares


def run_all(jobs: list[tuple[float, Callable[[], Any]]]) -> None:
    """Every ``(cost, job)``'s ``job()``, the jobs dealt to the threads (this one included) so
    their costs come out even: one hand-off per thread instead of one per job."""
    shares = [[jobs[i][1] for i in share] for share in deal([c for c, _ in jobs], count())]

    def each(share: list[Callable[[], Any]]) -> None:
        for job in share:
            job()

    futures = [_pool(len(shares) - 1).submit(each, share) for share in shares[1:]]
    each(shares[0])
    for future in futures:
        future.result()

"""A CuPy-like array backend on the CPU: the CI's stand-in for the GPU.

``NEUROCANVAS_DEVICE=guard`` (or ``backend.set_device("guard")``) runs the engine on
:data:`engine.guard.module.MODULE`, a module that answers to CuPy's names and computes with NumPy
behind a wall (see :mod:`engine.guard.array`). It proves, without a GPU, that the engine:

* never converts a device array to NumPy implicitly (``np.asarray``, ``np.*`` functions, Pillow,
  matplotlib, CSV cells all raise), nor mixes host arrays into device arithmetic;
* calls only functions, methods and keyword arguments CuPy has (recorded from CuPy, see
  :mod:`engine.guard.names`), and ``cupyx.scatter_add`` only on the dtypes it supports;
* reads values back to the host a bounded number of times per training step
  (:func:`count_syncs`);
* turns out-of-memory and CUDA errors into messages users understand (:data:`STATE`'s
  ``memory_limit`` and ``fail``).

It does not prove that CuPy computes the same numbers (kernels, cuBLAS, float16 rounding), that
CuPy's functions accept every argument *value* NumPy accepts, or anything about speed, streams
and memory: those need the real GPU.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from engine.guard.array import (
    STATE,
    GuardArray,
    GuardCUDAError,
    GuardError,
    GuardOutOfMemoryError,
)
from engine.guard.module import MODULE, scatter_add

__all__ = [
    "MODULE",
    "STATE",
    "GuardArray",
    "GuardCUDAError",
    "GuardError",
    "GuardOutOfMemoryError",
    "count_syncs",
    "scatter_add",
]


class SyncCount:
    """Host synchronisations counted inside :func:`count_syncs` (``.n``, ``.sites``)."""

    def __init__(self) -> None:
        self.n = 0
        self.sites: list[str] = []


@contextlib.contextmanager
def count_syncs(trace: bool = False) -> Iterator[SyncCount]:
    """Count the device-to-host reads inside the block; ``trace`` records where they happen."""
    result = SyncCount()
    start, tracing = STATE.syncs, STATE.trace_syncs
    STATE.trace_syncs = trace
    first = len(STATE.sync_sites)
    try:
        yield result
    finally:
        result.n = STATE.syncs - start
        result.sites = STATE.sync_sites[first:]
        del STATE.sync_sites[first:]
        STATE.trace_syncs = tracing

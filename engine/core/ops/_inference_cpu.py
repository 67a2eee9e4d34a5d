"""Inference-only CPU loops (numba) for the runtime's test-mode plan
(:mod:`engine.runtime.inference_plan`).

* :func:`bias_act`: a layer's bias and the ReLU after it in one pass over the channels-major
  output (``y = max(y + b, 0)`` row by row), where NumPy makes two.

Nothing here records anything for a backward; the training kernels are untouched. Only NumPy
float32/float64 (C, M) contiguous matrices; everything else takes NumPy (the plan's fallback).
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

import numpy as np

from engine.core.ops import _jit


def _build(numba: ModuleType) -> dict[str, Any]:
    """The compiled kernels (built on first use, cached on disk)."""

    @_jit.njit(numba)
    def bias_act(y, b, relu):  # pragma: no cover - compiled
        c_n, m_n = y.shape
        for c in range(c_n):
            row = y[c]
            bv = b[c]
            if relu:
                for j in range(m_n):
                    v = row[j] + bv
                    row[j] = 0.0 if v < 0 else v  # nan < 0 is false: nan stays, as np.maximum
            else:
                for j in range(m_n):
                    row[j] += bv

    return dict(bias_act=bias_act)


_compile = _jit.kernels(_build)


def bias_act(y2: Any, b: Any, relu: bool) -> bool:
    """``y2`` (C, M) contiguous += ``b`` (C,) per row, then ReLU when ``relu``, in place.
    False (nothing done) when the loops do not serve these arrays."""
    if not (
        type(y2) is np.ndarray
        and y2.dtype in (np.float32, np.float64)
        and y2.ndim == 2
        and y2.flags.c_contiguous
        and y2.flags.writeable
        and b.size == y2.shape[0]
    ):
        return False
    kernels = _compile()
    if kernels is None:
        return False
    kernels["bias_act"](y2, np.ascontiguousarray(b.reshape(-1), dtype=y2.dtype), relu)
    return True

"""Inference-only CPU loops (numba) for the runtime's test-mode plan
(:mod:`engine.runtime.inference_plan`).

* :func:`bias_act`: a layer's bias and the ReLU after it in one pass over the channels-major
  output (``y = max(y + b, 0)`` row by row), where NumPy makes two.
* :func:`max_pooling`: 2-D max pooling that only keeps the maxima. The training loops
  (:mod:`engine.core.ops._pooling_cpu`) also note which cell of each window won, for the
  backward; the values, NaN and padding rules are theirs (a NaN in a window gives NaN, cells
  outside the image never win).

Nothing here records anything for a backward; the training kernels are untouched. Only NumPy
float32/float64 (C, M) contiguous matrices; everything else takes NumPy (the plan's fallback).
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

import numpy as np

from engine.core.ops import _jit, _pooling_cpu
from engine.core.ops.pooling import _Windows


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

    # The loops over samples (n) are branch-free selects, so they run in vector lanes.
    @_jit.njit(numba)
    def max_pool(x, kh, kw, sh, sw, ph, pw, y):  # pragma: no cover - compiled
        c_n, h_n, w_n, n_n = x.shape
        _, oh, ow, _ = y.shape
        for c in range(c_n):
            for i in range(oh):
                for j in range(ow):
                    best = y[c, i, j]
                    for n in range(n_n):
                        best[n] = -np.inf
                    for a in range(kh):
                        r = i * sh + a - ph
                        if r < 0 or r >= h_n:
                            continue  # padded cells (-inf) never win
                        for b in range(kw):
                            q = j * sw + b - pw
                            if q < 0 or q >= w_n:
                                continue
                            row = x[c, r, q]
                            for n in range(n_n):
                                v, m = row[n], best[n]
                                # a larger value or a NaN takes over; a NaN stays (v > nan: no)
                                best[n] = v if (v > m) | (v != v) else m

    return dict(bias_act=bias_act, max_pool=max_pool)


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


def max_pooling(x: Any, kernel, stride=None, ignore_border: bool = True, pad=None,
                channel_last: bool = False) -> Any:  # fmt: skip
    """``F.max_pooling``'s values (an array) where the loops serve ``x``, else None."""
    if channel_last or len(kernel) != 2 or not _pooling_cpu.applies(x, 2):
        return None
    kernels = _compile()
    if kernels is None:
        return None
    win = _Windows("max_pooling", x.shape, kernel, stride, ignore_border, pad, False)
    layout = _pooling_cpu._layout(x)
    x4 = _pooling_cpu._to4(x, layout)
    y4 = np.empty((x4.shape[0], *win.out, x4.shape[-1]), dtype=x.dtype)
    kernels["max_pool"](x4, *win.kernel, *win.stride, *win.before, y4)
    return _pooling_cpu._from4(y4, layout, x.shape[1])

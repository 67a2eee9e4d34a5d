"""im2col and col2im of 2-D convolutions as compiled CPU loops (numba), an optional fast path
beside the ``xp`` versions of :mod:`engine.core.ops._im2col`, which stay the reference (tests
compare the two on odd shapes).

Why: NumPy builds the columns from a zero-padded copy of the input (one extra pass) and sums them
back with one strided ``+=`` per kernel offset into a zeroed, padded buffer that is then cut to
size (about ``3 * prod(kernel)`` passes over the image, and a non-contiguous gradient for the
layers below). Here im2col reads the unpadded input and writes zeros where the window leaves it;
col2im *gathers*: every input-gradient cell is written once, as the sum of the column entries that
cover it, straight into an unpadded contiguous array.

Both serve the batch-innermost layout (columns ``(C, kh, kw, oh, ow, N)``, images
``(C, H, W, N)``), so the innermost loop copies or adds runs of contiguous samples; NumPy
float32/float64 only. Single-threaded on purpose, so they never compete with BLAS's threads.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from engine.core.ops import _jit

_kernels: dict[str, Any] = {}


def _compile() -> dict[str, Any] | None:
    """The compiled kernels, or None without numba (compiled once, cached on disk)."""
    numba = _jit.numba()
    if numba is None:
        return None
    if "im2col" in _kernels:
        return _kernels

    @_jit.njit(numba)
    def im2col(xc, ph, pw, sh, sw, dh, dw, col):  # pragma: no cover - compiled
        c_n, h_n, w_n, n_n = xc.shape
        kh_n, kw_n, oh_n, ow_n = col.shape[1:5]
        for c in range(c_n):
            for a in range(kh_n):
                for b in range(kw_n):
                    for i in range(oh_n):
                        ih = i * sh - ph + a * dh
                        for j in range(ow_n):
                            iw = j * sw - pw + b * dw
                            dst = col[c, a, b, i, j]
                            if ih < 0 or ih >= h_n or iw < 0 or iw >= w_n:
                                dst[:] = 0
                            else:
                                src = xc[c, ih, iw]
                                for n in range(n_n):
                                    dst[n] = src[n]

    @_jit.njit(numba)
    def col2im(col, ph, pw, sh, sw, dh, dw, out):  # pragma: no cover - compiled
        c_n, h_n, w_n, n_n = out.shape
        kh_n, kw_n, oh_n, ow_n = col.shape[1:5]
        for c in range(c_n):
            for ih in range(h_n):
                for iw in range(w_n):
                    dst = out[c, ih, iw]
                    dst[:] = 0
                    for a in range(kh_n):
                        t = ih + ph - a * dh
                        if t < 0 or t % sh != 0 or t // sh >= oh_n:
                            continue
                        i = t // sh
                        for b in range(kw_n):
                            u = iw + pw - b * dw
                            if u < 0 or u % sw != 0 or u // sw >= ow_n:
                                continue
                            src = col[c, a, b, i, u // sw]
                            for n in range(n_n):
                                dst[n] += src[n]

    _kernels.update(im2col=im2col, col2im=col2im)
    return _kernels


def applies(a: Any, nk: int, batch_last: bool) -> bool:
    """Whether the compiled loops serve this array (2-D, batch innermost, NumPy float)."""
    return (
        nk == 2
        and batch_last
        and type(a) is np.ndarray
        and a.dtype in (np.float32, np.float64)
        and _compile() is not None
    )


def im2col(
    xc: Any, kernel: Sequence[int], pad: Sequence[int], stride: Sequence[int], dil: Sequence[int]
) -> tuple[Any, tuple[int, ...]]:
    """Columns ``(C, kh, kw, oh, ow, N)`` of a contiguous ``(C, H, W, N)`` image; and (oh, ow)."""
    c, h, w, n = xc.shape
    out = tuple(
        (s + 2 * p - d * (k - 1) - 1) // st + 1
        for s, k, p, st, d in zip((h, w), kernel, pad, stride, dil, strict=True)
    )
    col = np.empty((c, *kernel, *out, n), dtype=xc.dtype)
    _compile()["im2col"](xc, *pad, *stride, *dil, col)
    return col, out


def col2im(
    col: Any, spatial: Sequence[int], pad: Sequence[int], stride: Sequence[int], dil: Sequence[int]
) -> Any:
    """The adjoint of :func:`im2col`: a contiguous ``(C, H, W, N)`` image."""
    col = np.ascontiguousarray(col)
    out = np.empty((col.shape[0], *spatial, col.shape[-1]), dtype=col.dtype)
    _compile()["col2im"](col, *pad, *stride, *dil, out)
    return out

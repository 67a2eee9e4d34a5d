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
Column matrices get padded rows (:func:`padded_rows`), which the GEMMs around them like.
"""

from __future__ import annotations

from collections.abc import Sequence
from types import ModuleType
from typing import Any

import numpy as np

from engine.core import products
from engine.core.ops import _jit


def _build(numba: ModuleType) -> dict[str, Any]:
    """The compiled kernels (built on first use, cached on disk)."""

    @_jit.njit(numba)
    def im2col(xc, ph, pw, sh, sw, dh, dw, kh_n, kw_n, oh_n, ow_n, col):  # pragma: no cover
        # col: (C*kh*kw, blocks, N), block i*ow+j of row (c, a, b) holds window (i, j)'s samples
        # (further blocks are row padding, see padded_rows).
        c_n, h_n, w_n, n_n = xc.shape
        for c in range(c_n):
            for a in range(kh_n):
                for b in range(kw_n):
                    row = col[(c * kh_n + a) * kw_n + b]
                    for i in range(oh_n):
                        ih = i * sh - ph + a * dh
                        for j in range(ow_n):
                            iw = j * sw - pw + b * dw
                            dst = row[i * ow_n + j]
                            if ih < 0 or ih >= h_n or iw < 0 or iw >= w_n:
                                dst[:] = 0
                            else:
                                src = xc[c, ih, iw]
                                for n in range(n_n):
                                    dst[n] = src[n]

    @_jit.njit(numba)
    def taps(n_in, n_out, k_n, p, s, d):  # pragma: no cover - compiled
        # For every input row x: the kernel offsets a and output rows i whose window reads x
        # (x = i * s - p + a * d), so col2im's inner loops need no division.
        count = np.zeros(n_in, np.int64)
        offset = np.zeros((n_in, k_n), np.int64)
        row = np.zeros((n_in, k_n), np.int64)
        for x in range(n_in):
            for a in range(k_n):
                t = x + p - a * d
                if t >= 0 and t % s == 0 and t // s < n_out:
                    offset[x, count[x]], row[x, count[x]] = a, t // s
                    count[x] += 1
        return count, offset, row

    @_jit.njit(numba)
    def col2im(col, ph, pw, sh, sw, dh, dw, kh_n, kw_n, oh_n, ow_n, out):  # pragma: no cover
        c_n, h_n, w_n, n_n = out.shape
        hc, ha, hi = taps(h_n, oh_n, kh_n, ph, sh, dh)
        wc, wb, wj = taps(w_n, ow_n, kw_n, pw, sw, dw)
        for c in range(c_n):
            for ih in range(h_n):
                for iw in range(w_n):
                    dst = out[c, ih, iw]
                    dst[:] = 0
                    for qa in range(hc[ih]):
                        r = (c * kh_n + ha[ih, qa]) * kw_n
                        at = hi[ih, qa] * ow_n
                        for qb in range(wc[iw]):
                            src = col[r + wb[iw, qb], at + wj[iw, qb]]
                            for n in range(n_n):
                                dst[n] += src[n]

    return dict(im2col=im2col, col2im=col2im)


_compile = _jit.kernels(_build)


def applies(a: Any, nk: int, batch_last: bool) -> bool:
    """Whether the compiled loops serve this array (2-D, batch innermost, NumPy float)."""
    return (
        nk == 2
        and batch_last
        and type(a) is np.ndarray
        and a.dtype in (np.float32, np.float64)
        and a.size > 0
        and _compile() is not None
    )


# OpenBLAS writes a product whose rows lie a multiple of 4 KiB apart up to 1.7x slower (the rows
# of a tile fall into the same cache sets) and reads such an operand slower too, so column
# matrices get a few spare elements per row. Measured on (288, 32) @ (32, 8192): 2.9 -> 1.6 ms.
_ROW_PAD_BYTES = 64


def padded_rows(shape: Sequence[int], dtype: Any, unit: int = 1) -> Any:
    """An uninitialised array of ``shape`` whose rows (last axis) do not lie a multiple of
    4 KiB apart: a view of a buffer wider by a multiple of ``unit`` elements."""
    itemsize = np.dtype(dtype).itemsize
    cols = shape[-1]
    extra = 0
    if (cols * itemsize) % 4096 == 0:
        extra = -(-_ROW_PAD_BYTES // (itemsize * unit)) * unit
    return np.empty((*shape[:-1], cols + extra), dtype=dtype)[..., :cols]


def matmul(a: Any, b: Any, unit: int) -> Any:
    """``a @ b`` (``a * b`` when the contraction has length 1) into :func:`padded_rows`."""
    lead = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    out = padded_rows((*lead, a.shape[-2], b.shape[-1]), np.result_type(a, b), unit)
    if a.shape[-1] == 1:
        return np.multiply(a, b, out=out)
    return products.matmul(a, b, out=out)


def _blocks(col: Any) -> Any:
    """The (rows, blocks, N) C-contiguous array the kernels index for columns ``(C, kh, kw, oh,
    ow, N)``: the whole buffer of a :func:`padded_rows` matrix (padding included) when ``col``
    is a view of one, else a contiguous copy of ``col``."""
    c, kh, kw, oh, ow, n = col.shape
    m = col.reshape(c * kh * kw, -1)  # a view for a padded matrix's columns, else a copy
    size, buf = m.itemsize, m.base
    if m.strides[1] == size and m.strides[0] % size == 0:
        ld = m.strides[0] // size
        if (
            isinstance(buf, np.ndarray)
            and buf.flags.c_contiguous
            and buf.dtype == m.dtype
            and buf.ctypes.data == m.ctypes.data
            and buf.size == m.shape[0] * ld
            and ld % n == 0
        ):
            return buf.reshape(m.shape[0], -1, n)
    return np.ascontiguousarray(m).reshape(c * kh * kw, -1, n)


def im2col(
    xc: Any, kernel: Sequence[int], pad: Sequence[int], stride: Sequence[int], dil: Sequence[int]
) -> tuple[Any, tuple[int, ...]]:
    """Columns ``(C, kh, kw, oh, ow, N)`` of a contiguous ``(C, H, W, N)`` image (a view of a
    :func:`padded_rows` matrix); and (oh, ow)."""
    c, h, w, n = xc.shape
    out = tuple(
        (s + 2 * p - d * (k - 1) - 1) // st + 1
        for s, k, p, st, d in zip((h, w), kernel, pad, stride, dil, strict=True)
    )
    rows = c * kernel[0] * kernel[1]
    col = padded_rows((rows, out[0] * out[1] * n), xc.dtype, n)
    buf = col.base.reshape(rows, -1, n)
    _compile()["im2col"](xc, *pad, *stride, *dil, *kernel, *out, buf)
    return col.reshape(c, *kernel, *out, n), out


def col2im(
    col: Any, spatial: Sequence[int], pad: Sequence[int], stride: Sequence[int], dil: Sequence[int]
) -> Any:
    """The adjoint of :func:`im2col`: a contiguous ``(C, H, W, N)`` image."""
    c, kh, kw, oh, ow, n = col.shape
    out = np.empty((c, *spatial, n), dtype=col.dtype)
    _compile()["col2im"](_blocks(col), *pad, *stride, *dil, kh, kw, oh, ow, out)
    return out

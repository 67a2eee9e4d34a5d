"""NumPy stand-ins for the compiled kernels that only move data: the same arguments, the same
bytes written (tests compare them with the kernels on NaN, inf, -0.0 and odd shapes).

A fresh machine's first training run uses them while a second process compiles the kernels
into numba's cache (engine/warmup/ahead.py, issue 33's cold start): the first step then waits
for the convolution's compilation only, not for padding's, packing's, ReLU's and max pooling's
(about 3 s of compiling on the default project). Once the cache holds a kernel, the caller
loads and uses it (:func:`engine.core.ops._jit.usable`). Only data movement is stood in for:
copies, selects and a running maximum give the same bits whichever code runs them. Kernels
that add or multiply in a loop (the convolutions, Adam, batch normalization) are never
replaced, since another order of operations could round differently; max pooling's backward
adds, and is stood in for only where windows do not overlap (each input cell then receives at
most one output's gradient: ``0.0 + g``, as in the kernel; :func:`pool_backward_exact`).

Each function takes the compiled kernel's arguments (see the kernel's comments) and writes
the same output arrays; the kernels' ``[lo, hi)`` ranges (a thread's share) are honoured.
"""

from __future__ import annotations

from typing import Any

import numpy as np

NO_CELL = -1  # engine.core.ops._pooling_cpu.NO_CELL


def pad(x: Any, out: Any, top: int, left: int, c_lo: int, c_hi: int) -> None:
    """``_direct_conv_cpu.pad``: out (C, Hp, Wp, N) holds x (C, H, W, N) from row ``top`` and
    column ``left`` on, zeros (+0.0) around it, for channels [c_lo, c_hi)."""
    h, w = x.shape[1], x.shape[2]
    part = out[c_lo:c_hi]
    part[:, :top] = 0
    part[:, top + h :] = 0
    part[:, top : top + h, :left] = 0
    part[:, top : top + h, left + w :] = 0
    part[:, top : top + h, left : left + w] = x[c_lo:c_hi]


def pack(wm: Any, wtaps: Any, mstride: int, o_n: int, wp: Any) -> None:
    """``_direct_conv_cpu.pack``: wp (ceil(O / 4), K, 4) gets the weight of map o and tap k,
    ``wm[o * mstride + wtaps[k]]``; maps past O repeat the last one."""
    k_n = wtaps.size
    maps = -(-o_n // 4) * 4
    rows = np.minimum(np.arange(maps), o_n - 1) * mstride
    tiles = wm[rows[:, None] + wtaps[None, :]]  # (maps, K)
    wp[: maps * k_n].reshape(maps // 4, k_n, 4)[...] = tiles.reshape(maps // 4, 4, k_n).transpose(
        0, 2, 1
    )


def relu(x: Any, y: Any, lo: int, hi: int) -> None:
    """``_elementwise_cpu`` relu: ``y = 0.0 if x <= 0 else x`` (NaN kept, -0.0 gives +0.0)."""
    x = x[lo:hi]
    np.copyto(y[lo:hi], np.where(x <= 0, x.dtype.type(0), x))


def relu_grad(x: Any, g: Any, gx: Any, lo: int, hi: int) -> None:
    """``_elementwise_cpu`` relu_grad: ``gx = g * (1.0 if x > 0 else 0.0)``."""
    x, g, gx = x[lo:hi], g[lo:hi], gx[lo:hi]
    with np.errstate(invalid="ignore"):  # inf * 0: NaN, silently as in the kernel
        np.multiply(g, x > 0, out=gx)


def _inside(k: int, kw: int, size: tuple[int, ...], stride, pad, out) -> tuple[slice, ...] | None:
    """For window cell ``k``: the outputs whose cell ``k`` lies inside the image (a rectangle,
    as slices of the output) and those cells (slices of the image); None when none does."""
    found = []
    for offset, n, s, p, o in zip(divmod(k, kw), size, stride, pad, out, strict=True):
        lo = max(0, -((offset - p) // s))  # first output whose cell is at row >= 0
        hi = min(o - 1, (n - 1 + p - offset) // s)  # last one whose cell is at row < n
        if lo > hi:
            return None
        first = lo * s + offset - p
        found.append((slice(lo, hi + 1), slice(first, first + (hi - lo) * s + 1, s)))
    (oi, xi), (oj, xj) = found
    return oi, oj, xi, xj


def pool_forward(x: Any, kh: int, kw: int, sh: int, sw: int, ph: int, pw: int, y: Any, cell: Any):
    """``_pooling_cpu`` forward: per output the first maximum of its window in row-major order
    (cells outside the image skipped; a NaN taken, the last one; the first cell taken when
    inside even at -inf) and its cell, NO_CELL for a NaN or a maximum in the padding. The
    kernel's scan, window cell by window cell, over every output at once."""
    y.fill(-np.inf)
    cell.fill(NO_CELL)
    for k in range(kh * kw):
        where = _inside(k, kw, x.shape[1:3], (sh, sw), (ph, pw), y.shape[1:3])
        if where is None:
            continue
        oi, oj, xi, xj = where
        v, best, arg = x[:, xi, xj], y[:, oi, oj], cell[:, oi, oj]
        if k == 0:  # the first cell, inside: taken whatever it holds
            np.copyto(best, v)
            arg.fill(0)
            continue
        take = np.greater(v, best)
        take |= np.isnan(v)
        np.copyto(best, v, where=take)
        np.copyto(arg, k, where=take)
    np.copyto(cell, NO_CELL, where=np.isnan(y))


def pool_backward_exact(kh: int, kw: int, sh: int, sw: int) -> bool:
    """Whether :func:`pool_backward` gives the kernel's bytes: windows that do not overlap."""
    return sh >= kh and sw >= kw


def pool_backward(
    gy: Any, cell: Any, kh: int, kw: int, sh: int, sw: int, ph: int, pw: int, gx: Any
) -> None:
    """``_pooling_cpu`` backward where windows do not overlap (:func:`pool_backward_exact`):
    each output's gradient added to the (zeroed) cell it came from."""
    zero = gx.dtype.type(0)
    for k in range(kh * kw):
        where = _inside(k, kw, gx.shape[1:3], (sh, sw), (ph, pw), gy.shape[1:3])
        if where is None:
            continue
        oi, oj, xi, xj = where
        hit = cell[:, oi, oj] == k
        with np.errstate(invalid="ignore"):  # 0.0 + NaN: NaN, silently as in the kernel
            gx[:, xi, xj] += np.where(hit, gy[:, oi, oj], zero)

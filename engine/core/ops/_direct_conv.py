"""A direct 2-D convolution for the CPU: a register-blocked kernel that never writes the column
matrix, an optional fast path beside im2col + GEMM in :mod:`engine.core.ops.basic`.

Why: im2col writes ``prod(kernel)`` copies of the activation (9 for a 3x3 layer), which the
GEMM then reads and packs again; for the 16-128 map layers of a CIFAR-size network the product
is short and memory traffic, not arithmetic, sets the pace (OpenBLAS reaches 60-65 GFLOPS per
core on those shapes). Here a tile of 4 output maps x 4 vectors of samples is accumulated in
registers (:mod:`._simd`) over every (channel, kernel offset) tap and written once: 95-115
GFLOPS on one core of the development machine (AMD Zen 4), near its peak. The output maps are
split between BLAS's threads (:mod:`._threads`).

Layout: the batch-innermost channels-major images the convolutions hand around (``(C, H, W, N)``,
see :mod:`engine.core.ops._im2col`), zero-padded once; a vector holds ``lanes`` consecutive
samples of one pixel, so the batch must be a multiple of the lane count (16 with AVX-512).
Output vector ``t`` of an output row is pixel ``t // (N / lanes)``, samples
``(t % (N / lanes)) * lanes`` on; tiles at the end of a row or of the maps repeat their last
vector or map (the repeated stores write the same values), so any width and map count work.

One kernel serves the forward and the input gradient: it sums taps at arbitrary offsets, and the
input gradient is, per stride phase, a stride-1 convolution of the output gradient with the taps
that reach that phase (the kernel flipped, channels swapped). A second kernel sums the weight
gradient. NumPy float32 only, group 1; everything else takes the generic path, which stays the
reference (tests compare the two).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache, partial
from math import prod
from types import ModuleType
from typing import Any

import numpy as np

from engine.core import optional
from engine.core.ops import _jit, _standins, _threads
from engine.core.ops._aligned import aligned, aligned_empty


def _build(numba: ModuleType) -> dict[str, Any]:
    """The compiled kernels (built on first use, cached on disk)."""
    _direct_conv_cpu = optional.load("engine.core.ops._direct_conv_cpu")  # imports numba

    return {
        "conv": _direct_conv_cpu.conv,
        "wgrad": _direct_conv_cpu.wgrad,
        "pack": _direct_conv_cpu.pack,
        "pad": _direct_conv_cpu.pad,
        "lanes": _direct_conv_cpu.LANES,
    }


_compile = _jit.kernels(_build)


def applies(x4: Any, group: int, kernel: Sequence[int], batch_last: bool) -> bool:
    """Whether the direct kernels take this convolution: 2-D with a window (1x1 layers are a
    plain GEMM already), group 1, NumPy float32 on the batch-innermost layout with a batch that
    fills whole vectors, numba installed."""
    if not (
        len(kernel) == 2
        and prod(kernel) > 1
        and group == 1
        and batch_last
        and isinstance(x4, np.ndarray)
        and x4.dtype == np.float32
    ):
        return False
    kernels = _compile()
    return kernels is not None and x4.shape[0] % kernels["lanes"] == 0


def padded(xc: Any, pad: Sequence[Any]) -> Any:
    """``(C, H, W, N)`` (any strides) zero-padded on H and W into a fresh contiguous (and
    64-byte aligned) array; ``pad`` per axis is one width for both sides or a (before, after)
    pair. One compiled pass, the channels split between BLAS's threads when large enough."""
    (top, bottom), (left, right) = (p if isinstance(p, tuple) else (p, p) for p in pad)
    c, h, w, n = xc.shape
    out = aligned_empty((c, top + h + bottom, left + w + right, n), xc.dtype)
    args = (xc, out, top, left)
    kernel = _jit.usable(_compile()["pad"], _standins.pad)  # NumPy while compiled elsewhere
    _threads.run_rows(kernel, args, c, out.size + xc.size)
    return out


@lru_cache(maxsize=256)
def _taps(xp_shape: tuple[int, ...], rows: tuple[int, ...], cols: tuple[int, ...]) -> Any:
    """Offsets in a padded image of every (channel, row offset, column offset) tap, in that
    order (the weights' order). Cached, as every plan below: a network repeats its shapes."""
    c, hp, wp, n = xp_shape
    ch, a, b = np.ix_(np.arange(c) * (hp * wp * n), np.array(rows) * (wp * n), np.array(cols) * n)
    return _frozen((ch + a + b).reshape(-1))


@lru_cache(maxsize=256)
def _walk(xp_shape: tuple[int, ...], col_stride: int, row_stride: int, out_width: int) -> Any:
    """``(offs, step)``: the offset of each output vector within an input row, and between
    the input rows of consecutive output rows."""
    _, _, wp, n = xp_shape
    lanes = _compile()["lanes"]
    per_pixel = n // lanes
    t = np.arange(out_width * per_pixel)
    offs = (t // per_pixel) * (col_stride * n) + (t % per_pixel) * lanes
    return _frozen(offs), row_stride * wp * n


def _frozen(a: Any) -> Any:
    a = a.astype(np.int64)
    a.flags.writeable = False
    return a


@lru_cache(maxsize=256)
def _out_walk(y_shape: tuple[int, ...], out_width: int, phase: tuple[int, ...]) -> Any:
    """Where the kernel writes its outputs in a contiguous ``(maps, H, W, N)`` ``y``: (base,
    map stride, row stride, then the offset of each output vector within its row) for the
    output pixels ``(r + s * i, q + t * j)`` of ``phase`` ``(r, q, s, t)``; ``(0, 0, 1, 1)``
    is all of ``y``."""
    _, h, w, n = y_shape
    r, q, s, t = phase
    lanes = _compile()["lanes"]
    per_pixel = n // lanes
    v = np.arange(out_width * per_pixel)
    offs = (q + t * (v // per_pixel)) * n + (v % per_pixel) * lanes
    return _frozen(np.concatenate([[r * w * n, h * w * n, s * w * n], offs]))


def _conv(
    xp: Any, w: Any, plan: tuple, taps: Any, stride, out, split: bool = True, into=None
) -> Any:
    """The kernel: ``y[m] = sum_k W[m, k] * xp[taps[k] + window]`` over output ``out``
    (rows, columns) at ``stride``, the matrix ``W`` read from the weights ``w`` where
    :func:`_weight_taps` ``plan`` says; y is (maps, *out, N), or when ``into`` is
    ``(array, phase)``, written into the stride phase ``phase`` of that aligned contiguous
    array (see :func:`_out_walk`). ``split``: the output maps shared between BLAS's threads,
    else computed on this one."""
    wtaps, mstride, o = plan
    offs, step = _walk(xp.shape, stride[1], stride[0], out[1])
    xp = aligned(xp)
    if into is None:
        y = aligned_empty((o, *out, xp.shape[-1]), xp.dtype)
        yw = _out_walk(y.shape, out[1], (0, 0, 1, 1))
    else:
        y, phase = into
        yw = _out_walk(y.shape, out[1], phase)
    wp = np.empty(-(-o // 4) * 4 * wtaps.size, dtype=xp.dtype)
    pack = _jit.usable(_compile()["pack"], _standins.pack)  # NumPy while compiled elsewhere
    pack(np.ascontiguousarray(w, dtype=xp.dtype).reshape(-1), wtaps, mstride, o, wp)
    args = (xp.reshape(-1), wp, taps, offs, step, o, out[0], y.reshape(-1), yw)
    if split:
        _threads.run(_compile()["conv"], args, o, 4)
    else:
        _compile()["conv"](*args, 0, o)
    return y


@lru_cache(maxsize=256)
def _weight_taps(
    w_shape: tuple[int, ...], rows: tuple[int, ...], cols: tuple[int, ...], swap: bool
):
    """``(wtaps, mstride, maps)``: the kernel reads ``W[m, k]`` at ``m * mstride + wtaps[k]`` in
    the flat ``(O, C, kh, kw)`` weights; ``W`` is the (maps, taps) matrix of kernel rows
    ``rows`` and columns ``cols``, or with ``swap`` its channels-for-maps transpose (the input
    gradient's). The compiled ``pack`` gathers them into the kernel's tiles (a NumPy gather
    cost 0.1-0.2 ms for a 128-map layer, 2 ms per ResNet-style step)."""
    o, c, kh, kw = w_shape
    a, b = np.array(rows) * kw, np.array(cols)
    if swap:  # W[c, (o, a, b)] = w[o, c, a, b]
        wtaps = np.ix_(np.arange(o) * (c * kh * kw), a, b)
        return _frozen(sum(wtaps).reshape(-1)), kh * kw, c
    wtaps = np.ix_(np.arange(c) * (kh * kw), a, b)  # W[o, (c, a, b)] = w[o, c, a, b]
    return _frozen(sum(wtaps).reshape(-1)), c * kh * kw, o


def forward(
    xp: Any, w: Any, stride: Sequence[int], dil: Sequence[int], out, split: bool = True
) -> Any:
    """The convolution of a :func:`padded` ``(C, Hp, Wp, N)`` image with weights
    ``(O, C, kh, kw)``: a contiguous ``(O, oh, ow, N)`` output. ``split``: the output maps
    shared between BLAS's threads, else computed on this one (without asking BLAS its count)."""
    kh, kw = w.shape[2:]
    taps = _taps(
        xp.shape, tuple(range(0, kh * dil[0], dil[0])), tuple(range(0, kw * dil[1], dil[1]))
    )
    plan = _weight_taps(w.shape, tuple(range(kh)), tuple(range(kw)), False)
    return _conv(xp, w, plan, taps, tuple(stride), tuple(out), split)


def _phase_taps(r: int, k: int, pad: int, stride: int, dil: int) -> list[tuple[int, int]]:
    """(kernel offset a, output-gradient row shift e) of the taps that reach input rows
    ``r + stride * Y``: those read output row ``Y + e``."""
    shifts = [(a, r + pad - a * dil) for a in range(k)]
    return [(a, d // stride) for a, d in shifts if d % stride == 0]


@lru_cache(maxsize=128)
def _phases(w_shape, spatial, gy_shape, pad, stride, dil) -> tuple[Any, list]:
    """The plan of :func:`input_grad`: the output gradient's padding (before, after) per axis,
    and per phase its rows, columns, kernel rows and columns, taps and output size."""
    _, oh, ow, n = gy_shape
    phases, reach = [], [[0, 0], [0, 0]]
    for r in range(min(stride[0], spatial[0])):
        for q in range(min(stride[1], spatial[1])):
            rows = _phase_taps(r, w_shape[2], pad[0], stride[0], dil[0])
            cols = _phase_taps(q, w_shape[3], pad[1], stride[1], dil[1])
            out = (len(range(r, spatial[0], stride[0])), len(range(q, spatial[1], stride[1])))
            phases.append((r, q, rows, cols, out))
            # Shift e reads output-gradient rows e .. e + out - 1: pad so they all exist.
            for axis, (taps, size, extent) in enumerate(((rows, out[0], oh), (cols, out[1], ow))):
                for _, e in taps:
                    reach[axis][0] = max(reach[axis][0], -e)
                    reach[axis][1] = max(reach[axis][1], e + size - extent)
    (top, _), (left, _) = reach
    gp_shape = (w_shape[0], oh + sum(reach[0]), ow + sum(reach[1]), n)
    plan = []
    for r, q, rows, cols, out in phases:
        taps = None
        if rows and cols:  # else no tap reaches this phase
            taps = _taps(
                gp_shape, tuple(e + top for _, e in rows), tuple(e + left for _, e in cols)
            )
        plan.append((r, q, [a for a, _ in rows], [b for b, _ in cols], taps, out))
    return tuple(map(tuple, reach)), plan


def input_grad(gyc: Any, w: Any, spatial: Sequence[int], pad, stride, dil) -> Any:
    """The input gradient ``(C, H, W, N)`` from the contiguous output gradient
    ``(O, oh, ow, N)``. Input cells ``(r + s*Y, q + s*X)`` of one phase ``(r, q)`` are reached by
    the same kernel taps, each reading the output gradient at a fixed shift: per phase a
    stride-1 convolution of the padded output gradient with those taps, channels swapped."""
    key = (w.shape, tuple(spatial), gyc.shape, tuple(pad), tuple(stride), tuple(dil))
    reach, plan = _phases(*key)
    gp = padded(gyc, reach)
    c, n = w.shape[1], gyc.shape[-1]
    if len(plan) == 1:  # stride 1: one phase, its maps split between the threads
        _, _, a, b, taps, out = plan[0]
        return _conv(gp, w, _weight_taps(w.shape, tuple(a), tuple(b), True), taps, (1, 1), out)
    gx = aligned_empty((c, *spatial, n), gyc.dtype)
    jobs = []  # one phase per thread at a time: phases are small, hand-offs are not free
    for r, q, a, b, taps, out in plan:
        cell = gx[:, r :: stride[0], q :: stride[1]]
        if taps is None:  # no tap reaches this phase
            cell[...] = 0
        else:  # written straight into gx's cells of this phase (no copy)
            plan = _weight_taps(w.shape, tuple(a), tuple(b), True)
            into = (gx, (r, q, *stride))
            job = partial(_conv, gp, w, plan, taps, (1, 1), out, False, into)
            jobs.append((taps.size, job))
    _threads.run_all(jobs)
    return gx


def weight_grad(xp: Any, gyc: Any, kernel: Sequence[int], stride, dil, split: bool = True) -> Any:
    """The weight gradient ``(O, C, kh, kw)`` from the :func:`padded` input and the contiguous
    output gradient ``(O, oh, ow, N)``; ``split``: its maps shared between BLAS's threads,
    else all computed on this one (the same numbers: each map's sums are one call's)."""
    o, oh, ow = gyc.shape[:3]
    rows, cols = (
        tuple(range(0, kernel[0] * dil[0], dil[0])),
        tuple(range(0, kernel[1] * dil[1], dil[1])),
    )
    taps = _taps(xp.shape, rows, cols)
    offs, step = _walk(xp.shape, stride[1], stride[0], ow)
    gw = np.empty((o, xp.shape[0], *kernel), dtype=xp.dtype)
    xp, gyc = aligned(xp), aligned(gyc)
    args = (xp.reshape(-1), gyc.reshape(-1), taps, offs, step, o, oh, gw.reshape(-1))
    if split:
        _threads.run(_compile()["wgrad"], args, o, 4)
    else:
        _compile()["wgrad"](*args, 0, o)
    return gw

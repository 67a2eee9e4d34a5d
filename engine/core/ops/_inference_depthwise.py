"""The test-mode plan's depthwise 2-D convolution loop (explicit SIMD vectors from
:mod:`._simd`), its bias and activation applied to each output vector in its register
(:func:`._inference_simd._finish`), before the one store, instead of in a second pass over the
output.

The sum over the taps is the training forward kernel's (:func:`._depthwise_cpu.forward`: the
same taps in the same order, each a fused multiply-add into the vector, taps in the zero
padding skipped); the bias is added to that sum and then the activation clamps it, as the
plan's separate pass did. Output channels ``[lo, hi)`` only, so the plan's threads share the
channels (:mod:`._inference_cpu`). How many sample vectors a pixel holds picks the loop
(:func:`kernel_for`): exactly four (64 samples with AVX-512) two neighbouring pixels at once,
eight accumulators (:func:`_depthwise_pixels2`); other multiples of four one pixel's four at a
time; exactly two (a split batch's part of 32) two pixels' two (:func:`_depthwise_pairs`);
one or three four vectors across neighbouring pixels (:func:`_depthwise_rows`). Every output
vector gets the same taps in the same order in each: the same bytes whatever the batch.

Module level, not a closure, so numba's disk cache serves them in every process. Arrays are flat
and C-contiguous: x (C, H, W, N), w (C, kh, kw), y (C, Ho, Wo, N); ``geo`` is
(C, H, W, N, kh, kw, Ho, Wo, ph, pw, sh, sw, dh, dw). Imports numba: loaded on first use.
"""

from __future__ import annotations

from typing import Any

import numba

from engine.core.ops import _jit
from engine.core.ops._inference_simd import _finish, _next, _store4
from engine.core.ops._simd import FORCED, LANES, sload, vfma, vload, vstore, vzero

__all__ = ["kernel_for"]


def kernel_for(samples: int) -> Any:
    """The loop for ``samples`` (a whole number of vectors) a pixel. Each is its own compiled
    function, chosen here rather than in a compiled dispatcher, so that a process compiles only
    the loops its batches take (a fresh machine compiled all four in one 12-13 s call)."""
    if samples == 4 * LANES:
        return _depthwise_pixels2
    if samples % (4 * LANES) == 0:
        return _depthwise_pixels
    if samples == 2 * LANES:
        return _depthwise_pairs
    return _depthwise_rows


@_jit.njit(numba, cache=not FORCED)
def _depthwise_pixels(x, w, b, has_bias, act, geo, y, lo, hi):  # pragma: no cover - compiled
    """Batches of 4 vectors and more: each pixel's vectors four at a time."""
    _, h_n, w_n, n_n, kh, kw, ho, wo, ph, pw, sh, sw, dh, dw = geo
    tile = 4 * LANES  # four accumulators per output pixel: each tap's weight read once for 4
    three = kh == 3 and kw == 3
    for c in range(lo, hi):
        xc, wc, bc = c * h_n * w_n * n_n, c * kh * kw, b[c]
        for i in range(ho):
            for j in range(wo):
                out = ((c * ho + i) * wo + j) * n_n
                v = 0
                r0, q0_ = i * sh - ph, j * sw - pw
                inside = three and r0 >= 0 and r0 + 2 * dh < h_n and q0_ >= 0 and q0_ + 2 * dw < w_n
                while inside and v + tile <= n_n:  # a 3x3 window inside the image: no checks
                    p = xc + (r0 * w_n + q0_) * n_n + v
                    acc0 = vzero()
                    acc1 = vzero()
                    acc2 = vzero()
                    acc3 = vzero()
                    for a in range(3):
                        for q0 in range(3):
                            t = sload(w, wc + a * 3 + q0)
                            pa = p + (a * dh * w_n + q0 * dw) * n_n
                            acc0 = vfma(acc0, vload(x, pa), t)
                            acc1 = vfma(acc1, vload(x, pa + LANES), t)
                            acc2 = vfma(acc2, vload(x, pa + 2 * LANES), t)
                            acc3 = vfma(acc3, vload(x, pa + 3 * LANES), t)
                    _store4(y, out + v, acc0, acc1, acc2, acc3, bc, has_bias, act)
                    v += tile
                while v + tile <= n_n:
                    acc0 = vzero()
                    acc1 = vzero()
                    acc2 = vzero()
                    acc3 = vzero()
                    for a in range(kh):
                        r = i * sh + a * dh - ph
                        if r < 0 or r >= h_n:
                            continue  # the window's row lies in the zero padding
                        for q0 in range(kw):
                            q = j * sw + q0 * dw - pw
                            if 0 <= q < w_n:
                                p = xc + (r * w_n + q) * n_n + v
                                t = sload(w, wc + a * kw + q0)
                                acc0 = vfma(acc0, vload(x, p), t)
                                acc1 = vfma(acc1, vload(x, p + LANES), t)
                                acc2 = vfma(acc2, vload(x, p + 2 * LANES), t)
                                acc3 = vfma(acc3, vload(x, p + 3 * LANES), t)
                    vstore(y, out + v, _finish(acc0, bc, has_bias, act))
                    vstore(y, out + v + LANES, _finish(acc1, bc, has_bias, act))
                    vstore(y, out + v + 2 * LANES, _finish(acc2, bc, has_bias, act))
                    vstore(y, out + v + 3 * LANES, _finish(acc3, bc, has_bias, act))
                    v += tile
                while v < n_n:  # the last whole vectors, one at a time
                    acc = vzero()
                    for a in range(kh):
                        r = i * sh + a * dh - ph
                        if r < 0 or r >= h_n:
                            continue
                        for q0 in range(kw):
                            q = j * sw + q0 * dw - pw
                            if 0 <= q < w_n:
                                p = xc + (r * w_n + q) * n_n + v
                                acc = vfma(acc, vload(x, p), sload(w, wc + a * kw + q0))
                    vstore(y, out + v, _finish(acc, bc, has_bias, act))
                    v += LANES


@_jit.njit(numba, cache=not FORCED)
def _depthwise_pixels2(x, w, b, has_bias, act, geo, y, lo, hi):  # pragma: no cover - compiled
    """Batches of exactly 4 vectors: two neighbouring pixels inside the image at once (eight
    accumulators), else :func:`_depthwise_pixels`' per-pixel loops. Same taps, same order."""
    _, h_n, w_n, n_n, kh, kw, ho, wo, ph, pw, sh, sw, dh, dw = geo
    three = kh == 3 and kw == 3
    step = sw * n_n
    for c in range(lo, hi):
        xc, wc, bc = c * h_n * w_n * n_n, c * kh * kw, b[c]
        for i in range(ho):
            r0 = i * sh - ph
            rows_inside = three and r0 >= 0 and r0 + 2 * dh < h_n
            j = 0
            while j < wo:
                q0_ = j * sw - pw
                out = ((c * ho + i) * wo + j) * n_n
                if rows_inside and j + 1 < wo and q0_ >= 0 and q0_ + sw + 2 * dw < w_n:
                    p = xc + (r0 * w_n + q0_) * n_n
                    p2 = p + step
                    a0 = vzero()
                    a1 = vzero()
                    a2 = vzero()
                    a3 = vzero()
                    a4 = vzero()
                    a5 = vzero()
                    a6 = vzero()
                    a7 = vzero()
                    for a in range(3):
                        for q0 in range(3):
                            t = sload(w, wc + a * 3 + q0)
                            d = (a * dh * w_n + q0 * dw) * n_n
                            a0 = vfma(a0, vload(x, p + d), t)
                            a1 = vfma(a1, vload(x, p + d + LANES), t)
                            a2 = vfma(a2, vload(x, p + d + 2 * LANES), t)
                            a3 = vfma(a3, vload(x, p + d + 3 * LANES), t)
                            a4 = vfma(a4, vload(x, p2 + d), t)
                            a5 = vfma(a5, vload(x, p2 + d + LANES), t)
                            a6 = vfma(a6, vload(x, p2 + d + 2 * LANES), t)
                            a7 = vfma(a7, vload(x, p2 + d + 3 * LANES), t)
                    _store4(y, out, a0, a1, a2, a3, bc, has_bias, act)
                    _store4(y, out + n_n, a4, a5, a6, a7, bc, has_bias, act)
                    j += 2
                    continue
                acc0 = vzero()
                acc1 = vzero()
                acc2 = vzero()
                acc3 = vzero()
                for a in range(kh):
                    r = r0 + a * dh
                    if r < 0 or r >= h_n:
                        continue
                    for q0 in range(kw):
                        q = q0_ + q0 * dw
                        if 0 <= q < w_n:
                            pp = xc + (r * w_n + q) * n_n
                            t = sload(w, wc + a * kw + q0)
                            acc0 = vfma(acc0, vload(x, pp), t)
                            acc1 = vfma(acc1, vload(x, pp + LANES), t)
                            acc2 = vfma(acc2, vload(x, pp + 2 * LANES), t)
                            acc3 = vfma(acc3, vload(x, pp + 3 * LANES), t)
                _store4(y, out, acc0, acc1, acc2, acc3, bc, has_bias, act)
                j += 1


@_jit.njit(numba, cache=not FORCED)
def _depthwise_rows(x, w, b, has_bias, act, geo, y, lo, hi):  # pragma: no cover - compiled
    """Batches of 1-3 vectors (a batch of 16, 32 or 48, or a part of a split batch): an output
    row is wo * n_n / LANES vectors stored one after the other, taken four at a time across
    neighbouring pixels (each tap's weight read once for four, as for a larger batch); the
    pixel loop of :func:`_depthwise_pixels` had one vector at a time for them, each tap checked
    (1.3-1.8x slower here). The same taps in the same order for every output: the same bytes."""
    _, h_n, w_n, n_n, kh, kw, ho, wo, ph, pw, sh, sw, dh, dw = geo
    units = wo * (n_n // LANES)
    three = kh == 3 and kw == 3
    for c in range(lo, hi):
        xc, wc, bc = c * h_n * w_n * n_n, c * kh * kw, b[c]
        for i in range(ho):
            r0 = i * sh - ph
            rows_inside = three and r0 >= 0 and r0 + 2 * dh < h_n
            out = (c * ho + i) * wo * n_n
            u, j0, v0 = 0, 0, 0  # vector u of the row: pixel j0, samples from v0
            while u + 4 <= units:
                j1, v1 = _next(j0, v0, n_n)
                j2, v2 = _next(j1, v1, n_n)
                j3, v3 = _next(j2, v2, n_n)
                if rows_inside and j0 * sw - pw >= 0 and j3 * sw - pw + 2 * dw < w_n:
                    # four 3x3 windows inside the image: no checks
                    base = xc + r0 * w_n * n_n - pw * n_n
                    p0 = base + j0 * sw * n_n + v0
                    p1 = base + j1 * sw * n_n + v1
                    p2 = base + j2 * sw * n_n + v2
                    p3 = base + j3 * sw * n_n + v3
                    acc0 = vzero()
                    acc1 = vzero()
                    acc2 = vzero()
                    acc3 = vzero()
                    for a in range(3):
                        for q0 in range(3):
                            t = sload(w, wc + a * 3 + q0)
                            d = (a * dh * w_n + q0 * dw) * n_n
                            acc0 = vfma(acc0, vload(x, p0 + d), t)
                            acc1 = vfma(acc1, vload(x, p1 + d), t)
                            acc2 = vfma(acc2, vload(x, p2 + d), t)
                            acc3 = vfma(acc3, vload(x, p3 + d), t)
                    _store4(y, out + u * LANES, acc0, acc1, acc2, acc3, bc, has_bias, act)
                else:  # a window at the image's edge: each tap checked for each vector
                    acc0 = vzero()
                    acc1 = vzero()
                    acc2 = vzero()
                    acc3 = vzero()
                    for a in range(kh):
                        r = r0 + a * dh
                        if r < 0 or r >= h_n:
                            continue  # the window's row lies in the zero padding
                        row = xc + r * w_n * n_n
                        for q0 in range(kw):
                            t = sload(w, wc + a * kw + q0)
                            q = j0 * sw + q0 * dw - pw
                            if 0 <= q < w_n:
                                acc0 = vfma(acc0, vload(x, row + q * n_n + v0), t)
                            q = j1 * sw + q0 * dw - pw
                            if 0 <= q < w_n:
                                acc1 = vfma(acc1, vload(x, row + q * n_n + v1), t)
                            q = j2 * sw + q0 * dw - pw
                            if 0 <= q < w_n:
                                acc2 = vfma(acc2, vload(x, row + q * n_n + v2), t)
                            q = j3 * sw + q0 * dw - pw
                            if 0 <= q < w_n:
                                acc3 = vfma(acc3, vload(x, row + q * n_n + v3), t)
                    _store4(y, out + u * LANES, acc0, acc1, acc2, acc3, bc, has_bias, act)
                j0, v0 = _next(j3, v3, n_n)
                u += 4
            while u < units:  # the row's last vectors
                _one(x, w, wc, xc, r0, j0, v0, geo, y, out + u * LANES, bc, has_bias, act)
                j0, v0 = _next(j0, v0, n_n)
                u += 1


@_jit.njit(numba, cache=not FORCED)
def _depthwise_pairs(x, w, b, has_bias, act, geo, y, lo, hi):  # pragma: no cover - compiled
    """Batches of two vectors (32 samples with AVX-512: a part of a split batch of 64): two
    neighbouring output pixels' two vectors each, four accumulators, without the row loop's
    bookkeeping of which pixel each vector belongs to. The same taps in the same order: the
    same bytes."""
    _, h_n, w_n, n_n, kh, kw, ho, wo, ph, pw, sh, sw, dh, dw = geo
    three = kh == 3 and kw == 3
    step = sw * n_n  # from one output pixel's window to the next one's
    for c in range(lo, hi):
        xc, wc, bc = c * h_n * w_n * n_n, c * kh * kw, b[c]
        for i in range(ho):
            r0 = i * sh - ph
            rows_inside = three and r0 >= 0 and r0 + 2 * dh < h_n
            out = (c * ho + i) * wo * n_n
            j = 0
            while j + 2 <= wo:
                q0_ = j * sw - pw
                acc0 = vzero()
                acc1 = vzero()
                acc2 = vzero()
                acc3 = vzero()
                if rows_inside and q0_ >= 0 and q0_ + sw + 2 * dw < w_n:
                    p0 = xc + (r0 * w_n + q0_) * n_n  # two 3x3 windows inside: no checks
                    p2 = p0 + step
                    for a in range(3):
                        for q0 in range(3):
                            t = sload(w, wc + a * 3 + q0)
                            d = (a * dh * w_n + q0 * dw) * n_n
                            acc0 = vfma(acc0, vload(x, p0 + d), t)
                            acc1 = vfma(acc1, vload(x, p0 + d + LANES), t)
                            acc2 = vfma(acc2, vload(x, p2 + d), t)
                            acc3 = vfma(acc3, vload(x, p2 + d + LANES), t)
                else:  # a window at the image's edge: each tap checked for each pixel
                    for a in range(kh):
                        r = r0 + a * dh
                        if r < 0 or r >= h_n:
                            continue  # the window's row lies in the zero padding
                        row = xc + r * w_n * n_n
                        for q0 in range(kw):
                            t = sload(w, wc + a * kw + q0)
                            q = q0_ + q0 * dw
                            if 0 <= q < w_n:
                                acc0 = vfma(acc0, vload(x, row + q * n_n), t)
                                acc1 = vfma(acc1, vload(x, row + q * n_n + LANES), t)
                            q += sw
                            if 0 <= q < w_n:
                                acc2 = vfma(acc2, vload(x, row + q * n_n), t)
                                acc3 = vfma(acc3, vload(x, row + q * n_n + LANES), t)
                _store4(y, out + j * n_n, acc0, acc1, acc2, acc3, bc, has_bias, act)
                j += 2
            if j < wo:  # the row's last pixel
                _one(x, w, wc, xc, r0, j, 0, geo, y, out + j * n_n, bc, has_bias, act)
                _one(x, w, wc, xc, r0, j, LANES, geo, y, out + j * n_n + LANES, bc, has_bias, act)


@_jit.njit(numba, cache=not FORCED, inline="always")
def _one(x, w, wc, xc, r0, j, v, geo, y, at, bc, has_bias, act):  # pragma: no cover - compiled
    """One output vector (pixel ``j`` of the row whose window starts at input row ``r0``,
    samples from ``v``) stored at ``y[at:]``, each tap checked."""
    _, h_n, w_n, n_n, kh, kw, _, _, _, pw, _, sw, dh, dw = geo
    acc = vzero()
    for a in range(kh):
        r = r0 + a * dh
        if r < 0 or r >= h_n:
            continue
        for q0 in range(kw):
            q = j * sw + q0 * dw - pw
            if 0 <= q < w_n:
                acc = vfma(acc, vload(x, xc + (r * w_n + q) * n_n + v), sload(w, wc + a * kw + q0))
    vstore(y, at, _finish(acc, bc, has_bias, act))

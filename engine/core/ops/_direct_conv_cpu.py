"""The compiled kernels of :mod:`._direct_conv` (numba, explicit SIMD vectors from
:mod:`._simd`). Imported on first use only: importing numba takes a good fraction of a second.

They live at module level, not in a builder's closure: numba's disk cache keys a closure on its
captured values, and the vector intrinsics pickle differently in every process, so closures
would be recompiled (about 0.7 s) by every process.
"""

from __future__ import annotations

import numba

from engine.core.ops import _jit
from engine.core.ops._simd import FORCED, LANES, sload, vfma, vload, vmuladd, vstore, vsum, vzero

# Shared arguments: xp, the flat padded input (C, Hp, Wp, N); taps[k], the offset in xp of
# kernel tap k = (c, a, b); offs[t], the offset of output vector t within an input row;
# step, the offset between the input rows of consecutive output rows; y / gy, the flat
# output (O, oh, len(offs) * LANES); [o_lo, o_hi), the output maps this call computes.


@_jit.njit(numba)
def pad(x, out, top, left, c_lo, c_hi):  # pragma: no cover - compiled
    # out (C, Hp, Wp, N): x (C, H, W, N), any strides, from row top and column left on,
    # zeros around it; channels [c_lo, c_hi) (one pass over out, where NumPy made five).
    h, w, n = x.shape[1], x.shape[2], x.shape[3]
    hp, wp = out.shape[1], out.shape[2]
    for c in range(c_lo, c_hi):
        for i in range(hp):
            r = i - top
            for j in range(wp):
                col = j - left
                if r < 0 or r >= h or col < 0 or col >= w:
                    for k in range(n):
                        out[c, i, j, k] = 0
                else:
                    for k in range(n):
                        out[c, i, j, k] = x[c, r, col, k]


@_jit.njit(numba, cache=not FORCED)
def pack(wm, wtaps, mstride, o_n, wp):  # pragma: no cover - compiled
    # wp (ceil(O / 4), K, 4) from the weight of map o and tap k, wm[o * mstride + wtaps[k]];
    # maps past O repeat the last one. (A NumPy gather of the same takes 5-10x longer; the
    # four rows' starts found once per tile and read without numba's negative-index checks:
    # 2-3x faster than a loop over d with min() per element, 50 against 144 us for 128x128x3x3.)
    k_n = wtaps.size
    for o0 in range(0, o_n, 4):
        base = (o0 // 4) * k_n * 4
        r0 = o0 * mstride
        r1 = min(o0 + 1, o_n - 1) * mstride
        r2 = min(o0 + 2, o_n - 1) * mstride
        r3 = min(o0 + 3, o_n - 1) * mstride
        for k in range(k_n):
            tap = sload(wtaps, k)
            b = base + k * 4
            wp[b] = sload(wm, r0 + tap)
            wp[b + 1] = sload(wm, r1 + tap)
            wp[b + 2] = sload(wm, r2 + tap)
            wp[b + 3] = sload(wm, r3 + tap)


@_jit.njit(numba, cache=not FORCED)
def conv(xp, wp, taps, offs, step, o_n, oh, y, yw, o_lo, o_hi):  # pragma: no cover - compiled
    # wp: packed weights (ceil(O / 4), K, 4) (see pack). yw: where the outputs go in y,
    # (base, map stride, row stride, then the offset of each output vector t in its row):
    # a contiguous (O, oh, ow, N) y, or a stride phase of a larger (C, H, W, N) one.
    k_n, t_n = taps.size, offs.size
    ybase, ymap, yrow = yw[0], yw[1], yw[2]
    for o0 in range(o_lo, o_hi, 4):
        o1, o2, o3 = min(o0 + 1, o_n - 1), min(o0 + 2, o_n - 1), min(o0 + 3, o_n - 1)
        wbase = (o0 // 4) * k_n * 4
        for i in range(oh):
            for t0 in range(0, t_n, 4):
                t1, t2, t3 = min(t0 + 1, t_n - 1), min(t0 + 2, t_n - 1), min(t0 + 3, t_n - 1)
                p0, p1 = offs[t0] + i * step, offs[t1] + i * step
                p2, p3 = offs[t2] + i * step, offs[t3] + i * step
                a00 = a01 = a02 = a03 = a10 = a11 = a12 = a13 = vzero()
                a20 = a21 = a22 = a23 = a30 = a31 = a32 = a33 = vzero()
                for k in range(k_n):
                    q = taps[k]
                    x0, x1 = vload(xp, q + p0), vload(xp, q + p1)
                    x2, x3 = vload(xp, q + p2), vload(xp, q + p3)
                    wi = wbase + k * 4
                    w0, w1, w2, w3 = wp[wi], wp[wi + 1], wp[wi + 2], wp[wi + 3]
                    a00, a01 = vfma(a00, x0, w0), vfma(a01, x1, w0)
                    a02, a03 = vfma(a02, x2, w0), vfma(a03, x3, w0)
                    a10, a11 = vfma(a10, x0, w1), vfma(a11, x1, w1)
                    a12, a13 = vfma(a12, x2, w1), vfma(a13, x3, w1)
                    a20, a21 = vfma(a20, x0, w2), vfma(a21, x1, w2)
                    a22, a23 = vfma(a22, x2, w2), vfma(a23, x3, w2)
                    a30, a31 = vfma(a30, x0, w3), vfma(a31, x1, w3)
                    a32, a33 = vfma(a32, x2, w3), vfma(a33, x3, w3)
                for o, v0, v1, v2, v3 in (
                    (o0, a00, a01, a02, a03),
                    (o1, a10, a11, a12, a13),
                    (o2, a20, a21, a22, a23),
                    (o3, a30, a31, a32, a33),
                ):
                    out = ybase + o * ymap + i * yrow
                    vstore(y, out + yw[3 + t0], v0)
                    vstore(y, out + yw[3 + t1], v1)
                    vstore(y, out + yw[3 + t2], v2)
                    vstore(y, out + yw[3 + t3], v3)


@_jit.njit(numba, cache=not FORCED)
def wgrad(xp, gy, taps, offs, step, o_n, oh, gw, o_lo, o_hi):  # pragma: no cover - compiled
    # gw: flat (O, K), every entry the sum over output rows, vectors and lanes.
    k_n, t_n = taps.size, offs.size
    row_out = t_n * LANES
    for o0 in range(o_lo, o_hi, 4):
        o1, o2, o3 = min(o0 + 1, o_n - 1), min(o0 + 2, o_n - 1), min(o0 + 3, o_n - 1)
        for k0 in range(0, k_n, 4):
            k1, k2, k3 = min(k0 + 1, k_n - 1), min(k0 + 2, k_n - 1), min(k0 + 3, k_n - 1)
            c0, c1, c2, c3 = taps[k0], taps[k1], taps[k2], taps[k3]
            a00 = a01 = a02 = a03 = a10 = a11 = a12 = a13 = vzero()
            a20 = a21 = a22 = a23 = a30 = a31 = a32 = a33 = vzero()
            for i in range(oh):
                r0, r1 = (o0 * oh + i) * row_out, (o1 * oh + i) * row_out
                r2, r3 = (o2 * oh + i) * row_out, (o3 * oh + i) * row_out
                for t in range(t_n):
                    g = t * LANES
                    g0, g1 = vload(gy, r0 + g), vload(gy, r1 + g)
                    g2, g3 = vload(gy, r2 + g), vload(gy, r3 + g)
                    p = offs[t] + i * step
                    x0, x1 = vload(xp, c0 + p), vload(xp, c1 + p)
                    x2, x3 = vload(xp, c2 + p), vload(xp, c3 + p)
                    a00, a01 = vmuladd(a00, g0, x0), vmuladd(a01, g0, x1)
                    a02, a03 = vmuladd(a02, g0, x2), vmuladd(a03, g0, x3)
                    a10, a11 = vmuladd(a10, g1, x0), vmuladd(a11, g1, x1)
                    a12, a13 = vmuladd(a12, g1, x2), vmuladd(a13, g1, x3)
                    a20, a21 = vmuladd(a20, g2, x0), vmuladd(a21, g2, x1)
                    a22, a23 = vmuladd(a22, g2, x2), vmuladd(a23, g2, x3)
                    a30, a31 = vmuladd(a30, g3, x0), vmuladd(a31, g3, x1)
                    a32, a33 = vmuladd(a32, g3, x2), vmuladd(a33, g3, x3)
            for o, v0, v1, v2, v3 in (
                (o0, a00, a01, a02, a03),
                (o1, a10, a11, a12, a13),
                (o2, a20, a21, a22, a23),
                (o3, a30, a31, a32, a33),
            ):
                gw[o * k_n + k0] = vsum(v0)
                gw[o * k_n + k1] = vsum(v1)
                gw[o * k_n + k2] = vsum(v2)
                gw[o * k_n + k3] = vsum(v3)

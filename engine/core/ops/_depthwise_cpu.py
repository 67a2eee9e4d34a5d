"""The vector kernels of :mod:`._depthwise` for float32 batches that fill whole SIMD vectors
(explicit vectors from :mod:`._simd`, as the direct convolution's). Imported on first use only.

Each output vector is summed in a register over the taps that reach it and stored once: the
forward pass per output pixel, the input gradient per input pixel (the taps whose output row
and column land on the stride grid), the weight gradient per tap over the output pixels whose
window it reads (ranges computed once per tap, no test per pixel). The scalar loops of
:mod:`._depthwise` (which stay for float64 and other batches) instead add into memory for
every (pixel, tap) pair, with an aliasing check per inner loop: 4x slower backward here.

Module level, not a closure, so numba's disk cache serves them in every process (see
:mod:`._direct_conv_cpu`). Arrays are flat and C-contiguous: x (C, H, W, N), w (C, kh, kw),
y and gy (C, Ho, Wo, N); ``geo`` is (C, H, W, N, kh, kw, Ho, Wo, ph, pw, sh, sw, dh, dw).
Each kernel computes the channels ``[lo, hi)``: channels are independent (each output, input
gradient and weight gradient cell is one channel's), so they can be shared between threads
without changing a bit.
"""

from __future__ import annotations

import numba
import numpy as np

from engine.core.ops import _jit
from engine.core.ops._simd import FORCED, LANES, vfma, vload, vmuladd, vstore, vsum, vzero


@_jit.njit(numba, cache=not FORCED)
def forward(x, w, geo, y, lo, hi):  # pragma: no cover - compiled
    c_n, h_n, w_n, n_n, kh, kw, ho, wo, ph, pw, sh, sw, dh, dw = geo
    for c in range(lo, hi):
        xc, wc = c * h_n * w_n * n_n, c * kh * kw
        for i in range(ho):
            for j in range(wo):
                out = ((c * ho + i) * wo + j) * n_n
                for v in range(0, n_n, LANES):
                    acc = vzero()
                    for a in range(kh):
                        r = i * sh + a * dh - ph
                        if r < 0 or r >= h_n:
                            continue  # the window's row lies in the zero padding
                        for b in range(kw):
                            q = j * sw + b * dw - pw
                            if 0 <= q < w_n:
                                acc = vfma(
                                    acc, vload(x, xc + (r * w_n + q) * n_n + v), w[wc + a * kw + b]
                                )
                    vstore(y, out + v, acc)


@_jit.njit(numba, cache=not FORCED)
def _reach(size, k, pad, stride, dil, out_size):  # pragma: no cover - compiled
    # reach[p * k + a]: the output row (or column) whose window reads input row p through
    # kernel offset a, or -1 when none does (off the stride grid or past the output).
    reach = np.full(size * k, -1, dtype=np.int64)
    for p in range(size):
        for a in range(k):
            e = p + pad - a * dil  # = i * stride for the output row i this tap reads
            if e >= 0 and e % stride == 0 and e // stride < out_size:
                reach[p * k + a] = e // stride
    return reach


@_jit.njit(numba, cache=not FORCED)
def input_grad(w, gy, geo, gx, lo, hi):  # pragma: no cover - compiled
    c_n, h_n, w_n, n_n, kh, kw, ho, wo, ph, pw, sh, sw, dh, dw = geo
    rows, cols = _reach(h_n, kh, ph, sh, dh, ho), _reach(w_n, kw, pw, sw, dw, wo)
    for c in range(lo, hi):
        gc, wc = c * ho * wo * n_n, c * kh * kw
        for r in range(h_n):
            for q in range(w_n):
                out = ((c * h_n + r) * w_n + q) * n_n
                for v in range(0, n_n, LANES):
                    acc = vzero()
                    for a in range(kh):
                        i = rows[r * kh + a]
                        if i < 0:
                            continue
                        for b in range(kw):
                            j = cols[q * kw + b]
                            if j >= 0:
                                g = vload(gy, gc + (i * wo + j) * n_n + v)
                                acc = vfma(acc, g, w[wc + a * kw + b])
                    vstore(gx, out + v, acc)


@_jit.njit(numba, cache=not FORCED)
def weight_grad(x, gy, geo, gw, lo, hi):  # pragma: no cover - compiled
    c_n, h_n, w_n, n_n, kh, kw, ho, wo, ph, pw, sh, sw, dh, dw = geo
    for c in range(lo, hi):
        xc, gc = c * h_n * w_n * n_n, c * ho * wo * n_n
        for a in range(kh):
            # Output rows i whose window row r = i * sh + a * dh - ph lies in the image.
            i_lo = max(0, -((a * dh - ph) // sh))
            i_hi = min(ho, (h_n - 1 + ph - a * dh) // sh + 1)
            for b in range(kw):
                j_lo = max(0, -((b * dw - pw) // sw))
                j_hi = min(wo, (w_n - 1 + pw - b * dw) // sw + 1)
                acc0 = vzero()
                acc1 = vzero()
                for i in range(i_lo, i_hi):
                    r = i * sh + a * dh - ph
                    for j in range(j_lo, j_hi):
                        xo = xc + (r * w_n + j * sw + b * dw - pw) * n_n
                        go = gc + (i * wo + j) * n_n
                        for v in range(0, n_n, 2 * LANES):
                            acc0 = vmuladd(acc0, vload(gy, go + v), vload(x, xo + v))
                            if v + LANES < n_n:
                                acc1 = vmuladd(
                                    acc1, vload(gy, go + v + LANES), vload(x, xo + v + LANES)
                                )
                gw[(c * kh + a) * kw + b] = vsum(acc0) + vsum(acc1)

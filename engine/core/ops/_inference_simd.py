"""The test-mode plan's vector loops (explicit SIMD vectors from :mod:`._simd`): the 1x1
convolution (and Affine) loop and max pooling on whole vectors, and the register helpers the
depthwise loop (:mod:`._inference_depthwise`) shares: a layer's bias and activation applied to
each output vector in its register, before the one store, instead of in a second pass over the
output.

Module level, not a closure, so numba's disk cache serves them in every process. Arrays are flat
and C-contiguous: x (C, H, W, N), w (C, kh, kw), y (C, Ho, Wo, N); ``geo`` is
(C, H, W, N, kh, kw, Ho, Wo, ph, pw, sh, sw, dh, dw). Imports numba: loaded on first use.
"""

from __future__ import annotations

from typing import Any

import numba
import numpy as np
from llvmlite import ir
from numba.extending import intrinsic

from engine.core.ops import _jit
from engine.core.ops._simd import (
    _I32,
    _VECTOR,
    FORCED,
    LANES,
    _vtype,
    sload,
    vfma,
    vload,
    vstore,
    vzero,
)

__all__ = ["LANES", "max_pool", "pointwise"]


def _splat(builder: Any, s: Any) -> Any:
    if s.type != ir.FloatType():
        s = builder.fptrunc(s, ir.FloatType())
    lane0 = builder.insert_element(ir.Constant(_VECTOR, ir.Undefined), s, _I32(0))
    zeros = ir.Constant(ir.VectorType(_I32, LANES), [0] * LANES)
    return builder.shuffle_vector(lane0, ir.Constant(_VECTOR, ir.Undefined), zeros)


@intrinsic
def vadd_scalar(typingctx: Any, value: Any, scalar: Any) -> Any:
    """``value + scalar`` (the scalar broadcast to every lane)."""

    def codegen(context: Any, builder: Any, sig: Any, args: Any) -> Any:
        return builder.fadd(args[0], _splat(builder, args[1]))

    return _vtype(value, scalar), codegen


@intrinsic
def vrelu(typingctx: Any, value: Any) -> Any:
    """Each lane ``v`` as ``0 if v < 0 else v``: a NaN stays NaN, as ``np.maximum(v, 0)``."""

    def codegen(context: Any, builder: Any, sig: Any, args: Any) -> Any:
        zero = ir.Constant(_VECTOR, [0.0] * LANES)
        return builder.select(builder.fcmp_ordered("<", args[0], zero), zero, args[0])

    return _vtype(value), codegen


@intrinsic
def vcap(typingctx: Any, value: Any, top: Any) -> Any:
    """Each lane ``v`` as ``top if v > top else v``: a NaN stays NaN, as ``np.clip``."""

    def codegen(context: Any, builder: Any, sig: Any, args: Any) -> Any:
        t = _splat(builder, args[1])
        return builder.select(builder.fcmp_ordered(">", args[0], t), t, args[0])

    return _vtype(value, top), codegen


@intrinsic
def vmax(typingctx: Any, best: Any, value: Any) -> Any:
    """Each lane ``value if value > best or value is NaN else best``: a NaN takes over and
    stays (nothing is greater than it), as the training kernel's max pooling."""

    def codegen(context: Any, builder: Any, sig: Any, args: Any) -> Any:
        best, value = args
        greater = builder.fcmp_ordered(">", value, best)
        nan = builder.fcmp_unordered("uno", value, value)
        return builder.select(builder.or_(greater, nan), value, best)

    return _vtype(best, value), codegen


@_jit.njit(numba, cache=not FORCED, inline="always")
def _finish(acc, bc, has_bias, act):  # pragma: no cover - compiled
    if has_bias:
        acc = vadd_scalar(acc, bc)
    if act:
        acc = vrelu(acc)
        if act == 2:
            acc = vcap(acc, np.float32(6.0))
    return acc


@_jit.njit(numba, cache=not FORCED, inline="always")
def _store4(y, out, q0, q1, q2, q3, bc, has_bias, act):  # pragma: no cover - compiled
    vstore(y, out, _finish(q0, bc, has_bias, act))
    vstore(y, out + LANES, _finish(q1, bc, has_bias, act))
    vstore(y, out + 2 * LANES, _finish(q2, bc, has_bias, act))
    vstore(y, out + 3 * LANES, _finish(q3, bc, has_bias, act))


@_jit.njit(numba, cache=not FORCED, inline="always")
def _store2(y, out, q0, q1, bc, has_bias, act):  # pragma: no cover - compiled
    vstore(y, out, _finish(q0, bc, has_bias, act))
    vstore(y, out + LANES, _finish(q1, bc, has_bias, act))


@_jit.njit(numba, cache=not FORCED, inline="always")
def _next(j, v, n_n):  # pragma: no cover - compiled
    """The pixel and first sample of the vector after (pixel ``j``, samples from ``v``)."""
    v += LANES
    if v == n_n:
        return j + 1, 0
    return j, v


@_jit.njit(numba, cache=not FORCED)
def pointwise(x, w, b, has_bias, act, dims, y, lo, hi):  # pragma: no cover - compiled
    """``y (O, M) = act(w (O, K) @ x (K, M) + b)`` over the column vectors ``[lo, hi)`` (in
    units of LANES columns): tiles of 4 rows x 4 vectors summed in registers over K, the bias
    and activation applied before the one store (a 1x1 convolution on the batch-innermost
    layout, M = H * W * N; an Affine layer's, M = N); the last 1-3 vectors of M in tiles of 8
    rows x 1 vector (a batch of 16-48 samples). Every output is the same sum in the same order
    (one fused multiply-add per k) whatever its tile: the same bytes in any M."""
    k_n, o_n, m_n = dims[0], dims[1], dims[2]
    v = lo * LANES
    end = hi * LANES
    while v < end:
        wide = v + 4 * LANES <= end
        two = not wide and v + 2 * LANES <= end  # a narrow tile of 2 vectors
        o = 0
        while o < o_n:
            if wide and o + 4 <= o_n:
                a00 = vzero()
                a01 = vzero()
                a02 = vzero()
                a03 = vzero()
                a10 = vzero()
                a11 = vzero()
                a12 = vzero()
                a13 = vzero()
                a20 = vzero()
                a21 = vzero()
                a22 = vzero()
                a23 = vzero()
                a30 = vzero()
                a31 = vzero()
                a32 = vzero()
                a33 = vzero()
                for k in range(k_n):
                    p = k * m_n + v
                    x0 = vload(x, p)
                    x1 = vload(x, p + LANES)
                    x2 = vload(x, p + 2 * LANES)
                    x3 = vload(x, p + 3 * LANES)
                    t = sload(w, o * k_n + k)
                    a00 = vfma(a00, x0, t)
                    a01 = vfma(a01, x1, t)
                    a02 = vfma(a02, x2, t)
                    a03 = vfma(a03, x3, t)
                    t = sload(w, (o + 1) * k_n + k)
                    a10 = vfma(a10, x0, t)
                    a11 = vfma(a11, x1, t)
                    a12 = vfma(a12, x2, t)
                    a13 = vfma(a13, x3, t)
                    t = sload(w, (o + 2) * k_n + k)
                    a20 = vfma(a20, x0, t)
                    a21 = vfma(a21, x1, t)
                    a22 = vfma(a22, x2, t)
                    a23 = vfma(a23, x3, t)
                    t = sload(w, (o + 3) * k_n + k)
                    a30 = vfma(a30, x0, t)
                    a31 = vfma(a31, x1, t)
                    a32 = vfma(a32, x2, t)
                    a33 = vfma(a33, x3, t)
                _store4(y, o * m_n + v, a00, a01, a02, a03, b[o], has_bias, act)
                _store4(y, (o + 1) * m_n + v, a10, a11, a12, a13, b[o + 1], has_bias, act)
                _store4(y, (o + 2) * m_n + v, a20, a21, a22, a23, b[o + 2], has_bias, act)
                _store4(y, (o + 3) * m_n + v, a30, a31, a32, a33, b[o + 3], has_bias, act)
                o += 4
            elif not wide and o + 8 <= o_n and v + 2 * LANES <= end:  # 8 rows x 2 vectors
                a0 = vzero()
                a1 = vzero()
                a2 = vzero()
                a3 = vzero()
                a4 = vzero()
                a5 = vzero()
                a6 = vzero()
                a7 = vzero()
                c0 = vzero()
                c1 = vzero()
                c2 = vzero()
                c3 = vzero()
                c4 = vzero()
                c5 = vzero()
                c6 = vzero()
                c7 = vzero()
                for k in range(k_n):
                    x0 = vload(x, k * m_n + v)
                    x1 = vload(x, k * m_n + v + LANES)
                    t = sload(w, o * k_n + k)
                    a0 = vfma(a0, x0, t)
                    c0 = vfma(c0, x1, t)
                    t = sload(w, (o + 1) * k_n + k)
                    a1 = vfma(a1, x0, t)
                    c1 = vfma(c1, x1, t)
                    t = sload(w, (o + 2) * k_n + k)
                    a2 = vfma(a2, x0, t)
                    c2 = vfma(c2, x1, t)
                    t = sload(w, (o + 3) * k_n + k)
                    a3 = vfma(a3, x0, t)
                    c3 = vfma(c3, x1, t)
                    t = sload(w, (o + 4) * k_n + k)
                    a4 = vfma(a4, x0, t)
                    c4 = vfma(c4, x1, t)
                    t = sload(w, (o + 5) * k_n + k)
                    a5 = vfma(a5, x0, t)
                    c5 = vfma(c5, x1, t)
                    t = sload(w, (o + 6) * k_n + k)
                    a6 = vfma(a6, x0, t)
                    c6 = vfma(c6, x1, t)
                    t = sload(w, (o + 7) * k_n + k)
                    a7 = vfma(a7, x0, t)
                    c7 = vfma(c7, x1, t)
                _store2(y, o * m_n + v, a0, c0, b[o], has_bias, act)
                _store2(y, (o + 1) * m_n + v, a1, c1, b[o + 1], has_bias, act)
                _store2(y, (o + 2) * m_n + v, a2, c2, b[o + 2], has_bias, act)
                _store2(y, (o + 3) * m_n + v, a3, c3, b[o + 3], has_bias, act)
                _store2(y, (o + 4) * m_n + v, a4, c4, b[o + 4], has_bias, act)
                _store2(y, (o + 5) * m_n + v, a5, c5, b[o + 5], has_bias, act)
                _store2(y, (o + 6) * m_n + v, a6, c6, b[o + 6], has_bias, act)
                _store2(y, (o + 7) * m_n + v, a7, c7, b[o + 7], has_bias, act)
                o += 8
            elif not wide and o + 8 <= o_n:  # a narrow tile (M of 1-3 vectors): 8 rows
                a0 = vzero()
                a1 = vzero()
                a2 = vzero()
                a3 = vzero()
                a4 = vzero()
                a5 = vzero()
                a6 = vzero()
                a7 = vzero()
                for k in range(k_n):
                    x0 = vload(x, k * m_n + v)
                    a0 = vfma(a0, x0, sload(w, o * k_n + k))
                    a1 = vfma(a1, x0, sload(w, (o + 1) * k_n + k))
                    a2 = vfma(a2, x0, sload(w, (o + 2) * k_n + k))
                    a3 = vfma(a3, x0, sload(w, (o + 3) * k_n + k))
                    a4 = vfma(a4, x0, sload(w, (o + 4) * k_n + k))
                    a5 = vfma(a5, x0, sload(w, (o + 5) * k_n + k))
                    a6 = vfma(a6, x0, sload(w, (o + 6) * k_n + k))
                    a7 = vfma(a7, x0, sload(w, (o + 7) * k_n + k))
                vstore(y, o * m_n + v, _finish(a0, b[o], has_bias, act))
                vstore(y, (o + 1) * m_n + v, _finish(a1, b[o + 1], has_bias, act))
                vstore(y, (o + 2) * m_n + v, _finish(a2, b[o + 2], has_bias, act))
                vstore(y, (o + 3) * m_n + v, _finish(a3, b[o + 3], has_bias, act))
                vstore(y, (o + 4) * m_n + v, _finish(a4, b[o + 4], has_bias, act))
                vstore(y, (o + 5) * m_n + v, _finish(a5, b[o + 5], has_bias, act))
                vstore(y, (o + 6) * m_n + v, _finish(a6, b[o + 6], has_bias, act))
                vstore(y, (o + 7) * m_n + v, _finish(a7, b[o + 7], has_bias, act))
                o += 8
            elif wide:  # one row (the last rows) over the tile's four vectors
                a0 = vzero()
                a1 = vzero()
                a2 = vzero()
                a3 = vzero()
                for k in range(k_n):
                    p = k * m_n + v
                    t = sload(w, o * k_n + k)
                    a0 = vfma(a0, vload(x, p), t)
                    a1 = vfma(a1, vload(x, p + LANES), t)
                    a2 = vfma(a2, vload(x, p + 2 * LANES), t)
                    a3 = vfma(a3, vload(x, p + 3 * LANES), t)
                _store4(y, o * m_n + v, a0, a1, a2, a3, b[o], has_bias, act)
                o += 1
            else:  # one row (the last rows), over the narrow tile's vectors one at a time
                for u in range(v, v + (2 * LANES if two else LANES), LANES):
                    acc = vzero()
                    for k in range(k_n):
                        acc = vfma(acc, vload(x, k * m_n + u), sload(w, o * k_n + k))
                    vstore(y, o * m_n + u, _finish(acc, b[o], has_bias, act))
                o += 1
        v += 4 * LANES if wide else (2 * LANES if two else LANES)


@_jit.njit(numba, cache=not FORCED)
def max_pool(x, geo, y, lo, hi):  # pragma: no cover - compiled
    """2-D max pooling of ``x`` (C, H, W, N) into ``y`` (C, Ho, Wo, N), channels ``[lo, hi)``,
    N whole vectors: each output vector the maximum of its window's input vectors in the
    window's order (cells in the padding never win, a NaN wins and stays), four vectors at
    a time. ``geo`` is (C, H, W, N, kh, kw, Ho, Wo, sh, sw, ph, pw)."""
    _, h_n, w_n, n_n, kh, kw, ho, wo, sh, sw, ph, pw = geo
    units = wo * (n_n // LANES)
    for c in range(lo, hi):
        for i in range(ho):
            out = (c * ho + i) * wo * n_n
            u, j0, v0 = 0, 0, 0
            while u < units:
                four = u + 4 <= units
                j1, v1 = _next(j0, v0, n_n)
                j2, v2 = _next(j1, v1, n_n)
                j3, v3 = _next(j2, v2, n_n)
                b0 = vadd_scalar(vzero(), -np.inf)
                b1 = b0
                b2 = b0
                b3 = b0
                for a in range(kh):
                    r = i * sh + a - ph
                    if r < 0 or r >= h_n:
                        continue  # padded cells (-inf) never win
                    row = (c * h_n + r) * w_n * n_n
                    for b in range(kw):
                        q = j0 * sw + b - pw
                        if 0 <= q < w_n:
                            b0 = vmax(b0, vload(x, row + q * n_n + v0))
                        if four:
                            q = j1 * sw + b - pw
                            if 0 <= q < w_n:
                                b1 = vmax(b1, vload(x, row + q * n_n + v1))
                            q = j2 * sw + b - pw
                            if 0 <= q < w_n:
                                b2 = vmax(b2, vload(x, row + q * n_n + v2))
                            q = j3 * sw + b - pw
                            if 0 <= q < w_n:
                                b3 = vmax(b3, vload(x, row + q * n_n + v3))
                vstore(y, out + u * LANES, b0)
                if four:
                    vstore(y, out + (u + 1) * LANES, b1)
                    vstore(y, out + (u + 2) * LANES, b2)
                    vstore(y, out + (u + 3) * LANES, b3)
                    j0, v0 = _next(j3, v3, n_n)
                    u += 4
                else:
                    j0, v0 = j1, v1
                    u += 1

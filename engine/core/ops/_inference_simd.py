"""The test-mode plan's vector loops (explicit SIMD vectors from :mod:`._simd`): a depthwise 2-D
convolution whose bias and activation are applied to each output vector in its register, before
the one store, instead of in a second pass over the output.

The sum over the taps is the training forward kernel's (:func:`._depthwise_cpu.forward`: the
same taps in the same order, each a fused multiply-add into the vector); the bias is added to
that sum and then the activation clamps it, as the plan's separate pass did. Output channels
``[lo, hi)`` only, so the plan's threads share the channels (:mod:`._inference_cpu`).

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
from engine.core.ops._simd import _I32, _VECTOR, FORCED, LANES, _vtype, vfma, vload, vstore, vzero

__all__ = ["LANES", "depthwise"]


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


@_jit.njit(numba, cache=not FORCED, inline="always")
def _finish(acc, bc, has_bias, act):  # pragma: no cover - compiled
    if has_bias:
        acc = vadd_scalar(acc, bc)
    if act:
        acc = vrelu(acc)
        if act == 2:
            acc = vcap(acc, np.float32(6.0))
    return acc


@_jit.njit(numba, cache=not FORCED)
def depthwise(x, w, b, has_bias, act, geo, y, lo, hi):  # pragma: no cover - compiled
    _, h_n, w_n, n_n, kh, kw, ho, wo, ph, pw, sh, sw, dh, dw = geo
    tile = 4 * LANES  # four accumulators per output pixel: each tap's weight read once for 4
    for c in range(lo, hi):
        xc, wc, bc = c * h_n * w_n * n_n, c * kh * kw, b[c]
        for i in range(ho):
            for j in range(wo):
                out = ((c * ho + i) * wo + j) * n_n
                v = 0
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
                                t = w[wc + a * kw + q0]
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
                                acc = vfma(acc, vload(x, p), w[wc + a * kw + q0])
                    vstore(y, out + v, _finish(acc, bc, has_bias, act))
                    v += LANES

"""Batch normalization's training-mode passes as compiled CPU loops (numba), an optional fast path
beside the ``xp`` kernel of :class:`engine.core.ops.normalization.BatchNormalization`.

Both work on the (kept, reduced) matrix: one row per channel. NumPy needs five passes over the
activation forward and about eight backward (each operation reads and writes whole arrays);
here the forward reads each row twice (mean, then the centred variance: the stable two-pass
algorithm, summed in float64) and writes it once, and the backward reads twice and writes once.
Only NumPy float32/float64 in training mode without ``output_stat``; the rest takes the ``xp``
kernel, which stays the reference (tests compare the two).

The rows (channels) are split between BLAS's threads when they are large enough
(:func:`engine.core.ops._threads.run_rows`): each channel's sums are computed by one thread in
the same order whatever the count, so one and two threads give the same bytes.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

import numpy as np

from engine.core.ops import _jit, _threads
from engine.core.ops._aligned import aligned_empty

# Sums may be reassociated: LLVM then keeps several partial sums in vector lanes instead of one
# serial chain of dependent additions (3x faster; the float64 sums stay far more accurate than
# the float32 data).
_SUMS = {"reassoc", "contract"}


def _build(numba: ModuleType) -> dict[str, Any]:
    """The compiled kernels (built on first use, cached on disk)."""

    @_jit.njit(numba, fastmath=_SUMS)
    def forward(x, gamma, beta, eps, y, mean, inv_std, var, lo, hi):  # pragma: no cover
        m_n = x.shape[1]
        for k in range(lo, hi):
            row = x[k]
            s = 0.0
            for j in range(m_n):
                s += row[j]
            m = s / m_n
            s = 0.0
            for j in range(m_n):
                d = row[j] - m
                s += d * d
            v = s / m_n
            inv = 1.0 / np.sqrt(v + eps)
            a, b = inv * gamma[k], beta[k]
            out = y[k]
            for j in range(m_n):
                out[j] = (row[j] - m) * a + b
            mean[k], var[k], inv_std[k] = m, v, inv

    @_jit.njit(numba, fastmath=_SUMS)
    def backward(x, g, mean, inv_std, gamma, gx, s1s, s2s, want_gx, lo, hi):  # pragma: no cover
        m_n = x.shape[1]
        # Per-row values in x's dtype (a store into this array casts): with float64 ones every
        # element is widened, computed and narrowed again at half the vector width (2x slower).
        coef = np.empty(4, x.dtype)
        for k in range(lo, hi):
            row, grow = x[k], g[k]
            coef[0] = mean[k]
            m = coef[0]
            s1 = 0.0
            s2 = 0.0
            for j in range(m_n):
                s1 += grow[j]
                s2 += grow[j] * (row[j] - m)
            s1s[k], s2s[k] = s1, s2
            if want_gx:
                inv = inv_std[k]
                a = inv * gamma[k]
                b = a * inv * inv * s2 / m_n
                coef[1], coef[2] = a, b
                af, bf = coef[1], coef[2]
                # from the rounded factor: where every gradient of a row is equal (a batch of
                # one), af * g - df is then exactly 0, as the float64 version gave
                coef[3] = af * s1 / m_n
                df = coef[3]
                out = gx[k]
                for j in range(m_n):
                    out[j] = af * grow[j] - bf * (row[j] - m) - df

    @_jit.njit(numba, fastmath=_SUMS)
    def backward_relu(x, g, y, mean, inv_std, gamma, gx, s1s, s2s, lo, hi):  # pragma: no cover
        # backward with g * (y > 0) for g: the gradient of relu(y), y this layer's output, as
        # relu_grad computes it (gz * 1 or gz * 0 in x's dtype: nan and inf give nan), taken
        # here in both passes where a ReLU pass wrote it out and both passes read it back.
        m_n = x.shape[1]
        coef = np.empty(6, x.dtype)
        coef[4], coef[5] = 1.0, 0.0
        one, zero = coef[4], coef[5]
        for k in range(lo, hi):
            row, grow, yrow = x[k], g[k], y[k]
            coef[0] = mean[k]
            m = coef[0]
            s1 = 0.0
            s2 = 0.0
            for j in range(m_n):
                gv = grow[j] * (one if yrow[j] > 0 else zero)
                s1 += gv
                s2 += gv * (row[j] - m)
            s1s[k], s2s[k] = s1, s2
            inv = inv_std[k]
            a = inv * gamma[k]
            b = a * inv * inv * s2 / m_n
            coef[1], coef[2] = a, b
            af, bf = coef[1], coef[2]
            coef[3] = af * s1 / m_n
            df = coef[3]
            out = gx[k]
            for j in range(m_n):
                gv = grow[j] * (one if yrow[j] > 0 else zero)
                out[j] = af * gv - bf * (row[j] - m) - df

    @_jit.njit(numba)
    def normalize(x, mean, scale, beta, y, lo, hi):  # pragma: no cover - compiled
        # No fastmath: the same float operations as NumPy's (x - mean) * scale + beta.
        m_n = x.shape[1]
        for k in range(lo, hi):
            row, out, m, a, b = x[k], y[k], mean[k], scale[k], beta[k]
            for j in range(m_n):
                out[j] = (row[j] - m) * a + b

    return dict(
        forward=forward, backward=backward, backward_relu=backward_relu, normalize=normalize
    )


_compile = _jit.kernels(_build)


def applies(x2: Any, batch_stat: bool, output_stat: bool) -> bool:
    return (
        batch_stat
        and not output_stat
        and type(x2) is np.ndarray
        and x2.dtype in (np.float32, np.float64)
        and x2.shape[1] > 0
        and _compile() is not None
    )


def normalize_applies(x2: Any) -> bool:
    """Test mode (running statistics) with no gradient wanted: :func:`normalize` serves it."""
    return (
        type(x2) is np.ndarray and x2.dtype in (np.float32, np.float64) and (_compile() is not None)
    )


def normalize(x2: Any, mean: Any, scale: Any, beta: Any) -> Any:
    """``(x2 - mean) * scale + beta`` of a (K, M) matrix with per-row (K, 1) values (beta may
    be None) in one pass, each element computed as NumPy would compute it (bit for bit)."""
    x2 = np.ascontiguousarray(x2)
    k, dtype = x2.shape[0], x2.dtype
    y = np.empty_like(x2)
    rows = (_per_row(a, k, 0.0, dtype) for a in (mean, scale, beta))
    _threads.run_rows(_compile()["normalize"], (x2, *rows, y), k, x2.size)
    return y


def _per_row(p: Any, k: int, fill: float, dtype: Any) -> Any:
    return np.full(k, fill, dtype) if p is None else np.ascontiguousarray(p.reshape(k), dtype)


def forward(x2: Any, gamma: Any, beta: Any, eps: float):
    """``(y2, mean, var, inv_std, stats)`` of a (K, M) matrix; statistics as (K, 1) arrays of
    x's dtype, and ``stats`` the float64 mean and 1/std rows the backward reuses."""
    x2 = np.ascontiguousarray(x2)
    k, dtype = x2.shape[0], x2.dtype
    y = np.empty_like(x2)
    stats = np.empty((3, k), dtype=np.float64)
    g, b = _per_row(gamma, k, 1.0, dtype), _per_row(beta, k, 0.0, dtype)
    args = (x2, g, b, eps, y, stats[0], stats[1], stats[2])
    _threads.run_rows(_compile()["forward"], args, k, 2 * x2.size)
    mean, inv_std, var = stats.astype(dtype).reshape(3, k, 1)
    return y, mean, var, inv_std, stats[:2]


def backward(x2: Any, g2: Any, stats: Any, gamma: Any, want_gx: bool, relu_of: Any = None):
    """``(gx2 or None, sum(g), sum(g * (x - mean)))`` per row, the sums as (K, 1);
    ``stats`` from :func:`forward`. With ``relu_of`` (this layer's output y2, as a (K, M)
    matrix) ``g2`` is the gradient of ``relu(y2)`` and ``g2 * (y2 > 0)`` is taken for it,
    the same numbers as ReLU's own gradient pass gives, without writing them out."""
    x2, g2 = np.ascontiguousarray(x2), np.ascontiguousarray(g2, dtype=x2.dtype)
    k, dtype = x2.shape[0], x2.dtype
    # Aligned: this is the output gradient of the convolution before, whose kernels want it so.
    gx = aligned_empty(x2.shape, dtype) if want_gx else np.empty((k, 1), dtype)
    sums = np.empty((2, k), dtype=np.float64)
    g = _per_row(gamma, k, 1.0, dtype)
    if relu_of is not None and want_gx:
        y2 = np.ascontiguousarray(relu_of, dtype=dtype)
        args = (x2, g2, y2, stats[0], stats[1], g, gx, sums[0], sums[1])
        _threads.run_rows(_compile()["backward_relu"], args, k, 3 * x2.size)
    else:
        if relu_of is not None:  # no gx wanted: only the sums, from the masked gradient
            with np.errstate(invalid="ignore"):  # inf * 0 is nan, as in ReLU's pass
                g2 = np.where(relu_of > 0, g2, g2 * dtype.type(0))
        args = (x2, g2, stats[0], stats[1], g, gx, sums[0], sums[1], want_gx)
        _threads.run_rows(_compile()["backward"], args, k, 2 * x2.size)
    s1, s2 = sums.astype(dtype).reshape(2, k, 1)
    return (gx if want_gx else None), s1, s2

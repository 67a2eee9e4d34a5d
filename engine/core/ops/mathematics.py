"""Math layers: reductions, scans, log/exp, sign, batched linear algebra and rounding.

Functions and arguments follow nnabla (``F.sum(x, axis=None, keepdims=False)``,
``F.cumsum(x, axis=0, exclusive=False, reverse=False)``, ``F.batch_matmul(a, b, transpose_a,
transpose_b)``...). Axes count the batch axis, as in nnabla; NNC's batch-free ``Axes`` property is
translated by the compiler, not here. :class:`Elementwise` is the shared base of the one-input
element-wise kernels (also used by the activation and trigonometric modules).

nnabla's names ``sum``, ``max``, ``min`` and ``round`` shadow Python's builtins in this module:
code here must not call the builtins.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from engine.core.autograd import Function, Variable
from engine.core.backend import get_array_module, matmul

__all__ = [
    "sum", "cumsum", "mean", "prod", "cumprod", "max", "min", "norm", "log", "exp", "sign",
    "batch_matmul", "batch_inv", "batch_det", "batch_logdet", "round", "ceil", "floor",
]  # fmt: skip


class Elementwise(Function):
    """``y = f(x)`` element-wise; subclasses define ``f(xp, x)`` and ``df(xp, x, y, gy)``.

    ``df`` returns the input gradient; it may use the saved input ``x`` and output ``y``.
    """

    def forward(self, x):
        self.x = x
        self.y = self.f(get_array_module(x), x)
        return self.y

    def backward(self, gy):
        return self.df(get_array_module(gy), self.x, self.y, gy)

    def f(self, xp, x):
        raise NotImplementedError

    def df(self, xp, x, y, gy):
        raise NotImplementedError


def normalize_axes(fn: str, axis: Any, ndim: int) -> tuple[int, ...]:
    """nnabla's ``axis`` (None = all, an int or a sequence) as sorted non-negative axes."""
    if axis is None:
        return tuple(range(ndim))
    items = [axis] if isinstance(axis, (int, np.integer)) else list(axis)
    out = []
    for a in items:
        if not -ndim <= int(a) < ndim:
            raise ValueError(
                f"{fn}: axis {a} is out of range for a {ndim}-dim input. Received: axis={axis}"
            )
        out.append(int(a) % ndim)
    if len(set(out)) != len(out):
        raise ValueError(f"{fn}: repeated axis. Received: axis={axis}")
    return tuple(sorted(out))


def normalize_axis(fn: str, axis: int, ndim: int) -> int:
    """One axis (negative counts from the end) checked against ``ndim``."""
    return normalize_axes(fn, int(axis), ndim)[0]


def _kept_shape(shape: tuple[int, ...], axes: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(1 if i in axes else n for i, n in enumerate(shape))


def _reduced_last(x, axes: tuple[int, ...]):
    """``x`` with the reduced axes moved last and flattened into one: shape (outer..., K).

    Returns the array and the permutation, so :func:`_restore` can undo it (nnabla's Max/Prod
    use the same layout; Max's index counts along that flattened axis).
    """
    keep = tuple(i for i in range(x.ndim) if i not in axes)
    perm = keep + axes
    outer = tuple(x.shape[i] for i in keep)
    return x.transpose(perm).reshape(outer + (-1,)), perm


def _restore(g, perm: tuple[int, ...], shape: tuple[int, ...]):
    g = g.reshape(tuple(shape[p] for p in perm))
    return g.transpose(tuple(int(i) for i in np.argsort(perm)))


class Sum(Function):
    def __init__(self, axes: tuple[int, ...], keepdims: bool) -> None:
        self.axes, self.keepdims = axes, keepdims

    def forward(self, x):
        self.shape = x.shape
        return x.sum(axis=self.axes, keepdims=self.keepdims)

    def backward(self, gy):
        xp = get_array_module(gy)
        g = gy.reshape(_kept_shape(self.shape, self.axes))
        return xp.broadcast_to(g, self.shape).copy()


class Mean(Sum):
    def forward(self, x):
        self.count = int(np.prod([x.shape[a] for a in self.axes]))
        return super().forward(x) / x.dtype.type(self.count)

    def backward(self, gy):
        return super().backward(gy / gy.dtype.type(self.count))


def _exclusive_cumprod(x, reverse: bool = False):
    """Product of the elements before (or after, ``reverse``) each one along the last axis."""
    xp = get_array_module(x)
    if reverse:
        return xp.flip(_exclusive_cumprod(xp.flip(x, -1)), -1)
    ones = xp.ones(x.shape[:-1] + (1,), dtype=x.dtype)
    return xp.cumprod(xp.concatenate([ones, x[..., :-1]], axis=-1), axis=-1)


class Prod(Sum):
    """Product reduction. The gradient of x_i is the product of the *other* elements, taken as
    (product before i) x (product after i), so it stays exact when inputs contain zeros (nnabla
    divides y by x_i and is inaccurate there)."""

    def forward(self, x):
        self.x = x
        return x.prod(axis=self.axes, keepdims=self.keepdims)

    def backward(self, gy):
        flat, perm = _reduced_last(self.x, self.axes)
        others = _exclusive_cumprod(flat) * _exclusive_cumprod(flat, reverse=True)
        g = others * gy.reshape(flat.shape[:-1] + (1,))
        return _restore(g, perm, self.x.shape)


class _ArgReduce(Function):
    """Max/Min over axes: the gradient goes to the first extreme element, as in nnabla."""

    pick = "argmax"

    def __init__(self, axes: tuple[int, ...], keepdims: bool, with_index: bool, only_index: bool):
        self.axes, self.keepdims = axes, keepdims
        self.with_index, self.only_index = with_index, only_index

    def forward(self, x):
        xp = get_array_module(x)
        flat, self.perm = _reduced_last(x, self.axes)
        self.shape, self.k = x.shape, flat.shape[-1]
        self.index = getattr(xp, self.pick)(flat, axis=-1)
        out_shape = _kept_shape(x.shape, self.axes) if self.keepdims else flat.shape[:-1]
        index = self.index.astype(xp.int64).reshape(out_shape)
        if self.only_index:
            return index
        y = xp.take_along_axis(flat, self.index[..., None], axis=-1).reshape(out_shape)
        return (y, index) if self.with_index else y

    def backward(self, gy, gindex=None):
        if self.only_index:
            return None
        xp = get_array_module(gy)
        hit = xp.arange(self.k) == self.index[..., None]
        g = hit * gy.reshape(self.index.shape + (1,))
        return _restore(g, self.perm, self.shape)


class Max(_ArgReduce):
    pick = "argmax"


class Min(_ArgReduce):
    pick = "argmin"


class Norm(Sum):
    """(sum |x|^p)^(1/p) over axes. Where the norm is 0 the gradient is 0 (a subgradient)."""

    def __init__(self, p: float, axes: tuple[int, ...], keepdims: bool) -> None:
        super().__init__(axes, keepdims)
        self.p = float(p)

    def forward(self, x):
        xp = get_array_module(x)
        self.x = x
        s = (xp.abs(x) ** self.p).sum(axis=self.axes, keepdims=True)
        self.y = s ** (1.0 / self.p)
        if self.keepdims:
            return self.y
        return self.y.reshape(tuple(n for i, n in enumerate(x.shape) if i not in self.axes))

    def backward(self, gy):
        xp = get_array_module(gy)
        x, y, p = self.x, self.y, self.p
        safe = xp.where(y > 0, y, xp.ones((), y.dtype))
        scale = xp.where(y > 0, gy.reshape(y.shape) * safe ** (1.0 - p), xp.zeros((), y.dtype))
        return scale * xp.sign(x) * xp.abs(x) ** (p - 1.0)


def _scan_prepare(x, axis: int, exclusive: bool, reverse: bool, fill: float):
    """Turn an exclusive and/or reverse scan into a forward inclusive one along the last axis."""
    xp = get_array_module(x)
    x = xp.moveaxis(x, axis, -1)
    if reverse:
        x = xp.flip(x, -1)
    if exclusive:
        pad = xp.full(x.shape[:-1] + (1,), fill, dtype=x.dtype)
        x = xp.concatenate([pad, x[..., :-1]], axis=-1)
    return x


def _scan_finish(y, axis: int, reverse: bool):
    xp = get_array_module(y)
    if reverse:
        y = xp.flip(y, -1)
    return xp.moveaxis(y, -1, axis)


def _scan_unprepare(gz, axis: int, exclusive: bool, reverse: bool):
    """The input gradient from the gradient of the prepared array (inverse of _scan_prepare)."""
    xp = get_array_module(gz)
    if exclusive:  # x[k] fed z[k + 1]; the last x fed nothing
        gz = xp.concatenate([gz[..., 1:], xp.zeros_like(gz[..., :1])], axis=-1)
    if reverse:
        gz = xp.flip(gz, -1)
    return xp.moveaxis(gz, -1, axis)


def _cumsum(x, axis: int, exclusive: bool, reverse: bool):
    z = _scan_prepare(x, axis, exclusive, reverse, 0.0)
    return _scan_finish(get_array_module(x).cumsum(z, axis=-1), axis, reverse)


class CumSum(Function):
    def __init__(self, axis: int, exclusive: bool, reverse: bool) -> None:
        self.axis, self.exclusive, self.reverse = axis, exclusive, reverse

    def forward(self, x):
        return _cumsum(x, self.axis, self.exclusive, self.reverse)

    def backward(self, gy):
        # The transpose of a forward scan is the same scan run the other way.
        return _cumsum(gy, self.axis, self.exclusive, not self.reverse)


class CumProd(Function):
    """Cumulative product. The gradient is exact also where inputs are 0 (see backward)."""

    def __init__(self, axis: int, exclusive: bool, reverse: bool) -> None:
        self.axis, self.exclusive, self.reverse = axis, exclusive, reverse

    def forward(self, x):
        xp = get_array_module(x)
        self.z = _scan_prepare(x, self.axis, self.exclusive, self.reverse, 1.0)
        self.y = xp.cumprod(self.z, axis=-1)
        return _scan_finish(self.y, self.axis, self.reverse)

    def backward(self, gy):
        xp = get_array_module(gy)
        z, y = self.z, self.y
        g = xp.moveaxis(gy, self.axis, -1)
        g = xp.flip(g, -1) if self.reverse else g
        if not bool((z == 0).any()):
            # g_z[i] = sum_{j >= i} gy[j] y[j] / z[i]
            gz = xp.flip(xp.cumsum(xp.flip(g * y, -1), axis=-1), -1) / z
        else:
            # Without division: s[i] = gy[i] + z[i+1] s[i+1]; g_z[i] = s[i] * prod_{k<i} z[k].
            s = xp.empty_like(g)
            s[..., -1] = g[..., -1]
            for i in range(z.shape[-1] - 2, -1, -1):
                s[..., i] = g[..., i] + z[..., i + 1] * s[..., i + 1]
            gz = s * _exclusive_cumprod(z)
        return _scan_unprepare(gz, self.axis, self.exclusive, self.reverse)


class Log(Elementwise):
    def f(self, xp, x):
        return xp.log(x)

    def df(self, xp, x, y, gy):
        return gy / x


class Exp(Elementwise):
    def f(self, xp, x):
        return xp.exp(x)

    def df(self, xp, x, y, gy):
        return gy * y


class Sign(Elementwise):
    """sign(x) with ``alpha`` at 0; straight-through (identity) gradient, as nnabla."""

    def __init__(self, alpha: float) -> None:
        self.alpha = alpha

    def f(self, xp, x):
        return xp.where(x == 0, x.dtype.type(self.alpha), xp.sign(x))

    def df(self, xp, x, y, gy):
        return gy


class Round(Elementwise):
    """Round half away from zero (C ``round``), straight-through gradient."""

    def f(self, xp, x):
        t = xp.trunc(x)
        # x - trunc(x) is exact, so the 0.5 test does not suffer from adding 0.5 first.
        return t + xp.sign(x) * (xp.abs(x - t) >= 0.5)

    def df(self, xp, x, y, gy):
        return gy


class Ceil(Round):
    def f(self, xp, x):
        return xp.ceil(x)


class Floor(Round):
    def f(self, xp, x):
        return xp.floor(x)


def _swap(a):
    return get_array_module(a).swapaxes(a, -1, -2)


class BatchMatmul(Function):
    def __init__(self, transpose_a: bool, transpose_b: bool) -> None:
        self.transpose_a, self.transpose_b = transpose_a, transpose_b

    def forward(self, a, b):
        if a.ndim < 2 or b.ndim < 2:
            raise ValueError(
                f"batch_matmul: a and b need >= 2 dims. Received: a.shape={a.shape}, "
                f"b.shape={b.shape}"
            )
        self.a = _swap(a) if self.transpose_a else a
        self.b = _swap(b) if self.transpose_b else b
        if self.a.shape[-1] != self.b.shape[-2]:
            raise ValueError(
                f"batch_matmul: inner sizes differ ({self.a.shape[-1]} vs {self.b.shape[-2]}). "
                f"Received: a.shape={a.shape}, b.shape={b.shape}, transpose_a={self.transpose_a}, "
                f"transpose_b={self.transpose_b}"
            )
        return matmul(self.a, self.b)

    def backward(self, gy):
        na, nb = self.needs_input_grad
        ga = gb = None
        if na:
            ga = matmul(gy, _swap(self.b))
            ga = _swap(ga) if self.transpose_a else ga
        if nb:
            gb = matmul(_swap(self.a), gy)
            gb = _swap(gb) if self.transpose_b else gb
        return ga, gb  # broadcast batch axes are summed back by the autograd walker


def _check_square(fn: str, x) -> None:
    if x.ndim < 2 or x.shape[-1] != x.shape[-2]:
        raise ValueError(
            f"{fn}: expected a batch of square matrices (..., n, n). Received: x.shape={x.shape}"
        )


class BatchInv(Function):
    def forward(self, x):
        _check_square("batch_inv", x)
        self.y = get_array_module(x).linalg.inv(x)
        return self.y

    def backward(self, gy):
        yt = _swap(self.y)
        return -(yt @ gy @ yt)


class BatchDet(Function):
    """det(X) per matrix; the gradient det(X) X^-T needs an invertible X (NaN/inf otherwise)."""

    def forward(self, x):
        _check_square("batch_det", x)
        self.x = x
        self.y = get_array_module(x).linalg.det(x)
        return self.y

    def backward(self, gy):
        xp = get_array_module(gy)
        return (gy * self.y)[..., None, None] * _swap(xp.linalg.inv(self.x))


class BatchLogdet(Function):
    """log |det X| per matrix (nnabla ``batch_logdet``); gradient X^-T."""

    def forward(self, x):
        _check_square("batch_logdet", x)
        self.x = x
        return get_array_module(x).linalg.slogdet(x)[1].astype(x.dtype, copy=False)

    def backward(self, gy):
        xp = get_array_module(gy)
        return gy[..., None, None] * _swap(xp.linalg.inv(self.x))


def ndim_of(x) -> int:
    """Rank of a Variable or array (for argument checks before the Function runs)."""
    return x.ndim if isinstance(x, Variable) else np.ndim(x)


# ruff: noqa: A001  (nnabla's names shadow Python builtins on purpose: F.sum, F.max, F.round...)
def sum(x, axis=None, keepdims: bool = False) -> Variable:
    """nnabla ``F.sum``: sum over ``axis`` (None = all axes, batch axis included)."""
    return Sum(normalize_axes("sum", axis, ndim_of(x)), keepdims)(x)


def mean(x, axis=None, keepdims: bool = False) -> Variable:
    """nnabla ``F.mean``."""
    return Mean(normalize_axes("mean", axis, ndim_of(x)), keepdims)(x)


def prod(x, axis=None, keepdims: bool = False) -> Variable:
    """nnabla ``F.prod``; the gradient is exact also for zero inputs (unlike nnabla's)."""
    return Prod(normalize_axes("prod", axis, ndim_of(x)), keepdims)(x)


def max(x, axis=None, keepdims: bool = False, with_index: bool = False, only_index: bool = False):
    """nnabla ``F.max``. The index (int64) counts along the reduced axes flattened in C order.

    Returns the values, ``(values, index)`` with ``with_index``, or only the index with
    ``only_index`` (no gradient).
    """
    return Max(normalize_axes("max", axis, ndim_of(x)), keepdims, with_index, only_index)(x)


def min(x, axis=None, keepdims: bool = False, with_index: bool = False, only_index: bool = False):
    """nnabla ``F.min``; see :func:`max`."""
    return Min(normalize_axes("min", axis, ndim_of(x)), keepdims, with_index, only_index)(x)


def norm(x, p: float | None = None, axis=None, keepdims: bool = False) -> Variable:
    """nnabla ``F.norm``: the Lp norm over ``axis`` (p None = 2; an empty axis list = all axes)."""
    p = 2.0 if p is None else float(p)
    if p <= 0:
        raise ValueError(f"norm: p must be positive. Received: p={p}")
    if axis is not None and not isinstance(axis, (int, np.integer)) and len(axis) == 0:
        axis = None
    return Norm(p, normalize_axes("norm", axis, ndim_of(x)), keepdims)(x)


def cumsum(x, axis: int = 0, exclusive: bool = False, reverse: bool = False) -> Variable:
    """nnabla ``F.cumsum``."""
    return CumSum(normalize_axis("cumsum", axis, ndim_of(x)), exclusive, reverse)(x)


def cumprod(x, axis: int = 0, exclusive: bool = False, reverse: bool = False) -> Variable:
    """nnabla ``F.cumprod``; the gradient is exact also for zero inputs (unlike nnabla's)."""
    return CumProd(normalize_axis("cumprod", axis, ndim_of(x)), exclusive, reverse)(x)


def log(x) -> Variable:
    return Log()(x)


def exp(x) -> Variable:
    return Exp()(x)


def sign(x, alpha: float = 1.0) -> Variable:
    """nnabla ``F.sign``: ``alpha`` at 0 (NNC's Sign layer defaults to 0.0); identity gradient."""
    return Sign(alpha)(x)


def round(x) -> Variable:
    """Round half away from zero; straight-through gradient."""
    return Round()(x)


def ceil(x) -> Variable:
    return Ceil()(x)


def floor(x) -> Variable:
    return Floor()(x)


def batch_matmul(a, b, transpose_a: bool = False, transpose_b: bool = False) -> Variable:
    """nnabla ``F.batch_matmul``: (..., P, Q) @ (..., Q, R), size-1 batch axes broadcast."""
    return BatchMatmul(transpose_a, transpose_b)(a, b)


def batch_inv(x) -> Variable:
    """Inverse of each (n, n) matrix of a (..., n, n) batch."""
    return BatchInv()(x)


def batch_det(x) -> Variable:
    """Determinant of each matrix: (..., n, n) -> (...)."""
    return BatchDet()(x)


def batch_logdet(x) -> Variable:
    """log |det| of each matrix: (..., n, n) -> (...)."""
    return BatchLogdet()(x)

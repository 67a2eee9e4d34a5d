"""Loss layers (NNC category Loss): nnabla ``squared_error``, ``softmax_cross_entropy``, ...

Every loss returns per-element values (per label position for the categorical losses, per sample for
``kl_multinomial``); the trainer takes the mean (docs/nnc-behaviour.md §6.1). The numerics
follow nnabla's CPU kernels (``src/nbla/function/generic/<name>.cpp``,
``include/nbla/function/<name>.hpp``):

* logarithms of probabilities are clipped at the smallest normal number of the dtype, as nnabla's
  ``std::max(p, numeric_limits<T>::min())``;
* sigmoid and softmax cross entropies work on logits with the log-sum-exp form, so large logits
  never overflow;
* categorical labels are integer class indices with size 1 on ``axis`` (float label arrays from a
  dataset are truncated to int); ``categorical_cross_entropy`` and ``softmax_cross_entropy`` give
  0 loss and no gradient where the label is negative (nnabla's "ignore label" convention).

Targets are cast to the prediction's dtype, so float32 predictions give float32 losses whatever the
dataset's dtype.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from engine.core import backend
from engine.core.autograd import Function, Variable
from engine.core.backend import get_array_module

__all__ = [
    "squared_error", "absolute_error", "huber_loss", "epsilon_insensitive_loss",
    "binary_cross_entropy", "sigmoid_cross_entropy", "categorical_cross_entropy",
    "softmax_cross_entropy", "kl_multinomial",
]  # fmt: skip


def _tiny(a: Any) -> Any:
    """The smallest normal number of ``a``'s float dtype (nnabla's ``numeric_limits<T>::min()``)."""
    return a.dtype.type(np.finfo(a.dtype).tiny)


def _as_dtype_of(t: Any, x: Any) -> Any:
    return t if t.dtype == x.dtype else t.astype(x.dtype)


def _float_dtype(x: Any, fname: str) -> None:
    if not np.issubdtype(x.dtype, np.floating):
        raise TypeError(f"{fname}: x must be a floating-point array. Received: x.dtype={x.dtype}")


def refine_axis(axis: int | None, ndim: int, fname: str) -> int:
    """nnabla's default ``axis=None`` means the last axis; negative axes count from the end."""
    if axis is None:
        return ndim - 1
    a = int(axis) + ndim if int(axis) < 0 else int(axis)
    if not 0 <= a < ndim:
        raise ValueError(f"{fname}: axis out of range for a {ndim}-D input. Received: axis={axis}")
    return a


def label_index(x: Any, target: Any, axis: int, fname: str, ignore_negative: bool):
    """Check a class-index label against ``x`` and return ``(index, valid)`` as int arrays.

    ``target`` has ``x``'s shape with size 1 on ``axis`` (NNC ``*SoftmaxLabelShape``). ``index``
    has negative labels replaced by 0 and ``valid`` marks the labels that count (None when all do).
    Labels >= the number of classes are an error (nnabla reads out of bounds there).
    """
    xp = get_array_module(x)
    expected = x.shape[:axis] + (1,) + x.shape[axis + 1 :]
    if tuple(target.shape) != expected:
        raise ValueError(
            f"{fname}: target must have the shape of x with size 1 on axis {axis}, "
            f"i.e. {expected}. Received: target.shape={tuple(target.shape)}, x.shape={x.shape}"
        )
    index = target.astype(np.int64) if target.dtype != np.int64 else target
    n_classes = x.shape[axis]
    if index.size:  # checked without a host sync on a device (reported at the next read-back)
        top = index.max()
        backend.check_later(
            top >= n_classes,
            lambda: ValueError(
                f"{fname}: labels must be < {n_classes} (the size of axis {axis} of x). "
                f"Received: max label {int(top)}"
            ),
        )
    if xp is not np:  # a bad label is reported later: meanwhile read a valid class
        index = xp.minimum(index, n_classes - 1)
    negative = index < 0
    if xp is np and not negative.any():
        return index, None
    if not ignore_negative:
        low = index.min()
        backend.check_later(
            low < 0,
            lambda: ValueError(f"{fname}: labels must be >= 0. Received: min label {int(low)}"),
        )
        return index, None
    return xp.where(negative, 0, index), ~negative


def _one_hot(shape: tuple[int, ...], index: Any, axis: int) -> Any:
    """Boolean mask of ``shape``, True at the labelled class (broadcast comparison, no scatter)."""
    xp = get_array_module(index)
    classes = [1] * len(shape)
    classes[axis] = shape[axis]
    return xp.arange(shape[axis]).reshape(classes) == index


class SquaredError(Function):
    def forward(self, x0, x1):
        self.d = x0 - _as_dtype_of(x1, x0)
        return self.d * self.d

    def backward(self, gy):
        g = gy * self.d * gy.dtype.type(2)
        n0, n1 = self.needs_input_grad
        return (g if n0 else None), (-g if n1 else None)


class AbsoluteError(Function):
    def forward(self, x0, x1):
        xp = get_array_module(x0)
        d = x0 - _as_dtype_of(x1, x0)
        self.positive = d > 0
        return xp.abs(d)

    def backward(self, gy):
        xp = get_array_module(gy)
        g = xp.where(self.positive, gy, -gy)  # nnabla: d == 0 gives -dy for x0
        n0, n1 = self.needs_input_grad
        return (g if n0 else None), (-g if n1 else None)


class HuberLoss(Function):
    def __init__(self, delta: float) -> None:
        self.delta = delta

    def forward(self, x0, x1):
        xp = get_array_module(x0)
        d = x0 - _as_dtype_of(x1, x0)
        a = xp.abs(d)
        delta = x0.dtype.type(self.delta)
        self.d, self.small = d, a < delta
        return xp.where(self.small, d * d, delta * (2 * a - delta))

    def backward(self, gy):
        xp = get_array_module(gy)
        sign = (self.d > 0).astype(gy.dtype) * 2 - 1  # nnabla: d == 0 counts as negative
        slope = xp.where(self.small, self.d, sign * gy.dtype.type(self.delta))
        g = gy * slope * gy.dtype.type(2)
        n0, n1 = self.needs_input_grad
        return (g if n0 else None), (-g if n1 else None)


class EpsilonInsensitiveLoss(Function):
    def __init__(self, epsilon: float) -> None:
        self.epsilon = epsilon

    def forward(self, x0, x1):
        xp = get_array_module(x0)
        d = x0 - _as_dtype_of(x1, x0)
        eps = x0.dtype.type(self.epsilon)
        self.sign = (d > eps).astype(x0.dtype) - (d < -eps).astype(x0.dtype)
        a = xp.abs(d)
        return xp.where(a > eps, a - eps, x0.dtype.type(0))

    def backward(self, gy):
        g = gy * self.sign
        n0, n1 = self.needs_input_grad
        return (g if n0 else None), (-g if n1 else None)


class BinaryCrossEntropy(Function):
    """``-(t log x + (1-t) log(1-x))`` with both logarithms clipped as nnabla."""

    def forward(self, x, t):
        xp = get_array_module(x)
        t = _as_dtype_of(t, x)
        tiny = _tiny(x)
        self.x, self.t = x, t
        self.log_x = xp.log(xp.maximum(x, tiny))
        self.log_1mx = xp.log(xp.maximum(1 - x, tiny))
        return -(t * self.log_x + (1 - t) * self.log_1mx)

    def backward(self, gy):
        xp = get_array_module(gy)
        nx, nt = self.needs_input_grad
        gx = gt = None
        if nx:
            x = self.x
            gx = gy * (x - self.t) / xp.maximum(x - x * x, _tiny(x))
        if nt:
            gt = gy * (self.log_1mx - self.log_x)
        return gx, gt


class SigmoidCrossEntropy(Function):
    """Cross entropy of ``sigmoid(x)`` as nnabla: ``max(x,0) - x t + log(1 + exp(-|x|))``."""

    def forward(self, x, t):
        xp = get_array_module(x)
        t = _as_dtype_of(t, x)
        self.x, self.t = x, t
        zero = x.dtype.type(0)
        return xp.maximum(x, zero) - x * t + xp.log1p(xp.exp(-xp.abs(x)))

    def backward(self, gy):
        xp = get_array_module(gy)
        nx, nt = self.needs_input_grad
        gx = gt = None
        if nx:
            e = xp.exp(-xp.abs(self.x))  # stable sigmoid on both sides of 0
            sig = xp.where(self.x >= 0, 1 / (1 + e), e / (1 + e))
            gx = gy * (sig - self.t)
        if nt:  # nnabla refuses a label gradient; the exact one is cheap, so it is given
            gt = -gy * self.x
        return gx, gt


class CategoricalCrossEntropy(Function):
    """``-log x[t]`` along ``axis`` for probabilities ``x`` and class-index labels ``t``."""

    def __init__(self, axis: int | None) -> None:
        self.axis = axis

    def forward(self, x, t):
        xp = get_array_module(x)
        _float_dtype(x, "categorical_cross_entropy")
        self.axis = axis = refine_axis(self.axis, x.ndim, "categorical_cross_entropy")
        self.index, self.valid = label_index(x, t, axis, "categorical_cross_entropy", True)
        self.p = xp.maximum(xp.take_along_axis(x, self.index, axis), _tiny(x))
        self.x_shape = x.shape
        y = -xp.log(self.p)
        return y if self.valid is None else xp.where(self.valid, y, x.dtype.type(0))

    def backward(self, gy):
        xp = get_array_module(gy)
        if not self.needs_input_grad[0]:
            return None, None
        g = -gy / self.p
        if self.valid is not None:
            g = xp.where(self.valid, g, gy.dtype.type(0))
        hot = _one_hot(self.x_shape, self.index, self.axis)
        return xp.where(hot, g, gy.dtype.type(0)), None


class SoftmaxCrossEntropy(Function):
    """``log-sum-exp(x) - x[t]`` along ``axis``; capped at ``-log(tiny)`` like nnabla's clip."""

    def __init__(self, axis: int | None) -> None:
        self.axis = axis

    def forward(self, x, t):
        xp = get_array_module(x)
        _float_dtype(x, "softmax_cross_entropy")
        self.axis = axis = refine_axis(self.axis, x.ndim, "softmax_cross_entropy")
        self.index, self.valid = label_index(x, t, axis, "softmax_cross_entropy", True)
        m = x.max(axis=axis, keepdims=True)
        e = xp.exp(x - m)
        s = e.sum(axis=axis, keepdims=True)
        self.p = e / s
        y = xp.log(s) + m - xp.take_along_axis(x, self.index, axis)
        # nnabla computes -log(max(softmax, tiny)); the same cap keeps the two equal everywhere
        y = xp.minimum(y, x.dtype.type(-math.log(np.finfo(x.dtype).tiny)))
        return y if self.valid is None else xp.where(self.valid, y, x.dtype.type(0))

    def backward(self, gy):
        xp = get_array_module(gy)
        if not self.needs_input_grad[0]:
            return None, None
        hot = _one_hot(self.p.shape, self.index, self.axis)
        g = gy * (self.p - hot)
        if self.valid is not None:
            g = xp.where(self.valid, g, gy.dtype.type(0))
        return g, None


class KLMultinomial(Function):
    """``sum p (log(p + 1e-8) - log(q + 1e-8))`` over the axes from ``base_axis`` on (nnabla)."""

    EPS = 1e-8

    def __init__(self, base_axis: int) -> None:
        self.base_axis = base_axis

    def forward(self, p, q):
        xp = get_array_module(p)
        q = _as_dtype_of(q, p)
        if p.shape != q.shape:
            raise ValueError(
                f"kl_multinomial: p and q must have the same shape. Received: p.shape={p.shape}, "
                f"q.shape={q.shape}"
            )
        b = int(self.base_axis)
        if not 0 <= b < p.ndim:
            raise ValueError(
                f"kl_multinomial: base_axis must be in [0, {p.ndim}). Received: base_axis={b}"
            )
        self.p, self.q = p, q
        self.axes = tuple(range(b, p.ndim))
        eps = p.dtype.type(self.EPS)
        self.log_ratio = xp.log(p + eps) - xp.log(q + eps)
        return (p * self.log_ratio).sum(axis=self.axes).reshape(p.shape[:b] + (1,))

    def backward(self, gy):
        np_, nq = self.needs_input_grad
        p = self.p
        eps = p.dtype.type(self.EPS)
        g = gy.reshape(p.shape[: self.axes[0]] + (1,) * len(self.axes))
        # Exact derivatives of the forward; nnabla's differ by O(1e-8) (it drops eps there).
        gp = g * (self.log_ratio + p / (p + eps)) if np_ else None
        gq = -g * p / (self.q + eps) if nq else None
        return gp, gq


def squared_error(x0, x1) -> Variable:
    """Element-wise ``(x0 - x1)^2`` (nnabla ``F.squared_error``, NNC SquaredError)."""
    return SquaredError()(x0, x1)


def absolute_error(x0, x1) -> Variable:
    """Element-wise ``|x0 - x1|`` (nnabla ``F.absolute_error``, NNC AbsoluteError)."""
    return AbsoluteError()(x0, x1)


def huber_loss(x0, x1, delta: float = 1.0) -> Variable:
    """nnabla ``F.huber_loss``: ``d^2`` if ``|d| < delta`` else ``delta (2|d| - delta)``."""
    return HuberLoss(delta)(x0, x1)


def epsilon_insensitive_loss(x0, x1, epsilon: float) -> Variable:
    """nnabla ``F.epsilon_insensitive_loss``: ``max(0, |x0 - x1| - epsilon)``."""
    return EpsilonInsensitiveLoss(epsilon)(x0, x1)


def binary_cross_entropy(x, target) -> Variable:
    """nnabla ``F.binary_cross_entropy`` on probabilities ``x``; differentiable in both inputs."""
    return BinaryCrossEntropy()(x, target)


def sigmoid_cross_entropy(x, target) -> Variable:
    """nnabla ``F.sigmoid_cross_entropy`` on logits ``x`` (NNC SigmoidCrossEntropy)."""
    return SigmoidCrossEntropy()(x, target)


def categorical_cross_entropy(x, target, axis: int | None = None) -> Variable:
    """nnabla ``F.categorical_cross_entropy``; ``axis=None`` is the last axis.

    NNC's ``Axis`` property excludes the batch axis, so ``Axis=0`` is ``axis=1`` here.
    """
    return CategoricalCrossEntropy(axis)(x, target)


def softmax_cross_entropy(x, target, axis: int | None = None) -> Variable:
    """nnabla ``F.softmax_cross_entropy`` on logits; ``axis=None`` is the last axis."""
    return SoftmaxCrossEntropy(axis)(x, target)


def kl_multinomial(p, q, base_axis: int = 1) -> Variable:
    """nnabla ``F.kl_multinomial``: KL(p || q) summed over the axes from ``base_axis`` on.

    The output has shape ``p.shape[:base_axis] + (1,)``.
    """
    return KLMultinomial(base_axis)(p, q)

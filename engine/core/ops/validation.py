"""Validation layers (NNC category Validation): nnabla ``binary_error`` and ``top_n_error``.

Both give 0/1 per element (per label position for ``top_n_error``) in ``x``'s dtype; the monitor
takes the mean, which is the error rate (docs/nnc-behaviour.md §6.3). Neither has a gradient, as in
nnabla (``src/nbla/function/generic/binary_error.cpp``, ``top_n_error.cpp``).
"""

from __future__ import annotations

from engine.core.autograd import Function, Variable
from engine.core.backend import get_array_module
from engine.core.ops.loss import label_index, refine_axis

__all__ = ["binary_error", "top_n_error"]


class BinaryError(Function):
    def forward(self, x, t):
        if x.shape != t.shape:
            raise ValueError(
                "binary_error: x and target must have the same shape. "
                f"Received: x.shape={x.shape}, target.shape={t.shape}"
            )
        half = x.dtype.type(0.5)
        return ((x >= half) != (t >= half)).astype(x.dtype)

    def backward(self, gy):
        return None, None


class TopNError(Function):
    """1 where at least ``n`` other entries are >= the label's (ties count as errors, as nnabla)."""

    def __init__(self, axis: int | None, n: int) -> None:
        self.axis, self.n = axis, int(n)

    def forward(self, x, t):
        xp = get_array_module(x)
        if self.n < 1:
            raise ValueError(f"top_n_error: n must be >= 1. Received: n={self.n}")
        axis = refine_axis(self.axis, x.ndim, "top_n_error")
        index, _ = label_index(x, t, axis, "top_n_error", ignore_negative=False)
        threshold = xp.take_along_axis(x, index, axis)
        count = (x >= threshold).sum(axis=axis, keepdims=True)  # counts the label itself
        return (count > self.n).astype(x.dtype)

    def backward(self, gy):
        return None, None


def binary_error(x, target) -> Variable:
    """nnabla ``F.binary_error``: ``(x >= 0.5) != (target >= 0.5)`` as 0/1."""
    return BinaryError()(x, target)


def top_n_error(x, target, axis: int | None = None, n: int = 1) -> Variable:
    """nnabla ``F.top_n_error``: 1 if the label is not among the top ``n`` scores along ``axis``.

    ``axis=None`` is the last axis; ``target`` holds class indices with size 1 on ``axis``.
    """
    return TopNError(axis, n)(x, target)

"""Top-k, sort and prune (Others layers), re-exported by :mod:`engine.core.ops.others`."""

from __future__ import annotations

from typing import Any

import numpy as np

from engine.core.autograd import Function, Variable, as_variable
from engine.core.backend import get_array_module
from engine.core.ops._indexing import normalize_axis, stable_argsort


def _top_k_index(xp: Any, a: Any, k: int, use_abs: bool, largest: bool = True) -> Any:
    """Indices of the k largest (or smallest) entries of each row of 2-D ``a``, best first."""
    key = xp.abs(a) if use_abs else a
    return stable_argsort(xp, -key if largest else key, 1)[:, :k]


def _put_rows(xp: Any, shape: tuple[int, int], idx: Any, values: Any) -> Any:
    """A zero ``shape`` array with ``values`` put at column ``idx`` of each row (no duplicates)."""
    out = xp.zeros(shape, dtype=values.dtype)
    flat = (xp.arange(shape[0])[:, None] * shape[1] + idx).reshape(-1)
    out.reshape(-1)[flat] = values.reshape(-1)
    return out


def _samples(shape: tuple[int, ...], base_axis: int, k: int, name: str) -> tuple[int, int]:
    base_axis = normalize_axis(base_axis, len(shape), "base_axis")
    size = int(np.prod(shape[base_axis:]))
    if not 1 <= k <= size:
        raise ValueError(f"{name}: k must be in [1, {size}] (the sample size). Received: k={k}")
    return base_axis, size


class TopKData(Function):
    def __init__(self, k, use_abs, reduce, base_axis, largest) -> None:
        self.k, self.abs, self.reduce, self.base_axis, self.largest = (
            k,
            use_abs,
            reduce,
            base_axis,
            largest,
        )

    def forward(self, x):
        xp = get_array_module(x)
        base_axis, size = _samples(x.shape, self.base_axis, self.k, "top_k_data")
        self.x_shape, x2 = x.shape, x.reshape(-1, size)
        self.idx = _top_k_index(xp, x2, self.k, self.abs, self.largest)
        values = xp.take_along_axis(x2, self.idx, axis=1)
        lead = x.shape[:base_axis]
        index = self.idx.reshape(lead + (self.k,))
        if self.reduce:
            return values.reshape(lead + (self.k,)), index
        return _put_rows(xp, x2.shape, self.idx, values).reshape(x.shape), index

    def backward(self, gy, gi):
        if not self.reduce:
            return gy  # nnabla passes the whole gradient through when reduce=False
        xp = get_array_module(gy)
        rows = self.idx.shape[0]
        shape = (rows, int(np.prod(self.x_shape)) // rows)
        return _put_rows(xp, shape, self.idx, gy.reshape(rows, self.k)).reshape(self.x_shape)


def top_k_data(x, k: int, abs: bool = False, reduce: bool = True, base_axis: int = 1,  # noqa: A002
               largest: bool = True, with_index: bool = False):  # fmt: skip
    """nnabla ``top_k_data``: the k largest values (by ``|x|`` with ``abs``) of each sample.

    ``reduce`` keeps only the k values (shape ``x.shape[:base_axis] + (k,)``, best first),
    otherwise the others are zeroed. Ties go to the lower index. As in nnabla, the backward of
    ``reduce=False`` passes the full gradient (not only the kept entries).
    """
    y, index = TopKData(int(k), bool(abs), bool(reduce), int(base_axis), bool(largest))(x)
    return (y, index) if with_index else y


class TopKGrad(Function):
    def __init__(self, k, use_abs, base_axis) -> None:
        self.k, self.abs, self.base_axis = k, use_abs, base_axis

    def forward(self, x):
        _, self.size = _samples(x.shape, self.base_axis, self.k, "top_k_grad")
        return x

    def backward(self, gy):
        xp = get_array_module(gy)
        g2 = gy.reshape(-1, self.size)
        idx = _top_k_index(xp, g2, self.k, self.abs)
        return _put_rows(xp, g2.shape, idx, xp.take_along_axis(g2, idx, axis=1)).reshape(gy.shape)


def top_k_grad(x, k: int, abs: bool = False, base_axis: int = 1) -> Variable:  # noqa: A002
    """nnabla ``top_k_grad``: identity forward; only the k largest gradients per sample pass."""
    return TopKGrad(int(k), bool(abs), int(base_axis))(x)


class Sort(Function):
    def __init__(self, axis, reverse, outputs) -> None:
        self.axis, self.reverse, self.outputs_kind = axis, reverse, outputs

    def forward(self, x):
        xp = get_array_module(x)
        self.idx = stable_argsort(xp, -x if self.reverse else x, self.axis)
        if self.outputs_kind == "index":
            return self.idx
        y = xp.take_along_axis(x, self.idx, axis=self.axis)
        return (y, self.idx) if self.outputs_kind == "both" else y

    def backward(self, gy, gi=None):
        if self.outputs_kind == "index":
            return None
        xp = get_array_module(gy)
        inverse = xp.argsort(self.idx, axis=self.axis)
        return xp.take_along_axis(gy, inverse, axis=self.axis)


def sort(
    x, axis: int = -1, reverse: bool = False, with_index: bool = False, only_index: bool = False
):
    """nnabla ``sort`` along ``axis`` (stable; ``reverse`` sorts descending).

    Returns the sorted values, ``(values, indices)`` with ``with_index``, or only the int64
    indices with ``only_index`` (no gradient).
    """
    axis = normalize_axis(axis, as_variable(x).ndim)
    kind = "index" if only_index else "both" if with_index else "values"
    return Sort(axis, bool(reverse), kind)(x)


class Prune(Function):
    def __init__(self, rate: float) -> None:
        self.rate = rate

    def forward(self, x):
        xp = get_array_module(x)
        a = xp.abs(x)
        thresh = xp.sort(a.reshape(-1))[int((x.size - 1) * self.rate)]
        if self.rate == 1.0:
            thresh = thresh + 1  # nnabla: prune everything
        return xp.where(a < thresh, x.dtype.type(0), x)

    def backward(self, gy):
        return gy  # straight-through, as nnabla


def prune(x, rate: float = 0.9) -> Variable:
    """nnabla ``prune``: zero |x| below ``sort(|x|)[int((size - 1) * rate)]`` over all of x."""
    if not 0.0 <= rate <= 1.0:
        raise ValueError(f"prune: rate must be in [0, 1]. Received: rate={rate}")
    return Prune(float(rate))(x)

"""Element-moving primitives shared by the Others and Pre Process layers.

:class:`AxisTake` (one axis, 1-D index table: pad, shift, interpolate) and :class:`Gather`
(``x.flat[index]`` with per-sample tables: the random pre-process layers). Their backward
scatters the gradient back; repeated indices accumulate.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from engine.core import backend
from engine.core.autograd import Function, Variable, as_variable
from engine.core.backend import get_array_module, scatter_add

# ----------------------------------------------------------------------------- shared helpers


def random_generator(seed: int = -1) -> Any:
    """The generator a random layer draws from.

    ``seed == -1`` gives the engine's generator (:func:`backend.rng`, seeded by ``backend.seed``).
    Another seed gives :func:`backend.seeded_rng`: seeded once with it and kept (and saved in
    checkpoints), as the generator an nnabla function instance owns.
    """
    if seed is None or int(seed) == -1:
        return backend.rng()
    return backend.seeded_rng(int(seed))


def on_module(xp: Any, a: Any) -> Any:
    """``a`` as an array of module ``xp`` (random draws live on the engine's device)."""
    return a if get_array_module(a) is xp else xp.asarray(backend.to_numpy(a))


def as_indices(idx: Any, fn: str, name: str = "x") -> Any:
    """Integer indices from ``idx``. nnabla casts a float array to the integer type a function
    reads (NNC feeds every dataset column, labels included, as floats): truncation toward zero.
    inf or NaN cannot be an index: reported (at the next read-back on a device)."""
    if idx.dtype.kind in "iu":
        return idx
    if idx.dtype.kind != "f":
        raise TypeError(f"{fn}: {name} must hold indices. Received: {name}.dtype={idx.dtype}")
    xp = get_array_module(idx)
    backend.check_later(
        ~xp.isfinite(idx).all(),
        lambda: ValueError(
            f"{fn}: {name} holds inf or NaN. Received: {name}={idx.ravel()[:5].tolist()}"
        ),
    )
    return xp.trunc(xp.nan_to_num(idx)).astype(np.int64)


def normalize_axis(axis: int, ndim: int, name: str = "axis") -> int:
    if not -ndim <= axis < ndim:
        raise ValueError(f"{name}: expected an axis in [{-ndim}, {ndim}). Received: {name}={axis}")
    return axis % ndim


def axis_table(xp: Any, idx: Any, axis: int, ndim: int, per_sample: bool = False) -> Any:
    """Reshape an index table so it broadcasts along ``axis`` of an ``ndim`` array.

    ``idx`` is 1-D, or 2-D ``(samples, n)`` with ``per_sample`` (the sample axis is axis 0).
    """
    shape = [1] * ndim
    shape[axis] = idx.shape[-1]
    if per_sample:
        shape[0] = idx.shape[0]
    return xp.asarray(idx).reshape(shape)


def stable_argsort(xp: Any, a: Any, axis: int) -> Any:
    """Stable argsort on both backends (CuPy's argsort is always stable and may take no kind)."""
    try:
        return xp.argsort(a, axis=axis, kind="stable")
    except TypeError:
        return xp.argsort(a, axis=axis)


def flat_index(shape: Sequence[int], tables: Sequence[Any]) -> Any:
    """Flat source index of every output element from one index table per input axis."""
    strides = np.cumprod((1,) + tuple(shape[:0:-1]))[::-1]
    index = None
    for table, stride in zip(tables, strides, strict=True):
        term = table.astype("int64") * int(stride)
        index = term if index is None else index + term
    return index


class Gather(Function):
    """``y = x.flat[index]``; where ``valid`` is False, ``y = fill`` and no gradient flows."""

    def __init__(self, index: Any, valid: Any = None, fill: float = 0.0) -> None:
        self.index, self.valid, self.fill = index, valid, fill

    def forward(self, x):
        xp = get_array_module(x)
        self.x_shape = x.shape
        y = x.reshape(-1)[self.index]
        if self.valid is not None:
            y = xp.where(self.valid, y, x.dtype.type(self.fill))
        return y

    def backward(self, gy):
        xp = get_array_module(gy)
        if self.valid is not None:
            gy = xp.where(self.valid, gy, gy.dtype.type(0))
        gx = xp.zeros(int(np.prod(self.x_shape)), dtype=gy.dtype)
        index = xp.broadcast_to(self.index, gy.shape).reshape(-1)
        scatter_add(gx, index, gy.reshape(-1))
        return gx.reshape(self.x_shape)


def gather(x, tables: Sequence[Any], valid: Any = None, fill: float = 0.0) -> Variable:
    """Differentiable ``x[table_0, table_1, ...]`` with broadcast per-axis index tables."""
    x = as_variable(x)
    return Gather(flat_index(x.shape, tables), valid, fill)(x)


def shift_table(n: int, s: Any, border_mode: str, xp: Any = np) -> tuple[Any, Any]:
    """Source indices of ``y[i] = x[i - s]`` on an axis of length n (nnabla Shift/RandomShift).

    ``s`` is an int or an array of shifts (one per sample, giving a ``(samples, n)`` table).
    Returns (index, valid); valid is None except for ``'constant'``.
    """
    s = xp.asarray(s)[..., None] if not isinstance(s, int) else s
    j = xp.arange(n) - s
    if border_mode == "nearest":
        return xp.clip(j, 0, n - 1), None
    if border_mode == "reflect":
        if n == 1:
            return j * 0, None
        a = xp.abs(j + 2 * n) % (2 * n)
        return xp.where(a >= n, 2 * n - 1 - a, a), None
    if border_mode == "constant":
        return xp.clip(j, 0, n - 1), (j >= 0) & (j < n)
    raise ValueError(
        "shift: border_mode must be 'nearest', 'reflect' or 'constant'. "
        f"Received: border_mode={border_mode!r}"
    )


# ----------------------------------------------------------------------------- dropout
# ----------------------------------------------------------------------------- axis take


class AxisTake(Function):
    """Along one axis: ``y = take(x, i0)``, or ``(1 - w1) take(x, i0) + w1 take(x, i1)``;
    where ``valid`` (per output position) is False, ``y = fill`` and no gradient flows.

    The index tables are 1-D, so pad, shift and interpolate stay cheap on large activations.
    """

    def __init__(self, axis: int, i0, i1=None, w1=None, valid=None, fill: float = 0.0) -> None:
        self.axis, self.i0, self.i1, self.w1 = axis, i0, i1, w1
        self.valid, self.fill = valid, fill

    def _along(self, xp, a, ndim, dtype=None):
        shape = [1] * ndim
        shape[self.axis] = -1
        return xp.asarray(a, dtype=dtype).reshape(shape)

    def forward(self, x):
        xp = get_array_module(x)
        self.n = x.shape[self.axis]
        y = xp.take(x, xp.asarray(self.i0), axis=self.axis)
        if self.w1 is not None:
            w1 = self._along(xp, self.w1, x.ndim, x.dtype)
            y = y * (1 - w1) + xp.take(x, xp.asarray(self.i1), axis=self.axis) * w1
        if self.valid is not None:
            y = xp.where(self._along(xp, self.valid, x.ndim), y, x.dtype.type(self.fill))
        return y

    def backward(self, gy):
        xp = get_array_module(gy)
        m = len(self.i0)
        valid = np.ones(m) if self.valid is None else np.asarray(self.valid, dtype=np.float64)
        if self.w1 is None:
            index, weight = np.asarray(self.i0), valid
        else:
            w1 = np.asarray(self.w1, dtype=np.float64)
            index = np.concatenate([self.i0, self.i1])
            weight = np.concatenate([(1 - w1) * valid, w1 * valid])
        return _adjoint_take(xp, gy, index, weight, m, self.n, self.axis)


def _adjoint_take(xp: Any, g: Any, index: Any, weight: Any, m: int, n: int, axis: int) -> Any:
    """Adjoint of ``y[o] = sum_k weight[k] x[index[k]]`` (entry k feeds output ``k % m``) along
    ``axis``: ``gx[i] = sum over k with index[k] == i of weight[k] g[k % m]``.

    Computed as one gather per multiplicity level (the r-th entry reading each input), so there
    is no scatter and no transpose; the small tables stay on the host.
    """
    order = np.argsort(index, kind="stable")
    counts = np.bincount(index, minlength=n)
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
    shape = [1] * g.ndim
    shape[axis] = n
    gx = None
    for r in range(int(counts.max(initial=0))):
        has = counts > r
        k = order[np.minimum(starts + r, index.size - 1)]
        w = np.where(has, weight[k], 0.0)
        term = xp.take(g, xp.asarray(k % m), axis=axis)
        if not np.all(w == 1):  # pure gathers (pad, shift) skip the product
            term *= xp.asarray(w, dtype=g.dtype).reshape(shape)
        gx = term if gx is None else xp.add(gx, term, out=gx)
    if gx is None:
        out_shape = list(g.shape)
        out_shape[axis] = n
        gx = xp.zeros(out_shape, dtype=g.dtype)
    return gx

"""Others layers (nnabla ``dropout``, ``concatenate``, ``reshape``, ``pad``, ``interpolate``, ...).

Layers that only move elements share two primitives whose backward scatters the gradient back
(repeated indices accumulate): :class:`AxisTake` (one axis, 1-D index table: pad, shift,
interpolate) and :class:`Gather` (``x.flat[index]`` with per-sample tables: the random
pre-process layers of ``preprocess.py``).
Semantics follow nnabla's C++ (``src/nbla/function/generic/<name>.cpp``); deviations are noted
where they occur. NmsDetection2d belongs to the detection layers and is not here.
"""

from __future__ import annotations

import builtins
from collections.abc import Sequence
from typing import Any

import numpy as np

from engine.core import backend
from engine.core.autograd import Function, Variable, as_variable, sum_to
from engine.core.backend import get_array_module, scatter_add

__all__ = [
    "dropout", "concatenate", "reshape", "broadcast", "broadcast_to", "tile", "pad", "flip",
    "shift", "transpose", "slice", "stack", "matrix_diag", "matrix_diag_part",
    "clip_grad_by_value", "clip_grad_by_norm", "top_k_data", "top_k_grad", "sort", "prune",
    "interpolate", "reset_nan", "reset_inf", "vat_noise", "unlink", "identity",
]  # fmt: skip

# ----------------------------------------------------------------------------- shared helpers

_SEEDED: dict[tuple[str, int], Any] = {}


def random_generator(seed: int = -1) -> Any:
    """The generator a random layer draws from.

    ``seed == -1`` gives the engine's generator (:func:`backend.rng`, seeded by ``backend.seed``).
    Another seed gives a generator seeded once with it and kept for the process, as the generator
    an nnabla function instance owns: a fixed seed yields a reproducible *sequence* of draws.
    """
    if seed is None or int(seed) == -1:
        return backend.rng()
    module = backend.xp()
    key = (module.__name__, int(seed))
    if key not in _SEEDED:
        _SEEDED[key] = module.random.default_rng(int(seed))
    return _SEEDED[key]


def on_module(xp: Any, a: Any) -> Any:
    """``a`` as an array of module ``xp`` (random draws live on the engine's device)."""
    return a if get_array_module(a) is xp else xp.asarray(backend.to_numpy(a))


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


class Dropout(Function):
    def __init__(self, p: float, seed: int) -> None:
        self.p, self.seed = p, seed

    def forward(self, x):
        xp = get_array_module(x)
        # Draw in float32 whatever the dtype, so float32 and float64 runs share one mask.
        u = on_module(xp, random_generator(self.seed).random(x.shape, dtype=np.float32))
        self.mask = (u >= self.p).astype(x.dtype) * x.dtype.type(1.0 / (1.0 - self.p))
        return x * self.mask

    def backward(self, gy):
        return gy * self.mask


def dropout(x, p: float = 0.5, seed: int = -1, output_mask: bool = False):
    """nnabla ``dropout``: mask ~ Bernoulli(1 - p), ``y = x * mask / (1 - p)`` (nnc-behaviour §6.5).

    With ``output_mask`` the scaled-free 0/1 mask is returned too, as nnabla does.
    """
    if not 0.0 <= p < 1.0:
        raise ValueError(f"dropout: p must be in [0, 1). Received: p={p}")
    f = Dropout(float(p), seed)
    y = f(x)
    if output_mask:
        return y, Variable((f.mask != 0).astype(y.data.dtype))
    return y


# ----------------------------------------------------------------------------- shapes


class Concatenate(Function):
    def __init__(self, axis: int) -> None:
        self.axis = axis

    def forward(self, *xs):
        xp = get_array_module(xs[0])
        self.sizes = [x.shape[self.axis] for x in xs]
        return xp.concatenate(xs, axis=self.axis)

    def backward(self, gy):
        xp = get_array_module(gy)
        return tuple(xp.split(gy, np.cumsum(self.sizes)[:-1].tolist(), axis=self.axis))


def concatenate(*x, axis: int | None = None) -> Variable:
    """nnabla ``concatenate``; ``axis`` defaults to the last axis."""
    if not x:
        raise ValueError("concatenate: needs at least one input")
    ndim = as_variable(x[0]).ndim
    axis = ndim - 1 if axis is None else normalize_axis(axis, ndim)
    return Concatenate(axis)(*x)


class Stack(Function):
    def __init__(self, axis: int) -> None:
        self.axis = axis

    def forward(self, *xs):
        return get_array_module(xs[0]).stack(xs, axis=self.axis)

    def backward(self, gy):
        xp = get_array_module(gy)
        return tuple(xp.take(gy, i, axis=self.axis) for i in range(gy.shape[self.axis]))


def stack(*x, axis: int = 0) -> Variable:
    """nnabla ``stack``: joins same-shape inputs along a new axis."""
    ndim = as_variable(x[0]).ndim + 1
    return Stack(normalize_axis(axis, ndim))(*x)


class Reshape(Function):
    def __init__(self, shape: tuple[int, ...]) -> None:
        self.shape = shape

    def forward(self, x):
        self.x_shape = x.shape
        try:
            return x.reshape(self.shape)
        except ValueError:
            raise ValueError(
                f"reshape: cannot reshape {x.shape} ({x.size} elements). "
                f"Received: shape={self.shape}"
            ) from None

    def backward(self, gy):
        return gy.reshape(self.x_shape)


def reshape(x, shape: Sequence[int], inplace: bool = True) -> Variable:
    """nnabla ``reshape`` (``inplace`` only saves memory in nnabla; the result may be a view)."""
    return Reshape(tuple(int(s) for s in shape))(x)


class Broadcast(Function):
    def __init__(self, shape: tuple[int, ...]) -> None:
        self.shape = shape

    def forward(self, x):
        if x.ndim != len(self.shape) or any(
            a not in (1, b) for a, b in zip(x.shape, self.shape, strict=False)
        ):
            raise ValueError(
                f"broadcast: only size-1 axes can grow and ranks must match. "
                f"Received: x.shape={x.shape}, shape={self.shape}"
            )
        self.x_shape = x.shape
        return get_array_module(x).broadcast_to(x, self.shape).copy()

    def backward(self, gy):
        return sum_to(gy, self.x_shape)


def broadcast(x, shape: Sequence[int]) -> Variable:
    """nnabla ``broadcast``: size-1 axes of ``x`` are repeated to ``shape`` (same rank)."""
    return Broadcast(tuple(int(s) for s in shape))(x)


class BroadcastTo(Function):
    def __init__(self, axis: int) -> None:
        self.axis = axis

    def forward(self, x, y):
        xp = get_array_module(y)
        start = x.ndim - y.ndim if self.axis < 0 else self.axis
        if y.ndim > x.ndim or tuple(x.shape[start : start + y.ndim]) != tuple(y.shape):
            raise ValueError(
                f"broadcast_to: y must match x's axes from axis {start}. "
                f"Received: x.shape={x.shape}, y.shape={y.shape}, axis={self.axis}"
            )
        self.view = (1,) * start + y.shape + (1,) * (x.ndim - start - y.ndim)
        self.y_shape = y.shape
        return xp.broadcast_to(y.reshape(self.view), x.shape).copy()

    def backward(self, gy):
        return None, sum_to(gy, self.view).reshape(self.y_shape)


def broadcast_to(x, y, axis: int = -1) -> Variable:
    """nnabla ``broadcast_to``: ``y`` broadcast to the shape of ``x``, aligned at ``axis``.

    ``axis < 0`` aligns ``y`` with the trailing axes of ``x``. nnabla has no backward; here the
    gradient reaches ``y`` (summed over the broadcast axes) and ``x`` only gives the shape.
    """
    return BroadcastTo(int(axis))(x, y)


class Tile(Function):
    def __init__(self, reps: tuple[int, ...]) -> None:
        self.reps = reps

    def forward(self, x):
        self.x_shape = x.shape
        return get_array_module(x).tile(x, self.reps)

    def backward(self, gy):
        ndim = max(len(self.reps), len(self.x_shape))
        reps = (1,) * (ndim - len(self.reps)) + self.reps
        shape = (1,) * (ndim - len(self.x_shape)) + self.x_shape
        g = gy.reshape([v for pair in zip(reps, shape, strict=True) for v in pair])
        return g.sum(axis=tuple(range(0, 2 * ndim, 2))).reshape(self.x_shape)


def tile(x, reps) -> Variable:
    """nnabla ``tile`` (NumPy ``tile`` semantics; an int means the last axis)."""
    reps = (int(reps),) if isinstance(reps, (int, np.integer)) else tuple(int(r) for r in reps)
    return Tile(reps)(x)


class Transpose(Function):
    def __init__(self, axes: tuple[int, ...]) -> None:
        self.axes = axes

    def forward(self, x):
        if sorted(self.axes) != list(range(x.ndim)):
            raise ValueError(
                f"transpose: axes must permute {x.ndim} axes. Received: axes={self.axes}"
            )
        return get_array_module(x).transpose(x, self.axes)

    def backward(self, gy):
        return get_array_module(gy).transpose(gy, np.argsort(self.axes).tolist())


def transpose(x, axes: Sequence[int]) -> Variable:
    """nnabla ``transpose`` (axes include the batch axis)."""
    return Transpose(tuple(int(a) for a in axes))(x)


class Slice(Function):
    def __init__(self, start, stop, step) -> None:
        self.args = start, stop, step

    def forward(self, x):
        start, stop, step = self.args
        n = x.ndim
        if max(len(start), len(stop), len(step)) > n:
            raise ValueError(f"slice: more entries than the {n} axes of x. Received: start={start}")
        # nnabla aligns start/stop/step to the trailing axes (NNC exports them without batch).
        lead = [builtins.slice(None)] * (n - len(start))
        self.key = tuple(
            lead + [builtins.slice(a, b, c) for a, b, c in zip(start, stop, step, strict=True)]
        )
        self.x_shape = x.shape
        return x[self.key]

    def backward(self, gy):
        gx = get_array_module(gy).zeros(self.x_shape, dtype=gy.dtype)
        gx[self.key] = gy
        return gx


def slice(x, start=None, stop=None, step=None) -> Variable:  # noqa: A001 - nnabla's name
    """nnabla ``slice``: ``x[start:stop:step]`` per axis, lists aligned to the trailing axes."""
    shape = as_variable(x).shape
    n = len(start if start is not None else stop if stop is not None else step or shape)
    start = list(start) if start is not None else [0] * n
    stop = list(stop) if stop is not None else list(shape[len(shape) - n :])
    step = list(step) if step is not None else [1] * n
    if not len(start) == len(stop) == len(step):
        raise ValueError(
            f"slice: start, stop and step lengths differ. Received: {start}, {stop}, {step}"
        )
    return Slice(start, stop, step)(x)


class Flip(Function):
    def __init__(self, axes: tuple[int, ...]) -> None:
        self.axes = axes

    def forward(self, x):
        return get_array_module(x).flip(x, self.axes).copy()

    def backward(self, gy):
        return get_array_module(gy).flip(gy, self.axes).copy()


def flip(x, axes: Sequence[int] | None = None) -> Variable:
    """nnabla ``flip``: reverses ``axes`` (default: the last axis)."""
    ndim = as_variable(x).ndim
    axes = [ndim - 1] if axes is None else [normalize_axis(int(a), ndim, "axes") for a in axes]
    return Flip(tuple(axes))(x)


class ConstantPad(Function):
    def __init__(self, widths: list[tuple[int, int]], value: float) -> None:
        self.widths, self.value = widths, value

    def forward(self, x):
        xp = get_array_module(x)
        shape = tuple(n + a + b for n, (a, b) in zip(x.shape, self.widths, strict=True))
        self.key = tuple(
            builtins.slice(a, a + n) for n, (a, _) in zip(x.shape, self.widths, strict=True)
        )
        y = xp.full(shape, self.value, dtype=x.dtype)
        y[self.key] = x
        return y

    def backward(self, gy):
        return gy[self.key]


def pad(
    x, pad_width: Sequence[int], mode: str = "constant", constant_value: float = 0.0
) -> Variable:
    """nnabla ``pad``: (before, after) pairs for the trailing axes.

    Modes: ``constant``, ``reflect`` (mirror without repeating the edge, periodic for wide
    pads as nnabla's ``reflect_index``) and ``repeat`` (the edge value; ``edge`` is accepted too).
    """
    x = as_variable(x)
    pads = [int(p) for p in pad_width]
    if len(pads) % 2 or len(pads) > 2 * x.ndim or min(pads, default=0) < 0:
        raise ValueError(
            f"pad: pad_width needs an even number (at most {2 * x.ndim}) of non-negative values. "
            f"Received: pad_width={tuple(pad_width)}"
        )
    mode = "repeat" if mode == "edge" else mode
    if mode not in ("constant", "reflect", "repeat"):
        raise ValueError(
            f"pad: mode must be 'constant', 'reflect' or 'repeat'. Received: mode={mode!r}"
        )
    first = x.ndim - len(pads) // 2
    if mode == "constant":
        widths = [(0, 0)] * first + list(zip(pads[::2], pads[1::2], strict=True))
        return ConstantPad(widths, float(constant_value))(x)
    y = x
    for k in range(len(pads) // 2):
        before, after = pads[2 * k], pads[2 * k + 1]
        if before == after == 0:
            continue
        n = x.shape[first + k]
        j = np.arange(n + before + after) - before
        if mode == "reflect":
            period = n - 1
            a = np.abs(j)
            idx = np.abs(((a // period) & 1) * period - a % period) if period > 0 else j * 0
        else:
            idx = np.clip(j, 0, n - 1)
        y = AxisTake(first + k, idx)(y)
    return y if y is not x else identity(x)


def shift(x, shifts: Sequence[int] | None = None, border_mode: str = "nearest") -> Variable:
    """nnabla ``shift``: ``y[..., i] = x[..., i - s]`` on the trailing axes (``border_mode``)."""
    x = as_variable(x)
    shifts = [0] * x.ndim if shifts is None else [int(s) for s in shifts]
    if len(shifts) > x.ndim:
        raise ValueError(
            f"shift: more shifts than the {x.ndim} axes of x. Received: shifts={shifts}"
        )
    first = x.ndim - len(shifts)
    y = x
    for k, s in enumerate(shifts):
        if s != 0:
            idx, valid = shift_table(x.shape[first + k], s, border_mode)
            y = AxisTake(first + k, idx, valid=valid)(y)
    return y if y is not x else identity(x)


class MatrixDiag(Function):
    def forward(self, x):
        xp = get_array_module(x)
        return x[..., :, None] * xp.eye(x.shape[-1], dtype=x.dtype)

    def backward(self, gy):
        return get_array_module(gy).diagonal(gy, axis1=-2, axis2=-1).copy()


class MatrixDiagPart(Function):
    def forward(self, x):
        if x.ndim < 2 or x.shape[-1] != x.shape[-2]:
            raise ValueError(
                f"matrix_diag_part: last two axes must be square. Received: x.shape={x.shape}"
            )
        return get_array_module(x).diagonal(x, axis1=-2, axis2=-1).copy()

    def backward(self, gy):
        xp = get_array_module(gy)
        return gy[..., :, None] * xp.eye(gy.shape[-1], dtype=gy.dtype)


def matrix_diag(x) -> Variable:
    """nnabla ``matrix_diag``: (..., M) -> (..., M, M) with x on the diagonal."""
    return MatrixDiag()(x)


def matrix_diag_part(x) -> Variable:
    """nnabla ``matrix_diag_part``: the diagonal of the last two axes."""
    return MatrixDiagPart()(x)


# ----------------------------------------------------------------------------- gradient shaping


class ClipGradByValue(Function):
    def forward(self, x, lo, hi):
        self.lo, self.hi = lo, hi
        return x

    def backward(self, gy):
        xp = get_array_module(gy)
        return xp.minimum(xp.maximum(gy, self.lo), self.hi).astype(gy.dtype), None, None


def clip_grad_by_value(x, min, max) -> Variable:  # noqa: A002 - nnabla's names
    """nnabla ``clip_grad_by_value``: identity forward; the gradient is clipped to [min, max]."""
    return ClipGradByValue()(x, min, max)


class ClipGradByNorm(Function):
    def __init__(self, clip_norm: float, axes: tuple[int, ...]) -> None:
        self.clip_norm, self.axes = clip_norm, axes

    def forward(self, x):
        return x

    def backward(self, gy):
        xp = get_array_module(gy)
        norm = xp.sqrt((gy * gy).sum(axis=self.axes, keepdims=True))
        # nnabla divides by the norm unguarded (NaN for a zero gradient); a zero stays zero here.
        safe = xp.where(norm > 0, norm, gy.dtype.type(1))
        return gy * gy.dtype.type(self.clip_norm) / safe


def clip_grad_by_norm(x, clip_norm: float = 1.0, axes: Sequence[int] | None = None) -> Variable:
    """nnabla ``clip_grad_by_norm``: identity forward; backward ``g * clip_norm / ||g||_axes``.

    As in nnabla the gradient is rescaled to norm ``clip_norm`` even when it is smaller.
    """
    ndim = as_variable(x).ndim
    axes = (
        tuple(range(ndim))
        if axes is None
        else tuple(normalize_axis(int(a), ndim, "axes") for a in axes)
    )
    return ClipGradByNorm(float(clip_norm), axes)(x)


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


# ----------------------------------------------------------------------------- interpolate


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


def _source_coords(isize, osize, mode, align_corners, half_pixel, half_pixel_for_nn):
    """nnabla's interpolate.cpp coordinate rules, in float32 as nnabla computes them."""
    f32, o = np.float32, np.arange(osize, dtype=np.float32)
    scale = (
        f32(0)
        if osize <= 1
        else f32(isize - 1) / f32(osize - 1)
        if align_corners
        else f32(isize) / f32(osize)
    )
    if mode == "nearest" and half_pixel_for_nn:
        f = (f32(isize) / f32(osize)) * (o + f32(0.5))
    elif half_pixel:
        f = np.maximum(f32(0), scale * (o + f32(0.5)) - f32(0.5))
    else:
        f = scale * o
    i0 = np.minimum(f.astype(np.int64), isize - 1)
    if mode == "nearest":
        return i0, None, None
    i1 = np.minimum(i0 + 1, isize - 1)
    return i0, i1, (f - i0).astype(np.float64)


def interpolate(
    x,
    scale=None,
    output_size=None,
    mode: str = "linear",
    align_corners: bool = False,
    half_pixel: bool = False,
    half_pixel_for_nn: bool = False,
    channel_last: bool = False,
) -> Variable:
    """nnabla ``interpolate``: resize the trailing ``len(output_size)`` axes (linear or nearest).

    ``scale`` gives ``output_size[i] = floor(scale[i] * size[i])``. Coordinate rules (align_corners,
    half_pixel, half_pixel_for_nn) follow nnabla's interpolate.cpp; linear mode is separable, so
    it runs one axis at a time, for any number of axes.
    """
    x = as_variable(x)
    if mode not in ("linear", "nearest"):
        raise ValueError(
            f"interpolate: mode must be 'linear' or 'nearest'. Received: mode={mode!r}"
        )
    if align_corners and half_pixel:
        raise ValueError("interpolate: align_corners and half_pixel cannot both be True")
    if output_size is None:
        if scale is None:
            raise ValueError("interpolate: either scale or output_size must be given")
        end = x.ndim - 1 if channel_last else x.ndim
        sizes = x.shape[end - len(scale) : end]
        output_size = [int(np.floor(s * d)) for s, d in zip(scale, sizes, strict=True)]
    nd = len(output_size)
    end = x.ndim - 1 if channel_last else x.ndim
    if not 1 <= nd <= end:
        raise ValueError(f"interpolate: output_size has {nd} entries for x.shape={x.shape}")
    y = x
    for k, osize in enumerate(output_size):
        axis = end - nd + k
        i0, i1, w1 = _source_coords(
            x.shape[axis], int(osize), mode, align_corners, half_pixel, half_pixel_for_nn
        )
        y = AxisTake(axis, i0, i1, w1)(y)
    return y


# ----------------------------------------------------------------------------- misc


class ResetValue(Function):
    def __init__(self, val: float, test) -> None:
        self.val, self.test = val, test

    def forward(self, x):
        xp = get_array_module(x)
        self.bad = self.test(xp, x)
        return xp.where(self.bad, x.dtype.type(self.val), x)

    def backward(self, gy):
        return get_array_module(gy).where(self.bad, gy.dtype.type(0), gy)


def reset_nan(x, val: float = 0.0) -> Variable:
    """nnabla ``reset_nan``: NaN -> ``val``; no gradient through the replaced entries."""
    return ResetValue(val, lambda xp, a: xp.isnan(a))(x)


def reset_inf(x, val: float = 0.0) -> Variable:
    """nnabla ``reset_inf``: +-inf -> ``val``; no gradient through the replaced entries."""
    return ResetValue(val, lambda xp, a: xp.isinf(a))(x)


class VATNoise(Function):
    def __init__(self, base_axis: int, eps: float, buffer) -> None:
        self.base_axis, self.eps, self.buffer = base_axis, eps, buffer

    def forward(self, x, w):
        xp = get_array_module(x)
        axes = tuple(range(self.base_axis, x.ndim))
        norm = xp.sqrt((x * x).sum(axis=axes, keepdims=True) + x.dtype.type(1e-8))
        return x * (x.dtype.type(self.eps) / norm)

    def backward(self, gy):
        # nnabla's VATNoise writes eps * dy into the buffer's *data* and propagates nothing.
        self.buffer[...] = gy * self.eps
        return None, None


def vat_noise(x, w, base_axis: int = 1, eps: float = 1.0) -> Variable:
    """nnabla ``vat_noise`` (NNC VATNoise): ``y = eps * x / sqrt(sum(x^2) + 1e-8)`` per sample.

    The backward writes ``eps * dy`` into ``w.data`` (the noise buffer of Sony's VAT sample) and
    gives no gradient. The graph is always recorded (through a leaf sharing ``w``'s data) so the
    backward runs even when neither input needs a gradient.
    """
    x, w = as_variable(x), as_variable(w)
    if x.shape != w.shape:
        raise ValueError(f"vat_noise: x and w shapes differ. Received: {x.shape} and {w.shape}")
    if not 0 < base_axis < x.ndim:
        raise ValueError(
            f"vat_noise: base_axis must be in [1, {x.ndim}). Received: base_axis={base_axis}"
        )
    return VATNoise(base_axis, eps, w.data)(x, Variable(w.data, need_grad=True))


def unlink(x) -> Variable:
    """nnabla ``unlink``: the same values, cut from the graph (no gradient flows back)."""
    return Variable(as_variable(x).data, need_grad=False)


class Identity(Function):
    def forward(self, x):
        return x

    def backward(self, gy):
        return gy


def identity(x) -> Variable:
    """nnabla ``identity``."""
    return Identity()(x)

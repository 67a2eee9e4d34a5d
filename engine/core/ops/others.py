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

import numpy as np

from engine.core.autograd import Function, Variable, as_variable, sum_to
from engine.core.backend import get_array_module

__all__ = [
    "dropout", "concatenate", "reshape", "broadcast", "broadcast_to", "tile", "pad", "flip",
    "shift", "transpose", "slice", "stack", "matrix_diag", "matrix_diag_part",
    "clip_grad_by_value", "clip_grad_by_norm", "top_k_data", "top_k_grad", "sort", "prune",
    "interpolate", "reset_nan", "reset_inf", "vat_noise", "unlink", "identity", "nms_detection2d",
]  # fmt: skip

from engine.core.ops._indexing import (  # noqa: F401 - shared with preprocess.py
    AxisTake,
    Gather,
    axis_table,
    flat_index,
    gather,
    normalize_axis,
    on_module,
    random_generator,
    shift_table,
    stable_argsort,
)  # fmt: skip
from engine.core.ops._nms import nms_detection2d  # noqa: F401
from engine.core.ops._topk import prune, sort, top_k_data, top_k_grad  # noqa: F401

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


# ----------------------------------------------------------------------------- interpolate


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

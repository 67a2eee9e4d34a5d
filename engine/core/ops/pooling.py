"""Pooling layers: MaxPooling, AveragePooling, SumPooling, GlobalAveragePooling, Unpooling
(nnabla ``F.max_pooling``, ...; see docs/layers.md §4.5).

Pooling walks the kernel offsets: each offset is one strided slice of the (padded) input that
covers every output position at once, so a 2x2 pooling is 3 element-wise maxima instead of a
reshape-and-reduce over tiny axes. Output size ``(in + 2*pad - k) // s + 1`` with
``ignore_border`` and nnabla's ``ceil((in + pad) / s)`` without (:func:`pooled_sizes`);
as in nnabla a window is clipped to ``[-pad, in + pad)``, a partial last window pools over the
cells it holds (average pooling divides by them, plus the padded cells with ``including_pad``);
max pooling never picks a padded cell and, like nnabla, routes the gradient to the first
maximum of a window in row-major order.
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np

from engine.core.autograd import Function, Variable
from engine.core.backend import get_array_module
from engine.core.ops import _pooling_cpu
from engine.core.ops._im2col import as_int_tuple, pad_spatial, prod, window_slices

__all__ = [
    "max_pooling",
    "average_pooling",
    "sum_pooling",
    "global_average_pooling",
    "unpooling",
]


def pooled_sizes(
    spatial, kernel, stride, pad, ignore_border: bool, editor: bool = False
) -> tuple[int, ...]:
    """Output size per pooled axis; the rule shared by the kernels and the shape inference.

    With ``ignore_border``: ``(in + 2p - k) // s + 1``. Without: nnabla's ``ceil((in + p) / s)``
    (``PoolingConfiguration``): the kernel size plays no part and every window starts inside the
    input, the last ones holding fewer cells. ``editor``: NNC's editor instead shows
    ``ceil((in + 2p) / s)``; the two agree when ``p == 0``. Only the statistics use it.
    """
    out = []
    for n, k, s, p in zip(spatial, kernel, stride, pad, strict=True):
        if ignore_border:
            out.append((n + 2 * p - k) // s + 1)
        else:
            out.append(-(-(n + (2 * p if editor else p)) // s))
    return tuple(out)


class _Windows:
    """Geometry of one pooling call: output size, padding and per-axis window clipping."""

    def __init__(
        self, fn: str, shape, kernel, stride, ignore_border: bool, pad, channel_last: bool
    ):
        self.nk = nk = len(kernel)
        self.kernel = as_int_tuple(kernel, nk, 1, fn, "kernel")
        self.stride = (
            as_int_tuple(stride, nk, 1, fn, "stride") if stride is not None else self.kernel
        )
        self.pad = as_int_tuple(pad, nk, 0, fn, "pad")
        lead = len(shape) - nk - (1 if channel_last else 0)
        if nk < 1 or lead < 0:
            raise ValueError(
                f"{fn}: kernel needs 1 to {len(shape)} axes for this input. "
                f"Received: kernel={tuple(kernel)}, x.shape={tuple(shape)}"
            )
        if min(self.kernel) < 1 or min(self.stride) < 1 or min(self.pad) < 0:
            raise ValueError(
                f"{fn}: kernel and stride must be >= 1 and pad >= 0. "
                f"Received: kernel={self.kernel}, "
                f"stride={self.stride}, pad={self.pad}"
            )
        self.spatial = tuple(shape[lead : lead + nk])
        self.out = pooled_sizes(self.spatial, self.kernel, self.stride, self.pad, ignore_border)
        if min(self.out) < 1:
            raise ValueError(
                f"{fn}: the output would be empty ({self.out}). Received: x.shape={tuple(shape)}, "
                f"kernel={self.kernel}, stride={self.stride}, pad={self.pad}"
            )
        # Padding on each side so every window lies inside the padded array.
        self.before = self.pad
        self.after = tuple(
            max(0, (o - 1) * s + k - n - p)
            for o, s, k, n, p in zip(
                self.out, self.stride, self.kernel, self.spatial, self.pad, strict=True
            )
        )
        self.padded = any(self.before) or any(self.after)
        self.disjoint = all(s >= k for s, k in zip(self.stride, self.kernel, strict=True))

    def offsets(self):
        """(offset, slices) for every kernel cell, row-major (nnabla's scan order)."""
        ones = (1,) * self.nk
        for off in itertools.product(*(range(k) for k in self.kernel)):
            yield off, (Ellipsis,) + window_slices(off, ones, self.stride, self.out)

    def pool_sizes(self, xp, including_pad: bool, dtype):
        """The divisor of average pooling for every output position (broadcastable)."""
        sizes = None
        for a in range(self.nk):
            start = xp.arange(self.out[a]) * self.stride[a] - self.pad[a]
            end = xp.minimum(start + self.kernel[a], self.spatial[a] + self.pad[a])
            if not including_pad:
                start = xp.maximum(start, 0)
                end = xp.minimum(end, self.spatial[a])
            size = (end - start).astype(dtype).reshape((-1,) + (1,) * (self.nk - 1 - a))
            sizes = size if sizes is None else sizes * size
        return sizes

    def crop(self, gx_padded):
        inner = tuple(slice(b, b + n) for b, n in zip(self.before, self.spatial, strict=True))
        return gx_padded[(Ellipsis,) + inner]


def _to_channel_first(x, nk: int, channel_last: bool):
    if not channel_last:
        return x
    return get_array_module(x).moveaxis(x, -1, -nk - 1)


def _to_channel_last(y, nk: int, channel_last: bool):
    if not channel_last:
        return y
    return get_array_module(y).moveaxis(y, -nk - 1, -1)


class MaxPooling(Function):
    def __init__(self, kernel, stride, ignore_border: bool, pad, channel_last: bool) -> None:
        self.args = (kernel, stride, ignore_border, pad, channel_last)
        self.channel_last = channel_last

    def forward(self, x):
        xp = get_array_module(x)
        win = _Windows("max_pooling", x.shape, *self.args)
        xc = _to_channel_first(x, win.nk, self.channel_last)
        self.cells = None
        if _pooling_cpu.applies(xc, win.nk):  # compiled loops, same numbers (_pooling_cpu)
            y, self.cells = _pooling_cpu.forward(xc, win.kernel, win.stride, win.before, win.out)
            return _to_channel_last(y, win.nk, self.channel_last)
        if win.padded:  # padded cells are -inf: never the maximum
            xc = pad_spatial(xc, win.before, win.after, float("-inf"))
        views = [xc[sl] for _, sl in win.offsets()]
        y = xp.maximum(views[0], views[1]) if len(views) > 1 else views[0].copy()
        for v in views[2:]:
            xp.maximum(y, v, out=y)
        if self.needs_input_grad[0]:
            self.win, self.xc, self.y = win, xc, y
        return _to_channel_last(y, win.nk, self.channel_last)

    def backward(self, gy):
        if self.cells is not None:
            gx = _pooling_cpu.backward(_to_channel_first(gy, 2, self.channel_last), self.cells)
            return _to_channel_last(gx, 2, self.channel_last)
        xp = get_array_module(gy)
        win, xc, y = self.win, self.xc, self.y
        if xp is not np and len(win.kernel) and prod(win.kernel) > 1:
            # On a device, asking whether windows hold ties would stop it once per step: take
            # the first maximum of each window directly (the CPU's fast path is below).
            gx = self._first_max_only(_to_channel_first(gy, win.nk, self.channel_last))
            return _to_channel_last(win.crop(gx) if win.padded else gx, win.nk, self.channel_last)
        gy = _to_channel_first(gy, win.nk, self.channel_last)
        # *_like keeps the memory order of the input (often batch-innermost, from a convolution).
        gx = xp.zeros_like(xc)
        hit = xp.empty_like(y, dtype=bool)
        count = xp.zeros_like(y, dtype=xp.uint8)
        for _, sl in win.offsets():
            xp.equal(xc[sl], y, out=hit)
            if win.disjoint:
                xp.multiply(hit, gy, out=gx[sl])
            else:
                gx[sl] += hit * gy
            count += hit
        if len(win.kernel) and prod(win.kernel) > 1 and int(count.max()) > 1:
            gx = self._first_max_only(gy)  # ties: nnabla keeps the first maximum only
        if win.padded:
            gx = win.crop(gx)
        return _to_channel_last(gx, win.nk, self.channel_last)

    def _first_max_only(self, gy):
        xp = get_array_module(gy)
        win, xc, y = self.win, self.xc, self.y
        gx = xp.zeros_like(xc)
        taken = xp.zeros_like(y, dtype=bool)
        for _, sl in win.offsets():
            hit = (xc[sl] == y) & ~taken
            gx[sl] += hit * gy
            taken |= hit
        return gx


class _SumPoolingBase(Function):
    """Sum pooling; AveragePooling divides by nnabla's pool size."""

    fn = "sum_pooling"

    def __init__(
        self,
        kernel,
        stride,
        ignore_border: bool,
        pad,
        channel_last: bool,
        including_pad: bool = True,
    ) -> None:
        self.args = (kernel, stride, ignore_border, pad, channel_last)
        self.channel_last, self.including_pad = channel_last, including_pad

    def scale(self, xp, win: _Windows, dtype) -> Any:
        return None

    def forward(self, x):
        xp = get_array_module(x)
        win = _Windows(self.fn, x.shape, *self.args)
        xc = _to_channel_first(x, win.nk, self.channel_last)
        if win.padded:
            xc = pad_spatial(xc, win.before, win.after, 0.0)
        views = [xc[sl] for _, sl in win.offsets()]
        y = views[0] + views[1] if len(views) > 1 else views[0].copy()
        for v in views[2:]:
            y += v
        scale = self.scale(xp, win, x.dtype)
        if scale is not None:
            y *= scale
        self.win, self.xc, self.scale_ = win, xc, scale
        return _to_channel_last(y, win.nk, self.channel_last)

    def backward(self, gy):
        xp = get_array_module(gy)
        win = self.win
        g = _to_channel_first(gy, win.nk, self.channel_last)
        if self.scale_ is not None:
            g = g * self.scale_
        gx = xp.zeros_like(self.xc, dtype=gy.dtype)
        for _, sl in win.offsets():
            if win.disjoint:
                gx[sl] = g
            else:
                gx[sl] += g
        if win.padded:
            gx = win.crop(gx)
        return _to_channel_last(gx, win.nk, self.channel_last)


class SumPooling(_SumPoolingBase):
    fn = "sum_pooling"


class AveragePooling(_SumPoolingBase):
    fn = "average_pooling"

    def scale(self, xp, win: _Windows, dtype) -> Any:
        return (1 / win.pool_sizes(xp, self.including_pad, dtype)).astype(dtype)


class GlobalAveragePooling(Function):
    def forward(self, x):
        if x.ndim < 2:
            raise ValueError(
                f"global_average_pooling: x needs (N, C, ...) axes. Received: x.shape={x.shape}"
            )
        self.x_shape = x.shape
        # x's axes from the outermost in memory: the gradient is laid out like x (a convolution's
        # batch-innermost output), so the element-wise backward passes below see one layout.
        self.order = sorted(range(x.ndim), key=lambda i: -abs(x.strides[i]))
        axes = tuple(range(2, x.ndim))
        y = x.mean(axis=axes) if axes else x
        return y.reshape(x.shape[:2] + (1, 1))

    def backward(self, gy):
        xp = get_array_module(gy)
        n = prod(self.x_shape[2:])
        g = gy.reshape(self.x_shape[:2] + (1,) * (len(self.x_shape) - 2)) * gy.dtype.type(1 / n)
        gx = xp.empty(tuple(self.x_shape[i] for i in self.order), dtype=gy.dtype)
        gx = gx.transpose(sorted(range(len(self.order)), key=self.order.__getitem__))
        gx[...] = g
        return gx


class Unpooling(Function):
    def __init__(self, kernel, channel_last: bool) -> None:
        self.kernel, self.channel_last = tuple(int(k) for k in kernel), channel_last

    def forward(self, x):
        xp = get_array_module(x)
        nk = len(self.kernel)
        if nk < 1 or x.ndim < nk + (1 if self.channel_last else 0) or min(self.kernel) < 1:
            raise ValueError(
                f"unpooling: kernel needs 1 to {x.ndim} positive entries. "
                f"Received: kernel={self.kernel}, x.shape={x.shape}"
            )
        xc = _to_channel_first(x, nk, self.channel_last) if x.ndim > nk else x
        lead, sp = xc.shape[: xc.ndim - nk], xc.shape[xc.ndim - nk :]
        # (..., h, 1, w, 1) broadcast to (..., h, kh, w, kw): nearest-neighbour repeat.
        expanded = xc.reshape(lead + tuple(v for n in sp for v in (n, 1)))
        tiled = lead + tuple(v for n, k in zip(sp, self.kernel, strict=True) for v in (n, k))
        y = xp.broadcast_to(expanded, tiled).reshape(
            lead + tuple(n * k for n, k in zip(sp, self.kernel, strict=True))
        )
        self.lead, self.sp = lead, sp
        return _to_channel_last(y, nk, self.channel_last) if x.ndim > nk else y

    def backward(self, gy):
        nk = len(self.kernel)
        g = _to_channel_first(gy, nk, self.channel_last) if gy.ndim > nk else gy
        split = g.reshape(
            self.lead + tuple(v for n, k in zip(self.sp, self.kernel, strict=True) for v in (n, k))
        )
        axes = tuple(len(self.lead) + 2 * i + 1 for i in range(nk))
        gx = split.sum(axis=axes)
        return _to_channel_last(gx, nk, self.channel_last) if gy.ndim > nk else gx


def max_pooling(
    x, kernel, stride=None, ignore_border: bool = True, pad=None, channel_last: bool = False
) -> Variable:
    """Max pooling over the trailing ``len(kernel)`` axes (nnabla ``F.max_pooling``)."""
    return MaxPooling(kernel, stride, ignore_border, pad, channel_last)(x)


def average_pooling(
    x,
    kernel,
    stride=None,
    ignore_border: bool = True,
    pad=None,
    channel_last: bool = False,
    including_pad: bool = True,
) -> Variable:
    """Average pooling (nnabla ``F.average_pooling``); ``including_pad`` counts padded cells."""
    return AveragePooling(kernel, stride, ignore_border, pad, channel_last, including_pad)(x)


def sum_pooling(
    x, kernel, stride=None, ignore_border: bool = True, pad=None, channel_last: bool = False
) -> Variable:
    """Sum pooling (nnabla ``F.sum_pooling``)."""
    return SumPooling(kernel, stride, ignore_border, pad, channel_last)(x)


def global_average_pooling(x) -> Variable:
    """Mean over the axes after the channels, as (N, C, 1, 1) (``F.global_average_pooling``)."""
    return GlobalAveragePooling()(x)


def unpooling(x, kernel, channel_last: bool = False) -> Variable:
    """Nearest-neighbour upsampling by ``kernel`` (nnabla ``F.unpooling``)."""
    return Unpooling(kernel, channel_last)(x)

"""Private helpers shared by the convolution and pooling kernels: argument normalisation,
output-size rules, im2col (one strided view + one copy) and col2im (one strided add per kernel
offset, never ``np.add.at``).

Layout. ``im2col`` returns columns shaped ``(C, *kernel, *out, N)`` (or ``(C, *kernel, N, *out)``
for small batches with strided windows, see :func:`prefer_batch_last`): channels and kernel
offsets first, output positions and batch last. A convolution is then *one* GEMM
``W (O, C*K) @ col (C*K, P*N) -> (O, P*N)`` for the whole batch (BLAS sees one large matrix, not N
small ones), and the result is handed out as an ``(N, O, *out)`` *view* of that buffer, without a
transposed copy. Element-wise kernels keep that memory order (NumPy's ``order='K'``), so the next
convolution's input and the gradient that comes back usually have the layout already and
:func:`channel_matrix` is free. With the batch innermost, every copy in im2col/col2im moves runs of
``out_last * N`` contiguous elements, which is what makes them cheap in NumPy.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from typing import Any

from engine.core.backend import get_array_module
from engine.core.ops import _im2col_cpu


def as_int_tuple(value: Any, n: int, default: int, fn: str, name: str) -> tuple[int, ...]:
    """``value`` (None, an int or a sequence) as ``n`` ints, or a ValueError naming the argument."""
    if value is None:
        return (default,) * n
    if isinstance(value, (int,)) or (hasattr(value, "__index__") and not hasattr(value, "__len__")):
        return (int(value),) * n
    out = tuple(map(int, value))
    if len(out) != n:
        raise ValueError(
            f"{fn}: {name} needs {n} values, one per spatial axis. Received: {name}={tuple(value)}"
        )
    return out


def conv_out_size(size: int, k: int, pad: int, stride: int, dilation: int) -> int:
    """nnabla's convolution output size along one axis."""
    return (size + 2 * pad - dilation * (k - 1) - 1) // stride + 1


def deconv_out_size(
    size: int, k: int, pad: int, stride: int, dilation: int, out_pad: int = 0
) -> int:
    """nnabla's deconvolution output size along one axis (the inverse of ``conv_out_size``)."""
    return (size - 1) * stride - 2 * pad + dilation * (k - 1) + 1 + out_pad


def pad_axes(
    x: Any, axes: Sequence[int], before: Sequence[int], after: Sequence[int], value: float = 0.0
) -> Any:
    """``x`` padded along ``axes`` with ``value`` (a new contiguous array)."""
    xp = get_array_module(x)
    shape = list(x.shape)
    inner = [slice(None)] * x.ndim
    for a, b, e in zip(axes, before, after, strict=True):
        inner[a] = slice(b, b + shape[a])
        shape[a] += b + e
    out = xp.full(shape, value, dtype=x.dtype) if value != 0 else xp.zeros(shape, dtype=x.dtype)
    out[tuple(inner)] = x
    return out


def pad_spatial(x: Any, before: Sequence[int], after: Sequence[int], value: float = 0.0) -> Any:
    """``x`` padded on its trailing ``len(before)`` axes (a new contiguous array)."""
    nk = len(before)
    return pad_axes(x, range(x.ndim - nk, x.ndim), before, after, value)


def window_slices(
    offset: Sequence[int], dilation: Sequence[int], stride: Sequence[int], out: Sequence[int]
) -> tuple[slice, ...]:
    """Strided slices picking, for every output position, the input cell at kernel ``offset``."""
    return tuple(
        slice(o * d, o * d + s * (n - 1) + 1, s)
        for o, d, s, n in zip(offset, dilation, stride, out, strict=True)
    )


def prefer_batch_last(n: int, stride: Sequence[int]) -> bool:
    """Whether to lay columns out as (C*K, *out, N) rather than (C*K, N, *out).

    With the batch innermost, the copies of im2col/col2im move runs of ``out_last * N`` elements
    (stride 1) or ``N`` elements instead of ``out_last``; for one sample both layouts coincide.
    Small batches with strided windows keep the batch outside.
    """
    return n >= 8 or all(s == 1 for s in stride)


def channels_major(a: Any, batch_last: bool) -> Any:
    """(N, C, *sp) -> the (C, N, *sp) or (C, *sp, N) view (no copy). ``transpose``, one call,
    rather than ``moveaxis`` (a dozen Python calls; twice per layer and step)."""
    return a.transpose((*range(1, a.ndim), 0)) if batch_last else a.swapaxes(0, 1)


def from_channels_major(a: Any, batch_last: bool) -> Any:
    """The inverse of :func:`channels_major`: back to an (N, C, *sp) view."""
    return a.transpose((a.ndim - 1, *range(a.ndim - 1))) if batch_last else a.swapaxes(0, 1)


def channels_major_contiguous(a: Any, batch_last: bool) -> Any:
    """:func:`channels_major` as a contiguous array; free when ``a`` already has that layout."""
    xp = get_array_module(a)
    view = channels_major(a, batch_last)
    if view.flags.c_contiguous or not batch_last or a.shape[0] < 16 or a.size < 2**16:
        return xp.ascontiguousarray(view)
    # Moving the batch innermost is a transpose with a huge read stride; a few samples at a time
    # it runs about 3x faster (the rows being read stay in cache).
    out = xp.empty(view.shape, dtype=a.dtype)
    for s in range(0, a.shape[0], 8):
        out[..., s : s + 8] = view[..., s : s + 8]
    return out


def channel_matrix(a: Any, batch_last: bool) -> Any:
    """(N, C, *sp) as a contiguous (C, N*P) matrix; free when ``a`` already has that layout."""
    return channels_major_contiguous(a, batch_last).reshape(a.shape[1], -1)


def pointwise(kernel: Sequence[int], pad: Sequence[int], stride: Sequence[int]) -> bool:
    """A 1x1 convolution without padding or stride: the image is its own column matrix."""
    return all(k == 1 for k in kernel) and all(s == 1 for s in stride) and not any(pad)


def im2col(
    x: Any,
    kernel: Sequence[int],
    pad: Sequence[int],
    stride: Sequence[int],
    dilation: Sequence[int],
    batch_last: bool,
) -> tuple[Any, tuple[int, ...]]:
    """Columns of ``x`` (N, C, *spatial), any strides.

    Returns ``(col, out)``: ``col`` is contiguous, shaped (C, *kernel, *out, N) when
    ``batch_last`` else (C, *kernel, N, *out); ``out`` is the output spatial shape.
    """
    xp = get_array_module(x)
    nk = len(kernel)
    n = x.shape[0]
    xc = channels_major_contiguous(x, batch_last)
    if not pointwise(kernel, pad, stride) and _im2col_cpu.applies(xc, nk, batch_last):
        # compiled loops: padding without a copy (a pointwise image is its own columns, below)
        return _im2col_cpu.im2col(xc, kernel, pad, stride, dilation)
    sp_axes = tuple(range(1, 1 + nk)) if batch_last else tuple(range(2, 2 + nk))
    if any(pad):
        xc = pad_axes(xc, sp_axes, pad, pad)
    out = tuple(
        conv_out_size(xc.shape[a], k, 0, s, d)
        for a, k, s, d in zip(sp_axes, kernel, stride, dilation, strict=True)
    )
    s_sp = [xc.strides[a] for a in sp_axes]
    s_n = xc.strides[-1] if batch_last else xc.strides[1]
    k_strides = tuple(s * d for s, d in zip(s_sp, dilation, strict=True))
    o_strides = tuple(s * st for s, st in zip(s_sp, stride, strict=True))
    if batch_last:
        shape, strides = (
            (xc.shape[0], *kernel, *out, n),
            (xc.strides[0], *k_strides, *o_strides, s_n),
        )
    else:
        shape, strides = (
            (xc.shape[0], *kernel, n, *out),
            (xc.strides[0], *k_strides, s_n, *o_strides),
        )
    view = xp.lib.stride_tricks.as_strided(xc, shape=shape, strides=strides)
    return xp.ascontiguousarray(view), out


def col2im(
    col: Any,
    x_shape: Sequence[int],
    kernel: Sequence[int],
    pad: Sequence[int],
    stride: Sequence[int],
    dilation: Sequence[int],
    batch_last: bool,
) -> Any:
    """The adjoint of :func:`im2col`: ``col`` summed back into an (N, C, *spatial) array
    (returned as a view of a channels-major buffer, see :func:`from_channels_major`)."""
    xp = get_array_module(col)
    n, c = x_shape[:2]
    spatial = tuple(x_shape[2:])
    nk = len(kernel)
    if pointwise(kernel, pad, stride):
        # A pointwise (1x1) convolution: the columns are the image already, nothing to sum.
        lead = (c,) + (spatial + (n,) if batch_last else (n,) + spatial)
        return from_channels_major(col.reshape(lead), batch_last)
    if _im2col_cpu.applies(col, nk, batch_last):  # compiled loops: one write per cell
        return from_channels_major(_im2col_cpu.col2im(col, spatial, pad, stride, dilation), True)
    padded = tuple(s + 2 * p for s, p in zip(spatial, pad, strict=True))
    if batch_last:
        out = col.shape[1 + nk : 1 + 2 * nk]
        buf = xp.zeros((c, *padded, n), dtype=col.dtype)
        lead, tail = (slice(None),), (slice(None),)
    else:
        out = col.shape[2 + nk :]
        buf = xp.zeros((c, n, *padded), dtype=col.dtype)
        lead, tail = (slice(None), slice(None)), ()
    # Windows that do not overlap (stride >= dilated kernel) write disjoint cells: assign.
    disjoint = all(s >= d * (k - 1) + 1 for s, d, k in zip(stride, dilation, kernel, strict=True))
    for offset in itertools.product(*(range(k) for k in kernel)):
        target = lead + window_slices(offset, dilation, stride, out) + tail
        src = col[(slice(None),) + offset]
        if disjoint:
            buf[target] = src
        else:
            buf[target] += src
    if any(pad):
        buf = buf[lead + tuple(slice(p, p + s) for p, s in zip(pad, spatial, strict=True)) + tail]
    return from_channels_major(buf, batch_last)


def prod(values: Sequence[int]) -> int:
    return math.prod(values)

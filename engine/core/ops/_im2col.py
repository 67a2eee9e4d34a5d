"""Private helpers shared by the convolution and pooling kernels: argument normalisation,
output-size rules, im2col (one strided view + one copy) and col2im (one strided add per kernel
offset, never ``np.add.at``).

Layout. ``im2col`` returns columns shaped ``(C, *kernel, N, *out)``: channels and kernel offsets
first, batch and output positions last. Convolution then is *one* GEMM
``W (O, C*K) @ col (C*K, N*P) -> (O, N*P)`` for the whole batch (BLAS sees one large matrix instead
of N small ones), and the result is handed out as the ``(N, O, *out)`` view of that buffer. Element
wise kernels keep that memory order (NumPy's ``order='K'``), so the gradient that comes back is
usually already laid out as ``(O, N*P)`` and the backward GEMMs need no transposed copy either.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from typing import Any

from engine.core.backend import get_array_module


def as_int_tuple(value: Any, n: int, default: int, fn: str, name: str) -> tuple[int, ...]:
    """``value`` (None, an int or a sequence) as ``n`` ints, or a ValueError naming the argument."""
    if value is None:
        return (default,) * n
    if isinstance(value, (int,)) or (hasattr(value, "__index__") and not hasattr(value, "__len__")):
        return (int(value),) * n
    out = tuple(int(v) for v in value)
    if len(out) != n:
        raise ValueError(
            f"{fn}: {name} needs {n} values, one per spatial axis. Received: {name}={tuple(value)}"
        )
    return out


def conv_out_size(size: int, k: int, pad: int, stride: int, dilation: int) -> int:
    """nnabla's convolution output size along one axis."""
    return (size + 2 * pad - dilation * (k - 1) - 1) // stride + 1


def deconv_out_size(size: int, k: int, pad: int, stride: int, dilation: int, out_pad: int = 0) -> int:
    """nnabla's deconvolution output size along one axis (the inverse of ``conv_out_size``)."""
    return (size - 1) * stride - 2 * pad + dilation * (k - 1) + 1 + out_pad


def pad_spatial(x: Any, before: Sequence[int], after: Sequence[int], value: float = 0.0) -> Any:
    """``x`` padded on its trailing ``len(before)`` axes (a new contiguous array)."""
    xp = get_array_module(x)
    lead = x.ndim - len(before)
    shape = x.shape[:lead] + tuple(n + b + a for n, b, a in zip(x.shape[lead:], before, after))
    out = xp.full(shape, value, dtype=x.dtype) if value != 0 else xp.zeros(shape, dtype=x.dtype)
    inner = tuple(slice(b, b + n) for b, n in zip(before, x.shape[lead:]))
    out[(Ellipsis,) + inner] = x
    return out


def window_slices(
    offset: Sequence[int], dilation: Sequence[int], stride: Sequence[int], out: Sequence[int]
) -> tuple[slice, ...]:
    """The strided slices picking, for every output position, the input cell at kernel ``offset``."""
    return tuple(
        slice(o * d, o * d + s * (n - 1) + 1, s) for o, d, s, n in zip(offset, dilation, stride, out)
    )


def im2col(
    x: Any,
    kernel: Sequence[int],
    pad: Sequence[int],
    stride: Sequence[int],
    dilation: Sequence[int],
) -> tuple[Any, tuple[int, ...]]:
    """Columns of ``x`` (N, C, *spatial), any strides: returns (col (C, *kernel, N, *out), out)."""
    xp = get_array_module(x)
    if any(pad):
        x = pad_spatial(x, pad, pad)
    n, c = x.shape[:2]
    out = tuple(
        conv_out_size(size, k, 0, s, d) for size, k, s, d in zip(x.shape[2:], kernel, stride, dilation)
    )
    s_n, s_c = x.strides[:2]
    s_sp = x.strides[2:]
    shape = (c, *kernel, n, *out)
    strides = (
        s_c,
        *(s * d for s, d in zip(s_sp, dilation)),
        s_n,
        *(s * st for s, st in zip(s_sp, stride)),
    )
    view = xp.lib.stride_tricks.as_strided(x, shape=shape, strides=strides)
    return xp.ascontiguousarray(view), out


def col2im(
    col: Any,
    x_shape: Sequence[int],
    kernel: Sequence[int],
    pad: Sequence[int],
    stride: Sequence[int],
    dilation: Sequence[int],
) -> Any:
    """The adjoint of :func:`im2col`: ``col`` (C, *kernel, N, *out) summed back into an
    ``(N, C, *spatial)`` array (returned as a view of a ``(C, N, *spatial)`` buffer)."""
    xp = get_array_module(col)
    n, c = x_shape[:2]
    spatial = tuple(x_shape[2:])
    nk = len(kernel)
    out = col.shape[2 + nk :]
    padded = tuple(s + 2 * p for s, p in zip(spatial, pad))
    gx = xp.zeros((c, n, *padded), dtype=col.dtype)
    # Windows that do not overlap (stride >= dilated kernel) write disjoint cells: assign.
    disjoint = all(s >= d * (k - 1) + 1 for s, d, k in zip(stride, dilation, kernel)) and all(
        d >= 1 for d in dilation
    )
    for offset in itertools.product(*(range(k) for k in kernel)):
        target = (slice(None), slice(None)) + window_slices(offset, dilation, stride, out)
        src = col[(slice(None),) + offset]
        if disjoint:
            gx[target] = src
        else:
            gx[target] += src
    if any(pad):
        gx = gx[(slice(None), slice(None)) + tuple(slice(p, p + s) for p, s in zip(pad, spatial))]
    return gx.swapaxes(0, 1)


def prod(values: Sequence[int]) -> int:
    return math.prod(values)

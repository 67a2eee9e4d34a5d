"""2-D max pooling as compiled CPU loops (numba), an optional fast path beside the ``xp`` kernel
of :class:`engine.core.ops.pooling.MaxPooling`, which stays the reference (tests compare them).

Why: the ``xp`` backward compares every kernel offset's slice with the output, multiplies and
counts hits (three passes per offset), then, when a window holds its maximum twice (common after
a ReLU: the zeros), does it all again to keep nnabla's first maximum only. Here the forward
notes which cell of its window each output came from, and the backward adds each output's
gradient to that one cell: a LeNet epoch spent a fifth of its time in max pooling.

Semantics are the ``xp`` kernel's: cells outside the image (padding, partial windows) count as
-inf; the first maximum in row-major scan order wins, a padded one taking the gradient away;
a window holding NaN outputs NaN and passes no gradient. The loops serve NumPy float32/float64
images laid out (C, H, W, N) (batch innermost, as convolutions hand them out), (N, H, W, C) or
(N, C, H, W).
"""

from __future__ import annotations

from types import ModuleType
from typing import Any, NamedTuple

import numpy as np

from engine.core.ops import _jit, _standins

NO_CELL = -1  # the window's maximum lies in the padding, or is NaN: no gradient


def _build(numba: ModuleType) -> dict[str, Any]:
    """The compiled kernels (built on first use, cached on disk)."""

    # The loops over samples (n) are branch-free selects, so they run in vector lanes.
    @_jit.njit(numba)
    def forward(x, kh, kw, sh, sw, ph, pw, y, cell):  # pragma: no cover - compiled
        c_n, h_n, w_n, n_n = x.shape
        _, oh, ow, _ = y.shape
        for c in range(c_n):
            for i in range(oh):
                for j in range(ow):
                    best, arg = y[c, i, j], cell[c, i, j]
                    best[:] = -np.inf  # a padded first cell: -inf, and no cell to credit
                    arg[:] = NO_CELL
                    for k in range(kh * kw):
                        r, q = i * sh + k // kw - ph, j * sw + k % kw - pw
                        if r < 0 or r >= h_n or q < 0 or q >= w_n:
                            continue  # padded cells (-inf) never beat an earlier cell
                        row = x[c, r, q]
                        for n in range(n_n):
                            v, b = row[n], best[n]
                            # a strictly larger value, a NaN, or the first cell (when inside)
                            take = (v > b) | (v != v) | ((k == 0) & (b == b))
                            best[n] = v if take else b
                            arg[n] = k if take else arg[n]
                    for n in range(n_n):
                        if best[n] != best[n]:
                            arg[n] = NO_CELL  # NaN: no gradient, as in the xp kernel

    @_jit.njit(numba)
    def backward(gy, cell, kh, kw, sh, sw, ph, pw, gx):  # pragma: no cover - compiled
        c_n, oh, ow, n_n = gy.shape
        _, h_n, w_n, _ = gx.shape
        for c in range(c_n):
            for i in range(oh):
                for j in range(ow):
                    g, arg = gy[c, i, j], cell[c, i, j]
                    for k in range(kh * kw):
                        r, q = i * sh + k // kw - ph, j * sw + k % kw - pw
                        if r < 0 or r >= h_n or q < 0 or q >= w_n:
                            continue
                        dst = gx[c, r, q]
                        for n in range(n_n):
                            dst[n] += g[n] if arg[n] == k else 0.0

    return dict(forward=forward, backward=backward)


_compile = _jit.kernels(_build)


# The memory orders of an (N, C, H, W) array the loops take, as the axes order of the
# (outer, H, W, inner) array they index: batch innermost (as convolutions hand activations
# around), channel-last, and plain NCHW (outer N*C, inner 1).
_ORDERS = {"chwn": (1, 2, 3, 0), "nhwc": (0, 2, 3, 1)}


def _layout(a: Any) -> str | None:
    """Which of the loops' memory orders the (N, C, H, W) array ``a`` has, or None."""
    for name, order in _ORDERS.items():
        if a.transpose(order).flags.c_contiguous:
            return name
    return "nchw" if a.flags.c_contiguous else None


def _to4(a: Any, layout: str) -> Any:
    """(N, C, H, W) as the contiguous (outer, H, W, inner) array the loops index."""
    if layout == "nchw":
        return np.ascontiguousarray(a).reshape(-1, *a.shape[2:], 1)
    return np.ascontiguousarray(a.transpose(_ORDERS[layout]))


def _from4(a4: Any, layout: str, channels: int) -> Any:
    """The inverse of :func:`_to4`: an (N, C, H, W) view."""
    if layout == "nchw":
        return a4.reshape(-1, channels, *a4.shape[1:3])
    return a4.transpose(np.argsort(_ORDERS[layout]))


def applies(xc: Any, nk: int) -> bool:
    """Whether the loops serve this (N, C, H, W) input."""
    return (
        nk == 2
        and type(xc) is np.ndarray
        and xc.ndim == 4
        and xc.dtype in (np.float32, np.float64)
        and xc.size > 0
        and _layout(xc) is not None
        and _compile() is not None
    )


class Cells(NamedTuple):
    """Where each output of :func:`forward` came from, for :func:`backward`."""

    index: Any  # the window cell (row-major) per output, or NO_CELL
    layout: str
    x_shape: tuple[int, ...]
    geometry: tuple[int, ...]  # kernel, stride, pad


def forward(xc: Any, kernel, stride, pad, out) -> tuple[Any, Cells]:
    """The (N, C, *out) maxima of an :func:`applies` input, in its layout, and their cells."""
    layout = _layout(xc)
    x4 = _to4(xc, layout)
    shape = (x4.shape[0], *out, x4.shape[-1])
    y4 = np.empty(shape, dtype=xc.dtype)
    index = np.empty(shape, dtype=np.int32)
    geometry = (*kernel, *stride, *pad)
    kernel = _jit.usable(_compile()["forward"], _standins.pool_forward)  # NumPy: compiled elsewhere
    kernel(x4, *geometry, y4, index)
    return _from4(y4, layout, xc.shape[1]), Cells(index, layout, xc.shape, geometry)


def backward(gy: Any, cells: Cells) -> Any:
    """The (N, C, H, W) input gradient: each output's gradient added to the cell it came from."""
    g4 = _to4(gy, cells.layout)
    n, c, h, w = cells.x_shape
    outer, inner = {"chwn": (c, n), "nhwc": (n, c), "nchw": (n * c, 1)}[cells.layout]
    gx4 = np.zeros((outer, h, w, inner), dtype=gy.dtype)
    kernel = _compile()["backward"]
    if _standins.pool_backward_exact(*cells.geometry[:4]):  # NumPy while compiled elsewhere
        kernel = _jit.usable(kernel, _standins.pool_backward)
    kernel(g4, cells.index, *cells.geometry, gx4)
    return _from4(gx4, cells.layout, c)

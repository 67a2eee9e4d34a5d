"""A direct CPU kernel for 2-D depthwise convolution (one input and one output map per group), an
optional fast path beside the generic im2col + batched GEMM of :mod:`engine.core.ops.basic`.

Why: with one channel per group, im2col writes ``prod(kernel)`` copies of the activation, the GEMM
is C tiny products and the input gradient goes through a ``prod(kernel)``-times larger column
buffer and col2im; NumPy cannot fuse those passes. The loops below (compiled by numba) read the
input once per kernel offset from cache (skipping the zero padding rather than copying it) and
write the output, the input gradient and the weight gradient directly, on the batch-innermost
channels-major layout the convolutions hand around (see :mod:`engine.core.ops._im2col`), so the
innermost loop runs over contiguous samples. The input gradient comes out unpadded and
contiguous, as the layers below want it.

It serves NumPy float32/float64 arrays with that layout when numba is installed; everything else
(CuPy, float16, 1-D/3-D, small strided batches, multipliers > 1) takes the generic path, which stays
the reference: tests compare the two on odd shapes. The vector kernels share their channels between
BLAS's threads (:func:`engine.core.ops._threads.run_rows`) when the layer is large enough; the
scalar loops stay on one thread.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

import numpy as np

from engine.core import optional
from engine.core.ops import _jit, _threads
from engine.core.ops._aligned import aligned_empty


def _build(numba: ModuleType) -> dict[str, Any]:
    """The compiled kernels (built on first use, cached on disk)."""

    @_jit.njit(numba)
    def forward(x, w, ph, pw, sh, sw, dh, dw, y):  # pragma: no cover - compiled
        c_n, h_n, w_n = x.shape[:3]
        _, ho, wo, n_n = y.shape
        kh, kw = w.shape[1], w.shape[2]
        for c in range(c_n):
            for i in range(ho):
                for j in range(wo):
                    acc = y[c, i, j]
                    acc[:] = 0
                    for a in range(kh):
                        r = i * sh + a * dh - ph
                        if r < 0 or r >= h_n:
                            continue  # the window's row lies in the zero padding
                        for b in range(kw):
                            q = j * sw + b * dw - pw
                            if q < 0 or q >= w_n:
                                continue
                            wv = w[c, a, b]
                            row = x[c, r, q]
                            for n in range(n_n):
                                acc[n] += wv * row[n]

    @_jit.njit(numba)
    def backward(x, w, gy, ph, pw, sh, sw, dh, dw, gx, gw, want_gx, want_gw):  # pragma: no cover
        c_n, h_n, w_n = x.shape[:3]
        _, ho, wo, n_n = gy.shape
        kh, kw = w.shape[1], w.shape[2]
        # Weight-gradient partial sums per sample lane (vectorizable), summed up in float64.
        lanes = np.zeros((kh, kw, n_n), dtype=gy.dtype)
        for c in range(c_n):
            lanes[:] = 0
            for i in range(ho):
                for j in range(wo):
                    g = gy[c, i, j]
                    for a in range(kh):
                        r = i * sh + a * dh - ph
                        if r < 0 or r >= h_n:
                            continue
                        for b in range(kw):
                            q = j * sw + b * dw - pw
                            if q < 0 or q >= w_n:
                                continue
                            if want_gw:
                                row, lane = x[c, r, q], lanes[a, b]
                                for n in range(n_n):
                                    lane[n] += g[n] * row[n]
                            if want_gx:
                                wv, grow = w[c, a, b], gx[c, r, q]
                                for n in range(n_n):
                                    grow[n] += wv * g[n]
            if want_gw:
                for a in range(kh):
                    for b in range(kw):
                        s = 0.0
                        for n in range(n_n):
                            s += lanes[a, b, n]
                        gw[c, a, b] = s

    _depthwise_cpu = optional.load("engine.core.ops._depthwise_cpu")  # imports numba

    return dict(
        forward=forward,
        backward=backward,
        vforward=_depthwise_cpu.forward,
        vinput_grad=_depthwise_cpu.input_grad,
        vweight_grad=_depthwise_cpu.weight_grad,
        lanes=_depthwise_cpu.LANES,
    )


_compile = _jit.kernels(_build)
# A vector kernel's channels split between threads when the elements it reads and writes,
# times this, give each thread _threads.MIN_ELEMENTS_PER_THREAD (see _split_size): 1/32,
# in effect off below 64 MB layers, as the Intel Xeon (2 cores, bench_kernel_split.py
# --threshold 1, load 2-4 from other jobs) gave no clear answer: with the second core free
# (best of 40 calls) two threads took 0.64-0.80x one thread's time for the MobileNet-style
# step's two largest layers (16 maps of 32x32 at stride 2, 32 of 16x16; 300-850 us a call)
# and 0.54-0.59x at 16 MB, but 1.1-1.3x (medians) while other jobs held it; small layers
# lost either way, and splitting those two in the step gave 0.99-1.04x at load 1.2: off.
# Re-measure on a quiet machine (2 would split those two layers); the split
# is tested (the same bytes as one thread).
DEPTHWISE_SCALE = 1 / 32


def applies(x4: Any, maps: int, group: int, nk: int, batch_last: bool) -> bool:
    """Whether the direct kernel serves this convolution (and numba is there)."""
    return (
        type(x4) is np.ndarray
        and x4.dtype in (np.float32, np.float64)
        and nk == 2
        and batch_last
        and group == x4.shape[1] == maps
        and _compile() is not None
    )


def _geometry(x: Any, w: Any, out, pad, stride, dilation) -> Any | None:
    """The vector kernels' geometry array (see :mod:`._depthwise_cpu`), or None when they do
    not serve ``x``: float32 with a batch of whole vectors only."""
    kernels = _compile()
    if x.dtype != np.float32 or x.shape[-1] % kernels["lanes"] or not x.flags.c_contiguous:
        return None
    return np.array((*x.shape, *w.shape[1:], *out, *pad, *stride, *dilation), dtype=np.int64)


def _split_size(x: Any, y: Any) -> int:
    """The size :func:`engine.core.ops._threads.run_rows` weighs a vector kernel's split by
    (see DEPTHWISE_SCALE): the elements of the input and the output (or output gradient)."""
    return int((x.size + y.size) * DEPTHWISE_SCALE)


def forward(x: Any, w: Any, pad, stride, dilation, out) -> Any:
    """``x`` (C, H, W, N) contiguous, ``w`` (C, kh, kw) -> y (C, Ho, Wo, N); the zero padding
    is skipped, not copied."""
    y = aligned_empty((x.shape[0], *out, x.shape[-1]), x.dtype)
    w = np.ascontiguousarray(w, dtype=x.dtype)
    geo = _geometry(x, w, out, pad, stride, dilation)
    if geo is not None:
        args = (x.reshape(-1), w.reshape(-1), geo, y.reshape(-1))
        _threads.run_rows(_compile()["vforward"], args, x.shape[0], _split_size(x, y))
        return y
    _compile()["forward"](x, w, *pad, *stride, *dilation, y)
    return y


def input_grad(x: Any, w: Any, gy: Any, pad, stride, dilation) -> Any:
    """The input gradient of :func:`forward`, (C, H, W, N) contiguous."""
    return backward(x, w, gy, pad, stride, dilation, True, False)[0]


def weight_grad(x: Any, w: Any, gy: Any, pad, stride, dilation, split: bool = True) -> Any:
    """The weight gradient of :func:`forward`, (C, kh, kw); ``split``: its channels shared
    between BLAS's threads when large enough, else all computed on this thread (the same
    numbers: each channel's sums are one call's)."""
    return backward(x, w, gy, pad, stride, dilation, False, True, split)[1]


def backward(
    x: Any, w: Any, gy: Any, pad, stride, dilation, want_gx: bool, want_gw: bool, split=True
):
    """Gradients of :func:`forward`: (gx (C, H, W, N) contiguous or None, gw (C, kh, kw) or
    None); ``split`` as :func:`weight_grad`'s."""
    w = np.ascontiguousarray(w, dtype=x.dtype)
    gy = np.ascontiguousarray(gy, dtype=x.dtype)
    geo = _geometry(x, w, gy.shape[1:3], pad, stride, dilation)
    if geo is not None:
        gx = gw = None
        size, c = _split_size(x, gy), x.shape[0]
        if want_gx:
            gx = aligned_empty(x.shape, x.dtype)
            args = (w.reshape(-1), gy.reshape(-1), geo, gx.reshape(-1))
            _threads.run_rows(_compile()["vinput_grad"], args, c, size)
        if want_gw:
            gw = np.empty(w.shape, dtype=x.dtype)
            args = (x.reshape(-1), gy.reshape(-1), geo, gw.reshape(-1))
            if split:
                _threads.run_rows(_compile()["vweight_grad"], args, c, size)
            else:
                _compile()["vweight_grad"](*args, 0, c)
        return gx, gw
    gx = np.zeros(x.shape if want_gx else (1, 1, 1, 1), dtype=x.dtype)
    gw = np.zeros(w.shape if want_gw else (1, 1, 1), dtype=np.float64)
    _compile()["backward"](x, w, gy, *pad, *stride, *dilation, gx, gw, want_gx, want_gw)
    return (gx if want_gx else None), (gw.astype(x.dtype) if want_gw else None)

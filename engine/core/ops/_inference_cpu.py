"""Inference-only CPU loops (numba) for the runtime's test-mode plan
(:mod:`engine.runtime.inference_plan`), each run on as many threads as NumPy's BLAS uses.

* :func:`bias_act`: a layer's bias and the activation after it (ReLU or ReLU6) in one pass over
  the channels-major output (``y = max(y + b, 0)`` row by row), where NumPy makes two or three.
* :func:`max_pooling`: 2-D max pooling that only keeps the maxima. The training loops
  (:mod:`engine.core.ops._pooling_cpu`) also note which cell of each window won, for the
  backward; the values, NaN and padding rules are theirs (a NaN in a window gives NaN, cells
  outside the image never win).
* :func:`add_act`: a residual sum into its first operand and the activation after it, one pass.
* :func:`channel_mean`: global average pooling of a (C, M, N) buffer, channel by channel.
* :func:`depthwise`: a 2-D depthwise convolution with its bias and activation applied to each
  output vector before it is stored (float32 batches of whole SIMD vectors,
  :mod:`engine.core.ops._inference_depthwise`).

Threads: each loop takes a ``[lo, hi)`` range of independent outputs (channels, or runs of
elements), and :func:`_split` hands the ranges to the kernels' thread pool
(:mod:`engine.core.ops._threads`, as many threads as BLAS uses). No output is a sum over
ranges, and every output is computed by the same instructions whatever range it falls in, so
the results are the same bytes on one thread or many (tests compare). Short loops stay on the
calling thread (:data:`MIN_PARALLEL_NS`): a hand-off costs tens of microseconds. numba's own
``prange`` pool (OpenMP here) was tried: its workers spin after each loop and took the cores
from OpenBLAS, onnxruntime and the convolutions' pool (2-9x slower plans in paired rounds),
passive waiting lost its quick hand-off, and its kernels compile several seconds longer.
While the plan runs a pass on one thread per part (:func:`run_parts`) or on this thread alone
(:func:`run_alone`) every loop stays on its thread without asking BLAS its count (a ctypes
call, which lets the GIL go to the other part's thread mid-op).

Nothing here records anything for a backward; the training kernels are untouched. Only NumPy
float32/float64 contiguous arrays; everything else takes NumPy (the plan's fallback).
"""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType
from typing import Any

import numpy as np

from engine.core import optional
from engine.core.ops import _jit, _pooling_cpu, _threads
from engine.core.ops._aligned import aligned_empty
from engine.core.ops.pooling import _Windows

# "alone": a pass runs its loops on one thread (run_parts, run_alone), known without asking
# BLAS its count (a ctypes call that lets the GIL go: the other part's thread may take it)
_state = {"alone": False}
# Activation codes of the loops
NONE, RELU, RELU6 = 0, 1, 2
ACT_CODES = {"": NONE, "ReLU": RELU, "ReLU6": RELU6}
# A loop is split between threads when it would take about this long on one (nanoseconds):
# a hand-off to the kernels' pool costs 35-40 microseconds here, and a split saves half.
MIN_PARALLEL_NS = 100_000
# Rough single-thread cost per unit of each loop's work (ns per element touched, or per
# multiply-add), measured on the Intel Xeon of docs/benchmarks.md section 4 (one thread):
# memory-bound passes ~0.3 ns/element, the depthwise loop ~0.08 ns and the 1x1 loop ~0.03 ns
# per multiply-add.
NS_PER_ELEMENT, NS_PER_DEPTHWISE_MAC, NS_PER_POINTWISE_MAC = 0.3, 0.08, 0.03


def _build(numba: ModuleType) -> dict[str, Any]:
    """The compiled kernels (built on first use, cached on disk)."""

    @_jit.njit(numba)
    def bias_act(y, b, act, lo, hi):  # pragma: no cover - compiled
        m_n = y.shape[1]
        for c in range(lo, hi):
            row = y[c]
            bv = b[c]
            if act == 1:
                for j in range(m_n):
                    v = row[j] + bv
                    row[j] = 0.0 if v < 0 else v  # nan < 0 is false: nan stays, as np.maximum
            elif act == 2:
                for j in range(m_n):
                    v = row[j] + bv
                    row[j] = 0.0 if v < 0 else (6.0 if v > 6 else v)  # np.clip(v, 0, 6)
            else:
                for j in range(m_n):
                    row[j] += bv

    @_jit.njit(numba)
    def bias_res_act(y, b, r, act, lo, hi):  # pragma: no cover - compiled
        m_n = y.shape[1]
        for c in range(lo, hi):
            row, res = y[c], r[c]
            bv = b[c]
            for j in range(m_n):
                v = row[j] + bv
                v = v + res[j]  # (y + b) + r: the bias pass, then the Add2
                if act == 1:
                    v = 0.0 if v < 0 else v
                elif act == 2:
                    v = 0.0 if v < 0 else (6.0 if v > 6 else v)
                row[j] = v

    @_jit.njit(numba)
    def add_act(x0, x1, act, lo, hi):  # pragma: no cover - compiled
        if act == 1:
            for i in range(lo, hi):
                v = x0[i] + x1[i]
                x0[i] = 0.0 if v < 0 else v
        elif act == 2:
            for i in range(lo, hi):
                v = x0[i] + x1[i]
                x0[i] = 0.0 if v < 0 else (6.0 if v > 6 else v)
        else:
            for i in range(lo, hi):
                x0[i] += x1[i]

    @_jit.njit(numba)
    def channel_mean(x, scale, y, lo, hi):  # pragma: no cover - compiled
        _, m_n, n_n = x.shape
        for c in range(lo, hi):
            out = y[c]
            for n in range(n_n):
                out[n] = 0.0
            for m in range(m_n):
                row = x[c, m]
                for n in range(n_n):
                    out[n] += row[n]
            for n in range(n_n):
                out[n] *= scale

    # The loops over samples (n) are branch-free selects, so they run in vector lanes.
    @_jit.njit(numba)
    def max_pool(x, kh, kw, sh, sw, ph, pw, y, lo, hi):  # pragma: no cover - compiled
        _, h_n, w_n, n_n = x.shape
        _, oh, ow, _ = y.shape
        for c in range(lo, hi):
            for i in range(oh):
                for j in range(ow):
                    best = y[c, i, j]
                    for n in range(n_n):
                        best[n] = -np.inf
                    for a in range(kh):
                        r = i * sh + a - ph
                        if r < 0 or r >= h_n:
                            continue  # padded cells (-inf) never win
                        for b in range(kw):
                            q = j * sw + b - pw
                            if q < 0 or q >= w_n:
                                continue
                            row = x[c, r, q]
                            for n in range(n_n):
                                v, m = row[n], best[n]
                                # a larger value or a NaN takes over; a NaN stays (v > nan: no)
                                best[n] = v if (v > m) | (v != v) else m

    simd = optional.load("engine.core.ops._inference_simd")  # imports numba's vector types
    depthwise_loops = optional.load("engine.core.ops._inference_depthwise")
    return dict(
        bias_act=bias_act,
        bias_res_act=bias_res_act,
        add_act=add_act,
        channel_mean=channel_mean,
        max_pool=max_pool,
        depthwise_for=depthwise_loops.kernel_for,
        pointwise=simd.pointwise,
        max_pool_vectors=simd.max_pool,
        lanes=simd.LANES,
    )


_compile = _jit.kernels(_build)


def lanes() -> int | None:
    """The samples one SIMD vector of the vector loops holds (None without the loops)."""
    kernels = _compile()
    return None if kernels is None else kernels["lanes"]


def alone() -> bool:
    """Whether a pass now runs its loops on one thread (:func:`run_parts`, :func:`run_alone`):
    a kernel called then stays on its thread without asking BLAS its count."""
    return _state["alone"]


def run_parts(work: Callable[[], None], parts: int, then: Callable[[], None],
              threads: int) -> None:  # fmt: skip
    """``work()`` on ``parts`` threads at once (this one and the kernels' pool: each call
    takes parts of a batch until none is left), then ``then()`` on this thread, with BLAS and
    the kernels on one thread meanwhile; BLAS is set back to ``threads`` after.

    The test-mode plan runs a batch's parts on the threads this way (one hand-off per forward
    pass instead of one per loop). A part is taken by whichever thread is free: a partner that
    has not started when this thread is done is called off (its parts ran here)."""
    _threads.set_count(1)
    _state["alone"] = True
    try:
        _threads._share(work, parts)
        then()
    finally:
        _state["alone"] = False
        _threads.set_count(threads)


def run_alone(work: Callable[[], None], threads: int) -> None:
    """``work()`` on this thread with BLAS and the kernels on one thread (no loop split), BLAS
    set back to ``threads`` after: the plan's pass on one thread when two are slower."""
    _threads.set_count(1)
    _state["alone"] = True
    try:
        work()
    finally:
        _state["alone"] = False
        _threads.set_count(threads)


def _split(kernel: Any, args: tuple, total: int, cost_ns: float, align: int = 1) -> None:
    """``kernel(*args, lo, hi)`` over ``[0, total)``: shared between the kernels' threads
    (ranges of a multiple of ``align``) when it would take :data:`MIN_PARALLEL_NS` or more on
    one (``cost_ns``, estimated), else on this thread."""
    if cost_ns < MIN_PARALLEL_NS or _state["alone"] or _threads.count() == 1:
        kernel(*args, 0, total)
    else:
        _threads.run(kernel, args, total, align)


def _served(a: Any) -> bool:
    return (
        type(a) is np.ndarray
        and a.dtype in (np.float32, np.float64)
        and a.flags.c_contiguous
        and a.flags.writeable
    )


def bias_act(y2: Any, b: Any, act: str, residual: Any = None) -> bool:
    """``y2`` (C, M) contiguous += ``b`` (C,) per row (then ``+= residual``, a (C, M) array of
    the same layout), then ``act`` ("", "ReLU", "ReLU6"), in place. False (nothing done) when
    the loops do not serve these arrays."""
    if not (_served(y2) and y2.ndim == 2 and b.size == y2.shape[0] and act in ACT_CODES):
        return False
    if residual is not None and not (
        type(residual) is np.ndarray
        and residual.dtype == y2.dtype
        and residual.shape == y2.shape
        and residual.flags.c_contiguous
    ):
        return False
    kernels = _compile()
    if kernels is None:
        return False
    b = np.ascontiguousarray(b.reshape(-1), dtype=y2.dtype)
    cost = y2.size * NS_PER_ELEMENT
    if residual is None:
        _split(kernels["bias_act"], (y2, b, ACT_CODES[act]), y2.shape[0], cost)
    else:
        args = (y2, b, residual, ACT_CODES[act])
        _split(kernels["bias_res_act"], args, y2.shape[0], cost * 1.5)
    return True


def add_act(x0: Any, x1: Any, act: str) -> bool:
    """``x0 += x1`` then ``act``, in place, for two arrays with the same contiguous memory order
    (any axis order); False (nothing done) when the loops do not serve them."""
    if not (
        type(x1) is np.ndarray
        and x1.dtype == x0.dtype
        and x0.shape == x1.shape
        and x0.strides == x1.strides
        and act in ACT_CODES
    ):
        return False
    f0, f1 = _flat(x0), _flat(x1)
    if f0 is None or f1 is None or not _served(f0):
        return False
    kernels = _compile()
    if kernels is None:
        return False
    args = (f0, f1, ACT_CODES[act])
    _split(kernels["add_act"], args, f0.size, f0.size * NS_PER_ELEMENT, 64)
    return True


def _flat(a: np.ndarray) -> np.ndarray | None:
    """The 1-D view of all of ``a``'s memory when it is contiguous in some axis order."""
    if min(a.strides, default=0) < 0:
        return None
    order = sorted(range(a.ndim), key=lambda i: -a.strides[i])
    t = a.transpose(order)
    return t.reshape(-1) if t.flags.c_contiguous else None


def channel_mean(buf: Any) -> Any:
    """(C, M, N) contiguous -> (C, N): the mean over M, or None when the loops do not serve."""
    if not (type(buf) is np.ndarray and buf.ndim == 3 and buf.dtype in (np.float32, np.float64)):
        return None
    if not buf.flags.c_contiguous:
        return None
    kernels = _compile()
    if kernels is None:
        return None
    y = np.empty((buf.shape[0], buf.shape[2]), dtype=buf.dtype)
    scale = buf.dtype.type(1 / buf.shape[1])
    _split(kernels["channel_mean"], (buf, scale, y), buf.shape[0], buf.size * NS_PER_ELEMENT)
    return y


def max_pooling(x: Any, kernel, stride=None, ignore_border: bool = True, pad=None,
                channel_last: bool = False) -> Any:  # fmt: skip
    """``F.max_pooling``'s values (an array) where the loops serve ``x``, else None."""
    if channel_last or len(kernel) != 2 or not _pooling_cpu.applies(x, 2):
        return None
    kernels = _compile()
    if kernels is None:
        return None
    win = _Windows("max_pooling", x.shape, kernel, stride, ignore_border, pad, False)
    layout = _pooling_cpu._layout(x)
    x4 = _pooling_cpu._to4(x, layout)
    y4 = np.empty((x4.shape[0], *win.out, x4.shape[-1]), dtype=x.dtype)
    cost = x4.size * NS_PER_ELEMENT
    if x4.dtype == np.float32 and x4.shape[-1] % kernels["lanes"] == 0:  # whole vectors
        geo = np.array((*x4.shape, *win.kernel, *win.out, *win.stride, *win.before), np.int64)
        args = (x4.reshape(-1), geo, y4.reshape(-1))
        _split(kernels["max_pool_vectors"], args, x4.shape[0], cost / 4)
    else:
        args = (x4, *win.kernel, *win.stride, *win.before, y4)
        _split(kernels["max_pool"], args, x4.shape[0], cost)
    return _pooling_cpu._from4(y4, layout, x.shape[1])


def depthwise(xc: Any, w: Any, b: Any, pad, stride, dilation, out, act: str) -> Any:
    """A depthwise 2-D convolution of ``xc`` (C, H, W, N) contiguous float32 with ``w``
    (C, kh, kw), then ``+ b`` (C,) (or nothing when None) and ``act``: y (C, Ho, Wo, N); None
    when the vector loop does not serve (another dtype, a batch that is not whole vectors)."""
    kernels = _compile()
    if kernels is None or act not in ACT_CODES:
        return None
    if not (type(xc) is np.ndarray and xc.dtype == np.float32 and xc.ndim == 4):
        return None
    if xc.shape[-1] % kernels["lanes"] or not xc.flags.c_contiguous:
        return None
    c = xc.shape[0]
    if w.ndim != 3 or w.shape[0] != c or (b is not None and b.size != c):
        return None
    kh, kw = w.shape[1:]
    y = aligned_empty((c, *out, xc.shape[-1]), np.float32)
    w = np.ascontiguousarray(w, dtype=np.float32).reshape(-1)
    if b is None:
        bias, has_bias = np.zeros(c, dtype=np.float32), False
    else:
        bias, has_bias = np.ascontiguousarray(b, dtype=np.float32).reshape(-1), True
    geo = np.array((*xc.shape, kh, kw, *out, *pad, *stride, *dilation), dtype=np.int64)
    args = (xc.reshape(-1), w, bias, has_bias, ACT_CODES[act], geo, y.reshape(-1))
    kernel = kernels["depthwise_for"](xc.shape[-1])
    _split(kernel, args, c, y.size * kh * kw * NS_PER_DEPTHWISE_MAC)
    return y


def pointwise(w2: Any, x2: Any, b: Any, act: str) -> Any:
    """``act(w2 (O, K) @ x2 (K, M) + b (O,))`` (no bias when ``b`` is None) as a new (O, M)
    array, the bias and activation applied in the product's registers; None when the vector
    loop does not serve (not float32, M not whole vectors, not contiguous)."""
    kernels = _compile()
    if kernels is None or act not in ACT_CODES:
        return None
    lanes = kernels["lanes"]
    if not (
        type(x2) is np.ndarray
        and x2.dtype == np.float32
        and w2.dtype == np.float32
        and x2.ndim == 2
        and x2.flags.c_contiguous
        and x2.shape[1] % lanes == 0
        and w2.shape[1] == x2.shape[0]
    ):
        return None
    o, m = w2.shape[0], x2.shape[1]
    if b is None:
        bias, has_bias = np.zeros(o, dtype=np.float32), False
    else:
        bias, has_bias = np.ascontiguousarray(b, dtype=np.float32).reshape(-1), True
    y = aligned_empty((o, m), np.float32)
    dims = np.array((x2.shape[0], o, m), dtype=np.int64)
    args = (x2.reshape(-1), np.ascontiguousarray(w2).reshape(-1), bias, has_bias,
            ACT_CODES[act], dims, y.reshape(-1))  # fmt: skip
    cost = y.size * x2.shape[0] * NS_PER_POINTWISE_MAC
    _split(kernels["pointwise"], args, m // lanes, cost, 4)  # whole tiles of 4 vectors
    return y

"""Matrix products whose numbers do not depend on how many threads compute them.

OpenBLAS's one-thread and threaded GEMM drivers (driver/level3/level3.c, level3_thread.c) cut
the contraction axis K into blocks of GEMM_Q alike, but split a last stretch between GEMM_Q and
2 GEMM_Q differently (one rounds half of it up to the kernel's unroll, the other does not), so
a float32 product with K over GEMM_Q (448 on an AVX-512 Xeon) sums in one order on one thread
and in another on two. Its vector products (GEMV, a batch of one) split their sums between
threads too. A training run would then depend on the thread count, and a count chosen by
timing (:mod:`engine.core.threads`) on the machine's load.

:func:`matmul` makes every float32 call one whose order is the same on any thread count:

- where the two drivers would split K's last stretch differently, K is cut into a call of
  whole GEMM_Q blocks and one of the rest (``n*Q + r``: both drivers sum each call's blocks
  alike), and the two products are added in order; elsewhere (most convolutions' K) one call;
- a product with one row or one column is cut into GEMVs small enough to run on one thread
  (each output one whole dot product).

GEMM_Q is not published by OpenBLAS and differs between its CPU kernels (a generic build, Zen,
Skylake-X, Neoverse...), so :func:`blocking` finds it once per process (20-25 ms of small
products at one and two threads; ``train`` and ``evaluate`` start it on a thread): the
smallest K at which the two thread counts differ, then a check that the cut products agree on
two threads with one thread for long and odd K. A library where that check fails (another
BLAS, a future driver) gets ``None``: products stay plain and the engine keeps one fixed
thread count (:func:`engine.core.threads.chooser`).
Products that no thread count changes (small ones run on one thread by OpenBLAS's own rule,
``M*N*K`` under 2 x 65536 x 4) are never cut. Other dtypes are not cut: training runs in
float32 (half precision is multiplied in float32).
"""

from __future__ import annotations

import threading
from typing import Any

import numpy as np

from engine.core.ops import _threads

__all__ = ["Blocking", "blocking", "matmul"]

# OpenBLAS runs a product on one thread under M*N*K = SMP_THRESHOLD_MIN x
# GEMM_MULTITHREAD_THRESHOLD (interface/gemm.c: 65536 x 4) per thread.
_ONE_THREAD_MNK = 2 * 65536 * 4
# interface/gemv.c runs a GEMV on one thread under 115,200 x GEMM_MULTITHREAD_THRESHOLD (4)
# matrix elements; a DOT threads from 10,000 (kernel/x86_64/dot.c)
_ONE_THREAD_GEMV = 115200 * 4
_ONE_THREAD_DOT = 10000
_LARGEST_Q = 2048  # the largest GEMM_Q looked for (param.h: 112-1024)
_PROBE_ROWS = 64  # probes are (64, K) @ (K, 64): threaded from K = 128
_state: dict[str, Any] = {}
_finding = threading.Lock()


def matmul(a: np.ndarray, b: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """``a @ b`` of NumPy arrays (vectors, matrices or stacks), summed in an order no thread
    count changes when both are float32 and :func:`blocking` found OpenBLAS's blocking;
    ``out`` as ``np.matmul``'s."""
    if a.dtype != np.float32 or b.dtype != np.float32:
        return np.matmul(a, b, out=out)
    if a.ndim == 1 or b.ndim == 1:  # NumPy's vector rules: the vector's axis is dropped
        a2, b2 = (a[None, :] if a.ndim == 1 else a), (b[:, None] if b.ndim == 1 else b)
        result = matmul(a2, b2)
        result = result[..., 0, :] if a.ndim == 1 else result
        return _into(result[..., 0] if b.ndim == 1 else result, out)
    m, k, n = a.shape[-2], a.shape[-1], b.shape[-1]
    vector = m == 1 or n == 1
    one_thread = k * max(m, n) < _ONE_THREAD_GEMV if vector else m * n * k < _ONE_THREAD_MNK
    if one_thread:
        return np.matmul(a, b, out=out)  # one thread whatever the count
    found = blocking()
    if found is None:
        return np.matmul(a, b, out=out)
    if vector:
        return _vector(a, b, out)
    return _sum_of_calls(a, b, found.cuts(k), out)


class Blocking:
    """OpenBLAS's float32 GEMM blocking as far as the thread count is concerned: ``q``
    (GEMM_Q) and ``unroll`` (GEMM_UNROLL_M; None when not found: every long K is cut)."""

    def __init__(self, q: int, unroll: int | None) -> None:
        self.q, self.unroll = q, unroll

    def __repr__(self) -> str:
        return f"Blocking(q={self.q}, unroll={self.unroll})"

    def same_on_any_count(self, k: int) -> bool:
        """Whether one call's sums over ``k`` are cut alike by both drivers: true when the
        last stretch (what is left once blocks of q leave less than 2q) is at most q, or when
        its halves agree (level3.c: half rounded up to the unroll; level3_thread.c: (m+1)/2)."""
        last = k if k < 2 * self.q else k - ((k - 2 * self.q) // self.q + 1) * self.q
        if last <= self.q:
            return True
        if self.unroll is None:
            return False
        return -(-(last // 2) // self.unroll) * self.unroll == (last + 1) // 2

    def cuts(self, k: int) -> list[tuple[int, int]]:
        """``[0, k)`` as one call when that sums alike on any count, else whole blocks of q in
        one call and the rest (at most q) in a second."""
        whole = k // self.q * self.q
        if self.same_on_any_count(k) or whole == k:
            return [(0, k)]
        return [(0, whole), (whole, k)]


def blocking() -> Blocking | None:
    """OpenBLAS's float32 blocking as found in this process, or None when products could not
    be made thread-count-independent (another BLAS, or the check failed). Finding it sets
    BLAS's thread count for a few milliseconds: callers that run products on several threads
    at once (the inference plan's batch parts) ask for it before they start."""
    if "found" not in _state:
        with _finding:  # the probes set the thread count: one thread of this process at a time
            if "found" not in _state:
                _state["found"] = _find_blocking()
    return _state["found"]


def _sum_of_calls(a, b, cuts, out):
    lo, hi = cuts[0]
    if len(cuts) == 1:
        return np.matmul(a, b, out=out)
    result = np.matmul(a[..., lo:hi], b[..., lo:hi, :], out=out)
    for lo, hi in cuts[1:]:
        np.add(result, np.matmul(a[..., lo:hi], b[..., lo:hi, :]), out=result)
    return result


def _into(result, out):
    if out is None:
        return result
    out[...] = result
    return out


def _vector(a, b, out):
    """A one-row (or one-column) product as GEMVs small enough for OpenBLAS to run each on one
    thread: the output cut into pieces fixed by the shapes alone, each output a whole dot
    product of one call (no sum split). Stacks, and rows too long for a piece, go to GEMM."""
    m, k, n = a.shape[-2], a.shape[-1], b.shape[-1]
    step = (_ONE_THREAD_GEMV - 1) // k
    if a.ndim != 2 or b.ndim != 2 or step < 1 or (m == n == 1 and k > _ONE_THREAD_DOT):
        return _as_gemm(a, b, out)
    result = np.empty((m, n), np.float32) if out is None else out
    for lo in range(0, max(m, n), step):
        if m == 1:
            np.matmul(a, b[:, lo : lo + step], out=result[:, lo : lo + step])
        else:
            np.matmul(a[lo : lo + step], b, out=result[lo : lo + step])
    return result


def _as_gemm(a, b, out):
    """A one-row (or one-column) product through GEMM: a zero second row (column) is added
    and dropped, so the sums are GEMM's, cut as any other."""
    m, n = a.shape[-2], b.shape[-1]
    if m == 1:
        a = np.concatenate([a, np.zeros_like(a)], axis=-2)
    if n == 1:
        b = np.concatenate([b, np.zeros_like(b)], axis=-1)
    return _into(matmul(a, b)[..., :m, :n], out)


def _find_blocking() -> Blocking | None:
    """GEMM_Q: the smallest K (from 130, in steps of 64, then of 4 back) whose one- and
    two-thread products differ lies just past it, and it is a multiple of 8 in every OpenBLAS
    build. The unroll: the last stretch 2j (q < 2j < 2q) sums alike on both counts exactly
    when the unroll divides j. Then products cut by the rule are compared at one and two
    threads for K of one to five blocks, cut and uncut."""
    rng = np.random.default_rng(0)

    def operands(longest: int) -> tuple[np.ndarray, np.ndarray]:
        a = rng.random((_PROBE_ROWS, longest), dtype=np.float32) - np.float32(0.5)
        b = rng.random((longest, _PROBE_ROWS), dtype=np.float32) - np.float32(0.5)
        return a, b

    a, b = operands(2 * _LARGEST_Q + 64)  # the scan's reach; the checks may need more below
    before = _threads.count()

    def differ(k: int, found: Blocking | None = None) -> bool:
        def product():
            x, y = a[:, :k], b[:k]
            return np.matmul(x, y) if found is None else _sum_of_calls(x, y, found.cuts(k), None)

        _threads.set_count(1)
        one = product()
        _threads.set_count(2)
        return not np.array_equal(one, product())

    try:
        # K = 2 (mod 4): half of it is odd, so the two drivers' split of a last stretch
        # differs whatever the kernel's unroll (a power of two) is.
        first = next((k for k in range(130, 2 * _LARGEST_Q, 64) if differ(k)), None)
        if first is None:
            return None
        smallest = first
        while smallest - 4 > 2 and differ(smallest - 4):
            smallest -= 4
        q = (smallest - 1) // 8 * 8
        if q < smallest - 4:
            return None
        j = -(-(q // 2 + 1) // 64) * 64  # 64 divides j, q < 2j and 2(j + 32) < 2q
        steps = (1, 2, 4, 8, 16, 32)
        unroll = next((d for d in steps if not differ(2 * (j + d))), None) if j + 32 < q else None
        found = Blocking(q, unroll)
        if 5 * q + 64 > a.shape[1]:
            a, b = operands(5 * q + 64)
        checks = [
            q + 1,
            q + 2,
            q + 3,
            q + 16,
            q + 64,
            2 * q - 1,
            2 * q,
            2 * q + 1,
            2 * q + 6,
            3 * q + 10,
            3 * q + 64,
            5 * q // 2 + 2,
            4 * q + q // 2 + 2,
            5 * q - 2,
            5 * q + 58,
        ]
        return None if any(differ(k, found) for k in checks) else found
    finally:
        _threads.set_count(before)

"""engine.core.ops._threads: a kernel's output maps split over BLAS's thread count; and the
OpenBLAS thread timeout the engine sets before NumPy loads OpenBLAS."""

import os
import subprocess
import sys
import threading
from concurrent.futures import CancelledError, Future

import numpy as np
import pytest

from engine.core.ops import _batchnorm_cpu, _direct_conv, _elementwise_cpu, _threads


@pytest.mark.parametrize(
    "threads, total, align, bounds",
    [
        (2, 64, 4, [(0, 24), (24, 48), (48, 56), (56, 64)]),  # two large, two small
        (2, 37, 4, [(0, 16), (16, 32), (32, 36), (36, 37)]),  # chunks start on whole tiles
        (3, 37, 4, [(0, 12), (12, 24), (24, 36), (36, 37)]),
        (2, 10, 16, [(0, 10)]),
    ],
)
def test_chunks_are_one_large_per_thread_then_smaller(threads, total, align, bounds):
    assert _threads.chunks(total, align, threads) == bounds


@pytest.mark.parametrize(
    "threads, total, align, bounds",
    [
        (1, 64, 4, [(0, 64)]),
        (2, 64, 4, [(0, 24), (24, 48), (48, 56), (56, 64)]),
        (2, 12, 4, [(0, 12)]),  # too few maps to be worth a hand-off
    ],
)
def test_run_computes_every_chunk_once(monkeypatch, threads, total, align, bounds):
    monkeypatch.setattr(_threads, "count", lambda: threads)
    seen, lock = [], threading.Lock()

    def kernel(tag, lo, hi):
        with lock:
            seen.append((tag, lo, hi))

    _threads.run(kernel, ("k",), total, align)
    assert sorted((lo, hi) for _, lo, hi in seen) == bounds
    assert {tag for tag, *_ in seen} == {"k"}


class _PendingForever(Future):
    def result(self, timeout=None):
        raise AssertionError("waited for a partner thread that never started")


class _NeverStarting:
    """A pool whose threads never get a core: what a busy machine can do to a partner."""

    def __init__(self, workers):
        self.futures = []

    def submit(self, fn, *args):
        future = _PendingForever()  # stays pending: never run
        self.futures.append(future)
        return future


def test_run_does_the_work_itself_when_the_partner_does_not_start(monkeypatch):
    """Before, half the maps were handed to the partner and waited for it (here: forever)."""
    monkeypatch.setattr(_threads, "count", lambda: 2)
    pools = []
    monkeypatch.setattr(_threads, "_pool", lambda n: pools.append(_NeverStarting(n)) or pools[-1])
    here, seen = threading.get_ident(), []
    _threads.run(lambda lo, hi: seen.append((lo, hi, threading.get_ident())), (), 64, 4)
    assert [(lo, hi) for lo, hi, _ in seen] == _threads.chunks(64, 4, 2)
    assert {ident for *_, ident in seen} == {here}
    assert [f.cancelled() for p in pools for f in p.futures] == [True]  # called off
    done = []
    _threads.run_all([(1, lambda: done.append("a")), (3, lambda: done.append("b"))])
    assert done == ["b", "a"]  # the costliest first, all here


def test_run_all_runs_every_job_once(monkeypatch):
    monkeypatch.setattr(_threads, "count", lambda: 2)
    done, lock = [], threading.Lock()

    def job(name):
        with lock:
            done.append(name)

    _threads.run_all([(cost, lambda n=n: job(n)) for n, cost in enumerate([4, 2, 2, 1, 3])])
    assert sorted(done) == [0, 1, 2, 3, 4]
    _threads.run_all([])  # nothing to do


def test_a_task_runs_once_on_a_pool_thread_or_taken_back_by_its_caller():
    pool = _threads._Pool()  # one thread of its own (the shared pool may have grown)
    pool.grow(1)
    ran, gate = [], threading.Event()
    blocker = pool.submit(gate.wait)  # holds the pool's thread until the gate opens
    waiting = pool.submit(lambda: ran.append(threading.get_ident()) or "pool")
    assert waiting.cancel() and waiting.done()  # not started: taken back, never run there
    with pytest.raises(CancelledError):
        waiting.result()
    gate.set()
    assert blocker.result() is True
    here = pool.submit(lambda: threading.get_ident())
    assert here.result() != threading.get_ident() and not here.cancel()  # ran on the pool
    failing = pool.submit(lambda: 1 / 0)
    with pytest.raises(ZeroDivisionError):
        failing.result()
    assert ran == []


def test_count_follows_blas_threads():
    threadpoolctl = pytest.importorskip("threadpoolctl")
    with threadpoolctl.threadpool_limits(1, user_api="blas"):
        assert _threads.count() == 1
    with threadpoolctl.threadpool_limits(2, user_api="blas"):
        blas = [i for i in threadpoolctl.threadpool_info() if i["user_api"] == "blas"]
        assert _threads.count() == blas[0]["num_threads"] == 2


@pytest.mark.parametrize("preset, expected", [(None, "18"), ("25", "25")])
def test_engine_sets_openblas_thread_timeout_unless_the_user_did(preset, expected):
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_THREAD_TIMEOUT"}
    if preset is not None:
        env["OPENBLAS_THREAD_TIMEOUT"] = preset
    code = "import engine, os; print(os.environ['OPENBLAS_THREAD_TIMEOUT'])"
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == expected


def test_count_follows_numpys_blas_when_numba_loads_another():
    """A compiled kernel's first call makes numba import scipy.linalg, whose OpenBLAS arrives
    after a caller limited NumPy's to one thread and keeps its default (every core).
    threadpoolctl lists the two in an order that changes with the hash seed: the kernels took
    whichever came first, so in half the processes they ran on every core while the caller
    (the one-thread benchmarks) had asked for one. They must follow NumPy's."""
    pytest.importorskip("numba", reason="the scenario is numba loading SciPy's BLAS")
    pytest.importorskip("threadpoolctl")
    code = (
        "import numpy\n"
        "from threadpoolctl import threadpool_limits\n"
        "limits = threadpool_limits(1)\n"
        "from engine.core.ops import _direct_conv as D, _threads\n"
        "x = numpy.ones((2, 4, 4, D._compile()['lanes']), numpy.float32)\n"
        "D.forward(D.padded(x, (1, 1)), numpy.ones((4, 2, 3, 3), numpy.float32), (1, 1), (1, 1),"
        " (4, 4))\n"  # numba's first dispatch loads scipy.linalg (and its OpenBLAS) if installed
        "print(_threads.count())\n"
    )
    counts = [
        subprocess.run(
            [sys.executable, "-c", code],
            env={**os.environ, "PYTHONHASHSEED": str(seed)},
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        for seed in range(6)
    ]
    assert counts == ["1"] * 6


@pytest.mark.parametrize(
    "threads, rows, elements, align, split",
    [
        (2, 64, 4 * _threads.MIN_ELEMENTS_PER_THREAD, 1, True),  # four threads' worth: split
        (2, 64, _threads.MIN_ELEMENTS_PER_THREAD, 1, False),  # one thread's worth: not
        (2, 1, 1 << 40, 1, False),  # one row is never split
        (2, 100_001, 4 * _threads.MIN_ELEMENTS_PER_THREAD, 16, True),  # chunks of whole lines
        (1, 64, 1 << 40, 1, False),
    ],
)
def test_run_rows_splits_memory_bound_loops_only_when_each_thread_gets_enough(
    monkeypatch, threads, rows, elements, align, split
):
    monkeypatch.setattr(_threads, "count", lambda: threads)
    seen, lock = [], threading.Lock()

    def kernel(lo, hi):
        with lock:
            seen.append((lo, hi))

    _threads.run_rows(kernel, (), rows, elements, align)
    assert sorted(seen) == (_threads.chunks(rows, align, threads) if split else [(0, rows)])
    assert all(lo % align == 0 for lo, _ in seen)


@pytest.mark.parametrize("maps, side, split", [(16, 32, True), (32, 16, False), (64, 8, False)])
def test_memory_bound_loops_split_from_2_mb_activations(monkeypatch, maps, side, split):
    """Batch normalization, ReLU and padding of a batch-32 activation share their rows between
    two threads from 2 MB (16 maps of 32x32, the CNN stems) on: there two threads took
    0.59-0.96x one thread's time on the Intel Xeon; 1 MB and less stay on one thread."""
    monkeypatch.setattr(_threads, "count", lambda: 2)
    parts = []
    real_run = _threads.run

    def spy(kernel, args, total, align, parts_=None):
        parts.append(parts_)
        real_run(kernel, args, total, align, parts_)

    monkeypatch.setattr(_threads, "run", spy)
    rng = np.random.default_rng(0)
    x4 = rng.standard_normal((maps, side, side, 32)).astype(np.float32)
    x2 = x4.reshape(maps, -1)
    one = np.ones((maps, 1), np.float32)
    y, _, _, _, stats = _batchnorm_cpu.forward(x2, one, 0 * one, 1e-5)
    _batchnorm_cpu.backward(x2, x2, stats, one, True)
    _elementwise_cpu.relu(x4)
    _elementwise_cpu.relu_grad(x4, x4)
    _direct_conv.padded(x4, (1, 1))
    assert len(parts) == (5 if split else 0)
    assert all(p >= 2 for p in parts)
    np.testing.assert_allclose(y.mean(axis=1), 0, atol=1e-5)  # the split rows all computed

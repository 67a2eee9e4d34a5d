"""Fixtures of the kernel tests."""

import threading

import pytest

from engine.core.ops import _threads


@pytest.fixture
def split_everything(monkeypatch):
    """Every threaded kernel split between two threads however small its work (the sizes the
    tests use are far below the real thresholds); gives the list of the parts handed to the
    pool's threads, ``(kernel name, thread id)``, so a test can check a split took place."""
    monkeypatch.setattr(_threads, "count", lambda: 2)
    monkeypatch.setattr(_threads, "MIN_ELEMENTS_PER_THREAD", 1)
    monkeypatch.setattr(_threads, "MIN_MAPS_PER_THREAD", 1)
    handed, lock = [], threading.Lock()
    pool = _threads._pool

    class Counting:
        def __init__(self, workers):
            self.pool = pool(workers)

        def submit(self, fn, *args):
            def record(*a):
                with lock:
                    handed.append((getattr(fn, "__name__", "?"), threading.get_ident()))
                return fn(*a)

            return self.pool.submit(record, *args)

    monkeypatch.setattr(_threads, "_pool", Counting)
    return handed

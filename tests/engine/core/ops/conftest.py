"""Fixtures of the kernel tests."""

import threading

import pytest

from engine.core.ops import _threads


@pytest.fixture
def split_everything(monkeypatch):
    """Every threaded kernel split between two threads however small its work (the sizes the
    tests use are far below the real thresholds); gives the list of the kernels' names (or
    "run_all"; "submit" for a job handed to the pool whole, as a weight gradient computed while
    the backward walk goes on) whose work was shared between threads, so a test can check a
    split took place."""
    monkeypatch.setattr(_threads, "count", lambda: 2)
    monkeypatch.setattr(_threads, "MIN_ELEMENTS_PER_THREAD", 1)
    monkeypatch.setattr(_threads, "MIN_MAPS_PER_THREAD", 1)
    shared, lock, local = [], threading.Lock(), threading.local()
    run, run_all, share, submit = _threads.run, _threads.run_all, _threads._share, _threads.submit

    def named(fn, name):
        def call(*args, **kwargs):
            local.name = name(*args)
            return fn(*args, **kwargs)

        return call

    def sharing(work, threads):
        with lock:
            shared.append(local.name)
        return share(work, threads)

    monkeypatch.setattr(_threads, "run", named(run, lambda kernel, *_: kernel.__name__))
    monkeypatch.setattr(_threads, "run_all", named(run_all, lambda *_: "run_all"))

    def submitting(job):
        with lock:
            shared.append("submit")
        return submit(job)

    monkeypatch.setattr(_threads, "_share", sharing)
    monkeypatch.setattr(_threads, "submit", submitting)
    return shared

"""A worker in this process: crashed attempts are failed and the search goes on; limits."""

from __future__ import annotations

import optuna

from engine.runtime import run as runner
from engine.search import worker as worker_module
from engine.search.session import SearchRequest, run_search


def test_a_crashing_attempt_is_recorded_failed_and_the_search_goes_on(iris_file, monkeypatch):
    real_train, real_propose = runner.train, worker_module.propose
    calls = {"train": 0, "propose": 0}

    def train(*args, **kwargs):
        calls["train"] += 1
        if calls["train"] == 2:
            raise RuntimeError("the kernel blew up")
        return real_train(*args, **kwargs)

    def propose(*args, **kwargs):
        calls["propose"] += 1
        if calls["propose"] == 2:
            raise KeyError("a bug in a mutation rule")
        return real_propose(*args, **kwargs)

    monkeypatch.setattr(runner, "train", train)
    monkeypatch.setattr(worker_module, "propose", propose)
    events = []
    result = run_search(SearchRequest(str(iris_file), attempts=5, epochs=2),
                        emit=lambda event, **f: events.append((event, f)))  # fmt: skip
    states = [r["state"] for r in result.rows]
    assert states == ["complete", "fail", "fail", "complete", "complete"]
    assert result.rows[1]["reason"] == "the kernel blew up"
    assert result.rows[2]["reason"] == "KeyError: 'a bug in a mutation rule'"
    ends = [f for e, f in events if e == "attempt_end"]
    assert [f["status"] for f in ends] == ["finished", "failed", "failed", "finished", "finished"]


def test_the_hours_limit_ends_the_search(iris_file):
    result = run_search(SearchRequest(str(iris_file), attempts=50, epochs=2, hours=1e-9))
    assert result.rows == []  # the deadline passed before the first attempt
    url = result.storage
    assert optuna.load_study(study_name="search", storage=url).get_trials() == []

"""The shared study: separate worker processes, a killed worker, resume; bad input."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import optuna
import pytest

from engine.formats import load_project, save_project

ROOT = Path(__file__).resolve().parents[3]


def _neurocanvas(*args, **kwargs):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.Popen([sys.executable, "-m", "engine.cli", *map(str, args)], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            **kwargs)  # fmt: skip


def _trials(url, name="search"):
    """The study's trials, read the way the engine opens a study (its retries cover a search
    process creating the database's tables at the same moment: alembic's version row)."""
    from engine.search.study import SearchError, open_study

    try:
        return open_study(url, name).get_trials()
    except SearchError as exc:
        raise KeyError(str(exc)) from None  # not created yet: the callers wait and ask again


@pytest.mark.slow
def test_two_worker_processes_share_one_sqlite_study_without_duplicates(iris_file):
    url = f"sqlite:///{iris_file.parent / 'study.db'}"
    args = ("search", iris_file, "--storage", url, "--attempts", 8, "--epochs", 30)
    first = _neurocanvas(*args)
    second = _neurocanvas(*args)
    for proc in (first, second):
        _, err = proc.communicate(timeout=600)
        assert proc.returncode == 0, err
    trials = _trials(url)
    attempts = [t for t in trials if t.state != optuna.trial.TrialState.PRUNED]
    assert [t.number for t in attempts] == list(range(8))
    assert all(t.state == optuna.trial.TrialState.COMPLETE for t in attempts)
    jobs = [t.user_attrs["job"] for t in attempts]
    assert len(set(jobs)) == 8  # every attempt its own job folder, trained once
    for job in jobs:
        curve = (Path(job) / "learning_curve.csv").read_text().splitlines()
        assert len(curve) == 31  # header + 30 epochs: one training per folder
    assert {t.user_attrs["pid"] for t in attempts} == {first.pid, second.pid}
    assert sum(t.user_attrs["mutation"] == "seed network" for t in attempts) == 1


@pytest.mark.slow
def test_a_killed_workers_attempt_is_failed_and_resume_continues_the_count(iris_file):
    url = f"sqlite:///{iris_file.parent / 'study.db'}"
    worker = _neurocanvas("search", iris_file, "--storage", url, "--attempts", 4,
                          "--epochs", 100000)  # fmt: skip
    deadline = time.time() + 120
    while time.time() < deadline:  # until the first attempt trains
        time.sleep(0.5)
        if (iris_file.parent / "study.db").exists():
            try:
                running = [t for t in _trials(url) if t.state.name == "RUNNING"
                           and "job" in t.user_attrs]  # fmt: skip
            except KeyError:  # the study is not created yet
                continue
            if running and Path(running[0].user_attrs["job"], "status.json").exists():
                break
    else:
        pytest.fail("the first attempt never started")
    worker.send_signal(signal.SIGKILL)
    worker.communicate()
    killed = running[0].number
    resumed = _neurocanvas("search", iris_file, "--storage", url, "--attempts", 4,
                           "--epochs", 2)  # fmt: skip
    _, err = resumed.communicate(timeout=600)
    assert resumed.returncode == 0, err
    trials = _trials(url)
    assert trials[killed].state == optuna.trial.TrialState.FAIL
    reason = trials[killed].user_attrs["reason"]  # issue 29: it was empty
    assert reason == (f"its worker (process {worker.pid} on {socket.gethostname()}) ended while "
                      f"training it (killed?)")  # fmt: skip
    attempts = [t for t in trials if t.state != optuna.trial.TrialState.PRUNED]
    assert [t.number for t in attempts] == [0, 1, 2, 3]  # the killed one counts
    assert [t.state.name for t in attempts[1:]] == ["COMPLETE"] * 3
    table = (iris_file.parent / "iris.files" / "search_results.csv").read_text().splitlines()
    assert table[0].startswith("number,state,valid_error,cost_multiply_add,pareto")
    assert table[1].startswith("0,fail,")


def _run(*args):
    proc = _neurocanvas(*args)
    out, err = proc.communicate(timeout=300)
    return proc.returncode, out, err


def test_nothing_searchable_is_one_line_before_training(iris_file):
    project = load_project(iris_file)
    network = project.network(project.optimizers[0].network)
    network.add_layer(network.new_layer("StructureSearch"))
    network.set_property("StructureSearch", "Search", "False")
    save_project(project, iris_file)
    code, _, err = _run("search", iris_file, "--attempts", 2)
    assert code == 2
    assert err.strip().count("\n") == 0 and "Search=False" in err, err
    assert not list((iris_file.parent / "iris.files").glob("search_0*"))


def test_unreachable_storage_and_empty_ranges_are_one_line_errors(iris_file, tmp_path):
    code, _, err = _run("search", iris_file, "--storage", "sqlite:////no/such/dir/s.db")
    assert code == 2 and "storage sqlite:////no/such/dir/s.db: cannot open" in err, err
    assert err.strip().count("\n") == 0
    code, _, err = _run("search", iris_file, "--cost-range", "500", "100")
    assert code == 2 and "CostMultiplyAdd range 500..100 excludes everything" in err, err
    code, _, err = _run("search", iris_file, "--cost-range", "1", "2")  # iris costs ~224
    assert code == 2 and "outside the range" in err, err
    assert not list((iris_file.parent / "iris.files").glob("search_0*"))


def test_stop_on_stdin_ends_the_search_cleanly(iris_file):
    proc = _neurocanvas("search", iris_file, "--attempts", 5, "--epochs", 100000,
                        stdin=subprocess.PIPE)  # fmt: skip
    try:
        _, err = proc.communicate("stop\n", timeout=120)  # a pipe, no --events: `echo stop |`
    finally:
        proc.kill()  # a search that ignored the line would train for hours
    assert proc.returncode == 0, err
    assert err.strip().splitlines()[-1] == "stopped; the same command continues the search", err
    url = f"sqlite:///{iris_file.parent / 'iris.files' / 'structure_search.db'}"
    assert not [t for t in _trials(url) if t.state.name == "COMPLETE"]


def test_running_the_search_again_numbers_the_attempts_without_a_gap(iris_file):
    for total in (2, 3):
        code, _, err = _run("search", iris_file, "--attempts", total, "--epochs", 1, "--seed", 0)
        assert code == 0, err
    url = f"sqlite:///{iris_file.parent / 'iris.files' / 'structure_search.db'}"
    assert [(t.number, t.state.name) for t in _trials(url)] == [
        (0, "COMPLETE"), (1, "COMPLETE"), (2, "COMPLETE")]  # fmt: skip
    table = (iris_file.parent / "iris.files" / "search_results.csv").read_text().splitlines()
    assert [row.split(",")[0] for row in table[1:]] == ["0", "1", "2"]


def test_a_from_job_that_is_not_a_finished_job_is_one_line_and_makes_no_study(iris_file):
    store = iris_file.parent / "iris.files" / "structure_search.db"
    missing = iris_file.parent / "nothere"
    code, _, err = _run("search", iris_file, "--from-job", missing, "--attempts", 1)
    assert code == 2 and err.strip().count("\n") == 0, err
    assert f"--from-job {missing}: no such job folder" in err, err
    code, _, err = _run("search", iris_file, "--from-job", iris_file.parent, "--attempts", 1)
    assert code == 2 and "not a job folder (no network.ncproj)" in err, err
    assert not store.exists()  # no empty study left behind by bad input


def test_a_worker_joining_a_missing_sqlite_file_does_not_create_it(tmp_path):
    url = f"sqlite:///{tmp_path / 'typo.db'}"
    code, _, err = _run("search", "worker", "--storage", url, "--study", "search")
    assert code == 2 and err.strip() == (
        f"neurocanvas search: error: storage {url}: no such database file"
    ), err
    assert not (tmp_path / "typo.db").exists()


def test_datasets_that_cannot_be_read_end_the_search_at_once(iris_file):
    project = load_project(iris_file)
    for i, dataset in enumerate(project.datasets):
        project.replace_section(("datasets", i), dataset.with_value("URI", "builtin:nosuch/x"))
    save_project(project, iris_file)
    code, _, err = _run("search", iris_file, "--attempts", 5, "--epochs", 1)
    assert code == 2, err
    line = err.strip().splitlines()[-1]
    assert line.startswith("neurocanvas search: error: attempt 0: ") and "nosuch" in line, err
    jobs = list((iris_file.parent / "iris.files").glob("search_0*"))
    assert len(jobs) <= 1  # the seed attempt, not five that all fail the same way


@pytest.mark.parametrize("name", ["../../ESCAPED", "sub/dir", "/tmp/abs", ".hidden", ""])
def test_a_study_name_is_a_name_not_a_path(iris_file, name):
    """Issue 29 item 10: ``--study ../../ESCAPED`` wrote job folders, results and plot two levels
    above the jobs folder. Refused in one line, for the search and for a worker, before a study
    or a folder is made."""
    code, _, err = _run("search", iris_file, "--study", name, "--attempts", 1, "--epochs", 1)
    assert code == 2 and err.strip().count("\n") == 0, err
    assert f"--study {name!r}: a study name is up to 100 letters" in err, err
    assert not (iris_file.parent / "iris.files").exists()  # no database, no attempt, no plot
    escaped = sorted(p.name for p in iris_file.parents[2].rglob("*ESCAPED*"))
    assert escaped == []
    url = f"sqlite:///{iris_file.parent / 'kept.db'}"
    optuna.create_study(storage=url, study_name="search")
    code, _, err = _run("search", "worker", "--storage", url, "--study", name)
    assert code == 2 and f"--study {name!r}: a study name" in err, err

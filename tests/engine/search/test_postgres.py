"""The shared study on a real PostgreSQL server: several processes, a killed worker, the server
stopped mid-search. Each test gets a throwaway server (postgres_kit) or skips with the reason."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import optuna
import pytest

from engine.formats import load_project
from engine.search.session import SearchRequest, settings_from_project
from engine.search.study import GRACE_ENV, open_study
from engine.search.worker import fail_lost

ROOT = Path(__file__).resolve().parents[3]
GRACE = 8  # seconds: the heartbeat grace period of these tests (heartbeats every 2 s)


def _neurocanvas(*args, grace=None):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    if grace is not None:
        env[GRACE_ENV] = str(grace)
    return subprocess.Popen([sys.executable, "-m", "engine.cli", *map(str, args)], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            stdin=subprocess.DEVNULL)  # fmt: skip


def _trials(url):
    return optuna.load_study(study_name="search", storage=url).get_trials()


def _wait_for_training(url, proc):
    """The attempt that ``proc`` is training, once its job folder has started."""
    deadline = time.time() + 180
    while time.time() < deadline and proc.poll() is None:
        time.sleep(0.3)
        try:
            running = [t for t in _trials(url) if t.state.name == "RUNNING" and "job" in
                       t.user_attrs]  # fmt: skip
        except KeyError:  # the study is not created yet
            continue
        if running and Path(running[0].user_attrs["job"], "status.json").exists():
            return running[0]
    proc.kill()
    pytest.fail(f"no attempt started training: {proc.communicate()[1][-2000:]}")


def _not_logging(err):
    """stderr without the trainer's per-epoch INFO lines."""
    return [line for line in err.splitlines() if line.strip() and not line.startswith("INFO:")]


@pytest.mark.slow
def test_two_workers_and_the_search_share_one_postgres_study(iris_file, postgres_url):
    url = postgres_url
    args = ("--attempts", 9, "--epochs", 1)
    request = SearchRequest(str(iris_file), attempts=9, epochs=1)
    settings, _ = settings_from_project(load_project(iris_file), request)
    open_study(url, "search", settings)  # the study exists: all three start at once
    search = _neurocanvas("search", iris_file, "--storage", url, *args)
    workers = [_neurocanvas("search", "worker", "--storage", url, "--study", "search")
               for _ in range(2)]  # fmt: skip
    outputs = {}
    for proc in (search, *workers):
        _, err = proc.communicate(timeout=600)
        assert proc.returncode == 0, err
        outputs[proc.pid] = err
    trials = [t for t in _trials(url) if t.state.name != "PRUNED"]  # PRUNED: refused, over 9
    assert [(t.number, t.state.name) for t in trials] == [(n, "COMPLETE") for n in range(9)]
    jobs = [Path(t.user_attrs["job"]) for t in trials]
    assert len(set(jobs)) == 9
    for job in jobs:  # header + 1 epoch: every attempt trained once, in its own folder
        assert len((job / "learning_curve.csv").read_text().splitlines()) == 2, job
    by_pid = {pid: sum(t.user_attrs["pid"] == pid for t in trials) for pid in outputs}
    assert sum(by_pid.values()) == 9  # every attempt by one of the three processes
    for proc in workers:  # each worker's own count agrees with the database
        said = re.search(r"worker trained (\d+) attempts", outputs[proc.pid])
        assert said and int(said.group(1)) == by_pid[proc.pid], outputs[proc.pid]
    print("attempts by process:", by_pid)
    assert sum(count > 0 for count in by_pid.values()) >= 2, by_pid  # shared, not one alone
    assert "9 attempts, Pareto-optimal" in outputs[search.pid]
    table = (iris_file.parent / "iris.files" / "search_results.csv").read_text().splitlines()
    # The table is the main search's view when it ends: an attempt a worker is still finishing
    # then reads "running" (seen once in CI); the database above says every one completed.
    rows = [row.split(",")[:2] for row in table[1:]]
    assert [n for n, _ in rows] == [str(n) for n in range(9)]
    by_number = {t.number: t.user_attrs["pid"] for t in trials}
    for n, state in rows:
        assert state == "complete" or (state == "running" and by_number[int(n)] != search.pid)


@pytest.mark.slow
def test_a_worker_killed_elsewhere_is_failed_after_the_heartbeat_grace(iris_file, postgres_url,
                                                                       monkeypatch):  # fmt: skip
    url = postgres_url
    search = _neurocanvas("search", iris_file, "--storage", url, "--attempts", 3, "--epochs",
                          100000, grace=GRACE)  # fmt: skip
    running = _wait_for_training(url, search)
    search.send_signal(signal.SIGKILL)
    search.communicate()
    # As if it ran on another machine: only its missing heartbeat can tell that it died.
    storage = optuna.storages.RDBStorage(url)
    storage.set_trial_user_attr(running._trial_id, "host", "another-machine")
    monkeypatch.setenv(GRACE_ENV, str(GRACE))
    assert fail_lost(open_study(url, "search")) == []  # its last heartbeat is recent
    assert _trials(url)[running.number].state.name == "RUNNING"
    time.sleep(GRACE + 1)  # the grace period passes without a heartbeat
    resumed = _neurocanvas("search", iris_file, "--storage", url, "--attempts", 3, "--epochs", 1,
                           grace=GRACE)  # fmt: skip
    _, err = resumed.communicate(timeout=600)
    assert resumed.returncode == 0, err
    trials = _trials(url)
    assert [(t.number, t.state.name) for t in trials] == [
        (0, "FAIL"), (1, "COMPLETE"), (2, "COMPLETE")]  # fmt: skip
    assert running.number == 0 and trials[0].user_attrs["host"] == "another-machine"


@pytest.mark.slow
def test_the_server_stopped_mid_search_is_one_line_and_the_study_resumes(iris_file,
                                                                         own_postgres):  # fmt: skip
    url = own_postgres.new_database()
    search = _neurocanvas("search", iris_file, "--storage", url, "--attempts", 3, "--epochs",
                          100000, grace=GRACE)  # fmt: skip
    running = _wait_for_training(url, search)
    own_postgres.stop()
    try:
        _, err = search.communicate(timeout=300)  # training stops once the grace has passed
    finally:
        search.kill()
    assert search.returncode == 2, err
    lines = _not_logging(err)
    assert len(lines) == 1 and "Traceback" not in err, err
    assert lines[0].startswith(f"neurocanvas search: error: storage {url}: lost the connection ("
                               f'connection to server at "127.0.0.1", port {own_postgres.port} '
                               "failed: Connection refused)"), err  # fmt: skip
    assert lines[0].endswith("run the same command again when the database is back to resume "
                             "the search"), err  # fmt: skip
    # A worker joining while the server is down: one line too.
    joining = _neurocanvas("search", "worker", "--storage", url, "--study", "search")
    _, err = joining.communicate(timeout=120)
    assert joining.returncode == 2 and _not_logging(err) == [
        f"neurocanvas search: error: storage {url}: cannot open (connection to server at "
        f'"127.0.0.1", port {own_postgres.port} failed: Connection refused)'], err  # fmt: skip
    own_postgres.start()
    resumed = _neurocanvas("search", iris_file, "--storage", url, "--attempts", 3, "--epochs", 1)
    _, err = resumed.communicate(timeout=600)
    assert resumed.returncode == 0, err
    trials = _trials(url)
    assert running.number == 0  # the interrupted attempt counts, failed; the others trained
    assert [(t.number, t.state.name) for t in trials] == [
        (0, "FAIL"), (1, "COMPLETE"), (2, "COMPLETE")]  # fmt: skip
    for trial in trials[1:]:
        curve = Path(trial.user_attrs["job"], "learning_curve.csv").read_text().splitlines()
        assert len(curve) == 2  # header + the 1 epoch asked for on resuming


def test_a_postgres_url_without_its_driver_says_what_to_install(tmp_path):
    """No server needed: the driver is missing before any connection is tried."""
    code = ("import sys; sys.modules['psycopg'] = None; sys.modules['psycopg2'] = None; "
            "from engine.cli import main; sys.exit(main())")  # fmt: skip
    url = "postgresql://someone:secret@127.0.0.1:1/study"
    done = subprocess.run([sys.executable, "-c", code, "search", "worker", "--storage", url],
                          env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True,
                          text=True, timeout=300)  # fmt: skip
    assert done.returncode == 2, done.stderr
    line = done.stderr.strip()
    assert "\n" not in line and "secret" not in line, line
    assert line.startswith(
        "neurocanvas search: error: storage postgresql://someone:***@"
        "127.0.0.1:1/study: cannot open (no database driver: "
    ), line
    assert line.endswith("pip install 'psycopg[binary]')"), line

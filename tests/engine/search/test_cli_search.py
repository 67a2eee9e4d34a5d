"""``neurocanvas search`` as a user runs it: from a trained job, the GP method, K workers."""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import optuna
import pytest

ROOT = Path(__file__).resolve().parents[3]


def _cli(*args, cwd=None):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "engine.cli", *map(str, args)], env=env,
                          capture_output=True, text=True, timeout=600, cwd=cwd)  # fmt: skip


def _rows(table):
    with open(table, newline="") as f:
        return list(csv.DictReader(f))


@pytest.mark.slow
def test_from_job_with_the_gp_method_and_events(iris_file):
    base = iris_file.parent / "base"
    done = _cli("train", iris_file, "-o", base, "--epochs", 3, "--seed", 0)
    assert done.returncode == 0, done.stderr
    assert _cli("evaluate", base).returncode == 0  # its accuracy is read, not computed again
    run = _cli("search", iris_file, "--from-job", base, "--method", "gp", "--attempts", 6,
               "--epochs", 3, "--events")  # fmt: skip
    assert run.returncode == 0, run.stderr
    events = [json.loads(line) for line in run.stdout.splitlines()]
    kinds = [e["event"] for e in events]
    assert kinds[0] == "search_start" and kinds[-2:] == ["search_end", "done"]
    assert kinds.count("attempt_start") == kinds.count("attempt_end") == 5  # 0 is the job
    assert events[-1]["status"] == "finished"
    rows = _rows(iris_file.parent / "iris.files" / "search_results.csv")
    assert rows[0]["mutation"] == "seed network" and Path(rows[0]["job"]) == base.resolve()
    curve = (base / "learning_curve.csv").read_text().splitlines()
    assert len(curve) == 4  # the seed job was not trained again
    base_summary = json.loads((base / "evaluation.json").read_text())
    assert float(rows[0]["accuracy"]) == base_summary["classification"]["y'"]["accuracy"]
    assert [r["state"] for r in rows] == ["complete"] * 6
    assert all(r["parent"] for r in rows[1:])  # every later attempt mutates an earlier one
    for row in rows[1:]:  # each attempt is evaluated as NNC's Evaluate does
        summary = json.loads((Path(row["job"]) / "evaluation.json").read_text())
        assert float(row["accuracy"]) == summary["classification"]["y'"]["accuracy"]
        assert (Path(row["job"]) / "output_result.csv").is_file()
    starts = [e for e in events if e["event"] == "attempt_start"]
    assert all(e["mutation"] and e["parent"] is not None for e in starts)
    pareto = [int(r["number"]) for r in rows if r["pareto"] == "True"]
    assert events[-2]["pareto"] == pareto and pareto
    assert (iris_file.parent / "iris.files" / "search_tradeoff.png").stat().st_size > 1000


@pytest.mark.slow
def test_parallel_two_runs_a_worker_process_beside_the_search(iris_file):
    run = _cli("search", iris_file, "--attempts", 6, "--epochs", 40, "--parallel", 2)
    assert run.returncode == 0, run.stderr
    url = f"sqlite:///{iris_file.parent / 'iris.files' / 'structure_search.db'}"
    trials = optuna.load_study(study_name="search", storage=url).get_trials()
    attempts = [t for t in trials if t.state.name != "PRUNED"]
    assert [t.number for t in attempts] == list(range(6))
    assert len({t.user_attrs["pid"] for t in attempts}) == 2
    assert "attempts, Pareto-optimal" in run.stderr
    log = (iris_file.parent / "iris.files" / "search_worker_1.log").read_text()
    assert "worker trained" in log


@pytest.mark.slow
def test_a_worker_with_its_own_project_copy_and_jobs_folder_joins(iris_file, tmp_path):
    """What a second machine does: its own copy of the project, its own jobs folder."""
    url = f"sqlite:///{tmp_path / 'shared.db'}"
    elsewhere = tmp_path / "machine_b"
    elsewhere.mkdir()
    copy = elsewhere / "iris.ncproj"
    copy.write_bytes(iris_file.read_bytes())
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    search = subprocess.Popen(
        [sys.executable, "-m", "engine.cli", "search", str(iris_file), "--storage", url,
         "--attempts", "6", "--epochs", "60"], env=env, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    deadline = time.time() + 120
    while time.time() < deadline:  # until the study exists
        try:
            optuna.load_study(study_name="search", storage=url)
            break
        except Exception:  # noqa: BLE001 - no study (KeyError) or no database yet
            time.sleep(0.5)
    joined = _cli("search", "worker", "--storage", url, "--study", "search", "--project", copy,
                  "--jobs-dir", elsewhere / "jobs")  # fmt: skip
    assert joined.returncode == 0, joined.stderr
    _, err = search.communicate(timeout=600)
    assert search.returncode == 0, err
    trials = optuna.load_study(study_name="search", storage=url).get_trials()
    attempts = [t for t in trials if t.state.name != "PRUNED"]
    assert [t.state.name for t in attempts] == ["COMPLETE"] * 6
    theirs = [t for t in attempts if Path(t.user_attrs["job"]).parent == elsewhere / "jobs"]
    ours = [t for t in attempts if Path(t.user_attrs["job"]).parent == iris_file.parent /
            "iris.files"]  # fmt: skip
    assert theirs and ours and len(theirs) + len(ours) == 6
    for t in theirs:
        assert (Path(t.user_attrs["job"]) / "learning_curve.csv").is_file()

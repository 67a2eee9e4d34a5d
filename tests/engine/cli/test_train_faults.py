"""A trainer killed with SIGKILL (issue 13, defect 8): readers say ``interrupted``, the last
checkpoint is at most one epoch old, resume cleans what the killed run left and is exact."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import runtime_kit as kit

from engine.formats import save_project
from engine.runtime.job import Job

ROOT = Path(__file__).resolve().parents[3]


def _train(tmp_path: Path, *argv: str) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "NEUROCANVAS_CACHE": str(tmp_path / "c")}
    return subprocess.Popen([sys.executable, "-m", "engine.cli", "train", *argv, "--device", "cpu"],
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            stdin=subprocess.DEVNULL, text=True)  # fmt: skip


def _curve(job: Path) -> list[str]:
    return (job / "learning_curve.csv").read_text().splitlines()


def test_kill_9_reads_interrupted_and_resumes_exactly(tmp_path):
    # 120 iterations an epoch: an epoch takes several times what a checkpoint takes
    train_csv, valid_csv = kit.blobs(tmp_path, rows=960)
    project = tmp_path / "p.ncproj"
    save_project(kit.mlp_project(train_csv, valid_csv, batch=8, max_epoch=40), project)
    run = _train(tmp_path, str(project), "-o", str(tmp_path / "job"), "--seed", "5")
    log = tmp_path / "job" / "log.txt"
    deadline = time.monotonic() + 120
    while not (log.is_file() and log.read_text().count("\n") >= 6):
        assert run.poll() is None and time.monotonic() < deadline, run.communicate()
        time.sleep(0.005)
    run.send_signal(signal.SIGKILL)
    run.wait(timeout=30)
    logged = log.read_text().count("\n")
    job = Job(tmp_path / "job")
    assert json.loads(job.status_file.read_text())["status"] == "running"  # as it was left
    status = job.status()
    assert status["status"] == "interrupted" and status["resumable"] is True
    assert 6 <= logged < 40, logged  # killed in the middle
    state = json.loads((job.checkpoint_dir("last") / "state.json").read_text())["state"]
    # Written at each epoch's end (before its log line) while a save costs little; a load spike
    # on a busy machine may skip one. Before, nothing was written in the first 30 s.
    assert state["epoch"] >= logged - 2, (state["epoch"], logged)

    from console_app.tabs.job_history import read_job

    assert read_job(job.root, with_statistics=False).status == "interrupted"

    # what a kill in the middle of a save leaves behind
    (job.root / "checkpoints" / ".last.abc123").mkdir()
    (job.root / ".status.json.xyz.tmp").write_text("{")
    resumed = _train(tmp_path, "--resume", str(job.root))
    _, err = resumed.communicate(timeout=300)
    assert resumed.returncode == 0, err
    assert "ended without saving its state; the run can continue" in err  # the CLI says so
    assert sorted(p.name for p in (job.root / "checkpoints").iterdir()) == ["best", "last"]
    assert not list(job.root.glob(".*.tmp"))
    assert job.status()["status"] == "finished"

    whole = _train(tmp_path, str(project), "-o", str(tmp_path / "whole"), "--seed", "5")
    assert whole.wait(timeout=300) == 0, whole.communicate()
    assert _curve(job.root) == _curve(tmp_path / "whole")  # bit-exact after the kill


def test_a_running_job_cannot_be_resumed_twice(tmp_path, capsys):
    from engine.cli import main

    train_csv, valid_csv = kit.blobs(tmp_path, rows=24)
    project = tmp_path / "p.ncproj"
    save_project(kit.mlp_project(train_csv, valid_csv, batch=8, max_epoch=1), project)
    assert main(["train", str(project), "-o", str(tmp_path / "job")]) == 0
    job = Job(tmp_path / "job")
    status = json.loads(job.status_file.read_text())
    job.write_status(**{**status, "status": "running", "pid": os.getpid()})  # alive: this test
    assert main(["train", "--resume", str(job.root), "--epochs", "2"]) == 2
    assert "still running" in capsys.readouterr().err


def test_divergence_without_nan_is_a_warning(tmp_path):
    """Adam alpha=1e6 used to "finish" at a flat cost without a word."""
    from engine.cli import main

    train_csv, valid_csv = kit.blobs(tmp_path, rows=24)
    project = tmp_path / "p.ncproj"
    params = {"Alpha": "1e6", "Beta1": "0.9", "Beta2": "0.999", "Epsilon": "1e-08"}
    save_project(kit.mlp_project(train_csv, valid_csv, batch=8, max_epoch=3,
                                 solver_parameters=params), project)  # fmt: skip
    assert main(["train", str(project), "-o", str(tmp_path / "job"), "--seed", "0"]) == 0
    events = [json.loads(x) for x in (tmp_path / "job" / "events.jsonl").read_text().splitlines()]
    warnings = [e["message"] for e in events if e["event"] == "warning"]
    assert len(warnings) == 1 and "the cost diverges: epoch 1 ended at" in warnings[0]
    calm = dict(params, Alpha="0.001")
    save_project(kit.mlp_project(train_csv, valid_csv, batch=8, max_epoch=3,
                                 solver_parameters=calm), project)  # fmt: skip
    assert main(["train", str(project), "-o", str(tmp_path / "calm"), "--seed", "0"]) == 0
    assert '"warning"' not in (tmp_path / "calm" / "events.jsonl").read_text()


def test_a_nan_is_one_line_without_numpys_warnings(tmp_path):
    train_csv, valid_csv = kit.blobs(tmp_path, rows=24)
    project = tmp_path / "p.ncproj"
    params = {"Alpha": "1e30", "Beta1": "0.9", "Beta2": "0.999", "Epsilon": "1e-08"}
    save_project(kit.mlp_project(train_csv, valid_csv, batch=8, max_epoch=3,
                                 solver_parameters=params), project)  # fmt: skip
    run = _train(tmp_path, str(project), "-o", str(tmp_path / "job"), "--seed", "0")
    _, err = run.communicate(timeout=120)
    assert run.returncode == 1
    assert err.startswith("neurocanvas train: error: NaN or infinity at epoch 1, iteration "), err
    assert err.count("\n") == 1 and "produced NaN or infinity" in err, err

"""``neurocanvas train``: exit codes, one-line errors, the --events protocol, stop and resume."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import runtime_kit

from engine.cli import main
from engine.formats import save_project


@pytest.fixture
def kit(monkeypatch, tmp_path):
    """The runtime tests' project helpers (tests/engine/runtime/conftest.py)."""
    module = runtime_kit
    monkeypatch.setenv("NEUROCANVAS_CACHE", str(tmp_path / "cache"))
    return module


def _project(kit, tmp_path, **options):
    train_csv, valid_csv = kit.blobs(tmp_path, rows=24)
    path = tmp_path / "p.ncproj"
    save_project(kit.mlp_project(train_csv, valid_csv, batch=8, **options), path)
    return path


def test_train_with_events_prints_json_lines_only(kit, tmp_path, capsys):
    path = _project(kit, tmp_path)
    code = main(["train", str(path), "-o", str(tmp_path / "job"), "--events", "--seed", "3",
                 "--device", "cpu"])  # fmt: skip
    out, err = capsys.readouterr()
    assert code == 0
    events = [json.loads(line) for line in out.splitlines()]
    assert events[0]["event"] == "start" and events[0]["seed"] == 3
    assert events[0]["device"] == "cpu" and events[0]["resumed"] is False
    assert events[-1] == {**events[-1], "event": "done", "status": "finished", "epoch": 2}
    assert "finished: epoch 2" in err
    config = json.loads((tmp_path / "job" / "config.json").read_text())
    assert config["format"] == "neurocanvas-job" and config["plan"]["seed"] == 3
    assert config["plan"]["iter_per_epoch"] == 3 and config["plan"]["max_epoch"] == 2


def test_epochs_override_and_resume(kit, tmp_path, capsys):
    path = _project(kit, tmp_path)
    assert main(["train", str(path), "-o", str(tmp_path / "job"), "--epochs", "1"]) == 0
    assert main(["train", "--resume", str(tmp_path / "job"), "--epochs", "3"]) == 0
    curve = (tmp_path / "job" / "learning_curve.csv").read_text().splitlines()
    assert [row.split(",")[0] for row in curve[1:]] == ["1", "2", "3"]
    assert "finished: epoch 3" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["train"], "name the project to train"),
        (["train", "missing.ncproj"], "missing.ncproj: no such project file"),
        (["train", "p.ncproj", "--epochs", "0"], "--epochs: expected a positive integer"),
        (["train", "p.ncproj", "--resume", "job"], "give either PROJECT or --resume"),
        (["train", "--resume", "nojob"], "nojob: no such job folder"),
        (["train", "p.ncproj", "--device", "gpu"], "GPU requested but not available"),
    ],
)
def test_user_errors_are_one_line(kit, tmp_path, capsys, monkeypatch, argv, message):
    _project(kit, tmp_path)
    monkeypatch.chdir(tmp_path)
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("neurocanvas train: error: ") and message in err
    assert len(err.splitlines()) == 1


def test_params_that_do_not_fit_fail_the_new_job_and_an_npy_is_one_line(kit, tmp_path, capsys):
    path = _project(kit, tmp_path)
    wrong = tmp_path / "wrong.npz"
    np.savez(wrong, **{"Affine/affine/W": np.zeros((5, 3), np.float32)})
    job = tmp_path / "job"
    assert main(["train", str(path), "-o", str(job), "--params", str(wrong)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.endswith("parameter 'Affine/affine/W' has shape (5, 3) in the file but (4, 8) "
                        "in the network") and len(err.splitlines()) == 1, err  # fmt: skip
    status = json.loads((job / "status.json").read_text())  # failed, not left "running"
    assert status["status"] == "failed" and "(5, 3)" in status["message"]
    array = tmp_path / "one.npy"
    np.save(array, np.zeros(3, np.float32))
    assert main(["train", str(path), "-o", str(tmp_path / "job2"), "--params", str(array)]) == 2
    assert capsys.readouterr().err.strip() == (
        f"neurocanvas train: error: --params: {array}: not an .npz archive (a single .npy array)"
    )
    assert not (tmp_path / "job2").exists()


def test_existing_job_folder_and_unsupported_layer(kit, tmp_path, capsys):
    path = _project(kit, tmp_path)
    (tmp_path / "job").mkdir()
    (tmp_path / "job" / "keep.txt").write_text("mine")
    assert main(["train", str(path), "-o", str(tmp_path / "job")]) == 2
    assert "job folders are never overwritten" in capsys.readouterr().err
    assert (tmp_path / "job" / "keep.txt").read_text() == "mine"
    layers = [
        kit.layer("Input", "Input", Size=(4, 3), Dataset="x"),
        kit.layer("ReLU", "Flatten"),
    ]
    project = kit.make_project(
        [kit.network("Main", layers, kit.chain("Input", "ReLU"))],
        train=tmp_path / "train.csv",
        valid=tmp_path / "valid.csv",
    )
    save_project(project, path)
    assert main(["train", str(path), "-o", str(tmp_path / "job2"), "--events"]) == 2
    out, err = capsys.readouterr()
    assert json.loads(out) == {**json.loads(out), "event": "error"}
    assert 'network "Main", layer "ReLU": layer type Flatten is not supported' in err
    assert not (tmp_path / "job2").exists()


def test_stop_line_on_stdin_stops_cleanly_and_resume_finishes(kit, tmp_path):
    path = _project(kit, tmp_path, max_epoch=10000)
    env = {**os.environ, "NEUROCANVAS_DEVICE": "cpu"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "engine.cli", "train", str(path), "-o", str(tmp_path / "job"),
         "--events", "--seed", "0"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env=env, cwd=Path(__file__).resolve().parents[3],
    )  # fmt: skip
    events = []
    for line in proc.stdout:
        events.append(json.loads(line))
        if events[-1]["event"] == "epoch":
            proc.stdin.write("stop\n")
            proc.stdin.flush()
            break
    rest, err = proc.communicate(timeout=60)
    events += [json.loads(line) for line in rest.splitlines()]
    assert proc.returncode == 0, err
    assert events[-1]["event"] == "done" and events[-1]["status"] == "stopped"
    assert any(e["event"] == "checkpoint" and e["kind"] == "last" for e in events)
    status = json.loads((tmp_path / "job" / "status.json").read_text())
    assert status["status"] == "stopped" and 1 <= status["epoch"] < 10000
    assert main(["train", "--resume", str(tmp_path / "job"), "--epochs",
                 str(status["epoch"] + 1)]) == 0  # fmt: skip
    assert json.loads((tmp_path / "job" / "status.json").read_text())["status"] == "finished"


def test_device_problems_reach_the_event_stream(kit, tmp_path, capsys, monkeypatch):
    """A GPU that cannot be had is an ``error`` event; an automatic CPU fallback a ``warning``."""
    from engine.core import backend

    path = _project(kit, tmp_path)
    monkeypatch.setattr(backend, "_probe_cupy", lambda: (None, "CuPy sees no CUDA device"))
    code = main(["train", str(path), "-o", str(tmp_path / "gpu"), "--events", "--device", "gpu"])
    out, err = capsys.readouterr()
    assert code == 2
    assert json.loads(out.splitlines()[-1])["event"] == "error"
    assert "GPU requested but not available: CuPy sees no CUDA device" in err

    code = main(["train", str(path), "-o", str(tmp_path / "auto"), "--events", "--device", "auto"])
    out, _ = capsys.readouterr()
    warnings = [e for e in map(json.loads, out.splitlines()) if e["event"] == "warning"]
    assert code == 0
    assert warnings[0]["message"] == "GPU not usable, falling back to CPU: CuPy sees no CUDA device"
    backend.set_device("cpu")

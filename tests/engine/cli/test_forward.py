"""``neurocanvas forward``: inference on files with a job's parameters or a project."""

from __future__ import annotations

import json

import numpy as np
import pytest
import runtime_kit

from engine.cli import main
from engine.formats import save_project


@pytest.fixture
def trained(monkeypatch, tmp_path):
    kit = runtime_kit
    monkeypatch.setenv("NEUROCANVAS_CACHE", str(tmp_path / "cache"))
    train_csv, valid_csv = kit.blobs(tmp_path, rows=48)
    save_project(kit.mlp_project(train_csv, valid_csv, batch=8, max_epoch=5,
                                 solver_parameters={"Alpha": "0.05", "Beta1": "0.9",
                                                    "Beta2": "0.999", "Epsilon": "1e-08"}),
                 tmp_path / "p.ncproj")  # fmt: skip
    assert main(["train", str(tmp_path / "p.ncproj"), "-o", str(tmp_path / "job"),
                 "--seed", "0"]) == 0  # fmt: skip
    # Class 1's centre as a per-sample CSV (one row) and as .npy.
    (tmp_path / "one.csv").write_text("0.8,0.3,0.2,0.5\n")
    np.save(tmp_path / "two.npy", np.array([0.5, 0.9, 0.5, 0.1], np.float32))
    return tmp_path


def test_forward_job_on_csv_and_npy(trained, capsys):
    capsys.readouterr()
    files = [str(trained / "one.csv"), str(trained / "two.npy")]
    assert main(["forward", str(trained / "job"), "--input", *files, "--json"]) == 0
    results = json.loads(capsys.readouterr().out)
    assert [r["outputs"]["y'"]["class"] for r in results] == [1, 2]
    assert results[0]["inputs"] == {"x": files[0]} and results[0]["outputs"]["y'"]["shape"] == [3]
    assert sum(results[0]["outputs"]["y'"]["values"]) == pytest.approx(1.0, rel=1e-5)
    assert main(["forward", str(trained / "job"), "--input", files[0]]) == 0
    line = capsys.readouterr().out.strip()
    assert line.startswith(f"{files[0]}\tExecutor\ty' class 1\t")


def test_forward_repeated_input_option_runs_every_file(trained, capsys):
    files = [str(trained / "one.csv"), str(trained / "two.npy")]
    capsys.readouterr()
    assert main(["forward", str(trained / "job"), "-i", files[0], "-i", files[1], "--json"]) == 0
    results = json.loads(capsys.readouterr().out)
    assert [r["inputs"]["x"] for r in results] == files
    assert [r["outputs"]["y'"]["class"] for r in results] == [1, 2]


def test_forward_project_with_parameters_matches_the_job(trained, capsys):
    params = trained / "job" / "checkpoints" / "best" / "parameters.npz"
    capsys.readouterr()
    assert main(["forward", str(trained / "p.ncproj"), "--params", str(params), "--input",
                 str(trained / "one.csv"), "--json"]) == 0  # fmt: skip
    from_project = json.loads(capsys.readouterr().out)
    assert main(["forward", str(trained / "job"), "--input", str(trained / "one.csv"),
                 "--json"]) == 0  # fmt: skip
    assert json.loads(capsys.readouterr().out) == from_project


def test_forward_errors(trained, capsys):
    assert main(["forward", str(trained / "job"), "--input", "missing.png"]) == 2
    assert "missing.png: file not found" in capsys.readouterr().err
    assert main(["forward", str(trained / "job"), "--input", "y=a.csv"]) == 2
    assert "expected NAME=FILE with NAME one of x" in capsys.readouterr().err

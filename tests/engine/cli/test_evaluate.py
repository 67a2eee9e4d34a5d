"""``neurocanvas evaluate``: NNC's Evaluate on a trained job, its summary and its errors."""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import runtime_kit

import engine.nn as nn
from engine.cli import main
from engine.data import open_dataset
from engine.formats import save_project
from engine.runtime.compiler import compile_network
from engine.runtime.evaluator import load_job_parameters, run_outputs
from engine.runtime.job import Job

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture
def job(monkeypatch, tmp_path):
    """A 2-epoch job of the 3-class MLP on tiny blobs (tests/engine/runtime/conftest.py)."""
    kit = runtime_kit
    monkeypatch.setenv("NEUROCANVAS_CACHE", str(tmp_path / "cache"))
    train_csv, valid_csv = kit.blobs(tmp_path, rows=48)
    save_project(kit.mlp_project(train_csv, valid_csv, batch=8, max_epoch=3,
                                 solver_parameters={"Alpha": "0.05", "Beta1": "0.9",
                                                    "Beta2": "0.999", "Epsilon": "1e-08"}),
                 tmp_path / "p.ncproj")  # fmt: skip
    assert main(["train", str(tmp_path / "p.ncproj"), "-o", str(tmp_path / "job"),
                 "--seed", "0"]) == 0  # fmt: skip
    return tmp_path / "job"


def test_evaluate_prints_metrics_and_writes_nnc_files(job, capsys):
    capsys.readouterr()
    assert main(["evaluate", str(job)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert (
        out[0]
        == f"evaluated 24 rows of Validation with the best parameters -> {job}/output_result.csv"
    )
    assert out[1].startswith("y': accuracy ") and out[1].endswith("(3 classes)")
    assert out[2] == f"confusion matrix: {job}/confusion_matrix_y.csv"
    header = (job / "output_result.csv").read_text().splitlines()[0]
    assert header == "x__0,x__1,x__2,x__3,y:label,y'__0,y'__1,y'__2"
    matrix = (job / "confusion_matrix_y.csv").read_bytes().split(b"\r\n")
    assert matrix[0] == b",y'__0,y'__1,y'__2,Recall" and matrix[1].startswith(b"y:label=0,")


def test_evaluate_json_and_options(job, capsys):
    capsys.readouterr()
    assert main(["evaluate", str(job), "--json", "--checkpoint", "last", "--dataset",
                 "Training"]) == 0  # fmt: skip
    summary = json.loads(capsys.readouterr().out)
    assert summary["rows"] == 48 and summary["checkpoint"] == "last"
    assert summary["dataset"] == "Training" and summary["network"] == "MainRuntime"
    accuracy = summary["classification"]["y'"]["accuracy"]
    assert accuracy > 0.9  # separable blobs after 3 epochs
    assert summary == json.loads((job / "evaluation.json").read_text())


def test_evaluate_on_a_builtin_dataset(job, capsys):
    """The blobs have iris's four features and three classes: iris's validation split fits."""
    capsys.readouterr()
    assert main(["evaluate", str(job), "--json", "--dataset", "builtin:iris/validation"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["rows"] == 30 and summary["dataset"] == "builtin:iris/validation"
    rows = (job / "output_result.csv").read_text().splitlines()
    assert len(rows) == 31 and rows[0].startswith("x__0:sepal length,")


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["evaluate", "nojob"], "nojob: no such job folder"),
        (["evaluate", "JOB", "--dataset", "Test"], "--dataset Test: not a dataset of the job"),
    ],
)
def test_evaluate_errors(job, capsys, argv, message):
    argv = [str(job) if a == "JOB" else a for a in argv]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("neurocanvas evaluate: error: ") and message in err


def test_evaluate_of_the_default_project_reads_back_as_its_forward_passes(tmp_path, monkeypatch):
    """The default project (LeNet, 297 validation PNGs, batch 64: a short last batch), trained
    one epoch and evaluated by the command; its three files read back with csv and json: the
    dataset's cells with full image paths, each output as the text of its float32 value from
    the runtime's own forward pass, the confusion matrix and accuracy those outputs give."""
    monkeypatch.setenv("NEUROCANVAS_CACHE", str(tmp_path / "cache"))
    job = tmp_path / "job"
    assert main(["train", str(ROOT / "projects" / "lenet_digits.ncproj"), "-o", str(job),
                 "--epochs", "1", "--seed", "0"]) == 0  # fmt: skip
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-m", "engine.cli", "evaluate", str(job)], env=env,
                          capture_output=True, text=True, timeout=600)  # fmt: skip
    assert done.returncode == 0, done.stderr
    summary = json.loads((job / "evaluation.json").read_text())
    source = Path(summary["csv"])
    with open(source, newline="") as handle:
        cells = list(csv.reader(handle))[1:]
    with open(job / "output_result.csv", newline="") as handle:
        header, *rows = list(csv.reader(handle))
    assert header == ["x:image", "y:label", *(f"y'__{k}" for k in range(10))]
    assert len(rows) == len(cells) == summary["rows"] == 297
    folder = os.path.abspath(source.parent)
    assert [r[:2] for r in rows] == [[os.path.join(folder, x.removeprefix("./")), y]
                                     for x, y in cells]  # fmt: skip
    opened = Job.open(job)
    nn.clear_parameters()
    program = compile_network(opened.load_project(), "MainRuntime")
    params = load_job_parameters(opened, program, "best")
    with open_dataset(source) as data:
        outputs = np.concatenate([o["y'"] for _, o in run_outputs(program, params, data, 64, {})])
    assert [r[2:] for r in rows] == [[str(np.float32(v)) for v in o] for o in outputs]
    truth = np.array([int(y) for _, y in cells])
    predicted = outputs.argmax(axis=1)
    with open(job / "confusion_matrix_y.csv", newline="") as handle:
        matrix = list(csv.reader(handle))
    counts = np.array([[int(n) for n in line[1:11]] for line in matrix[1:11]])
    expected = np.zeros((10, 10), int)
    np.add.at(expected, (truth, predicted), 1)
    assert counts.tolist() == expected.tolist() and counts.sum() == 297
    accuracy = summary["classification"]["y'"]["accuracy"]
    assert accuracy == pytest.approx(float(np.mean(truth == predicted)), abs=1e-12)

"""``neurocanvas evaluate``: NNC's Evaluate on a trained job, its summary and its errors."""

from __future__ import annotations

import json

import pytest
import runtime_kit

from engine.cli import main
from engine.formats import save_project


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

"""NNC's ``result.ini`` and ``results.nnp`` in every job folder (docs/formats.md §3.3)."""

from __future__ import annotations

import configparser
import csv

import numpy as np
import pytest
import runtime_kit

from engine.cli import main
from engine.formats import save_project
from engine.model_import import read_model
from engine.nn.parameter_file import load_arrays
from engine.runtime.compiler import compile_network


@pytest.fixture
def job(monkeypatch, tmp_path):
    monkeypatch.setenv("NEUROCANVAS_CACHE", str(tmp_path / "cache"))
    train_csv, valid_csv = runtime_kit.blobs(tmp_path, rows=24)
    path = tmp_path / "p.ncproj"
    save_project(runtime_kit.mlp_project(train_csv, valid_csv, batch=8), path)
    root = tmp_path / "job"
    assert main(["train", str(path), "-o", str(root), "--epochs", "4", "--seed", "1"]) == 0
    return root


def test_result_ini_matches_the_learning_curve_and_the_statistics(job, capsys):
    raw = (job / "result.ini").read_bytes()
    assert raw.count(b"\r\n") == raw.count(b"\n")  # CRLF, as NNC for Windows writes it
    ini = configparser.ConfigParser()
    ini.optionxform = str  # keep NNC's key case
    ini.read_string(raw.decode())
    with open(job / "learning_curve.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    valid = [float(r["valid_error"]) for r in rows if r["valid_error"]]
    result = ini["result"]
    assert int(result["epoch"]) == len(rows) == int(result["max_epoch"]) == 4
    best = int(np.argmin(valid))
    monitored = [int(r["epoch"]) for r in rows if r["valid_error"]]
    assert int(result["best_epoch"]) == monitored[best]
    assert float(result["best_validation"]) == float(np.float32(valid[best]))
    assert float(result["validation"]) == float(np.float32(valid[-1]))
    capsys.readouterr()
    assert main(["cost", str(job / "network.ncproj"), "--network", "Main"]) == 0
    printed = {line.split()[0]: int(line.split()[1].replace(",", ""))
               for line in capsys.readouterr().out.splitlines()[1:] if line.strip()}  # fmt: skip
    stats = {k: int(v) for k, v in ini["statistics"].items()}
    assert list(stats) == ["Output", "CostParameter", "CostAdd", "CostMultiply",
                           "CostMultiplyAdd", "CostDivision", "CostExp", "CostIf"]  # fmt: skip
    assert stats == {k: printed[k] for k in stats}
    assert int(result["cost_multiply_add"]) == stats["CostMultiplyAdd"] > 0


def test_results_nnp_holds_the_best_parameters(job):
    imported = read_model(job / "results.nnp")
    arrays, meta = load_arrays(job / "checkpoints" / "best" / "parameters.npz")
    best = {e["name"]: arrays[e["key"]] for e in meta["parameters"]}
    assert imported.parameters.keys() == best.keys()
    for name, value in best.items():
        np.testing.assert_array_equal(imported.parameters[name], value)
    # The file's MainValidation and MainRuntime are what NeuroCanvas derives from Main.
    assert imported.project.network_names == ("Main",)
    assert [name for name, _ in compile_network(imported.project, "MainRuntime").outputs] == ["y'"]


def test_results_nnp_imports_and_fine_tunes_from_its_parameters(job, tmp_path, capsys):
    """The NNC journey: train, take results.nnp, import it, continue training from it."""
    source = tmp_path / "p.ncproj"
    trained = tmp_path / "trained"
    assert main(["train", str(source), "-o", str(trained), "--epochs", "40", "--seed", "2"]) == 0
    project = tmp_path / "imported.ncproj"
    assert main(["import", str(trained / "results.nnp"), "-o", str(project)]) == 0
    params = tmp_path / "imported_parameters.npz"
    tuned, fresh = tmp_path / "tuned", tmp_path / "fresh"
    assert main(["train", str(project), "-o", str(tuned), "--epochs", "1", "--seed", "1",
                 "--params", str(params)]) == 0  # fmt: skip
    assert main(["train", str(project), "-o", str(fresh), "--epochs", "1", "--seed", "1"]) == 0

    def costs(root):
        with open(root / "learning_curve.csv", newline="") as f:
            return [float(row["cost"]) for row in csv.DictReader(f)]

    # The first fine-tuning epoch continues where the trained job ended, far below a fresh start.
    assert costs(tuned)[0] < 0.8 * costs(fresh)[0]
    assert costs(tuned)[0] < costs(trained)[-1] * 1.02 < costs(trained)[0]
    capsys.readouterr()
    assert main(["train", str(project), "-o", str(tmp_path / "x"), "--params",
                 str(tmp_path / "missing.npz")]) == 2  # fmt: skip
    assert "--params:" in capsys.readouterr().err and not (tmp_path / "x").exists()

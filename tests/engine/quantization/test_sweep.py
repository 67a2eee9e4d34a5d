"""Sweeps over a trained LeNet on digits: results.csv, job folders, resuming, sensitivity."""

from __future__ import annotations

import csv
import json
import math
from pathlib import Path

import pytest

from engine.quantization.sensitivity import run_sensitivity
from engine.quantization.sweep import Sweep, SweepOptions

LENET = Path(__file__).parents[3] / "projects" / "lenet_digits.ncproj"
HEADER = ["quantizer", "target", "bits", "mode", "accuracy", "error", "parameter_bytes",
          "cost_multiply_add", "job"]  # fmt: skip
# LeNet's parameters: (W, b) element counts of Convolution, Convolution_2, Affine, Affine_2.
PARAMETERS = [(16 * 1 * 7 * 7, 16), (30 * 16 * 3 * 3, 30), (480 * 150, 150), (150 * 10, 10)]


def _bytes(weight_bits: int, bias_bits: int) -> int:
    """Each parameter at its width, rounded up to whole bytes, by hand."""
    return sum(math.ceil(w * weight_bits / 8) + math.ceil(b * bias_bits / 8)
               for w, b in PARAMETERS)  # fmt: skip


@pytest.fixture(autouse=True)
def _cache(lenet_cache):
    """Every test here reads the job's datasets."""


def _read(path: Path) -> list[dict[str, str]]:
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def test_ptq_sweep_writes_results_csv_and_a_job_folder_per_point(lenet_job, tmp_path):
    options = SweepOptions(bits=(8, 2), targets=("both", "weights"))
    Sweep(LENET, lenet_job, tmp_path / "sweep", options).run()
    with open(tmp_path / "sweep" / "results.csv", newline="", encoding="utf-8") as f:
        assert next(csv.reader(f)) == HEADER
    rows = _read(tmp_path / "sweep" / "results.csv")
    keys = [(r["quantizer"], r["target"], r["bits"], r["mode"]) for r in rows]
    assert keys == [("none", "none", "32", "float"), ("fixed-point", "both", "8", "ptq"),
                    ("fixed-point", "weights", "8", "ptq"), ("fixed-point", "both", "2", "ptq"),
                    ("fixed-point", "weights", "2", "ptq")]  # fmt: skip
    assert [int(r["parameter_bytes"]) for r in rows] == [
        _bytes(32, 32), _bytes(8, 8), _bytes(8, 32), _bytes(2, 2), _bytes(2, 32)]  # fmt: skip
    assert _bytes(8, 8) == 78_810 and _bytes(2, 2) == 19_704
    assert {r["cost_multiply_add"] for r in rows} == {"802876"}  # quantizers add no MACs
    accuracy = {(r["target"], r["bits"]): float(r["accuracy"]) for r in rows}
    for row in rows:
        assert float(row["error"]) == pytest.approx(1 - float(row["accuracy"]))
        evaluation = json.loads((tmp_path / "sweep" / row["job"] / "evaluation.json").read_text())
        assert evaluation["classification"]["y'"]["accuracy"] == float(row["accuracy"])
    reference = accuracy["none", "32"]
    assert reference > 0.9
    assert abs(accuracy["both", "8"] - reference) <= 0.005
    assert accuracy["both", "2"] < reference - 0.3  # the cliff
    assert (tmp_path / "sweep" / "sweep.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    # Each point is an ordinary job: its project holds the quantized network it evaluated.
    point = tmp_path / "sweep" / "fixed-point_both_8bit_ptq"
    project = json.loads((point / "network.ncproj").read_text())
    assert [n["name"] for n in project["networks"]] == ["Main", "Main_q8"]
    assert json.loads((point / "status.json").read_text())["status"] == "finished"
    # Their learning curve holds the trainer's valid_error monitor (the float point's equals
    # the float job's at its best epoch), so the trade-off graph compares like with like.
    best = json.loads((lenet_job / "status.json").read_text())["best_epoch"]
    trained = {r["epoch"]: r["valid_error"] for r in _read(lenet_job / "learning_curve.csv")}
    curves = {r["job"]: _read(tmp_path / "sweep" / r["job"] / "learning_curve.csv")
              for r in rows}  # fmt: skip
    assert float(curves["float"][0]["valid_error"]) == pytest.approx(float(trained[str(best)]))
    assert float(curves["fixed-point_both_2bit_ptq"][0]["valid_error"]) > 2 * float(
        curves["fixed-point_both_8bit_ptq"][0]["valid_error"]
    )


def test_an_interrupted_sweep_keeps_its_points_and_continues(lenet_job, tmp_path):
    out = tmp_path / "sweep"
    options = SweepOptions(bits=(6, 3), targets=("activations",))
    started: list[tuple[int, str]] = []

    def stop_after_first(event):
        if event["event"] == "point_start":
            started.append((event["bits"], event["mode"]))
        if event["event"] == "point" and event["mode"] == "ptq":
            sweep.request_stop()

    sweep = Sweep(LENET, lenet_job, out, options, on_event=stop_after_first)
    assert len(sweep.run()) == 2
    assert [r["bits"] for r in _read(out / "results.csv")] == ["32", "6"]
    kept = (out / "fixed-point_activations_6bit_ptq" / "evaluation.json").stat().st_mtime_ns
    started.clear()
    Sweep(LENET, lenet_job, out, options, on_event=lambda e: started.append(
        (e["bits"], e["mode"])) if e["event"] == "point_start" else None).run()  # fmt: skip
    assert started == [(3, "ptq")]  # only the missing point ran
    assert [r["bits"] for r in _read(out / "results.csv")] == ["32", "6", "3"]
    assert (out / "fixed-point_activations_6bit_ptq" / "evaluation.json").stat().st_mtime_ns == kept


@pytest.mark.slow
def test_qat_point_stopped_mid_training_resumes_from_its_checkpoint(lenet_job, tmp_path):
    out = tmp_path / "sweep"
    options = SweepOptions(bits=(4,), targets=("both",), mode="qat", epochs=1)

    def stop_when_training_starts(event):
        if event["event"] == "point_start" and event["mode"] == "qat":
            sweep.request_stop()

    sweep = Sweep(LENET, lenet_job, out, options, on_event=stop_when_training_starts)
    sweep.run()
    folder = out / "fixed-point_both_4bit_qat"
    assert [r["mode"] for r in _read(out / "results.csv")] == ["float"]
    assert json.loads((folder / "status.json").read_text())["status"] == "stopped"
    assert (folder / "checkpoints" / "last").is_dir()
    Sweep(LENET, lenet_job, out, options).run()
    rows = _read(out / "results.csv")
    assert [r["mode"] for r in rows] == ["float", "qat"]
    status = json.loads((folder / "status.json").read_text())
    assert status["status"] == "finished" and status["epoch"] == 1
    assert len(_read(folder / "learning_curve.csv")) == 1
    assert float(rows[1]["accuracy"]) > 0.8


@pytest.mark.slow
def test_sensitivity_ranks_layers_and_mixed_precision_fits_the_budget(lenet_job, tmp_path):
    sweep = Sweep(LENET, lenet_job, tmp_path / "s", SweepOptions(bits=(8, 2)))
    sweep.out_dir.mkdir()
    budget = _bytes(8, 8) // 2
    result = run_sensitivity(sweep, 2, budget, lambda event: None)
    rows = _read(tmp_path / "s" / "sensitivity.csv")
    assert [r["rank"] for r in rows] == [str(k) for k in range(1, len(rows) + 1)]
    losses = [float(r["loss"]) for r in rows]
    assert losses == sorted(losses, reverse=True) and losses[0] > 0.05
    for r in rows:
        assert float(r["loss"]) == pytest.approx(result["reference"] - float(r["accuracy"]))
    mixed = json.loads((tmp_path / "s" / "mixed_precision.json").read_text())
    widths = mixed["layer_bits"]
    assert set(widths) == {"Convolution", "Convolution_2", "Affine", "Affine_2"}
    by_hand = sum(math.ceil(w * widths[n] / 8) + math.ceil(b * widths[n] / 8)
                  for n, (w, b) in zip(widths, PARAMETERS, strict=True))  # fmt: skip
    assert mixed["parameter_bytes"] == by_hand <= budget
    evaluation = json.loads((tmp_path / "s" / "mixed_precision" / "evaluation.json").read_text())
    assert evaluation["classification"]["y'"]["accuracy"] == mixed["accuracy"]

"""An evaluation stopped after it began replacing a job's result files (the app kills it when
closed) leaves no ``evaluation.json`` from the evaluation before: the summary the EVALUATION
tab, the report and the job history read is only ever the one of the files beside it."""

from __future__ import annotations

import json

import numpy as np
import pytest

import engine.nn as nn
from engine.formats import save_project
from engine.runtime import evaluator
from engine.runtime.run import train


def _set_weight(job, value):
    nn.save_parameters(job / "checkpoints" / "best" / "parameters.npz", {
        "Affine/affine/W": nn.Variable(np.full((2, 1), value, np.float32)),
        "Affine/affine/b": nn.Variable(np.zeros(1, np.float32)),
    })  # fmt: skip


def test_a_stopped_re_evaluation_leaves_no_stale_summary(kit, tmp_path, monkeypatch):
    rows = [[k, 2 * k, k % 2] for k in range(6)]
    data = kit.write_csv(tmp_path / "data.csv", ["x__0", "x__1", "y"], rows)
    layers = [
        kit.layer("Input", "Input", Size=(2,), Dataset="x"),
        kit.layer("Affine", "Affine", OutShape=1),
        kit.layer("SquaredError", "SquaredError", T__Dataset="y"),
    ]
    project = kit.make_project([kit.network("Main", layers, kit.chain(*[x.name for x in layers]))],
                               train=data, valid=data, max_epoch=1, batch=2)  # fmt: skip
    save_project(project, tmp_path / "p.ncproj")
    job = tmp_path / "job"
    train(tmp_path / "p.ncproj", job_dir=job, seed=0)
    _set_weight(job, 1.0)
    evaluator.evaluate(job)
    first = json.loads((job / "evaluation.json").read_text(encoding="utf-8"))
    assert first["rows"] == 6

    _set_weight(job, 3.0)  # other outputs, then stopped before the metrics are written

    def stopped(*args, **kwargs):
        raise KeyboardInterrupt("killed")

    monkeypatch.setattr(evaluator, "_metrics", stopped)
    with pytest.raises(KeyboardInterrupt):
        evaluator.evaluate(job)
    outputs = (job / "output_result.csv").read_text(encoding="utf-8").splitlines()
    assert outputs[1].split(",")[-1] == "0.0" and outputs[2].split(",")[-1] == "9.0"  # new
    assert not (job / "evaluation.json").exists()  # not the first evaluation's summary

    monkeypatch.undo()
    evaluator.evaluate(job)  # evaluated again: the summary is back
    assert json.loads((job / "evaluation.json").read_text(encoding="utf-8"))["rows"] == 6

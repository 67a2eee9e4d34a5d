"""Precision Half: float16 activations and gradients, float32 masters and reductions, nnabla's
dynamic loss scaling (docs/nnc-behaviour.md §6.2), and the default project trained in Half."""

from __future__ import annotations

import io
import json
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

import engine.nn as nn
from engine.core import backend
from engine.formats import load_project, save_project
from engine.nn import solvers as S
from engine.nn.optimizer import Optimizer
from engine.runtime.compiler import compile_network
from engine.runtime.evaluator import evaluate
from engine.runtime.precision import DynamicLossScaler, cast
from engine.runtime.run import Options, train

ROOT = Path(__file__).resolve().parents[3]


class NnablaUpdater:
    """nnabla's ``DynamicLossScalingUpdater.update`` transcribed (forward/backward stubbed by
    ``outcomes``: True = the gradients overflow), retries on fresh data included."""

    def __init__(self, outcomes):
        self.loss_scale, self.scaling_factor, self.N, self.counter = 8.0, 2.0, 2000, 0
        self.outcomes = iter(outcomes)
        self.updates = 0

    def update(self):
        overflow = next(self.outcomes)  # zero_grad; forward; backward(grad=loss_scale)
        if overflow:
            self.loss_scale /= self.scaling_factor
            self.counter = 0
            self.update()  # nnabla retries at once on fresh data
            return
        self.updates += 1  # scale_grad(1/loss_scale); update()
        if self.counter > self.N:
            self.loss_scale *= self.scaling_factor
            self.counter = 0
        self.counter += 1


def test_loss_scaler_follows_nnablas_rule():
    rng = np.random.default_rng(0)
    outcomes = [False] * 2001 + [False] + [False] * 2000 + [False] + [True, True]
    outcomes += list(rng.random(9000) < 0.001) + [False] * 10
    reference = NnablaUpdater(outcomes)
    ours = DynamicLossScaler()
    scales = []
    for overflow in outcomes:
        if ours.after_backward(overflow):
            ours.after_update()
        scales.append(ours.scale)
    # nnabla's update() consumes outcomes until one is good: compare after each good step.
    position = 0
    while position < len(outcomes) - 10:
        reference.update()
        position += 1
        while outcomes[position - 1]:  # the retries nnabla made inside this update()
            position += 1
        assert scales[position - 1] == reference.loss_scale, f"step {position}"
    assert scales[2000] == 8.0 and scales[2001] == 16.0  # first increase: 2002nd good step
    assert scales[4002] == 32.0 and scales[4001] == 16.0  # then every 2001 good steps
    assert scales[4003] == 16.0 and scales[4004] == 8.0  # each overflow halves
    assert ours.overflows == sum(outcomes)


def test_float32_layer_types_are_catalogue_types():
    from engine.layers import all_specs
    from engine.runtime.precision import FLOAT32_TYPES

    assert FLOAT32_TYPES <= {spec.type for spec in all_specs()}


def test_half_activations_float32_masters_and_reductions(kit, tmp_path):
    layers = [
        kit.layer("Input", "Input", Size=(1, 6, 6), Dataset="x"),
        kit.layer("Convolution", "Convolution", KernelShape=(3, 3), OutMaps=4),
        kit.layer("BatchNormalization", "BatchNormalization"),
        kit.layer("ReLU", "ReLU"),
        kit.layer("Affine", "Affine", OutShape=3),
        kit.layer("Softmax", "Softmax"),
        kit.layer("CategoricalCrossEntropy", "CategoricalCrossEntropy", T__Dataset="y"),
    ]
    project = kit.make_project(
        [kit.network("Main", layers, kit.chain(*(item.name for item in layers)))]
    )
    program = replace(compile_network(project, "Main"), precision="Half")
    params = program.create_parameters()
    rng = np.random.default_rng(0)
    batch = {
        "x": rng.random((5, 1, 6, 6), dtype=np.float32),
        "y": np.array([[0], [1], [2], [0], [1]]),
    }
    acts = program.forward(batch, params)
    dtypes = {name: v.data.dtype for name, v in acts.items()}
    assert dtypes["Convolution"] == dtypes["ReLU"] == dtypes["Affine"] == np.float16
    assert dtypes["BatchNormalization"] == dtypes["Softmax"] == np.float16  # handed on as half
    assert dtypes["CategoricalCrossEntropy"] == np.float32
    loss = acts["CategoricalCrossEntropy"]
    loss.backward()
    for name, p in params.items():
        assert p.data.dtype == np.float32, name
        if p.need_grad and p.grad is not None:
            assert p.grad.dtype == np.float32, name
    # The float32 program gives nearly the same loss.
    reference = compile_network(project, "Main").forward(batch, params)
    np.testing.assert_allclose(
        backend.to_numpy(loss.data), reference["CategoricalCrossEntropy"].data, rtol=2e-2, atol=2e-3
    )


def test_overflow_step_is_skipped_counted_and_the_scale_halves():
    w = nn.Variable(np.array([1.0, -2.0], np.float32), need_grad=True)
    solver = S.Sgd(lr=0.1)
    solver.set_parameters({"w": w})
    scaler = DynamicLossScaler(scale=2.0**20)  # float16 gradients overflow at this scale
    optimizer = Optimizer(solver, loss_scaler=scaler)

    def loss():
        x = nn.Variable(np.array([3.0, 4.0], np.float16))
        y = cast(w, np.float16) * x
        return cast(y, np.float32)

    assert not optimizer.step(0, [loss()])
    np.testing.assert_array_equal(w.data, [1.0, -2.0])  # skipped
    assert scaler.overflows == 1 and scaler.scale == 2.0**19
    while not optimizer.step(0, [loss()]):
        pass
    np.testing.assert_allclose(w.data, [1.0 - 0.1 * 3.0 / 2, -2.0 - 0.1 * 4.0 / 2], rtol=1e-3)
    # The float16 gradient of w is scale / 2 * x: 4 * 2^14 / 2 fits below 65504, 2^15 does not.
    assert scaler.scale == 2.0**14 and scaler.overflows == 6


def test_half_events_report_the_scale_and_overflow_steps(kit, tmp_path):
    train_csv, valid_csv = kit.blobs(tmp_path, rows=24)
    project = kit.mlp_project(train_csv, valid_csv, max_epoch=2, batch=8)
    project.replace_section("config", project.config.with_value("TypeConfig", "Half"))
    path = tmp_path / "half.ncproj"
    save_project(project, path)
    stream = io.StringIO()
    train(path, job_dir=tmp_path / "job", seed=0, options=Options(events=stream))
    epochs = [json.loads(x) for x in stream.getvalue().splitlines() if '"epoch"' in x]
    epochs = [e for e in epochs if e["event"] == "epoch"]
    assert [e["loss_scale"] for e in epochs] == [[8.0], [8.0]]
    assert [e["overflow_steps"] for e in epochs] == [0, 0]


@pytest.mark.slow
def test_half_trains_the_default_project_within_half_a_point_of_float(tmp_path):
    """lenet_digits (the app's default project), full data, 4 of its 20 epochs (the CPU emulates
    float16, slowly): validation accuracy in Half within 0.5 points of Float."""
    project = load_project(ROOT / "projects" / "lenet_digits.ncproj")
    accuracy = {}
    for precision in ("Float", "Half"):
        project.replace_section("config", project.config.with_value("TypeConfig", precision))
        path = tmp_path / f"{precision}.ncproj"
        save_project(project, path)
        nn.clear_parameters()
        train(path, job_dir=tmp_path / precision, epochs=4, seed=0)
        evaluate(tmp_path / precision)
        summary = json.loads((tmp_path / precision / "evaluation.json").read_text())
        accuracy[precision] = summary["classification"]["y'"]["accuracy"]
    assert accuracy["Float"] > 0.85
    assert abs(accuracy["Half"] - accuracy["Float"]) <= 0.005, accuracy


def test_loss_scaling_none_trains_half_without_a_scaler(kit, tmp_path):
    """``neurocanvas train --loss-scaling none``: NNC's Half (no scaling, no loss_scale field)."""
    import subprocess
    import sys

    train_csv, valid_csv = kit.blobs(tmp_path, rows=24)
    project = kit.mlp_project(train_csv, valid_csv, max_epoch=1, batch=8)
    project.replace_section("config", project.config.with_value("TypeConfig", "Half"))
    path = tmp_path / "half.ncproj"
    save_project(project, path)
    done = subprocess.run(
        [sys.executable, "-m", "engine.cli", "train", str(path), "-o", str(tmp_path / "job"),
         "--events", "--seed", "0", "--loss-scaling", "none", "--device", "cpu"],
        capture_output=True, text=True, timeout=300, env={**__import__("os").environ,
                                                          "PYTHONPATH": str(ROOT)},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    epochs = [json.loads(x) for x in done.stdout.splitlines() if '"event": "epoch"' in x]
    assert len(epochs) == 1 and "loss_scale" not in epochs[0] and epochs[0]["cost"] > 0
    config = json.loads((tmp_path / "job" / "config.json").read_text())
    assert config["plan"]["loss_scaling"] == "none" and config["plan"]["precision"] == "Half"

"""The ONNX model zoo's classic architectures, as the installed ``onnx`` package ships them
(``onnx/backend/test/data/light/``: AlexNet, DenseNet-121, Inception v1/v2, ResNet-50,
ShuffleNet, SqueezeNet, VGG-19, ZFNet-512), go the user's whole way (issue 28): ``neurocanvas
import`` gives a project that matches onnxruntime within 1e-4 of the largest output;
``neurocanvas export onnx`` writes it back, and onnxruntime on that file matches onnxruntime on
the original within 1e-4 of the largest output; with a loss added (SquaredError against a
target) and a two-sample dataset, ``neurocanvas train`` runs one iteration from the imported
parameters: its loss is finite and the parameters change. The light files fill every weight
with one value (ConstantOfShape), so the test gives each weight random values first: a wrong
channel, window or axis would show."""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from model_kit import outputs

from engine.formats import load_project, save_project
from engine.graph.network import Layer, Link

ort = pytest.importorskip("onnxruntime", reason="onnxruntime not installed")
onnx = pytest.importorskip("onnx", reason="onnx not installed")

ROOT = Path(__file__).resolve().parents[3]
LIGHT = Path(onnx.__file__).parent / "backend" / "test" / "data" / "light"
MODELS = sorted(p.stem.removeprefix("light_") for p in LIGHT.glob("light_*.onnx"))


def _randomized(path: Path, seed: int = 0):
    """The model with each ConstantOfShape weight an initializer of random values (variances
    positive, the rest scaled by 1/sqrt(fan-in))."""
    from onnx import TensorProto, helper, numpy_helper

    model = onnx.load(str(path))
    graph = model.graph
    inits = {i.name: numpy_helper.to_array(i) for i in graph.initializer}
    rng = np.random.default_rng(seed)
    keep = []
    for node in graph.node:
        if node.op_type != "ConstantOfShape":
            keep.append(node)
            continue
        shape = tuple(int(d) for d in inits[node.input[0]])
        name = node.output[0]
        if "var" in name or "riv" in name:
            value = rng.uniform(0.5, 1.5, shape)
        else:
            fan_in = int(np.prod(shape[1:])) if len(shape) > 1 else 10
            value = rng.standard_normal(shape, np.float32) / np.float32(np.sqrt(fan_in))
        graph.initializer.append(numpy_helper.from_array(value.astype(np.float32), name))
        # (IR version 3 files list their initializers among the graph inputs too)
        graph.input.append(helper.make_tensor_value_info(name, TensorProto.FLOAT, shape))
    del graph.node[:]
    graph.node.extend(keep)
    return model


def _session(path: Path):
    options = ort.SessionOptions()
    options.log_severity_level = 3  # (the light files' unused __SHAPE initializers)
    return ort.InferenceSession(str(path), options)


def _cli(*args: str, cwd: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-m", "engine.cli", *args], capture_output=True,
                          text=True, cwd=cwd, env=env, timeout=1200)  # fmt: skip
    assert done.returncode == 0, done.stderr


def _parameters(path: Path) -> dict[str, np.ndarray]:
    """A parameters.npz read with NumPy alone (its JSON index names the arrays)."""
    with np.load(path, allow_pickle=False) as npz:
        index = json.loads(bytes(npz["__neurocanvas_meta__"]).decode("utf-8"))
        return {p["name"]: npz[p["key"]] for p in index["parameters"]}


def _with_loss(project_file: Path, x: np.ndarray, folder: Path) -> None:
    """As a user would: a classification loss after the network's output (CategoricalCrossEntropy
    after its Softmax, else SoftmaxCrossEntropy on its logits) over the class axis, the Input
    reading dataset column ``x``, two samples with labels 3 and 7, one epoch at batch 2 (one
    iteration) with SGD at learning rate 1 (a step that float32 shows: the random network's
    first blocks get gradients near 1e-7, which 0.01 times would not move)."""
    from engine.graph import config as cfg

    project = load_project(project_file)
    net = project.network("Main")
    (last,) = [layer.name for layer in net.layers if not net.outputs_of(layer.name)]
    (source,) = [layer.name for layer in net.layers if layer.type == "Input"]
    rows = []
    for k, label in enumerate((3, 7)):
        np.save(folder / f"x{k}.npy", x[k])
        rows.append([f"x{k}.npy", label])
    data = folder / "two.csv"
    with open(data, "w", newline="", encoding="utf-8") as f:
        csv.writer(f, lineterminator="\n").writerows([["x", "y"], *rows])
    net.set_property(source, "Dataset", "x")
    kind = "CategoricalCrossEntropy" if net.layer(last).type == "Softmax" else "SoftmaxCrossEntropy"
    loss = net.new_layer(kind, name="Loss")
    net.add_layer(Layer("Loss", kind, {**loss.properties, "Axis": "0", "T.Dataset": "y"}))
    net.connect(Link(last, "Loss"))
    settings = cfg.default_settings()
    settings["datasets"] = [
        cfg.Dataset.new(Name="Training", URI=str(data), Shuffle="0"),
        cfg.Dataset.new(Name="Validation", URI=str(data), Shuffle="0"),
    ]
    settings["config"] = cfg.GlobalConfig.new(MaxEpoch="1", BatchSize="2", MonitorInterval="1")
    settings["optimizers"] = [cfg.Optimizer.new().with_solver("Sgd", {"LearningRate": "1.0"})]
    save_project(type(project)([net], **settings), project_file)


SLOW = {"vgg19", "zfnet512"}  # 143 and 62 M parameters: their files are written five times


@pytest.mark.parametrize(
    "name", [pytest.param(m, marks=pytest.mark.slow) if m in SLOW else m for m in MODELS]
)
def test_light_model_zoo_imports_exports_back_and_trains(name, tmp_path):
    path = tmp_path / f"{name}.onnx"
    onnx.save(_randomized(LIGHT / f"light_{name}.onnx"), path)
    model = onnx.load(str(path))
    inits = {i.name for i in model.graph.initializer}
    (data,) = [i for i in model.graph.input if i.name not in inits]
    shape = [d.dim_value for d in data.type.tensor_type.shape.dim]
    x = np.random.default_rng(1).random([2, *shape[1:]]).astype(np.float32)
    original = _session(path)
    expected = original.run(None, {data.name: x[:1]})[0]
    assert expected.max() > 3 * expected.min()  # the random weights make a real difference
    scale = np.abs(expected).max()

    project = tmp_path / "model.ncproj"
    _cli("import", str(path), "-o", str(project), cwd=tmp_path)
    params = _parameters(tmp_path / "model_parameters.npz")
    got = outputs(load_project(project), "Main", params, {data.name: x[:1]})[0]
    assert got.size == expected.size
    np.testing.assert_allclose(got.reshape(expected.shape), expected, rtol=0, atol=1e-4 * scale)

    back = tmp_path / "back.onnx"
    _cli("export", "onnx", str(project), "--params", str(tmp_path / "model_parameters.npz"),
         "-o", str(back), cwd=tmp_path)  # fmt: skip
    session = _session(back)
    (feed,) = session.get_inputs()
    again = session.run(None, {feed.name: x[:1]})[0]
    np.testing.assert_allclose(again.reshape(expected.shape), expected, rtol=0,
                               atol=1e-4 * scale)  # fmt: skip

    _with_loss(project, x, tmp_path)
    job = tmp_path / "job"
    _cli("train", str(project), "-o", str(job), "--params",
         str(tmp_path / "model_parameters.npz"), "--seed", "0", cwd=tmp_path)  # fmt: skip
    with open(job / "learning_curve.csv", newline="", encoding="utf-8") as f:
        (row,) = list(csv.DictReader(f))
    assert np.isfinite(float(row["cost"])) and float(row["cost"]) > 0
    trained = _parameters(job / "checkpoints" / "last" / "parameters.npz")
    assert sorted(trained) == sorted(params)
    # the parameters move (batch normalization's mean and variance, imported for inference,
    # are statistics: they stay). Not all of them: with random weights the first blocks of
    # Inception v2 and DenseNet barely reach the output (Inception v2's first BN scales its
    # map to 0.02 and the per-channel bias after it is 0.6), and their gradients, below 1e-8,
    # move no float32 value even at learning rate 1 (34 of 209 arrays, 1 of 364 in DenseNet)
    learnt = [k for k in params if not k.endswith(("/mean", "/var"))]
    moved = [k for k in learnt if not np.array_equal(trained[k], params[k])]
    assert len(moved) >= 0.8 * len(learnt), (len(moved), len(learnt))
    assert learnt[-1] in moved  # (the classifier's)

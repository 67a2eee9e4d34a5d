"""The ONNX model zoo's classic architectures, as the installed ``onnx`` package ships them
(``onnx/backend/test/data/light/``: AlexNet, DenseNet-121, Inception v1/v2, ResNet-50,
ShuffleNet, SqueezeNet, VGG-19, ZFNet-512), import and match onnxruntime within 1e-4 of the
largest output. The light files fill every weight with one value (ConstantOfShape), so the
test gives each weight random values first: a wrong channel, window or axis would show."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from model_kit import outputs

from engine.model_import import read_model

ort = pytest.importorskip("onnxruntime", reason="onnxruntime not installed")
onnx = pytest.importorskip("onnx", reason="onnx not installed")

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
            value = rng.normal(0, 1 / np.sqrt(fan_in), shape)
        graph.initializer.append(numpy_helper.from_array(value.astype(np.float32), name))
        # (IR version 3 files list their initializers among the graph inputs too)
        graph.input.append(helper.make_tensor_value_info(name, TensorProto.FLOAT, shape))
    del graph.node[:]
    graph.node.extend(keep)
    return model


@pytest.mark.parametrize("name", MODELS)
def test_light_model_zoo_imports_and_matches_onnxruntime(name, tmp_path):
    path = tmp_path / f"{name}.onnx"
    onnx.save(_randomized(LIGHT / f"light_{name}.onnx"), path)
    model = onnx.load(str(path))
    inits = {i.name for i in model.graph.initializer}
    (data,) = [i for i in model.graph.input if i.name not in inits]
    shape = [d.dim_value for d in data.type.tensor_type.shape.dim]
    x = np.random.default_rng(1).random(shape).astype(np.float32)
    expected = ort.InferenceSession(str(path)).run(None, {data.name: x})[0]
    imported = read_model(path)
    got = outputs(imported.project, "Main", imported.parameters, {data.name: x})[0]
    assert got.size == expected.size
    assert expected.max() > 3 * expected.min()  # the random weights make a real difference
    scale = np.abs(expected).max()
    np.testing.assert_allclose(got.reshape(expected.shape), expected, rtol=0, atol=1e-4 * scale)

"""ONNX export: the checker passes and onnxruntime reproduces the engine on validation samples.

Parameters are the initial ones with randomized BatchNormalization statistics (so test-mode
normalization is really exercised); inputs are the first 16 rows of each sample's validation
set (built-in datasets, no download). Skipped when onnxruntime is not installed.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import engine.nn as nn
from engine.data import builtin
from engine.data.csv_dataset import open_dataset
from engine.data.iterator import batches_once
from engine.export import ExportError, Source, export_onnx, open_source
from engine.export.onnx_model import onnx_model, unsupported_steps
from engine.formats import load_project
from engine.graph.network import Layer, Link
from engine.runtime.compiler import compile_network
from engine.runtime.datasets import BUILTIN_SCHEME

ort = pytest.importorskip("onnxruntime", reason="onnxruntime not installed")
onnx = pytest.importorskip("onnx", reason="onnx not installed")

ROOT = Path(__file__).resolve().parents[3]
PROJECTS = sorted((ROOT / "projects").glob("*.ncproj"))


def _validation(project, cache: Path, rows: int = 16) -> dict[str, np.ndarray]:
    uri = next(d.uri for d in project.datasets if d.name == project.executors[0].dataset)
    name, _, split = uri.removeprefix(BUILTIN_SCHEME).partition("/")
    data = open_dataset(builtin.ensure(name, root=cache)[split], cache=False)
    return next(iter(batches_once(data, rows)))[1]


def _engine_on_validation(job: Path, cache: Path, rows: int):
    """(program, x, labels, outputs) of ``job``'s runtime network (its trained parameters) on
    the first ``rows`` validation samples: the engine's side of an exported file's check."""
    source = open_source(job)
    program = compile_network(source.project, source.runtime)
    with nn.parameter_scope("", {}):
        params = program.create_parameters(source.base)
        nn.load_parameters(source.parameters)
        batch = _validation(source.project, cache, rows)
        ((feed, shape),) = program.feeds.items()
        x = batch["x"].astype(np.float32).reshape(-1, *shape)
        with nn.no_grad():
            out = program.output(program.forward({feed: x}, params), program.outputs[0][0])
    return program, x, batch["y"].reshape(-1), np.asarray(out.data)


def _parameters(program, seed: int = 0) -> dict:
    nn.clear_parameters()
    params = program.create_parameters()
    rng = np.random.default_rng(seed)
    for name, var in params.items():
        if name.endswith(("/mean", "/beta", "/gamma")):
            var.data[...] = rng.normal(0, 0.3, var.shape)
        elif name.endswith("/var"):
            var.data[...] = rng.uniform(0.5, 1.5, var.shape)
    return params


@pytest.mark.parametrize("path", PROJECTS, ids=[p.stem for p in PROJECTS])
def test_onnx_matches_the_engine_on_validation_samples(path, tmp_path_factory, monkeypatch):
    cache = tmp_path_factory.getbasetemp() / "onnx-cache"
    monkeypatch.setenv("NEUROCANVAS_CACHE", str(cache))
    project = load_project(path)
    program = compile_network(project, project.executors[0].network)
    assert unsupported_steps(program) == []
    params = _parameters(program)
    values = {k: np.asarray(v.data) for k, v in params.items()}
    model = onnx_model(program, values, 17)
    onnx.checker.check_model(model, full_check=True)
    assert model.opset_import[0].version == 17
    assert model.graph.input[0].type.tensor_type.shape.dim[0].dim_param == "batch"
    batch = {k: v.astype(np.float32) for k, v in _validation(project, cache).items()}
    feeds = {v: batch[v].reshape(len(batch[v]), *s) for v, s in program.feeds.items()}
    with nn.no_grad():
        acts = program.forward(feeds, params)
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    got = session.run(None, feeds)
    for (name, _), value in zip(program.outputs, got, strict=True):
        expected = np.asarray(program.output(acts, name).data)
        assert value.shape == expected.shape
        assert np.abs(value - expected).max() <= 1e-4, name


def test_unsupported_layers_are_listed_before_writing(tmp_path):
    project = load_project(ROOT / "projects" / "lenet_digits.ncproj")
    main = project.network("Main")  # MainRuntime is derived from it
    relu = next(layer for layer in main.layers if layer.type == "ReLU")
    for i, kind in enumerate(("Sinc", "TanhShrink")):
        main.add_layer(Layer(name=f"Odd{i}", type=kind, position=(0, 0)))
    link = main.outputs_of(relu.name)[0]
    main.disconnect(link)
    main.connect(Link(relu.name, "Odd0"))
    main.connect(Link("Odd0", "Odd1"))
    main.connect(Link("Odd1", link.destination))
    out = tmp_path / "m.onnx"
    source = Source(project, "lenet", "MainRuntime", None, True)
    with pytest.raises(ExportError) as info:
        export_onnx(source, out)
    message = str(info.value)
    assert 'network "MainRuntime" cannot be exported to ONNX' in message
    assert '"Odd0" (Sinc)' in message and '"Odd1" (TanhShrink)' in message
    assert not out.exists()


def test_a_model_the_checker_cannot_infer_is_one_error_and_no_file(tmp_path, monkeypatch):
    """full_check's shape inference raises InferenceError, which is no ValidationError: it was a
    traceback (seen while writing a padded SumPooling that onnx could not infer)."""

    def refuse(model, full_check=False):
        raise onnx.shape_inference.InferenceError("[ShapeInferenceError] Inference error(s)")

    monkeypatch.setattr(onnx.checker, "check_model", refuse)
    project = load_project(ROOT / "projects" / "lenet_digits.ncproj")
    out = tmp_path / "m.onnx"
    with pytest.raises(ExportError) as info:
        export_onnx(Source(project, "lenet", "MainRuntime", None, True), out)
    assert str(info.value).endswith(
        'network "MainRuntime": the ONNX checker refused it: [ShapeInferenceError] Inference '
        "error(s)"
    )
    assert not out.exists()


def test_metadata_and_opset(tmp_path):
    project = load_project(ROOT / "projects" / "lenet_digits.ncproj")
    out = export_onnx(Source(project, "lenet", "MainRuntime", None, True), tmp_path / "m.onnx", 13)
    model = onnx.load(str(out))
    assert model.opset_import[0].version == 13
    props = {p.key: p.value for p in model.metadata_props}
    assert "divided by 255" in props["neurocanvas.preprocessing"]
    assert json.loads(props["neurocanvas.final_activation"]) == {"y'": "Softmax (inside the graph)"}
    with pytest.raises(ExportError, match="--opset: expected 13 to"):
        export_onnx(Source(project, "lenet", "MainRuntime", None, True), tmp_path / "x.onnx", 7)


@pytest.mark.parametrize(
    ("kind", "kernel", "stride", "pad", "ignore_border"),
    [
        ("MaxPooling", "3,3", "2,2", "0,0", "False"),  # ceil: 24 -> 12 (floor would give 11)
        ("MaxPooling", "3,3", "2,2", "1,1", "False"),  # a last window inside the padding
        ("MaxPooling", "2,3", "3,2", "1,0", "True"),
        ("AveragePooling", "3,3", "2,2", "1,1", "True"),
        ("AveragePooling", "5,5", "2,2", "0,0", "False"),  # partial last windows: 24 -> 12
        ("AveragePooling", "3,3", "3,3", "1,1", "False"),  # 28 -> 10, the last of 2 cells
        ("AveragePooling", "3,3", "2,2", "1,1", "False"),  # not exportable: see the message
        ("SumPooling", "2,2", "2,2", "0,0", "True"),
    ],
)
def test_pooling_geometries_match(kind, kernel, stride, pad, ignore_border):
    """Pooling sizes follow the engine's rule (pooled_sizes), also where ceil modes differ."""
    project = load_project(ROOT / "projects" / "lenet_digits.ncproj")
    main = project.network("Main")
    layer = next(layer for layer in main.layers if layer.type == "MaxPooling")
    if kind != "MaxPooling":
        _retype(main, layer, kind)
    for key, value in (("KernelShape", kernel), ("Strides", stride), ("Padding", pad),
                       ("IgnoreBorder", ignore_border)):  # fmt: skip
        main.set_property(layer.name, key, value)
    program = compile_network(project, "MainRuntime")
    assert any(s.type == kind for s in program.steps)
    params = _parameters(program)
    values = {k: np.asarray(v.data) for k, v in params.items()}
    if (kind, stride, pad, ignore_border) == ("AveragePooling", "2,2", "1,1", "False"):
        # nnabla's divisor counts the left pad but not the overhang on the right: no ONNX form.
        with pytest.raises(ExportError, match="with IncludingPad and Padding is not exportable"):
            onnx_model(program, values, 17)
        return
    try:
        model = onnx_model(program, values, 17)
    except ExportError as exc:
        assert kind == "SumPooling" and "(SumPooling)" in str(exc)
        return
    x = np.random.default_rng(0).random((2, 1, 28, 28), dtype=np.float32)
    with nn.no_grad():
        expected = np.asarray(program.output(program.forward({"x": x}, params), "y'").data)
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    (got,) = session.run(None, {"x": x})
    assert np.abs(got - expected).max() <= 1e-4


@pytest.mark.parametrize(
    "kind", ["BinaryTanh", "BinarySigmoid", "ELU", "LeakyReLU", "SELU", "Tanh"]
)
def test_activations_match(kind):
    project = load_project(ROOT / "projects" / "lenet_digits.ncproj")
    main = project.network("Main")
    _retype(main, next(layer for layer in main.layers if layer.type == "ReLU"), kind)
    program = compile_network(project, "MainRuntime")
    assert any(s.type == kind for s in program.steps)
    params = _parameters(program)
    model = onnx_model(program, {k: np.asarray(v.data) for k, v in params.items()}, 17)
    x = np.random.default_rng(0).random((2, 1, 28, 28), dtype=np.float32)
    x[0, 0, :4, :4] = 0.0  # exact zeros: the binary activations map 0 like the engine
    with nn.no_grad():
        expected = np.asarray(program.output(program.forward({"x": x}, params), "y'").data)
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    (got,) = session.run(None, {"x": x})
    assert np.abs(got - expected).max() <= 1e-4


def _retype(network, layer, kind):
    """The same layer with another type and the same links."""
    links = [*network.inputs_of(layer.name), *network.outputs_of(layer.name)]
    network.remove_layer(layer.name)
    network.add_layer(Layer(name=layer.name, type=kind, position=layer.position))
    for link in links:
        network.connect(Link(link.source, link.destination, link.dest_pin, link.source_pin))


RECURRENT = sorted((ROOT / "tests" / "fixtures" / "nnc-samples" / "tutorial"
                    / "recurrent_neural_networks").glob("*.sdcproj"))  # fmt: skip


@pytest.mark.parametrize("path", RECURRENT, ids=lambda p: p.stem)
def test_recurrent_samples_export_unrolled_and_match(path, tmp_path_factory):
    """Each time step becomes its own nodes (Gather, the block, Unsqueeze + Concat)."""
    project = load_project(path)
    program = compile_network(project, project.executors[0].network)
    params = _parameters(program)
    model = onnx_model(program, {k: np.asarray(v.data) for k, v in params.items()}, 17)
    assert sum(node.op_type == "Gather" for node in model.graph.node) >= 28  # one per row
    cache = tmp_path_factory.getbasetemp() / "onnx-cache"
    data = open_dataset(builtin.ensure("digits-4or9", root=cache)["validation"], cache=False)
    x = next(iter(batches_once(data, 16)))[1]["x"].astype(np.float32) / 255.0
    with nn.no_grad():
        acts = program.forward({"x": x}, params)
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    got = session.run(None, {"x": x})
    for (name, _), value in zip(program.outputs, got, strict=True):
        expected = np.asarray(program.output(acts, name).data)
        assert value.shape == expected.shape
        assert np.abs(value - expected).max() <= 1e-4, name


def _quantized_lenet(tmp_path, quantizer: str = "fixed-point"):
    from engine.cli import main

    out = tmp_path / "q.ncproj"
    lenet = str(ROOT / "projects" / "lenet_digits.ncproj")
    assert main(["quantize", "insert", lenet, "-o", str(out), "--bits", "8", "--delta", "0.0625",
                 "--quantizer", quantizer]) == 0  # fmt: skip
    return load_project(out)


def test_quantized_export_is_qdq_and_runs_like_the_engine(tmp_path, tmp_path_factory,
                                                          monkeypatch):  # fmt: skip
    """``--quantized``: the 8-bit LeNet's quantizers become QuantizeLinear/DequantizeLinear
    (weights stored as int8 codes), onnxruntime runs it, and on 64 validation images it
    reproduces the engine's quantized simulation within 1e-5, same classes. (Without the
    engine's half-away-from-zero rounding written before QuantizeLinear, which rounds halves
    to even, 31 % of these classes differed.)"""
    cache = tmp_path_factory.getbasetemp() / "onnx-cache"
    monkeypatch.setenv("NEUROCANVAS_CACHE", str(cache))
    project = _quantized_lenet(tmp_path)
    program = compile_network(project, "Main_q8Runtime")
    with pytest.raises(ExportError, match='layer "Convolution_W_Quantize" \\(FixedPointQuantize'):
        onnx_model(program, {k: np.asarray(v.data) for k, v in _parameters(program).items()})
    params = _parameters(program)
    values = {k: np.asarray(v.data) for k, v in params.items()}
    model = onnx_model(program, values, 17, quantized=True)
    onnx.checker.check_model(model, full_check=True)
    ops = [n.op_type for n in model.graph.node]
    assert ops.count("QuantizeLinear") == 8 and ops.count("DequantizeLinear") == 16
    codes = [
        i for i in model.graph.initializer if i.name.startswith("Convolution_W_Quantize/codes")
    ]
    assert codes and codes[0].data_type == onnx.TensorProto.INT8
    batch = _validation(project, cache, 64)
    x = batch["x"].astype(np.float32).reshape(-1, 1, 28, 28)
    with nn.no_grad():
        expected = np.asarray(program.output(program.forward({"x": x}, params), "y'").data)
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    (got,) = session.run(None, {"x": x})
    assert np.abs(got - expected).max() <= 1e-5
    assert got.argmax(1).tolist() == expected.argmax(1).tolist()


def test_quantized_export_names_what_qdq_cannot_express(tmp_path):
    program = compile_network(_quantized_lenet(tmp_path, "pow2"), "Main_q8Runtime")
    values = {k: np.asarray(v.data) for k, v in _parameters(program).items()}
    with pytest.raises(ExportError) as info:
        onnx_model(program, values, 17, quantized=True)
    assert 'layer "Convolution_Quantize" (Pow2Quantize): no linear scale in ONNX' in str(info.value)

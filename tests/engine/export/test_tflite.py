"""TFLite export: the file, read back and run by LiteRT's interpreter, computes what the engine
computes.

* The samples' runtime networks (LeNet, residual, MobileNet- and SqueezeNet-style) with their
  initial parameters and randomized BatchNormalization statistics, float32: within 1e-4 of the
  engine's forward pass on validation images, same classes.
* The default project (LeNet on digits) trained for a few epochs, exported with
  ``neurocanvas export tflite``: float32 within 1e-4 of the engine on every validation image;
  its 8-bit network (``quantize insert``) as full-integer int8 within one output step
  (1/256) on at least 99 % of the outputs and within 0.5 points of the engine's quantized
  accuracy, and as float32 (its quantizers in float operations) within 1e-4; the float
  network calibrated to int8 within 0.5 points of the engine's float accuracy (and 97 % of
  its outputs within one step: int8's rounding of a float network). A 6-bit network within
  one step; 16-bit quantizers refused.
* Bad input: unsupported layers named in one line before anything is written, an existing
  file needs --force, int8 without trained parameters, a job without parameters.

Skipped when ``ai-edge-litert`` (the ``tflite`` extra) is not installed: it holds both the
interpreter and the schema the writer uses.
"""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import engine.nn as nn
from engine.cli import main
from engine.export import ExportError, open_source
from engine.export.tflite import export_tflite, tflite_bytes
from engine.export.tflite.ops import WRITERS
from engine.formats import load_project
from engine.layers import find_spec
from engine.runtime.compiler import compile_network
from tests.engine.export.test_onnx_model import _parameters, _validation

litert = pytest.importorskip(
    "ai_edge_litert.interpreter", reason="ai-edge-litert (the tflite extra) is not installed"
)
ROOT = Path(__file__).resolve().parents[3]
SAMPLES = ["lenet_digits", "residual_digits", "mobilenet_digits", "squeezenet_digits"]


def run_tflite(model: bytes | Path, x: np.ndarray) -> tuple[np.ndarray, dict]:
    """Each row of ``x`` (N, C, H, W) through the interpreter (NHWC input; int8 quantized and
    dequantized with the file's own parameters); the outputs and the output's details."""
    if isinstance(model, Path):
        interpreter = litert.Interpreter(model_path=str(model))
    else:
        interpreter = litert.Interpreter(model_content=model)
    interpreter.allocate_tensors()
    inp, out = interpreter.get_input_details()[0], interpreter.get_output_details()[0]
    rows = []
    for row in x:
        value = row.transpose(1, 2, 0)[None] if row.ndim == 3 else row[None]
        if inp["dtype"] == np.int8:
            scale, zero = inp["quantization"]
            value = np.clip(np.round(value / scale) + zero, -128, 127).astype(np.int8)
        interpreter.set_tensor(inp["index"], value.astype(inp["dtype"]))
        interpreter.invoke()
        got = interpreter.get_tensor(out["index"]).reshape(-1).astype(np.float64)
        if out["dtype"] == np.int8:
            scale, zero = out["quantization"]
            got = (got - zero) * scale
        rows.append(got)
    return np.array(rows), out


@pytest.mark.parametrize("sample", SAMPLES)
def test_samples_float_match_the_engine(sample, tmp_path_factory, monkeypatch):
    cache = tmp_path_factory.getbasetemp() / "tflite-cache"
    monkeypatch.setenv("NEUROCANVAS_CACHE", str(cache))
    project = load_project(ROOT / "projects" / f"{sample}.ncproj")
    program = compile_network(project, project.executors[0].network)
    params = _parameters(program)
    values = {k: np.asarray(v.data) for k, v in params.items()}
    data = tflite_bytes(program, values)
    batch = {k: v.astype(np.float32) for k, v in _validation(project, cache, 16).items()}
    feeds = {v: batch[v].reshape(len(batch[v]), *s) for v, s in program.feeds.items()}
    with nn.no_grad():
        expected = np.asarray(program.output(program.forward(feeds, params), "y'").data)
    got, details = run_tflite(data, next(iter(feeds.values())))
    assert details["dtype"] == np.float32 and got.shape == expected.shape == (16, 10)
    assert np.abs(got - expected).max() <= 1e-4
    assert got.argmax(axis=1).tolist() == expected.argmax(axis=1).tolist()


def test_writers_are_catalogue_layers():
    for layer_type in WRITERS:
        spec = find_spec(layer_type)
        assert spec is not None and spec.function, layer_type


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    """The default project trained 5 epochs on the whole digits training set, its 8-bit
    network (``quantize insert``), and the validation images and labels."""
    from engine.data import builtin
    from engine.runtime.inference import _load  # forward's preprocessing

    tmp = tmp_path_factory.mktemp("tflite-job")
    mp = pytest.MonkeyPatch()
    mp.setenv("NEUROCANVAS_CACHE", str(tmp / "cache"))
    assert main(["train", str(ROOT / "projects" / "lenet_digits.ncproj"), "-o", str(tmp / "job"),
                 "--epochs", "5", "--seed", "0"]) == 0  # fmt: skip
    assert main(["quantize", "insert", str(tmp / "job" / "network.ncproj"), "-o",
                 str(tmp / "q8.ncproj"), "--bits", "8", "--delta", "0.0625"]) == 0  # fmt: skip
    valid = builtin.ensure("digits", root=tmp / "cache")["validation"]
    with open(valid, newline="", encoding="utf-8") as f:
        rows = list(csv.reader(f))[1:]
    x = np.stack([_load(str(valid.parent / r[0]), True) for r in rows]).astype(np.float32)
    labels = np.array([int(r[1]) for r in rows])
    nn.clear_parameters()
    yield tmp, x, labels
    mp.undo()


def _engine(source_path: Path, network: str, params: Path, x: np.ndarray) -> np.ndarray:
    source = open_source(source_path)
    program = compile_network(source.project, network)
    with nn.parameter_scope("", {}):
        p = program.create_parameters()
        nn.load_parameters(params)
        with nn.no_grad():
            return np.concatenate([
                np.asarray(program.output(program.forward({"x": x[i : i + 64]}, p), "y'").data)
                for i in range(0, len(x), 64)])  # fmt: skip


def test_trained_lenet_float_and_int8(trained, capsys):
    tmp, x, labels = trained
    params = tmp / "job" / "checkpoints" / "best" / "parameters.npz"
    model = tmp / "lenet.tflite"
    assert main(["export", "tflite", str(tmp / "job"), "-o", str(model)]) == 0
    assert f"wrote {model}" in capsys.readouterr().out
    expected = _engine(tmp / "job", "MainRuntime", params, x)
    got, details = run_tflite(model, x)
    assert details["dtype"] == np.float32 and got.shape == expected.shape == (len(x), 10)
    assert len(x) == 297 and np.abs(got - expected).max() <= 1e-4
    assert got.argmax(1).tolist() == expected.argmax(1).tolist()

    # the 8-bit network: the quantizers' Deltas are the tensors' scales
    q8 = tmp / "lenet_q8.tflite"
    assert main(["export", "tflite", str(tmp / "q8.ncproj"), "--network", "Main_q8Runtime",
                 "--params", str(params), "--int8", "-o", str(q8)]) == 0  # fmt: skip
    expected = _engine(tmp / "q8.ncproj", "Main_q8Runtime", params, x)
    got, details = run_tflite(q8, x)
    assert details["dtype"] == np.int8 and details["quantization"] == (1 / 256, -128)
    within = (np.abs(got - expected) <= 1 / 256 + 1e-9).mean()
    engine_accuracy, accuracy = (
        (expected.argmax(1) == labels).mean(),
        (got.argmax(1) == labels).mean(),
    )
    print(
        f"q8: {within:.4f} within one step; accuracy {accuracy:.4f} (engine {engine_accuracy:.4f})"
    )
    assert within >= 0.99
    assert abs(accuracy - engine_accuracy) <= 0.005
    assert q8.stat().st_size < model.stat().st_size / 3  # int8 weights

    # the 8-bit network in float32: its quantizers in the engine's own float operations
    q8_float = tmp / "lenet_q8_float.tflite"
    assert main(["export", "tflite", str(tmp / "q8.ncproj"), "--network", "Main_q8Runtime",
                 "--params", str(params), "-o", str(q8_float)]) == 0  # fmt: skip
    got, details = run_tflite(q8_float, x)
    assert details["dtype"] == np.float32 and np.abs(got - expected).max() <= 1e-4

    # the float network calibrated on the training set
    calibrated = tmp / "lenet_int8.tflite"
    assert main(["export", "tflite", str(tmp / "job"), "--int8", "-o", str(calibrated)]) == 0
    expected = _engine(tmp / "job", "MainRuntime", params, x)
    got, details = run_tflite(calibrated, x)
    within = (np.abs(got - expected) <= 1 / 256 + 1e-9).mean()
    engine_accuracy, accuracy = (
        (expected.argmax(1) == labels).mean(),
        (got.argmax(1) == labels).mean(),
    )
    print(f"calibrated: {within:.4f} within one step; accuracy {accuracy:.4f} (engine "
          f"{engine_accuracy:.4f})")  # fmt: skip
    # Against the float engine the difference is int8's own rounding, not a mismatch: on
    # this job 98.0 % of the outputs within one step (98.99 % on the 20-epoch job).
    assert within >= 0.97
    assert abs(accuracy - engine_accuracy) <= 0.005


def test_the_file_reads_back_as_tflite(tmp_path):
    """The independent reader of the ``tflite`` schema package (when installed) sees one
    subgraph whose operators are the layers'."""
    tflite = pytest.importorskip("tflite", reason="the tflite reader package is not installed")
    project = load_project(ROOT / "projects" / "lenet_digits.ncproj")
    program = compile_network(project, "MainRuntime")
    data = tflite_bytes(program, {k: np.asarray(v.data) for k, v in _parameters(program).items()})
    model = tflite.Model.GetRootAsModel(data, 0)
    assert model.Version() == 3 and model.SubgraphsLength() == 1
    graph = model.Subgraphs(0)
    names = {v: k for k, v in vars(tflite.BuiltinOperator).items() if not k.startswith("_")}
    ops = [names[model.OperatorCodes(graph.Operators(i).OpcodeIndex()).BuiltinCode()]
           for i in range(graph.OperatorsLength())]  # fmt: skip
    assert ops == ["CONV_2D", "MAX_POOL_2D", "CONV_2D", "MAX_POOL_2D", "TANH",
                   "FULLY_CONNECTED", "FULLY_CONNECTED", "SOFTMAX"]  # fmt: skip
    relu = tflite.ActivationFunctionType.RELU  # the ReLUs fused into the layers before them
    options = tflite.Conv2DOptions()
    options.Init(graph.Operators(0).BuiltinOptions().Bytes, graph.Operators(0).BuiltinOptions().Pos)
    assert options.FusedActivationFunction() == relu
    assert graph.Tensors(graph.Inputs(0)).ShapeAsNumpy().tolist() == [1, 28, 28, 1]
    assert graph.Tensors(graph.Outputs(0)).Name() == b"y'"


def test_bad_input_is_one_line_and_writes_nothing(tmp_path, capsys):
    lstm = ROOT / "projects" / "lstm_4or9.ncproj"
    out = tmp_path / "lstm.tflite"
    assert main(["export", "tflite", str(lstm), "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and 'layer "RecurrentInput" (RecurrentInput)' in err
    assert "[t=" not in err and list(tmp_path.iterdir()) == []

    lenet = ROOT / "projects" / "lenet_digits.ncproj"
    out = tmp_path / "lenet.tflite"
    out.write_bytes(b"mine")
    assert main(["export", "tflite", str(lenet), "-o", str(out)]) == 2
    assert f"{out}: exists; pass --force to overwrite" in capsys.readouterr().err
    assert out.read_bytes() == b"mine"
    assert main(["export", "tflite", str(lenet), "-o", str(out), "--force"]) == 0
    assert out.read_bytes()[4:8] == b"TFL3"

    assert main(["export", "tflite", str(lenet), "-o", str(tmp_path / "q.tflite"), "--int8"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--int8 needs trained parameters" in err
    assert not (tmp_path / "q.tflite").exists()
    assert main(["export", "c", str(lenet), "-o", str(tmp_path / "c"), "--int8"]) == 2
    assert "--int8 applies to tflite only" in capsys.readouterr().err

    job = tmp_path / "job"  # a job folder whose training never saved parameters
    job.mkdir()
    (job / "network.ncproj").write_bytes(lenet.read_bytes())
    (job / "config.json").write_text("{}")
    assert main(["export", "tflite", str(job), "-o", str(tmp_path / "j.tflite")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and str(job) in err
    assert not (tmp_path / "j.tflite").exists()


def test_unsupported_layers_are_all_named_before_reading_parameters(tmp_path):
    source = open_source(ROOT / "projects" / "lstm_4or9.ncproj")
    with pytest.raises(ExportError) as info:
        export_tflite(source, tmp_path / "x.tflite")
    assert "(RecurrentInput)" in str(info.value) and "(Delay)" in str(info.value)
    assert list(tmp_path.iterdir()) == []


def test_cli_runs_as_a_command(tmp_path):
    """``python -m engine.cli export tflite`` in a fresh interpreter (as a user types it)."""
    out = tmp_path / "m.tflite"
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    done = subprocess.run([sys.executable, "-m", "engine.cli", "export", "tflite",
                           str(ROOT / "projects" / "mobilenet_digits.ncproj"), "-o", str(out)],
                          capture_output=True, text=True, env=env, timeout=300)  # fmt: skip
    assert done.returncode == 0, done.stderr
    interpreter = litert.Interpreter(model_path=str(out))
    interpreter.allocate_tensors()
    assert interpreter.get_input_details()[0]["shape"].tolist() == [1, 28, 28, 1]
    assert json.dumps(interpreter.get_output_details()[0]["shape"].tolist()) == "[1, 10]"


def test_six_bit_codes_are_clipped_and_sixteen_bits_refused(trained, capsys):
    """A 6-bit network (a mixed-precision pick can have one): its codes span 6 bits inside
    int8 (MINIMUM/MAXIMUM at the quantizer's range), so the file still equals the engine
    within one output step; 16-bit codes do not fit int8: the layer is named, nothing written."""
    tmp, x, labels = trained
    params = tmp / "job" / "checkpoints" / "best" / "parameters.npz"
    for bits in ("6", "16"):
        network = str(tmp / "job" / "network.ncproj")
        assert main(["quantize", "insert", network, "-o", str(tmp / f"q{bits}.ncproj"), "--bits",
                     bits, "--delta", "0.0625"]) == 0  # fmt: skip
    out = tmp / "lenet_q6.tflite"
    assert main(["export", "tflite", str(tmp / "q6.ncproj"), "--network", "Main_q6Runtime",
                 "--params", str(params), "--int8", "-o", str(out)]) == 0  # fmt: skip
    expected = _engine(tmp / "q6.ncproj", "Main_q6Runtime", params, x)
    got, _ = run_tflite(out, x)
    assert (np.abs(got - expected) <= 1 / 256 + 1e-9).mean() >= 0.99
    assert (got.argmax(1) == labels).mean() == (expected.argmax(1) == labels).mean()
    capsys.readouterr()
    refused = tmp / "lenet_q16.tflite"
    assert main(["export", "tflite", str(tmp / "q16.ncproj"), "--network", "Main_q16Runtime",
                 "--params", str(params), "--int8", "-o", str(refused)]) == 2  # fmt: skip
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "16-bit codes do not fit int8" in err and "_Quantize" in err
    assert not refused.exists()

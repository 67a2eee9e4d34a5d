"""C export: the generated C99 builds with warnings as errors and reproduces the engine.

Each sample's runtime network is written with its initial parameters and randomized
BatchNormalization statistics (as the ONNX test does), built with ``cc -std=c99 -O2 -Wall
-Wextra -Werror``, and run on the first 16 validation images written as raw float32 files; its
printed outputs are compared with the engine's forward pass (within 1e-5, same class). The
quantized LeNet networks that ``neurocanvas quantize insert`` writes (FixedPointQuantize and
Pow2Quantize) are checked the same way. Skipped without a C compiler (CI installs one).
"""

from __future__ import annotations

import json
import math
import shutil
import subprocess
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

import engine.nn as nn
from engine.cli import main
from engine.export import ExportError, open_source
from engine.export.c_source import FILES, c_files, export_c
from engine.export.c_source.kernels import WRITERS
from engine.export.c_source.plan import plan_arena
from engine.formats import load_project
from engine.layers import find_spec
from engine.runtime.compiler import compile_network
from tests.engine.export.test_onnx_model import _parameters, _validation

ROOT = Path(__file__).resolve().parents[3]
CC = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
needs_cc = pytest.mark.skipif(CC is None, reason="no C compiler (cc, gcc or clang) on PATH")
FLAGS = ["-std=c99", "-O2", "-Wall", "-Wextra", "-Werror"]
SAMPLES = ["lenet_digits", "residual_digits", "mobilenet_digits", "squeezenet_digits",
           "bn_dropout_digits"]  # fmt: skip


def build(folder: Path) -> Path:
    done = subprocess.run([CC, *FLAGS, "-o", "model", "main.c", "model.c", "parameters.c", "-lm"],
                          cwd=folder, capture_output=True, text=True, timeout=300)  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    return folder / "model"


def run_program(program_file: Path, inputs: np.ndarray, folder: Path) -> np.ndarray:
    """The program's printed outputs for each row of ``inputs`` (raw float32 files)."""
    names = []
    for i, row in enumerate(inputs):
        path = folder / f"sample{i}.bin"
        row.astype("<f4").tofile(path)
        names.append(str(path))
    done = subprocess.run([str(program_file), *names], capture_output=True, text=True,
                          timeout=300)  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    return np.array([[float(v) for v in line.split()] for line in done.stdout.splitlines()])


def _engine_and_c(project, network: str, tmp: Path, cache: Path, logits: bool = False,
                  rows: int = 16):  # fmt: skip
    program = compile_network(project, network)
    if logits:  # up to the layer before the final Softmax
        last = program.steps[-2].name
        program = replace(program, steps=program.steps[:-1], outputs=(("logits", ("step", last)),))
    params = _parameters(program)
    values = {k: np.asarray(v.data) for k, v in params.items()}
    folder = tmp / "c"
    folder.mkdir()
    files = c_files(program, values, True)
    for name, text in files.items():
        (folder / name).write_text(text)
    batch = {k: v.astype(np.float32) for k, v in _validation(project, cache, rows).items()}
    feeds = {v: batch[v].reshape(len(batch[v]), *s) for v, s in program.feeds.items()}
    with nn.no_grad():
        acts = program.forward(feeds, params)
    expected = np.asarray(program.output(acts, program.outputs[0][0]).data)
    got = run_program(build(folder), next(iter(feeds.values())), folder)
    return expected.reshape(len(expected), -1), got, files


@needs_cc
@pytest.mark.parametrize("sample", SAMPLES)
def test_samples_match_the_engine(sample, tmp_path, tmp_path_factory, monkeypatch):
    cache = tmp_path_factory.getbasetemp() / "c-cache"
    monkeypatch.setenv("NEUROCANVAS_CACHE", str(cache))
    project = load_project(ROOT / "projects" / f"{sample}.ncproj")
    expected, got, _ = _engine_and_c(project, project.executors[0].network, tmp_path, cache)
    assert got.shape == expected.shape == (16, 10)
    assert np.abs(got - expected).max() <= 1e-5
    assert got.argmax(axis=1).tolist() == expected.argmax(axis=1).tolist()


@needs_cc
@pytest.mark.parametrize("quantizer", ["fixed-point", "pow2"])
def test_quantized_lenet_matches_the_engine(quantizer, tmp_path, tmp_path_factory, monkeypatch):
    """``quantize insert``'s 6-bit network: fixed point in integer arithmetic; Pow2Quantize
    (no integer form here) in float, its weight quantizers computed at export by the
    engine's function and its activation quantizers written as C."""
    cache = tmp_path_factory.getbasetemp() / "c-cache"
    monkeypatch.setenv("NEUROCANVAS_CACHE", str(cache))
    out = tmp_path / "q.ncproj"
    lenet = str(ROOT / "projects" / "lenet_digits.ncproj")
    assert main(["quantize", "insert", lenet, "-o", str(out), "--bits", "6", "--delta",
                 "0.0625", "--quantizer", quantizer]) == 0  # fmt: skip
    project = load_project(out)
    expected, got, files = _engine_and_c(project, "Main_q6Runtime", tmp_path, cache)
    kind = "FixedPointQuantize" if quantizer == "fixed-point" else "Pow2Quantize"
    assert f"({kind})" in files["model.c"]  # the activation quantizers run in C
    summary = json.loads(files["export_summary.json"])
    if quantizer == "pow2":  # no integer form: float, weights quantized by the engine at export
        assert summary["arithmetic"] == "float"
        assert summary["float_because"] == "no FixedPointQuantize on activations"
        assert "Convolution_W_Quantize (computed at export)" in files["parameters.c"]
    else:
        assert summary["arithmetic"] == "integer" and summary["float_because"] == ""
    assert np.abs(got - expected).max() <= 1e-5
    assert got.argmax(axis=1).tolist() == expected.argmax(axis=1).tolist()


def test_lenet_arena_is_planned_from_lifetimes():
    """LeNet (hand-computed): ReLU and Tanh run in place, the first convolution's output
    (16x22x22 floats) and the first pooling's (16x11x11) are alive together, nothing later
    is larger: 38,720 bytes instead of the 51,040 of one buffer per layer."""
    project = load_project(ROOT / "projects" / "lenet_digits.ncproj")
    program = compile_network(project, "MainRuntime")
    plan = plan_arena(program)
    assert plan.bytes == 4 * (16 * 22 * 22 + 16 * 11 * 11) == 38720
    assert plan.of_step["ReLU"] is plan.of_step["Convolution"]
    assert plan.of_step["Tanh_2"] is plan.of_step["MaxPooling_2"]
    own = [s for s in program.steps if plan.of_step[s.name].steps[0] == s.name]
    assert 4 * sum(math.prod(s.shape) for s in own) == 51040


@pytest.mark.parametrize("sample", SAMPLES)
def test_buffers_alive_together_never_overlap(sample):
    project = load_project(ROOT / "projects" / f"{sample}.ncproj")
    plan = plan_arena(compile_network(project, project.executors[0].network))
    for a in plan.buffers:
        for b in plan.buffers:
            if a is not b and a.first <= b.last and b.first <= a.last:
                assert a.offset + a.size <= b.offset or b.offset + b.size <= a.offset
    assert plan.size == max(b.offset + b.size for b in plan.buffers)


def test_writers_are_catalogue_layers():
    for layer_type in WRITERS:
        spec = find_spec(layer_type)
        assert spec is not None and spec.function, layer_type


def test_unsupported_layers_are_named_before_anything_is_written(tmp_path):
    source = open_source(ROOT / "projects" / "lstm_4or9.ncproj")
    out = tmp_path / "lstm"
    with pytest.raises(ExportError) as info:
        export_c(source, out)
    message = str(info.value)
    assert 'layer "RecurrentInput" (RecurrentInput)' in message and "(Delay)" in message
    assert "[t=" not in message and "\n" not in message
    assert not out.exists() and list(tmp_path.iterdir()) == []


def test_existing_folder_needs_force(tmp_path):
    source = open_source(ROOT / "projects" / "lenet_digits.ncproj")
    out = tmp_path / "lenet"
    out.mkdir()
    (out / "notes.txt").write_text("mine")
    with pytest.raises(ExportError, match="exists; choose a new folder"):
        export_c(source, out)
    assert sorted(p.name for p in out.iterdir()) == ["notes.txt"]
    written = export_c(source, out, force=True)
    assert sorted(p.name for p in written) == sorted(FILES)
    assert (out / "notes.txt").read_text() == "mine"  # other files stay
    assert [p.name for p in tmp_path.iterdir()] == ["lenet"]  # no temporary folder left


def _q8(tmp_path: Path, delta: str = "0.0625", edits: dict | None = None):
    out = tmp_path / "q8.ncproj"
    lenet = str(ROOT / "projects" / "lenet_digits.ncproj")
    assert main(["quantize", "insert", lenet, "-o", str(out), "--bits", "8", "--delta",
                 delta]) == 0  # fmt: skip
    project = load_project(out)
    for layer, value in (edits or {}).items():
        project.network("Main_q8").set_property(layer, "Delta", value)
    return project


@needs_cc
@pytest.mark.parametrize("edits", [{}, {"MaxPooling_Quantize": "0.25", "ReLU_2_Quantize":
                                        "0.03125", "Tanh_2_Quantize": "0.015625"}],
                         ids=["one-delta", "shifts"])  # fmt: skip
def test_integer_lenet_equals_the_engine_exactly(edits, tmp_path, tmp_path_factory,
                                                 monkeypatch):  # fmt: skip
    """8-bit LeNet in integer arithmetic: int8 codes and weights, int32 sums. Up to the final
    Softmax (float) every output equals the engine's quantized simulation bit for bit (the
    program prints float32 with 9 digits, which reads back exactly), also when quantizers
    of codes requantize by a right shift (Delta x4: rounding half away from zero) or a left
    shift (Delta / 2), and through Tanh's table of the engine's values."""
    cache = tmp_path_factory.getbasetemp() / "c-cache"
    monkeypatch.setenv("NEUROCANVAS_CACHE", str(cache))
    project = _q8(tmp_path, edits=edits)
    expected, got, files = _engine_and_c(project, "Main_q8Runtime", tmp_path, cache,
                                         logits=True, rows=64)  # fmt: skip
    summary = json.loads(files["export_summary.json"])
    assert summary["arithmetic"] == "integer", summary["float_because"]
    assert np.array_equal(got, expected)
    assert "int32_t acc = 0;" in files["model.c"] and ">> 2" in files["model.c"] if edits else True
    assert "const int8_t nc_p" in files["parameters.c"]
    # weights as int8 codes, biases as int32: about a quarter of the float export's flash
    floats = c_files(compile_network(project, "MainRuntime"),
                     {k: np.asarray(v.data) for k, v in _parameters(
                         compile_network(project, "MainRuntime")).items()}, True)  # fmt: skip
    assert summary["flash_bytes"] < json.loads(floats["export_summary.json"])["flash_bytes"] / 3


def test_a_delta_that_is_not_a_power_of_two_keeps_float(tmp_path):
    project = _q8(tmp_path, delta="0.05")
    program = compile_network(project, "Main_q8Runtime")
    values = {k: np.asarray(v.data) for k, v in _parameters(program).items()}
    summary = json.loads(c_files(program, values, True)["export_summary.json"])
    assert summary["arithmetic"] == "float"
    assert (
        summary["float_because"] == 'layer "Convolution_Quantize": Delta 0.05 is not a power of two'
    )

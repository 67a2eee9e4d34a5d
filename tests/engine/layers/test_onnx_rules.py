"""One mapping, both directions: every layer with an ONNX rule in the catalogue round-trips.

Each layer is exported in a tiny network (inputs -> the layer -> a loss, so the derived
runtime network is the test-mode one), the ONNX file is imported back, and the imported
project, the original and onnxruntime give the same outputs within 1e-4; the imported project
exports again. Recurrent layers need a loop: they run in the elman_bit_majority sample. The
exporter and the importer keep no table of their own.
"""

from __future__ import annotations

import ast
from pathlib import Path

import numpy as np
import pytest
import runtime_kit as kit
from model_kit import ROOT, outputs, randomized, save

from engine.export import ExportError, Source, export_onnx
from engine.formats import load_project
from engine.graph.project import Link
from engine.layers import all_specs
from engine.layers.onnx_rules import declared_read
from engine.layers.registry import _check_onnx_readers
from engine.layers.spec import Inputs, OnnxRule
from engine.model_import import read_model
from engine.runtime.compiler import compile_network

ort = pytest.importorskip("onnxruntime", reason="onnxruntime not installed")
onnx = pytest.importorskip("onnx", reason="onnx not installed")

RULED = [spec for spec in all_specs() if spec.onnx]
RECURRENT = {"RecurrentInput", "RecurrentOutput", "Delay"}
TWO_INPUTS = {"Add2", "Sub2", "Mul2", "Div2", "Pow2", "Maximum2", "Minimum2", "Concatenate",
              "Stack", "AddN"}  # fmt: skip
POSITIVE = {"Log", "Pow2", "PowScalar", "Div2", "RDivScalar"}  # inputs where the layer is real
DOMAIN = {"ASin": (-0.9, 0.9), "ACos": (-0.9, 0.9), "ATanh": (-0.9, 0.9), "ACosh": (1.1, 3.0)}
MIN_OPSET = {"LayerNormalization": 17}  # the operator's first opset (the exporter says so)
# Properties that make the layer do something on a (3, 4, 4) input (defaults where absent).
PROPERTIES: dict[str, dict[str, object]] = {
    "Affine": {"OutShape": (2, 3)},
    "BinaryConnectAffine": {"OutShape": 5},
    "Convolution": {
        "OutMaps": 4,
        "KernelShape": (3, 3),
        "Padding": (1, 0),
        "Strides": (1, 2),
        "BorderMode": "valid",
    },  # fmt: skip
    "BinaryConnectConvolution": {"OutMaps": 2, "KernelShape": (3, 3)},
    "DepthwiseConvolution": {"KernelShape": (3, 3), "Multiplier": 2},
    "Deconvolution": {"OutMaps": 2, "KernelShape": (3, 3), "Strides": (2, 2), "Padding": (1, 1)},
    "MaxPooling": {"KernelShape": (3, 3), "Strides": (2, 2), "IgnoreBorder": False},
    "AveragePooling": {"KernelShape": (2, 2), "Padding": (1, 1)},
    "LeakyReLU": {"Alpha": 0.3},
    "ELU": {"Alpha": 0.7},
    "Softmax": {"Axis": 1},
    "Mean": {"Axes": (1, 2), "KeepDims": True},
    "AddScalar": {"Value": 0.5},
    "MulScalar": {"Value": -1.5},
    "RSubScalar": {"Value": 2.0},
    "RDivScalar": {"Value": 3.0},
    "PowScalar": {"Value": 1.5},
    "BatchNormalization": {"BatchStat": False},
    "Dropout": {"P": 0.3, "SkipAtTest": False},  # kept in the runtime network, so exported
    "Concatenate": {"Axis": 1},
    "Stack": {"Axis": 2},
    "Reshape": {"OutShape": (6, 8)},
    "Flip": {"Axes": (0, 2)},
    "Transpose": {"Axes": (2, 0, 1)},
    "Slice": {"Start": (0, 1, 1), "Stop": (2, 4, 3), "Step": (1, 2, 1)},
    "Pad": {"PadWidth": (1, 2, 0, 1), "Mode": "reflect"},
}


def _tiny_project(spec):
    """x (and x2) -> the layer -> SquaredError against y (its runtime network drops the loss)."""
    layers = [kit.layer("x", "Input", Size=(3, 4, 4), Dataset="x")]
    links = [Link("x", spec.type)]
    if spec.type in TWO_INPUTS:
        layers.append(kit.layer("x2", "Input", Size=(3, 4, 4), Dataset="x2"))
        pin = 0 if spec.inputs is Inputs.MULTIPLE else 1
        links.append(Link("x2", spec.type, dest_pin=pin))
    layers.append(kit.layer(spec.type, spec.type, **PROPERTIES.get(spec.type, {})))
    layers.append(kit.layer("Loss", "SquaredError", T__Dataset="y"))
    links.append(Link(spec.type, "Loss"))
    return kit.make_project([kit.network("Main", layers, links)])


def _inference(spec, project, network, values, feeds):
    """What an inference model computes: the engine's test mode (a Dropout passes its input,
    as it does where SkipAtTest drops it)."""
    if spec.type == "Dropout":
        project.network("Main").set_property("Dropout", "SkipAtTest", "True")
    try:
        return outputs(project, network, values, feeds, test_mode=True)
    finally:
        if spec.type == "Dropout":
            project.network("Main").set_property("Dropout", "SkipAtTest", "False")


def _case(spec):
    if spec.type in RECURRENT:
        return load_project(ROOT / "projects" / "elman_bit_majority.ncproj")
    return _tiny_project(spec)


# The oldest opset we write, the default, ReduceMean's axes as an input (18), the newest.
@pytest.mark.parametrize("opset", [13, 17, 18, onnx.defs.onnx_opset_version()])
@pytest.mark.parametrize("spec", RULED, ids=lambda s: s.type)
def test_every_layer_with_an_onnx_rule_round_trips(spec, opset, tmp_path):
    if opset < MIN_OPSET.get(spec.type, 0):
        pytest.skip(f"ONNX has no {spec.onnx.op} before opset {MIN_OPSET[spec.type]}")
    project = _case(spec)
    network = project.executors[0].network
    program = compile_network(project, network)
    assert spec.type in {s.type for s in program.steps}, "the layer must be in the runtime"
    values = randomized(program)
    rng = np.random.default_rng(0)
    low, high = DOMAIN.get(spec.type, (0.5 if spec.type in POSITIVE else -1.0, 2.0))
    feeds = {
        v: rng.uniform(low, high, (3, *s)).astype(np.float32) for v, s in program.feeds.items()
    }
    expected = _inference(spec, project, network, values, feeds)
    model = export_onnx(Source(project, "m", network, save(values, tmp_path / "p.npz"), False),
                        tmp_path / "m.onnx", opset)  # fmt: skip
    ops = [node.op_type for node in onnx.load(str(model)).graph.node]
    assert spec.onnx.op in ops
    runtime = ort.InferenceSession(str(model)).run(None, feeds)
    imported = read_model(model)
    main = imported.project.executors[0].network
    got = outputs(imported.project, main, imported.parameters, feeds, test_mode=True)
    for a, b, c in zip(got, expected, runtime, strict=True):
        np.testing.assert_allclose(b, c.reshape(b.shape), atol=1e-4, rtol=1e-4)
        np.testing.assert_allclose(a.reshape(b.shape), b, atol=1e-4, rtol=1e-4)
    types = {layer.type for layer in imported.project.network("Main").layers}
    if spec.type == "Dropout":  # an inference model's Dropout passes its input: no layer
        assert spec.type not in types
    elif spec.onnx.op in spec.onnx.operators_read and spec.type not in RECURRENT:  # its rule
        # (a loop comes back unrolled: its time steps as Slice + Reshape)
        assert spec.type in types
    again = export_onnx(Source(imported.project, "m", main, save(imported.parameters,
                        tmp_path / "q.npz"), False), tmp_path / "again.onnx", opset)  # fmt: skip
    for a, b in zip(ort.InferenceSession(str(again)).run(None, feeds), runtime, strict=True):
        np.testing.assert_allclose(a, b.reshape(a.shape), atol=1e-4, rtol=1e-4)


def test_exporter_and_importer_tables_are_the_catalogue():
    from engine.export.onnx_model import CONVERTERS
    from engine.formats.onnx_import import ONNX_OPERATORS

    assert set(CONVERTERS) == {spec.type for spec in RULED}
    for spec in RULED:
        if spec.onnx.write is not None:
            assert CONVERTERS[spec.type] is spec.onnx.write, spec.type
    read = {op: spec for spec in RULED for op in spec.onnx.operators_read}
    assert set(ONNX_OPERATORS) == set(read)
    for op, spec in read.items():
        if spec.onnx.read is not None:
            assert ONNX_OPERATORS[op] is spec.onnx.read, op


def _string_constants(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {n.value for n in ast.walk(tree) if isinstance(n, ast.Constant)
            and isinstance(n.value, str)}  # fmt: skip


def test_no_onnx_table_outside_the_catalogue():
    """The exporter and the importer name no layer type and no ONNX operator of a rule: only
    the generic machinery (output Identity nodes, folding Constant/Shape, batch constants)."""
    names = {spec.type for spec in all_specs()}
    names |= {s.name for s in onnx.defs.get_all_schemas()}
    generic = {
        "Identity",
        "Constant",
        "Shape",
        "Slice",
        "Concat",
        "ConstantOfShape",
        "Softmax",
        "Sigmoid",
        "Tanh",
    }  # the final activation named in the metadata
    for module in ("engine/export/onnx_model.py", "engine/formats/onnx_import.py"):
        named = (_string_constants(ROOT / module) & names) - generic
        assert named == set(), f"{module} names {sorted(named)}: put the rule in the catalogue"


def test_an_operator_read_by_two_entries_fails_at_import():
    a, b = (next(s for s in all_specs() if s.type == t) for t in ("Add2", "AddScalar"))
    from dataclasses import replace

    clash = replace(b, onnx=OnnxRule("Add", read=declared_read("AddScalar", "Add")))
    with pytest.raises(ValueError, match="ONNX operator Add is read by both Add2 and AddScalar"):
        _check_onnx_readers([a, clash])
    _check_onnx_readers([a, b])  # AddScalar is read back through Add2's rule: no clash


def test_a_constant_generator_input_exports_and_a_random_one_is_refused(tmp_path):
    """Input(Generator=Constant) is ConstantOfShape with the batch of the first network input;
    Normal has no ONNX operator and is listed with the other refusals before anything is
    written."""
    layers = [kit.layer("x", "Input", Size=(3,), Dataset="x"),
              kit.layer("c", "Input", Size=(3,), Dataset="c", Generator="Constant",
                        GeneratorMultiplier=2.5),
              kit.layer("Add2", "Add2"), kit.layer("Tanh", "Tanh"),
              kit.layer("Loss", "SquaredError", T__Dataset="y")]  # fmt: skip
    links = [Link("x", "Add2"), Link("c", "Add2"), *kit.chain("Add2", "Tanh", "Loss")]
    project = kit.make_project([kit.network("Main", layers, links)])
    model = export_onnx(Source(project, "m", "MainRuntime", None, False), tmp_path / "c.onnx")
    x = np.random.default_rng(0).normal(size=(4, 3)).astype(np.float32)
    np.testing.assert_allclose(ort.InferenceSession(str(model)).run(None, {"x": x})[0],
                               np.tanh(x + 2.5), atol=1e-6)  # fmt: skip
    main = project.network("Main")
    main.set_property("c", "Generator", "Normal")
    with pytest.raises(ExportError) as info:
        export_onnx(Source(project, "m", "MainRuntime", None, False), tmp_path / "n.onnx")
    assert "Normal generator inputs" in str(info.value)
    assert not (tmp_path / "n.onnx").exists()

"""ONNX import: models built with onnx.helper alone, and our own exports, come back as projects.

The independent models (an MLP with Gemm, a small ResNet block, a MobileNet depthwise block)
must give onnxruntime's outputs within 1e-4 when the imported project runs on the engine.
"""

from __future__ import annotations

import numpy as np
import onnx_builders
import pytest
from model_kit import PROJECTS, RECURRENT, ROOT, outputs, randomized, sample_inputs, save

from engine.cli import main
from engine.export import Source, export_onnx
from engine.formats import load_project
from engine.model_import import ImportError_, parameters_path, read_model
from engine.runtime.compiler import compile_network

ort = pytest.importorskip("onnxruntime", reason="onnxruntime not installed")
onnx = pytest.importorskip("onnx", reason="onnx not installed")


def _imported_outputs(path, x: np.ndarray) -> np.ndarray:
    imported = read_model(path)
    project = imported.project
    program = compile_network(project, project.executors[0].network)
    name = next(iter(program.feeds))
    return outputs(project, project.executors[0].network, imported.parameters, {name: x})[0]


@pytest.mark.parametrize("opset", [9, 13, 17, onnx.defs.onnx_opset_version()])
@pytest.mark.parametrize("build", ["mlp", "resnet_block", "mobilenet_block"])
def test_independent_models_match_onnxruntime(build, opset, tmp_path):
    if opset < 11 and build == "mobilenet_block":
        opset = 11  # Clip takes min/max inputs from opset 11
    model = getattr(onnx_builders, build)(opset=opset)
    path = tmp_path / f"{build}.onnx"
    onnx.save(model, path)
    shape = [d.dim_value for d in model.graph.input[0].type.tensor_type.shape.dim[1:]]
    x = np.random.default_rng(3).normal(size=(4, *shape)).astype(np.float32)
    expected = ort.InferenceSession(str(path)).run(None, {"x": x})[0]
    got = _imported_outputs(path, x)
    assert got.shape == expected.shape
    np.testing.assert_allclose(got, expected, atol=1e-4, rtol=1e-4)


def test_layers_are_laid_out_top_to_bottom_with_the_catalogue_properties(tmp_path):
    path = tmp_path / "resnet.onnx"
    onnx.save(onnx_builders.resnet_block(), path)
    net = read_model(path).project.network("Main")
    types = {layer.name: layer.type for layer in net.layers}
    assert types["bn1"] == "BatchNormalization" and types["skip"] == "Add2"
    assert types["pool"] == "MaxPooling" and types["fc"] == "Affine"
    assert "fc_bias" not in types  # MatMul + Add(constant) became one Affine with its bias
    c2 = net.layer("c2").properties  # SAME_UPPER padding became explicit Padding
    assert (c2["Padding"], c2["KernelShape"], c2["OutMaps"]) == ("1,1", "3,3", "4")
    y = {layer.name: layer.position[1] for layer in net.layers}
    for link in net.links:
        assert y[link.source] < y[link.destination], link
    assert y["skip"] > y["bn2"] > y["r1"]
    x = {layer.name: layer.position[0] for layer in net.layers}
    # the residual branch moves aside so the skip link does not run behind it
    assert x["skip"] == x["stem_relu"] != x["c1"] == x["bn2"]


# NNC's seven recurrent tutorials (Elman, bidirectional, attention, GRU, LSTM, stacked GRU, an
# LSTM auto-encoder)
NNC_RECURRENT = sorted((ROOT / "tests" / "fixtures" / "nnc-samples" / "tutorial"
                        / "recurrent_neural_networks").glob("*.sdcproj"))  # fmt: skip


@pytest.mark.parametrize("path", PROJECTS + NNC_RECURRENT, ids=lambda p: p.stem)
def test_project_onnx_import_round_trip(path, tmp_path):
    """Every sample: recurrent ones are exported unrolled (a Gather per time step) and come
    back as the unrolled network (Slice + Reshape per step, the initial state a constant)."""
    project = load_project(path)
    network = project.executors[0].network
    program = compile_network(project, network)
    values = randomized(program)
    source = Source(project, path.stem, network, save(values, tmp_path / "p.npz"), True)
    model = export_onnx(source, tmp_path / "model.onnx")
    x = sample_inputs(program)
    expected = outputs(project, network, values, x)
    runtime = ort.InferenceSession(str(model)).run(None, x)
    imported = read_model(model)
    got = outputs(imported.project, imported.project.executors[0].network,
                  imported.parameters, x)  # fmt: skip
    for a, b, c in zip(got, expected, runtime, strict=True):
        np.testing.assert_allclose(a, b, atol=1e-4, rtol=1e-4)
        np.testing.assert_allclose(a, c.reshape(a.shape), atol=1e-4, rtol=1e-4)
    if path.stem in RECURRENT or path in NNC_RECURRENT:
        ops = {node.op_type for node in onnx.load(str(model)).graph.node}
        assert {"Gather", "ConstantOfShape"} <= ops  # the unrolled form, read back
        inputs = [x for x in imported.project.network("Main").layers if x.type == "Input"]
        assert any(x.properties["Generator"] == "Constant" for x in inputs)
        # the time steps share their weights again (ParameterScope), as in the original
        assert sorted(v.size for v in imported.parameters.values()) == sorted(
            v.size for v in values.values())  # fmt: skip


def _unsupported_model():
    from onnx import TensorProto, helper

    nodes = [helper.make_node("Relu", ["x"], ["a"], name="ok"),
             helper.make_node("Round", ["a"], ["b"], name="round1"),
             helper.make_node("Hardmax", ["b"], ["y"], name="hm")]  # fmt: skip
    graph = helper.make_graph(
        nodes,
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 4])],
        [helper.make_tensor_value_info("y", 1, ["N", 4])],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def test_every_unsupported_operator_is_named_and_nothing_is_written(tmp_path, capsys):
    path = tmp_path / "bad.onnx"
    onnx.save(_unsupported_model(), path)
    out = tmp_path / "bad.ncproj"
    assert main(["import", str(path), "-o", str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    assert 'Round (node "round1")' in err and 'Hardmax (node "hm")' in err
    assert not out.exists() and not parameters_path(out).exists()


def test_dynamic_axes_besides_the_batch_are_refused(tmp_path):
    from onnx import TensorProto, helper

    graph = helper.make_graph([helper.make_node("Relu", ["x"], ["y"])], "g",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", "C"])],
                              [helper.make_tensor_value_info("y", 1, ["N", "C"])])  # fmt: skip
    path = tmp_path / "dyn.onnx"
    onnx.save(helper.make_model(graph), path)
    with pytest.raises(ImportError_, match='input "x" has dynamic axes C'):
        read_model(path)


def test_a_damaged_file_is_one_clear_error(tmp_path, capsys):
    path = tmp_path / "model.onnx"
    onnx.save(onnx_builders.mlp(), path)
    path.write_bytes(path.read_bytes()[:57])
    assert main(["import", str(path), "-o", str(tmp_path / "p.ncproj")]) == 2
    err = capsys.readouterr().err
    assert f"{path}: not an ONNX model" in err and "Traceback" not in err
    assert not (tmp_path / "p.ncproj").exists()


def test_cli_writes_a_project_that_forward_runs_with_the_parameters(tmp_path, capsys):
    path = tmp_path / "mlp.onnx"
    onnx.save(onnx_builders.mlp(), path)
    out = tmp_path / "mlp.ncproj"
    assert main(["import", str(path), "-o", str(out)]) == 0
    x = np.random.default_rng(0).normal(size=(8,)).astype(np.float32)
    np.save(tmp_path / "x.npy", x)
    capsys.readouterr()
    assert main(["forward", str(out), "--params", str(parameters_path(out)), "-i",
                 str(tmp_path / "x.npy"), "--json"]) == 0  # fmt: skip
    import json

    got = json.loads(capsys.readouterr().out)[0]["outputs"]["softmax"]["values"]
    expected = ort.InferenceSession(str(path)).run(None, {"x": x[None]})[0][0]
    np.testing.assert_allclose(got, expected, atol=1e-5)
    assert main(["import", str(path), "-o", str(out)]) == 2  # never overwritten silently


def test_slice_and_ceil_like_pooling_match_onnxruntime(tmp_path):
    """Slice with negative/large constants and steps; MaxPool whose right pad completes the
    last window (how IgnoreBorder=False pooling is written)."""
    from onnx import TensorProto, helper, numpy_helper

    consts = {"starts": [1, -5], "ends": [7, 1000], "axes": [2, 3], "steps": [1, 2]}
    nodes = [
        helper.make_node("Slice", ["x", *consts], ["s"], name="crop"),
        helper.make_node("MaxPool", ["s"], ["y"], kernel_shape=[2, 2], strides=[2, 2],
                         pads=[0, 0, 0, 1], name="pool"),
    ]  # fmt: skip
    inits = [numpy_helper.from_array(np.array(v, np.int64), k) for k, v in consts.items()]
    graph = helper.make_graph(
        nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 2, 8, 9])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 2, 3, 2])], inits,
    )  # fmt: skip
    path = tmp_path / "slice.onnx"
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), path)
    x = np.random.default_rng(0).normal(size=(2, 2, 8, 9)).astype(np.float32)
    expected = ort.InferenceSession(str(path)).run(None, {"x": x})[0]
    np.testing.assert_allclose(_imported_outputs(path, x), expected, atol=1e-6)
    types = [layer.type for layer in read_model(path).project.network("Main").layers]
    assert types == ["Input", "Slice", "MaxPooling"]


DECLARED = [spec for spec in __import__("engine.layers", fromlist=["all_specs"]).all_specs()
            if spec.onnx and spec.onnx.write is None]  # one operator, one to one  # fmt: skip


_DOMAIN = {"ASin": (-0.9, 0.9), "ACos": (-0.9, 0.9), "ATanh": (-0.9, 0.9), "ACosh": (1.1, 3.0)}


@pytest.mark.parametrize("spec", DECLARED, ids=lambda s: s.type)
def test_a_layer_declared_with_an_onnx_operator_imports_and_exports(spec, tmp_path):
    """One declaration, both directions: the operator imports as the layer, which exports back
    to the same operator, and the engine matches onnxruntime."""
    from onnx import TensorProto, helper

    two = spec.inputs.value == "Multiple" or any(c.kind.value == "Data" for c in spec.connectors)
    names = ["a", "b"] if two else ["a"]
    graph = helper.make_graph(
        [helper.make_node(spec.onnx.op, names, ["y"], name="op")], "g",
        [helper.make_tensor_value_info(n, TensorProto.FLOAT, ["N", 3, 4, 4]) for n in names],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
    )  # fmt: skip
    path = tmp_path / "op.onnx"
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), path)
    rng = np.random.default_rng(0)
    low, high = _DOMAIN.get(spec.type, (0.5, 2.0))  # where the function is real
    feeds = {n: rng.uniform(low, high, (2, 3, 4, 4)).astype(np.float32) for n in names}
    imported = read_model(path)
    layers = {layer.name: layer.type for layer in imported.project.network("Main").layers}
    assert layers["op"] == spec.type
    got = outputs(imported.project, "Main", imported.parameters, feeds)[0]
    expected = ort.InferenceSession(str(path)).run(None, feeds)[0]
    np.testing.assert_allclose(got.reshape(expected.shape), expected, atol=1e-5, rtol=1e-5)
    params = save(imported.parameters, tmp_path / "p.npz")
    back = export_onnx(Source(imported.project, "op", "Main", params, False), tmp_path / "b.onnx")
    assert spec.onnx.op in [node.op_type for node in onnx.load(str(back)).graph.node]


def test_selu_imports_with_its_attributes_and_exports_back(tmp_path):
    """ONNX's gamma is NNC's Scale: a Selu that is not the default survives both directions."""
    from onnx import TensorProto, helper

    graph = helper.make_graph(
        [helper.make_node("Selu", ["x"], ["y"], name="act", alpha=1.5, gamma=2.0)], "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 5])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
    )  # fmt: skip
    path = tmp_path / "selu.onnx"
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), path)
    x = np.linspace(-3, 3, 10, dtype=np.float32).reshape(2, 5)
    expected = ort.InferenceSession(str(path)).run(None, {"x": x})[0]
    np.testing.assert_allclose(_imported_outputs(path, x), expected, atol=1e-6)
    imported = read_model(path)
    layer = next(lr for lr in imported.project.network("Main").layers if lr.name == "act")
    assert layer.type == "SELU"
    assert float(layer.properties["Scale"]) == 2.0 and float(layer.properties["Alpha"]) == 1.5
    params = save(imported.parameters, tmp_path / "p.npz")
    back = export_onnx(Source(imported.project, "s", "Main", params, False), tmp_path / "b.onnx")
    (node,) = [n for n in onnx.load(str(back)).graph.node if n.op_type == "Selu"]
    assert {a.name: a.f for a in node.attribute} == {"alpha": 1.5, "gamma": 2.0}


def _gather_model(index, axis: int, data_index: bool = False):
    """x (N, 4, 3) -> Gather(index over axis) -> Tanh; the index an initializer or an input."""
    from onnx import TensorProto, helper, numpy_helper

    inputs = [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 4, 3])]
    inits = []
    if data_index:
        inputs.append(helper.make_tensor_value_info("i", TensorProto.INT64, ["N"]))
    else:
        inits.append(numpy_helper.from_array(np.array(index, np.int64), "i"))
    nodes = [helper.make_node("Gather", ["x", "i"], ["g"], axis=axis, name="pick"),
             helper.make_node("Tanh", ["g"], ["y"], name="act")]  # fmt: skip
    graph = helper.make_graph(nodes, "g", inputs, [helper.make_tensor_value_info("y", 1, None)],
                              inits)  # fmt: skip
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])


@pytest.mark.parametrize(("index", "axis"), [(2, 1), (-1, 2), ([1], 1), (0, -1)])
def test_gather_of_one_constant_index_matches_onnxruntime(index, axis, tmp_path):
    """A scalar index removes the axis (Slice + Reshape), a one-element list keeps it."""
    path = tmp_path / "gather.onnx"
    onnx.save(_gather_model(index, axis), path)
    x = np.random.default_rng(0).normal(size=(2, 4, 3)).astype(np.float32)
    expected = ort.InferenceSession(str(path)).run(None, {"x": x})[0]
    got = _imported_outputs(path, x)
    assert got.shape == expected.shape
    np.testing.assert_allclose(got, expected, atol=1e-6)
    types = [layer.type for layer in read_model(path).project.network("Main").layers]
    assert types == ["Input", "Slice", "Tanh"] if isinstance(index, list) else \
        ["Input", "Slice", "Reshape", "Tanh"]  # fmt: skip


def test_a_computed_index_or_constant_data_is_one_clear_error(tmp_path, capsys):
    path = tmp_path / "dynamic.onnx"
    onnx.save(_gather_model(0, 1, data_index=True), path)
    out = tmp_path / "p.ncproj"
    assert main(["import", str(path), "-o", str(out)]) == 2
    err = capsys.readouterr().err.strip()
    # (an integer index fed as data: NNC networks compute in floating point)
    assert err.endswith('input "i" is of type int64; NNC networks compute in floating point')
    assert "\n" not in err
    from onnx import TensorProto, helper, numpy_helper

    table = numpy_helper.from_array(np.arange(6, dtype=np.float32).reshape(1, 6), "table")
    graph = helper.make_graph(
        [helper.make_node("Concat", ["x", "table"], ["y"], axis=1, name="join")], "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 2])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], [table],
    )  # fmt: skip
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), path)
    assert main(["import", str(path), "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert 'node "join": the constant "table" is used as data' in err
    assert not out.exists() and not parameters_path(out).exists()

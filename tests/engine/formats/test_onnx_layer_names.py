"""Imported ONNX layers have readable names (issue 28): the ONNX node's name made a layer name
(no exporter counter ``:5``, no module path), else the operator and its count (``Conv_2``);
a composite's layers share the node's name with their part (``LRN_1_Square``) and lie in
consecutive rows, top to bottom."""

from __future__ import annotations

import numpy as np
import pytest
from model_kit import PROJECTS, randomized, save

from engine.export import Source, export_onnx
from engine.formats import load_project
from engine.formats.onnx_import import readable_name
from engine.model_import import read_model
from engine.runtime.compiler import compile_network

onnx = pytest.importorskip("onnx", reason="onnx not installed")


@pytest.mark.parametrize(("name", "op", "expected"), [
    ("fc", "Gemm", "fc"),
    ("stem conv!", "Conv", "stem_conv"),
    ("/layer1/layer1.0/conv1/Conv", "Conv", "layer1_0_conv1"),  # PyTorch's scope path
    ("/features/features.0/Conv", "Conv", "features_0"),
    ("/Relu", "Relu", "Relu"),
    ("Convolution_2:5", "Conv", "Convolution_2"),  # ours: the layer, the node's counter
    ("Affine/matmul:6", "MatMul", "Affine"),  # a layer written as several nodes
    ("Fire1/SqueezeConv:4", "Conv", "Fire1_SqueezeConv"),  # a layer of a Unit
    ("Fire1/ReLU:5", "Relu", "Fire1_ReLU"),
    ("7", "Relu", "Relu_7"),
    ("", "Conv", ""),
    (":3", "Conv", ""),
])  # fmt: skip
def test_readable_name(name, op, expected):
    assert readable_name(name, op) == expected


def _lrn_model():
    """Two unnamed Conv/Relu pairs, an unnamed LRN and a named Conv whose name needs cleaning."""
    from onnx import TensorProto, helper, numpy_helper

    rng = np.random.default_rng(0)
    w = {k: rng.normal(size=(4, 4 if k != "w1" else 3, 3, 3)).astype(np.float32)
         for k in ("w1", "w2", "w3")}  # fmt: skip
    nodes = [helper.make_node("Conv", ["x", "w1"], ["c1"], pads=[1, 1, 1, 1]),
             helper.make_node("Relu", ["c1"], ["r1"]),
             helper.make_node("Conv", ["r1", "w2"], ["c2"], pads=[1, 1, 1, 1]),
             helper.make_node("Relu", ["c2"], ["r2"]),
             helper.make_node("LRN", ["r2"], ["n"], size=3),
             helper.make_node("Conv", ["n", "w3"], ["y"], name="head/conv out:9",
                              pads=[1, 1, 1, 1])]  # fmt: skip
    graph = helper.make_graph(
        nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 3, 6, 6])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
        [numpy_helper.from_array(v, k) for k, v in w.items()],
    )  # fmt: skip
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def test_unnamed_nodes_are_operator_and_count_and_a_composite_is_grouped(tmp_path):
    path = tmp_path / "m.onnx"
    onnx.save(_lrn_model(), path)
    imported = read_model(path)
    net = imported.project.network("Main")
    types = {layer.name: layer.type for layer in net.layers}
    lrn = ["LRN_1_Square", "LRN_1_Window", "LRN_1_Scale", "LRN_1_Bias", "LRN_1_Power", "LRN_1"]
    assert types == {
        "x": "Input", "Conv_1": "Convolution", "Relu_1": "ReLU", "Conv_2": "Convolution",
        "Relu_2": "ReLU", "LRN_1_Square": "PowScalar", "LRN_1_Window": "SumPooling",
        "LRN_1_Scale": "MulScalar", "LRN_1_Bias": "AddScalar", "LRN_1_Power": "PowScalar",
        "LRN_1": "Div2", "head_conv_out": "Convolution",
    }  # fmt: skip
    assert sorted(imported.parameters) == ["Conv_1/conv/W", "Conv_2/conv/W", "head_conv_out/conv/W"]
    assert {link.source for link in net.links if link.destination == "head_conv_out"} == {"LRN_1"}
    x = {layer.name: layer.position[0] for layer in net.layers}
    y = {layer.name: layer.position[1] for layer in net.layers}
    for link in net.links:
        assert y[link.source] < y[link.destination], link
    rows = sorted({y[name] for name in y})
    # the composite's layers: consecutive rows between the Relu and the head, the chain in
    # one column beside the link that skips it (the input that LRN_1 divides)
    assert len({x[name] for name in lrn[:-1]}) == 1 and x["LRN_1"] == x["Relu_2"]
    assert [rows.index(y[name]) for name in lrn] == [5, 6, 7, 8, 9, 10]
    assert rows.index(y["Relu_2"]) == 4 and rows.index(y["head_conv_out"]) == 11


@pytest.mark.parametrize("stem", ["lenet_digits", "squeezenet_digits"])
def test_our_exports_come_back_with_their_layer_names(stem, tmp_path):
    """Our exporter names nodes ``<layer>:<n>``, ``<layer>/<part>:<n>`` and, in a Unit,
    ``<unit>/<layer>:<n>``: the import gave ``Convolution_1``-like counters and
    ``Affine_matmul``; now the drawn names (a Unit's layers: ``Fire1_SqueezeConv``)."""
    path = next(p for p in PROJECTS if p.stem == stem)
    project = load_project(path)
    network = project.executors[0].network
    program = compile_network(project, network)
    source = Source(project, stem, network, save(randomized(program), tmp_path / "p.npz"), True)
    model = export_onnx(source, tmp_path / "model.onnx")
    drawn = {layer.name: layer.type for layer in project.network("Main").layers}
    got = {layer.name: layer.type for layer in read_model(model).project.network("Main").layers}
    kept = {k: v for k, v in drawn.items() if v not in ("Input", "Unit", "Dropout")
            and "CrossEntropy" not in v}  # fmt: skip
    assert {k: got.get(k) for k in kept} == kept
    units = [k for k, v in drawn.items() if v == "Unit"]
    others = set(got) - set(kept) - {"x", "output_y"}  # (the input, the output's Identity)
    assert all(any(k.startswith(unit + "_") for unit in units) for k in others), others
    assert len(others) == (21 if units else 0)  # SqueezeNet: 3 Fire units of 7 layers


def test_an_imported_lrn_exports_back_and_matches_onnxruntime(tmp_path):
    """The LRN composite's channel window (a padded SumPooling over C, H, W) was refused by the
    exporter ("only unpadded SumPooling is exportable"); it is written as a padded AveragePool
    of the map made one channel, times the window."""
    from engine.cli import main

    ort = pytest.importorskip("onnxruntime", reason="onnxruntime not installed")
    path = tmp_path / "m.onnx"
    onnx.save(_lrn_model(), path)
    project = tmp_path / "m.ncproj"
    assert main(["import", str(path), "-o", str(project)]) == 0
    back = tmp_path / "back.onnx"
    assert main(["export", "onnx", str(project), "--params", str(tmp_path / "m_parameters.npz"),
                 "-o", str(back)]) == 0  # fmt: skip
    ops = [node.op_type for node in onnx.load(str(back)).graph.node]
    assert "AveragePool" in ops and "LRN" not in ops
    x = np.random.default_rng(0).normal(size=(2, 3, 6, 6)).astype(np.float32)
    expected = ort.InferenceSession(str(path)).run(None, {"x": x})[0]
    got = ort.InferenceSession(str(back)).run(None, {"x": x})[0]
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-5 * np.abs(expected).max())

"""ONNX operators that NNC computes with other parameters or several layers (issue 28's
remaining composites), each imported and matched against onnxruntime on random inputs at
batch 2: Neg/Sqrt/Reciprocal, n-ary Max/Min, HardSigmoid/HardSwish, Erf and Gelu, PRelu,
LayerNormalization, InstanceNormalization, Cast, and constants that become Parameter layers.
Each was refused with ``no NNC layer for ...`` (or ``a constant operand must be one value``)
before its rule."""

from __future__ import annotations

import numpy as np
import pytest
from model_kit import outputs

from engine.model_import import ImportError_, read_model

ort = pytest.importorskip("onnxruntime", reason="onnxruntime not installed")
onnx = pytest.importorskip("onnx", reason="onnx not installed")

RNG = np.random.default_rng(0)
X = [("x", ["N", 3, 5, 4])]


def _r(*shape):
    return RNG.normal(size=shape).astype(np.float32)


def _model(nodes, inputs, inits, opset):
    from onnx import TensorProto, helper, numpy_helper

    graph = helper.make_graph(
        nodes, "g",
        [helper.make_tensor_value_info(n, TensorProto.FLOAT, s) for n, s in inputs],
        [helper.make_tensor_value_info(nodes[-1].output[0], TensorProto.FLOAT, None)],
        [numpy_helper.from_array(np.asarray(v, np.float32), k) for k, v in inits.items()],
    )  # fmt: skip
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def _node(op, ins, **attrs):
    from onnx import helper

    return helper.make_node(op, ins, ["y"], name=op, **attrs)


CASES = {
    "Neg": ([_node("Neg", ["x"])], {}, 17, ["MulScalar"]),
    "Sqrt": ([_node("Sqrt", ["x"])], {}, 17, ["PowScalar"]),
    "Reciprocal": ([_node("Reciprocal", ["x"])], {}, 17, ["RDivScalar"]),
    "Max of three": ([_node("Max", ["x", "x2", "c"])], {"c": np.float32(0.1)}, 17,
                     ["Maximum2", "MaximumScalar"]),
    "Min of two": ([_node("Min", ["x", "x2"])], {}, 17, ["Minimum2"]),
    "HardSigmoid": ([_node("HardSigmoid", ["x"])], {}, 17, ["HardSigmoid"]),
    "HardSigmoid 0.5 0.6": ([_node("HardSigmoid", ["x"], alpha=0.5, beta=0.6)], {}, 17,
                            ["MulScalar", "AddScalar", "HardSigmoid"]),
    "HardSwish": ([_node("HardSwish", ["x"])], {}, 17, ["MulScalar", "HardSigmoid", "Mul2"]),
    "Erf": ([_node("Erf", ["x"])], {}, 17, None),
    "Gelu": ([_node("Gelu", ["x"])], {}, 20, None),
    "Gelu tanh": ([_node("Gelu", ["x"], approximate="tanh")], {}, 20, ["GELU"]),
    "PRelu per channel": ([_node("PRelu", ["x", "s"])], {"s": _r(3, 1, 1)}, 17, ["PReLU"]),
    "PRelu per column": ([_node("PRelu", ["x", "s"])], {"s": _r(4)}, 17,
                         ["ReLU", "MinimumScalar", "Parameter", "Mul2", "Add2"]),
    "LayerNormalization axis 1": (
        [_node("LayerNormalization", ["x", "w", "b"], axis=1)],
        {"w": _r(3, 5, 4), "b": _r(3, 5, 4)}, 17, ["LayerNormalization"]),
    "LayerNormalization axis -1": (
        [_node("LayerNormalization", ["x", "w", "b"], epsilon=0.1)], {"w": _r(4), "b": _r(4)}, 17,
        ["Mean", "Sub2", "PowScalar", "Mean", "AddScalar", "PowScalar", "Mul2", "Parameter",
         "Parameter", "Mul2", "Add2"]),
    "InstanceNormalization": ([_node("InstanceNormalization", ["x", "w", "b"], epsilon=0.01)],
                              {"w": _r(3), "b": _r(3)}, 17, ["InstanceNormalization"]),
    "Cast to float": ([_node("Cast", ["x"], to=1)], {}, 17, ["Identity"]),
    "ThresholdedRelu": ([_node("ThresholdedRelu", ["x"], alpha=0.3)], {}, 17,
                        ["GreaterScalar", "Mul2"]),
    "Celu": ([_node("Celu", ["x"], alpha=2.0)], {}, 17, ["MulScalar", "ELU", "MulScalar"]),
    "Sign": ([_node("Sign", ["x"])], {}, 17, ["Sign"]),
    "Sum with constants": ([_node("Sum", ["x", "c", "x2", "d"])], {"c": np.float32(1.0),
                           "d": _r(5, 1)}, 17, ["AddN", "Parameter", "Add2"]),
    "Mean with a constant": ([_node("Mean", ["x", "c"])], {"c": np.float32(2.0)}, 17,
                             ["AddScalar", "MulScalar"]),
    "Mish": ([_node("Mish", ["x"])], {}, 18, ["Mish"]),
    "Mul by a (3,1,4) constant": ([_node("Mul", ["x", "c"])], {"c": _r(3, 1, 4)}, 17,
                                  ["Parameter", "Mul2"]),
    "constant minus x": ([_node("Sub", ["c", "x"])], {"c": _r(5, 4)}, 17,
                         ["Parameter", "Sub2", "MulScalar"]),
    "constant over x": ([_node("Div", ["c", "x"])], {"c": _r(5, 1)}, 17,
                        ["Parameter", "RDivScalar", "Mul2"]),
}  # fmt: skip


@pytest.mark.parametrize("name", list(CASES))
def test_operator_imports_and_matches_onnxruntime(name, tmp_path):
    nodes, inits, opset, layers = CASES[name]
    used = {i for n in nodes for i in n.input}
    inputs = X + ([("x2", ["N", 3, 5, 4])] if "x2" in used else [])
    path = tmp_path / "m.onnx"
    onnx.save(_model(nodes, inputs, inits, opset), path)
    feeds = {n: RNG.normal(size=(2, 3, 5, 4)).astype(np.float32) for n, _ in inputs}
    if name in ("Sqrt",):
        feeds["x"] = np.abs(feeds["x"]) + 0.1
    expected = ort.InferenceSession(str(path)).run(None, feeds)[0]
    imported = read_model(path)
    got = outputs(imported.project, "Main", imported.parameters, feeds)[0]
    np.testing.assert_allclose(got.reshape(expected.shape), expected, rtol=1e-5, atol=2e-6)
    types = [layer.type for layer in imported.project.network("Main").layers][len(inputs) :]
    if layers is not None:
        assert types == layers
    else:  # Erf: Abramowitz-Stegun in arithmetic layers, ending in Sign(x) times the rest
        assert "Sign" in types and "Exp" in types


def test_gelu_and_erf_match_the_exact_erf_far_out(tmp_path):
    """Erf's formula holds over the whole line (its error is 1.5e-7 at most): on -6 ... 6."""
    path = tmp_path / "m.onnx"
    onnx.save(_model([_node("Erf", ["x"])], [("x", ["N", 7])], {}, 17), path)
    x = np.linspace(-6, 6, 14 * 7, dtype=np.float32).reshape(14, 7)
    imported = read_model(path)
    got = outputs(imported.project, "Main", imported.parameters, {"x": x})[0]
    from math import erf

    np.testing.assert_allclose(got, np.vectorize(erf)(x.astype(np.float64)), atol=3e-7)


def _cast(to):
    """x -> Cast(to) -> Cast(float): the graph's output stays float."""
    from onnx import helper

    return [helper.make_node("Cast", ["x"], ["h"], to=to), _node("Cast", ["h"], to=1)]


@pytest.mark.parametrize(
    ("node", "inits", "words"),
    [
        (_cast(10), {}, 'node "h" (Cast): a cast to float16 rounds'),
        (_cast(7), {}, "a cast to int64 rounds the values"),
        (_node("LayerNormalization", ["x", "w"], axis=0), {"w": _r(2, 3, 5, 4)},
         "a normalization over the batch axis"),
        (_node("Mul", ["x", "c"]), {"c": _r(2, 3, 5, 4)}, "(or spans the batch axis)"),
        (_node("PRelu", ["x", "s"]), {"s": _r(7)}, "does not broadcast"),
    ],
)  # fmt: skip
def test_what_has_no_nnc_equivalent_is_refused_in_one_line(node, inits, words, tmp_path):
    path = tmp_path / "m.onnx"
    onnx.save(_model(node if isinstance(node, list) else [node], X, inits, 17), path)
    with pytest.raises(ImportError_) as info:
        read_model(path)
    assert words in str(info.value) and "\n" not in str(info.value)


def _int64(values):
    return np.asarray(values, np.int64)


MORE = {
    "Pad constant 1.5": ([_node("Pad", ["x", "p", "v"])], {"p": _int64([0, 1, 1, 2, 0, 1, 0, 3]),
                         "v": np.float32(1.5)}, ["Pad"]),
    "Pad reflect": ([_node("Pad", ["x", "p"], mode="reflect")],
                    {"p": _int64([0, 0, 1, 2, 0, 0, 2, 1])}, ["Pad"]),
    "Pad edge": ([_node("Pad", ["x", "p"], mode="edge")], {"p": _int64([0, 0, 1, 2, 0, 0, 2, 1])},
                 ["Pad"]),
    "Gather [0, 2]": ([_node("Gather", ["x", "i"], axis=1)], {"i": _int64([0, 2])}, ["Slice"]),
    "Gather [3, 0, 1]": ([_node("Gather", ["x", "i"], axis=-1)], {"i": _int64([3, 0, 1])},
                         ["Slice", "Slice", "Slice", "Concatenate"]),
    "Gather [[1, 2], [0, 4]]": ([_node("Gather", ["x", "i"], axis=2)],
                                {"i": _int64([[1, 2], [0, 4]])},
                                ["Slice"] * 4 + ["Concatenate", "Reshape"]),
    "ArgMax": ([_node("ArgMax", ["x"], axis=2, keepdims=0)], {}, ["Max"]),
    "ArgMin last index": ([_node("ArgMin", ["x"], axis=-1, select_last_index=1)], {},
                          ["Flip", "Min", "RSubScalar"]),
}  # fmt: skip


def _save(nodes, inits, outs, path, opset=18):
    from onnx import TensorProto, helper, numpy_helper

    graph = helper.make_graph(
        nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 3, 5, 4])],
        [helper.make_tensor_value_info(o, TensorProto.INT64 if nodes[0].op_type.startswith("Arg")
                                       else TensorProto.FLOAT, None) for o in outs],
        [numpy_helper.from_array(np.asarray(v), k) for k, v in inits.items()],
    )  # fmt: skip
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)]), path)


@pytest.mark.parametrize("name", list(MORE))
def test_data_movement_and_index_operators_match_onnxruntime(name, tmp_path):
    """Pad, Gather with constant indices, ArgMax/ArgMin (refused before: no NNC layer, or only
    one constant index)."""
    nodes, inits, layers = MORE[name]
    path = tmp_path / "m.onnx"
    _save(nodes, inits, ["y"], path)
    x = RNG.normal(size=(2, 3, 5, 4)).astype(np.float32)
    if name == "ArgMin last index":
        x = np.round(x)  # ties, where the last index differs from the first
    expected = ort.InferenceSession(str(path)).run(None, {"x": x})[0]
    imported = read_model(path)
    got = outputs(imported.project, "Main", imported.parameters, {"x": x})[0]
    np.testing.assert_array_equal(got.reshape(expected.shape), expected)
    assert [layer.type for layer in imported.project.network("Main").layers][1:] == layers


@pytest.mark.parametrize(("attrs", "sizes"), [({"num_outputs": 2, "axis": 2}, [3, 2]),
                                              ({"axis": 1, "split": None}, [1, 2])])  # fmt: skip
def test_split_writes_every_output_as_a_slice(attrs, sizes, tmp_path):
    """Split's outputs are all imported (its second output was refused: only the first output
    of a node was imported)."""
    from onnx import helper

    outs = [f"y{k}" for k in range(len(sizes))]
    inits = {}
    ins = ["x"]
    if "split" in attrs:
        attrs = {"axis": attrs["axis"]}
        inits["s"] = _int64(sizes)
        ins.append("s")
    path = tmp_path / "m.onnx"
    _save([helper.make_node("Split", ins, outs, name="Split", **attrs)], inits, outs, path)
    x = RNG.normal(size=(2, 3, 5, 4)).astype(np.float32)
    expected = ort.InferenceSession(str(path)).run(None, {"x": x})
    imported = read_model(path)
    got = outputs(imported.project, "Main", imported.parameters, {"x": x})
    assert [a.shape for a in got] == [b.shape for b in expected]
    for a, b in zip(got, expected, strict=True):
        np.testing.assert_array_equal(a, b)
    assert [layer.type for layer in imported.project.network("Main").layers][1:] == (
        ["Slice"] * len(sizes)
    )


def test_argmax_exports_back_as_argmax(tmp_path):
    """A Max with OnlyIndex over one axis writes ArgMax (+ Cast to float); it was refused
    ('an index output is not exportable')."""
    from model_kit import save

    from engine.export import Source, export_onnx

    path = tmp_path / "m.onnx"
    _save([_node("ArgMax", ["x"], axis=1, keepdims=1)], {}, ["y"], path)
    imported = read_model(path)
    main = imported.project.executors[0].network
    again = export_onnx(Source(imported.project, "m", main, save(imported.parameters,
                        tmp_path / "p.npz"), False), tmp_path / "again.onnx")  # fmt: skip
    ops = [node.op_type for node in onnx.load(str(again)).graph.node]
    assert "ArgMax" in ops
    x = RNG.normal(size=(2, 3, 5, 4)).astype(np.float32)
    a = ort.InferenceSession(str(again)).run(None, {"x": x})[0]
    np.testing.assert_array_equal(a.reshape(2, 1, 5, 4), np.argmax(x, axis=1)[:, None])


def test_parameter_layers_and_composites_export_back(tmp_path):
    """A model whose constants became Parameter layers (Mul by a (3, 1, 4) constant after a
    Relu, a LayerNormalization over the last axis) exports back and matches the original."""
    from model_kit import save

    from engine.export import Source, export_onnx

    path = tmp_path / "m.onnx"
    nodes = [
        _node("Relu", ["x"]),
        _node("Mul", ["y", "c"]),
        _node("LayerNormalization", ["y", "w"]),
    ]
    nodes[0].output[0], nodes[1].output[0] = "r", "m"
    nodes[1].input[0], nodes[2].input[0] = "r", "m"
    onnx.save(_model(nodes, X, {"c": _r(3, 1, 4), "w": _r(4)}, 17), path)
    imported = read_model(path)
    types = [layer.type for layer in imported.project.network("Main").layers]
    assert types.count("Parameter") == 3  # the constant, LayerNormalization's scale and bias
    main = imported.project.executors[0].network
    again = export_onnx(Source(imported.project, "m", main, save(imported.parameters,
                        tmp_path / "p.npz"), False), tmp_path / "again.onnx")  # fmt: skip
    x = RNG.normal(size=(2, 3, 5, 4)).astype(np.float32)
    a = ort.InferenceSession(str(again)).run(None, {"x": x})[0]
    b = ort.InferenceSession(str(path)).run(None, {"x": x})[0]
    np.testing.assert_allclose(a.reshape(b.shape), b, rtol=1e-5, atol=2e-6)

"""ONNX operators with no single NNC layer import as the layers that compute them (issue 28),
each matched against onnxruntime: NNC's own exported Softmax, LogSoftmax, LRN, Sum/Mean,
per-channel constants, opset < 13 Softmax."""

from __future__ import annotations

import numpy as np
import pytest
from model_kit import outputs

from engine.model_import import read_model

ort = pytest.importorskip("onnxruntime", reason="onnxruntime not installed")
onnx = pytest.importorskip("onnx", reason="onnx not installed")


def _model(nodes, inputs, outs, inits=None, opset=17):
    from onnx import TensorProto, helper, numpy_helper

    graph = helper.make_graph(
        nodes, "g",
        [helper.make_tensor_value_info(n, TensorProto.FLOAT, s) for n, s in inputs],
        [helper.make_tensor_value_info(n, TensorProto.FLOAT, None) for n in outs],
        [numpy_helper.from_array(np.asarray(v), k) for k, v in (inits or {}).items()],
    )  # fmt: skip
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def _node(op, ins, outs, name, **attrs):
    from onnx import helper

    return helper.make_node(op, ins, outs, name=name, **attrs)


def _check(model, feeds, tmp_path, atol=1e-5):
    """Import, run on the engine, compare with onnxruntime; the layer types, in order."""
    path = tmp_path / "m.onnx"
    onnx.save(model, path)
    expected = ort.InferenceSession(str(path)).run(None, feeds)
    imported = read_model(path)
    got = outputs(imported.project, "Main", imported.parameters, feeds)
    for a, b in zip(got, expected, strict=True):
        assert a.size == b.size
        np.testing.assert_allclose(a.reshape(b.shape), b, rtol=1e-5, atol=atol)
    return [layer.type for layer in imported.project.network("Main").layers]


@pytest.mark.parametrize("opset", [9, 13, 18])
def test_nnc_exported_softmax_imports(opset, tmp_path):
    """NNC 1.x writes Softmax after the last Affine as ReduceMax -> Sub -> Exp -> ReduceSum ->
    Div (it was refused: ``no NNC layer for ReduceMax ..., ReduceSum ...``)."""
    rng = np.random.default_rng(0)
    inits = {"W": rng.normal(size=(6, 5)).astype(np.float32),
             "b": rng.normal(size=5).astype(np.float32)}  # fmt: skip
    reduce = {"keepdims": 1}
    extra = []
    if opset >= 18:
        inits["axes"] = np.array([1], np.int64)
        extra = ["axes"]
    else:
        reduce["axes"] = [1]
    sum_extra, sum_attrs = (["axes"], {"keepdims": 1}) if opset >= 13 else (extra, reduce)
    if opset >= 13:
        inits["axes"] = np.array([1], np.int64)
    nodes = [
        _node("Gemm", ["x", "W", "b"], ["h"], "Affine"),
        _node("ReduceMax", ["h", *extra], ["m"], "Softmax_ReduceMax", **reduce),
        _node("Sub", ["h", "m"], ["d"], "Softmax_Sub"),
        _node("Exp", ["d"], ["e"], "Softmax_Exp"),
        _node("ReduceSum", ["e", *sum_extra], ["s"], "Softmax_ReduceSum", **sum_attrs),
        _node("Div", ["e", "s"], ["y"], "Softmax_Div"),
    ]
    model = _model(nodes, [("x", ["N", 6])], ["y"], inits, opset)
    x = rng.normal(size=(4, 6)).astype(np.float32) * 3
    types = _check(model, {"x": x}, tmp_path)
    assert types == ["Input", "Affine", "Max", "Sub2", "Exp", "Sum", "Div2"]


@pytest.mark.parametrize(("opset", "axis"), [(11, 1), (13, -1), (17, 1)])
def test_pytorch_log_softmax_imports(opset, axis, tmp_path):
    rng = np.random.default_rng(0)
    inits = {"W": rng.normal(size=(3, 6)).astype(np.float32)}
    model = _model([_node("Gemm", ["x", "W"], ["h"], "fc", transB=1),
                    _node("LogSoftmax", ["h"], ["y"], "log_softmax", axis=axis)],
                   [("x", ["N", 6])], ["y"], inits, opset)  # fmt: skip
    x = rng.normal(size=(5, 6)).astype(np.float32)
    assert _check(model, {"x": x}, tmp_path) == ["Input", "Affine", "LogSoftmax"]


def test_legacy_softmax_over_flattened_axes(tmp_path):
    """opset < 13: softmax over every axis from ``axis`` on, flattened."""
    model = _model([_node("Softmax", ["x"], ["y"], "sm", axis=1)], [("x", ["N", 3, 2, 2])],
                   ["y"], opset=11)  # fmt: skip
    x = np.random.default_rng(0).normal(size=(2, 3, 2, 2)).astype(np.float32)
    assert _check(model, {"x": x}, tmp_path) == ["Input", "Reshape", "Softmax", "Reshape"]


@pytest.mark.parametrize("size", [3, 5])
def test_lrn_matches_onnxruntime(size, tmp_path):
    model = _model([_node("LRN", ["x"], ["y"], "norm", size=size, alpha=0.02, beta=0.75,
                          bias=2.0)], [("x", ["N", 6, 3, 3])], ["y"])  # fmt: skip
    x = np.random.default_rng(0).normal(size=(2, 6, 3, 3)).astype(np.float32) * 2
    types = _check(model, {"x": x}, tmp_path)
    assert types == ["Input", "PowScalar", "SumPooling", "MulScalar", "AddScalar", "PowScalar",
                     "Div2"]  # fmt: skip


def test_lrn_of_an_even_window_is_refused(tmp_path):
    from engine.model_import import ImportError_

    path = tmp_path / "m.onnx"
    onnx.save(_model([_node("LRN", ["x"], ["y"], "norm", size=4)], [("x", ["N", 6, 3, 3])],
                     ["y"]), path)  # fmt: skip
    with pytest.raises(ImportError_, match=r'"norm" \(LRN\): an even window \(size 4\)'):
        read_model(path)


@pytest.mark.parametrize("op", ["Sum", "Mean"])
def test_sum_and_mean_of_n_tensors(op, tmp_path):
    names = ["a", "b", "c"]
    model = _model([_node("Relu", [n], [n + "r"], "relu_" + n) for n in names]
                   + [_node(op, [n + "r" for n in names], ["y"], "total")],
                   [(n, ["N", 2, 3]) for n in names], ["y"])  # fmt: skip
    rng = np.random.default_rng(0)
    feeds = {n: rng.normal(size=(2, 2, 3)).astype(np.float32) for n in names}
    types = _check(model, feeds, tmp_path)
    assert types[-1] == ("AddN" if op == "Sum" else "MulScalar")


@pytest.mark.parametrize("op", ["Mul", "Add", "Sub", "Div"])
@pytest.mark.parametrize("after", ["Conv", "BatchNormalization", "Gemm"])
def test_per_channel_constants_fold_into_the_layer_before(op, after, tmp_path):
    """DenseNet/Inception v2 write a batch normalization's scale and shift as Mul/Add by a
    (C, 1, 1) constant after BatchNormalization (it was refused)."""
    rng = np.random.default_rng(0)
    c = 4
    inits = {"W": rng.normal(size=(c, 3, 3, 3)).astype(np.float32),
             "s": rng.normal(size=c).astype(np.float32), "o": rng.normal(size=c).astype(np.float32),
             "m": rng.normal(size=c).astype(np.float32),
             "v": rng.uniform(0.5, 1.5, c).astype(np.float32),
             "G": rng.normal(size=(c, 5)).astype(np.float32),
             "k": rng.uniform(0.5, 2.0, size=(c, 1, 1)).astype(np.float32)}  # fmt: skip
    if after == "Gemm":
        inits["k"] = inits["k"].reshape(1, c)
        first = [_node("Gemm", ["x", "G"], ["h"], "fc", transB=1)]
        shape = ["N", 5]
    else:
        first = [_node("Conv", ["x", "W"], ["h"], "conv", pads=[1, 1, 1, 1])]
        shape = ["N", 3, 5, 5]
        if after == "BatchNormalization":
            bn = _node("BatchNormalization", ["h0", "s", "o", "m", "v"], ["h"], "bn")
            first = [_node("Conv", ["x", "W"], ["h0"], "conv", pads=[1, 1, 1, 1]), bn]
    nodes = [*first, _node(op, ["h", "k"], ["y"], "channel")]
    model = _model(nodes, [("x", shape)], ["y"], inits)
    x = rng.normal(size=(2, *shape[1:])).astype(np.float32)
    types = _check(model, {"x": x}, tmp_path, atol=1e-4)
    assert types[-1] == {"Conv": "Convolution", "Gemm": "Affine"}.get(after, after)


def test_a_per_channel_constant_on_a_shared_output_is_a_parameter_layer(tmp_path):
    """The Conv's output is also a graph output: folding would change it, so the constant is a
    Parameter layer feeding Mul2 (it was refused: 'a constant operand must be one value')."""
    rng = np.random.default_rng(0)
    inits = {"W": rng.normal(size=(2, 1, 1, 1)).astype(np.float32),
             "k": np.array([[[2.0]], [[3.0]]], np.float32)}  # fmt: skip
    model = _model([_node("Conv", ["x", "W"], ["h"], "conv"),
                    _node("Mul", ["h", "k"], ["y"], "scale")],
                   [("x", ["N", 1, 2, 2])], ["y", "h"], inits)  # fmt: skip
    x = rng.normal(size=(2, 1, 2, 2)).astype(np.float32)
    assert _check(model, {"x": x}, tmp_path) == [
        "Input",
        "Convolution",
        "Parameter",
        "Mul2",
        "Identity",
    ]


def test_broadcasting_two_tensors_matches_onnxruntime(tmp_path):
    model = _model([_node("ReduceMean", ["x"], ["m"], "mean", axes=[2], keepdims=1),
                    _node("Sub", ["x", "m"], ["y"], "centre")],
                   [("x", ["N", 3, 4])], ["y"], opset=13)  # fmt: skip
    x = np.random.default_rng(0).normal(size=(2, 3, 4)).astype(np.float32)
    assert _check(model, {"x": x}, tmp_path) == ["Input", "Mean", "Sub2"]

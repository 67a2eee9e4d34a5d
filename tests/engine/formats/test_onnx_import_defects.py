"""ONNX imports that used to be silently wrong (issue 28): each case is checked against
onnxruntime, or must be one clear line with a non-zero exit and nothing written."""

from __future__ import annotations

import numpy as np
import pytest
from model_kit import outputs

from engine.cli import main
from engine.model_import import ImportError_, parameters_path, read_model

ort = pytest.importorskip("onnxruntime", reason="onnxruntime not installed")
onnx = pytest.importorskip("onnx", reason="onnx not installed")


def _model(nodes, inputs, outs, inits=None, opset=17, out_types=None):
    from onnx import TensorProto, helper, numpy_helper

    graph = helper.make_graph(
        nodes, "g",
        [helper.make_tensor_value_info(n, TensorProto.FLOAT, s) for n, s in inputs],
        [helper.make_tensor_value_info(n, (out_types or {}).get(n, TensorProto.FLOAT), None)
         for n in outs],
        [numpy_helper.from_array(np.asarray(v), k) for k, v in (inits or {}).items()],
    )  # fmt: skip
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def _node(op, ins, outs, name, **attrs):
    from onnx import helper

    return helper.make_node(op, ins, outs, name=name, **attrs)


def _both(model, feeds, tmp_path):
    """(the imported project's outputs, onnxruntime's) on ``feeds``."""
    path = tmp_path / "m.onnx"
    onnx.save(model, path)
    expected = ort.InferenceSession(str(path)).run(None, feeds)
    imported = read_model(path)
    got = outputs(imported.project, imported.project.executors[0].network,
                  imported.parameters, feeds)  # fmt: skip
    return got, expected


def _refused(model, tmp_path, capsys) -> str:
    """The import's one error line (exit 2, nothing written)."""
    path = tmp_path / "m.onnx"
    onnx.save(model, path)
    out = tmp_path / "p.ncproj"
    capsys.readouterr()
    assert main(["import", str(path), "-o", str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "Traceback" not in err
    assert not out.exists() and not parameters_path(out).exists()
    assert not (tmp_path / "p.files").exists()
    return err


def test_dropout_passes_its_input_at_inference(tmp_path):
    """Gemm -> Dropout gave ``2 4 6 0`` (a dropped, rescaled sample) for onnxruntime's 1 2 3 4."""
    x = np.array([[1, 2, 3, 4], [5, 6, 7, 8]], np.float32)
    for ratio in ([], ["ratio"]):
        model = _model([_node("Gemm", ["x", "W"], ["h"], "fc"),
                        _node("Dropout", ["h", *ratio], ["y"], "drop")],
                       [("x", ["N", 4])], ["y"],
                       {"W": np.eye(4, dtype=np.float32), "ratio": np.float32(0.5)})  # fmt: skip
        got, expected = _both(model, {"x": x}, tmp_path)
        np.testing.assert_array_equal(expected[0], x)
        np.testing.assert_array_equal(got[0], x)


@pytest.mark.parametrize("shape", [(1, 3), (3,), (1,), ()])
def test_gemm_bias_of_shape_1_n_or_scalar_matches_onnxruntime(shape, tmp_path):
    """A (1, N) bias ended in a broadcast_to traceback."""
    rng = np.random.default_rng(0)
    inits = {"W": rng.normal(size=(3, 4)).astype(np.float32),
             "C": rng.normal(size=shape).astype(np.float32)}  # fmt: skip
    model = _model([_node("Gemm", ["x", "W", "C"], ["y"], "fc", transB=1, beta=0.5)],
                   [("x", ["N", 4])], ["y"], inits)  # fmt: skip
    x = rng.normal(size=(5, 4)).astype(np.float32)
    got, expected = _both(model, {"x": x}, tmp_path)
    np.testing.assert_allclose(got[0], expected[0], rtol=1e-5, atol=1e-5)


def test_gemm_bias_with_one_row_per_sample_is_one_line(tmp_path, capsys):
    rng = np.random.default_rng(0)
    inits = {"W": rng.normal(size=(4, 3)).astype(np.float32),
             "C": rng.normal(size=(2, 3)).astype(np.float32)}  # fmt: skip
    model = _model([_node("Gemm", ["x", "W", "C"], ["y"], "fc")], [("x", [2, 4])], ["y"], inits)
    err = _refused(model, tmp_path, capsys)
    assert 'node "fc" (Gemm): a bias C of shape (2, 3)' in err


def test_a_graph_that_folds_to_a_constant_is_refused(tmp_path, capsys):
    """Shape(x) and a Constant imported as an empty network with exit 0."""
    from onnx import TensorProto, helper

    model = _model([_node("Shape", ["x"], ["y"], "shape")], [("x", ["N", 4])], ["y"],
                   out_types={"y": TensorProto.INT64})  # fmt: skip
    err = _refused(model, tmp_path, capsys)
    assert err.endswith('the output "y" is a constant (it depends on no input); an NNC network '
                        "computes its outputs from its inputs")  # fmt: skip
    value = helper.make_tensor("v", TensorProto.FLOAT, [2], [1.0, 2.0])
    model = _model([_node("Constant", [], ["c"], "const", value=value),
                    _node("Relu", ["c"], ["y"], "relu")], [("x", ["N", 2])], ["y"])  # fmt: skip
    assert 'the output "y" is a constant' in _refused(model, tmp_path, capsys)


def _maxpool_indices(declared: bool):
    from onnx import TensorProto

    nodes = [_node("MaxPool", ["x"], ["p", "idx"], "pool", kernel_shape=[2, 2], strides=[2, 2])]
    outs = ["p", "idx"] if declared else ["y"]
    if not declared:
        nodes.append(_node("Cast", ["idx"], ["f"], "cast", to=TensorProto.FLOAT))
        nodes.append(_node("Add", ["p", "f"], ["y"], "sum"))
    return _model(nodes, [("x", ["N", 1, 4, 4])], outs, out_types={"idx": TensorProto.INT64})


def _dropout_mask():
    from onnx import TensorProto

    return _model([_node("Dropout", ["x"], ["y", "mask"], "drop")], [("x", ["N", 4])],
                  ["y", "mask"], out_types={"mask": TensorProto.BOOL})  # fmt: skip


def _training_bn():
    c = 3
    inits = {"s": np.ones(c, np.float32), "b": np.zeros(c, np.float32),
             "m": np.zeros(c, np.float32), "v": np.ones(c, np.float32)}  # fmt: skip
    return _model([_node("BatchNormalization", ["x", "s", "b", "m", "v"], ["y", "rm", "rv"],
                         "bn", training_mode=1)],
                  [("x", ["N", c, 2, 2])], ["y", "rm", "rv"], inits, opset=15)  # fmt: skip


SECOND_OUTPUTS = ["maxpool-indices-output", "maxpool-indices-read", "dropout-mask", "bn-mean"]


@pytest.mark.parametrize(("build", "expected"), [
    (lambda: _maxpool_indices(True), 'node "pool" (MaxPool): its second output "idx" (it is a '
                                      "graph output) has no NNC equivalent"),
    (lambda: _maxpool_indices(False), 'node "pool" (MaxPool): its second output "idx" (node '
                                       '"cast" reads it) has no NNC equivalent'),
    (_dropout_mask, 'node "drop" (Dropout): its second output "mask"'),
    (_training_bn, 'node "bn" (BatchNormalization): its second output "rm"'),
], ids=SECOND_OUTPUTS)  # fmt: skip
def test_a_used_second_output_is_refused_not_dropped(build, expected, tmp_path, capsys):
    err = _refused(build(), tmp_path, capsys)
    assert expected in err and err.endswith("only the first output is imported")


def test_an_unused_second_output_is_fine(tmp_path):
    model = _model([_node("MaxPool", ["x"], ["y", "idx"], "pool", kernel_shape=[2, 2],
                          strides=[2, 2])], [("x", ["N", 1, 4, 4])], ["y"])  # fmt: skip
    x = np.random.default_rng(0).normal(size=(2, 1, 4, 4)).astype(np.float32)
    got, expected = _both(model, {"x": x}, tmp_path)
    np.testing.assert_array_equal(got[0], expected[0])


CONV_TRANSPOSE = [
    {"strides": [2, 2], "pads": [1, 1, 1, 1], "output_padding": [1, 1]},  # PyTorch's upsampling
    {"strides": [2, 2], "auto_pad": "SAME_UPPER"},
    {"strides": [2, 2], "auto_pad": "SAME_LOWER"},
    {"strides": [2, 2], "pads": [0, 0, 1, 1]},
    {"strides": [3, 2], "output_shape": [8, 6]},
    {"strides": [2, 2], "dilations": [2, 1], "pads": [1, 0, 2, 1], "output_padding": [1, 1]},
    {"strides": [2, 1], "output_padding": [1, 0]},  # beyond the end padding: a zero Pad
]


@pytest.mark.parametrize("attrs", CONV_TRANSPOSE, ids=lambda a: "-".join(map(str, a)))
def test_conv_transpose_padding_matches_onnxruntime(attrs, tmp_path):
    """output_padding and SAME_UPPER were ignored (5x5 instead of 6x6)."""
    rng = np.random.default_rng(1)
    bias = "output_padding" not in attrs or "pads" in attrs
    inits = {"W": rng.normal(size=(2, 3, 3, 3)).astype(np.float32),
             "b": rng.normal(size=3).astype(np.float32)}  # fmt: skip
    if not bias:
        del inits["b"]
    model = _model([_node("ConvTranspose", ["x", "W", *(["b"] if bias else [])], ["y"], "up",
                          **attrs)], [("x", ["N", 2, 3, 3])], ["y"], inits)  # fmt: skip
    x = rng.normal(size=(2, 2, 3, 3)).astype(np.float32)
    got, expected = _both(model, {"x": x}, tmp_path)
    assert got[0].shape == expected[0].shape
    np.testing.assert_allclose(got[0], expected[0], rtol=1e-5, atol=1e-5)


def test_conv_transpose_output_padding_past_the_padding_with_a_bias_is_one_line(tmp_path, capsys):
    rng = np.random.default_rng(1)
    inits = {"W": rng.normal(size=(2, 3, 3, 3)).astype(np.float32),
             "b": rng.normal(size=3).astype(np.float32)}  # fmt: skip
    node = _node("ConvTranspose", ["x", "W", "b"], ["y"], "up", strides=[2, 2],
                 output_padding=[1, 1])  # fmt: skip
    model = _model([node], [("x", ["N", 2, 3, 3])], ["y"], inits)
    assert "output_padding beyond the end padding with a bias" in _refused(model, tmp_path, capsys)


MODES = ["round_prefer_floor", "round_prefer_ceil", "floor", "ceil"]
TRANSFORMS = ["half_pixel", "asymmetric", "align_corners", "pytorch_half_pixel"]


def test_nearest_resize_matches_onnxruntime_or_is_refused(tmp_path):
    """Every nearest_mode and coordinate transformation with ``sizes``: the import matches
    onnxruntime or is refused naming both; it gave 39 of 64 right before, with no error."""
    x = np.arange(2 * 3 * 3, dtype=np.float32).reshape(1, 2, 3, 3)
    matched = refused = 0
    for mode in MODES:
        for transform in TRANSFORMS:
            for sizes in ([1, 2, 6, 6], [1, 2, 9, 6], [1, 2, 3, 12]):
                model = _model([_node("Resize", ["x", "", "", "sizes"], ["y"], "rs",
                                      mode="nearest", nearest_mode=mode,
                                      coordinate_transformation_mode=transform)],
                               [("x", ["N", 2, 3, 3])], ["y"],
                               {"sizes": np.array(sizes, np.int64)}, opset=13)  # fmt: skip
                try:
                    got, expected = _both(model, {"x": x}, tmp_path)
                except ImportError_ as exc:
                    assert f"coordinate_transformation_mode={transform}" in str(exc)
                    assert f"nearest_mode={mode}" in str(exc)
                    refused += 1
                    continue
                np.testing.assert_array_equal(got[0], expected[0], err_msg=f"{mode} {transform}")
                matched += 1
    assert (matched, refused) == (18, 30)


def test_upsample_of_old_opsets_matches_onnxruntime(tmp_path):
    model = _model([_node("Upsample", ["x", "scales"], ["y"], "up", mode="nearest")],
                   [("x", ["N", 2, 3, 3])], ["y"],
                   {"scales": np.array([1, 1, 2, 3], np.float32)}, opset=9)  # fmt: skip
    x = np.arange(18, dtype=np.float32).reshape(1, 2, 3, 3)
    got, expected = _both(model, {"x": x}, tmp_path)
    np.testing.assert_array_equal(got[0], expected[0])


def test_reduce_mean_over_every_axis_is_refused_not_a_per_sample_mean(tmp_path, capsys):
    """No axes means every axis, the batch included: it gave (3, 1, 1) where onnxruntime gives
    (1, 1, 1)."""
    model = _model([_node("ReduceMean", ["x"], ["y"], "mean")], [("x", ["N", 4, 5])], ["y"],
                   opset=13)  # fmt: skip
    err = _refused(model, tmp_path, capsys)
    assert 'node "mean" (ReduceMean): a mean over the batch axis has no NNC equivalent' in err


def test_reduce_mean_over_the_other_axes_matches_onnxruntime(tmp_path):
    model = _model([_node("ReduceMean", ["x"], ["y"], "mean", axes=[1, 2], keepdims=0)],
                   [("x", ["N", 4, 5])], ["y"], opset=13)  # fmt: skip
    x = np.random.default_rng(0).normal(size=(3, 4, 5)).astype(np.float32)
    got, expected = _both(model, {"x": x}, tmp_path)
    np.testing.assert_allclose(got[0], expected[0], rtol=1e-5, atol=1e-6)


def test_training_mode_batch_normalization_uses_the_batch_statistics(tmp_path):
    """With its running statistics unused, training-mode BatchNormalization imports, and
    normalizes by the batch (it used the stored mean and variance)."""
    c = 3
    rng = np.random.default_rng(0)
    inits = {"s": rng.uniform(0.5, 1.5, c).astype(np.float32),
             "b": rng.normal(size=c).astype(np.float32),
             "m": np.zeros(c, np.float32), "v": np.ones(c, np.float32)}  # fmt: skip
    model = _model([_node("BatchNormalization", ["x", "s", "b", "m", "v"], ["y", "rm", "rv"],
                          "bn", training_mode=1)],
                   [("x", ["N", c, 2, 2])], ["y"], inits, opset=15)  # fmt: skip
    x = (rng.normal(size=(4, c, 2, 2)) * 3 + 1).astype(np.float32)
    got, expected = _both(model, {"x": x}, tmp_path)
    np.testing.assert_allclose(got[0], expected[0], rtol=1e-4, atol=1e-5)


def test_a_fixed_batch_size_is_nnc_batch_axis(tmp_path):
    """ONNX's own node tests declare batch 3 (test_relu: input and output (3, 4, 5)); shape
    inference with the batch fixed to 1 refused them ("inferred shape and existing shape
    differ"). The declared batch is NNC's batch axis: the import runs at any batch."""
    model = _model([_node("Relu", ["x"], ["y"], "relu")], [("x", [3, 4, 5])], ["y"])
    from onnx import TensorProto, helper

    model.graph.output[0].CopyFrom(helper.make_tensor_value_info("y", TensorProto.FLOAT, [3, 4, 5]))
    x = np.random.default_rng(0).normal(size=(3, 4, 5)).astype(np.float32)
    got, expected = _both(model, {"x": x}, tmp_path)
    np.testing.assert_array_equal(got[0], expected[0])
    imported = read_model(tmp_path / "m.onnx")
    x5 = np.random.default_rng(1).normal(size=(5, 4, 5)).astype(np.float32)
    five = outputs(imported.project, "Main", imported.parameters, {"x": x5})[0]
    np.testing.assert_array_equal(five, np.maximum(x5, 0))


@pytest.mark.parametrize("op", ["Dropout", "Sum", "Identity"])
def test_an_output_that_is_the_input_is_an_identity_layer(op, tmp_path):
    """Dropout (inference) or Sum of one input: the output is the input itself; the network
    was empty and gave nothing (ONNX's test_dropout_default, test_sum_one_input)."""
    model = _model([_node(op, ["x"], ["y"], "pass")], [("x", ["N", 2, 3])], ["y"])
    x = np.random.default_rng(0).normal(size=(2, 2, 3)).astype(np.float32)
    got, expected = _both(model, {"x": x}, tmp_path)
    np.testing.assert_array_equal(got[0], expected[0])


def test_an_integer_input_is_refused_not_computed_in_floats(tmp_path, capsys):
    """Div of int8 tensors truncates in onnxruntime; computed in floats it silently differed."""
    from onnx import TensorProto, helper

    graph = helper.make_graph(
        [_node("Div", ["x", "z"], ["y"], "div")], "g",
        [helper.make_tensor_value_info(n, TensorProto.INT8, ["N", 3]) for n in ("x", "z")],
        [helper.make_tensor_value_info("y", TensorProto.INT8, None)],
    )  # fmt: skip
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    err = _refused(model, tmp_path, capsys)
    assert err.endswith('input "x" is of type int8; NNC networks compute in floating point')

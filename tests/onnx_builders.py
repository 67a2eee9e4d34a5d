"""ONNX models built with ``onnx.helper`` alone, independent of NeuroCanvas's exporter."""

from __future__ import annotations

from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]


def _model(nodes, inputs, outputs, inits, opset=17):
    from onnx import TensorProto, checker, helper, numpy_helper

    graph = helper.make_graph(
        nodes, "model",
        [helper.make_tensor_value_info(n, TensorProto.FLOAT, s) for n, s in inputs],
        [helper.make_tensor_value_info(n, TensorProto.FLOAT, ["batch", None]) for n in outputs],
        [numpy_helper.from_array(np.asarray(v), k) for k, v in inits.items()],
    )  # fmt: skip
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    checker.check_model(model)
    return model


def _bn(rng, c):
    return {"scale": rng.uniform(0.5, 1.5, c), "B": rng.normal(size=c),
            "mean": rng.normal(size=c) * 0.1, "var": rng.uniform(0.5, 2.0, c)}  # fmt: skip


def _add_bn(nodes, inits, rng, name, x, c):
    for key, value in _bn(rng, c).items():
        inits[f"{name}.{key}"] = value.astype(np.float32)
    from onnx import helper

    nodes.append(helper.make_node(
        "BatchNormalization", [x] + [f"{name}.{k}" for k in ("scale", "B", "mean", "var")],
        [name], name=name, epsilon=1e-5))  # fmt: skip
    return name


def mlp(seed=0, opset=17):
    """Gemm (transB, bias) -> Relu -> Gemm (alpha, beta) -> Softmax, as PyTorch writes an MLP."""
    from onnx import helper

    rng = np.random.default_rng(seed)
    inits = {"W1": rng.normal(size=(16, 8)), "b1": rng.normal(size=16),
             "W2": rng.normal(size=(3, 16)), "b2": rng.normal(size=3)}  # fmt: skip
    inits = {k: v.astype(np.float32) for k, v in inits.items()}
    nodes = [
        helper.make_node("Gemm", ["x", "W1", "b1"], ["h"], transB=1, name="fc1"),
        helper.make_node("Relu", ["h"], ["r"], name="relu"),
        helper.make_node(
            "Gemm", ["r", "W2", "b2"], ["o"], transB=1, alpha=0.5, beta=2.0, name="fc2"
        ),
        helper.make_node("Softmax", ["o"], ["y"], axis=1, name="softmax"),
    ]
    return _model(nodes, [("x", ["N", 8])], ["y"], inits, opset)


def resnet_block(seed=0, opset=17):
    """Conv-BN-Relu-Conv-BN + identity, Relu, GlobalAveragePool, Flatten, Gemm."""
    from onnx import helper

    rng = np.random.default_rng(seed)
    c = 4
    inits = {"stem.W": rng.normal(size=(c, 3, 3, 3)) * 0.3, "c1.W": rng.normal(size=(c, c, 3, 3))
             * 0.3, "c2.W": rng.normal(size=(c, c, 3, 3)) * 0.3, "c2.b": rng.normal(size=c),
             "fc.W": rng.normal(size=(c, 5)), "fc.b": rng.normal(size=5)}  # fmt: skip
    inits = {k: v.astype(np.float32) for k, v in inits.items()}
    nodes = [helper.make_node("Conv", ["x", "stem.W"], ["s"], pads=[1, 1, 1, 1], name="stem"),
             helper.make_node("Relu", ["s"], ["s_r"], name="stem_relu")]  # fmt: skip
    nodes.append(helper.make_node("Conv", ["s_r", "c1.W"], ["c1"], pads=[1, 1, 1, 1], name="c1"))
    h = _add_bn(nodes, inits, rng, "bn1", "c1", c)
    nodes.append(helper.make_node("Relu", [h], ["r1"], name="r1"))
    nodes.append(helper.make_node("Conv", ["r1", "c2.W", "c2.b"], ["c2"], auto_pad="SAME_UPPER",
                                  name="c2"))  # fmt: skip
    h = _add_bn(nodes, inits, rng, "bn2", "c2", c)
    nodes += [
        helper.make_node("Add", [h, "s_r"], ["sum"], name="skip"),
        helper.make_node("Relu", ["sum"], ["r2"], name="r2"),
        helper.make_node("MaxPool", ["r2"], ["p"], kernel_shape=[2, 2], strides=[2, 2],
                         name="pool"),
        helper.make_node("GlobalAveragePool", ["p"], ["g"], name="gap"),
        helper.make_node("Flatten", ["g"], ["f"], axis=1, name="flatten"),
        helper.make_node("MatMul", ["f", "fc.W"], ["m"], name="fc"),
        helper.make_node("Add", ["m", "fc.b"], ["y"], name="fc_bias"),
    ]  # fmt: skip
    return _model(nodes, [("x", ["batch", 3, 8, 8])], ["y"], inits, opset)


def mobilenet_block(seed=0, opset=17):
    """Depthwise Conv (group = channels) - BN - Clip(0, 6) - pointwise Conv - BN - Clip, Gemm."""
    from onnx import helper

    rng = np.random.default_rng(seed)
    c, o = 6, 8
    inits = {"dw.W": rng.normal(size=(c, 1, 3, 3)) * 0.5, "pw.W": rng.normal(size=(o, c, 1, 1))
             * 0.4, "lo": np.float32(0.0), "hi": np.float32(6.0),
             "shape": np.array([0, -1], np.int64), "fc.W": rng.normal(size=(4, o * 4 * 4)),
             "fc.b": rng.normal(size=4)}  # fmt: skip
    inits = {k: np.asarray(v).astype(v.dtype if k == "shape" else np.float32)
             for k, v in inits.items()}  # fmt: skip
    nodes = [helper.make_node("Conv", ["x", "dw.W"], ["dw"], group=c, pads=[1, 1, 1, 1],
                              strides=[2, 2], name="dw")]  # fmt: skip
    h = _add_bn(nodes, inits, rng, "bn_dw", "dw", c)
    nodes.append(helper.make_node("Clip", [h, "lo", "hi"], ["r1"], name="relu6_1"))
    nodes.append(helper.make_node("Conv", ["r1", "pw.W"], ["pw"], name="pw"))
    h = _add_bn(nodes, inits, rng, "bn_pw", "pw", o)
    nodes += [
        helper.make_node("Clip", [h, "lo", "hi"], ["r2"], name="relu6_2"),
        helper.make_node("Reshape", ["r2", "shape"], ["flat"], name="flatten"),
        helper.make_node("Gemm", ["flat", "fc.W", "fc.b"], ["y"], transB=1, name="fc"),
    ]
    return _model(nodes, [("x", ["batch", c, 8, 8])], ["y"], inits, opset)

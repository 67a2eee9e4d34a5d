"""``neurocanvas import --summary MODEL.onnx`` (issue 28): every operator with its node count
and what it becomes (1:1 which layer, a composite of which layers, folded into the layer before,
a constant folded at import, no layer), what is refused and why; nothing is written."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from engine.model_import import read_model

onnx = pytest.importorskip("onnx", reason="onnx not installed")

ROOT = Path(__file__).resolve().parents[3]
LIGHT = Path(onnx.__file__).parent / "backend" / "test" / "data" / "light"


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "engine.cli", *args], capture_output=True,
                          text=True, cwd=cwd, env=env, timeout=600)  # fmt: skip


def _rows(stdout: str) -> dict[str, list[tuple[int, str]]]:
    """Operator -> [(nodes, outcome)] from the summary's table."""
    rows: dict[str, list[tuple[int, str]]] = {}
    for line in stdout.splitlines()[2:]:
        parts = line.split(None, 2)
        if line.startswith("  ") and len(parts) == 3 and parts[1].isdigit():
            rows.setdefault(parts[0], []).append((int(parts[1]), parts[2]))
    return rows


def test_summary_of_a_zoo_model_lists_each_operator_and_writes_nothing(tmp_path):
    path = LIGHT / "light_bvlc_alexnet.onnx"
    done = _cli("import", "--summary", str(path), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    assert list(tmp_path.iterdir()) == []  # nothing written
    first = done.stdout.splitlines()[0]
    assert first == (f"{path}: ONNX opset 9, 40 nodes; input data_0 (3x224x224 per sample); "
                     "output prob_1")  # fmt: skip
    assert _rows(done.stdout) == {
        "ConstantOfShape": [(16, "folded: a constant computed at import")],
        "Conv": [(5, "1:1 Convolution")],
        "Relu": [(7, "1:1 ReLU")],
        "LRN": [(2, "composite: PowScalar, SumPooling, MulScalar, AddScalar, PowScalar, Div2")],
        "MaxPool": [(3, "1:1 MaxPooling")],
        "Reshape": [(1, "1:1 Reshape")],
        "Gemm": [(3, "1:1 Affine")],
        "Dropout": [(2, "no layer: its input passes on")],
        "Softmax": [(1, "1:1 Softmax")],
    }
    layers = len(read_model(path).project.network("Main").layers)  # the import itself
    assert layers == 5 + 7 + 2 * 6 + 3 + 1 + 3 + 1 + 1  # (+ the Input)
    last = done.stdout.splitlines()[-1]
    assert last == f"imports as {layers} layers (nothing written: --summary)"


def _refused_model(path: Path) -> None:
    """Gemm with a per-sample bias (refused by its rule), Hardmax (no layer), a Mul by a
    per-channel constant folded into the Conv before it, a Relu after the refused nodes."""
    from onnx import TensorProto, helper, numpy_helper

    inits = {
        "W": np.ones((4, 3), np.float32),
        "C": np.ones((2, 3), np.float32),
        "K": np.ones((2, 1, 1, 1), np.float32),
        "s": np.full((1, 2, 1, 1), 3, np.float32),
    }
    nodes = [helper.make_node("Conv", ["img", "K"], ["c"], name="conv"),
             helper.make_node("Mul", ["c", "s"], ["cs"], name="scale"),
             helper.make_node("Gemm", ["x", "W", "C"], ["h"], name="fc"),
             helper.make_node("Hardmax", ["h"], ["m"], name="hm"),
             helper.make_node("Relu", ["m"], ["y"], name="relu")]  # fmt: skip
    graph = helper.make_graph(
        nodes, "g",
        [helper.make_tensor_value_info("img", TensorProto.FLOAT, ["N", 1, 3, 3]),
         helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 4])],
        [helper.make_tensor_value_info("cs", TensorProto.FLOAT, None),
         helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
        [numpy_helper.from_array(v, k) for k, v in inits.items()],
    )  # fmt: skip
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), path)


def test_summary_names_each_refusal_with_its_reason_and_exits_non_zero(tmp_path):
    path = tmp_path / "bad.onnx"
    _refused_model(path)
    done = _cli("import", "--summary", str(path), cwd=tmp_path)
    assert done.returncode == 2
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.onnx"]
    assert _rows(done.stdout) == {
        "Conv": [(1, "1:1 Convolution")],
        "Mul": [(1, "folded into the Convolution before it")],
        "Relu": [(1, "1:1 ReLU")],
        "Gemm": [(1, "refused: a bias C of shape (2, 3) (one row per sample) has no NNC "
                     "equivalent; Affine takes one of shape (3,) or (1, 3)")],
        "Hardmax": [(1, "refused: no NNC layer for this operator")],
    }  # fmt: skip
    assert done.stdout.splitlines()[-1] == ('does not import: 2 node(s) refused: Gemm (node '
                                            '"fc"), Hardmax (node "hm")')  # fmt: skip
    assert done.stderr.strip() == (f"neurocanvas import: error: {path}: does not import "
                                   "(2 node(s) refused)")  # fmt: skip
    # the import itself stops at the first problem, naming every operator without a layer
    done = _cli("import", str(path), "-o", str(tmp_path / "p.ncproj"), cwd=tmp_path)
    assert done.returncode == 2 and 'Hardmax (node "hm")' in done.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.onnx"]


def test_summary_as_json(tmp_path):
    path = tmp_path / "bad.onnx"
    _refused_model(path)
    done = _cli("import", "--summary", "--json", str(path), cwd=tmp_path)
    assert done.returncode == 2
    got = json.loads(done.stdout)
    assert (got["imports"], got["layers"], got["opset"]) == (False, None, 17)
    assert got["inputs"] == {"img": [1, 3, 3], "x": [4]}
    kinds = {n["node"]: (n["kind"], n["layers"]) for n in got["nodes"]}
    assert kinds == {
        "conv": ("1:1", ["Convolution"]),
        "scale": ("folded into", ["Convolution"]),
        "fc": ("refused", []),
        "hm": ("refused", []),
        "relu": ("1:1", ["ReLU"]),
    }


def test_a_constant_output_and_a_file_that_is_not_onnx(tmp_path):
    from onnx import TensorProto, helper

    graph = helper.make_graph(
        [helper.make_node("Shape", ["x"], ["y"], name="shape")], "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 4])],
        [helper.make_tensor_value_info("y", TensorProto.INT64, None)],
    )  # fmt: skip
    path = tmp_path / "const.onnx"
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), path)
    done = _cli("import", "--summary", str(path), cwd=tmp_path)
    assert done.returncode == 2
    assert _rows(done.stdout) == {"Shape": [(1, "folded: a constant computed at import")]}
    assert done.stderr.strip().endswith('does not import (the output "y" is a constant (it '
                                        "depends on no input); an NNC network computes its "
                                        "outputs from its inputs)")  # fmt: skip
    junk = tmp_path / "junk.onnx"
    junk.write_bytes(b"\x08\x07garbage")
    done = _cli("import", "--summary", str(junk), cwd=tmp_path)
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1
    assert "not an ONNX model" in done.stderr and "Traceback" not in done.stderr
    done = _cli("import", str(junk), cwd=tmp_path)  # no -o, no --summary
    assert done.returncode == 2
    assert done.stderr.strip() == (
        "neurocanvas import: error: -o PROJECT is required (or --summary to only list what the "
        "model would become)"
    )

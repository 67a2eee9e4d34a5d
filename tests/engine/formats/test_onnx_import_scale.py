"""ONNX import does work linear in the graph's size (issue 29 item 7: a chain of 10,000 Relu
nodes took 5 minutes, the network model rebuilding its views and scanning its links once per
layer and link added). Work is counted, never timed."""

from __future__ import annotations

import numpy as np
import pytest
from model_kit import outputs

import engine.formats.onnx_import as onnx_import
from engine.cli import main
from engine.graph.network import Link, Network
from engine.model_import import read_model

onnx = pytest.importorskip("onnx", reason="onnx not installed")


def _chain(n: int, path):
    from onnx import TensorProto, helper

    names = ["x", *(f"t{i}" for i in range(1, n)), "y"]
    nodes = [helper.make_node("Relu", [names[i]], [names[i + 1]], name=f"relu_{i}")
             for i in range(n)]  # fmt: skip
    graph = helper.make_graph(
        nodes, "chain", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 4])],
    )  # fmt: skip
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), path)
    return path


def test_a_chain_of_10000_nodes_imports_with_work_linear_in_its_size(tmp_path, monkeypatch):
    n = 10_000
    path = _chain(n, tmp_path / "chain.onnx")
    work = {"view rows": 0, "link comparisons": 0}
    views, equal = Network._views, Link.__eq__

    def counted_views(self):
        if self._cache is None:  # a rebuild reads every layer and link
            work["view rows"] += len(self._layers) + len(self._links)
        return views(self)

    def counted_equal(self, other):
        work["link comparisons"] += 1
        return equal(self, other)

    monkeypatch.setattr(Network, "_views", counted_views)
    monkeypatch.setattr(Link, "__eq__", counted_equal)
    imported = read_model(path)
    net = imported.project.network("Main")
    assert len(net.layers) == n + 1 and len(net.links) == n
    assert [layer.type for layer in net.layers[:2]] == ["Input", "ReLU"]
    # before: about n^2 = 10^8 view rows (a rebuild per layer and link added) and n^2 / 2
    # link comparisons
    assert work["view rows"] <= 20 * n, work
    assert work["link comparisons"] <= n, work
    x = np.array([[-1.0, 0.5, 2.0, -3.0]], np.float32)
    got = outputs(imported.project, "Main", imported.parameters, {"x": x})[0]
    np.testing.assert_array_equal(got, np.maximum(x, 0))


def test_a_graph_above_the_node_limit_is_one_line(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(onnx_import, "MAX_NODES", 50)
    path = _chain(51, tmp_path / "big.onnx")
    out = tmp_path / "p.ncproj"
    assert main(["import", str(path), "-o", str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.endswith(f"{path}: 51 nodes; the importer takes at most 50 (a canvas that size "
                        "cannot be edited)")  # fmt: skip
    assert not out.exists()

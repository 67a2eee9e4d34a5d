"""Property-based fuzzing of imported model files (issue 29): ``.nnp`` archives (member sizes,
HDF5 features, parameter shapes, the network text) and ``.onnx`` models (initializer sizes and
data, graph sizes), mutated by Hypothesis and given to ``neurocanvas import``.

An imported file is untrusted. Every outcome must be a success or one clean line with a
non-zero exit, never an exception, never a hang, with bounded memory (the machine has 512 MiB
free for parameters; the test's peak memory may grow by less than 1.5 GiB in all), and a
refused import writes nothing. Examples are derandomized, so a failure reproduces.
"""

from __future__ import annotations

import io
import resource
import tempfile
import zipfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_fuzz_inputs import NASTY, ROOT, assert_clean, fuzz_settings, mutated_lines, run_cli

from engine.export import Source, export_nnp, export_onnx
from engine.formats import load_project

h5py = pytest.importorskip("h5py", reason="h5py writes the .h5 members")
onnx = pytest.importorskip("onnx", reason="onnx writes the .onnx models")
from onnx import helper, numpy_helper  # noqa: E402 - after the skip above

LENET = ROOT / "projects" / "lenet_digits.ncproj"
SIZES = [-(2**63), -1, 0, 1, 3, 7, 2**31, 2**32, 2**40, 2**62]


@pytest.fixture(scope="module")
def lenet_files(tmp_path_factory) -> tuple[bytes, bytes]:
    """LeNet as an ``.nnp`` and as an ``.onnx`` (fresh parameters)."""
    tmp = tmp_path_factory.mktemp("lenet")
    project = load_project(LENET)
    nnp = export_nnp(Source(project, "l", "MainRuntime", None, True), tmp / "l.nnp")
    onnx_file = export_onnx(Source(project, "l", "MainRuntime", None, True), tmp / "l.onnx")
    return nnp.read_bytes(), onnx_file.read_bytes()


@pytest.fixture
def small_machine(monkeypatch):
    from engine.runtime import program

    monkeypatch.setattr(program, "available_memory", lambda: 512 * 2**20)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux
    yield
    grown = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - peak
    assert grown < 1.5 * 2**20, f"peak memory grew by {grown / 2**20:.2f} GiB"


def _import_cleanly(name: str, data: bytes, must_fail: bool = False) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        model, out = Path(tmp) / name, Path(tmp) / "out" / "m.ncproj"
        model.write_bytes(data)
        code, lines = run_cli("import", str(model), "-o", str(out))
        assert_clean(code, lines, "import")
        assert not (must_fail and code == 0), "a hostile member was imported"
        if code != 0:  # a refused import leaves nothing behind
            assert not (Path(tmp) / "out").exists() or not any((Path(tmp) / "out").iterdir())


def _members(nnp: bytes) -> dict[str, bytes]:
    with zipfile.ZipFile(io.BytesIO(nnp)) as archive:
        return {name: archive.read(name) for name in archive.namelist()}


def _zip(members: dict[str, bytes]) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return out.getvalue()


# -- .nnp ------------------------------------------------------------------------------------


@st.composite
def h5_member(draw: st.DrawFn, params: dict[str, np.ndarray]) -> tuple[bytes, bool]:
    """nnabla's ``parameter.h5`` with one parameter written a hostile way, and whether that
    way must be refused (values from outside the file, not numbers, never written)."""
    target = draw(st.sampled_from(sorted(params)))
    how = draw(st.sampled_from(["external", "virtual", "soft", "string", "compound", "fill",
                                "huge-fill", "shape", "index", "plain"]))  # fmt: skip
    buffer = io.BytesIO()
    with tempfile.TemporaryDirectory() as tmp, h5py.File(buffer, "w") as f:
        outside = Path(tmp) / "outside.bin"
        outside.write_bytes(b"\x00" * 4096)
        for index, (name, value) in enumerate(params.items()):
            if name != target or how == "plain":
                f.create_dataset(name, data=value)
            elif how == "external":
                f.create_dataset(name, shape=value.shape, dtype="<f4",
                                 external=[("/etc/passwd", 0, value.nbytes)])  # fmt: skip
            elif how == "virtual":
                layout = h5py.VirtualLayout(shape=value.shape, dtype="<f4")
                layout[:] = h5py.VirtualSource(str(outside), "data", shape=value.shape)
                f.create_virtual_dataset(name, layout)
            elif how == "soft":
                f["stash"] = value
                f[name] = h5py.SoftLink("/stash")
            elif how == "string":
                f.create_dataset(name, data=np.array([b"abc"] * value.size))
            elif how == "compound":
                f.create_dataset(name, data=np.zeros(value.shape, [("a", "<f4"), ("b", "<i4")]))
            elif how == "fill":
                f.create_dataset(name, shape=value.shape, dtype="<f4")
            elif how == "huge-fill":
                f.create_dataset(name, shape=(2**20, 2**20), dtype="<f4", chunks=(1, 1024))
            else:  # another shape, or an index attribute that is not a number
                shape = (value.size + draw(st.integers(-1, 1)) or 1,) if how == "shape" else None
                f.create_dataset(name, data=np.zeros(shape, "<f4") if shape else value)
            if isinstance(f.get(name, getlink=True), h5py.HardLink):
                f[name].attrs["index"] = draw(st.sampled_from(["abc", 1.5, -1, index])) if (
                    name == target and how == "index") else index  # fmt: skip
    return buffer.getvalue(), how not in ("plain", "shape", "index")


@settings(fuzz_settings, max_examples=30)
@given(data=st.data())
def test_mutated_nnp_archives_import_cleanly(small_machine, lenet_files, data) -> None:
    from engine.model_import import read_model

    nnp, _ = lenet_files
    members = _members(nnp)
    what = data.draw(st.sampled_from(["nntxt", "protobuf", "h5", "bomb", "truncate"]))
    if what == "nntxt":
        text = members["network.nntxt"].decode()
        members["network.nntxt"] = data.draw(mutated_lines(text, ":")).encode()
    elif what == "protobuf":
        raw = bytearray(members["parameter.protobuf"])
        for _ in range(data.draw(st.integers(1, 8))):
            raw[data.draw(st.integers(0, len(raw) - 1))] = data.draw(st.integers(0, 255))
        members["parameter.protobuf"] = bytes(raw)
    elif what == "h5":
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "l.nnp"
            path.write_bytes(nnp)
            params = read_model(path).parameters
        del members["parameter.protobuf"]
        members["parameter.h5"], must_fail = data.draw(h5_member(params))
        _import_cleanly("m.nnp", _zip(members), must_fail)
        return
    elif what == "bomb":  # a member that inflates far beyond its compressed size
        name = data.draw(st.sampled_from(["network.nntxt", "parameter.protobuf"]))
        members[name] = members[name] + b" " * data.draw(st.sampled_from([2**20, 300 * 2**20]))
    else:
        nnp_bytes = _zip(members)
        _import_cleanly("m.nnp", nnp_bytes[: data.draw(st.integers(0, len(nnp_bytes)))])
        return
    _import_cleanly("m.nnp", _zip(members))


# -- .onnx -----------------------------------------------------------------------------------


@settings(fuzz_settings, max_examples=30)
@given(data=st.data())
def test_mutated_onnx_models_import_cleanly(small_machine, lenet_files, data) -> None:
    _, onnx_bytes = lenet_files
    model = onnx.load_from_string(onnx_bytes)
    what = data.draw(st.sampled_from(["dims", "data", "raw", "attribute", "chain"]))
    if what == "chain":  # graph size: a chain of Relu nodes
        n = data.draw(st.sampled_from([1, 10, 2_000]))
        nodes = [helper.make_node("Relu", [f"t{k}"], [f"t{k + 1}"]) for k in range(n)]
        graph = helper.make_graph(
            nodes, "chain", [helper.make_tensor_value_info("t0", onnx.TensorProto.FLOAT, [1, 4])],
            [helper.make_tensor_value_info(f"t{n}", onnx.TensorProto.FLOAT, [1, 4])],
        )  # fmt: skip
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    elif model.graph.initializer:
        init = data.draw(st.sampled_from(list(model.graph.initializer)))
        if what == "dims":
            k = data.draw(st.integers(0, len(init.dims) - 1))
            init.dims[k] = data.draw(st.sampled_from(SIZES))
        elif what == "data":  # declared dims with the values gone, or too few
            value = numpy_helper.to_array(init)
            keep = data.draw(st.sampled_from([0, 1, value.size // 2]))
            init.ClearField("raw_data")
            init.ClearField("float_data")
            init.float_data.extend(value.reshape(-1)[:keep].tolist())
        elif what == "raw":
            raw = bytearray(init.raw_data or numpy_helper.to_array(init).tobytes())
            cut = data.draw(st.integers(0, len(raw)))
            init.raw_data = bytes(raw[:cut])
            init.ClearField("float_data")
        else:
            node = data.draw(st.sampled_from(list(model.graph.node)))
            if node.attribute:
                attr = data.draw(st.sampled_from(list(node.attribute)))
                if attr.ints:
                    attr.ints[0] = data.draw(st.sampled_from(SIZES))
                elif attr.type == onnx.AttributeProto.INT:
                    attr.i = data.draw(st.sampled_from(SIZES))
                else:
                    attr.s = data.draw(st.sampled_from(NASTY)).encode("utf-8", "replace")
    _import_cleanly("m.onnx", model.SerializeToString())

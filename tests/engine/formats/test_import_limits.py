"""Imported files are untrusted: sizes and shapes are checked before memory is asked for
(issue 29 items 2 and 6). Each hostile file is one line naming the file and member or
parameter, never a traceback, a MemoryError or gigabytes of RSS."""

from __future__ import annotations

import io
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest
import runtime_kit

from engine.formats.nnabla import nnp_read
from engine.formats.nnabla.schema import message_class
from engine.model_import import ImportError_, read_model

ROOT = Path(__file__).resolve().parents[3]


def _nnp(tmp_path, parameters=None, text=None, extra=None, name="m.nnp"):
    """An .nnp of a 4-8-3 MLP (NNP writer of the engine, then members replaced)."""
    from engine.runtime.results import project_nnp

    train, valid = runtime_kit.blobs(tmp_path, rows=8)
    data = project_nnp(runtime_kit.mlp_project(train, valid), None)
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        members = {n: z.read(n) for n in z.namelist()}
    if text is not None:
        members["network.nntxt"] = text
    if parameters is not None:
        members["parameter.protobuf"] = parameters
    members.update(extra or {})
    path = tmp_path / name
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for key, value in members.items():
            z.writestr(key, value)
    return path


def _protobuf(*params):
    proto = message_class()()
    for name, dims, values in params:
        p = proto.parameter.add()
        p.variable_name = name
        p.shape.dim.extend(dims)
        p.data.extend(values)
    return proto.SerializeToString()


def _bomb(size):
    """``size`` spaces, deflated (a few hundred bytes per megabyte)."""
    return b" " * size


def _refused(path, *expected):
    with pytest.raises(ImportError_) as info:
        read_model(path)
    message = str(info.value)
    assert "\n" not in message and all(e in message for e in expected), message
    return message


def test_a_network_definition_that_inflates_past_the_cap_is_refused(tmp_path, monkeypatch):
    """Item 2: a 21 MB .nnp whose network.nntxt inflated to 4.5 GiB reached 3.2 GB RSS and a
    MemoryError. The cap (256 MB; 1 MB here) is read from the archive's directory first."""
    monkeypatch.setattr(nnp_read, "MAX_TEXT_BYTES", 2**20)
    path = _nnp(tmp_path, text=_bomb(5 * 2**20))
    assert path.stat().st_size < 64 * 1024
    _refused(path, f"{path}:network.nntxt: inflates to 5,242,880 bytes, more than 1,048,576 "
                   f"bytes, the most a network definition may take")  # fmt: skip


def test_a_parameter_file_that_inflates_past_the_memory_cap_is_refused(tmp_path, monkeypatch):
    """Item 2 for parameter.protobuf: more than a quarter of the memory left (40 MB here)."""
    import engine.core.backend as backend

    monkeypatch.setattr(backend, "host_memory", lambda: 40 * 2**20)
    path = _nnp(tmp_path, parameters=_bomb(20 * 2**20))
    _refused(path, f"{path}:parameter.protobuf: inflates to 20,971,520 bytes, more than "
                   f"10,485,760 bytes, the most a parameter file")  # fmt: skip


@pytest.mark.parametrize(
    "dims, values, expected",
    [
        ((-1, -784), [0.0] * 784, "shape (-1, -784) has a negative size"),
        (
            (2**32, 2**32),
            [],
            "shape (4294967296, 4294967296) has 18,446,744,073,709,551,616 values, past int64",
        ),  # fmt: skip
        ((3, 3), [1.0] * 4, "4 values for shape (3, 3)"),
    ],
)
def test_nnp_parameter_shapes_are_checked_before_allocating(tmp_path, dims, values, expected):
    """Item 6: NNP parameter shapes (-1, -784) and (2^32, 2^32) (whose NumPy product overflows
    to 0, matching no data) ended in reshape tracebacks."""
    path = _nnp(tmp_path, parameters=_protobuf(("Affine/affine/W", dims, values)))
    _refused(path, 'parameter "Affine/affine/W"', expected)


def _h5(build):
    import h5py

    buffer = io.BytesIO()
    with h5py.File(buffer, "w") as f:
        build(f)
    return buffer.getvalue()


@pytest.mark.parametrize(
    "build, expected",
    [
        (
            lambda f: f.create_dataset("W", data=np.zeros((4, 8), "f4")).attrs.create(
                "index", "abc"
            ),
            'attribute "index" is not an integer',
        ),  # fmt: skip
        (lambda f: f.create_dataset("W", data=np.array([b"abc", b"def"])), "not numeric"),
        (
            lambda f: f.create_dataset("W", data=np.zeros(3, [("a", "f4"), ("b", "i4")])),
            "not numeric",
        ),  # fmt: skip
        (
            lambda f: f.create_dataset("W", shape=(40000, 40000), dtype="f4"),
            "holds no values (only a fill value)",
        ),  # fmt: skip
    ],
)
def test_h5_parameters_that_are_not_plain_numbers_are_refused(tmp_path, build, expected):
    """Item 6: an ``index`` attribute 'abc', string data, a compound dtype, and a dataset of
    fill value only that expands to 5.96 GiB ended in tracebacks."""
    path = _nnp(tmp_path, extra={"parameter.h5": _h5(build)})
    _refused(path, f'{path}:parameter.h5: "W"', expected)


def test_onnx_initializer_declaring_huge_dims_with_no_data_is_one_line(tmp_path):
    """Item 6: an initializer declaring 10^6 x 10^6 values and holding none."""
    from onnx import TensorProto, helper, save

    weight = TensorProto(name="W", data_type=TensorProto.FLOAT, dims=[10**6, 10**6])
    node = helper.make_node("MatMul", ["x", "W"], ["y"])
    x = helper.make_tensor_value_info("x", 1, [1, 10**6])
    y = helper.make_tensor_value_info("y", 1, [1, 10**6])
    graph = helper.make_graph([node], "g", [x], [y], [weight])
    path = tmp_path / "huge.onnx"
    save(helper.make_model(graph), str(path))
    _refused(path, f'{path}: initializer "W": declares shape (1000000, 1000000) '
                   f"(1,000,000,000,000 values) but holds 0")  # fmt: skip
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-m", "engine.cli", "import", str(path), "-o",
                           str(tmp_path / "p.ncproj")], capture_output=True, text=True, env=env,
                          timeout=300)  # fmt: skip
    assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
    assert not (tmp_path / "p.ncproj").exists()

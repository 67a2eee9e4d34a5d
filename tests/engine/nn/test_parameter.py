import io
import os
import pickle
import zipfile

import numpy as np
import pytest

import engine.nn as nn
from engine.nn import initializer as I
from engine.nn.parameter_file import load_arrays


@pytest.fixture(autouse=True)
def _fresh_parameters():
    nn.clear_parameters()
    yield
    nn.clear_parameters()


def test_scopes_nest_and_names_are_paths():
    with nn.parameter_scope("net"):
        with nn.parameter_scope("conv1/conv"):
            w = nn.get_parameter_or_create("W", (2, 3), I.Constant(1.0))
        assert nn.get_parameters() == {"conv1/conv/W": w}
    assert nn.get_parameters() == {"net/conv1/conv/W": w}
    assert w.name == "net/conv1/conv/W"
    assert nn.get_parameter("net/conv1/conv/W") is w


def test_same_name_is_the_same_variable_across_networks():
    def network():
        with nn.parameter_scope("Affine"):
            return nn.get_parameter_or_create("affine/W", (4, 2), I.NormalAffineGlorot())

    a, b = network(), network()  # e.g. the training and the validation network
    assert a is b


def test_empty_scope_adds_no_level():
    with nn.parameter_scope(""):
        w = nn.get_parameter_or_create("W", (1,))
    assert nn.get_parameters() == {"W": w}


def test_shape_mismatch_names_the_parameter():
    nn.get_parameter_or_create("x/W", (2, 3))
    with pytest.raises(ValueError, match=r"'x/W'.*\(2, 3\).*\(3, 3\)"):
        nn.get_parameter_or_create("x/W", (3, 3))


def test_grad_only_filters_and_clear_removes():
    w = nn.get_parameter_or_create("W", (2,))
    m = nn.get_parameter_or_create("mean", (2,), need_grad=False)
    assert nn.get_parameters() == {"W": w}
    assert nn.get_parameters(grad_only=False) == {"W": w, "mean": m}
    with nn.parameter_scope("sub"):
        nn.get_parameter_or_create("b", (1,))
        nn.clear_parameters()
        assert nn.get_parameters() == {}
    assert set(nn.get_parameters(grad_only=False)) == {"W", "mean"}


def test_initializer_array_and_number():
    w = nn.get_parameter_or_create("W", None, np.arange(6.0).reshape(2, 3))
    assert w.shape == (2, 3) and w.data.dtype == np.float32 and w.data[1, 2] == 5
    c = nn.get_parameter_or_create("c", (2,), 0.5)
    np.testing.assert_array_equal(c.data, [0.5, 0.5])


def test_as_need_grad_returns_an_unlinked_view_sharing_data():
    w = nn.get_parameter_or_create("W", (3,), I.Constant(1.0))
    fixed = nn.get_parameter_or_create("W", (3,), as_need_grad=False)
    assert fixed is not w and not fixed.need_grad and w.need_grad
    w.data -= 0.5  # solver updates are in place
    np.testing.assert_array_equal(fixed.data, [0.5, 0.5, 0.5])


def test_lr_multiplier_zero_freezes_and_first_definition_wins():
    w = nn.get_parameter_or_create("W", (2,), lr_mult=0)
    assert not w.need_grad and nn.get_lr_multiplier(w) == 0.0
    again = nn.get_parameter_or_create("W", (2,), lr_mult=2.0)
    assert again is w and nn.get_lr_multiplier("W") == 0.0
    assert nn.get_parameters() == {}
    b = nn.get_parameter_or_create("b", (2,), lr_mult=2.5)
    assert b.need_grad and nn.get_lr_multipliers() == {"W": 0.0, "b": 2.5}
    nn.set_lr_multiplier("b", 0)
    assert not b.need_grad
    with pytest.raises(ValueError, match="lr_mult"):
        nn.get_parameter_or_create("c", (1,), lr_mult=-1)


def test_save_load_round_trip(tmp_path):
    path = tmp_path / "params.npz"
    with nn.parameter_scope("A"):
        w = nn.get_parameter_or_create("affine/W", (3, 2), I.NormalAffineGlorot())
        nn.get_parameter_or_create("bn/mean", (2,), I.Constant(0.5), need_grad=False)
        nn.get_parameter_or_create("affine/b", (2,), lr_mult=0.5)
    nn.save_parameters(path)
    saved = w.data.copy()
    assert os.listdir(tmp_path) == ["params.npz"]  # the temporary file was renamed
    nn.clear_parameters()
    loaded = nn.load_parameters(path)
    assert set(loaded) == {"A/affine/W", "A/bn/mean", "A/affine/b"}
    np.testing.assert_array_equal(nn.get_parameter("A/affine/W").data, saved)
    assert not loaded["A/bn/mean"].need_grad and loaded["A/affine/W"].need_grad
    assert nn.get_lr_multiplier("A/affine/b") == 0.5


def test_load_overwrites_existing_in_place_and_into_the_current_scope(tmp_path):
    path = tmp_path / "p.npz"
    with nn.parameter_scope("src"):
        nn.get_parameter_or_create("W", (2,), I.Constant(3.0))
        nn.save_parameters(path)
    with nn.parameter_scope("dst"):
        w = nn.get_parameter_or_create("W", (2,), I.Constant(0.0))
        view = nn.get_parameter_or_create("W", (2,), as_need_grad=False)
        nn.load_parameters(path)
    np.testing.assert_array_equal(view.data, [3.0, 3.0])
    assert nn.get_parameter("dst/W") is w


def test_load_shape_mismatch_names_file_and_parameter(tmp_path):
    path = tmp_path / "p.npz"
    nn.get_parameter_or_create("W", (2,))
    nn.save_parameters(path)
    nn.clear_parameters()
    nn.get_parameter_or_create("W", (3,))
    with pytest.raises(nn.ParameterFileError, match=r"p\.npz.*'W'"):
        nn.load_parameters(path)


def test_a_per_sample_buffer_loads_any_number_of_rows(tmp_path):
    """NNC's WorkingMemory: one row per sample, so a saved batch of 3 replaces a one-row
    buffer (the same Variable, shared by name); a value saved without the batch axis is one
    row; the sample shape still has to agree."""
    path = tmp_path / "p.npz"
    rows = np.arange(12, dtype=np.float32).reshape(3, 4)
    nn.get_parameter_or_create("mem", (3, 4), rows, need_grad=False, lr_mult=0.0, per_sample=True)
    nn.save_parameters(path)
    nn.clear_parameters()
    mem = nn.get_parameter_or_create("mem", (1, 4), I.Constant(0.0), per_sample=True)
    assert nn.get_parameter_or_create("mem", (5, 4)) is mem  # any rows of the same sample
    nn.load_parameters(path)
    assert nn.get_parameter("mem") is mem
    np.testing.assert_array_equal(mem.data, rows)
    nn.clear_parameters()
    nn.load_parameters(path)  # into an empty scope: still per sample
    assert nn.get_parameter_info(nn.get_parameter("mem")).per_sample
    old = tmp_path / "old.npz"
    np.savez(old, mem=np.ones(4, np.float32))
    nn.load_parameters(old)
    np.testing.assert_array_equal(nn.get_parameter("mem").data, np.ones((1, 4)))
    np.savez(old, mem=np.ones((2, 5), np.float32))
    with pytest.raises(nn.ParameterFileError, match=r"'mem' has shape \(2, 5\)"):
        nn.load_parameters(old)
    with pytest.raises(ValueError, match="shapes must agree"):
        nn.get_parameter_or_create("mem", (1, 5))


def test_plain_npz_archive_is_accepted(tmp_path):
    path = tmp_path / "plain.npz"
    np.savez(path, **{"conv/W": np.ones((2, 2), np.float32)})
    nn.load_parameters(path)
    np.testing.assert_array_equal(nn.get_parameter("conv/W").data, np.ones((2, 2)))


class _Evil:
    def __reduce__(self):
        return (os.system, ("echo pwned > /dev/null",))


def test_pickle_payload_is_refused(tmp_path):
    path = tmp_path / "evil.npz"
    path.write_bytes(pickle.dumps(_Evil()))
    with pytest.raises(nn.ParameterFileError, match="evil.npz"):
        nn.load_parameters(path)


def test_object_array_inside_npz_is_refused(tmp_path):
    path = tmp_path / "obj.npz"
    np.savez(path, W=np.array([_Evil()], dtype=object))
    with pytest.raises(nn.ParameterFileError, match="obj.npz"):
        nn.load_parameters(path)


def test_corrupt_and_foreign_files_give_clear_errors(tmp_path):
    nn.get_parameter_or_create("W", (50,), I.Normal())
    good = tmp_path / "good.npz"
    nn.save_parameters(good)
    cut = tmp_path / "cut.npz"
    cut.write_bytes(good.read_bytes()[:200])
    text = tmp_path / "text.npz"
    text.write_text("hello")
    for bad in (cut, text, tmp_path / "missing.npz"):
        with pytest.raises(nn.ParameterFileError, match=bad.name):
            nn.load_parameters(bad)
    with pytest.raises(nn.ParameterFileError, match="HDF5"):
        nn.load_parameters(tmp_path / "x.h5")


def test_corrupt_metadata_is_reported(tmp_path):
    path = tmp_path / "meta.npz"
    np.savez(path, __neurocanvas_meta__=np.frombuffer(b"{not json", np.uint8), p0=np.ones(1))
    with pytest.raises(nn.ParameterFileError, match="corrupt metadata"):
        nn.load_parameters(path)


def test_metadata_with_wrong_types_is_reported(tmp_path):
    from engine.nn.parameter_file import save_arrays

    path = tmp_path / "m.npz"
    meta = {
        "format": "neurocanvas-parameters",
        "version": 1,
        "parameters": [{"name": "W", "key": [1]}],
    }
    save_arrays(path, {"p0": np.ones(2)}, meta)
    with pytest.raises(nn.ParameterFileError, match="corrupt parameter entry"):
        nn.load_parameters(path)
    save_arrays(path, {"p0": np.ones(2)}, {**meta, "version": 99})
    with pytest.raises(nn.ParameterFileError, match="version 99"):
        nn.load_parameters(path)


def test_save_replaces_an_existing_file_atomically(tmp_path):
    path = tmp_path / "p.npz"
    w = nn.get_parameter_or_create("W", (2,), I.Constant(1.0))
    nn.save_parameters(path)
    w.data[...] = 7.0
    nn.save_parameters(path)
    with zipfile.ZipFile(path) as z:
        assert "p0.npy" in z.namelist()
    nn.clear_parameters()
    nn.load_parameters(path)
    np.testing.assert_array_equal(nn.get_parameter("W").data, [7.0, 7.0])
    assert sorted(os.listdir(tmp_path)) == ["p.npz"]


def _npz_with(path, members):
    """An uncompressed .npz whose members are the given raw .npy bytes."""
    with zipfile.ZipFile(path, "w") as archive:
        for name, data in members.items():
            archive.writestr(name + ".npy", data)


def _npy_bytes(array, header=None):
    buffer = io.BytesIO()
    np.save(buffer, array)
    data = buffer.getvalue()
    if header is None:
        return data
    size = int.from_bytes(data[8:10], "little")
    text = header.ljust(size - 1).encode("latin1") + b"\n"
    return data[:8] + len(text).to_bytes(2, "little") + text + data[10 + size :]


def test_load_arrays_reads_every_plain_layout_as_np_load_does(tmp_path):
    """The header parser that skips NumPy's literal_eval, against np.load: Fortran order, 0-d,
    empty, big-endian, bool, integers, a header spaced otherwise (NumPy's parser) and a
    version 2.0 header; every array writable."""
    rng = np.random.default_rng(0)
    arrays = {
        "fortran": np.asfortranarray(rng.standard_normal((3, 4)).astype(np.float32)),
        "scalar": np.float32(2.5) * np.ones((), np.float32),
        "empty": np.zeros((0, 3), np.float32),
        "big_endian": np.arange(6, dtype=">f4").reshape(2, 3),
        "flags": np.array([True, False, True]),
        "ints": np.arange(-3, 3, dtype=np.int16),
        "wide": rng.standard_normal((2, 2, 2)),
    }
    members = {k: _npy_bytes(v) for k, v in arrays.items()}
    odd = np.arange(4, dtype=np.float32)
    members["spaced"] = _npy_bytes(odd, "{'descr':'<f4','fortran_order':False,'shape':(4,)}")
    v2 = _npy_bytes(odd)
    size = int.from_bytes(v2[8:10], "little")
    head, body = v2[10 : 10 + size - 2], v2[10 + size :]  # 2 bytes of padding less
    members["v2"] = b"\x93NUMPY\x02\x00" + (size - 2).to_bytes(4, "little") + head + body
    path = tmp_path / "layouts.npz"
    _npz_with(path, members)
    loaded, meta = load_arrays(path)
    reference = dict(np.load(path))
    assert meta is None and set(loaded) == set(reference) == set(arrays) | {"spaced", "v2"}
    for key, want in reference.items():
        got = loaded[key]
        assert got.dtype == want.dtype and got.shape == want.shape, key
        assert np.array_equal(got, want) and got.flags.writeable, key
    assert loaded["fortran"][1, 2] == arrays["fortran"][1, 2]
    assert loaded["v2"].tolist() == [0.0, 1.0, 2.0, 3.0]


def test_damaged_array_bytes_are_refused_with_the_file_named(tmp_path):
    """A flipped byte in a stored member fails the archive's CRC: one line naming the file."""
    path = tmp_path / "p.npz"
    nn.save_parameters(path, {"w": nn.Variable(np.arange(64, dtype=np.float32))})
    data = bytearray(path.read_bytes())
    at = data.index(np.arange(64, dtype=np.float32)[40:44].tobytes())
    data[at] ^= 0xFF
    path.write_bytes(bytes(data))
    with pytest.raises(nn.ParameterFileError, match=r"p\.npz: not a readable \.npz archive"):
        nn.load_parameters(path)

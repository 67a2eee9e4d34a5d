"""An imported ``.nnp`` is untrusted: its ``parameter.h5`` must not reach outside the archive.

HDF5 can point a dataset at other files (external storage, virtual datasets, external links);
h5py follows them when the data is read. Each such member, and anything that is not a plain
numeric dataset, is refused in one line before anything is written (issue 29, item 1).
"""

from __future__ import annotations

import io
import zipfile

import numpy as np
import pytest
from model_kit import PROJECTS

from engine.cli import main
from engine.export import Source, export_nnp
from engine.formats import load_project
from engine.model_import import ImportError_, parameters_path, read_model

h5py = pytest.importorskip("h5py", reason="h5py reads nnabla's .h5 parameter files")

BIAS = "Affine_2/affine/b"  # LeNet's last bias: 10 float32 values, 40 bytes


def _lenet(tmp_path) -> tuple[bytes, dict[str, np.ndarray]]:
    """LeNet as an ``.nnp`` and its parameters (as the protobuf member holds them)."""
    project = load_project(PROJECTS[0].parent / "lenet_digits.ncproj")
    nnp = export_nnp(Source(project, "l", "MainRuntime", None, True), tmp_path / "l.nnp")
    return nnp.read_bytes(), read_model(nnp).parameters


def _h5(params: dict[str, np.ndarray], special=None) -> bytes:
    """nnabla's ``parameter.h5`` layout: a dataset per parameter with an ``index`` attribute;
    ``special(file, name, value)`` writes one parameter its own way (returns False to skip)."""
    buffer = io.BytesIO()
    with h5py.File(buffer, "w") as f:
        for index, (name, value) in enumerate(params.items()):
            if special is None or special(f, name, value) is False:
                f.create_dataset(name, data=value)
            if isinstance(f.get(name, getlink=True), h5py.HardLink):  # a link has no attributes
                f[name].attrs["index"] = index
    return buffer.getvalue()


def _with_h5(nnp: bytes, h5: bytes) -> bytes:
    """The archive with ``parameter.protobuf`` replaced by ``parameter.h5``."""
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(nnp)) as src, zipfile.ZipFile(out, "w") as dst:
        for item in src.namelist():
            if item != "parameter.protobuf":
                dst.writestr(item, src.read(item))
        dst.writestr("parameter.h5", h5)
    return out.getvalue()


def _external(secret):
    def write(f, name, value):
        if name != BIAS:
            return False
        f.create_dataset(name, shape=value.shape, dtype="<f4",
                         external=[(str(secret), 0, value.nbytes)])  # fmt: skip
        return None

    return write


def _virtual(secret_h5):
    def write(f, name, value):
        if name != BIAS:
            return False
        layout = h5py.VirtualLayout(shape=value.shape, dtype="<f4")
        layout[:] = h5py.VirtualSource(str(secret_h5), "data", shape=value.shape)
        f.create_virtual_dataset(name, layout)
        return None

    return write


def _external_link(secret_h5):
    def write(f, name, value):
        if name != BIAS:
            return False
        f[name] = h5py.ExternalLink(str(secret_h5), "data")
        return None

    return write


def _replace(name_to_data):
    def write(f, name, value):
        if name != BIAS:
            return False
        f.create_dataset(name, data=name_to_data(value))
        return None

    return write


def _fill_only(f, name, value):
    """A dataset whose storage was never written: reading it expands the fill value (a
    declared 2**30 x 2**30 would ask for 4 EiB)."""
    if name != BIAS:
        return False
    f.create_dataset(name, shape=value.shape, dtype="<f4")
    return None


def _secret(tmp_path) -> tuple[object, object, np.ndarray]:
    """A local file and a local HDF5 file outside the archive, holding 10 recognisable floats."""
    values = np.arange(1000, 1010, dtype="<f4")
    secret = tmp_path / "secret.bin"
    secret.write_bytes(values.tobytes())
    secret_h5 = tmp_path / "secret.h5"
    with h5py.File(secret_h5, "w") as f:
        f.create_dataset("data", data=values)
    return secret, secret_h5, values


CASES = {
    "external-storage": (lambda s, s5: _external(s), "external storage"),
    "virtual-dataset": (lambda s, s5: _virtual(s5), "virtual dataset"),
    "external-link": (lambda s, s5: _external_link(s5), "a link to another file"),
    "string-data": (lambda s, s5: _replace(lambda v: np.array([b"abc"] * v.size)),
                    "not numeric (dtype |S3)"),
    "compound-dtype": (lambda s, s5: _replace(
        lambda v: np.zeros(v.shape, dtype=[("a", "<f4"), ("b", "<i4")])), "not numeric"),
    "fill-value-only": (lambda s, s5: _fill_only, "holds no values (only a fill value)"),
}  # fmt: skip


@pytest.mark.parametrize("case", list(CASES))
def test_h5_members_that_reach_outside_the_archive_are_refused(case, tmp_path, capsys):
    nnp, params = _lenet(tmp_path)
    secret, secret_h5, _ = _secret(tmp_path)
    make, message = CASES[case]
    bad = tmp_path / "bad.nnp"
    bad.write_bytes(_with_h5(nnp, _h5(params, make(secret, secret_h5))))
    out = tmp_path / "out.ncproj"
    assert main(["import", str(bad), "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1, err
    assert f'parameter.h5: "{BIAS}": ' in err and message in err, err
    assert not out.exists() and not parameters_path(out).exists()
    assert not (tmp_path / "out.files").exists()
    with pytest.raises(ImportError_):
        read_model(bad)


def test_a_soft_link_inside_the_file_is_refused(tmp_path, capsys):
    nnp, params = _lenet(tmp_path)

    def soft(f, name, value):
        if name != BIAS:
            return False
        f["stash"] = value
        f[name] = h5py.SoftLink("/stash")
        return None

    bad = tmp_path / "bad.nnp"
    bad.write_bytes(_with_h5(nnp, _h5(params, soft)))
    assert main(["import", str(bad), "-o", str(tmp_path / "o.ncproj")]) == 2
    err = capsys.readouterr().err
    assert f'"{BIAS}": a link' in err and len(err.strip().splitlines()) == 1, err


def test_an_index_attribute_that_is_not_a_number_is_refused(tmp_path, capsys):
    nnp, params = _lenet(tmp_path)

    def bad_index(f, name, value):
        f.create_dataset(name, data=value)
        f[name].attrs["index"] = "abc"  # overwritten below for all but BIAS
        return None

    h5 = io.BytesIO(_h5(params, bad_index))
    with h5py.File(h5, "r+") as f:
        f[BIAS].attrs["index"] = "abc"
    bad = tmp_path / "bad.nnp"
    bad.write_bytes(_with_h5(nnp, h5.getvalue()))
    assert main(["import", str(bad), "-o", str(tmp_path / "o.ncproj")]) == 2
    err = capsys.readouterr().err
    assert f'"{BIAS}": attribute "index" is not an integer' in err, err


def test_a_plain_h5_archive_imports_with_its_own_values(tmp_path):
    """The reader still takes nnabla's ordinary parameter.h5: every value comes back."""
    nnp, params = _lenet(tmp_path)
    good = tmp_path / "good.nnp"
    good.write_bytes(_with_h5(nnp, _h5(params)))
    got = read_model(good).parameters
    assert set(got) == set(params)
    for name, value in params.items():
        np.testing.assert_array_equal(got[name], value)

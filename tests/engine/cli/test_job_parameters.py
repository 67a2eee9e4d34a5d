"""Every command that reads a job's parameters goes through one checked reader (issue 29 items
3 and 4): a corrupt, forged or oversized ``parameters.npz`` is one line naming the file, exit 2,
no traceback, nothing written, and no array is read before its declared size is checked."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest
import runtime_kit as kit

from engine.cli import main
from engine.formats import save_project

ROOT = Path(__file__).resolve().parents[3]
# A child that runs one command and reports its peak memory (kB) on the last stderr line.
_PEAK = ("import resource, subprocess, sys; r = subprocess.run(sys.argv[1:]); "
         "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, file=sys.stderr); "
         "sys.exit(r.returncode)")  # fmt: skip


@pytest.fixture
def job(tmp_path, monkeypatch):
    """(project, job): the 4-8-3 MLP trained 3 epochs (W of Affine is (4, 8))."""
    monkeypatch.setenv("NEUROCANVAS_CACHE", str(tmp_path / "cache"))
    train_csv, valid_csv = kit.blobs(tmp_path, rows=48)
    save_project(kit.mlp_project(train_csv, valid_csv, batch=8, max_epoch=3), tmp_path / "p.ncproj")
    assert main(["train", str(tmp_path / "p.ncproj"), "-o", str(tmp_path / "job"), "--seed",
                 "0"]) == 0  # fmt: skip
    return tmp_path / "p.ncproj", tmp_path / "job"


def _commands(project, job, out):
    return {
        "evaluate": ["evaluate", job],
        "export python": ["export", "python", job, "-o", out / "m.py"],
        "export onnx": ["export", "onnx", job, "-o", out / "m.onnx"],
        "export nnp": ["export", "nnp", job, "-o", out / "m.nnp"],
        "quantize sweep": [
            "quantize",
            "sweep",
            project,
            "--job",
            job,
            "-o",
            out / "s",
            "--bits",
            "8",
        ],  # fmt: skip
        "forward": ["forward", job, "--input", out / "x.npy"],
    }


def _run(args, peak=False):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    command = [sys.executable, "-m", "engine.cli", *map(str, args)]
    if peak:
        command = [sys.executable, "-c", _PEAK, *command]
    return subprocess.run(command, capture_output=True, text=True, env=env, timeout=300)


def _replace_member(npz: Path, key: str, data: bytes) -> None:
    """Rewrite one member of an .npz (the others as they were)."""
    with zipfile.ZipFile(npz) as z:
        members = {i.filename: z.read(i) for i in z.infolist()}
    members[f"{key}.npy"] = data
    with zipfile.ZipFile(npz, "w", zipfile.ZIP_DEFLATED) as z:
        for name, value in members.items():
            z.writestr(name, value)


def _npy_header(shape, dtype="<f4") -> bytes:
    import io

    buffer = io.BytesIO()
    np.lib.format.write_array_header_1_0(buffer, {"descr": dtype, "fortran_order": False,
                                                  "shape": shape})  # fmt: skip
    return buffer.getvalue()


def _check_all(project, job, tmp_path, expected, peak_kb=None):
    out = tmp_path / "out"
    out.mkdir(exist_ok=True)
    np.save(out / "x.npy", np.zeros(4, np.float32))
    before = sorted(p.name for p in out.iterdir())
    for what, args in _commands(project, job, out).items():
        done = _run(args, peak=peak_kb is not None)
        lines = done.stderr.splitlines()
        if peak_kb is not None:
            peak = int(lines.pop())
            assert peak < peak_kb, f"{what}: {peak} kB"
        assert done.returncode == 2, f"{what}: {done.stderr}"
        assert len(lines) == 1 and "Traceback" not in done.stderr, f"{what}: {done.stderr}"
        assert expected in lines[0], f"{what}: {lines[0]}"
        assert sorted(p.name for p in out.iterdir()) == before, what
    assert not (job / "output_result.csv").exists()


def test_corrupt_parameters_are_one_line_for_every_command(job, tmp_path):
    """Item 4: ``export python`` copied garbage and exited 0; ``export onnx/nnp`` ended in a
    ParameterFileError traceback."""
    project, folder = job
    best = folder / "checkpoints" / "best" / "parameters.npz"
    best.write_bytes(b"PK\x03\x04" + os.urandom(3000))
    _check_all(project, folder, tmp_path, f"{best}: not a readable .npz archive")


def test_a_forged_npy_header_is_refused_before_anything_is_allocated(job, tmp_path):
    """Item 3: a member whose header declares 10^6 x 10^6 float32 (4 TB) in a file of a few
    bytes ended in an allocation traceback."""
    project, folder = job
    best = folder / "checkpoints" / "best" / "parameters.npz"
    _replace_member(best, "p0", _npy_header((10**6, 10**6)) + b"\0" * 64)
    _check_all(project, folder, tmp_path, f"{best}: array 'p0' declares shape (1000000, 1000000) "
               f"(4,000,000,000,000 bytes) but the archive says it holds 64")  # fmt: skip


def test_a_large_parameter_is_checked_against_the_network_before_it_is_read(job, tmp_path):
    """Item 3: a parameters.npz whose W inflates to 640 MB (a 0.6 MB file) was read whole
    before its shape was compared with the network's (4, 8). Now the header is compared first:
    one line naming both shapes, and no command grows past 400 MB."""
    project, folder = job
    best = folder / "checkpoints" / "best" / "parameters.npz"
    with zipfile.ZipFile(best) as z:
        index = json.loads(np.lib.format.read_array(z.open("__neurocanvas_meta__.npy")).tobytes())
    key = next(p["key"] for p in index["parameters"] if p["shape"] == [4, 8])
    big = np.zeros((40000, 4000), np.float32)  # 640 MB of zeros
    with zipfile.ZipFile(best) as z:
        members = {i.filename: z.read(i) for i in z.infolist() if i.filename != f"{key}.npy"}
    with zipfile.ZipFile(best, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as z:
        for name, value in members.items():
            z.writestr(name, value)
        with z.open(f"{key}.npy", "w", force_zip64=True) as member:
            np.lib.format.write_array(member, big)
    del big
    assert best.stat().st_size < 4 * 2**20
    _check_all(project, folder, tmp_path, "has shape (40000, 4000) in the", peak_kb=400_000)


def test_damaged_best_checkpoint_is_an_error_not_a_silent_fall_back(job, tmp_path):
    """Also seen in issue 29: with ``best/parameters.npz`` a folder (or a link to /dev/zero),
    ``evaluate`` used ``last`` but wrote ``"checkpoint": "best"``. A damaged best is one line;
    a job with no best at all uses last and says so."""
    project, folder = job
    best = folder / "checkpoints" / "best" / "parameters.npz"
    best.unlink()
    best.mkdir()
    done = _run(["evaluate", folder])
    assert done.returncode == 2, done.stderr
    assert done.stderr.strip() == (f"neurocanvas evaluate: error: {best}: not a regular file (a "
                                   f"folder, a device or a broken link): the job's best "
                                   f"parameters are damaged")  # fmt: skip
    best.rmdir()
    best.symlink_to("/dev/zero")
    done = _run(["export", "onnx", folder, "-o", tmp_path / "m.onnx"])
    assert done.returncode == 2 and "not a regular file" in done.stderr, done.stderr
    best.unlink()  # no best file at all: last is the checkpoint, and the summary says so
    assert main(["evaluate", str(folder)]) == 0
    summary = json.loads((folder / "evaluation.json").read_text())
    assert summary["checkpoint"] == "last"

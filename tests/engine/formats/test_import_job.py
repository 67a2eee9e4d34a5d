"""``neurocanvas import`` of a model with parameters also writes a job folder beside the
project (``<stem>.files/<date_time>``) that ``neurocanvas evaluate`` runs at once.

A trained job's ``results.nnp`` and its ONNX export are imported through the CLI; the new
job's evaluation must predict what the original job's evaluation predicted.
"""

from __future__ import annotations

import csv
import json

import disk_limit
import numpy as np
import pytest
import runtime_kit

from engine.cli import main
from engine.formats import save_project


@pytest.fixture
def trained(monkeypatch, tmp_path):
    """A 3-epoch job of the 3-class MLP on tiny blobs, evaluated (its output_result.csv)."""
    monkeypatch.setenv("NEUROCANVAS_CACHE", str(tmp_path / "cache"))
    train_csv, valid_csv = runtime_kit.blobs(tmp_path, rows=48)
    save_project(runtime_kit.mlp_project(train_csv, valid_csv, batch=8, max_epoch=3),
                 tmp_path / "p.ncproj")  # fmt: skip
    job = tmp_path / "job"
    assert main(["train", str(tmp_path / "p.ncproj"), "-o", str(job), "--seed", "0"]) == 0
    assert main(["evaluate", str(job)]) == 0
    return job, valid_csv


def _rows(path):
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.reader(f))


def _predictions(path, first):
    """The output columns (from index ``first``) of an output_result.csv as floats."""
    return np.array([[float(c) for c in row[first:]] for row in _rows(path)[1:]])


def _named_arrays(path):
    """A parameters.npz read with NumPy alone: its JSON index names the arrays."""
    with np.load(path, allow_pickle=False) as npz:
        index = json.loads(bytes(npz["__neurocanvas_meta__"]).decode("utf-8"))
        return {p["name"]: npz[p["key"]] for p in index["parameters"]}


def _new_job(project):
    jobs = sorted(project.with_name(project.stem + ".files").iterdir())
    assert len(jobs) == 1, jobs
    return jobs[0]


def test_nnp_import_job_evaluates_like_the_trained_job(trained, tmp_path, capsys):
    job, _ = trained
    out = tmp_path / "imported" / "model.ncproj"  # a folder that does not exist yet
    capsys.readouterr()
    assert main(["import", str(job / "results.nnp"), "-o", str(out)]) == 0
    new = _new_job(out)
    printed = capsys.readouterr().out.splitlines()
    assert printed[-1] == f"wrote {new}"
    assert (tmp_path / "imported" / "model_parameters.npz").is_file()  # train --params reads it
    assert json.loads((new / "status.json").read_text())["status"] == "finished"
    best = _named_arrays(new / "checkpoints" / "best" / "parameters.npz")
    original = _named_arrays(job / "checkpoints" / "best" / "parameters.npz")
    assert sorted(best) == sorted(original) and len(original) == 4  # W, b of two Affines
    for name, value in original.items():
        np.testing.assert_array_equal(best[name], value)

    assert main(["evaluate", str(new)]) == 0
    assert _rows(new / "output_result.csv") == _rows(job / "output_result.csv")
    assert (new / "confusion_matrix_y.csv").read_bytes() == (
        job / "confusion_matrix_y.csv").read_bytes()  # fmt: skip
    summary = json.loads((new / "evaluation.json").read_text())
    expected = json.loads((job / "evaluation.json").read_text())
    assert summary["classification"] == expected["classification"] != {}


def test_nnp_import_job_fine_tunes_and_refuses_resume(trained, tmp_path, capsys):
    job, _ = trained
    out = tmp_path / "model.ncproj"
    assert main(["import", str(job / "results.nnp"), "-o", str(out)]) == 0
    new = _new_job(out)
    capsys.readouterr()
    assert main(["train", "--resume", str(new)]) != 0  # nothing was trained: no last state
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "checkpoints/last" in err[0], err
    params = new / "checkpoints" / "best" / "parameters.npz"
    tuned = tmp_path / "tuned"
    assert main(["train", str(out), "-o", str(tuned), "--epochs", "1", "--seed", "0",
                 "--params", str(params)]) == 0  # fmt: skip
    assert json.loads((tuned / "status.json").read_text())["status"] == "finished"


def test_onnx_import_job_evaluates_like_the_trained_job(trained, tmp_path, capsys):
    job, valid_csv = trained
    model = tmp_path / "model.onnx"
    assert main(["export", "onnx", str(job), "-o", str(model)]) == 0
    out = tmp_path / "onnx" / "model.ncproj"
    assert main(["import", str(model), "-o", str(out)]) == 0
    new = _new_job(out)
    capsys.readouterr()
    assert main(["evaluate", str(new)]) == 2  # an ONNX model links no dataset: one clear line
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [
        'neurocanvas evaluate: error: dataset "Validation" of the job has no URI (none was '
        "linked when the job was made): evaluate on a dataset CSV or builtin:<name>/<split> "
        "instead (--dataset, the app's Dataset field)"
    ]
    assert main(["evaluate", str(new), "--dataset", str(valid_csv)]) == 0
    header = _rows(new / "output_result.csv")[0]
    first = len(_rows(valid_csv)[0])  # the dataset's columns, then the outputs
    assert len(header) == first + 3
    got = _predictions(new / "output_result.csv", first)
    want = _predictions(job / "output_result.csv", first)
    assert got.shape == (24, 3)
    np.testing.assert_allclose(got, want, atol=1e-6)


def test_a_job_place_that_cannot_hold_the_job_fails_before_writing(trained, tmp_path, capsys):
    job, _ = trained
    (tmp_path / "model.files").write_text("a file where the jobs folder goes")
    out = tmp_path / "model.ncproj"
    capsys.readouterr()
    assert main(["import", str(job / "results.nnp"), "-o", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "model.files" in err[0] and "cannot create the job folder" in err[0]
    assert not out.exists() and not (tmp_path / "model_parameters.npz").exists()


def _tree(folder):
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))


@pytest.mark.parametrize("limit", [1000, 3000, 5000])
def test_import_on_a_full_disk_leaves_nothing_and_keeps_what_was_there(trained, tmp_path, limit):
    """Issue 29 item 5: an import that ran out of room left ``m.ncproj``, ``m_parameters.npz``
    and an empty ``m.files/`` and printed a traceback. Each file written is limited to
    ``limit`` bytes (disk_limit.py), so the write fails at a different file each time: one
    line, exit 2, no file and no folder left, and an earlier import replaced with --force stays
    byte for byte."""
    job, _ = trained
    out = tmp_path / "new" / "m.ncproj"
    done = disk_limit.run_limited(limit, "import", job / "results.nnp", "-o", out)
    assert done.returncode == 2, done.stderr
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr, done.stderr
    assert ": cannot write: File too large (the file-size limit" in done.stderr, done.stderr
    assert not (tmp_path / "new").exists()
    kept = tmp_path / "kept" / "m.ncproj"
    assert main(["import", str(job / "results.nnp"), "-o", str(kept)]) == 0
    before = {p: p.read_bytes() for p in kept.parent.rglob("*") if p.is_file()}
    done = disk_limit.run_limited(limit, "import", job / "results.nnp", "-o", kept, "--force")
    assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
    after = {p: p.read_bytes() for p in kept.parent.rglob("*") if p.is_file()}
    assert after == before and len(before) == 7  # project, parameters, a job of 5 files


@pytest.mark.parametrize("kilobytes", [12, 24])
def test_import_on_a_real_full_disk_names_the_disk(trained, tmp_path, kilobytes):
    """The same on a real tmpfs of 12 and 24 KB (ENOSPC in the staged parameters, then in the
    job folder): the line names the file's place and the disk."""
    job, _ = trained
    with disk_limit.small_disk(tmp_path / "disk", kilobytes) as disk:
        done = disk_limit.run_limited(1 << 40, "import", job / "results.nnp", "-o",
                                      disk / "imp" / "m.ncproj")  # fmt: skip
        assert done.returncode == 2, done.stderr
        assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr, done.stderr
        assert done.stderr.startswith(f"neurocanvas import: error: {disk / 'imp'}"), done.stderr
        assert (f"cannot write: No space left on device (the disk mounted at {disk} has "
                in done.stderr), done.stderr  # fmt: skip
        assert _tree(disk) == []

"""Commands on a full disk (issue 29 item 9): one line naming the file (and the disk), exit 1,
no traceback, nothing half-written, and what was there before kept byte for byte."""

from __future__ import annotations

import json

import disk_limit
import pytest
import runtime_kit as kit

from engine.cli import main
from engine.formats import save_project


@pytest.fixture
def job(tmp_path, monkeypatch):
    """A 3-epoch job of the 4-8-3 MLP (parameters.npz 2,174 bytes, solver_0.npz 3,234)."""
    monkeypatch.setenv("NEUROCANVAS_CACHE", str(tmp_path / "cache"))
    train_csv, valid_csv = kit.blobs(tmp_path, rows=48)
    save_project(kit.mlp_project(train_csv, valid_csv, batch=8, max_epoch=3), tmp_path / "p.ncproj")
    assert main(["train", str(tmp_path / "p.ncproj"), "-o", str(tmp_path / "job"), "--seed",
                 "0"]) == 0  # fmt: skip
    return tmp_path / "job"


def _files(folder):
    return {p.relative_to(folder): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


def _one_line(done, text):
    assert done.returncode == 1, done.stderr
    last = done.stderr.splitlines()[-1]
    assert "Traceback" not in done.stderr and text in last, done.stderr
    return last


def test_train_resume_on_a_full_disk_keeps_the_checkpoint_and_resumes_later(job, monkeypatch):
    """The solver state (3,234 bytes) no longer fits: the run ends with one line, the last
    checkpoint stays byte for byte, and with room again --resume continues from it."""
    monkeypatch.delenv("NEUROCANVAS_CACHE", raising=False)  # the child inherits os.environ
    last = _files(job / "checkpoints" / "last")
    done = disk_limit.run_limited(3000, "train", "--resume", job, "--epochs", 5)
    line = _one_line(done, "solver_0.npz: cannot write: File too large (the file-size limit")
    assert line.startswith("neurocanvas train: error: ")
    assert _files(job / "checkpoints" / "last") == last
    assert sorted(p.name for p in (job / "checkpoints").iterdir()) == ["best", "last"]
    status = json.loads((job / "status.json").read_text())
    assert status["status"] == "failed" and "cannot write: File too large" in status["message"]
    assert main(["train", "--resume", str(job), "--epochs", "5"]) == 0
    assert json.loads((job / "status.json").read_text())["epoch"] == 5


@pytest.mark.parametrize("kind, output", [("onnx", "m.onnx"), ("python", "m.py"),
                                          ("nnp", "m.nnp")])  # fmt: skip
def test_export_on_a_full_disk_is_one_line_and_writes_nothing(job, tmp_path, kind, output):
    out = tmp_path / "out"
    out.mkdir()
    done = disk_limit.run_limited(500, "export", kind, job, "-o", out / output)
    _one_line(done, ": cannot write: File too large (the file-size limit of this process")
    assert list(out.iterdir()) == []


def test_export_on_a_real_full_disk_names_the_disk(job, tmp_path):
    with disk_limit.small_disk(tmp_path / "disk", 4) as disk:
        (disk / "filler").write_bytes(b"x" * 3000)
        done = disk_limit.run_limited(1 << 40, "export", "onnx", job, "-o", disk / "m.onnx")
        line = _one_line(done, f"{disk / 'm.onnx'}: cannot write: No space left on device")
        assert f"(the disk mounted at {disk} has " in line, line
        assert sorted(p.name for p in disk.iterdir()) == ["filler"]


def test_an_event_the_full_disk_cannot_take_does_not_replace_the_runs_error(tmp_path):
    """On a full disk the run's error names the file it could not write; the event telling of
    it may then not fit in events.jsonl either, and that must not become the error reported
    instead (seen with a longer events.jsonl: "cannot write: File too large" naming nothing)."""
    import errno

    from engine.runtime.events import EventSink

    class FullJob:
        events_file = tmp_path / "events.jsonl"

        def __init__(self, code):
            self.code = code

        def append_line(self, path, line):
            raise OSError(self.code, "simulated")

    sink = EventSink(FullJob(errno.ENOSPC))
    assert sink.emit("warning", message="x")["message"] == "x" and sink.lost_lines == 1
    with pytest.raises(PermissionError):  # not a full disk: still an error
        EventSink(FullJob(errno.EACCES)).emit("warning", message="x")


def test_evaluate_again_on_a_full_disk_keeps_the_earlier_results(job):
    """Re-evaluating moves the earlier result files aside before writing (no ext4 flush): when
    the new output_result.csv does not fit, the earlier one is back, byte for byte and with its
    mode, and nothing else is left in the job folder; with room again the files are replaced."""
    assert main(["evaluate", str(job)]) == 0
    result = job / "output_result.csv"
    result.chmod(0o640)
    before = _files(job)
    assert len(before[result.relative_to(job)]) > 1000
    done = disk_limit.run_limited(600, "evaluate", job)
    _one_line(done, "output_result.csv: cannot write: File too large")
    assert _files(job) == before and result.stat().st_mode & 0o777 == 0o640
    assert main(["evaluate", str(job)]) == 0
    assert _files(job).keys() == before.keys() and result.stat().st_mode & 0o777 == 0o640

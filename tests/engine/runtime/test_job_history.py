"""Job history read from job folders: statuses, curves, labels, dead trainers."""

from __future__ import annotations

import json

from engine.runtime import job_history as H


def _job(root, name, status, curve="epoch,cost,train_error,valid_error\n1,2.0,1.5,1.25\n"):
    job = root / name
    job.mkdir(parents=True)
    (job / "network.ncproj").write_text("{}")
    (job / "status.json").write_text(json.dumps(status))
    (job / "learning_curve.csv").write_text(curve)
    return job


def test_read_job_status_curve_and_label(tmp_path):
    job = _job(tmp_path, "20260101_000000", {"status": "stopped", "epoch": 1, "max_epoch": 9,
                                             "best_epoch": 1})  # fmt: skip
    info = H.read_job(job, with_statistics=False)
    assert (info.status, info.epoch, info.max_epoch) == ("stopped", 1, 9)
    assert info.curve == [(1, 2.0, 1.5, 1.25)] and info.best_valid_error == 1.25
    H.rename_job(job, "first try")
    assert H.read_job(job, with_statistics=False).name == "first try"
    assert H.list_jobs(tmp_path) == [job]


def test_a_running_job_whose_trainer_is_gone_reads_interrupted(tmp_path):
    job = _job(tmp_path, "a", {"status": "running", "pid": 2**22 + 12345})
    assert H.read_job(job, with_statistics=False).status == "interrupted"
    H.delete_job(job)
    assert not job.exists() and H.list_jobs(tmp_path) == []


def test_the_date_is_when_the_job_started_not_when_it_was_last_touched(tmp_path):
    """Evaluating or reporting a job writes into its folder; its date must not move."""
    import datetime as dt
    import os

    job = _job(tmp_path, "j", {"status": "finished"})
    start = dt.datetime(2026, 3, 4, 5, 6, 7).timestamp()
    (job / "events.jsonl").write_text(json.dumps({"event": "start", "time": start}) + "\n")
    (job / "evaluation.json").write_text("{}")  # an evaluation, much later
    os.utime(job, (start + 86400, start + 86400))
    assert H.read_job(job, with_statistics=False).date == "2026-03-04 05:06:07"
    # A folder without events (a quantization sweep's point): when its snapshot was written.
    other = _job(tmp_path, "k", {"status": "finished"})
    os.utime(other / "network.ncproj", (start, start))
    assert H.read_job(other, with_statistics=False).date == "2026-03-04 05:06:07"

"""The job folder: never overwritten, atomic files, NNC's text layouts."""

from __future__ import annotations

import json
import re
import threading
from pathlib import Path

import pytest

from engine.graph.project import Project
from engine.runtime.job import Job, JobError, atomic_write_text, default_job_dir


def test_create_snapshot_and_refuse_to_overwrite(tmp_path):
    source = tmp_path / "p.ncproj"
    from engine.formats import save_project

    save_project(Project.new(), source)
    job = Job.create(tmp_path / "job", Project.new(), source)
    assert job.project_file.is_file() and (tmp_path / "job" / "original" / "p.ncproj").is_file()
    with pytest.raises(JobError, match=r"exists and is not empty; .* --resume"):
        Job.create(tmp_path / "job", Project.new(), source)
    with pytest.raises(JobError, match=r"job: no config.json: its training did not start"):
        Job.open(tmp_path / "job")  # no config.json yet
    with pytest.raises(JobError, match=r"not a NeuroCanvas job folder"):
        Job.open(tmp_path)  # neither file
    job.write_config({"plan": {}})
    assert Job.open(tmp_path / "job").config()["format"] == "neurocanvas-job"


def test_default_job_dir_is_nnc_style(tmp_path):
    first = default_job_dir(tmp_path / "lenet.ncproj")
    assert first.parent == tmp_path / "lenet.files"
    assert re.fullmatch(r"\d{8}_\d{6}", first.name)
    taken = Job.create(first, Project.new(), None, numbered=True)
    assert taken.root == first
    second = Job.create(first, Project.new(), None, numbered=True)
    assert second.root == first.with_name(first.name + "_2")


def test_curve_report_and_lines(tmp_path):
    job = Job(tmp_path)
    job.write_curve([(1, 0.5, 0.25, 0.375), (2, 0.125, None, None)])
    assert job.curve_file.read_text() == (
        "epoch,cost,train_error,valid_error\n1,0.5,0.25,0.375\n2,0.125,,\n"
    )
    job.write_report([{"epoch": 1, "cost": 0.5, "monitors": {"valid_error": 0.25}},
                      {"epoch": 2, "cost": 0.125}])  # fmt: skip
    assert (
        job.report_file.read_text() == "0:\n  cost: 0.5\n  valid_error: 0.25\n1:\n  cost: 0.125\n"
    )
    job.append_line(job.events_file, json.dumps({"a": 1}))
    job.append_line(job.events_file, json.dumps({"a": 2}) + "\n")
    assert job.events_file.read_text() == '{"a": 1}\n{"a": 2}\n'


def test_atomic_write_leaves_no_temporary_file(tmp_path):
    atomic_write_text(tmp_path / "f.txt", "one")
    atomic_write_text(tmp_path / "f.txt", "two")
    assert [p.name for p in tmp_path.iterdir()] == ["f.txt"]
    assert (tmp_path / "f.txt").read_text() == "two"


def test_runs_claiming_one_folder_at_once_each_get_their_own(tmp_path):
    """Issue 13, defect 1: the folder is claimed atomically, the next free suffix on collision."""
    root = tmp_path / "p.files" / "20260101_120000"
    barrier = threading.Barrier(8)
    made: list[Path] = []

    def start() -> None:
        barrier.wait()
        made.append(Job.create(root, Project.new(), None, numbered=True).root)

    threads = [threading.Thread(target=start) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(set(made)) == 8
    assert {p.name for p in made} == {root.name} | {f"{root.name}_{k}" for k in range(2, 9)}


def test_an_explicit_folder_is_claimed_by_one_run_only(tmp_path):
    barrier = threading.Barrier(4)
    outcomes: list[str] = []

    def start() -> None:
        barrier.wait()
        try:
            Job.create(tmp_path / "job", Project.new(), None)
            outcomes.append("created")
        except JobError as exc:
            outcomes.append(str(exc))

    threads = [threading.Thread(target=start) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert outcomes.count("created") == 1
    assert all("job" in o and ("claimed" in o or "not empty" in o) for o in outcomes
               if o != "created")  # fmt: skip


def test_a_folder_holding_other_files_is_not_claimed(tmp_path):
    root = tmp_path / "p.files" / "stamp"
    root.mkdir(parents=True)
    (root / "notes.txt").write_text("mine")
    job = Job.create(root, Project.new(), None, numbered=True)
    assert job.root.name == "stamp_2"
    assert sorted(p.name for p in root.iterdir()) == ["notes.txt"]

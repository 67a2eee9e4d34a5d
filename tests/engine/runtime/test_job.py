"""The job folder: never overwritten, atomic files, NNC's text layouts."""

from __future__ import annotations

import json
import re

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
    with pytest.raises(JobError, match=r"not a NeuroCanvas job folder"):
        Job.open(tmp_path / "job")  # no config.json yet
    job.write_config({"plan": {}})
    assert Job.open(tmp_path / "job").config()["format"] == "neurocanvas-job"


def test_default_job_dir_is_nnc_style(tmp_path):
    first = default_job_dir(tmp_path / "lenet.ncproj")
    assert first.parent == tmp_path / "lenet.files"
    assert re.fullmatch(r"\d{8}_\d{6}", first.name)
    first.mkdir(parents=True)
    assert default_job_dir(tmp_path / "lenet.ncproj").name.startswith(first.name + "_")


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

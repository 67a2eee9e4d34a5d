"""``copy_sample``: the one place a sample project is copied (``neurocanvas samples NAME
FOLDER`` and the app's first start and File > Open Sample)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from engine.formats import load_project
from engine.formats.samples import SampleError, copy_sample, find_sample

ROOT = Path(__file__).resolve().parents[3]


def _cli(*args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "engine.cli", *args], env=env,
                          capture_output=True, text=True, timeout=300)  # fmt: skip


def test_the_cli_copies_a_sample_and_refuses_to_overwrite_it(tmp_path):
    done = _cli("samples", "iris", str(tmp_path / "mine"))
    assert done.returncode == 0, done.stderr
    copy = tmp_path / "mine" / "iris.ncproj"
    assert copy.read_bytes() == find_sample("iris").read_bytes()
    assert load_project(copy).network_names == load_project(find_sample("iris")).network_names
    copy.write_text("edited", encoding="utf-8")
    again = _cli("samples", "iris", str(tmp_path / "mine"))
    assert again.returncode != 0 and "Traceback" not in again.stderr
    assert again.stderr.strip().splitlines() == [
        f"neurocanvas samples: error: {copy} exists; choose another folder or use --force"
    ]
    assert copy.read_text(encoding="utf-8") == "edited"  # nothing overwritten
    assert sorted(p.name for p in copy.parent.iterdir()) == ["iris.ncproj"]  # no partial file


def test_the_apps_copy_is_made_once_then_reused_with_the_users_edits(tmp_path):
    sample = find_sample("iris")
    first = copy_sample(sample, tmp_path)  # a path of sample_projects(), as the app passes
    assert first == tmp_path / "iris.ncproj" and first.read_bytes() == sample.read_bytes()
    first.write_text("edited", encoding="utf-8")
    assert copy_sample(sample, tmp_path, reuse=True) == first
    assert first.read_text(encoding="utf-8") == "edited"
    with pytest.raises(SampleError, match="exists"):
        copy_sample("iris", tmp_path)
    assert copy_sample("iris", tmp_path, force=True).read_bytes() == sample.read_bytes()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["iris.ncproj"]

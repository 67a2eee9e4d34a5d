"""Search tests: a private cache folder per test and small projects to mutate and train."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture(autouse=True)
def _isolated(tmp_path, monkeypatch):
    monkeypatch.setenv("NEUROCANVAS_CACHE", str(tmp_path / "user-cache"))


@pytest.fixture
def iris_file(tmp_path):
    """A copy of the iris sample (a 4-100-3 MLP; an epoch takes a fraction of a second)."""
    target = tmp_path / "iris" / "iris.ncproj"
    target.parent.mkdir()
    shutil.copyfile(ROOT / "projects" / "iris.ncproj", target)
    return target

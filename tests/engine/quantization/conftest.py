"""A trained LeNet for the sweep and mixed-precision tests (trained once per session)."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.data import builtin
from engine.runtime.run import train

LENET = Path(__file__).parents[3] / "projects" / "lenet_digits.ncproj"


@pytest.fixture(scope="session")
def lenet_job(tmp_path_factory):
    """LeNet trained 3 epochs on digits (seed 0), with its own dataset cache (set only while
    training: tests that read the datasets ask for ``lenet_cache``)."""
    root = tmp_path_factory.mktemp("lenet")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("NEUROCANVAS_CACHE", str(root / "cache"))
        builtin.ensure("digits", root=root / "cache")
        train(LENET, job_dir=root / "job", epochs=3, seed=0)
    return root / "job"


@pytest.fixture
def lenet_cache(lenet_job, monkeypatch):
    """The job's dataset cache, for tests that read its datasets."""
    monkeypatch.setenv("NEUROCANVAS_CACHE", str(lenet_job.parent / "cache"))

"""A real job for the report tests: LeNet digits (projects/lenet_digits.ncproj) trained two
epochs on the first rows of the built-in digits dataset, then evaluated (once per session)."""

from __future__ import annotations

import csv
import shutil
from pathlib import Path

import pytest

import engine.nn as nn
from engine.data import builtin
from engine.formats import load_project, save_project
from engine.runtime.datasets import BUILTIN_SCHEME
from engine.runtime.evaluator import evaluate
from engine.runtime.run import train

ROOT = Path(__file__).resolve().parents[3]
ROWS = {"training": 320, "validation": 128}


def _subset(uri: str, folder: Path, cache: Path) -> Path:
    """The first rows of a built-in split, with absolute image paths."""
    name, _, split = uri.removeprefix(BUILTIN_SCHEME).partition("/")
    source = builtin.ensure(name, root=cache)[split]
    with open(source, newline="", encoding="utf-8") as f:
        table = list(csv.reader(f))
    out = folder / f"{name}-{split}.csv"
    with open(out, "w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f, lineterminator="\n")
        writer.writerow(table[0])
        for row in table[1 : ROWS[split] + 1]:
            writer.writerow([str(source.parent / c) if c.startswith("./") else c for c in row])
    return out


@pytest.fixture(scope="session")
def lenet_job(tmp_path_factory) -> Path:
    """The job folder (evaluated with the best parameters). Tests must not change it."""
    folder = tmp_path_factory.mktemp("lenet")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("NEUROCANVAS_CACHE", str(folder / "cache"))
        project = load_project(ROOT / "projects" / "lenet_digits.ncproj")
        for i, dataset in enumerate(project.datasets):
            subset = _subset(dataset.uri, folder, folder / "cache")
            project.replace_section(("datasets", i), dataset.with_value("URI", str(subset)))
        save_project(project, folder / "lenet_digits.ncproj")
        nn.clear_parameters()
        result = train(folder / "lenet_digits.ncproj", job_dir=folder / "job", epochs=2, seed=0)
        assert result.status == "finished"
        evaluate(folder / "job")
    return folder / "job"


@pytest.fixture
def job_copy(lenet_job, tmp_path) -> Path:
    """A private copy of the job, for tests that change or remove its files."""
    return Path(shutil.copytree(lenet_job, tmp_path / "job"))

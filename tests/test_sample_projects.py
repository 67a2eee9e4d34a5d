"""Every sample project in projects/ trains one epoch and evaluates without error.

To stay fast each sample trains on the first rows of its built-in dataset (a copy of the CSV
with absolute image paths); the full-size accuracies are measured separately (README, "Sample
projects").
"""

from __future__ import annotations

import csv
import json
import os
from pathlib import Path

import pytest

import engine.nn as nn
from engine.data import builtin
from engine.formats import load_project, save_project
from engine.runtime.datasets import BUILTIN_SCHEME
from engine.runtime.evaluator import evaluate
from engine.runtime.run import train

PROJECTS = sorted((Path(__file__).parent.parent / "projects").glob("*.ncproj"))
REQUIRED = {"lenet_digits", "logistic_regression_4or9", "iris"}


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    return tmp_path_factory.mktemp("sample-cache")


def _subset(uri: str, rows: int, folder: Path, cache: Path) -> Path:
    """The first ``rows`` rows of a built-in dataset split, with absolute file paths."""
    name, _, split = uri.removeprefix(BUILTIN_SCHEME).partition("/")
    source = builtin.ensure(name, root=cache)[split]
    with open(source, newline="", encoding="utf-8") as f:
        table = list(csv.reader(f))
    base = source.parent
    out = folder / f"{name}-{split}.csv"
    with open(out, "w", newline="", encoding="utf-8") as f:  # the header and first rows
        writer = csv.writer(f, lineterminator="\n")
        writer.writerow(table[0])
        for row in table[1 : rows + 1]:
            writer.writerow([str(base / c) if c.startswith("./") else c for c in row])
    return out


def test_the_required_samples_exist():
    assert REQUIRED <= {p.stem for p in PROJECTS}
    for path in PROJECTS:
        for dataset in load_project(path).datasets:
            assert dataset.uri.startswith(BUILTIN_SCHEME), (path.name, dataset.uri)


@pytest.mark.parametrize("path", PROJECTS, ids=[p.stem for p in PROJECTS])
def test_sample_trains_one_epoch_and_evaluates(path, tmp_path, cache, monkeypatch):
    monkeypatch.setenv("NEUROCANVAS_CACHE", str(cache))
    project = load_project(path)
    batch = project.config.batch_size
    rows = []
    for i, dataset in enumerate(project.datasets):
        subset = _subset(dataset.uri, 2 * batch, tmp_path, cache)
        rows.append(len(subset.read_text().splitlines()) - 1)
        project.replace_section(("datasets", i), dataset.with_value("URI", str(subset)))
    save_project(project, tmp_path / path.name)
    nn.clear_parameters()
    result = train(tmp_path / path.name, job_dir=tmp_path / "job", epochs=1, seed=0)
    assert result.status == "finished" and result.state.epoch == 1
    record = result.state.history[0]
    assert record.cost > 0 and set(record.monitors) == {"train_error", "valid_error"}
    evaluation = evaluate(tmp_path / "job")
    assert evaluation.rows == rows[1] >= batch
    summary = json.loads((tmp_path / "job" / "evaluation.json").read_text())
    assert list(summary["classification"]) == ["y'"]
    assert 0.0 <= summary["classification"]["y'"]["accuracy"] <= 1.0
    assert os.path.getsize(tmp_path / "job" / "confusion_matrix_y.csv") > 0


@pytest.mark.parametrize("path", PROJECTS, ids=lambda p: p.stem)
def test_sample_projects_have_no_validation_problems(path):
    from engine.graph.validate import validate_project

    assert [str(p) for p in validate_project(load_project(path))] == []

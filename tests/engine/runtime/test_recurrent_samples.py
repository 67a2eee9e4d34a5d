"""Every NNC recurrent sample trains: a few iterations on the digits 4s and 9s read row by row.

NNC's samples read ``small_mnist_4or9`` (MNIST, a download); the built-in ``digits-4or9`` has
the same layout (``x:image`` 1x28x28, ``y:9``), so each sample runs unchanged on its first rows.
"""

from __future__ import annotations

import csv
import math
from pathlib import Path

import numpy as np
import pytest
from nnc_samples import SAMPLES_DIR

import engine.nn as nn
from engine.data import builtin
from engine.formats import load_project, save_project
from engine.model_import import read_model
from engine.nn.parameter_file import load_arrays
from engine.runtime.run import train

RECURRENT = sorted((SAMPLES_DIR / "tutorial" / "recurrent_neural_networks").glob("*.sdcproj"))


@pytest.fixture(scope="module")
def digits(tmp_path_factory):
    """The first 128 training and validation rows of digits-4or9, paths made absolute."""
    cache = tmp_path_factory.mktemp("cache")
    out = {}
    for split, source in builtin.ensure("digits-4or9", root=cache).items():
        with open(source, newline="", encoding="utf-8") as f:
            rows = list(csv.reader(f))[:129]
        path = cache / f"{split}.csv"
        with open(path, "w", newline="", encoding="utf-8") as f:
            writer = csv.writer(f, lineterminator="\n")
            writer.writerow(rows[0])
            writer.writerows([[str(source.parent / r[0]), r[1]] for r in rows[1:]])
        out[split] = path
    return out


def test_all_seven_samples_are_here():
    assert len(RECURRENT) == 7


@pytest.mark.parametrize("path", RECURRENT, ids=lambda p: p.stem)
def test_sample_trains_a_few_iterations(path: Path, digits, tmp_path):
    project = load_project(path)
    for i, dataset in enumerate(project.datasets):
        split = "training" if dataset.name == "Training" else "validation"
        project.replace_section(("datasets", i), dataset.with_value("URI", str(digits[split])))
    save_project(project, tmp_path / "sample.sdcproj")
    nn.clear_parameters()
    result = train(tmp_path / "sample.sdcproj", job_dir=tmp_path / "job", epochs=1, seed=0)
    assert result.status == "finished", result
    record = result.state.history[0]
    assert math.isfinite(record.cost) and record.cost > 0
    # Two iterations of 64 changed the shared recurrent weights.
    nn.clear_parameters()
    with nn.parameter_scope("", {}):
        nn.load_parameters(tmp_path / "job" / "checkpoints" / "last" / "parameters.npz")
        biases = [v.d for k, v in nn.get_parameters().items() if k.endswith("/b")]  # 0 at first
    assert biases and all(np.abs(b).sum() > 0 for b in biases)
    # results.nnp holds the loop as NNC writes it (not unrolled) with the trained parameters
    imported = read_model(tmp_path / "job" / "results.nnp")
    kinds = [layer.type for net in imported.project.networks for layer in net.layers]
    assert "RecurrentInput" in kinds and "Delay" in kinds
    arrays, meta = load_arrays(tmp_path / "job" / "checkpoints" / "best" / "parameters.npz")
    for entry in meta["parameters"]:
        assert any(np.array_equal(v, arrays[entry["key"]]) for v in imported.parameters.values())

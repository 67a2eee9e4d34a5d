"""``evaluate`` reads image batches from the dataset's array cache (in the caller's thread, no
prefetch thread): an image changed since the last evaluation is read anew, not from the cache."""

from __future__ import annotations

import csv
import os

import numpy as np
from PIL import Image

import engine.nn as nn
from engine.data.cache import ENV_CACHE
from engine.formats import save_project
from engine.runtime.evaluator import evaluate
from engine.runtime.run import train


def _write_image(path, value):
    Image.fromarray(np.full((2, 2), value, np.uint8)).save(path)


def _outputs(job):
    with open(job / "output_result.csv", newline="") as handle:
        return [round(float(row[-1]), 3) for row in list(csv.reader(handle))[1:]]


def test_a_changed_image_is_read_again(kit, tmp_path, monkeypatch):
    monkeypatch.setenv(ENV_CACHE, str(tmp_path / "cache"))
    for k in range(5):
        _write_image(tmp_path / f"{k}.png", 10 * k)
    rows = [[f"./{k}.png", k % 2] for k in range(5)]
    data = kit.write_csv(tmp_path / "data.csv", ["x:image", "y"], rows)
    layers = [
        kit.layer("Input", "Input", Size=(1, 2, 2), Dataset="x"),
        kit.layer("Affine", "Affine", OutShape=1),
        kit.layer("SquaredError", "SquaredError", T__Dataset="y"),
    ]
    project = kit.make_project([kit.network("Main", layers, kit.chain(*[x.name for x in layers]))],
                               train=data, valid=data, max_epoch=1, batch=2)  # fmt: skip
    save_project(project, tmp_path / "p.ncproj")
    job = tmp_path / "job"
    train(tmp_path / "p.ncproj", job_dir=job, seed=0)
    nn.save_parameters(job / "checkpoints" / "best" / "parameters.npz", {
        "Affine/affine/W": nn.Variable(np.full((4, 1), 255 / 4, np.float32)),
        "Affine/affine/b": nn.Variable(np.zeros(1, np.float32)),
    })  # fmt: skip
    evaluate(job)  # the output is the image's pixel value (the mean of four, x/255 * 255)
    assert _outputs(job) == [0, 10, 20, 30, 40]
    evaluate(job)  # from the cache now
    assert _outputs(job) == [0, 10, 20, 30, 40]
    _write_image(tmp_path / "3.png", 77)
    os.utime(tmp_path / "3.png", ns=(1, 1))  # the same size, another time
    evaluate(job)
    assert _outputs(job) == [0, 10, 20, 77, 40]

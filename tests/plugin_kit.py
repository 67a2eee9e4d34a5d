"""A trained job of the default project (LeNet on the bundled digits), evaluated, shared by
the plugin tests of a module; and ``cli`` to run ``neurocanvas`` as a user does."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "fixtures" / "plugins"


def cli(*args: str, timeout: float = 300, env: dict[str, str] | None = None
        ) -> subprocess.CompletedProcess:  # fmt: skip
    full = {**os.environ, "PYTHONPATH": str(ROOT), **(env or {})}
    return subprocess.run([sys.executable, "-m", "engine.cli", *args], capture_output=True,
                          text=True, cwd=ROOT, env=full, timeout=timeout)  # fmt: skip


@pytest.fixture(scope="session")
def lenet_job(tmp_path_factory) -> Path:
    """LeNet (projects/lenet_digits.ncproj, the app's default) trained 2 epochs, evaluated."""
    root = tmp_path_factory.mktemp("lenet")
    project = root / "lenet.ncproj"
    shutil.copyfile(ROOT / "projects" / "lenet_digits.ncproj", project)
    job = root / "job"
    done = cli("train", str(project), "-o", str(job), "--epochs", "2", "--seed", "3")
    assert done.returncode == 0, done.stderr
    done = cli("evaluate", str(job))
    assert done.returncode == 0, done.stderr
    return job


def files_of(folder: Path) -> dict[str, float | None]:
    """Every path under ``folder``, with the time a file was last written (None: a folder)."""
    return {str(p.relative_to(folder)): p.stat().st_mtime if p.is_file() else None
            for p in folder.rglob("*")}  # fmt: skip


def tabular_job(folder: Path, features: int, *, hidden: int = 0, rows: int = 60, epochs: int = 5,
                flip: int | None = None, seed: int = 0) -> Path:  # fmt: skip
    """A trained, evaluated job on a 3-class table of ``features`` columns: logistic
    regression (``hidden`` 0) or one tanh hidden layer. ``flip``: that training row gets a
    wrong label (the planted mistake)."""
    import numpy as np
    import runtime_kit as kit

    from engine.formats import save_project

    rng = np.random.default_rng(seed)
    centres = rng.random((3, features))
    header = [f"x__{k}" for k in range(features)] + ["y:label"]

    def make(n: int, flip_row: int | None) -> list[list[object]]:
        labels = np.arange(n) % 3
        points = centres[labels] + rng.normal(0, 0.1, (n, features))
        if flip_row is not None:
            labels = labels.copy()
            labels[flip_row] = (labels[flip_row] + 1) % 3
        return [[f"{v:.4f}" for v in p] + [int(c)] for p, c in zip(points, labels, strict=True)]

    train = kit.write_csv(folder / "train.csv", header, make(rows, flip))
    valid = kit.write_csv(folder / "valid.csv", header, make(rows // 2, None))
    layers = [kit.layer("Input", "Input", Size=(features,), Dataset="x")]
    if hidden:
        layers += [kit.layer("Affine", "Affine", OutShape=hidden), kit.layer("Tanh", "Tanh")]
    layers += [
        kit.layer("Affine_2", "Affine", OutShape=3),
        kit.layer("Softmax", "Softmax"),
        kit.layer("CategoricalCrossEntropy", "CategoricalCrossEntropy", T__Dataset="y"),
    ]
    project = kit.make_project(
        [kit.network("Main", layers, kit.chain(*(item.name for item in layers)))],
        train=train, valid=valid, batch=10, max_epoch=epochs, solver="Sgd",
        solver_parameters={"LearningRate": "0.5"},
    )  # fmt: skip
    save_project(project, folder / "p.ncproj")
    job = folder / "job"
    for args in (("train", str(folder / "p.ncproj"), "-o", str(job), "--seed", "0"),
                 ("evaluate", str(job))):  # fmt: skip
        done = cli(*args)
        assert done.returncode == 0, done.stderr
    return job

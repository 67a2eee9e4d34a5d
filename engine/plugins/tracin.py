"""TracIn (Pruthi et al., NeurIPS 2020): how much each training sample moved a prediction.

influence(z, z') = sum over checkpoints c of lr_c * grad L(w_c, z) . grad L(w_c, z'), the
gradients of the loss over every trainable parameter. Self-influence (z' = z) ranks the
training samples hardest to fit: mislabelled ones come first. The checkpoints of a job are the
parameter files it saved (``checkpoints/best`` and ``checkpoints/last``, once each when they
hold the same values), each with the solver's learning rate.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

import engine.nn as nn
from engine.plugins.model import JobModel, PluginError
from engine.runtime.checkpoint import PARAMETERS, checkpoint_path

__all__ = ["job_checkpoints", "learning_rate", "tracin_matrix", "tracin_scores"]


def learning_rate(model: JobModel) -> float:
    plan = model.job.plan()
    for optimizer in plan.get("optimizers", []):
        params = optimizer.get("solver_parameters", {})
        for key in ("LearningRate", "Alpha", "Lr", "Eta"):
            if key in params:
                return float(params[key])
    return 1.0


def job_checkpoints(model: JobModel) -> list[tuple[float, Path]]:
    """``(learning rate, parameters file)`` of each distinct saved checkpoint of the job."""
    found: list[tuple[float, Path]] = []
    seen: list[dict[str, np.ndarray]] = []
    lr = learning_rate(model)
    for kind in ("best", "last"):
        path = checkpoint_path(model.job.checkpoint_dir(kind)) / PARAMETERS
        if not path.is_file():
            continue
        with np.load(path) as data:
            arrays = {k: data[k] for k in data.files}
        if any(arrays.keys() == s.keys() and all(np.array_equal(arrays[k], s[k]) for k in s)
               for s in seen):  # fmt: skip
            continue
        seen.append(arrays)
        found.append((lr, path))
    if not found:
        raise PluginError(f"{model.job.root}: no saved checkpoint to read gradients from")
    return found


def _flat(grads: dict[str, np.ndarray]) -> np.ndarray:
    return np.concatenate([grads[k].ravel() for k in sorted(grads)])


def tracin_scores(
    model: JobModel,
    checkpoints: Sequence[tuple[float, Path | None]],
    train_x: np.ndarray,
    train_t: np.ndarray,
    test_x: np.ndarray | None = None,
    test_t: np.ndarray | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> np.ndarray:
    """Influence of each training sample on the test sample, or each one's self-influence
    when no test sample is given. A checkpoint path of None uses the parameters as loaded."""
    scores = np.zeros(len(train_x))
    total, done = len(checkpoints) * len(train_x), 0
    for lr, path in checkpoints:
        if path is not None:
            nn.load_parameters(path)
        target = None
        if test_x is not None:
            target = _flat(model.parameter_gradients(test_x[None], np.asarray([test_t])))
        for i in range(len(train_x)):
            g = _flat(model.parameter_gradients(train_x[i][None], np.asarray([train_t[i]])))
            scores[i] += lr * float(g @ (g if target is None else target))
            done += 1
            if progress is not None and (done % 50 == 0 or done == total):
                progress(done, total)
    return scores


def tracin_matrix(
    model: JobModel,
    checkpoints: Sequence[tuple[float, Path | None]],
    train_x: np.ndarray,
    train_t: np.ndarray,
    test_x: np.ndarray,
    test_t: np.ndarray,
    progress: Callable[[int, int], None] | None = None,
) -> np.ndarray:
    """Influence of each training sample (columns) on each test sample (rows): the test
    samples' gradients are held (float32), each training sample's is computed once."""
    scores = np.zeros((len(test_x), len(train_x)))
    total = len(checkpoints) * (len(test_x) + len(train_x))
    done = 0
    for lr, path in checkpoints:
        if path is not None:
            nn.load_parameters(path)
        held = None
        for j in range(len(test_x)):
            g = _flat(model.parameter_gradients(test_x[j][None], np.asarray([test_t[j]])))
            if held is None:
                held = np.zeros((len(test_x), g.size), np.float32)
            held[j] = g
            done += 1
            if progress is not None and (done % 50 == 0 or done == total):
                progress(done, total)
        assert held is not None
        for i in range(len(train_x)):
            g = _flat(model.parameter_gradients(train_x[i][None], np.asarray([train_t[i]])))
            scores[:, i] += lr * (held @ g.astype(np.float32)).astype(np.float64)
            done += 1
            if progress is not None and (done % 50 == 0 or done == total):
                progress(done, total)
    return scores

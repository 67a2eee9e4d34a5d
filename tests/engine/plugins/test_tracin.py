"""TracIn against gradient dot products computed by hand (logistic regression: the gradient of
the cross entropy is x (p - onehot) and p - onehot), and a planted mislabelled sample."""

from __future__ import annotations

import csv

import numpy as np
import pytest
from plugin_kit import cli, tabular_job

import engine.nn as nn
from engine.plugins import JobModel
from engine.plugins.tracin import job_checkpoints, tracin_scores


def _hand_gradient(params: dict[str, np.ndarray], x: np.ndarray, t: int) -> np.ndarray:
    w = next(v for k, v in params.items() if k.endswith("/W"))
    b = next(v for k, v in params.items() if k.endswith("/b"))
    logits = x @ w + b
    p = np.exp(logits - logits.max())
    p /= p.sum()
    delta = p - np.eye(len(p))[t]
    return np.outer(x, delta), delta


def _table(path):
    rows = list(csv.reader(open(path)))
    x = np.array([[float(c) for c in r[:-1]] for r in rows[1:]])
    return x, np.array([int(r[-1]) for r in rows[1:]])


@pytest.mark.parametrize("self_influence", [False, True])
def test_scores_equal_hand_computed_dot_products(tmp_path, self_influence):
    job = tabular_job(tmp_path, 4, rows=30, epochs=2)
    model = JobModel(job)
    [(lr, best)] = job_checkpoints(model)  # best and last agree: one checkpoint
    assert lr == 0.5
    # a second checkpoint: the trained values moved, with its own learning rate
    best_values = {k: v.d.copy() for k, v in nn.get_parameters().items()}
    for k, v in nn.get_parameters().items():
        v.d = best_values[k] * 0.7 + 0.05
    moved = tmp_path / "moved.npz"
    nn.save_parameters(moved)
    moved_values = {k: v.d.copy() for k, v in nn.get_parameters().items()}
    x, t = _table(tmp_path / "train.csv")
    test_x, test_t = (x[3], t[3]) if self_influence else (x[0] * 0.9 + 0.1, 2)
    scores = tracin_scores(model, [(0.5, best), (0.1, moved)], x, t,
                           None if self_influence else test_x, test_t)  # fmt: skip
    expected = np.zeros(len(x))
    for rate, values in ((0.5, best_values), (0.1, moved_values)):
        for i in range(len(x)):
            gw, gb = _hand_gradient(values, x[i], t[i])
            tw, tb = (gw, gb) if self_influence else _hand_gradient(values, test_x, test_t)
            expected[i] += rate * (np.sum(gw * tw) + np.sum(gb * tb))
    np.testing.assert_allclose(scores, expected, rtol=1e-4, atol=1e-7)
    assert np.ptp(expected) > 1e-3


def test_a_planted_mislabelled_sample_ranks_first(tmp_path):
    job = tabular_job(tmp_path, 4, rows=45, epochs=8, flip=7)
    # Self-influence through the plugin, as a user runs it
    done = cli("plugin", "run", "TracIn", str(job), "top=5")
    assert done.returncode == 0, done.stderr
    [out] = (job / "plugin_results").glob("tracin_*/tracin.csv")
    ranked = list(csv.DictReader(open(out)))
    assert len(ranked) == 5 and ranked[0]["training row"] == "7", ranked
    # The training samples behind the mislabelled sample's own prediction: itself first
    model = JobModel(job)
    x, t = _table(tmp_path / "train.csv")
    scores = tracin_scores(model, job_checkpoints(model), x, t, x[7], t[7])
    assert int(np.argmax(scores)) == 7

"""The lineup from the CLI on the default project's trained LeNet: t-SNE of the Affine output,
ROC/AUC per class against scikit-learn, the cross tabulation against the confusion matrix."""

from __future__ import annotations

import csv
import json

import numpy as np
import pytest
from plugin_kit import cli
from sklearn.metrics import roc_auc_score


def _latest(job, stem, name):
    return max((job / "plugin_results").glob(f"{stem}_*"), key=lambda p: p.stat().st_mtime) / name


def test_tsne_of_the_affine_output_groups_the_digits(lenet_job):
    done = cli("plugin", "run", "t-SNE", str(lenet_job), "variable=Affine")
    assert done.returncode == 0, done.stderr
    rows = list(csv.DictReader(open(_latest(lenet_job, "tsne", "tsne.csv"))))
    truth = [r[1] for r in list(csv.reader(open(lenet_job / "output_result.csv")))[1:]]
    assert len(rows) == 297 and [r["y:label"] for r in rows] == truth
    points = np.array([[float(r["tsne__0"]), float(r["tsne__1"])] for r in rows])
    labels = np.array(truth)
    # 5 nearest neighbours in the embedding mostly share the digit (the features separate them)
    d = ((points[:, None] - points[None]) ** 2).sum(-1)
    np.fill_diagonal(d, np.inf)
    near = np.argsort(d, axis=1)[:, :5]
    agree = np.mean([np.mean(labels[n] == labels[k]) for k, n in enumerate(near)])
    assert agree > 0.8, agree
    assert (_latest(lenet_job, "tsne", "tsne.png")).read_bytes()[:4] == b"\x89PNG"


def test_roc_auc_per_class_equals_scikit_learn(lenet_job):
    done = cli("plugin", "run", "ROC Curve", str(lenet_job))
    assert done.returncode == 0, done.stderr
    table = list(csv.DictReader(open(_latest(lenet_job, "roc_auc", "roc_auc.csv"))))
    rows = list(csv.reader(open(lenet_job / "output_result.csv")))[1:]
    truth = np.array([int(r[1]) for r in rows])
    scores = np.array([[float(v) for v in r[2:12]] for r in rows])
    assert [r["class"] for r in table] == [str(k) for k in range(10)]
    for k, r in enumerate(table):
        assert float(r["AUC"]) == pytest.approx(roc_auc_score(truth == k, scores[:, k]), abs=1e-6)
        assert int(r["positives"]) == int((truth == k).sum())


def test_cross_tabulation_equals_the_confusion_matrix(lenet_job):
    done = cli("plugin", "run", "cross_tabulation", str(lenet_job))
    assert done.returncode == 0, done.stderr
    out = list(csv.reader(open(_latest(lenet_job, "cross_tabulation", "cross_tabulation.csv"))))
    assert out[0] == [""] + [f"y' = {k}" for k in range(10)]
    counts = [[int(float(v)) for v in r[1:]] for r in out[1:]]
    summary = json.loads((lenet_job / "evaluation.json").read_text())
    assert counts == summary["classification"]["y'"]["confusion_matrix"]

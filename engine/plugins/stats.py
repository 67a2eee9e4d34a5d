"""Tables and curves of an output table: cross tabulation, ROC and precision-recall curves,
and NNC's fairness metrics (privileged / unprivileged groups as 0/1 indicator columns).

The curves are computed here (not by scikit-learn), so the tests can hold them against
scikit-learn's ``roc_curve``, ``roc_auc_score`` and ``average_precision_score``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from engine.plugins.errors import PluginError

__all__ = [
    "average_precision", "cross_tabulation", "demographic_parity", "disparate_impact",
    "equal_opportunity", "equalised_odds", "pr_curve", "roc_curve", "theil_index", "trapezoid",
]  # fmt: skip


def cross_tabulation(
    rows: Sequence[str], cols: Sequence[str], ratio: bool = False
) -> tuple[list[str], list[str], np.ndarray]:
    """Counts of each (row value, column value) pair, values in sorted order (numbers by
    value); with ``ratio`` each row divided by its total."""

    def order(values: Sequence[str]) -> list[str]:
        unique = set(values)
        try:
            return sorted(unique, key=float)
        except ValueError:
            return sorted(unique)

    row_values, col_values = order(rows), order(cols)
    r_index = {v: k for k, v in enumerate(row_values)}
    c_index = {v: k for k, v in enumerate(col_values)}
    table = np.zeros((len(row_values), len(col_values)))
    for r, c in zip(rows, cols, strict=True):
        table[r_index[r], c_index[c]] += 1
    if ratio:
        table = table / np.maximum(table.sum(axis=1, keepdims=True), 1)
    return row_values, col_values, table


def _sorted_counts(truth: np.ndarray, score: np.ndarray) -> tuple[np.ndarray, ...]:
    truth = np.asarray(truth, bool)
    score = np.asarray(score, np.float64)
    if truth.all() or not truth.any():
        raise PluginError("the target has a single class: the curve needs positives and negatives")
    order = np.argsort(-score, kind="mergesort")
    score, truth = score[order], truth[order]
    last = np.r_[np.nonzero(np.diff(score))[0], len(score) - 1]  # one point per threshold
    tp = np.cumsum(truth)[last].astype(np.float64)
    fp = (last + 1 - tp).astype(np.float64)
    return tp, fp, score[last]


def roc_curve(truth: np.ndarray, score: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(false positive rate, true positive rate, thresholds)`` from (0, 0) up."""
    tp, fp, thresholds = _sorted_counts(truth, score)
    tp, fp = np.r_[0.0, tp], np.r_[0.0, fp]
    return fp / fp[-1], tp / tp[-1], np.r_[np.inf, thresholds]


def trapezoid(x: np.ndarray, y: np.ndarray) -> float:
    return float(np.sum(np.diff(x) * (y[1:] + y[:-1]) / 2))


def pr_curve(truth: np.ndarray, score: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(precision, recall, thresholds)`` for decreasing thresholds."""
    tp, fp, thresholds = _sorted_counts(truth, score)
    return tp / (tp + fp), tp / tp[-1], thresholds


def average_precision(truth: np.ndarray, score: np.ndarray) -> float:
    """Sum over thresholds of precision times the recall gained (no interpolation)."""
    precision, recall, _ = pr_curve(truth, score)
    return float(np.sum(np.diff(np.r_[0.0, recall]) * precision))


def _rates(predicted: np.ndarray, truth: np.ndarray | None = None) -> tuple[float, float, float]:
    """(positive rate, true positive rate, false positive rate) of one group."""
    if len(predicted) == 0:
        raise PluginError("a group has no sample")
    rate = float(predicted.mean())
    if truth is None:
        return rate, float("nan"), float("nan")
    pos, neg = truth == 1, truth == 0
    tpr = float(predicted[pos].mean()) if pos.any() else float("nan")
    fpr = float(predicted[neg].mean()) if neg.any() else float("nan")
    return rate, tpr, fpr


def _groups(score: np.ndarray, privileged: np.ndarray, unprivileged: np.ndarray,
            threshold: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:  # fmt: skip
    if not np.array_equal(privileged == 1, unprivileged == 0):
        raise PluginError("the privileged and unprivileged columns must be 0/1 opposites")
    return np.asarray(score) >= threshold, privileged == 1, unprivileged == 1


def demographic_parity(score: np.ndarray, privileged: np.ndarray, unprivileged: np.ndarray,
                       threshold: float = 0.5) -> float:  # fmt: skip
    """P(positive | unprivileged) - P(positive | privileged)."""
    pred, p, u = _groups(score, privileged, unprivileged, threshold)
    return _rates(pred[u])[0] - _rates(pred[p])[0]


def disparate_impact(score: np.ndarray, privileged: np.ndarray, unprivileged: np.ndarray,
                     threshold: float = 0.5) -> float:  # fmt: skip
    """P(positive | unprivileged) / P(positive | privileged)."""
    pred, p, u = _groups(score, privileged, unprivileged, threshold)
    base = _rates(pred[p])[0]
    return _rates(pred[u])[0] / base if base else float("inf")


def equal_opportunity(truth: np.ndarray, score: np.ndarray, privileged: np.ndarray,
                      unprivileged: np.ndarray, threshold: float = 0.5) -> float:  # fmt: skip
    """TPR(unprivileged) - TPR(privileged)."""
    pred, p, u = _groups(score, privileged, unprivileged, threshold)
    return _rates(pred[u], truth[u])[1] - _rates(pred[p], truth[p])[1]


def equalised_odds(truth: np.ndarray, score: np.ndarray, privileged: np.ndarray,
                   unprivileged: np.ndarray, threshold: float = 0.5) -> float:  # fmt: skip
    """Average absolute odds difference: (|dFPR| + |dTPR|) / 2 between the groups."""
    pred, p, u = _groups(score, privileged, unprivileged, threshold)
    _, tpr_u, fpr_u = _rates(pred[u], truth[u])
    _, tpr_p, fpr_p = _rates(pred[p], truth[p])
    return (abs(fpr_u - fpr_p) + abs(tpr_u - tpr_p)) / 2


def theil_index(truth: np.ndarray, score: np.ndarray, threshold: float = 0.5) -> float:
    """Generalized entropy index (alpha 1) of the benefits b = prediction - truth + 1."""
    b = (np.asarray(score) > threshold).astype(np.float64) - np.asarray(truth, np.float64) + 1
    ratio = b / b.mean()
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(ratio > 0, ratio * np.log(ratio), 0.0)
    return float(terms.mean())

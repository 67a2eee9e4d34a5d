"""Evaluation metrics as NNC computes them, and the ``confusion_matrix_<var>.csv`` layout.

Classification (docs/nnc-behaviour.md §7): the true class is ``int(value)`` of a single target
column or the argmax of a one-hot target; the predicted class is ``round(value)`` of a single output
column (a sigmoid gives 0/1) or the first argmax over several. Classes are 0 .. the largest true
class; predictions outside that range count in no cell of the matrix. Recall, precision and
F-measure per class, accuracy, and their unweighted means over the classes (zero-support classes
count as 0). The CSV follows NNC for Windows (docs/formats.md §3.2): counts as integers, metrics
with 4 decimals, CRLF line ends, every row as wide as the matrix plus two cells.

Regression: mean absolute error, mean squared error, its root and R² over every element.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

__all__ = [
    "Classification", "MetricsError", "classify", "confusion_matrix_csv", "regression",
    "is_classification",
]  # fmt: skip

MAX_CLASS = 10_000


class MetricsError(ValueError):
    """Targets that cannot be classes (negative or above 10,000)."""


@dataclass(frozen=True)
class Classification:
    matrix: np.ndarray  # (K, K) int64; row = true class, column = predicted class
    recall: np.ndarray
    precision: np.ndarray
    f_measure: np.ndarray
    accuracy: float
    avg_precision: float
    avg_recall: float
    avg_f_measure: float

    @property
    def classes(self) -> int:
        return int(self.matrix.shape[0])

    def to_json(self) -> dict[str, object]:
        return {
            "classes": self.classes, "accuracy": self.accuracy,
            "avg_precision": self.avg_precision, "avg_recall": self.avg_recall,
            "avg_f_measure": self.avg_f_measure, "confusion_matrix": self.matrix.tolist(),
            "precision": self.precision.tolist(), "recall": self.recall.tolist(),
            "f_measure": self.f_measure.tolist(),
        }  # fmt: skip


def true_classes(targets: np.ndarray) -> np.ndarray:
    """``int(value)`` of a single column, the argmax of several (one-hot)."""
    targets = np.asarray(targets, dtype=np.float64).reshape(len(targets), -1)
    if targets.shape[1] == 1:
        return np.asarray(targets[:, 0], dtype=np.int64)
    return np.asarray(np.argmax(targets, axis=1), dtype=np.int64)


def predicted_classes(outputs: np.ndarray) -> np.ndarray:
    """``round(value)`` of a single column (Python 3's round: halves to even); the first argmax
    of several."""
    outputs = np.asarray(outputs, dtype=np.float64).reshape(len(outputs), -1)
    if outputs.shape[1] == 1:
        return np.asarray(np.rint(outputs[:, 0]), dtype=np.int64)
    return np.asarray(np.argmax(outputs, axis=1), dtype=np.int64)


def is_classification(targets: np.ndarray, outputs: np.ndarray) -> bool:
    """Targets that are class indices (or one-hot vectors matching the output width)."""
    targets = np.asarray(targets, dtype=np.float64).reshape(len(targets), -1)
    outputs = np.asarray(outputs).reshape(len(outputs), -1)
    if len(targets) == 0:
        return False
    if targets.shape[1] > 1:
        one_hot = np.all((targets == 0) | (targets == 1)) and targets.shape[1] == outputs.shape[1]
        return bool(one_hot)
    values = targets[:, 0]
    return bool(np.all(values == np.floor(values)) and values.min() >= 0
                and values.max() <= MAX_CLASS)  # fmt: skip


def classify(targets: np.ndarray, outputs: np.ndarray) -> Classification:
    """The confusion matrix and NNC's metrics."""
    truth = true_classes(targets)
    if len(truth) and (truth.min() < 0 or truth.max() > MAX_CLASS):
        raise MetricsError(
            f"true classes must be 0..{MAX_CLASS}. Received: {int(truth.min())}..{int(truth.max())}"
        )
    predicted = predicted_classes(outputs)
    k = int(truth.max()) + 1 if len(truth) else 0
    matrix = np.zeros((k, k), dtype=np.int64)
    inside = (predicted >= 0) & (predicted < k)
    np.add.at(matrix, (truth[inside], predicted[inside]), 1)
    diagonal = np.diag(matrix).astype(np.float64)
    rows, cols = matrix.sum(axis=1), matrix.sum(axis=0)
    recall = np.divide(diagonal, rows, out=np.zeros(k), where=rows > 0)
    precision = np.divide(diagonal, cols, out=np.zeros(k), where=cols > 0)
    both = precision + recall
    f_measure = np.divide(2 * precision * recall, both, out=np.zeros(k), where=both > 0)
    total = matrix.sum()
    return Classification(
        matrix=matrix, recall=recall, precision=precision, f_measure=f_measure,
        accuracy=float(diagonal.sum() / total) if total else 0.0,
        avg_precision=float(precision.mean()) if k else 0.0,
        avg_recall=float(recall.mean()) if k else 0.0,
        avg_f_measure=float(f_measure.mean()) if k else 0.0,
    )  # fmt: skip


def confusion_matrix_csv(
    result: Classification, row_labels: Sequence[str], column_labels: Sequence[str]
) -> str:
    """The file text in NNC for Windows' layout (CRLF)."""
    k = result.classes
    width = k + 2

    def line(cells: Sequence[str]) -> str:
        return ",".join(list(cells) + [""] * (width - len(cells)))

    lines = [line(["", *column_labels[:k], "Recall"])]
    for i in range(k):
        counts = [str(int(n)) for n in result.matrix[i]]
        lines.append(line([row_labels[i], *counts, f"{result.recall[i]:.4f}"]))
    lines.append(line(["Precision", *(f"{v:.4f}" for v in result.precision)]))
    lines.append(line(["F-Measures", *(f"{v:.4f}" for v in result.f_measure)]))
    lines.append(line([]))
    lines.append(line(["Accuracy", f"{result.accuracy:.4f}"]))
    lines.append(line(["Avg.Precision", f"{result.avg_precision:.4f}"]))
    lines.append(line(["Avg.Recall", f"{result.avg_recall:.4f}"]))
    lines.append(line(["Avg.F-Measures", f"{result.avg_f_measure:.4f}"]))
    return "\r\n".join(lines) + "\r\n"


def regression(targets: np.ndarray, outputs: np.ndarray) -> dict[str, float]:
    """MAE, MSE, RMSE and R² over every element (targets reshaped to the outputs)."""
    y = np.asarray(targets, dtype=np.float64).reshape(len(targets), -1)
    p = np.asarray(outputs, dtype=np.float64).reshape(len(outputs), -1)
    if y.shape != p.shape:
        y = y.reshape(p.shape) if y.size == p.size else y
    error = p - y
    mse = float(np.mean(error**2)) if error.size else 0.0
    variance = float(np.sum((y - y.mean()) ** 2)) if y.size else 0.0
    r2 = 1.0 - float(np.sum(error**2)) / variance if variance > 0 else 0.0
    return {"mae": float(np.mean(np.abs(error))) if error.size else 0.0, "mse": mse,
            "rmse": mse**0.5, "r2": r2}  # fmt: skip

"""The TRAINING tab's job history table: its columns, texts and the order of its rows (each
trained job, then the quantization experiments run on it)."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QT_TRANSLATE_NOOP, Qt

from engine.runtime import job_history as H

COLUMNS = ("Name", "Status", "Date", "Epoch", "Accuracy", "Cost", "Training loss",
           "Validation loss", "CostParameter", "CostMultiplyAdd")  # fmt: skip
_COLUMN_TEXTS = (  # the headings COLUMNS translates, for pyside6-lupdate
    QT_TRANSLATE_NOOP("TrainingTab", "Name"), QT_TRANSLATE_NOOP("TrainingTab", "Status"),
    QT_TRANSLATE_NOOP("TrainingTab", "Date"), QT_TRANSLATE_NOOP("TrainingTab", "Epoch"),
    QT_TRANSLATE_NOOP("TrainingTab", "Accuracy"), QT_TRANSLATE_NOOP("TrainingTab", "Cost"),
    QT_TRANSLATE_NOOP("TrainingTab", "Training loss"),
    QT_TRANSLATE_NOOP("TrainingTab", "Validation loss"),
)  # fmt: skip
GROUP_ROLE = Qt.ItemDataRole.UserRole + 1  # a quantization experiment's row: its folder
TRADEOFF_STATISTICS = ("CostMultiplyAdd", "CostParameter", "UniqueParameters", "FLOPs",
                       "CostAdd", "CostMultiply", "Output", "ParameterBytes")  # fmt: skip
_STATUS_TEXTS = (
    QT_TRANSLATE_NOOP("TrainingTab", "running"),
    QT_TRANSLATE_NOOP("TrainingTab", "finished"),
    QT_TRANSLATE_NOOP("TrainingTab", "stopped"),
    QT_TRANSLATE_NOOP("TrainingTab", "interrupted"),
    QT_TRANSLATE_NOOP("TrainingTab", "failed"),
)  # fmt: skip  (job statuses shown)
STATUS_COLORS = {"running": "#1f77b4", "finished": "#2ca02c", "stopped": "#ff7f0e",
                 "interrupted": "#ff7f0e", "failed": "#d62728"}  # fmt: skip


def _fmt(value: float | None) -> str:
    return "" if value is None else f"{value:.6g}"


def _duration(seconds: float) -> str:
    seconds = max(0, int(seconds))
    return f"{seconds // 3600:d}:{seconds % 3600 // 60:02d}:{seconds % 60:02d}"


def _history_rows(jobs: list[H.JobInfo]) -> tuple[list[H.JobInfo], list[H.JobInfo | Path]]:
    """The history's order: each trained job, then the quantization experiments run on it (an
    experiment's row, then its points); experiments whose job is gone come last."""
    experiments: dict[Path, list[H.JobInfo]] = {}
    for job in jobs:
        if job.experiment is not None:
            experiments.setdefault(job.experiment, []).append(job)
    for experiment, points in experiments.items():
        order = H.experiment_order(experiment)
        points.sort(key=lambda j: order.index(j.path.name) if j.path.name in order else len(order))
    rows: list[H.JobInfo | Path] = []
    for job in jobs:
        if job.experiment is not None:
            continue
        rows.append(job)
        for experiment, points in experiments.items():
            if H.experiment_source(experiment) == job.path:
                rows += [experiment, *points]
    for experiment, points in experiments.items():
        if experiment not in rows:
            rows += [experiment, *points]
    return [r for r in rows if isinstance(r, H.JobInfo)], rows


def _sweep_baseline(job: Path) -> bool:
    """A quantization sweep's float point: its job evaluated again (one point, drawn once)."""
    return job.name == "float" and (job.parent / "results.csv").is_file()

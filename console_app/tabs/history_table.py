"""The TRAINING tab's job history table: its columns, texts and the order of its rows (each
trained job, then the quantization experiments run on it), and :class:`HistoryRows`, the
tab's mixin for the experiments' collapsible rows and the selection."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QT_TRANSLATE_NOOP, Qt
from PySide6.QtWidgets import QAbstractItemView, QTableWidgetItem

from console_app.language import translate
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


class HistoryRows:
    """The history's rows for :class:`console_app.tabs.training_tab.TrainingTab` (its
    ``table``, ``rows``, ``jobs`` and ``expanded``): an experiment's row shows or hides its
    points; which jobs are selected."""

    def _set_group_row(self, row: int, experiment: Path) -> None:
        points = [j for j in self.jobs if j.experiment == experiment]
        source = H.experiment_source(experiment)
        text = (
            translate("TrainingTab", "Quantization experiment {0} of {1}: {2} points").format(
                experiment.name, source.name, len(points))
            if source is not None
            else translate("TrainingTab", "Quantization experiment {0}: {1} points").format(
                experiment.name, len(points))
        )  # fmt: skip
        item = QTableWidgetItem(text)
        item.setData(GROUP_ROLE, str(experiment))
        item.setFlags(Qt.ItemFlag.ItemIsEnabled)  # not a job: never selected
        item.setToolTip(translate("TrainingTab", "Click to show or hide the experiment's points"))
        font = item.font()
        font.setItalic(True)
        item.setFont(font)
        self.table.setItem(row, 0, item)
        self.table.setSpan(row, 0, 1, len(COLUMNS))

    def _show_groups(self) -> None:
        """Hide the points of collapsed experiments; the experiment row says which way."""
        for row, job in enumerate(self.rows):
            if isinstance(job, Path):
                item = self.table.item(row, 0)
                text = item.text().lstrip("▸▾ ")
                item.setText(("▾ " if job in self.expanded else "▸ ") + text)
            else:
                experiment = job.experiment
                self.table.setRowHidden(row, experiment is not None and
                                        experiment not in self.expanded)  # fmt: skip
        self._resize_columns()

    def _resize_columns(self) -> None:
        """Columns as wide as the jobs' values (an experiment's row spans them all and does
        not widen the first: its text is left out while measuring)."""
        groups = [(self.table.item(r, 0), self.table.item(r, 0).text())
                  for r, j in enumerate(self.rows) if isinstance(j, Path)]  # fmt: skip
        blocked = self.table.blockSignals(True)
        for item, _text in groups:
            item.setText("")
        self.table.resizeColumnsToContents()
        for item, text in groups:
            item.setText(text)
        self.table.blockSignals(blocked)

    def _toggle_group(self, row: int) -> None:
        """A click on an experiment's row shows or hides its points."""
        if 0 <= row < len(self.rows) and isinstance(self.rows[row], Path):
            experiment = self.rows[row]
            self.expanded ^= {experiment}
            self._show_groups()

    def row_of(self, job: Path) -> int:
        """The history's row showing ``job`` (-1: not listed)."""
        return next((r for r, j in enumerate(self.rows) if isinstance(j, H.JobInfo)
                     and j.path == job), -1)  # fmt: skip

    def selected_jobs(self) -> list[Path]:
        rows = sorted({i.row() for i in self.table.selectedItems()})
        return [job.path for r in rows if r < len(self.rows)
                and isinstance(job := self.rows[r], H.JobInfo)]  # fmt: skip

    def selected_job(self) -> Path | None:
        jobs = self.selected_jobs()
        return jobs[0] if len(jobs) == 1 else None

    def select_jobs(self, paths: list[Path]) -> None:
        self.table.clearSelection()
        mode = self.table.selectionMode()
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.MultiSelection)
        for row, job in enumerate(self.rows):
            if isinstance(job, H.JobInfo) and job.path in paths:
                if job.experiment is not None and job.experiment not in self.expanded:
                    self.expanded.add(job.experiment)
                    self._show_groups()
                self.table.selectRow(row)
        self.table.setSelectionMode(mode)

"""EVALUATION: evaluate a job on a dataset; output result, confusion matrix, accuracy summary.

Evaluate runs ``neurocanvas evaluate JOB --dataset NAME --checkpoint best|last`` as a child
process (:class:`JobRunner`), then shows what it wrote into the job folder:
``output_result.csv`` (thumbnails for image cells), the confusion matrix of each classified
output with per-class recall, precision and F-measure (``evaluation.json``) and the averages.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import numpy as np
from PySide6.QtCore import QPoint, QSize, Qt, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QTableView,
    QTableWidget,
    QTableWidgetItem,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from console_app.language import shown, translate
from console_app.report_action import ReportController
from console_app.settings import AppSettings
from console_app.tabs.job_runner import JobRunner
from console_app.tabs.plugin_panel import Catalogue, PluginPanel
from console_app.tabs.table_model import THUMB, CsvTableModel, read_csv_rows
from engine.runtime.metrics import predicted_classes


def _pct(value: float) -> str:
    return f"{value:.4f}"


def job_datasets(job: Path) -> list[str]:
    """The dataset links a job knows (its config.json), executor's dataset first."""
    try:
        plan = json.loads((job / "config.json").read_text(encoding="utf-8"))["plan"]
    except (OSError, ValueError, KeyError):
        return []
    names = list(plan.get("datasets", {}))
    executors = plan.get("executors") or []
    first = executors[0].get("dataset") if executors else None
    if first in names:
        names.remove(first)
        names.insert(0, first)
    return names


RECALL = "Recall"  # a metric name: kept as NNC shows it, as the rows' Precision, F-Measure


class EvaluationTab(QWidget):
    evaluated = Signal(str)  # finished or failed

    def __init__(self, settings: AppSettings | None = None) -> None:
        super().__init__()
        self.settings = settings if settings is not None else AppSettings()
        self.runner = JobRunner(self)
        self.runner.ended.connect(self._ended)
        self.runner.log.connect(lambda line: self.log.appendPlainText(line))
        self.summary: dict[str, Any] = {}
        self.last_message = ""
        self.output_model: CsvTableModel | None = None
        self.plugin_menu_shown: Any = None
        self.job_combo = QComboBox()
        self.job_combo.setMinimumContentsLength(16)
        # As wide as the longest job name (they were cut); the list elides in the middle and
        # each entry's tooltip gives the whole name and folder.
        self.job_combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.job_combo.view().setTextElideMode(Qt.TextElideMode.ElideMiddle)
        self.job_combo.currentIndexChanged.connect(self._job_changed)
        adjust = QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon
        self.dataset_combo = QComboBox()
        self.dataset_combo.setEditable(True)  # a dataset link name or a CSV path
        self.dataset_combo.setMinimumContentsLength(12)
        self.dataset_combo.setSizeAdjustPolicy(adjust)
        self.browse_button = QPushButton(translate("EvaluationTab", "CSV..."))
        self.browse_button.clicked.connect(self._browse)
        self.checkpoint = QComboBox()
        self.checkpoint.addItems(
            [
                "best",
                "last",
            ]
        )
        self.evaluate_button = QPushButton(translate("EvaluationTab", "Evaluate"))
        self.evaluate_button.clicked.connect(lambda: self.evaluate())
        self.report_button = QPushButton(translate("EvaluationTab", "Report..."))
        self.report_button.setToolTip(
            translate("EvaluationTab", "Write this job's PowerPoint report (with its evaluation)")
        )
        self.reports = ReportController(self)
        self.report_button.clicked.connect(lambda: self.reports.start(self.current_job()))
        self.save_output_button = QPushButton(translate("EvaluationTab", "Save output as CSV..."))
        self.save_output_button.clicked.connect(lambda: self.save_output())
        self.save_matrix_button = QPushButton(
            translate("EvaluationTab", "Save confusion matrix as CSV...")
        )
        self.save_matrix_button.clicked.connect(lambda: self.save_matrix())
        top = QHBoxLayout()
        for w in (
            QLabel(translate("EvaluationTab", "Job:")),
            self.job_combo,
            QLabel(translate("EvaluationTab", "Dataset:")),
            self.dataset_combo,
            self.browse_button,
            QLabel(translate("EvaluationTab", "Parameters:")),
            self.checkpoint,
            self.evaluate_button,
        ):
            top.addWidget(w)
        top.addStretch(1)
        saves = QHBoxLayout()
        saves.addWidget(self.report_button)
        saves.addStretch(1)
        saves.addWidget(self.save_output_button)
        saves.addWidget(self.save_matrix_button)

        self.summary_label = QLabel(translate("EvaluationTab", "No evaluation yet"))
        self.summary_label.setWordWrap(True)
        self.output_view = QTableView()
        self.output_view.setIconSize(QSize(THUMB, THUMB))
        self.output_view.verticalHeader().setDefaultSectionSize(THUMB + 4)
        self.output_view.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.output_view.customContextMenuRequested.connect(self._output_menu)
        self.catalogue = Catalogue(self.settings.plugin_folders())
        self.plugins = PluginPanel(self.catalogue, self.settings)
        self.plugins.finished.connect(lambda status, _: self._plugin_ended(status))
        self.variable_combo = QComboBox()
        self.variable_combo.currentTextChanged.connect(self._show_matrix)
        self.matrix = QTableWidget()
        matrix_page = QWidget()
        mv = QVBoxLayout(matrix_page)
        row = QHBoxLayout()
        row.addWidget(QLabel(translate("EvaluationTab", "Output:")))
        row.addWidget(self.variable_combo)
        row.addStretch(1)
        mv.addLayout(row)
        mv.addWidget(self.matrix)
        self.views = QTabWidget()
        self.views.addTab(self.output_view, translate("EvaluationTab", "Output Result"))
        self.views.addTab(matrix_page, translate("EvaluationTab", "Confusion Matrix"))
        self.views.addTab(self.plugins, translate("EvaluationTab", "Plugin Results"))
        self.log = QPlainTextEdit()
        self.log.setReadOnly(True)
        self.log.setMaximumBlockCount(2000)
        body = QSplitter()
        body.setOrientation(body.orientation().Vertical)
        body.addWidget(self.views)
        body.addWidget(self.log)
        body.setSizes([700, 90])
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(self.summary_label)
        layout.addLayout(saves)
        layout.addWidget(body, 1)
        self._update_buttons()

    # -- jobs ------------------------------------------------------------------------------
    def set_jobs(self, jobs: list[Path]) -> None:
        """The project's job folders (trained jobs newest first, then each quantization
        experiment's points under the experiment's row). The chosen job stays, unless it cannot
        be evaluated (a run that failed before training has no datasets): then a job that
        appears (the next run) is chosen instead. With none chosen yet (the project was just
        opened), the newest evaluated trained job is chosen: its results show at once.
        """
        current = self.current_job()
        trained = [j for j in jobs if not _point(j)]
        points = [j for j in jobs if _point(j)]
        entries = [(_label(j), j) for j in trained[::-1]]
        for experiment in dict.fromkeys(j.parent for j in points[::-1]):
            entries.append((self.tr("Quantization experiment {0}").format(experiment.name), None))
            # in the order the sweep ran them (the history's): float baseline, 8-bit PTQ, ...
            entries += [("    " + _label(j), j) for j in points if j.parent == experiment]
        listed = [self.job_combo.itemData(i) for i in range(self.job_combo.count())]
        if listed == [str(j) if j else None for _t, j in entries] and self.dataset_combo.count():
            return  # the history refreshed (a status changed): nothing to re-read here
        if current not in jobs:  # another project's, or none yet
            current = None
        new = [job for job in jobs if str(job) not in listed]
        usable = current is not None and bool(job_datasets(current))
        if current is None:
            chosen = _preferred(trained, points)
        elif new and not usable:
            chosen = ([j for j in new if not _point(j)] or new)[-1]
        else:
            chosen = current
        self.job_combo.blockSignals(True)
        self.job_combo.clear()
        model = self.job_combo.model()
        for text, job in entries:
            if job is None:  # an experiment's heading: groups its points, never chosen
                self.job_combo.addItem(text)
                item = model.item(self.job_combo.count() - 1)  # type: ignore[attr-defined]
                item.setEnabled(False)
                font = item.font()
                font.setItalic(True)
                item.setFont(font)
                continue
            self.job_combo.addItem(text, str(job))
            self.job_combo.setItemData(self.job_combo.count() - 1, f"{_label(job)}\n{job}",
                                       Qt.ItemDataRole.ToolTipRole)  # fmt: skip
        if chosen is not None:
            self.job_combo.setCurrentIndex(self.job_combo.findData(str(chosen)))
        self.job_combo.blockSignals(False)
        self._job_changed()

    def set_document(self, _document: Any) -> None:
        """Another project (its jobs come from TRAINING's set_jobs): the last project's
        commands and errors would read as this one's, unless an evaluation still runs."""
        if not self.runner.is_running():
            self.log.clear()

    def select_job(self, job: Path) -> bool:
        index = self.job_combo.findData(str(job))
        if index >= 0:
            self.job_combo.setCurrentIndex(index)
        return index >= 0

    def current_job(self) -> Path | None:
        data = self.job_combo.currentData()
        return Path(data) if data else None

    def _job_changed(self) -> None:
        job = self.current_job()
        self.job_combo.setToolTip(f"{_label(job)}\n{job}" if job is not None else "")
        self.plugins.set_job(job)
        text = self.dataset_combo.currentText()
        self.dataset_combo.clear()
        if job is not None:
            self.dataset_combo.addItems(job_datasets(job))
            if text and self.dataset_combo.findText(text) >= 0:
                self.dataset_combo.setCurrentText(text)
            if (job / "evaluation.json").exists():
                self.show_results(job)
            else:  # another job's table would read as this one's
                self.clear_results(
                    translate("EvaluationTab", "{name}: not evaluated yet (click Evaluate)").format(
                        name=job.name
                    )
                )
        else:  # another project's
            self.clear_results(
                translate("EvaluationTab", "No job yet: train the project in TRAINING")
            )
        self._update_buttons()

    def _browse(self) -> None:
        path, _ = QFileDialog.getOpenFileName(
            self,
            translate("EvaluationTab", "Dataset CSV"),
            "",
            translate("EvaluationTab", "CSV (*.csv)"),
        )
        if path:
            self.dataset_combo.setCurrentText(path)

    # -- evaluating ------------------------------------------------------------------------
    def evaluate(self, job: Path | None = None, dataset: str | None = None,
                 checkpoint: str | None = None) -> bool:  # fmt: skip
        job = job or self.current_job()
        if job is None or self.runner.is_running():
            return False
        dataset = dataset if dataset is not None else self.dataset_combo.currentText()
        self.runner.evaluate(job, dataset or None, checkpoint or self.checkpoint.currentText())
        self.summary_label.setText(
            translate("EvaluationTab", "Evaluating {name}...").format(name=job.name)
        )
        self._update_buttons(running=True)
        return True

    def _ended(self, status: str, message: str) -> None:
        self.last_message = message
        self._update_buttons(running=False)
        if status == "failed":
            self.summary_label.setText(
                translate("EvaluationTab", "Evaluation failed: ")
                + shown(self.runner.first_line(message))
            )
            self.log.appendPlainText(message)
        elif status == "finished" and self.runner.job_dir is not None:
            self.show_results(self.runner.job_dir)  # not when stopped: nothing new was written
        self.evaluated.emit(status)

    # -- results ---------------------------------------------------------------------------
    def show_results(self, job: Path) -> None:
        try:
            self.summary = json.loads((job / "evaluation.json").read_text(encoding="utf-8"))
            header, rows = read_csv_rows(job / "output_result.csv")
        except (OSError, ValueError) as exc:
            self.summary_label.setText(
                translate("EvaluationTab", "{name}: cannot read the evaluation: {exc}").format(
                    name=job.name, exc=exc
                )
            )
            return
        header, rows = with_predicted_classes(header, rows, list(self.summary.get(
            "classification", {})), self.tr("{0}: predicted class"))  # fmt: skip
        dataset = Path(str(self.summary.get("csv") or job)).absolute().parent
        self.output_model = CsvTableModel(header, rows, job, root=dataset, decimals=4)
        self.output_view.setModel(self.output_model)
        self.output_view.resizeColumnsToContents()
        self.catalogue.load()  # the plugins of the output table's menu, read in a thread
        self.summary_label.setText(self.summary_text())
        self.variable_combo.blockSignals(True)
        self.variable_combo.clear()
        self.variable_combo.addItems(list(self.summary.get("classification", {})))
        self.variable_combo.blockSignals(False)
        self._show_matrix(self.variable_combo.currentText())
        self._update_buttons()

    def clear_results(self, text: str) -> None:
        self.summary = {}
        self.output_model = None
        self.output_view.setModel(None)
        self.summary_label.setText(text)
        self.variable_combo.clear()
        self._show_matrix("")

    def summary_text(self) -> str:
        s = self.summary
        networks = ", ".join(e["network"] for e in s.get("executors", [])) or s.get("network")
        parts = [translate("EvaluationTab", "{rows} rows of {dataset} with the {checkpoint} "
                           "parameters ({networks})").format(
            rows=s.get("rows"), dataset=s.get("dataset"), checkpoint=s.get("checkpoint"),
            networks=networks)]  # fmt: skip
        for name, m in s.get("classification", {}).items():
            parts.append(translate("EvaluationTab", "{name}: accuracy {accuracy}, avg. precision "
                                   "{precision}, avg. recall {recall}, avg. F-measure {f}").format(
                name=name, accuracy=_pct(m["accuracy"]), precision=_pct(m["avg_precision"]),
                recall=_pct(m["avg_recall"]), f=_pct(m["avg_f_measure"])))  # fmt: skip
        for name, m in s.get("regression", {}).items():
            parts.append(f"{name}: MAE {m['mae']:.6g}, RMSE {m['rmse']:.6g}, R2 {m['r2']:.4f}")
        return " | ".join(parts)

    def _show_matrix(self, name: str) -> None:
        m = self.summary.get("classification", {}).get(name)
        self.matrix.clear()
        if not m:
            self.matrix.setRowCount(0)
            self.matrix.setColumnCount(0)
            return
        counts = m["confusion_matrix"]
        n = len(counts)
        self.matrix.setRowCount(n + 7)
        self.matrix.setColumnCount(n + 1)
        self.matrix.setHorizontalHeaderLabels([f"{name}={j}" for j in range(n)] + [RECALL])
        labels = [f"y={i}" for i in range(n)] + ["Precision", "F-Measure", "", "Accuracy",
                                                  "Avg. Precision", "Avg. Recall",
                                                  "Avg. F-Measure"]  # fmt: skip
        self.matrix.setVerticalHeaderLabels(labels)
        for i, row in enumerate(counts):
            for j, value in enumerate(row):
                self.matrix.setItem(i, j, QTableWidgetItem(str(value)))
            self.matrix.setItem(i, n, QTableWidgetItem(_pct(m["recall"][i])))
        for j in range(n):
            self.matrix.setItem(n, j, QTableWidgetItem(_pct(m["precision"][j])))
            self.matrix.setItem(n + 1, j, QTableWidgetItem(_pct(m["f_measure"][j])))
        for k, key in enumerate(("accuracy", "avg_precision", "avg_recall", "avg_f_measure")):
            self.matrix.setItem(n + 3 + k, 0, QTableWidgetItem(_pct(m[key])))
        self.matrix.resizeColumnsToContents()

    # -- plugins ---------------------------------------------------------------------------
    def _output_menu(self, pos: QPoint) -> None:
        """Right click on the output table: the plugins, for the row under the pointer."""
        if self.current_job() is None or self.output_model is None:
            return
        index = self.output_view.indexAt(pos)
        row = index.row() if index.isValid() else None
        selected = self.output_view.selectionModel()
        rows = sorted({i.row() for i in selected.selectedIndexes()}) if selected else []
        self.plugin_menu_shown = self.plugins.build_menu(self, row, rows)
        self.plugin_menu_shown.popup(self.output_view.viewport().mapToGlobal(pos))

    def _plugin_ended(self, status: str) -> None:
        if status == "finished":
            self.views.setCurrentWidget(self.plugins)

    # -- saving ----------------------------------------------------------------------------
    def ask_save_path(self, suggested: str) -> str | None:
        path, _ = QFileDialog.getSaveFileName(
            self,
            translate("EvaluationTab", "Save as CSV"),
            suggested,
            translate("EvaluationTab", "CSV (*.csv)"),
        )
        return path or None

    def save_output(self, path: str | None = None) -> bool:
        job = self.current_job()
        if job is None or not (job / "output_result.csv").exists():
            return False
        path = path or self.ask_save_path("output_result.csv")
        if not path:
            return False
        shutil.copyfile(job / "output_result.csv", path)
        return True

    def save_matrix(self, path: str | None = None) -> bool:
        job, name = self.current_job(), self.variable_combo.currentText()
        source = job / f"confusion_matrix_{name.rstrip(chr(39))}.csv" if job and name else None
        if source is None or not source.exists():
            return False
        path = path or self.ask_save_path(source.name)
        if not path:
            return False
        shutil.copyfile(source, path)
        return True

    def _update_buttons(self, running: bool | None = None) -> None:
        running = self.runner.is_running() if running is None else running
        job = self.current_job()
        self.evaluate_button.setEnabled(job is not None and not running)
        self.report_button.setEnabled(job is not None and not running)
        has_output = job is not None and (job / "output_result.csv").exists()
        self.save_output_button.setEnabled(has_output and not running)
        self.save_matrix_button.setEnabled(has_output and not running and bool(self.summary))


def _preferred(trained: list[Path], points: list[Path]) -> Path | None:
    """What to show first: the newest evaluated trained job, else the newest trained job
    (a search attempt nobody evaluated is not preferred to an evaluated one)."""
    evaluated = [j for j in trained if (j / "evaluation.json").is_file()]
    return (evaluated or trained or points or [None])[-1]


def with_predicted_classes(
    header: list[str], rows: list[list[str]], outputs: list[str], title: str = "{0}: class"
) -> tuple[list[str], list[list[str]]]:
    """output_result.csv with a predicted-class column after each classified output's columns
    (``y'`` or ``y'__0 .. y'__9``), by the rule the confusion matrix counts with
    (:func:`engine.runtime.metrics.predicted_classes`)."""
    header, rows = list(header), [list(r) for r in rows]
    for name in outputs:
        columns = [c for c, h in enumerate(header) if h == name or h.startswith(name + "__")]
        if not columns or not rows:
            continue
        try:
            values = np.array([[float(r[c]) for c in columns] for r in rows])
        except (ValueError, IndexError):
            continue  # not numbers: nothing to predict from
        at = columns[-1] + 1
        header.insert(at, title.format(name))
        for row, k in zip(rows, predicted_classes(values), strict=True):
            row.insert(at, str(int(k)))
    return header, rows


def _point(job: Path) -> bool:
    """A point of a quantization experiment (its folder holds results.csv)."""
    return (job.parent / "results.csv").is_file()


def _label(job: Path) -> str:
    """The name the job history shows (a rename, a sweep point's ``<sweep>: 8-bit PTQ``)."""
    try:
        name = json.loads((job / "label.json").read_text(encoding="utf-8")).get("name")
    except (OSError, ValueError, AttributeError):
        name = None
    return str(name) if name else job.name

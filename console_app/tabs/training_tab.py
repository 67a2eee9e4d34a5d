"""TRAINING: one-click Run/Stop/Resume, the live learning curve, the log and the job history.

Run writes the document to a snapshot (:mod:`console_app.tabs.snapshot`) and starts
``neurocanvas train SNAPSHOT -o <project>.files/<date_time> --events`` through
:class:`JobRunner`; the editor stays responsive. The history lists every job folder of the
project (:mod:`engine.runtime.job_history`); selecting several overlays their curves.
"""

from __future__ import annotations

import datetime as _dt
import time
from pathlib import Path
from typing import Any

from PySide6.QtCore import QPoint, Qt, Signal
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QHBoxLayout,
    QLabel,
    QMenu,
    QPlainTextEdit,
    QProgressBar,
    QPushButton,
    QSpinBox,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from console_app.document import Document
from console_app.language import error_text, shown, translate
from console_app.report_action import ReportController
from console_app.tabs import job_buttons, job_menu
from console_app.tabs.history_table import (
    COLUMNS,
    STATUS_COLORS,
    TRADEOFF_STATISTICS,
    HistoryRows,
    _duration,
    _history_rows,
    _sweep_baseline,
)
from console_app.tabs.job_dialogs import JobDialogs
from console_app.tabs.job_runner import JobRunner
from console_app.tabs.job_watch import JobsWatcher
from console_app.tabs.plots import LearningCurvePlot, TradeoffPlot
from console_app.tabs.quantization_experiment import open_experiment
from console_app.tabs.search_control import SearchControl
from console_app.tabs.snapshot import write_snapshot
from engine.core.messages import Message, from_event
from engine.core.numbers import count_text, short_float
from engine.formats import ProjectFileError
from engine.runtime import job_history as H


class TrainingTab(QWidget, JobDialogs, HistoryRows):
    run_ended = Signal(str)  # finished, stopped or failed
    jobs_changed = Signal(list)  # list[Path], oldest first
    open_network = Signal(Path)  # a job's network.ncproj, for EDIT
    evaluate_requested = Signal(Path)  # the job menu's Evaluate, for EVALUATION

    def __init__(self, document: Document, jobs_fallback: Path) -> None:
        super().__init__()
        self.document = document
        self.jobs_fallback = jobs_fallback
        self.runner = JobRunner(self)
        self.runner.event.connect(self._on_event)
        self.runner.log.connect(self.append_log)
        self.runner.ended.connect(self._on_ended)
        self.jobs: list[H.JobInfo] = []  # in the table's order (experiment rows left out)
        self.rows: list[H.JobInfo | Path] = []  # each row: a job, or an experiment's folder
        self.expanded: set[Path] = set()  # experiments whose points are shown
        self.current_job: Path | None = None
        self.live_curve: list[tuple[int, Any, Any, Any]] = []
        self.last_status = ""
        self.last_message = ""
        self.warnings: list[str] = []
        self._warning_at: dict[str, int] = {}  # a trainer's warning (English) -> its place
        self._started = 0.0
        self._first_iteration = 0
        self._shown_root: Path | None = None
        self.watcher = JobsWatcher(self)
        self.watcher.changed.connect(self.refresh_jobs)
        self._build()
        self.search = SearchControl(self)
        self.refresh_jobs()

    # -- layout ----------------------------------------------------------------------------
    def _build(self) -> None:
        self.run_button = QPushButton(translate("TrainingTab", "Run"))
        self.run_button.setToolTip(
            translate("TrainingTab", "Train the current project (a snapshot of it) in a new job")
        )
        self.stop_button = QPushButton(translate("TrainingTab", "Stop"))
        self.stop_button.setToolTip(translate("TrainingTab", "Save a checkpoint, then end the run"))
        self.resume_button = QPushButton(translate("TrainingTab", "Resume"))
        self.resume_button.setToolTip(
            translate("TrainingTab", "Continue the selected stopped job from its checkpoint")
        )
        self.device = QComboBox()
        self.device.addItems(
            [
                "auto",
                "cpu",
                "gpu",
            ]
        )
        self.device.setToolTip(
            translate("TrainingTab", "Array backend of the trainer (auto: GPU when CuPy finds one)")
        )
        self.processes = QSpinBox()
        self.processes.setRange(1, 256)
        self.processes.setToolTip(
            translate(
                "TrainingTab",
                "Data-parallel trainers started through mpirun (one per GPU on a GPU machine); "
                "Batch Size is per process, so the global batch is Processes x Batch Size",
            )
        )
        self.progress = QProgressBar()
        self.position = QLabel(translate("TrainingTab", "No run"))
        self.timing = QLabel("")
        self.warning_label = QLabel("")
        self.warning_label.setStyleSheet("color: #b36b00; font-weight: bold")
        self.warning_label.setWordWrap(True)
        self.warning_label.hide()  # shown with a warning (an empty line took the history's room)
        # clicked(bool) must not reach a slot's first parameter (run(epochs=False) never trained)
        self.run_button.clicked.connect(lambda: self.run())
        self.stop_button.clicked.connect(lambda: self.stop())
        self.resume_button.clicked.connect(lambda: self.resume())
        top = QHBoxLayout()
        for w in (
            self.run_button,
            self.stop_button,
            self.resume_button,
            QLabel(translate("TrainingTab", "Device:")),
            self.device,
            QLabel(translate("TrainingTab", "Processes:")),
            self.processes,
            self.progress,
            self.position,
            self.timing,
        ):
            top.addWidget(w)

        self.search_results_button = QPushButton(translate("TrainingTab", "Search results..."))
        self.search_results_button.setToolTip(
            translate("TrainingTab", "The newest structure search's attempts")
        )
        self.search_results_button.clicked.connect(lambda: self.search.show_results())
        self.curve = LearningCurvePlot()
        self.log_scale = QCheckBox(translate("TrainingTab", "Log scale"))
        self.log_scale.toggled.connect(self.curve.set_log_scale)
        self.tradeoff = TradeoffPlot()
        self.statistic = QComboBox()
        self.statistic.addItems(TRADEOFF_STATISTICS)
        self.statistic.currentTextChanged.connect(lambda _t: self._draw_tradeoff())
        plots = QSplitter(Qt.Orientation.Horizontal)
        left, right = QWidget(), QWidget()
        lv, rv = QVBoxLayout(left), QVBoxLayout(right)
        lv.addWidget(self.curve)
        lv.addWidget(self.log_scale)
        rv.addWidget(self.tradeoff)
        row = QHBoxLayout()
        row.addWidget(QLabel(translate("TrainingTab", "Trade-off against:")))
        row.addWidget(self.statistic)
        row.addStretch(1)
        row.addWidget(self.search_results_button)  # a search's attempts are the graph's points
        rv.addLayout(row)
        plots.addWidget(left)
        plots.addWidget(right)
        plots.setSizes([700, 400])

        self.table = QTableWidget(0, len(COLUMNS))
        self.table.setHorizontalHeaderLabels([translate("TrainingTab", c) for c in COLUMNS])
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().setVisible(False)
        # Compact rows: at 1366x768 the history showed 5 jobs.
        self.table.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 8)
        self.table.itemSelectionChanged.connect(self._selection_changed)
        self.table.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.table.customContextMenuRequested.connect(self._show_job_menu)
        self.table.cellClicked.connect(lambda row, _col: self._toggle_group(row))
        self.job_menu_shown: QMenu | None = None
        buttons = QHBoxLayout()
        self.rename_button = QPushButton(translate("TrainingTab", "Rename..."))
        self.delete_button = QPushButton(translate("TrainingTab", "Delete..."))
        self.open_button = QPushButton(translate("TrainingTab", "Open network in EDIT"))
        self.report_button = QPushButton(translate("TrainingTab", "Report..."))  # job_buttons
        self.reports = ReportController(self)
        self.report_button.clicked.connect(self.report_selected)
        self.rename_button.clicked.connect(lambda: self.rename_selected())
        self.delete_button.clicked.connect(lambda: self.delete_selected())
        self.open_button.clicked.connect(lambda: self.open_selected())
        self.quantize_button = QPushButton(translate("TrainingTab", "Quantization experiment..."))
        self.quantize_button.clicked.connect(lambda: open_experiment(self))
        for b in (self.rename_button, self.delete_button, self.open_button, self.report_button,
                  self.quantize_button):  # fmt: skip
            buttons.addWidget(b)
        buttons.addStretch(1)
        history = QWidget()
        hv = QVBoxLayout(history)
        hv.setContentsMargins(0, 0, 0, 0)
        hv.addWidget(
            QLabel(translate("TrainingTab", "Job history (select several to overlay their curves)"))
        )
        hv.addWidget(self.table)
        hv.addLayout(buttons)

        self.log = QPlainTextEdit()
        self.log.setReadOnly(True)
        self.log.setMaximumBlockCount(5000)
        lower = QSplitter(Qt.Orientation.Horizontal)
        lower.addWidget(history)
        lower.addWidget(self.log)
        lower.setSizes([1000, 350])  # every history column fits a 1366 px wide window
        body = QSplitter(Qt.Orientation.Vertical)
        body.addWidget(plots)
        body.addWidget(lower)
        body.setSizes([330, 420])  # the history shows 10 jobs at 1366x768
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(self.warning_label)
        layout.addWidget(body, 1)
        self._update_buttons()

    # -- document --------------------------------------------------------------------------
    def set_document(self, document: Document) -> None:
        self.document = document
        if not self.runner.is_running():  # the last project's curve read as this one's
            self.current_job, self.live_curve = None, []
            self.curve.set_curves([])
            self.progress.setValue(0)
            self.position.setText(translate("TrainingTab", "No run"))
            self.timing.setText("")
            self._set_warning("")
            self.warnings, self._warning_at = [], {}
            self.log.clear()  # the last project's output read as this one's
        self.refresh_jobs()

    def showEvent(self, event) -> None:  # noqa: ANN001, N802
        """Save As moves the jobs root (beside the new file): follow it when shown."""
        if self._shown_root != self.jobs_root():
            self.refresh_jobs()
        super().showEvent(event)

    def jobs_root(self) -> Path:
        return H.jobs_root(self.document.path, self.jobs_fallback)

    # -- running ---------------------------------------------------------------------------
    def new_job_dir(self) -> Path:
        stamp = _dt.datetime.now().strftime("%Y%m%d_%H%M%S")
        base = self.jobs_root() / stamp
        candidate, k = base, 2
        while candidate.exists():
            candidate = base.with_name(f"{stamp}_{k}")
            k += 1
        return candidate

    def write_snapshot(self) -> Path | None:
        """The document as it is now, written into the jobs folder for a trainer to read
        (None: it could not be written, and the run failed with the reason)."""
        try:
            return write_snapshot(self.document.project, self.document.path, self.jobs_root())
        except (OSError, ProjectFileError, ValueError) as exc:
            self._fail_before_start(
                translate("TrainingTab", "cannot write the project snapshot: {exc}").format(
                    exc=error_text(exc)
                )
            )
            return None

    def run(
        self, epochs: int | None = None, seed: int | None = None, params: Path | None = None
    ) -> Path | None:
        """Train the document as it is now (from ``params`` when given); returns the new job
        folder (structure search enabled in CONFIG: starts the search and returns the jobs
        folder)."""
        if self.runner.is_running():
            return None
        if self.search.enabled() and params is None:
            return self.search.start(epochs)
        snapshot = self.write_snapshot()
        if snapshot is None:
            return None
        job = self.new_job_dir()
        self._begin(job, [])
        self.runner.train(snapshot, job, self.device.currentText(), epochs, seed,
                          self.processes.value(), params)  # fmt: skip
        return job

    def resume(self, job: Path | None = None, epochs: int | None = None) -> bool:
        job = job or self.selected_job()
        if job is None or self.runner.is_running():
            return False
        if not (job / "checkpoints" / "last").is_dir():
            self.append_log(
                translate("TrainingTab", "{name}: no checkpoint to resume from").format(
                    name=job.name
                )
            )
            return False
        self._begin(job, H.read_curve(job))
        self.runner.resume(job, self.device.currentText(), epochs, self.processes.value())
        return True

    def stop(self) -> bool:
        if self.runner.stop():
            self.append_log(translate("TrainingTab", "Stop requested: saving a checkpoint..."))
            self.stop_button.setEnabled(False)
            return True
        return False

    def _begin(self, job: Path, curve: list) -> None:
        self.current_job = job
        self.live_curve = list(curve)
        self.warnings, self._warning_at = [], {}
        self._set_warning("")
        self.last_status, self.last_message = "running", ""
        self._started = time.monotonic()
        self._first_iteration = -1
        self.progress.setValue(0)
        self.position.setText(translate("TrainingTab", "{name}: starting...").format(name=job.name))
        self.timing.setText("")
        self.curve.set_curves([(job.name, self.live_curve)])
        self._update_buttons(running=True)

    def _fail_before_start(self, message: str) -> None:
        self.append_log(translate("TrainingTab", "ERROR: {message}").format(message=message))
        self.last_status, self.last_message = "failed", message
        self.run_ended.emit("failed")

    def _on_event(self, record: dict) -> None:
        kind = record.get("event")
        if kind == "start":
            if record.get("job"):  # the folder the trainer took (maybe the next free one)
                self.current_job = Path(str(record["job"]))
            self.progress.setMaximum(max(1, int(record.get("max_epoch", 1)) *
                                         max(1, int(record.get("iter_per_epoch", 1)))))  # fmt: skip
            device = record.get("device", "")
            k = int(record.get("processes", 1) or 1)
            on = device
            if k > 1:
                on = translate("TrainingTab", "{device} x {k} processes").format(device=device, k=k)
            per = translate("TrainingTab", " per process") if k > 1 else ""
            self.append_log(
                translate(
                    "TrainingTab",
                    "Training on {on}, {get} epochs of {get2} iterations, batch size "
                    "{get3}{per}, seed {get4}",
                ).format(
                    on=on,
                    get=record.get("max_epoch"),
                    get2=record.get("iter_per_epoch"),
                    get3=record.get("batch_size"),
                    per=per,
                    get4=record.get("seed"),
                )
            )
            if self.device.currentText() == "gpu" and "gpu" not in str(device).lower():
                self._warn(
                    translate("TrainingTab", "asked for the GPU, training on {device}").format(
                        device=device
                    )
                )
        elif kind == "iteration":
            self._show_position(record)
        elif kind == "epoch":
            row = (int(record["epoch"]), record.get("cost"), record.get("train_error"),
                   record.get("valid_error"))  # fmt: skip
            self.live_curve = [r for r in self.live_curve if r[0] != row[0]] + [row]
            name = self.current_job.name if self.current_job else ""
            self.curve.set_curves([(name, self.live_curve)])
        elif kind == "warning":
            self._trainer_warning(from_event(record))
        elif kind == "error":
            self.append_log(
                translate("TrainingTab", "ERROR: {get}").format(get=shown(from_event(record)))
            )

    def _show_position(self, record: dict) -> None:
        iteration, total = int(record.get("iteration", 0)), int(record.get("total", 0) or 0)
        if self._first_iteration < 0:
            self._first_iteration = iteration
            self._started = time.monotonic()
        elapsed = time.monotonic() - self._started
        done = iteration - self._first_iteration
        remaining = elapsed * (total - iteration) / done if done > 0 and total else 0.0
        if total:
            self.progress.setMaximum(total)
            self.progress.setValue(iteration)
        self.position.setText(
            translate("TrainingTab", "epoch {get}, iteration {iteration}/{total}").format(
                get=record.get("epoch"), iteration=iteration, total=total
            )
        )
        self.timing.setText(
            translate("TrainingTab", "elapsed {duration}, remaining {duration2}").format(
                duration=_duration(elapsed), duration2=_duration(remaining)
            )
        )

    def _trainer_warning(self, message: str) -> None:
        """A trainer's warning, shown once: it logs some (a WARNING line, which the runner
        passes on) and sends them as events too, whose template shows in the interface's
        language: that text replaces the log line's English wherever it came first."""
        english = str(message)
        index = self._warning_at.get(english)
        if index is None:
            self._warn(shown(message))
            self._warning_at[english] = len(self.warnings) - 1
        elif isinstance(message, Message):
            self.warnings[index] = shown(message)
            self._set_warning(
                translate("TrainingTab", "Warning: ") + " | ".join(self.warnings[-3:])
            )

    def _warn(self, message: str) -> None:
        self.warnings.append(message)
        self.append_log(translate("TrainingTab", "WARNING: {message}").format(message=message))
        self._set_warning(translate("TrainingTab", "Warning: ") + " | ".join(self.warnings[-3:]))

    def _on_ended(self, status: str, message: str) -> None:
        self.last_status, self.last_message = status, message
        name = self.current_job.name if self.current_job else ""
        shown_status = translate("TrainingTab", status)  # the statuses of history_table's texts
        self.position.setText(f"{name}: {shown_status}")
        if status == "failed":
            # The rest of the message is the trainer's stderr tail, already in the log above;
            # the first line is the trainer's error event when it sent one (logged as ERROR).
            first = shown(self.runner.first_line(message))
            logged = self.log.toPlainText().splitlines()
            error_line = translate("TrainingTab", "ERROR: {get}").format(get=first)
            self.append_log(
                translate("TrainingTab", "FAILED")
                if first and error_line in logged
                else translate("TrainingTab", "FAILED: {first}").format(first=first)
            )
            text = (
                translate("TrainingTab", "Training failed: {first}").format(first=first)
                if first
                else translate("TrainingTab", "Training failed")
            )
            if self.warnings:
                text += translate("TrainingTab", "  |  Warning: ") + " | ".join(self.warnings[-3:])
            self._set_warning(text)
        elif status == "finished":
            self.progress.setValue(self.progress.maximum())
        if status in ("finished", "stopped"):
            self.timing.setText(self.timing.text().split(", remaining")[0])
        self._update_buttons(running=False)
        self.refresh_jobs()
        if status in ("stopped", "failed") and self.current_job is not None:
            self.select_jobs([self.current_job])  # what Resume continues
        self.run_ended.emit(status)

    def _set_warning(self, text: str) -> None:
        self.warning_label.setText(text)
        self.warning_label.setVisible(bool(text))

    def append_log(self, line: str) -> None:
        self.log.appendPlainText(line)

    # -- history ---------------------------------------------------------------------------
    def refresh_jobs(self) -> None:
        self._shown_root = self.jobs_root()
        selected = set(self.selected_jobs())
        self.jobs, self.rows = _history_rows([H.read_job(p) for p in H.list_jobs(self.jobs_root())])
        self.watcher.watch(self.jobs_root(), [j.path for j in self.jobs])
        self.table.blockSignals(True)
        self.table.clearSpans()
        self.table.setRowCount(len(self.rows))
        for row, job in enumerate(self.rows):
            if isinstance(job, Path):
                self._set_group_row(row, job)
                continue
            point = job.experiment is not None
            name = "    " + job.name.split(": ", 1)[-1] if point else job.name
            epoch = "" if point and not job.max_epoch else f"{job.epoch}/{job.max_epoch}"
            accuracy = "" if job.accuracy is None else f"{100 * job.accuracy:.2f} %"
            status = translate("TrainingTab", job.status)
            values = (name, status, job.date, epoch, accuracy, short_float(job.last(1)),
                      short_float(job.last(2)), short_float(job.last(3)),
                      count_text(job.statistics.get("CostParameter")),
                      count_text(job.statistics.get("CostMultiplyAdd")))  # fmt: skip
            for col, text in enumerate(values):
                item = QTableWidgetItem(text)
                item.setData(Qt.ItemDataRole.UserRole, str(job.path))
                if col == 0:
                    item.setToolTip(f"{job.name}\n{job.path}")
                if col == 1:
                    item.setForeground(QColor(STATUS_COLORS.get(job.status, "black")))
                    if job.message:
                        item.setToolTip(job.message)
                if col == 4 and job.accuracy is not None:
                    item.setToolTip(self.tr("Accuracy of the job's last evaluation"))
                self.table.setItem(row, col, item)
            if job.path in selected:
                if point:
                    self.expanded.add(job.experiment)
                self.table.selectRow(row)
        self._show_groups()
        self.table.blockSignals(False)
        self._draw_tradeoff()
        self._update_buttons()
        self.jobs_changed.emit([j.path for j in self.jobs])

    def _selection_changed(self) -> None:
        self._update_buttons()
        if self.runner.is_running():
            return
        chosen = [j for j in self.jobs if j.path in self.selected_jobs()]
        if chosen:
            self.curve.set_curves([(j.name, j.curve) for j in chosen])

    def _draw_tradeoff(self) -> None:
        # A sweep's float baseline is its job evaluated again: the same point, drawn once.
        jobs = [j for j in self.jobs if not _sweep_baseline(j.path)]
        self.tradeoff.set_jobs(jobs, self.statistic.currentText())

    def _update_buttons(self, running: bool | None = None) -> None:
        running = self.runner.is_running() if running is None else running
        self.run_button.setEnabled(not running)
        self.stop_button.setEnabled(running)
        job_buttons.update(self, running)

    # -- history actions (dialogs go through ask_* so tests can answer) ---------------------
    def delete_selected(self) -> bool:
        return job_menu.delete_jobs(self, self.selected_jobs())

    def _show_job_menu(self, pos: QPoint) -> None:
        """Right-click on a job: NNC's results menu for the selection (the clicked row)."""
        row = self.table.rowAt(pos.y())
        if row >= 0 and row not in {i.row() for i in self.table.selectedItems()}:
            self.table.selectRow(row)
        self.job_menu_shown = job_menu.build_menu(self, self.selected_jobs())
        self.job_menu_shown.popup(self.table.viewport().mapToGlobal(pos))

    def compare(self, jobs: list[Path]) -> None:
        self.select_jobs(jobs)  # overlays their curves
        chosen = [j for j in self.jobs if j.path in jobs]
        self.comparison = job_menu.comparison_dialog(self, chosen)
        self.comparison.show()

    def report_selected(self) -> bool:
        """The selected job's report; several selected: one deck comparing them."""
        jobs = self.selected_jobs()
        return bool(jobs) and self.reports.start(jobs[0] if len(jobs) == 1 else jobs)

    def open_selected(self) -> None:
        job = self.selected_job()
        if job is not None:
            self.open_network.emit(job / "network.ncproj")

"""TRAINING > Quantization experiment...: a sweep over a finished job, live table and plot.

The sweep runs as a child process (``neurocanvas quantize sweep JOB/network.ncproj --job JOB
-o <job>_quantization --events``, the job's own project snapshot, whose dataset paths are
absolute); each finished point arrives as a ``point`` event and becomes a table row and a
plot marker. With a sensitivity width the layers are ranked too, and with a budget the
measured mixed-precision pick follows (``mixed_candidate`` events, then ``mixed_precision``,
shown under the message). Stop writes ``stop`` to the child: the finished points stay in
results.csv and running again continues the sweep (and a stopped pick). The points are
ordinary job folders, so the job history lists them when the sweep ends.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import QT_TRANSLATE_NOOP, Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSpinBox,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from console_app.language import translate
from console_app.tabs import job_history
from console_app.tabs.job_runner import JobRunner
from console_app.tabs.plots import AccuracyPlot
from engine.quantization.results import COLUMNS, ranking_text, read_results
from engine.quantization.scheme import QUANTIZERS, TARGETS, QuantizationError

__all__ = ["QuantizationExperiment", "open_experiment"]

# The table's headers for results.csv's columns ("error" is 1 - accuracy: an error rate, not the
# loss TRAINING shows).
HEADERS = {"error": QT_TRANSLATE_NOOP("QuantizationExperiment", "error rate"),
           "parameter_bytes": QT_TRANSLATE_NOOP("QuantizationExperiment", "parameter bytes"),
           "cost_multiply_add": "CostMultiplyAdd"}  # fmt: skip


class QuantizationExperiment(QDialog):
    """Options, Run/Stop, the results table and the plot of one job's sweep."""

    def __init__(self, job: Path, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.job = Path(job)
        self.out_dir = self.job.with_name(self.job.name + "_quantization")
        self.setWindowTitle(
            translate("QuantizationExperiment", "Quantization experiment: {name}").format(
                name=self.job.name
            )
        )
        self.runner = JobRunner(self)
        self.runner.event.connect(self._on_event)
        self.runner.ended.connect(self._on_ended)
        self.rows: list[dict[str, Any]] = []
        self.status = ""
        self.bits = QLineEdit("16,8,6,4,3,2")
        self.bits.setObjectName("sweep_bits")
        # What is quantized at each point: one group of the checked targets (all three: the
        # CLI's "both"); "each alone" adds a point per checked target, to see which hurts.
        self.targets = {name: QCheckBox(self.tr(name)) for name in TARGETS}
        for box in self.targets.values():
            box.setChecked(True)
            box.toggled.connect(lambda _on: self._update_buttons())
        self.separately = QCheckBox(self.tr("also each alone"))
        self.separately.setToolTip(self.tr(
            "Besides the checked targets together, quantize each checked target on its own "
            "(which one costs the accuracy)"))  # fmt: skip
        self.quantizer = QComboBox()
        self.quantizer.addItems(list(QUANTIZERS))
        self.mode = QComboBox()
        self.mode.addItems(
            [
                "ptq",
                "qat",
            ]
        )
        self.epochs = QSpinBox()
        self.epochs.setRange(1, 1000)
        self.epochs.setValue(2)
        self.sensitivity = QSpinBox()  # --sensitivity BITS; 0: off
        self.sensitivity.setObjectName("sweep_sensitivity")
        self.sensitivity.setRange(0, 32)
        self.sensitivity.setSpecialValueText(translate("QuantizationExperiment", "off"))
        self.budget = QSpinBox()  # --budget BYTES (needs the ranking); 0: no pick
        self.budget.setObjectName("sweep_budget")
        self.budget.setRange(0, 2_000_000_000)
        self.budget.setSingleStep(1000)
        self.budget.setSpecialValueText(translate("QuantizationExperiment", "none"))
        self.budget.setEnabled(False)
        self.sensitivity.valueChanged.connect(lambda bits: self.budget.setEnabled(bits > 0))
        self.ranking = QLabel("")  # the layer sensitivity ranking, kept after the sweep ends
        self.ranking.setObjectName("sensitivity_ranking")
        self.ranking.setWordWrap(True)
        self.mixed = QLabel("")  # the mixed-precision pick, kept after the sweep ends
        self.mixed.setObjectName("mixed_pick")
        self.mixed.setWordWrap(True)
        self.run_button = QPushButton(translate("QuantizationExperiment", "Run"))
        self.stop_button = QPushButton(translate("QuantizationExperiment", "Stop"))
        self.message = QLabel(
            translate("QuantizationExperiment", "Results go to {out_dir}").format(
                out_dir=self.out_dir
            )
        )
        self.message.setWordWrap(True)
        self.table = QTableWidget(0, len(COLUMNS))
        # results.csv's "error" is 1 - accuracy: an error rate, not the loss TRAINING shows.
        self.table.setHorizontalHeaderLabels(
            [translate("QuantizationExperiment", HEADERS.get(c, c)) for c in COLUMNS]
        )
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().setVisible(False)
        self.table.resizeColumnsToContents()  # the headers whole before any result
        self.plot = AccuracyPlot()
        self.plot.setMinimumHeight(260)  # it was squeezed to 80 px under the options
        self.run_button.clicked.connect(self.run)
        self.stop_button.clicked.connect(self.stop)
        self._layout()
        self._update_buttons()
        self._fit_screen(1100, 760)
        self._show_earlier()

    def _show_earlier(self) -> None:
        """An earlier sweep of this job: its results, until Run continues it."""
        try:
            self.rows = read_results(self.out_dir / "results.csv")
        except QuantizationError:
            self.rows = []
        self._show_rows()
        if self.rows:
            self.message.setText(
                self.tr("{0} points of an earlier sweep in {1}; Run continues it").format(
                    len(self.rows), self.out_dir)
            )  # fmt: skip

    def _layout(self) -> None:
        form = QFormLayout()
        form.addRow(translate("QuantizationExperiment", "Bits"), self.bits)
        targets = QHBoxLayout()
        for box in (*self.targets.values(), self.separately):
            targets.addWidget(box)
        targets.addStretch(1)
        form.addRow(translate("QuantizationExperiment", "Quantize"), targets)
        form.addRow(translate("QuantizationExperiment", "Quantizer"), self.quantizer)
        form.addRow(translate("QuantizationExperiment", "Mode"), self.mode)
        form.addRow(translate("QuantizationExperiment", "QAT epochs"), self.epochs)
        form.addRow(
            translate("QuantizationExperiment", "Layer sensitivity at (bits)"), self.sensitivity
        )
        form.addRow(
            translate("QuantizationExperiment", "Mixed precision within (parameter bytes)"),
            self.budget,
        )
        buttons = QHBoxLayout()
        buttons.addWidget(self.run_button)
        buttons.addWidget(self.stop_button)
        buttons.addStretch(1)
        # The options and messages at the top, the results below: table and plot share the
        # rest, the plot never squeezed (a splitter lets the user give either more).
        results = QSplitter(Qt.Orientation.Vertical)
        results.addWidget(self.table)
        results.addWidget(self.plot)
        results.setChildrenCollapsible(False)
        results.setSizes([200, 320])
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addLayout(buttons)
        layout.addWidget(self.message)
        layout.addWidget(self.ranking)
        layout.addWidget(self.mixed)
        layout.addWidget(results, 1)

    def _fit_screen(self, width: int, height: int) -> None:
        """The size asked for, within the screen's free area (a 1366x768 laptop)."""
        screen = self.screen()
        if screen is not None:
            free = screen.availableGeometry()
            width, height = min(width, free.width() - 40), min(height, free.height() - 60)
        self.resize(width, height)

    def target_groups(self) -> list[str]:
        """The --targets value's groups from the check boxes (all three together: "both",
        the CLI's default, so an earlier sweep's points are continued, not redone)."""
        checked = [name for name, box in self.targets.items() if box.isChecked()]
        if not checked:
            return []
        together = "both" if len(checked) == len(TARGETS) else "+".join(checked)
        alone = checked if self.separately.isChecked() and len(checked) > 1 else []
        return [together, *alone]

    def _update_buttons(self) -> None:
        running = self.runner.is_running()
        self.run_button.setEnabled(not running and bool(self.target_groups()))
        self.run_button.setToolTip(
            "" if self.target_groups() else self.tr("Check what to quantize (Quantize: ...)")
        )
        self.stop_button.setEnabled(running)

    def run(self) -> bool:
        if self.runner.is_running() or not self.target_groups():
            return False
        args = ["quantize", "sweep", str(self.job / "network.ncproj"), "--job", str(self.job),
                "-o", str(self.out_dir), "--bits", self.bits.text(), "--targets",
                ",".join(self.target_groups()), "--mode", self.mode.currentText(), "--epochs",
                str(self.epochs.value()), "--quantizer", self.quantizer.currentText(),
                "--events"]  # fmt: skip
        if self.sensitivity.value():
            args += ["--sensitivity", str(self.sensitivity.value())]
            if self.budget.value():
                args += ["--budget", str(self.budget.value())]
        self.status = "running"
        self.mixed.setText("")
        self.message.setText(translate("QuantizationExperiment", "Running..."))
        self.runner.run_command("quantize", self.out_dir, args)
        self._update_buttons()
        return True

    def stop(self) -> bool:
        if self.runner.stop():
            self.message.setText(
                translate("QuantizationExperiment", "Stop requested: the finished points are kept")
            )
            self.stop_button.setEnabled(False)
            return True
        return False

    def closeEvent(self, event) -> None:  # noqa: ANN001, N802
        """Closing stops a running sweep; its finished points are kept (Run continues)."""
        self.stop()
        super().closeEvent(event)

    def _on_event(self, record: dict) -> None:
        kind = record.get("event")
        if kind == "sweep":
            self.rows = list(record.get("rows", []))
            self._show_rows()
        elif kind == "point_start":
            self.message.setText(
                translate("QuantizationExperiment", "{value} at {value2} bits ({upper})...").format(
                    value=record["target"], value2=record["bits"], upper=record["mode"].upper()
                )
            )
        elif kind == "point":
            self.rows.append({k: record[k] for k in COLUMNS})
            self._show_rows()
        elif kind == "sensitivity":
            self.message.setText(
                translate(
                    "QuantizationExperiment", "Layers ranked at {value} bits (sensitivity.csv)"
                ).format(value=record["bits"])
            )
            self.ranking.setText(_ranking_text(record))
        elif kind == "mixed_candidate":
            self.message.setText(
                translate(
                    "QuantizationExperiment",
                    "Mixed precision: network {value} evaluated, {value2:,} bytes, {value3:.2f} %",
                ).format(
                    value=record["evaluation"],
                    value2=record["parameter_bytes"],
                    value3=100 * record["accuracy"],
                )
            )
        elif kind == "mixed_precision":
            self.mixed.setText(_mixed_text(record))
        elif kind == "error":
            self.message.setText(str(record.get("message", "")))

    def _show_rows(self) -> None:
        self.table.setRowCount(len(self.rows))
        for r, row in enumerate(self.rows):
            for c, key in enumerate(COLUMNS):
                value = row[key]
                text = f"{100 * value:.2f} %" if key == "accuracy" else (
                    f"{value:.4f}" if key == "error" else str(value))  # fmt: skip
                self.table.setItem(r, c, QTableWidgetItem(text))
        self.table.resizeColumnsToContents()  # cost_multiply_add and the job names were cut
        self.plot.set_rows(self.rows)

    def _on_ended(self, status: str, message: str) -> None:
        self.status = status
        first = message.splitlines()[0] if message else ""
        self.message.setText(
            f"Sweep {status}. {first}".strip()
            + translate("QuantizationExperiment", " Results: {out_dir}").format(
                out_dir=self.out_dir
            )
        )
        self._update_buttons()
        parent = self.parent()
        if parent is not None and hasattr(parent, "refresh_jobs"):
            parent.refresh_jobs()  # the points are job folders: the history lists them


def _ranking_text(record: dict[str, Any]) -> str:
    """The ranking as the CLI prints it: accuracy points each layer costs alone, worst first."""
    lost = ranking_text(record["layers"])
    return translate(
        "QuantizationExperiment",
        "Layer sensitivity at {value} bits (accuracy points, one layer at a time): {lost}",
    ).format(value=record["bits"], lost=lost)


def _mixed_text(record: dict[str, Any]) -> str:
    """The pick as the CLI prints it (engine/quantization/mixed.py), or why there is none."""
    if record.get("status") != "finished":
        return translate(
            "QuantizationExperiment",
            "Mixed precision stopped after {value} evaluations: Run continues it.",
        ).format(value=record["evaluations"])
    bits = ", ".join(f"{layer} {b}" for layer, b in record["layer_bits"].items())
    return translate(
        "QuantizationExperiment",
        "Mixed precision within {value:,} bytes ({bits} bits): accuracy "
        "{value2:.2f} %, {value3:,} parameter bytes; the most accurate that "
        "fits of {len} networks evaluated (mixed_precision.json, job "
        "mixed_precision)",
    ).format(
        value=record["budget"],
        bits=bits,
        value2=100 * record["accuracy"],
        value3=record["parameter_bytes"],
        len=len(record["candidates"]),
    )


def open_experiment(tab: Any) -> QuantizationExperiment | None:
    """The dialog for the job selected in the TRAINING tab (a finished one)."""
    job = tab.selected_job()
    if job is None:
        return None
    if job_history.read_job(job, with_statistics=False).status != "finished":
        tab.append_log(
            translate(
                "QuantizationExperiment", "{name}: a quantization experiment needs a finished job"
            ).format(name=job.name)
        )
        return None
    dialog = QuantizationExperiment(job, tab)
    tab.quantization_dialog = dialog
    dialog.show()
    return dialog

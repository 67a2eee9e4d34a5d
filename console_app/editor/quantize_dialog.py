"""Edit > Quantize Network...: a quantized copy of a network as a new tab (one undo step).

The dialog gathers a :class:`engine.quantization.Scheme`. With a fixed Delta the graph
transform runs here (it only edits the model). Calibrating Delta from a trained job runs the
network, so that happens in a child process (``neurocanvas quantize insert --job``, the GUI
never runs the engine's arrays itself) on a snapshot of the project as edited; the new network
is read back from its output and added to the document.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMenu,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from console_app.language import error_text, translate
from engine.core import optional
from engine.core.messages import QT_TRANSLATE_NOOP
from engine.formats import ProjectFileError, load_project
from engine.graph import commands as C
from engine.graph.network import Network
from engine.quantization import QuantizationError, Scheme, quantize_networks
from engine.quantization.insert import default_name
from engine.quantization.scheme import QUANTIZERS, TARGETS

# the job history and the snapshot writer (the runtime's job files) when a job is first quantized
job_history = optional.lazy("console_app.tabs.job_history")
snapshot_module = optional.lazy("console_app.tabs.snapshot")

__all__ = ["QuantizeDialog", "add_to_menu", "open_dialog"]

# The Delta choices: item data "calibrate" / "fixed", texts in the interface's language.
DELTA_MODES = {
    "calibrate": QT_TRANSLATE_NOOP("QuantizeDialog", "Calibrate from a trained job"),
    "fixed": QT_TRANSLATE_NOOP("QuantizeDialog", "Fixed Delta"),
}
ROOT = Path(__file__).resolve().parents[2]


class QuantizeDialog(QDialog):
    """The scheme of one insertion; ``accept`` refuses values that do not fit, with the reason."""

    def __init__(self, networks: list[str], current: str, jobs: list[Path],
                 taken: set[str], parent: QWidget | None = None) -> None:  # fmt: skip
        super().__init__(parent)
        self.setWindowTitle(translate("QuantizeDialog", "Quantize Network"))
        self.taken = taken
        self.network = QComboBox()
        self.network.addItems(networks)
        self.network.setCurrentText(current)
        self.name = QLineEdit()
        self.name.setObjectName("quantize_name")
        self.quantizer = QComboBox()
        self.quantizer.addItems(list(QUANTIZERS))
        self.bits = QSpinBox()
        self.bits.setObjectName("quantize_bits")
        self.bits.setRange(1, 32)
        self.bits.setValue(8)
        self.targets = {name: QCheckBox(name) for name in TARGETS}
        for box in self.targets.values():
            box.setChecked(True)
        self.delta_mode = QComboBox()
        for mode in ("calibrate", "fixed") if jobs else ("fixed",):
            self.delta_mode.addItem(translate("QuantizeDialog", DELTA_MODES[mode]), mode)
        self.job = QComboBox()
        for job in jobs:
            self.job.addItem(job.name, str(job))
        self.delta = QLineEdit("0.0625")
        self.delta.setObjectName("quantize_delta")
        self.sign = QComboBox()
        self.sign.addItems(
            [
                translate("QuantizeDialog", "auto (unsigned after ReLU)"),
                translate("QuantizeDialog", "signed"),
                translate("QuantizeDialog", "unsigned"),
            ]
        )
        self.ste = QCheckBox(
            translate("QuantizeDialog", "STEFineGrained (no gradient outside the range)")
        )
        self.ste.setChecked(True)
        self.error = QLabel("")
        self.error.setObjectName("quantize_error")
        self.error.setStyleSheet("color: #c00;")
        self.error.setWordWrap(True)
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        self.network.currentTextChanged.connect(lambda _t: self._suggest_name())
        self.bits.valueChanged.connect(lambda _v: self._suggest_name())
        self.delta_mode.currentTextChanged.connect(lambda _t: self._mode_changed())
        self._layout()
        self._suggest_name()
        self._mode_changed()

    def _layout(self) -> None:
        targets = QHBoxLayout()
        for box in self.targets.values():
            targets.addWidget(box)
        targets.addStretch(1)  # each box as wide as its text: a click beside it is no toggle
        form = QFormLayout()
        for label, widget in ((translate("QuantizeDialog", "Network"), self.network),
                              (translate("QuantizeDialog", "New network"), self.name),
                              (translate("QuantizeDialog", "Quantizer"), self.quantizer),
                              (translate("QuantizeDialog", "Bits"), self.bits)):  # fmt: skip
            form.addRow(label, widget)
        form.addRow(translate("QuantizeDialog", "Targets"), targets)
        for label, widget in ((translate("QuantizeDialog", "Delta"), self.delta_mode),
                              (translate("QuantizeDialog", "Job"), self.job),
                              (translate("QuantizeDialog", "Delta value"), self.delta),
                              (translate("QuantizeDialog", "Sign"), self.sign)):  # fmt: skip
            form.addRow(label, widget)
        form.addRow("", self.ste)
        units = QLabel(
            translate(
                "QuantizeDialog",
                "Units: they are quantized per call: each Unit layer calls its own quantized "
                "copy of its unit network (<New network>_<Unit layer>), with its weights, "
                "biases and data paths quantized at these bits and calibrated on that call's "
                "values; its parameters keep their names, so calls that share parameters still "
                "share them.",
            )
        )
        units.setObjectName("quantize_units_note")
        units.setWordWrap(True)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(units)
        layout.addWidget(self.error)
        layout.addWidget(self.buttons)

    def _suggest_name(self) -> None:
        base = default_name(self.network.currentText(), self.bits.value())
        name, k = base, 2
        while name in self.taken:
            name, k = f"{base}_{k}", k + 1
        self.name.setText(name)

    def _mode_changed(self) -> None:
        calibrate = self.delta_mode.currentData() == "calibrate"
        self.job.setEnabled(calibrate)
        self.delta.setEnabled(not calibrate)

    @property
    def calibrate_job(self) -> Path | None:
        if self.delta_mode.currentData() != "calibrate":
            return None
        return Path(self.job.currentData())

    def scheme(self) -> Scheme:
        """The scheme the fields describe (QuantizationError names the bad field)."""
        delta = None
        if self.calibrate_job is None:
            try:
                delta = float(self.delta.text())
            except ValueError:
                raise QuantizationError(
                    f"Delta: expected a number > 0. Received: {self.delta.text()!r}"
                ) from None
        targets = frozenset(n for n, box in self.targets.items() if box.isChecked())
        if not targets:
            raise QuantizationError("tick at least one target")
        sign = {0: None, 1: True, 2: False}[self.sign.currentIndex()]
        return Scheme(quantizer=self.quantizer.currentText(), targets=targets,
                      bits=self.bits.value(), delta=delta if delta is not None else 1.0,
                      sign=sign, ste_fine_grained=self.ste.isChecked())  # fmt: skip

    def accept(self) -> None:
        name = self.name.text().strip()
        try:
            self.scheme()
            if not name or name in self.taken:
                raise QuantizationError(
                    translate("QuantizeDialog", 'New network: "{name}" is empty or taken').format(
                        name=name
                    )
                )
        except QuantizationError as exc:
            self.error.setText(error_text(exc))
            return
        super().accept()


def add_to_menu(window: Any, menu: QMenu) -> None:
    """Edit > Quantize Network... on ``window`` (a MainWindow)."""
    action = menu.addAction(translate("QuantizeDialog", "&Quantize Network..."))
    action.setObjectName("quantize_network")
    action.setStatusTip(
        translate("QuantizeDialog", "Add a copy of the network with fixed-point quantizers")
    )
    action.triggered.connect(lambda _checked=False: open_dialog(window))


def open_dialog(window: Any) -> QuantizeDialog:
    """Show the dialog (non-modal); OK adds the network and opens its tab."""
    project = window.document.project
    current = window.edit_tab.current_network() or project.network_names[0]
    jobs = _finished_jobs(window)
    dialog = QuantizeDialog(list(project.network_names), current, jobs,
                            set(project.network_names), window)  # fmt: skip
    dialog.accepted.connect(lambda: apply(window, dialog))
    window.quantize_dialog = dialog
    dialog.open()
    return dialog


def _finished_jobs(window: Any) -> list[Path]:
    root = window.project_tabs.training.jobs_root()
    # Trained jobs only, newest first: a quantization sweep's points (its float baseline
    # included) hold the same parameters as the job they came from, so they are not offered.
    paths = [p for p in job_history.list_jobs(root) if p.parent == root]
    jobs = [job_history.read_job(p, with_statistics=False) for p in paths]
    return [j.path for j in reversed(jobs) if j.status in ("finished", "stopped")]


def apply(window: Any, dialog: QuantizeDialog) -> str | None:
    """Build the quantized network (and its quantized unit copies) and add them to the
    document as one undo step."""
    project = window.document.project
    source, name = dialog.network.currentText(), dialog.name.text().strip()
    try:
        scheme = dialog.scheme()
        if dialog.calibrate_job is None:
            networks = quantize_networks(project, source, scheme, None, name)
        else:
            networks = _calibrated(window, dialog, source, name)
        for network in networks:
            if project.has_network(network.name):
                raise QuantizationError(
                    translate(
                        "QuantizeDialog",
                        'a network named "{name}" exists already (the quantized copy of a unit '
                        "takes that name); rename it or choose another New network name",
                    ).format(name=network.name)
                )
    except (QuantizationError, ProjectFileError, ValueError, OSError) as exc:
        window.report_error(
            translate("QuantizeDialog", "Quantize Network: {exc}").format(exc=error_text(exc))
        )
        return None
    index = project.network_index(source) + 1
    adds = [C.AddNetwork(project, n, index + k) for k, n in enumerate(networks)]
    command = C.Compound(
        QT_TRANSLATE_NOOP("Commands", "Quantize network {name}").format(name=source), adds
    )
    window.document.push(command)
    window.edit_tab.show_network(name)
    count = sum(1 for layer in networks[0].layers if layer.type == scheme.layer_type)
    inside = sum(1 for n in networks[1:] for layer in n.layers if layer.type == scheme.layer_type)
    copies = ", ".join(n.name for n in networks[1:])
    units = translate(
        "QuantizeDialog", " (and {inside} in its quantized unit copies {copies})"
    ).format(inside=inside, copies=copies)
    window.show_message(
        translate(
            "QuantizeDialog", 'Network "{name}": {count} {layer_type} layers inserted{value}'
        ).format(
            name=name,
            count=count,
            layer_type=scheme.layer_type,
            value=units if networks[1:] else "",
        )
    )
    return name


def _calibrated(window: Any, dialog: QuantizeDialog, source: str, name: str) -> list[Network]:
    """``neurocanvas quantize insert --job`` on a snapshot, in a child process: the new
    network and the quantized unit copies its Unit layers call."""
    scheme = dialog.scheme()
    sign = ("auto", "signed", "unsigned")[dialog.sign.currentIndex()]
    with tempfile.TemporaryDirectory(prefix="neurocanvas-quantize-") as tmp:
        snapshot = snapshot_module.write_snapshot(
            window.document.project, window.document.path, Path(tmp)
        )
        out = Path(tmp) / "quantized.ncproj"
        args = ["quantize", "insert", str(snapshot), "-o", str(out), "--network", source,
                "--name", name, "--bits", str(scheme.bits), "--quantizer", scheme.quantizer,
                "--targets", ",".join(sorted(scheme.targets)), "--sign", sign,
                "--job", str(dialog.calibrate_job)]  # fmt: skip
        if not scheme.ste_fine_grained:
            args.append("--no-ste-fine-grained")
        done = subprocess.run([sys.executable, "-m", "engine.cli", *args], cwd=ROOT,
                              capture_output=True, text=True, timeout=600)  # fmt: skip
        if done.returncode != 0:
            lines = done.stderr.strip().splitlines() or [f"exit status {done.returncode}"]
            raise QuantizationError(lines[-1].removeprefix("neurocanvas quantize: error: "))
        written = load_project(out)
    before = set(window.document.project.network_names)
    new = [n for n in written.networks if n.name == name or n.name not in before]
    new.sort(key=lambda n: n.name != name)  # the result first, then its unit copies
    return [Network(n.name, n.layers, n.links, n.extra) for n in new]

"""Report buttons and File > Export > PowerPoint report: ``neurocanvas report`` in the background.

:class:`ReportController` runs ``neurocanvas report JOB -o FILE --events`` as a child process
(the GUI stays responsive and never draws the figures itself), shows its progress in a
non-modal progress dialog, then offers to open the file (a non-modal question:
:attr:`ReportController.question`). The TRAINING and EVALUATION tabs and the main window each
call :meth:`ReportController.start`; the deck itself is :mod:`engine.report`.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from PySide6.QtCore import QObject, QProcess, QUrl, Signal
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import QMessageBox, QProgressDialog, QWidget

from console_app import language
from console_app.language import translate

__all__ = ["ReportController"]


class ReportController(QObject):
    """One report at a time. Signals: ``finished(path)``, ``failed(message)``."""

    finished = Signal(str)
    failed = Signal(str)

    def __init__(self, parent: QWidget) -> None:
        super().__init__(parent)
        self.widget = parent
        self.program: list[str] = [sys.executable, "-m", "engine.cli"]
        self.process: QProcess | None = None
        self.dialog: QProgressDialog | None = None
        self.question: QMessageBox | None = None
        self.last_path: Path | None = None
        self.last_error = ""
        self._buffer = b""
        self._target: Path | None = None

    def is_running(self) -> bool:
        return self.process is not None and self.process.state() != QProcess.ProcessState.NotRunning

    def start(self, job: Path | list[Path], output: Path | None = None) -> bool:
        """Write the report of ``job`` (default ``<job>/report.pptx``), or the comparison of a
        list of jobs (default ``compare.pptx`` beside them); False when busy. A job that has
        not been evaluated is offered an evaluation first (a non-modal question), so its deck
        has results rather than a slide saying it has none."""
        jobs = [Path(p) for p in job] if isinstance(job, list) else [Path(job)]
        if self.is_running() or not jobs:
            return False
        default = jobs[0] / "report.pptx" if len(jobs) == 1 else jobs[0].parent / "compare.pptx"
        self._target = Path(output) if output is not None else default
        if len(jobs) == 1 and not (jobs[0] / "evaluation.json").is_file():
            self._offer_evaluation(jobs)
        else:
            self._run(jobs, evaluate=False)
        return True

    def _offer_evaluation(self, jobs: list[Path]) -> None:
        buttons = (QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No
                   | QMessageBox.StandardButton.Cancel)  # fmt: skip
        box = self._show(
            QMessageBox.Icon.Question,
            translate(
                "ReportAction",
                "{name} has not been evaluated yet, so its report would have no "
                "evaluation results.\n\nEvaluate it first (its validation data, the best "
                "parameters)?",
            ).format(name=jobs[0].name),
            buttons,
        )
        box.button(QMessageBox.StandardButton.Yes).setText(
            translate("ReportAction", "Evaluate, then report")
        )
        box.button(QMessageBox.StandardButton.No).setText(
            translate("ReportAction", "Report without")
        )
        box.finished.connect(lambda result: self._evaluation_answered(result, jobs))

    def _evaluation_answered(self, result: int, jobs: list[Path]) -> None:
        if result == QMessageBox.StandardButton.Cancel or self.is_running():
            self.last_error = "cancelled"
            self.failed.emit(self.last_error)
            return
        self._run(jobs, evaluate=result == QMessageBox.StandardButton.Yes)

    def _run(self, jobs: list[Path], evaluate: bool) -> None:
        self._buffer, self.last_error = b"", ""
        self.process = QProcess(self)
        self.process.readyReadStandardOutput.connect(self._read)
        self.process.finished.connect(self._done)
        what = jobs[0].name if len(jobs) == 1 else f"{len(jobs)} jobs"
        self.dialog = QProgressDialog(
            translate("ReportAction", "Writing the report of {what}...").format(what=what),
            translate("ReportAction", "Cancel"),
            0,
            0,
            self.widget,
        )
        self.dialog.setWindowTitle(translate("ReportAction", "PowerPoint report"))
        self.dialog.setModal(False)
        self.dialog.setMinimumDuration(0)
        self.dialog.canceled.connect(self._cancel)
        self.dialog.show()
        args = [
            "report",
            *map(str, jobs),
            "-o",
            str(self._target),
            "--events",
            "--lang",
            language.current(),
        ]  # fmt: skip  (the interface's language)
        self.process.start(self.program[0], [*self.program[1:], *args,
                                             *(["--evaluate"] if evaluate else [])])  # fmt: skip

    def _read(self) -> None:
        assert self.process is not None
        self._buffer += bytes(self.process.readAllStandardOutput().data())
        *lines, self._buffer = self._buffer.split(b"\n")
        for line in lines:
            try:
                record = json.loads(line)
            except ValueError:
                continue
            if record.get("event") == "progress" and self.dialog is not None:
                self.dialog.setMaximum(int(record.get("total", 0)))  # 0 while evaluating: busy
                self.dialog.setValue(int(record.get("step", 0)))
                self.dialog.setLabelText(
                    translate("ReportAction", "Report: {get}").format(get=record.get("message", ""))
                )
            elif record.get("event") == "error":
                self.last_error = str(record.get("message", ""))

    def _cancel(self) -> None:
        if self.is_running() and self.process is not None:
            self.last_error = "cancelled"
            self.process.kill()

    def _done(self, code: int, _status: QProcess.ExitStatus) -> None:
        assert self.process is not None
        self._read()
        if self.dialog is not None:
            self.dialog.canceled.disconnect(self._cancel)
            self.dialog.close()
        if code == 0 and self._target is not None and self._target.is_file():
            self.last_path = self._target
            self._offer_to_open(self._target)
            self.finished.emit(str(self._target))
            return
        if not self.last_error:
            stderr = bytes(self.process.readAllStandardError().data()).decode(errors="replace")
            self.last_error = stderr.strip().splitlines()[-1] if stderr.strip() else f"exit {code}"
        if self.last_error != "cancelled":
            self._show(
                QMessageBox.Icon.Warning,
                translate("ReportAction", "No report: {last_error}").format(
                    last_error=self.last_error
                ),
                QMessageBox.StandardButton.Close,
            )
        self.failed.emit(self.last_error)

    def _offer_to_open(self, path: Path) -> None:
        buttons = QMessageBox.StandardButton.Open | QMessageBox.StandardButton.Close
        box = self._show(
            QMessageBox.Icon.Information,
            translate("ReportAction", "The report is written:\n{path}\n\nOpen it?").format(
                path=path
            ),
            buttons,
        )
        box.finished.connect(lambda result: self._answered(result, path))

    def _show(self, icon: QMessageBox.Icon, text: str, buttons) -> QMessageBox:  # noqa: ANN001
        """A non-modal message box (the app keeps working; tests click its buttons)."""
        box = QMessageBox(
            icon, translate("ReportAction", "PowerPoint report"), text, buttons, self.widget
        )
        box.setModal(False)
        self.question = box
        box.show()
        return box

    def _answered(self, result: int, path: Path) -> None:
        if result != QMessageBox.StandardButton.Open:
            return
        if not QDesktopServices.openUrl(QUrl.fromLocalFile(str(path))):
            self._show(
                QMessageBox.Icon.Warning,
                translate(
                    "ReportAction",
                    "No application here opens PowerPoint files. The report is:\n{path}",
                ).format(path=path),
                QMessageBox.StandardButton.Close,
            )

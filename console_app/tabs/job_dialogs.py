"""The questions and messages of the TRAINING tab's job history (rename, delete, save, errors):
methods of the tab, kept apart so tests can answer them and the tab stays one concern."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFileDialog, QMessageBox

from console_app.language import translate
from console_app.tabs import job_menu
from console_app.text_dialog import ask_text
from engine.runtime import job_history as H


class JobDialogs:
    """Mixed into TrainingTab (a QWidget with ``jobs``, ``selected_job``, ``refresh_jobs`` and
    ``append_log``)."""

    jobs: list[Any]
    last_error: str

    def ask_text(self, title: str, label: str, text: str) -> str | None:
        return ask_text(self, title, label, text)

    def ask_confirm(self, text: str) -> bool:
        return (
            QMessageBox.question(self, translate("TrainingTab", "NeuroCanvas"), text)
            == QMessageBox.StandardButton.Yes
        )

    def rename_selected(self, name: str | None = None) -> bool:
        job = self.selected_job()
        if job is None:
            return False
        info = next(j for j in self.jobs if j.path == job)
        name = (
            name
            if name is not None
            else self.ask_text(
                translate("TrainingTab", "Rename job"),
                translate("TrainingTab", "Job name:"),
                info.name,
            )
        )
        if not name or not name.strip():
            return False
        H.rename_job(job, name.strip())
        self.refresh_jobs()
        return True

    def ask_delete(self, names: list[str]) -> str:
        return job_menu.ask_delete(self, names)

    def ask_save_path(self, caption: str, start: str, file_filter: str) -> str | None:
        path, _ = QFileDialog.getSaveFileName(self, caption, start, file_filter)
        return path or None

    def show_error(self, message: str) -> None:
        """Tell the user without blocking (a window-modal box; tests read ``last_error``)."""
        self.append_log(translate("TrainingTab", "ERROR: {message}").format(message=message))
        self.last_error = message
        box = QMessageBox(
            QMessageBox.Icon.Warning, translate("TrainingTab", "NeuroCanvas"), message, parent=self
        )
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        box.open()

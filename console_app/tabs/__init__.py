"""DATASET, CONFIG, TRAINING and EVALUATION: the main window's tabs beside EDIT.

:class:`ProjectTabs` builds the four, connects them (the job history feeds EVALUATION, a job's
network opens in EDIT) and follows the window's document.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import QEvent, QObject

from console_app.language import translate

STOP_WAIT_MS = 15_000  # how long closing waits for the trainer's checkpoint


class ProjectTabs(QObject):
    """The four tabs of one main window: ``dataset``, ``config``, ``training``, ``evaluation``."""

    def __init__(self, window: Any) -> None:
        super().__init__(window)
        from console_app.tabs.config_tab import ConfigTab
        from console_app.tabs.dataset_tab import DatasetTab
        from console_app.tabs.evaluation_tab import EvaluationTab
        from console_app.tabs.training_tab import TrainingTab

        document = window.document
        self.window = window
        jobs_fallback = Path(window.settings.autosave_dir()).parent / "jobs"
        self.dataset = DatasetTab(document)
        self.config = ConfigTab(document)
        self.training = TrainingTab(document, jobs_fallback)
        self.evaluation = EvaluationTab()
        self.training.jobs_changed.connect(self.evaluation.set_jobs)
        self.training.open_network.connect(lambda path: window.open_path(path))
        self.training.evaluate_requested.connect(self._evaluate_job)
        self.training.refresh_jobs()
        self.widgets = {"DATASET": self.dataset, "CONFIG": self.config,
                        "TRAINING": self.training, "EVALUATION": self.evaluation}  # fmt: skip
        for name, widget in self.widgets.items():
            widget.setObjectName(f"tab_{name.lower()}")
        window.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802
        """Closing the window while a run goes on: ask, then stop it with a checkpoint."""
        if event.type() == QEvent.Type.Close and self.training.runner.is_running():
            if not self.training.ask_confirm(
                translate(
                    "Init",
                    "A training run is still going. Stop it (a checkpoint is saved) and close?",
                )
            ):
                event.ignore()
                return True
            runner = self.training.runner
            runner.stop()
            if runner.process is not None and not runner.process.waitForFinished(STOP_WAIT_MS):
                runner.kill()
        return super().eventFilter(watched, event)

    def _evaluate_job(self, job: Path) -> None:
        """The job menu's Evaluate: show EVALUATION on that job and start it."""
        self.evaluation.select_job(job)
        self.window.tabs.setCurrentWidget(self.evaluation)
        self.evaluation.evaluate(job)

    def set_document(self, document: Any) -> None:
        self.dataset.set_document(document)
        self.config.set_document(document)
        self.training.set_document(document)

"""DATASET, CONFIG, TRAINING and EVALUATION: the main window's tabs beside EDIT.

:class:`ProjectTabs` builds the four, connects them (the job history feeds EVALUATION, a job's
network opens in EDIT) and follows the window's document.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any


class ProjectTabs:
    """The four tabs of one main window: ``dataset``, ``config``, ``training``, ``evaluation``."""

    def __init__(self, window: Any) -> None:
        from console_app.tabs.config_tab import ConfigTab  # noqa: PLC0415
        from console_app.tabs.dataset_tab import DatasetTab  # noqa: PLC0415
        from console_app.tabs.evaluation_tab import EvaluationTab  # noqa: PLC0415
        from console_app.tabs.training_tab import TrainingTab  # noqa: PLC0415

        document = window.document
        jobs_fallback = Path(window.settings.autosave_dir()).parent / "jobs"
        self.dataset = DatasetTab(document)
        self.config = ConfigTab(document)
        self.training = TrainingTab(document, jobs_fallback)
        self.evaluation = EvaluationTab()
        self.training.jobs_changed.connect(self.evaluation.set_jobs)
        self.training.open_network.connect(lambda path: window.open_path(path))
        self.training.refresh_jobs()
        self.widgets = {"DATASET": self.dataset, "CONFIG": self.config,
                        "TRAINING": self.training, "EVALUATION": self.evaluation}  # fmt: skip
        for name, widget in self.widgets.items():
            widget.setObjectName(f"tab_{name.lower()}")

    def set_document(self, document: Any) -> None:
        self.dataset.set_document(document)
        self.config.set_document(document)
        self.training.set_document(document)

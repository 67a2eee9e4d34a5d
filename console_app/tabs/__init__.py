"""DATASET, CONFIG, TRAINING and EVALUATION: the main window's tabs beside EDIT.

:class:`ProjectTabs` builds each of the four when it is first shown or first used (an empty
stand-in holds its place in the window's tab bar until then: the editor opens without building,
or importing, what it does not show), connects them (the job history feeds EVALUATION, a job's
network opens in EDIT) and follows the window's document.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import QEvent, QObject
from PySide6.QtWidgets import QTabWidget, QWidget

from console_app.language import translate
from engine.core import optional

# each tab beside EDIT when it is first shown or used (the trainer's modules with TRAINING's)
dataset_tab = optional.lazy("console_app.tabs.dataset_tab")
config_tab = optional.lazy("console_app.tabs.config_tab")
training_tab = optional.lazy("console_app.tabs.training_tab")
evaluation_tab = optional.lazy("console_app.tabs.evaluation_tab")

STOP_WAIT_MS = 15_000  # how long closing waits for the trainer's checkpoint
NAMES = ("DATASET", "CONFIG", "TRAINING", "EVALUATION")


def _dataset(tabs: ProjectTabs) -> QWidget:
    return dataset_tab.DatasetTab(tabs.window.document)


def _config(tabs: ProjectTabs) -> QWidget:
    return config_tab.ConfigTab(tabs.window.document)


def _training(tabs: ProjectTabs) -> QWidget:
    window = tabs.window
    jobs_fallback = Path(window.settings.autosave_dir()).parent / "jobs"
    training = training_tab.TrainingTab(window.document, jobs_fallback)
    training.open_network.connect(lambda path: window.open_path(path))
    training.evaluate_requested.connect(tabs._evaluate_job)  # noqa: SLF001
    return training


def _evaluation(tabs: ProjectTabs) -> QWidget:
    training = tabs.training  # the job history EVALUATION lists
    evaluation = evaluation_tab.EvaluationTab()
    training.jobs_changed.connect(evaluation.set_jobs)
    evaluation.set_jobs([job.path for job in training.jobs])  # as jobs_changed gives them
    return evaluation


BUILDERS: dict[str, Callable[[ProjectTabs], QWidget]] = {
    "DATASET": _dataset, "CONFIG": _config, "TRAINING": _training, "EVALUATION": _evaluation,
}  # fmt: skip


class LazyTabWidget(QTabWidget):
    """The main window's tab widget: asked for a tab still held by a stand-in (``widget(i)``,
    ``currentWidget()``), it has the tab built first, so callers never see a stand-in."""

    def __init__(self) -> None:
        super().__init__()
        self.build: Callable[[QWidget], QWidget] = lambda widget: widget

    def widget(self, index: int) -> QWidget:
        found = super().widget(index)
        return self.build(found) if found is not None else found

    def currentWidget(self) -> QWidget:  # noqa: N802 - Qt's API
        return self.widget(self.currentIndex())


class ProjectTabs(QObject):
    """The four tabs of one main window: ``dataset``, ``config``, ``training``, ``evaluation``,
    each built on first use (reading the attribute builds it and puts it in the window's tab
    bar in its stand-in's place); :meth:`built` says which exist."""

    def __init__(self, window: Any) -> None:
        super().__init__(window)
        self.window = window
        self._built: dict[str, QWidget] = {}
        self.stand_ins = {name: QWidget() for name in NAMES}
        for name, widget in self.stand_ins.items():
            widget.setObjectName(f"tab_{name.lower()}_pending")
        window.tabs.build = self._build_stand_in
        window.tabs.currentChanged.connect(self._shown)
        window.installEventFilter(self)

    @property
    def widgets(self) -> dict[str, QWidget]:
        """Each tab as the window's tab bar holds it now: built, or its stand-in."""
        return {name: self._built.get(name, self.stand_ins[name]) for name in NAMES}

    def built(self, name: str) -> QWidget | None:
        return self._built.get(name)

    @property
    def dataset(self) -> Any:
        return self._get("DATASET")

    @property
    def config(self) -> Any:
        return self._get("CONFIG")

    @property
    def training(self) -> Any:
        return self._get("TRAINING")

    @property
    def evaluation(self) -> Any:
        return self._get("EVALUATION")

    def _get(self, name: str) -> Any:
        widget = self._built.get(name)
        if widget is None:
            widget = BUILDERS[name](self)
            widget.setObjectName(f"tab_{name.lower()}")
            self._built[name] = widget
            self._replace(self.stand_ins[name], widget)
        return widget

    def _replace(self, stand_in: QWidget, widget: QWidget) -> None:
        """Put ``widget`` where ``stand_in`` is in the window's tab bar (same place, text and
        tooltip; current if the stand-in was)."""
        tabs = self.window.tabs
        index = tabs.indexOf(stand_in)
        if index < 0:
            return
        current = tabs.currentIndex() == index
        text, tip = tabs.tabText(index), tabs.tabToolTip(index)
        blocked = tabs.blockSignals(True)  # the tab bar's own index moves meanwhile
        try:
            tabs.removeTab(index)
            tabs.insertTab(index, widget, text)
            tabs.setTabToolTip(index, tip)
            if current:
                tabs.setCurrentIndex(index)
        finally:
            tabs.blockSignals(blocked)
        stand_in.deleteLater()

    def _build_stand_in(self, widget: QWidget) -> QWidget:
        """The tab a stand-in holds the place of, built now; any other widget as it is."""
        name = next((n for n, w in self.stand_ins.items() if w is widget), None)
        return widget if name is None else self._get(name)

    def _shown(self, index: int) -> None:
        """A stand-in becoming the current tab: build its tab in its place."""
        self.window.tabs.widget(index)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802
        """Closing the window while a run goes on: ask, then stop it with a checkpoint."""
        training = self._built.get("TRAINING")
        if (
            event.type() == QEvent.Type.Close
            and training is not None
            and training.runner.is_running()  # type: ignore[attr-defined]
        ):
            if not training.ask_confirm(  # type: ignore[attr-defined]
                translate(
                    "Init",
                    "A training run is still going. Stop it (a checkpoint is saved) and close?",
                )
            ):
                event.ignore()
                return True
            runner = training.runner  # type: ignore[attr-defined]
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
        """The tabs built so far follow ``document``; the others are built on it."""
        for name in ("DATASET", "CONFIG", "TRAINING", "EVALUATION"):  # TRAINING lists the jobs
            widget = self._built.get(name)
            if widget is not None:
                widget.set_document(document)  # type: ignore[attr-defined]

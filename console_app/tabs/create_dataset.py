"""DATASET > Create Dataset: NNC's pre-process plugins (:mod:`engine.plugins`, scripts of
``_Pre_Process/``) from a button's menu, each with the dialog EVALUATION's plugins have
(:class:`~console_app.tabs.plugin_panel.PluginDialog`, built from the script's parameters).

The plugin runs as ``neurocanvas plugin run SCRIPT --events key=value...`` in a child process
(:class:`JobRunner`) with progress and Stop; the dataset appears in its output folder only when
the run succeeds (:mod:`engine.plugins.pre_process`). Then the chosen dataset link takes the
first CSV (training) and a link named Validation the second, in one undo step, and the tab
shows it.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QMenu,
    QProgressBar,
    QPushButton,
    QWidget,
)

from console_app.settings import AppSettings
from console_app.tabs.job_runner import JobRunner
from console_app.tabs.plugin_panel import Catalogue, PluginDialog
from engine.plugins.protocol import FILE_KINDS, Plugin

if TYPE_CHECKING:
    from console_app.tabs.dataset_tab import DatasetTab


class CreateDataset(QObject):
    """The Create Dataset button, its menu of pre-process plugins, the run and the link."""

    finished = Signal(str, str)  # status (finished, stopped, failed), message

    def __init__(self, tab: DatasetTab, settings: AppSettings | None = None) -> None:
        super().__init__(tab)
        self.tab = tab
        self.settings = settings or AppSettings()
        self.catalogue = Catalogue(self.settings.plugin_folders(), stage="pre")
        self.runner = JobRunner(self)
        self.runner.event.connect(self._event)
        self.runner.ended.connect(self._ended)
        self.menu_shown: QMenu | None = None
        self.dialog_shown: PluginDialog | None = None
        self.datasets: list[Path] = []
        self.last_message = ""
        self.button = QPushButton(self.tr("Create Dataset..."))
        self.button.setObjectName("create_dataset")
        tip = self.tr("Create a dataset with a pre-process plugin (tables, split images, strings)")
        self.button.setToolTip(tip)
        self.button.clicked.connect(lambda: self.show_menu())
        self.progress = QProgressBar()
        self.progress.setVisible(False)
        self.stop_button = QPushButton(self.tr("Stop"))
        self.stop_button.setEnabled(False)
        self.stop_button.clicked.connect(self.runner.stop)
        self.status = QLabel("")
        self.widget = QWidget()
        row = QHBoxLayout(self.widget)
        row.setContentsMargins(0, 0, 0, 0)
        for w in (self.button, self.progress, self.stop_button):
            row.addWidget(w)
        row.addWidget(self.status, 1)

    # -- the menu and the dialog ------------------------------------------------------------
    def show_menu(self) -> QMenu:
        """The pre-process plugins by group (read in a thread on first use)."""
        menu = QMenu(self.button)
        plugins = self.catalogue.plugins
        if plugins is None:
            self.catalogue.load()
            menu.addAction(self.tr("Loading plugins...")).setEnabled(False)
        else:
            groups: dict[str, QMenu] = {}
            for plugin in sorted(plugins, key=lambda p: p.name):
                group = plugin.group or "Create_Dataset"
                if group not in groups:
                    groups[group] = menu.addMenu(group.replace("_", " "))
                action = groups[group].addAction(plugin.title or plugin.stem)
                action.setEnabled(not plugin.error and not self.runner.is_running())
                if plugin.error:
                    action.setToolTip(plugin.error)
                action.triggered.connect(lambda _=False, p=plugin: self.open_dialog(p))
        self.menu_shown = menu
        menu.popup(self.button.mapToGlobal(self.button.rect().bottomLeft()))
        return menu

    def base(self) -> Path:
        """Where relative paths of the dialog start: the project's folder."""
        return self.tab.base() or Path.home()

    def open_dialog(self, plugin: Plugin) -> None:
        filled = {"output-dir": str(self.base() / f"{plugin.stem}_dataset")}
        self.dialog_shown = PluginDialog(plugin, filled, self.tab)
        dialog = self.dialog_shown
        dialog.accepted.connect(lambda p=plugin: self.run(p, dialog.values()))
        dialog.open()

    # -- running -----------------------------------------------------------------------------
    def run(self, plugin: Plugin, values: dict[str, str]) -> bool:
        if self.runner.is_running():
            return False
        base = self.base()
        words = []
        for key, value in values.items():
            param = plugin.param(key)
            folder = param is not None and param.kind == "dir"
            source = param is not None and param.kind in FILE_KINDS and "output" not in param.name
            if value and (folder or source):  # from the project's folder; absolute stays
                value = str(base / Path(value).expanduser())
            words.append(f"{key}={value}")
        self.datasets = []
        self.status.setText(self.tr("Running %1...").replace("%1", plugin.name))
        self.progress.setValue(0)
        self.progress.setVisible(True)
        self.stop_button.setEnabled(True)
        self.runner.run_command(
            "plugin", base, ["plugin", "run", str(plugin.path), "--events", *words]
        )
        return True

    def _event(self, record: dict[str, Any]) -> None:
        if record.get("event") == "progress":
            self.progress.setMaximum(int(record.get("total") or 100))
            self.progress.setValue(int(record.get("done") or 0))
        elif record.get("event") == "done":
            self.datasets = [Path(p) for p in record.get("datasets") or []]

    def _ended(self, status: str, message: str) -> None:
        self.last_message = message
        self.progress.setVisible(False)
        self.stop_button.setEnabled(False)
        if status == "failed":
            first = (message.splitlines() or [""])[0]
            self.status.setText(self.tr("Create Dataset failed: %1").replace("%1", first))
        elif status == "finished" and self.datasets:
            self.link(self.datasets)
            names = ", ".join(p.name for p in self.datasets)
            self.status.setText(
                self.tr("Created %1 in %2")
                .replace("%1", names)
                .replace("%2", str(self.datasets[0].parent))
            )
        else:
            self.status.setText(self.tr("Create Dataset %1").replace("%1", status))
        self.finished.emit(status, message)

    def link(self, datasets: list[Path]) -> None:
        """The chosen link takes the first CSV; a link named Validation (another) the second."""
        tab = self.tab
        if tab.current() is None:
            tab.add_dataset()
        with tab.document.macro(self.tr("Create dataset")):
            tab.set_uri(str(datasets[0]))
            if len(datasets) > 1:
                for i, d in enumerate(tab.project.datasets):
                    if d.name == "Validation" and i != tab.index:
                        tab.set_uri(str(datasets[1]), i)

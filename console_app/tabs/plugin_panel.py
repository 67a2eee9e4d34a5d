"""EVALUATION's plugins: the output table's context menu runs one (NNC's protocol,
:mod:`engine.plugins`), the dialog is built from its parameters, and its results are listed
(they stay in the job folder, so reopening the job lists them again) and shown: images as
pictures, CSVs as sortable tables with thumbnails.

The plugin runs as ``neurocanvas plugin run SCRIPT JOB --events`` in a child process
(:class:`JobRunner`), with progress and Stop as training has. The catalogue of plugins (each
script's ``--help``) is read once in a thread, so the menu never waits on it.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from PySide6.QtCore import (
    QModelIndex,
    QObject,
    QSize,
    QSortFilterProxyModel,
    Qt,
    Signal,
)
from PySide6.QtGui import QDoubleValidator, QPixmap
from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QMenu,
    QProgressBar,
    QPushButton,
    QScrollArea,
    QSpinBox,
    QSplitter,
    QStackedWidget,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from console_app.language import error_text, translate
from console_app.settings import AppSettings
from console_app.tabs.job_runner import JobRunner
from console_app.tabs.table_model import IMAGE_SUFFIXES, THUMB, CsvTableModel, read_csv_rows
from engine.plugins.errors import PluginError
from engine.plugins.protocol import Plugin, discover
from engine.plugins.runner import list_results, row_values

ROW_KINDS = ("image",)
SMALL = 200  # pictures narrower than this are shown magnified


class Catalogue(QObject):
    """The plugins of the built-in folder and the user's, read in a thread."""

    ready = Signal()

    def __init__(self, folders: list[str] | None = None, stage: str = "post") -> None:
        super().__init__()
        self.folders = folders or []
        self.stage = stage  # "post": EVALUATION's plugins; "pre": DATASET > Create Dataset
        self.plugins: list[Plugin] | None = None
        self._thread: threading.Thread | None = None
        self._generation = 0

    def reload(self, folders: list[str]) -> None:
        """Read the catalogue again with these user folders."""
        self.folders, self.plugins, self._thread = list(folders), None, None
        self._generation += 1  # a reading still under way is now out of date
        self.load()

    def load(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(
                target=self._read, args=(self._generation, list(self.folders)), daemon=True
            )
            self._thread.start()

    def _read(self, generation: int, folders: list[str]) -> None:
        plugins = discover(folders, self.stage)
        if generation == self._generation:
            self.plugins = plugins
            try:
                self.ready.emit()
            except RuntimeError:  # the window closed while the thread read: nobody to tell
                pass


class NumericProxy(QSortFilterProxyModel):
    """Sorts numbers by value, text by text."""

    def lessThan(self, left: QModelIndex, right: QModelIndex) -> bool:  # noqa: N802
        a, b = left.data(Qt.ItemDataRole.ToolTipRole), right.data(Qt.ItemDataRole.ToolTipRole)
        try:
            return float(a) < float(b)
        except (TypeError, ValueError):
            return str(a) < str(b)


class PluginDialog(QDialog):
    """One field per parameter, as NNC builds it from the kinds of the script's help."""

    def __init__(self, plugin: Plugin, filled: dict[str, str], parent: QWidget | None = None):
        super().__init__(parent)
        self.plugin = plugin
        self.setWindowTitle(translate("PluginPanel", "Plugin: {name}").format(name=plugin.name))
        form = QFormLayout()
        self.fields: dict[str, QWidget] = {}
        for p in plugin.params:
            value = filled.get(p.name, p.default)
            if p.flag_only:
                widget: QWidget = QCheckBox()
                widget.setChecked(str(value).lower() in ("1", "true", "yes"))
            elif p.kind == "int":
                widget = QSpinBox()
                widget.setRange(-(2**31), 2**31 - 1)
                widget.setValue(_int(value))
            else:
                widget = QLineEdit("" if value is None else str(value))
                if p.kind == "float":
                    widget.setValidator(QDoubleValidator())
            widget.setObjectName(p.name)
            widget.setToolTip(p.help)
            self.fields[p.name] = widget
            form.addRow(f"{p.name} ({p.kind})", widget)
        text = QLabel(plugin.description)
        text.setWordWrap(True)
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(text)
        layout.addLayout(form)
        layout.addWidget(buttons)

    def values(self) -> dict[str, str]:
        out = {}
        for name, widget in self.fields.items():
            if isinstance(widget, QCheckBox):
                out[name] = "true" if widget.isChecked() else "false"
            elif isinstance(widget, QSpinBox):
                out[name] = str(widget.value())
            elif isinstance(widget, QLineEdit):
                out[name] = widget.text()
        return out


def _int(value: Any) -> int:
    try:
        return int(float(value))
    except (TypeError, ValueError):
        return 0


class PluginPanel(QWidget):
    """The results list and viewer; runs plugins for the EVALUATION tab."""

    finished = Signal(str, str)  # status (finished, stopped, failed), message

    def __init__(
        self, catalogue: Catalogue, settings: AppSettings, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.catalogue = catalogue
        self.settings = settings
        self.job: Path | None = None
        self.runner = JobRunner(self)
        self.runner.event.connect(self._event)
        self.runner.ended.connect(self._ended)
        self.last_message = ""
        self.menu_shown: QMenu | None = None
        self.dialog_shown: PluginDialog | None = None
        self.results = QListWidget()
        self.results.currentRowChanged.connect(self._show)
        self.files = QListWidget()
        self.files.currentRowChanged.connect(self._show_file)
        self.picture = QLabel()
        self.picture.setAlignment(Qt.AlignmentFlag.AlignCenter)
        scroll = QScrollArea()
        scroll.setWidget(self.picture)
        scroll.setWidgetResizable(True)
        self.table = QTableView()
        self.table.setSortingEnabled(True)
        self.table.setIconSize(QSize(THUMB, THUMB))
        self.table.verticalHeader().setDefaultSectionSize(THUMB + 4)
        self.viewer = QStackedWidget()
        self.viewer.addWidget(scroll)
        self.viewer.addWidget(self.table)
        self.progress = QProgressBar()
        self.progress.setVisible(False)
        self.stop_button = QPushButton(translate("PluginPanel", "Stop"))
        self.stop_button.setEnabled(False)
        self.stop_button.clicked.connect(self.runner.stop)
        self.status = QLabel(
            translate("PluginPanel", "Right-click the output table to run a plugin")
        )
        self.folders_button = QPushButton(translate("PluginPanel", "Plugin folders..."))
        self.folders_button.setToolTip(
            translate("PluginPanel", "Add a folder of plugins (holding _Post_Process/...)")
        )
        self.folders_button.clicked.connect(self.add_folder)
        left = QSplitter(Qt.Orientation.Vertical)
        left.addWidget(self.results)
        left.addWidget(self.files)
        body = QSplitter()
        body.addWidget(left)
        body.addWidget(self.viewer)
        body.setSizes([220, 600])
        row = QHBoxLayout()
        row.addWidget(self.status, 1)
        row.addWidget(self.progress)
        row.addWidget(self.stop_button)
        row.addWidget(self.folders_button)
        layout = QVBoxLayout(self)
        layout.addLayout(row)
        layout.addWidget(body, 1)

    def add_folder(self) -> bool:
        """Ask for a plugins folder; remember it (settings) and read the catalogue again."""
        folder = QFileDialog.getExistingDirectory(
            self, translate("PluginPanel", "Add a plugins folder")
        )
        if not folder:
            return False
        self.settings.add_plugin_folder(folder)
        self.catalogue.reload(self.settings.plugin_folders())
        self.status.setText(
            translate("PluginPanel", "Plugins of {folder} added; reading the plugins...").format(
                folder=folder
            )
        )
        return True

    # -- the menu ----------------------------------------------------------------------------
    def build_menu(self, parent: QWidget, row: int | None, rows: list[int] | None = None) -> QMenu:
        """Plugins by group; each opens its dialog for ``row`` of the output table, or, for a
        plugin of the whole table, the selected ``rows`` when there are several."""
        menu = QMenu(parent)
        plugins = self.catalogue.plugins
        if plugins is None:
            self.catalogue.load()
            menu.addAction(translate("PluginPanel", "Loading plugins...")).setEnabled(False)
            return menu
        groups: dict[str, QMenu] = {}
        for plugin in sorted(plugins, key=lambda p: p.name):
            group = plugin.group or "Plugins"
            if group not in groups:
                groups[group] = menu.addMenu(group)
            title = plugin.title or plugin.stem
            action = groups[group].addAction(title)
            if plugin.error:
                action.setEnabled(False)
                action.setToolTip(plugin.error)
            action.triggered.connect(lambda _=False, p=plugin: self.open_dialog(p, row, rows))
        running = self.runner.is_running()
        for action in menu.actions():
            action.setEnabled(not running)
        return menu

    def open_dialog(self, plugin: Plugin, row: int | None, rows: list[int] | None = None) -> None:
        if self.job is None:
            return
        selection = rows if rows and len(rows) > 1 and plugin.param("input") else None
        uses_row = any(p.kind in ROW_KINDS and not p.is_output for p in plugin.params) or any(
            p.name in ("index", "data_index") for p in plugin.params)  # fmt: skip
        row = row if uses_row else None
        selection = None if uses_row else selection
        try:
            filled = row_values(plugin, self.job, row) if row is not None else {}
        except PluginError as exc:
            self.status.setText(error_text(exc))
            return
        self.dialog_shown = PluginDialog(plugin, filled, self)
        if selection:
            self.dialog_shown.setWindowTitle(
                translate("PluginPanel", "{windowTitle} ({len} selected rows)").format(
                    windowTitle=self.dialog_shown.windowTitle(), len=len(selection)
                )
            )
        self.dialog_shown.accepted.connect(
            lambda p=plugin, r=row, s=selection: self.run(p, self.dialog_shown.values(), r, s)  # type: ignore[union-attr]
        )
        self.dialog_shown.open()

    # -- running -----------------------------------------------------------------------------
    def run(
        self, plugin: Plugin, values: dict[str, str], row: int | None = None,
        rows: list[int] | None = None,
    ) -> bool:  # fmt: skip
        if self.job is None or self.runner.is_running():
            return False
        args = ["plugin", "run", str(plugin.path), str(self.job), "--events"]
        if row is not None:
            args += ["--row", str(row)]
        if rows:
            args += ["--rows", ",".join(str(r) for r in rows)]
        args += [f"{k}={v}" for k, v in values.items()]
        self.status.setText(translate("PluginPanel", "Running {name}...").format(name=plugin.name))
        self.progress.setValue(0)
        self.progress.setVisible(True)
        self.stop_button.setEnabled(True)
        self.runner.run_command("plugin", self.job, args)
        return True

    def _event(self, record: dict[str, Any]) -> None:
        if record.get("event") == "progress":
            self.progress.setMaximum(int(record.get("total") or 100))
            self.progress.setValue(int(record.get("done") or 0))

    def _ended(self, status: str, message: str) -> None:
        self.last_message = message
        self.progress.setVisible(False)
        self.stop_button.setEnabled(False)
        if status == "failed":
            self.status.setText(
                translate("PluginPanel", "Plugin failed: ") + (message.splitlines() or [""])[0]
            )
        else:
            self.status.setText(translate("PluginPanel", "Plugin {status}").format(status=status))
        if self.job is not None:
            self.set_job(self.job, select_last=status == "finished")
        self.finished.emit(status, message)

    # -- results -----------------------------------------------------------------------------
    def set_job(self, job: Path | None, select_last: bool = False) -> None:
        self.job = job
        self.results.blockSignals(True)
        self.results.clear()
        self._found = list_results(job) if job is not None else []
        for result in self._found:
            item = QListWidgetItem(f"{result.plugin}  ({result.folder.name})")
            item.setToolTip(str(result.folder))
            self.results.addItem(item)
        self.results.blockSignals(False)
        if self._found:
            self.results.setCurrentRow(len(self._found) - 1 if select_last else 0)
        else:
            self._show(-1)

    def _show(self, index: int) -> None:
        self.files.clear()
        if not 0 <= index < len(getattr(self, "_found", [])):
            self.picture.clear()
            self.table.setModel(None)
            return
        result = self._found[index]
        shown = [f for f in result.files if f.lower().endswith((*IMAGE_SUFFIXES, ".csv"))]
        for name in shown:
            self.files.addItem(name)
        # a plot first where there is one, as NNC shows a plugin's picture; a batch (a picture
        # per row) shows its table, the pictures as thumbnails
        images = [k for k, f in enumerate(shown) if f.lower().endswith(IMAGE_SUFFIXES)]
        tables = [k for k, f in enumerate(shown) if f.lower().endswith(".csv")]
        few = images and (len(images) <= 3 or not tables)
        self.files.setCurrentRow(images[0] if few else (tables or [0])[0])

    def current_file(self) -> Path | None:
        index, item = self.results.currentRow(), self.files.currentItem()
        if item is None or not 0 <= index < len(self._found):
            return None
        return self._found[index].folder / item.text()

    def _show_file(self, _row: int) -> None:
        path = self.current_file()
        if path is None:
            return
        if path.suffix.lower() in IMAGE_SUFFIXES:
            pixmap = QPixmap(str(path))
            if 0 < pixmap.width() < SMALL:  # a digit's map: shown larger, pixels kept sharp
                factor = SMALL // pixmap.width() + 1
                pixmap = pixmap.scaled(pixmap.size() * factor)
            self.picture.setPixmap(pixmap)
            self.viewer.setCurrentIndex(0)
            return
        try:
            header, rows = read_csv_rows(path)
        except (OSError, ValueError) as exc:
            self.status.setText(f"{path.name}: {exc}")
            return
        proxy = NumericProxy(self)
        proxy.setSourceModel(CsvTableModel(header, rows, path.parent))
        self.table.setModel(proxy)
        self.viewer.setCurrentIndex(1)

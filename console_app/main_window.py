"""The main window: NNC's tabs, the File/Edit/View menus and toolbar, files and autosave.

EDIT holds the network editor; DATASET, CONFIG, TRAINING and EVALUATION keep their empty
state until those features land. Dialogs go through small ``ask_*`` methods so tests can
answer them.
"""

from __future__ import annotations

import logging
import re
from pathlib import Path

from PySide6.QtCore import QT_TRANSLATE_NOOP, QSize, Qt, QTimer
from PySide6.QtGui import QAction, QCloseEvent, QGuiApplication, QKeySequence
from PySide6.QtWidgets import (
    QFileDialog,
    QMainWindow,
    QMenu,
    QMessageBox,
)

from console_app import export_menu, help_menu, import_actions, language
from console_app.autosave import Autosaver, Recovery
from console_app.document import (
    Document,
    default_project_path,
    sample_projects,
)
from console_app.editor import clipboard, quantize_dialog
from console_app.editor.create_unit import (
    ArgumentChoice,
    argument_choices,
    check_selection,
    create_unit,
)
from console_app.editor.create_unit_dialog import CreateUnitDialog
from console_app.editor.edit_tab import EditTab
from console_app.network_actions import NETWORK_ACTIONS, NetworkActions
from console_app.settings import AppSettings
from console_app.tabs import LazyTabWidget, ProjectTabs
from console_app.text_dialog import ask_text
from engine.core import backend, messages, optional
from engine.formats import ProjectFileError
from engine.formats.samples import copy_sample
from engine.graph import commands as C
from engine.graph.project import ModelError

# networkx (0.3-0.6 s to import) when layers are first arranged, not at start-up
arrange = optional.lazy("console_app.editor.arrange")

TABS = (QT_TRANSLATE_NOOP("MainWindow", "EDIT"), QT_TRANSLATE_NOOP("MainWindow", "DATASET"),
        QT_TRANSLATE_NOOP("MainWindow", "CONFIG"), QT_TRANSLATE_NOOP("MainWindow", "TRAINING"),
        QT_TRANSLATE_NOOP("MainWindow", "EVALUATION"))  # fmt: skip
FILE_FILTER = ";;".join((
    "Projects (*.ncproj *.sdcproj)", "NeuroCanvas project (*.ncproj)", "NNC project (*.sdcproj)",
    "All files (*)",
))  # fmt: skip


def with_project_extension(path: str, chosen_filter: str) -> str:
    """``mycnn`` -> ``mycnn.ncproj`` (or ``.sdcproj`` when the NNC filter was chosen): a name
    typed without a project extension gets the chosen filter's first one."""
    if Path(path).suffix.lower() in (".ncproj", ".sdcproj"):
        return path
    found = re.search(r"\*(\.(?:ncproj|sdcproj))", chosen_filter or "")
    return path + (found.group(1) if found else ".ncproj")


# An edit is autosaved 2 s after it (one write per pause): a crash loses at most 2 s of work.
AUTOSAVE_MS = 2_000
FIRST_SIZE = (1400, 860)  # the window's size before any is remembered, screen allowing
EXPORTS = ("Python code...", "ONNX...", "NNP...", "C source...", "TFLite...",
           "PowerPoint report...")  # fmt: skip
EDIT_ONLY = ("cut", "copy", "paste", "delete", "select_all", "arrange", "create_unit",
             "add_network", "rename_network", "duplicate_network", "delete_network",
             "zoom_in", "zoom_out", "zoom_fit", "snap")  # fmt: skip

_log = logging.getLogger(__name__)


class MainWindow(QMainWindow, NetworkActions):
    def __init__(self, project: str | None = None, settings: AppSettings | None = None,
                 document: Document | None = None, starting: bool = False) -> None:  # fmt: skip
        super().__init__()  # starting: the app's start shows the canvas first, the panes after
        # The editor never opens a CUDA context (DESIGN principle 4): whatever it computes
        # itself (ONNX export values) stays on the CPU; trainer processes pick their device.
        backend.set_device("cpu")
        self.settings = settings if settings is not None else AppSettings()
        self.autosaver = Autosaver(self.settings.autosave_dir())
        self.opened_by_name = bool(project)  # recovery then offers only that file's work
        self.document = document if document is not None else self._initial_document(project)
        self.tabs = LazyTabWidget()
        self.edit_tab = EditTab(self.document, panes_after_first_paint=starting)
        self.edit_tab.setObjectName("tab_edit")
        self.tabs.addTab(self.edit_tab, self.tr(TABS[0]))
        self.project_tabs = ProjectTabs(self)
        for name in TABS[1:]:
            self.tabs.addTab(self.project_tabs.widgets[name], self.tr(name))
        self.setCentralWidget(self.tabs)
        # Made now, not on the first message: the actions' status tips need it, and a bar
        # appearing later shrinks every tab under the user's pointer.
        self.statusBar()
        self.edit_tab.message.connect(self.show_message)
        self.edit_tab.tab_menu_requested.connect(self._show_network_menu)
        self.network_menu_shown: QMenu | None = None
        self._build_actions()
        self._build_menus()
        self.tabs.currentChanged.connect(self._tab_shown)
        self._unsubscribe = self.document.subscribe(self._document_changed)
        self.autosave_timer = QTimer(self)
        self.autosave_timer.setInterval(AUTOSAVE_MS)
        self.autosave_timer.setSingleShot(True)
        self.autosave_timer.timeout.connect(self.autosave)
        self.resize(self._first_size())
        geometry = self.settings.geometry()
        if geometry is not None:
            self.restoreGeometry(geometry)
        self._document_changed()

    def _first_size(self) -> QSize:
        """1400 x 860, shrunk to 90% of a smaller screen's free area: seen on a 1366 x 768 X
        server, the window ran off the screen with its close button and status bar."""
        screen = self.screen() or QGuiApplication.primaryScreen()
        if screen is None:
            return QSize(*FIRST_SIZE)
        free = screen.availableGeometry()
        return QSize(min(FIRST_SIZE[0], int(free.width() * 0.9)),
                     min(FIRST_SIZE[1], int(free.height() * 0.9)))  # fmt: skip

    def _initial_document(self, project: str | None) -> Document:
        path = Path(project) if project else default_project_path()
        if path is not None:
            try:
                if not project:  # the installed sample: the user's copy of it
                    path = copy_sample(path, self.settings.projects_dir(), reuse=True)
                document = Document.open(path)
                if project:
                    self.settings.add_recent(document.path)
                return document
            except (ProjectFileError, OSError) as exc:
                _log.warning("%s", exc)
                message = str(exc)
                QTimer.singleShot(0, lambda: self.report_error(message))
        return Document()

    # -- actions and menus -----------------------------------------------------------------
    def _action(self, text: str, slot, shortcut=None, tip: str = "") -> QAction:  # noqa: ANN001
        action = QAction(text, self)
        if shortcut is not None:
            action.setShortcut(QKeySequence(shortcut))
        action.setStatusTip(tip or text.replace("&", "").rstrip("."))
        action.triggered.connect(lambda _checked=False: slot())
        return action

    def _build_actions(self) -> None:
        K = QKeySequence.StandardKey
        a = self._action
        self.actions_by_name = {
            "new": a(self.tr("&New"), self.new_project, K.New),
            "open": a(self.tr("&Open..."), self.open_dialog, K.Open),
            "save": a(self.tr("&Save"), self.save, K.Save),
            "save_as": a(self.tr("Save &As..."), self.save_as, K.SaveAs),
            "quit": a(self.tr("&Quit"), self.close, K.Quit),
            "undo": a(self.tr("&Undo"), self.undo, K.Undo),
            "redo": a(self.tr("&Redo"), self.redo, K.Redo),
            "cut": a(self.tr("Cu&t"), self.cut, K.Cut),
            "copy": a(self.tr("&Copy"), self.copy, K.Copy),
            "paste": a(self.tr("&Paste"), self.paste, K.Paste),
            "delete": a(self.tr("&Delete"), self.delete, K.Delete),
            "select_all": a(self.tr("Select &All"), self.select_all, K.SelectAll),
            "arrange": a(self.tr("A&rrange Layers"), self.arrange, "Ctrl+Shift+A"),
            "create_unit": a(self.tr("Create &Unit"), self.create_unit, "Ctrl+Shift+U"),
            "add_network": a(self.tr("Add &Network"), self.add_network),
            "rename_network": a(self.tr("Re&name Network..."), self.rename_network, "F2"),
            "duplicate_network": a(self.tr("Du&plicate Network"), self.duplicate_network),
            "delete_network": a(self.tr("Delete Net&work..."), self.delete_network),
            "zoom_in": a(self.tr("Zoom &In"), lambda: self._view_call("zoom_in"), K.ZoomIn),
            "zoom_out": a(self.tr("Zoom &Out"), lambda: self._view_call("zoom_out"), K.ZoomOut),
            "zoom_fit": a(self.tr("Zoom to &Fit"), self.zoom_fit, "Ctrl+0"),
            "snap": a(self.tr("&Snap to Grid"), self._toggle_snap),
        }
        redo = QKeySequence.keyBindings(K.Redo)  # Ctrl+Shift+Z here; Windows users expect Ctrl+Y
        if QKeySequence("Ctrl+Y") not in redo:
            redo.append(QKeySequence("Ctrl+Y"))
        self.actions_by_name["redo"].setShortcuts(redo)
        # The toolbar keeps short labels (the menu and tooltip name the command): a label that
        # grows with "Undo Connect ReLU_2 to Sigmoid" pushed every tool after it sideways.
        self.actions_by_name["undo"].setIconText(self.tr("Undo"))
        self.actions_by_name["redo"].setIconText(self.tr("Redo"))
        self.actions_by_name["snap"].setCheckable(True)
        self.actions_by_name["snap"].setChecked(True)
        for action in self.actions_by_name.values():
            self.addAction(action)

    def _build_menus(self) -> None:
        acts = self.actions_by_name
        bar = self.menuBar()
        file_menu = bar.addMenu(self.tr("&File"))
        file_menu.addActions([acts["new"], acts["open"]])
        self.samples_menu = file_menu.addMenu(self.tr("Open &Sample"))
        for path in sample_projects():
            self.samples_menu.addAction(path.stem, lambda p=path: self.open_sample(p))
        if not sample_projects():
            self.samples_menu.addAction(self.tr("(no sample projects)")).setEnabled(False)
        self.recent_menu = file_menu.addMenu(self.tr("Open &Recent"))
        self.recent_menu.aboutToShow.connect(self._fill_recent)
        file_menu.addSeparator()
        file_menu.addActions([acts["save"], acts["save_as"]])
        self.export_menu = file_menu.addMenu(self.tr("&Export"))
        export_menu.add_to_menu(self, self.export_menu, EXPORTS)
        self.import_action = import_actions.add_to_menu(
            self, file_menu, self.export_menu.menuAction()
        )
        file_menu.addSeparator()
        file_menu.addAction(acts["quit"])
        edit_menu = bar.addMenu(self.tr("&Edit"))
        edit_menu.addActions([acts["undo"], acts["redo"]])
        edit_menu.addSeparator()
        edit_menu.addActions([acts[k] for k in ("cut", "copy", "paste", "delete", "select_all")])
        edit_menu.addSeparator()
        edit_menu.addActions([acts["arrange"], acts["create_unit"]])
        quantize_dialog.add_to_menu(self, edit_menu)
        edit_menu.addSeparator()
        edit_menu.addActions([acts[f"{k}_network"] for k in NETWORK_ACTIONS])
        view_menu = bar.addMenu(self.tr("&View"))
        view_menu.addActions([acts[k] for k in ("zoom_in", "zoom_out", "zoom_fit", "snap")])
        view_menu.addSeparator()
        language.add_language_menu(self, view_menu)
        self.help_menu = help_menu.add_help_menu(self)
        toolbar = self.addToolBar("Main")
        toolbar.setObjectName("main_toolbar")
        for key in ("new", "open", "save", None, "undo", "redo", None, "zoom_in", "zoom_out",
                    "zoom_fit", None, "arrange", "create_unit"):  # fmt: skip
            toolbar.addSeparator() if key is None else toolbar.addAction(acts[key])

    def _fill_recent(self) -> None:
        self.recent_menu.clear()
        for path in self.settings.recent_files():
            self.recent_menu.addAction(path, lambda p=path: self.open_path(p))
        if not self.settings.recent_files():
            self.recent_menu.addAction(self.tr("(none)")).setEnabled(False)

    # -- state shown -----------------------------------------------------------------------
    def _document_changed(self) -> None:
        doc = self.document
        self.setWindowTitle(self.tr("{title}[*] - NeuroCanvas").format(title=doc.title))
        self.setWindowModified(doc.modified)
        stack = doc.stack
        self.actions_by_name["undo"].setEnabled(stack.can_undo())
        self.actions_by_name["redo"].setEnabled(stack.can_redo())
        acts = self.actions_by_name
        acts["undo"].setText(
            self.tr("&Undo {what}").format(what=language.shown(stack.undo_text())).rstrip()
        )
        acts["redo"].setText(
            self.tr("&Redo {what}").format(what=language.shown(stack.redo_text())).rstrip()
        )
        if not doc.modified and self.autosaver.wrote:  # undone back to the saved state
            self.autosaver.discard()
        elif doc.modified and not self.autosave_timer.isActive():
            self.autosave_timer.start()

    def _tab_shown(self, index: int) -> None:
        """The canvas tools act on EDIT only: elsewhere they are disabled (Delete, Ctrl+A...
        belong to the tab's own widgets there)."""
        for key in EDIT_ONLY:
            self.actions_by_name[key].setEnabled(index == 0)

    def show_message(self, text: str) -> None:
        self.statusBar().showMessage(text, 8000)

    def report_error(self, text: str) -> None:
        """Tell the user without blocking (a window-modal box; tests read ``last_error``)."""
        _log.warning("%s", text)
        self.last_error = text
        self.show_message(text)
        box = QMessageBox(QMessageBox.Icon.Warning, self.tr("NeuroCanvas"), text, parent=self)
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        box.open()

    # -- dialogs (tests replace these) -----------------------------------------------------
    def ask_save_changes(self) -> str:
        """``"save"``, ``"discard"`` or ``"cancel"``."""
        question = self.tr("Save the changes to {title}?").format(title=self.document.title)
        answer = QMessageBox.question(self, self.tr("NeuroCanvas"), question,
            QMessageBox.StandardButton.Save | QMessageBox.StandardButton.Discard
            | QMessageBox.StandardButton.Cancel)  # fmt: skip
        return {QMessageBox.StandardButton.Save: "save",
                QMessageBox.StandardButton.Discard: "discard"}.get(answer, "cancel")  # fmt: skip

    def ask_open_path(self) -> str | None:
        start = str(Path(self.document.path).parent) if self.document.path else ""
        path, _ = QFileDialog.getOpenFileName(self, self.tr("Open project"), start, FILE_FILTER)
        return path or None

    def ask_save_path(self) -> str | None:
        start = str(self.document.path or "untitled.ncproj")
        title = self.tr("Save project as")
        path, chosen = QFileDialog.getSaveFileName(self, title, start, FILE_FILTER)
        if not path:
            return None
        named = with_project_extension(path, chosen)
        # The dialog asked about replacing the name typed, not the one with the extension.
        if (
            named != path
            and Path(named).exists()
            and not self.ask_confirm(self.tr("{0} exists already. Replace it?").format(named))
        ):
            return None
        return named

    def ask_recover(self, original: str | None) -> bool:
        # The path on a line of its own: the message box would break it at a slash.
        text = (self.tr("NeuroCanvas did not close normally. Recover the unsaved work on this "
                        "file?\n\n{path}").format(path=original) if original else
                self.tr("NeuroCanvas did not close normally. Recover the unsaved work on an "
                        "untitled project?"))  # fmt: skip
        answer = QMessageBox.question(self, self.tr("Recover unsaved work"), text)
        return answer == QMessageBox.StandardButton.Yes

    def ask_create_unit(
        self, choices: list[ArgumentChoice], default_name: str
    ) -> tuple[str, list[ArgumentChoice]] | None:
        """The unit network's name and the properties that become its arguments."""
        dialog = CreateUnitDialog(choices, default_name, self.document.project.network_names, self)
        if dialog.exec() != CreateUnitDialog.DialogCode.Accepted:
            return None
        return dialog.unit_name(), dialog.chosen()

    def ask_text(self, title: str, label: str, text: str) -> str | None:
        return ask_text(self, title, label, text)

    def ask_stop_children(self, text: str) -> bool:
        """Closing while child processes run (tests replace it, as ``ask_save_changes``)."""
        return self.ask_confirm(text)

    def ask_confirm(self, text: str) -> bool:
        answer = QMessageBox.question(self, self.tr("NeuroCanvas"), text)
        return answer == QMessageBox.StandardButton.Yes

    # -- files -----------------------------------------------------------------------------
    def set_document(self, document: Document) -> None:
        old = self.document
        self._unsubscribe()
        self.document = document
        self.edit_tab.set_document(document)
        self.project_tabs.set_document(document)
        self._unsubscribe = document.subscribe(self._document_changed)
        old.close()
        self._document_changed()
        self._view_call("zoom_fit")

    def maybe_save(self) -> bool:
        """True when it is fine to drop the current document (saved, discarded)."""
        if not self.document.modified:
            return True
        answer = self.ask_save_changes()
        if answer == "save":
            return self.save()
        if answer == "discard":
            self.autosaver.discard()
            return True
        return False

    def new_project(self) -> None:
        if self.maybe_save():
            self.set_document(Document())

    def open_dialog(self) -> None:
        if not self.maybe_save():
            return
        path = self.ask_open_path()
        if path:
            self.open_path(path, ask=False)

    def open_path(self, path: str | Path, ask: bool = True) -> bool:
        if ask and not self.maybe_save():
            return False
        try:
            document = Document.open(path)
        except ProjectFileError as exc:
            self.report_error(language.error_text(exc))
            return False
        self.set_document(document)
        self.settings.add_recent(document.path)
        self.show_message(self.tr("Opened {path}").format(path=document.path))
        self._offer(self.autosaver.pending_for(document.path))
        return True

    def open_sample(self, sample: Path) -> bool:
        """File > Open Sample: the user's copy in their projects folder (made on first use),
        never the installed file."""
        if not self.maybe_save():
            return False
        try:
            path = copy_sample(sample, self.settings.projects_dir(), reuse=True)
        except OSError as exc:
            self.report_error(
                self.tr("{stem}: cannot copy the sample to your projects: {exc}").format(
                    stem=sample.stem, exc=exc
                )
            )
            return False
        return self.open_path(path, ask=False)

    def save(self) -> bool:
        if self.document.path is None:
            return self.save_as()
        return self._save_to(self.document.path)

    def save_as(self, path: str | Path | None = None) -> bool:
        path = path or self.ask_save_path()
        return bool(path) and self._save_to(Path(path))  # type: ignore[arg-type]

    def _save_to(self, path: Path) -> bool:
        try:
            self.document.save(path)
        except (OSError, ProjectFileError, ValueError) as exc:
            self.report_error(self.tr("{path}: cannot save: {exc}").format(path=path, exc=exc))
            return False
        self.settings.add_recent(path)
        self.autosaver.discard()
        self.show_message(self.tr("Saved {path}").format(path=path))
        self._document_changed()
        return True

    def autosave(self) -> bool:
        try:
            return self.autosaver.save(self.document)
        except OSError as exc:
            _log.warning("autosave failed: %s", exc)
            return False

    def offer_recovery(self) -> bool:
        """At start-up: offer the work an earlier session left on the file being opened.

        Without a file named on the command line the newest autosave is offered (the user
        asked for nothing in particular); with one, only that file's: the work on other files
        waits until they are opened, never replacing the file asked for.
        """
        recovery = self.autosaver.pending_for(self.document.path)
        if recovery is None and not self.opened_by_name:
            recovery = next(iter(self.autosaver.pending()), None)
        return self._offer(recovery)

    def _offer(self, recovery: Recovery | None) -> bool:
        if recovery is None:
            return False
        if not self.ask_recover(recovery.original):
            self.autosaver.drop(recovery)
            return False
        try:
            document = self.autosaver.recover(recovery)
        except ProjectFileError as exc:
            self.report_error(
                self.tr("the autosaved work cannot be read: {exc}").format(
                    exc=language.error_text(exc)
                )
            )
            self.autosaver.drop(recovery)
            return False
        self.set_document(document)
        self.show_message(self.tr("Recovered the autosaved work; save it to keep it"))
        return True

    def running_children(self) -> list[tuple[str, object]]:
        """(what, runner) of the child processes still running: training, evaluation, a
        quantization experiment."""
        tabs = [(self.tr("Training"), self.project_tabs.built("TRAINING")),
                (self.tr("Evaluation"), self.project_tabs.built("EVALUATION"))]  # fmt: skip
        found = [(what, tab.runner) for what, tab in tabs if tab is not None]  # built ones only
        dialog = getattr(tabs[0][1], "quantization_dialog", None)
        if dialog is not None:
            found.append((self.tr("A quantization experiment"), dialog.runner))
        return [(what, runner) for what, runner in found if runner.is_running()]

    def closeEvent(self, event: QCloseEvent) -> None:
        running = self.running_children()
        if running:
            what = ", ".join(name for name, _ in running)
            if not self.ask_stop_children(
                self.tr("{what} is still running. Stop it and quit?").format(what=what)
            ):
                event.ignore()
                return
        if not self.maybe_save():
            event.ignore()
            return
        for _, runner in running:
            runner.shutdown()  # type: ignore[attr-defined]
        self.settings.set_geometry(self.saveGeometry())
        self.settings.sync()
        self.autosave_timer.stop()
        self.autosaver.discard()
        event.accept()

    # -- edit actions ----------------------------------------------------------------------
    def _scene(self):  # noqa: ANN202
        return self.edit_tab.current_scene()

    def _view_call(self, name: str) -> None:
        view = self.edit_tab.current_view()
        if view is not None:
            getattr(view, name)()

    def _toggle_snap(self) -> None:
        snap = self.actions_by_name["snap"].isChecked()
        for view in self.edit_tab.views:
            view.network_scene.snap_to_grid = snap

    def _guard(self, what, *args):  # noqa: ANN001, ANN002, ANN202
        try:
            return what(*args)
        except ModelError as exc:
            self.show_message(language.error_text(exc))
            return None

    def undo(self) -> None:
        if self.document.stack.can_undo():
            self._guard(self.document.stack.undo)

    def redo(self) -> None:
        if self.document.stack.can_redo():
            self._guard(self.document.stack.redo)

    def copy(self) -> bool:
        scene = self._scene()
        names = scene.selected_layers() if scene is not None else []
        if not names:
            return False
        # Plain text (JSON with a format marker): a QMimeData handed to the clipboard crashes
        # PySide6 at exit, and text also survives a round trip through other programs.
        QGuiApplication.clipboard().setText(clipboard.copy_layers(scene.network, names))
        return True

    def cut(self) -> None:
        if self.copy():
            self._scene().delete_selected()

    def paste(self) -> list[str]:
        scene = self._scene()
        text = QGuiApplication.clipboard().text()
        if scene is None or not text:
            return []
        names = self._guard(clipboard.paste_layers, self.document, scene.network, text) or []
        scene.select_layers(names)
        return names

    def delete(self) -> None:
        scene = self._scene()
        if scene is not None:
            scene.delete_selected()

    def select_all(self) -> None:
        scene = self._scene()
        if scene is not None:
            scene.select_all()

    def arrange(self) -> None:
        scene = self._scene()
        if scene is not None:
            moves = arrange.arrange_positions(scene.network)
            command = C.MoveLayers(scene.network, moves)
            command.text = messages.QT_TRANSLATE_NOOP("Commands", "Arrange Layers")
            self._guard(self.document.push, command)
            self._view_call("zoom_fit")

    def create_unit(self) -> tuple[str, str] | None:
        """Create Unit on the selection, asking for the unit's name and arguments first."""
        scene = self._scene()
        if scene is None:
            return None
        names = scene.selected_layers()
        if self._guard(check_selection, scene.network, names) is None:
            return None
        default = self.document.project.unique_network_name("Unit")
        answer = self.ask_create_unit(
            argument_choices(scene.network, names, self.document.project), default
        )
        if answer is None:
            return None
        unit_name, arguments = answer
        result = self._guard(create_unit, self.document, scene.network, names, arguments, unit_name)
        if result is not None:
            scene.select_layers([result[1]])
            self.show_message(
                self.tr('Created unit network "{value}"; double-click {value2} to open it').format(
                    value=result[0], value2=result[1]
                )
            )
        return result

    # -- networks ------------------------------------------------------------------------------
    def zoom_fit(self) -> None:
        self._view_call("zoom_fit")

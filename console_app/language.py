"""The interface's language: View > Language (English, Japanese, follow the system).

The catalogues are Qt Linguist sources, ``resources/i18n/neurocanvas_<lang>.ts``, extracted from
the code by ``pyside6-lupdate`` (tools/update_translations.sh). The binary ``.qm`` that
QTranslator loads is built from the shipped ``.ts`` by ``lrelease`` (PySide6 ships it) the first
time a language is used, into the user's cache folder under a name holding the ``.ts``'s
content hash: the ``.qm`` can never be older than its source (editable installs, a translator
editing the ``.ts``), a read-only site-packages is no obstacle, and no derived binary is
committed beside its source.

A switch is applied at once: the main window is rebuilt in the new language around the same
open document (its unsaved edits and undo history stay). While a child process runs (training,
evaluation) the window is kept and the choice applies at the next start.
"""

from __future__ import annotations

import hashlib
import logging
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import PySide6
from PySide6.QtCore import (
    QT_TRANSLATE_NOOP,
    QCoreApplication,
    QLibraryInfo,
    QLocale,
    QStandardPaths,
    QTranslator,
)
from PySide6.QtGui import QAction, QActionGroup
from PySide6.QtWidgets import QMenu, QMessageBox

from console_app.document import Document
from engine.core.messages import text_of, translated
from engine.package_data import data_folder
from engine.report import i18n as report_i18n
from engine.report.i18n import cjk_matplotlib_fonts

__all__ = [
    "CHOICES", "add_language_menu", "compiled_catalogue", "current", "install", "resolve",
    "error_text", "shown", "translate",
]  # fmt: skip

# ``translate("Context", "text")``: QCoreApplication.translate under a name short enough to keep
# call sites on one line; pyside6-lupdate extracts these calls like the long form.
translate = QCoreApplication.translate


def error_text(exc: BaseException) -> str:
    """An exception's message as the app shows it: in the interface's language when the engine
    raised it with a marked template (engine/core/messages.py), else its English text."""
    return shown(text_of(exc))


def shown(text: object) -> str:
    """A text from the engine in the interface's language: its messages (a layer's problem, a
    trainer's warning) are templates marked for the same catalogue (engine/core/messages.py)."""
    return translated(text, translate)


# (setting, menu text): the language's own name first, so a user lost in a foreign UI finds it.
CHOICES = (
    ("en", QT_TRANSLATE_NOOP("Language", "English")),
    ("ja", QT_TRANSLATE_NOOP("Language", "Japanese (日本語)")),
    ("system", QT_TRANSLATE_NOOP("Language", "Follow the system")),
)
TRANSLATED = ("ja",)  # languages with a catalogue; English is the source text
_log = logging.getLogger(__name__)
_installed: list[QTranslator] = []
_current = ["en"]
_windows: list[Any] = []  # the live main window after a rebuild (Qt does not own it)


def resolve(choice: str) -> str:
    """The language a setting means: ``system`` follows the system locale's language."""
    if choice == "system":
        choice = QLocale.system().name().split("_")[0]
    return choice if choice in TRANSLATED else "en"


def current() -> str:
    """The language the interface is in now."""
    return _current[0]


def _catalogue_folder() -> Path | None:
    folder = data_folder("neurocanvas_resources", "resources")
    return folder / "i18n" if folder else None


def _lrelease() -> str | None:
    exe = "lrelease.exe" if sys.platform == "win32" else "lrelease"
    bundled = Path(PySide6.__file__).parent / exe
    if bundled.is_file():
        return str(bundled)
    return shutil.which("pyside6-lrelease") or shutil.which("lrelease")


def cache_folder() -> Path:
    """NEUROCANVAS_CACHE's i18n folder when set (as the datasets' cache), else the app's."""
    if os.environ.get("NEUROCANVAS_CACHE"):
        return Path(os.environ["NEUROCANVAS_CACHE"]) / "i18n"
    base = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.CacheLocation)
    return Path(base or Path.home() / ".cache" / "neurocanvas") / "i18n"


def compiled_catalogue(language: str) -> Path | None:
    """The ``.qm`` of ``language``, built from its ``.ts`` when this content has none yet;
    None (and a log line) when there is no catalogue or it cannot be built."""
    folder = _catalogue_folder()
    ts = folder / f"neurocanvas_{language}.ts" if folder else None
    if ts is None or not ts.is_file():
        _log.warning("no catalogue for language %r", language)
        return None
    digest = hashlib.sha256(ts.read_bytes()).hexdigest()[:16]
    qm = cache_folder() / f"neurocanvas_{language}-{digest}.qm"
    if qm.is_file():
        return qm
    lrelease = _lrelease()
    if lrelease is None:
        _log.warning("cannot build %s: lrelease (PySide6) not found", ts)
        return None
    qm.parent.mkdir(parents=True, exist_ok=True)
    handle, tmp = tempfile.mkstemp(suffix=".qm", dir=qm.parent)
    os.close(handle)
    try:
        done = subprocess.run([lrelease, "-silent", str(ts), "-qm", tmp], capture_output=True)
        if done.returncode != 0 or not Path(tmp).stat().st_size:
            _log.warning("lrelease failed on %s: %s", ts, done.stderr.decode(errors="replace"))
            return None
        os.replace(tmp, qm)
    finally:
        Path(tmp).unlink(missing_ok=True)
    return qm


def install(app: QCoreApplication, language: str) -> str:
    """Replace the app's translators by ``language``'s (ours and Qt's own dialogs' strings);
    returns the language now shown (English when the catalogue cannot be loaded)."""
    for translator in _installed:
        app.removeTranslator(translator)
    _installed.clear()
    shown = "en"
    if language != "en":
        qm = compiled_catalogue(language)
        ours = QTranslator(app)
        if qm is not None and ours.load(str(qm)):
            _installed.append(ours)
            shown = language
            qt_own = QTranslator(app)
            folder = QLibraryInfo.path(QLibraryInfo.LibraryPath.TranslationsPath)
            if qt_own.load(f"qtbase_{language}", folder):
                _installed.append(qt_own)
    for translator in _installed:
        app.installTranslator(translator)
    _current[0] = shown
    use_plot_fonts()
    report_i18n.use(shown)  # the plots drawn by engine.report (learning curves, trade-off)
    return shown


def use_plot_fonts() -> None:
    """The plots' Japanese texts (hints, axis titles) need a font with kana: set once matplotlib
    is loaded, by the first plot shown (console_app.tabs.plot_canvas) or here when it is."""
    matplotlib = sys.modules.get("matplotlib")
    if matplotlib is not None and _current[0] != "en":
        matplotlib.rcParams["font.family"] = cjk_matplotlib_fonts()


def add_language_menu(window: Any, menu: QMenu) -> QMenu:
    """View > Language: one checked choice, remembered in the settings."""
    sub = menu.addMenu(QCoreApplication.translate("Language", "&Language"))
    sub.setObjectName("language_menu")
    group = QActionGroup(sub)
    chosen = window.settings.language()
    for code, text in CHOICES:
        action = QAction(QCoreApplication.translate("Language", text), sub)
        action.setObjectName(f"language_{code}")
        action.setCheckable(True)
        action.setChecked(code == chosen)
        action.triggered.connect(lambda _checked=False, c=code: switch(window, c))
        group.addAction(action)
        sub.addAction(action)
    return sub


def switch(window: Any, choice: str) -> Any:
    """Remember ``choice`` and show the interface in it; returns the window now shown."""
    window.settings.set_language(choice)
    window.settings.sync()
    wanted = resolve(choice)
    if wanted == current():
        return window
    if window.running_children():
        QMessageBox.information(
            window,
            QCoreApplication.translate("Language", "Language"),
            QCoreApplication.translate(
                "Language",
                "A job is running: the new language is shown when NeuroCanvas starts again.",
            ),
        )
        return window
    install(QCoreApplication.instance(), wanted)
    return _rebuild(window)


def _rebuild(window: Any) -> Any:
    """A new main window in the new language around the same document; the old one lets go
    of the document (so its close neither saves nor discards it) and closes."""
    document = window.document
    blank = Document()
    window._unsubscribe()  # noqa: SLF001 - the window's own document listener
    window.edit_tab.set_document(blank)
    window.project_tabs.set_document(blank)
    window.document = blank
    window.autosave_timer.stop()
    new = type(window)(None, settings=window.settings, document=document)
    new.opened_by_name = window.opened_by_name
    new.restoreGeometry(window.saveGeometry())
    new.tabs.setCurrentIndex(window.tabs.currentIndex())
    window.replaced_by = new
    if window.isVisible():
        new.show()
    window.close()
    if document.modified:
        new.autosave()  # the old window's close discarded the autosave it had written
    _windows[:] = [new]
    return new

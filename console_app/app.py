"""Start the desktop app: ``neurocanvas [PROJECT]`` (without PROJECT: the default sample).

Start-up makes about 80,000 objects that live as long as the process (modules, classes, Qt's
enums, the catalogue); Python's collector would walk them again and again while they are made
(0.14-0.22 s of densenet-161's start, a third of it in one full collection). So collection
waits until the window is up: the launcher (``neurocanvas``) turns it off before it imports this
module, sets the imported objects aside for good (``gc.freeze``: modules, classes and functions
are never garbage) and :func:`run_app` turns it on again at the event loop's first turn, which
finds only the window's and the document's objects young.
"""

from __future__ import annotations

import gc
import sys

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication

from console_app import language
from console_app.help_menu import app_icon
from console_app.main_window import MainWindow
from console_app.settings import AppSettings


def run_app(project: str | None = None, collect_after_start: bool = False) -> int:
    """Show the main window on ``project`` and run the event loop; ``collect_after_start``:
    the caller turned garbage collection off for the start-up, turn it on once the window is up.
    """
    app = QApplication.instance() or QApplication(sys.argv[:1])
    app.setApplicationName("NeuroCanvas")
    app.setOrganizationName("NeuroCanvas")
    app.setWindowIcon(app_icon())
    app.setDesktopFileName("neurocanvas")  # Wayland matches the window to neurocanvas.desktop
    settings = AppSettings()
    language.install(app, language.resolve(settings.language()))
    window = MainWindow(project, settings=settings, starting=True)
    window.show()
    window.zoom_fit()
    if collect_after_start:
        QTimer.singleShot(0, gc.enable)  # the event loop's first turn
    QTimer.singleShot(0, window.offer_recovery)  # after the window is up, not before
    return app.exec()

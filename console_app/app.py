"""Start the desktop app: ``neurocanvas [PROJECT]`` (without PROJECT: the default sample)."""

from __future__ import annotations

import sys

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication

from console_app import language
from console_app.help_menu import app_icon
from console_app.main_window import MainWindow
from console_app.settings import AppSettings


def run_app(project: str | None = None) -> int:
    app = QApplication.instance() or QApplication(sys.argv[:1])
    app.setApplicationName("NeuroCanvas")
    app.setOrganizationName("NeuroCanvas")
    app.setWindowIcon(app_icon())
    app.setDesktopFileName("neurocanvas")  # Wayland matches the window to neurocanvas.desktop
    settings = AppSettings()
    language.install(app, language.resolve(settings.language()))
    window = MainWindow(project, settings=settings)
    window.show()
    window.zoom_fit()
    QTimer.singleShot(0, window.offer_recovery)  # after the window is up, not before
    return app.exec()

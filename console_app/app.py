"""Start the desktop app: ``neurocanvas [PROJECT]``."""

from __future__ import annotations

import sys


def run_app(project: str | None = None) -> int:
    from PySide6.QtWidgets import QApplication  # noqa: PLC0415

    from console_app.main_window import MainWindow  # noqa: PLC0415

    app = QApplication.instance() or QApplication(sys.argv[:1])
    app.setApplicationName("NeuroCanvas")
    app.setOrganizationName("NeuroCanvas")
    window = MainWindow(project)
    window.show()
    return app.exec()

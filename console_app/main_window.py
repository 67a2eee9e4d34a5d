"""The main window with NNC's tabs. The tabs are filled as the editor and console features land."""

from __future__ import annotations

from PySide6.QtWidgets import QLabel, QMainWindow, QTabWidget

TABS = ("EDIT", "DATASET", "CONFIG", "TRAINING", "EVALUATION")


class MainWindow(QMainWindow):
    def __init__(self, project: str | None = None) -> None:
        super().__init__()
        self.project_path = project
        self.setWindowTitle("NeuroCanvas" + (f" - {project}" if project else ""))
        self.tabs = QTabWidget()
        for name in TABS:
            placeholder = QLabel(f"{name}: coming soon")
            placeholder.setObjectName(f"tab_{name.lower()}")
            self.tabs.addTab(placeholder, name)
        self.setCentralWidget(self.tabs)
        self.resize(1280, 800)

"""The problems list: every error and warning of the project; activating one shows the layer."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QListWidget, QListWidgetItem

from console_app.language import translate
from engine.graph.validate import Problem

_WHERE = Qt.ItemDataRole.UserRole


class ProblemsList(QListWidget):
    problem_activated = Signal(str, str)  # network, layer

    def __init__(self) -> None:
        super().__init__()
        self.problems: list[Problem] = []
        # Whole messages: long ones wrap to the list's width (the tooltip holds them too).
        self.setWordWrap(True)
        self.setResizeMode(QListWidget.ResizeMode.Adjust)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.itemActivated.connect(self._activated)
        self.itemClicked.connect(self._activated)

    def show_problems(self, problems: list[Problem]) -> None:
        if problems == self.problems:
            return
        self.problems = list(problems)
        self.clear()
        for problem in problems:
            text = problem.translated(translate)
            item = QListWidgetItem(text)
            item.setData(_WHERE, (problem.network or "", problem.layer or ""))
            item.setForeground(QColor(200, 20, 20) if problem.severity == "error"
                               else QColor(190, 110, 0))  # fmt: skip
            item.setToolTip(text)
            self.addItem(item)

    def _activated(self, item: QListWidgetItem) -> None:
        network, layer = item.data(_WHERE)
        if network:
            self.problem_activated.emit(network, layer)

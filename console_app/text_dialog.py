"""One line of text from the user (rename a network, a job), in a dialog wide enough for its
title: QInputDialog sizes itself to the label, and window managers then cut the title
("Rename netw...")."""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import QInputDialog, QLineEdit

__all__ = ["ask_text", "text_dialog"]

TITLE_ROOM = 160  # px beside the title: the window manager's icon and buttons


class _TextDialog(QInputDialog):
    def showEvent(self, event: Any) -> None:  # noqa: N802 - Qt's API
        # QInputDialog fixes its size as it shows (to the label): widen it after that.
        super().showEvent(event)
        metrics = self.fontMetrics()
        wanted = max(metrics.horizontalAdvance(self.windowTitle()) + TITLE_ROOM,
                     metrics.horizontalAdvance(self.labelText()) + 40, 320)  # fmt: skip
        self.setMinimumWidth(wanted)
        self.resize(max(wanted, self.width()), self.height())


def text_dialog(parent: Any, title: str, label: str, text: str) -> QInputDialog:
    dialog = _TextDialog(parent)
    dialog.setWindowTitle(title)
    dialog.setLabelText(label)
    dialog.setTextValue(text)
    dialog.setTextEchoMode(QLineEdit.EchoMode.Normal)
    return dialog


def ask_text(parent: Any, title: str, label: str, text: str) -> str | None:
    dialog = text_dialog(parent, title, label, text)
    return dialog.textValue() if dialog.exec() == QInputDialog.DialogCode.Accepted else None

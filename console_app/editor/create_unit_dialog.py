"""The Create Unit dialog: the unit network's name and which properties become arguments.

The list shows every editable property of the selection that holds a literal value
(:func:`console_app.editor.create_unit.argument_choices`); each checked one becomes an
Argument layer of the new unit and a property of the Unit layer that calls it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QVBoxLayout,
    QWidget,
)

from console_app.editor.create_unit import ArgumentChoice
from console_app.language import translate


class CreateUnitDialog(QDialog):
    def __init__(
        self,
        choices: Sequence[ArgumentChoice],
        default_name: str,
        taken: Iterable[str],
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle(translate("CreateUnitDialog", "Create Unit"))
        self.choices = list(choices)
        self.taken = set(taken)
        self.name_edit = QLineEdit(default_name)
        self.name_edit.setObjectName("unit_name")
        self.arguments = QListWidget()
        self.arguments.setObjectName("unit_arguments")
        for choice in self.choices:
            item = QListWidgetItem(choice.label)
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            item.setCheckState(Qt.CheckState.Unchecked)
            self.arguments.addItem(item)
        self.error = QLabel("")
        self.error.setStyleSheet("color: #c00;")
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        form = QFormLayout()
        form.addRow(translate("CreateUnitDialog", "Unit network"), self.name_edit)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(
            QLabel(translate("CreateUnitDialog", "Properties to turn into unit arguments:"))
        )
        layout.addWidget(self.arguments, 1)
        layout.addWidget(self.error)
        layout.addWidget(buttons)
        # Wide enough for every "Layer.Property (value)" line: the default size cut them.
        self.arguments.setMinimumWidth(min(900, self.arguments.sizeHintForColumn(0) + 48))
        self.resize(max(420, self.sizeHint().width()), max(360, self.sizeHint().height()))

    def check(self, label: str) -> None:
        """Tick the argument whose label starts with ``label`` (``Convolution.OutMaps``)."""
        for i, choice in enumerate(self.choices):
            if choice.label.startswith(f"{label} "):
                self.arguments.item(i).setCheckState(Qt.CheckState.Checked)
                return
        raise KeyError(label)

    def chosen(self) -> list[ArgumentChoice]:
        return [
            choice
            for i, choice in enumerate(self.choices)
            if self.arguments.item(i).checkState() == Qt.CheckState.Checked
        ]

    def unit_name(self) -> str:
        return self.name_edit.text().strip()

    def problem(self) -> str | None:
        name = self.unit_name()
        if not name or any(c in name for c in "[]\r\n"):
            return "the unit network needs a one-line name without [ ]"
        if name in self.taken:
            return translate("CreateUnitDialog", 'a network named "{name}" already exists').format(
                name=name
            )
        return None

    def accept(self) -> None:
        problem = self.problem()
        if problem is not None:
            self.error.setText(problem)
            return
        super().accept()

"""The "Create from class folders" dialog: the options of ``neurocanvas dataset create``.

Source folder (one sub-folder per class), output folder, image size (empty keeps it), channels,
training percentage and split seed. The dialog only reads and checks the values; the dataset is
made by :func:`engine.data.folders.create_from_folders`, as the CLI does.
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import QT_TRANSLATE_NOOP
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from console_app.language import translate

PATH_CHARS = 50  # the folder fields' width, in characters
CHANNELS = (
    ("gray", QT_TRANSLATE_NOOP("FolderDatasetDialog", "Gray (1 channel)")),
    ("rgb", QT_TRANSLATE_NOOP("FolderDatasetDialog", "RGB (3 channels)")),
)


@dataclass(frozen=True)
class FolderDatasetOptions:
    """The arguments of :func:`engine.data.folders.create_from_folders` (ratio in percent)."""

    source: str
    out: str
    size: tuple[int, int] | None = None
    channel: str = "rgb"
    percent: float = 80.0
    seed: int = 0


def parse_size(text: str) -> tuple[int, int] | None:
    """``""`` -> None (keep), ``"28"`` -> (28, 28), ``"32x24"`` -> (32, 24); else ValueError."""
    text = text.strip().lower()
    if not text:
        return None
    parts = text.split("x")
    if len(parts) not in (1, 2) or not all(p.strip().isdigit() for p in parts):
        raise ValueError
    values = [int(p) for p in parts]
    if min(values) < 1:
        raise ValueError
    return values[0], values[-1]


class FolderDatasetDialog(QDialog):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(translate("FolderDatasetDialog", "Create dataset from class folders"))
        self.source = QLineEdit()
        self.out = QLineEdit()
        self.size = QLineEdit()
        self.size.setPlaceholderText(
            translate("FolderDatasetDialog", "keep the size (or 28, or 32x24)")
        )
        self.channel = QComboBox()
        for key, label in CHANNELS:
            self.channel.addItem(translate("FolderDatasetDialog", label), key)
        self.channel.setCurrentIndex(1)
        self.percent = QLineEdit("80")
        self.seed = QLineEdit("0")
        self.error = QLabel("")
        self.error.setStyleSheet("color: #c00;")
        self.error.setWordWrap(True)
        form = QFormLayout()
        form.addRow(
            translate("FolderDatasetDialog", "Class folders"),
            self._with_browse(
                self.source,
                translate("FolderDatasetDialog", "Folder with one sub-folder per class"),
            ),
        )
        form.addRow(
            translate("FolderDatasetDialog", "Output folder"),
            self._with_browse(
                self.out, translate("FolderDatasetDialog", "New or empty output folder")
            ),
        )
        form.addRow(translate("FolderDatasetDialog", "Image size"), self.size)
        form.addRow(translate("FolderDatasetDialog", "Channels"), self.channel)
        form.addRow(translate("FolderDatasetDialog", "Training %"), self.percent)
        form.addRow(translate("FolderDatasetDialog", "Split seed"), self.seed)
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.error)
        layout.addWidget(buttons)

    def _with_browse(self, edit: QLineEdit, title: str) -> QWidget:
        # Room for a whole path: on a real X server the dialog opened ~15 characters wide.
        edit.setMinimumWidth(edit.fontMetrics().horizontalAdvance("x" * PATH_CHARS))
        button = QPushButton(translate("FolderDatasetDialog", "Browse..."))
        button.clicked.connect(lambda: self._browse(edit, title))
        row = QWidget()
        box = QHBoxLayout(row)
        box.setContentsMargins(0, 0, 0, 0)
        box.addWidget(edit, 1)
        box.addWidget(button)
        return row

    def _browse(self, edit: QLineEdit, title: str) -> None:
        path = QFileDialog.getExistingDirectory(self, title, edit.text())
        if path:
            edit.setText(path)

    def read(self) -> FolderDatasetOptions | str:
        """The options, or the reason they are refused."""
        source, out = self.source.text().strip(), self.out.text().strip()
        if not source:
            return "Class folders: choose the folder with one sub-folder per class"
        if not out:
            return "Output folder: choose a new or empty folder"
        try:
            size = parse_size(self.size.text())
        except ValueError:
            return translate(
                "FolderDatasetDialog",
                "Image size: empty, N or WIDTHxHEIGHT with positive integers. Received: {text!r}",
            ).format(text=self.size.text())
        try:
            percent = float(self.percent.text())
        except ValueError:
            percent = float("nan")
        if not 0 < percent <= 100:
            return translate(
                "FolderDatasetDialog", "Training %: a number in (0, 100]. Received: {text!r}"
            ).format(text=self.percent.text())
        try:
            seed = int(self.seed.text())
        except ValueError:
            return translate(
                "FolderDatasetDialog", "Split seed: an integer. Received: {text!r}"
            ).format(text=self.seed.text())
        if seed < 0:
            return translate(
                "FolderDatasetDialog", "Split seed: a non-negative integer. Received: {seed}"
            ).format(seed=seed)
        return FolderDatasetOptions(source, out, size, self.channel.currentData(), percent, seed)

    def options(self) -> FolderDatasetOptions | None:
        result = self.read()
        return result if isinstance(result, FolderDatasetOptions) else None

    def accept(self) -> None:
        result = self.read()
        if isinstance(result, str):
            self.error.setText(result)
            return
        super().accept()

"""A read-only table of CSV rows whose image cells show thumbnails (DATASET and EVALUATION).

Thumbnails load lazily when a row is drawn and are cached, so a table of 60,000 MNIST rows
opens at once.
"""

from __future__ import annotations

import csv
from pathlib import Path
from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, QSize, Qt
from PySide6.QtGui import QPixmap

IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".bmp", ".gif", ".tif", ".tiff")
THUMB = 32

_Index = QModelIndex | QPersistentModelIndex


def read_csv_rows(path: Path, limit: int | None = None) -> tuple[list[str], list[list[str]]]:
    """Header and rows of a CSV file (at most ``limit`` rows)."""
    with open(path, newline="", encoding="utf-8-sig") as f:
        reader = csv.reader(f)
        header = next(reader, [])
        rows = []
        for row in reader:
            if limit is not None and len(rows) >= limit:
                break
            rows.append(row)
    return header, rows


def _decimal_number(text: str) -> bool:
    """A number written with a decimal point or an exponent ("1.0", "0.25", "3e-05"): shown
    with the table's decimals whatever its writer chose (an exact 1 read "1.0" among "0.0001"s);
    an integer ("5", a label) stays as written."""
    try:
        float(text)
    except ValueError:
        return False
    return any(mark in text.lower() for mark in (".", "e"))


class CsvTableModel(QAbstractTableModel):
    """``base``: where relative paths are. ``root``: absolute paths under it are shown relative
    to it (EVALUATION: the dataset's folder), others by their file name; ``decimals``: numbers
    shown rounded (the tooltip keeps the cell as written)."""

    def __init__(
        self,
        header: list[str],
        rows: list[list[str]],
        base: Path | None = None,
        root: Path | None = None,
        decimals: int | None = None,
    ):
        super().__init__()
        self.header, self.rows, self.base = header, rows, base
        self.root, self.decimals = root, decimals
        self._thumbs: dict[str, QPixmap | None] = {}

    def rowCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008, N802
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008, N802
        return 0 if parent.isValid() else len(self.header)

    def cell(self, row: int, column: int) -> str:
        values = self.rows[row]
        return values[column] if column < len(values) else ""

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        text = self.cell(index.row(), index.column())
        image = text.lower().endswith(IMAGE_SUFFIXES)
        if role == Qt.ItemDataRole.DisplayRole:  # the file name beside its thumbnail
            return self.display(text, image)
        if role == Qt.ItemDataRole.ToolTipRole:
            return text
        if role == Qt.ItemDataRole.DecorationRole and image:
            return self.thumbnail(text)
        return None

    def display(self, text: str, image: bool) -> str:
        """A cell as shown: a rounded number, a path relative to ``root``, a file name."""
        if self.decimals is not None and _decimal_number(text):
            return f"{float(text):.{self.decimals}f}"
        if self.root is not None and (image or "/" in text or "\\" in text):
            try:
                return Path(text).relative_to(self.root).as_posix()
            except ValueError:
                pass
        return text.replace("\\", "/").rsplit("/", 1)[-1] if image else text

    def thumbnail(self, text: str) -> QPixmap | None:
        if text not in self._thumbs:
            path = Path(text.replace("\\", "/"))
            if not path.is_absolute() and self.base is not None:
                path = self.base / path
            pixmap = QPixmap(str(path))
            self._thumbs[text] = None if pixmap.isNull() else pixmap.scaled(
                QSize(THUMB, THUMB), Qt.AspectRatioMode.KeepAspectRatio,
                Qt.TransformationMode.SmoothTransformation,
            )  # fmt: skip
        return self._thumbs[text]

    def headerData(  # noqa: N802
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if role != Qt.ItemDataRole.DisplayRole:
            return None
        if orientation == Qt.Orientation.Horizontal:
            return self.header[section] if section < len(self.header) else ""
        return str(section + 1)

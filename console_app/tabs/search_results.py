"""A structure search's results: every attempt in a sortable table, the Pareto-optimal ones
marked, and "Open network in EDIT" for the attempt chosen.

The table is the study's ``<study>_results.csv`` (:mod:`engine.search.results`), so the dialog
shows what the CLI writes; it opens when a search ends and again from TRAINING's
"Search results..." for the newest study.
"""

from __future__ import annotations

import csv
from pathlib import Path
from typing import Any

from PySide6.QtCore import QT_TRANSLATE_NOOP, Qt, Signal
from PySide6.QtGui import QFont
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
)

from console_app.language import translate

__all__ = ["SearchResultsDialog", "newest_results"]

# (CSV column, header, kind): numbers sort as numbers.
COLUMNS = (
    ("number", QT_TRANSLATE_NOOP("SearchResults", "Attempt"), "int"),
    ("pareto", "Pareto", "mark"),
    ("state", QT_TRANSLATE_NOOP("SearchResults", "State"), "text"),
    ("valid_error", QT_TRANSLATE_NOOP("SearchResults", "Validation loss"), "float"),
    ("accuracy", QT_TRANSLATE_NOOP("SearchResults", "Accuracy"), "percent"),
    ("cost_multiply_add", "CostMultiplyAdd", "int"),
    ("mutation", QT_TRANSLATE_NOOP("SearchResults", "Mutation"), "text"),
    ("reason", QT_TRANSLATE_NOOP("SearchResults", "Reason"), "text"),
)
PARETO = QT_TRANSLATE_NOOP("SearchResults", "\u2605 optimal")
RIGHT = Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter


def newest_results(jobs_root: Path) -> Path | None:
    """The newest study's results table in a jobs folder (None if there is none)."""
    tables = sorted(jobs_root.glob("*_results.csv"), key=lambda p: p.stat().st_mtime)
    return tables[-1] if tables else None


class _Item(QTableWidgetItem):
    """A cell that sorts by its number (empty cells last)."""

    def __init__(self, text: str, key: float | str) -> None:
        super().__init__(text)
        self.key = key

    def __lt__(self, other: QTableWidgetItem) -> bool:
        mine, theirs = self.key, getattr(other, "key", other.text())
        if isinstance(mine, float) and isinstance(theirs, float):
            return mine < theirs
        return str(mine) < str(theirs)


def _cell(value: str, kind: str) -> _Item:
    if kind == "mark":
        return _Item(
            translate("SearchResults", PARETO) if value == "True" else "",
            0.0 if value == "True" else 1.0,
        )
    if kind == "text" or value in ("", "None"):
        return _Item("" if value == "None" else value, value if kind == "text" else float("inf"))
    number = float(value)
    if kind == "int":
        text = f"{int(number):,}"
    elif kind == "percent":
        text = f"{100 * number:.2f} %"
    else:
        text = f"{number:.4g}"
    return _Item(text, number)


class SearchResultsDialog(QDialog):
    """Non-modal; ``open_network(path)`` asks the window to open an attempt's network."""

    open_network = Signal(Path)

    def __init__(self, table: Path, parent: Any = None) -> None:
        super().__init__(parent)
        self.table_path = table
        study = table.name.removesuffix("_results.csv")
        self.setWindowTitle(
            translate("SearchResults", "Structure search {study}").format(study=study)
        )
        with open(table, newline="", encoding="utf-8") as f:
            self.rows = list(csv.DictReader(f))
        optimal = sum(r.get("pareto") == "True" for r in self.rows)
        self.summary = QLabel(
            translate(
                "SearchResults",
                "{len} attempts, {optimal} Pareto-optimal (lowest validation loss for "
                "their CostMultiplyAdd). Click a header to sort; double-click an "
                "attempt to open its network.",
            ).format(len=len(self.rows), optimal=optimal)
        )
        self.summary.setWordWrap(True)
        self.table = QTableWidget(len(self.rows), len(COLUMNS))
        self.table.setHorizontalHeaderLabels(
            [translate("SearchResults", header) for _, header, _ in COLUMNS]
        )
        self.table.verticalHeader().hide()
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        for r, row in enumerate(self.rows):
            bold = row.get("pareto") == "True"
            for c, (key, _header, kind) in enumerate(COLUMNS):
                item = _cell(row.get(key, ""), kind)
                item.setData(Qt.ItemDataRole.UserRole, row.get("job", ""))
                if kind == "text":
                    item.setToolTip(item.text())  # mutations are long
                if bold:
                    font = QFont()
                    font.setBold(True)
                    item.setFont(font)
                if kind in ("int", "float", "percent"):
                    item.setTextAlignment(
                        Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
                    )
                self.table.setItem(r, c, item)
        self.table.setSortingEnabled(True)
        self.table.sortItems(0, Qt.SortOrder.AscendingOrder)
        self.table.resizeColumnsToContents()
        self.table.horizontalHeader().setStretchLastSection(True)
        self.open_button = QPushButton(translate("SearchResults", "Open network in EDIT"))
        self.open_button.setEnabled(False)
        close = QPushButton(translate("SearchResults", "Close"))
        self.table.itemSelectionChanged.connect(self._selected)
        self.table.itemDoubleClicked.connect(lambda _item: self.open_selected())
        self.open_button.clicked.connect(self.open_selected)
        close.clicked.connect(self.close)
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        buttons.addWidget(self.open_button)
        buttons.addWidget(close)
        layout = QVBoxLayout(self)
        layout.addWidget(self.summary)
        layout.addWidget(self.table)
        layout.addLayout(buttons)
        self.resize(900, 420)

    def selected_job(self) -> Path | None:
        """The chosen attempt's job folder, when it is on this machine."""
        items = self.table.selectedItems()
        if not items:
            return None
        job = str(items[0].data(Qt.ItemDataRole.UserRole) or "")
        if not job:
            return None
        path = Path(job)
        path = path if path.is_absolute() else self.table_path.parent / path.name
        return path if (path / "network.ncproj").is_file() else None

    def _selected(self) -> None:
        self.open_button.setEnabled(self.selected_job() is not None)

    def open_selected(self) -> None:
        job = self.selected_job()
        if job is not None:
            self.open_network.emit(job / "network.ncproj")

"""Network statistics: NNC's eight totals plus unique parameters, FLOPs and parameter bytes.

The totals are NNC's float32 sums; each one's tooltip gives the exact integer count.

Clicking one of the eight shows it beside every layer of the canvas (docs/layers.md §1.9).
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFont
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QTableWidget, QTableWidgetItem

from console_app.language import translate
from engine.graph.statistics import NetworkStatistics
from engine.layers.spec import STATISTIC_MEANINGS, STATISTICS

EXTRAS = ("UniqueParameters", "FLOPs", "ParameterBytes")


class StatisticsPane(QTableWidget):
    statistic_chosen = Signal(str)

    def __init__(self) -> None:
        super().__init__(len(STATISTICS) + len(EXTRAS), 2)
        self.setHorizontalHeaderLabels(
            [
                translate("StatisticsPane", "Statistic"),
                translate("StatisticsPane", "Total"),
            ]
        )
        self.verticalHeader().hide()
        # Rows as tall as the text needs, so all twelve show without scrolling (seen on X: with
        # the style's default height, FLOPs and ParameterBytes were below the fold).
        self.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 6)
        self.horizontalHeader().setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        self.horizontalHeader().setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        for row, name in enumerate((*STATISTICS, *EXTRAS)):
            item = QTableWidgetItem(name)
            item.setToolTip(STATISTIC_MEANINGS[name])
            if name in EXTRAS:
                item.setFlags(Qt.ItemFlag.ItemIsEnabled)  # not a per-layer statistic
                item.setForeground(Qt.GlobalColor.darkGray)
            self.setItem(row, 0, item)
            value = QTableWidgetItem("")
            value.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            self.setItem(row, 1, value)
        self.selectRow(0)
        self.chosen = "Output"
        self.cellClicked.connect(self._clicked)

    def fitting_height(self) -> int:
        """The height that shows every row without a scroll bar."""
        rows = self.rowCount() * self.verticalHeader().defaultSectionSize()
        return rows + self.horizontalHeader().sizeHint().height() + 2 * self.frameWidth()

    def _clicked(self, row: int, _column: int) -> None:
        if row < len(STATISTICS):
            self.choose(STATISTICS[row])

    def choose(self, statistic: str) -> None:
        self.chosen = statistic
        self.selectRow(STATISTICS.index(statistic))
        self._bold()
        self.statistic_chosen.emit(statistic)

    def _bold(self) -> None:
        for row, name in enumerate(STATISTICS):
            font = QFont()
            font.setBold(name == self.chosen)
            self.item(row, 0).setFont(font)

    def show_statistics(self, stats: NetworkStatistics | None) -> None:
        """NNC's totals (float32 sums, as NNC shows them); the tooltip gives the exact count."""
        values = stats.summary() if stats is not None else {}
        exact = stats.exact if stats is not None else {}
        for row, name in enumerate((*STATISTICS, *EXTRAS)):
            value = values.get(name)
            item = self.item(row, 1)
            item.setText("" if value is None else f"{value:,}")
            item.setToolTip(_exact_tip(value, exact.get(name)))

    def value(self, statistic: str) -> str:
        return self.item((*STATISTICS, *EXTRAS).index(statistic), 1).text()


def _exact_tip(shown: int | None, exact: int | None) -> str:
    if shown is None or exact is None:
        return ""
    if shown == exact:
        return translate("StatisticsPane", "Exact count: {exact:,} (NNC shows the same)").format(
            exact=exact
        )
    return translate(
        "StatisticsPane",
        "NNC's value: {shown:,} (NNC adds in float32, which rounds above "
        "16,777,216).\nExact count: {exact:,}",
    ).format(shown=shown, exact=exact)

"""The layer palette: NNC's categories in palette order, a search box, drag or double-click."""

from __future__ import annotations

from PySide6.QtCore import QMimeData, Qt, Signal
from PySide6.QtWidgets import QLineEdit, QTreeWidget, QTreeWidgetItem, QVBoxLayout, QWidget

from console_app.editor.layer_item import layer_color
from console_app.editor.view import LAYER_MIME
from console_app.help_menu import category_icon
from console_app.language import translate
from engine.layers import palette

_TYPE_ROLE = Qt.ItemDataRole.UserRole


class _Tree(QTreeWidget):
    def mimeTypes(self) -> list[str]:
        return [LAYER_MIME]

    def mimeData(self, items) -> QMimeData:  # noqa: ANN001 - list[QTreeWidgetItem]
        data = QMimeData()
        types = [item.data(0, _TYPE_ROLE) for item in items if item.data(0, _TYPE_ROLE)]
        if types:
            data.setData(LAYER_MIME, types[0].encode("utf-8"))
            data.setText(types[0])
        return data

    def clear_order(self, tops, children, rank) -> None:  # noqa: ANN001
        """Put the categories in the order ``tops`` and each one's layers in palette order,
        or by ``rank`` (stable) when given. Items are moved, never recreated."""
        current = [self.topLevelItem(i) for i in range(self.topLevelItemCount())]
        wanted = [sorted(children[t], key=lambda c: rank(c.text(0))) if rank else children[t]
                  for t in tops]  # fmt: skip
        same = current == tops and all(
            [t.child(k) for k in range(t.childCount())] == w
            for t, w in zip(tops, wanted, strict=True)
        )
        if same:
            return
        for top in current:
            self.takeTopLevelItem(self.indexOfTopLevelItem(top))
        for top, kids in zip(tops, wanted, strict=True):
            top.takeChildren()
            top.addChildren(kids)
            self.addTopLevelItem(top)


class PaletteWidget(QWidget):
    layer_activated = Signal(str)  # a layer type was double-clicked

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.search = QLineEdit()
        self.search.setPlaceholderText(translate("Palette", "Search layers"))
        self.search.setClearButtonEnabled(True)
        self.tree = _Tree()
        self.tree.setHeaderHidden(True)
        self.tree.setDragEnabled(True)
        self.tree.setDragDropMode(QTreeWidget.DragDropMode.DragOnly)
        self.items: dict[str, QTreeWidgetItem] = {}
        for category, specs in palette():
            top = QTreeWidgetItem([category])
            if specs:  # the category's colour, as its layers have on the canvas
                top.setIcon(0, category_icon(layer_color(specs[0]).name(), category))
            top.setFlags(Qt.ItemFlag.ItemIsEnabled)
            self.tree.addTopLevelItem(top)
            for spec in specs:
                child = QTreeWidgetItem([spec.type])
                child.setData(0, _TYPE_ROLE, spec.type)
                child.setToolTip(0, spec.description)
                child.setForeground(0, layer_color(spec).darker(160))
                child.setFlags(
                    Qt.ItemFlag.ItemIsEnabled
                    | Qt.ItemFlag.ItemIsSelectable
                    | Qt.ItemFlag.ItemIsDragEnabled
                )
                top.addChild(child)
                self.items[spec.type] = child
        self.tree.collapseAll()
        self._tops = [self.tree.topLevelItem(i) for i in range(self.tree.topLevelItemCount())]
        self._children = {top: [top.child(k) for k in range(top.childCount())]
                          for top in self._tops}  # fmt: skip
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.search)
        layout.addWidget(self.tree)
        self.search.textChanged.connect(self.filter)
        self.tree.itemDoubleClicked.connect(self._double_clicked)

    def filter(self, text: str) -> None:
        """Show the layers whose type contains ``text`` (case-insensitive), expanded: the
        exact match first, then those starting with it, then the others (``Softmax`` before
        ``SoftmaxCrossEntropy``), each group in palette order; the first is made current."""
        needle = text.strip().lower()

        def rank(type_: str) -> int:
            low = type_.lower()
            return 0 if low == needle else 1 if low.startswith(needle) else 2

        tops = list(self._tops)
        if needle:
            best = {
                top: min(
                    (rank(c.text(0)) for c in self._children[top] if needle in c.text(0).lower()),
                    default=3,
                )
                for top in tops
            }
            tops.sort(key=lambda top: best[top])  # stable: palette order within a rank
        self.tree.clear_order(tops, self._children, rank if needle else None)
        first = None
        for top in tops:
            shown = 0
            for k in range(top.childCount()):
                child = top.child(k)
                hide = bool(needle) and needle not in child.text(0).lower()
                child.setHidden(hide)
                shown += not hide
                first = first or (None if hide else child)
            top.setHidden(shown == 0)
            top.setExpanded(bool(needle) and shown > 0)
        if needle and first is not None:
            self.tree.setCurrentItem(first)

    def visible_types(self) -> list[str]:
        """The layer types shown, in the order shown."""
        out = []
        for i in range(self.tree.topLevelItemCount()):
            top = self.tree.topLevelItem(i)
            if not top.isHidden():
                out += [top.child(k).text(0) for k in range(top.childCount())
                        if not top.child(k).isHidden()]  # fmt: skip
        return out

    def _double_clicked(self, item: QTreeWidgetItem) -> None:
        type_ = item.data(0, _TYPE_ROLE)
        if type_:
            self.layer_activated.emit(type_)

"""The layer palette: NNC's categories in palette order, a search box, drag or double-click."""

from __future__ import annotations

from PySide6.QtCore import QMimeData, Qt, Signal
from PySide6.QtWidgets import QLineEdit, QTreeWidget, QTreeWidgetItem, QVBoxLayout, QWidget

from console_app.editor.layer_item import layer_color
from console_app.editor.view import LAYER_MIME
from console_app.help_menu import category_icon
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


class PaletteWidget(QWidget):
    layer_activated = Signal(str)  # a layer type was double-clicked

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.search = QLineEdit()
        self.search.setPlaceholderText("Search layers")
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
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.search)
        layout.addWidget(self.tree)
        self.search.textChanged.connect(self.filter)
        self.tree.itemDoubleClicked.connect(self._double_clicked)

    def filter(self, text: str) -> None:
        """Show the layers whose type contains ``text`` (case-insensitive), expanded."""
        needle = text.strip().lower()
        for i in range(self.tree.topLevelItemCount()):
            top = self.tree.topLevelItem(i)
            shown = 0
            for k in range(top.childCount()):
                child = top.child(k)
                hide = bool(needle) and needle not in child.text(0).lower()
                child.setHidden(hide)
                shown += not hide
            top.setHidden(shown == 0)
            top.setExpanded(bool(needle) and shown > 0)

    def visible_types(self) -> list[str]:
        return [t for t, item in self.items.items() if not item.isHidden() and
                not item.parent().isHidden()]  # fmt: skip

    def _double_clicked(self, item: QTreeWidgetItem) -> None:
        type_ = item.data(0, _TYPE_ROLE)
        if type_:
            self.layer_activated.emit(type_)

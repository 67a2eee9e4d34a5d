"""Links on the canvas: a curve from a layer's output pin to an input pin of another layer."""

from __future__ import annotations

import math

from PySide6.QtCore import QPointF, Qt
from PySide6.QtGui import QColor, QPainterPath, QPen, QPolygonF
from PySide6.QtWidgets import QGraphicsItem, QGraphicsPathItem

from console_app.editor.layer_item import LayerItem
from engine.graph.project import Link
from engine.report.layout import link_bend


def link_path(start: QPointF, end: QPointF) -> QPainterPath:
    """Leave the output downwards, enter the input from above."""
    bend = link_bend((start.x(), start.y()), (end.x(), end.y()))
    path = QPainterPath(start)
    path.cubicTo(start + QPointF(0, bend), end - QPointF(0, bend), end)
    return path


def _arrow(end: QPointF) -> QPolygonF:
    size = 5.0
    return QPolygonF(
        [end, end + QPointF(-size * 0.6, -size), end + QPointF(size * 0.6, -size), end]
    )


class LinkItem(QGraphicsPathItem):
    """One model link; ``link`` is replaced when the model renames an end."""

    def __init__(self, link: Link, source: LayerItem, destination: LayerItem) -> None:
        super().__init__()
        self.link = link
        self.source = source
        self.destination = destination
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIsSelectable)
        self.setPen(QPen(QColor(80, 80, 80), 2.0))  # bounding rect fits the selected width
        self.setZValue(0)
        source.links.add(self)
        destination.links.add(self)
        self.update_path()

    def detach(self) -> None:
        self.source.links.discard(self)
        self.destination.links.discard(self)

    def update_path(self) -> None:
        start = self.source.pin_pos("out")
        end = self.destination.pin_pos("in", self.link.dest_pin)
        path = link_path(start, end)
        path.addPolygon(_arrow(end))
        self.setPath(path)

    def paint(self, painter, option, widget=None) -> None:  # noqa: ANN001 - Qt signature
        color = QColor(30, 110, 230) if self.isSelected() else QColor(80, 80, 80)
        if self.link.dest_pin:
            color = color if self.isSelected() else QColor(120, 120, 160)
        painter.setPen(QPen(color, 2.0 if self.isSelected() else 1.3))
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.drawPath(self.path())


class DraftLink(QGraphicsPathItem):
    """The dashed curve that follows the mouse while a link is dragged from a pin."""

    def __init__(self, anchor: QPointF, from_output: bool) -> None:
        super().__init__()
        self.anchor = anchor
        self.from_output = from_output
        pen = QPen(QColor(30, 110, 230), 1.5, Qt.PenStyle.DashLine)
        self.setPen(pen)
        self.setZValue(3)
        self.follow(anchor)

    def follow(self, point: QPointF) -> None:
        start, end = (self.anchor, point) if self.from_output else (point, self.anchor)
        if math.dist((start.x(), start.y()), (end.x(), end.y())) < 0.5:
            end = end + QPointF(0, 0.5)
        self.setPath(link_path(start, end))

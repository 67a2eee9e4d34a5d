"""One layer box on the canvas: name, important properties, pins, the chosen statistic.

What the box shows follows docs/layers.md §1.9: the name, then the ``Important`` properties as
``<ShortName or Name> : <value>``; the statistic chosen in the statistics pane (default the
output shape) to the right of the box, with a bar for costs. Errors outline the box in red and
put the message in its tooltip. The item never changes the model: the scene turns gestures into
commands and calls :meth:`LayerItem.set_layer` / :meth:`set_display` when the model changed.
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QFont, QFontMetricsF, QPainter, QPainterPath, QPen
from PySide6.QtWidgets import QGraphicsItem, QStyleOptionGraphicsItem, QWidget

from console_app.editor import geometry as g
from engine.graph.project import Layer
from engine.layers import find_spec
from engine.layers.spec import LayerSpec
from engine.report.layout import color_of, important_text, pin_points


def layer_color(spec: LayerSpec | None) -> QColor:
    return QColor(color_of(spec))


@dataclass(frozen=True)
class Pin:
    """``kind`` is ``"in"`` (``index`` = the link's dest pin) or ``"out"``."""

    kind: str
    index: int
    label: str
    pos: QPointF


def pins_of(spec: LayerSpec | None) -> list[Pin]:
    return [Pin(kind, index, label, QPointF(x, y)) for kind, index, label, x, y in pin_points(spec)]


_NAME_FONT = QFont()
_NAME_FONT.setPointSizeF(8.5)
_NAME_FONT.setBold(True)
_TEXT_FONT = QFont()
_TEXT_FONT.setPointSizeF(7.0)
_PIN_FONT = QFont()
_PIN_FONT.setPointSizeF(5.5)


class LayerItem(QGraphicsItem):
    def __init__(self, layer: Layer, arguments: dict[str, str] | None = None) -> None:
        super().__init__()
        self.setFlags(
            QGraphicsItem.GraphicsItemFlag.ItemIsSelectable
            | QGraphicsItem.GraphicsItemFlag.ItemIsMovable
            | QGraphicsItem.GraphicsItemFlag.ItemSendsGeometryChanges
        )
        self.setZValue(1)
        self.setAcceptHoverEvents(True)
        self.links: set = set()  # LinkItems ending or starting here (kept by the scene)
        self.snap = True
        self.stat_text = ""
        self.stat_fraction: float | None = None
        self.error: str | None = None
        self.warning: str | None = None
        self.set_layer(layer, arguments)

    # -- model -> item ---------------------------------------------------------------------
    def set_layer(self, layer: Layer, arguments: dict[str, str] | None = None) -> None:
        """Show ``layer`` (name, properties, type; a Unit layer also the values of its unit's
        ``arguments``); position is set by :meth:`set_position`."""
        self.layer = layer
        self.name = layer.name
        self.spec = find_spec(layer.type)
        self.pins = pins_of(self.spec)
        self.arguments = arguments
        self.subtitle = important_text(layer, self.spec, arguments)
        self.color = layer_color(self.spec)
        self._update_tooltip()
        self.update()

    def set_arguments(self, arguments: dict[str, str] | None) -> None:
        """A Unit layer's unit changed its arguments (in its own tab): show them."""
        if arguments != self.arguments:
            self.set_layer(self.layer, arguments)

    def set_position(self, position: tuple[float, float]) -> None:
        x, y = g.to_scene(position)
        if (self.pos().x(), self.pos().y()) != (x, y):
            snap, self.snap = self.snap, False  # the model's position is exact
            self.setPos(x, y)
            self.snap = snap

    def set_display(
        self,
        stat_text: str,
        fraction: float | None,
        error: str | None,
        warning: str | None = None,
    ) -> None:
        """The statistic beside the box (``fraction`` draws a bar) and any problem."""
        if (stat_text, fraction, error, warning) == (
            self.stat_text, self.stat_fraction, self.error, self.warning,
        ):  # fmt: skip
            return
        self.stat_text, self.stat_fraction = stat_text, fraction
        self.error, self.warning = error, warning
        self._update_tooltip()
        self.update()

    def _update_tooltip(self) -> None:
        lines = [f"{self.name} ({self.layer.type})"]
        if self.error:
            lines.append(f"Error: {self.error}")
        if self.warning:
            lines.append(f"Warning: {self.warning}")
        if self.stat_text:
            lines.append(self.stat_text)
        self.setToolTip("\n".join(lines))

    # -- pins ------------------------------------------------------------------------------
    def pin_pos(self, kind: str, index: int = 0) -> QPointF:
        """Scene position of a pin (the box edge centre when the type has no such pin)."""
        for pin in self.pins:
            if pin.kind == kind and pin.index == index:
                return self.mapToScene(pin.pos)
        y = 0 if kind == "in" else g.BOX_H
        return self.mapToScene(QPointF(g.BOX_W / 2, y))

    def pin_at(self, scene_pos: QPointF, radius: float = 8.0) -> Pin | None:
        local = self.mapFromScene(scene_pos)
        best, best_d = None, radius * radius
        for pin in self.pins:
            d = (pin.pos.x() - local.x()) ** 2 + (pin.pos.y() - local.y()) ** 2
            if d <= best_d:
                best, best_d = pin, d
        return best

    # -- geometry and painting -------------------------------------------------------------
    def boundingRect(self) -> QRectF:
        return QRectF(-g.PIN_R - 2, -g.PIN_R - 2, g.STAT_X + 150, g.BOX_H + 2 * g.PIN_R + 4)

    def shape(self) -> QPainterPath:
        path = QPainterPath()
        path.addRect(QRectF(0, -g.PIN_R, g.BOX_W, g.BOX_H + 2 * g.PIN_R))
        return path

    def paint(
        self, painter: QPainter, option: QStyleOptionGraphicsItem, widget: QWidget | None = None
    ) -> None:
        box = QRectF(0, 0, g.BOX_W, g.BOX_H)
        if self.error:
            pen = QPen(QColor(220, 30, 30), 2.2)
        elif self.isSelected():
            pen = QPen(QColor(30, 110, 230), 2.2)
        elif self.warning:
            pen = QPen(QColor(230, 140, 20), 1.8)
        else:
            pen = QPen(QColor(90, 90, 90), 1.0)
        painter.setPen(pen)
        # A tinted face shows the selection also where the outline says "problem" (red wins).
        face = QColor(222, 234, 252) if self.isSelected() else QColor(252, 252, 250)
        painter.setBrush(QBrush(face))
        painter.drawRoundedRect(box, 3, 3)
        painter.fillRect(QRectF(1, 1, 7, g.BOX_H - 2), self.color)
        painter.setPen(QColor(20, 20, 20))
        painter.setFont(_NAME_FONT)
        painter.drawText(QRectF(12, 1, g.BOX_W - 16, 15), Qt.AlignmentFlag.AlignVCenter, self.name)
        if self.subtitle:
            painter.setFont(_TEXT_FONT)
            painter.setPen(QColor(80, 80, 80))
            elided = QFontMetricsF(_TEXT_FONT).elidedText(
                self.subtitle, Qt.TextElideMode.ElideRight, g.BOX_W - 16
            )
            painter.drawText(
                QRectF(12, 15, g.BOX_W - 16, 13), Qt.AlignmentFlag.AlignVCenter, elided
            )
        self._paint_pins(painter)
        self._paint_stat(painter)

    def _paint_pins(self, painter: QPainter) -> None:
        painter.setFont(_PIN_FONT)
        for pin in self.pins:
            painter.setPen(QPen(QColor(70, 70, 70), 1))
            painter.setBrush(QColor(255, 255, 255) if pin.label else QColor(120, 120, 120))
            radius = g.PIN_R if pin.label else g.PIN_R - 1.5
            painter.drawEllipse(pin.pos, radius, radius)
            if pin.label:
                rect = QRectF(
                    pin.pos.x() - g.PIN_R, pin.pos.y() - g.PIN_R, 2 * g.PIN_R, 2 * g.PIN_R
                )
                painter.drawText(rect, Qt.AlignmentFlag.AlignCenter, pin.label[:2])

    def _paint_stat(self, painter: QPainter) -> None:
        if not self.stat_text:
            return
        top = 2.0
        if self.stat_fraction is not None:
            width = max(1.0, g.STAT_BAR_W * min(1.0, self.stat_fraction))
            painter.fillRect(QRectF(g.STAT_X, top + 14, width, 6), QColor(90, 150, 220))
        painter.setFont(_TEXT_FONT)
        painter.setPen(QColor(200, 30, 30) if self.error else QColor(40, 40, 40))
        painter.drawText(
            QRectF(g.STAT_X, top, 150, 14), Qt.AlignmentFlag.AlignVCenter, self.stat_text
        )

    # -- interaction -----------------------------------------------------------------------
    def itemChange(self, change, value):  # noqa: ANN001, ANN201 - Qt signature
        if change == QGraphicsItem.GraphicsItemChange.ItemPositionChange and self.snap:
            scene = self.scene()
            if scene is not None and getattr(scene, "snap_to_grid", False):
                x, y = g.snap(value.x(), value.y())
                return QPointF(x, y)
        if change == QGraphicsItem.GraphicsItemChange.ItemPositionHasChanged:
            for link in self.links:
                link.update_path()
        return super().itemChange(change, value)

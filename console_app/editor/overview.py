"""The overview: the whole network scaled to fit, with the visible part framed; click to go."""

from __future__ import annotations

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QMouseEvent, QPainter, QPen
from PySide6.QtWidgets import QGraphicsView

from console_app.editor.view import NetworkView


class Overview(QGraphicsView):
    def __init__(self) -> None:
        super().__init__()
        self.setInteractive(False)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setRenderHints(QPainter.RenderHint.Antialiasing)
        self.main: NetworkView | None = None

    def follow(self, view: NetworkView | None) -> None:
        if self.main is not None:
            for bar in (self.main.horizontalScrollBar(), self.main.verticalScrollBar()):
                bar.valueChanged.disconnect(self._repaint)
        self.main = view
        self.setScene(view.scene() if view is not None else None)
        if view is not None:
            for bar in (view.horizontalScrollBar(), view.verticalScrollBar()):
                bar.valueChanged.connect(self._repaint)
        self.fit()

    def fit(self) -> None:
        if self.scene() is not None:
            rect = self.scene().itemsBoundingRect().adjusted(-20, -20, 20, 20)
            self.fitInView(rect, Qt.AspectRatioMode.KeepAspectRatio)
        self.viewport().update()

    def _repaint(self, *_args) -> None:  # noqa: ANN002
        self.viewport().update()

    def resizeEvent(self, event) -> None:  # noqa: ANN001
        super().resizeEvent(event)
        self.fit()

    def drawForeground(self, painter: QPainter, rect: QRectF) -> None:
        if self.main is None:
            return
        visible = self.main.mapToScene(self.main.viewport().rect()).boundingRect()
        painter.setPen(QPen(QColor(30, 110, 230), 0))
        painter.setBrush(QColor(30, 110, 230, 30))
        painter.drawRect(visible)

    def mousePressEvent(self, event: QMouseEvent) -> None:
        if self.main is not None:
            self.main.centerOn(self.mapToScene(event.position().toPoint()))
        event.accept()

    mouseMoveEvent = mousePressEvent

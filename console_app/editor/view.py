"""The canvas view: zoom (Ctrl+wheel, actions), pan (middle button), rubber band, drops."""

from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QDragEnterEvent, QDropEvent, QMouseEvent, QPainter, QWheelEvent
from PySide6.QtWidgets import QGraphicsView

from console_app.editor.scene import NetworkScene

LAYER_MIME = "application/x-neurocanvas-layer-type"
ZOOM_STEP = 1.2
MIN_ZOOM, MAX_ZOOM = 0.05, 4.0
MARGIN = 1500.0  # px of canvas beyond the layers: room to drop and scroll
EDGE = 24  # px between the view's top-left corner and the layers when a network is shown


class NetworkView(QGraphicsView):
    def __init__(self, scene: NetworkScene) -> None:
        super().__init__(scene)
        self.setRenderHints(QPainter.RenderHint.Antialiasing | QPainter.RenderHint.TextAntialiasing)
        self.setDragMode(QGraphicsView.DragMode.RubberBandDrag)
        self.setTransformationAnchor(QGraphicsView.ViewportAnchor.AnchorUnderMouse)
        self.setViewportUpdateMode(QGraphicsView.ViewportUpdateMode.BoundingRectViewportUpdate)
        self.setAcceptDrops(True)
        self._pan_from: QPointF | None = None
        # The canvas never moves under the pointer: a scene rect that only grows (with a wide
        # margin) and a resize that keeps the top-left. With Qt's default (the items' bounds,
        # centred) a drop or the status bar appearing shifted every pin by tens of pixels.
        self.setResizeAnchor(QGraphicsView.ViewportAnchor.NoAnchor)
        self.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
        self._canvas = QRectF()
        self._placed = False  # scrolled to the layers' top-left when first shown
        self._grow_canvas()
        scene.changed.connect(lambda _regions: self._grow_canvas())

    def _grow_canvas(self) -> None:
        wanted = self.scene().itemsBoundingRect().adjusted(-MARGIN, -MARGIN, MARGIN, MARGIN)
        if self._canvas.isEmpty() or not self._canvas.contains(wanted):
            self._canvas = wanted if self._canvas.isEmpty() else self._canvas.united(wanted)
            self.setSceneRect(self._canvas)

    def showEvent(self, event) -> None:  # noqa: ANN001, N802 - Qt's API
        """The first time a network is shown (opened, a unit's tab, a new quantized network),
        its layers start a little in from the top-left corner: not flush against the edge,
        not scrolled so that names are cut ("ock_Quantize")."""
        super().showEvent(event)
        if not self._placed:
            self._placed = True
            self.show_top_left()

    def show_top_left(self) -> None:
        """Scroll so the layers' top-left corner is ``EDGE`` px from the view's."""
        rect = self.scene().itemsBoundingRect()
        if rect.isEmpty():
            return
        corner = self.mapFromScene(rect.topLeft())
        bars = self.horizontalScrollBar(), self.verticalScrollBar()
        for bar, at in zip(bars, (corner.x(), corner.y()), strict=True):
            bar.setValue(bar.value() + at - EDGE)

    @property
    def network_scene(self) -> NetworkScene:
        return self.scene()  # type: ignore[return-value]

    # -- zoom ------------------------------------------------------------------------------
    def zoom(self) -> float:
        return self.transform().m11()

    def zoom_by(self, factor: float) -> None:
        target = min(MAX_ZOOM, max(MIN_ZOOM, self.zoom() * factor))
        factor = target / self.zoom()
        self.scale(factor, factor)

    def zoom_in(self) -> None:
        self.zoom_by(ZOOM_STEP)

    def zoom_out(self) -> None:
        self.zoom_by(1 / ZOOM_STEP)

    def zoom_fit(self) -> None:
        rect = self.scene().itemsBoundingRect()
        if rect.isEmpty():
            rect = QRectF(0, 0, 400, 300)
        pad = 2 * EDGE
        self.fitInView(rect.adjusted(-pad, -pad, pad, pad), Qt.AspectRatioMode.KeepAspectRatio)
        if self.zoom() > 1.0:
            self.resetTransform()
            self.show_top_left()

    def wheelEvent(self, event: QWheelEvent) -> None:
        if event.modifiers() & Qt.KeyboardModifier.ControlModifier:
            self.zoom_by(ZOOM_STEP if event.angleDelta().y() > 0 else 1 / ZOOM_STEP)
            event.accept()
            return
        super().wheelEvent(event)

    # -- pan -------------------------------------------------------------------------------
    def mousePressEvent(self, event: QMouseEvent) -> None:
        if event.button() == Qt.MouseButton.MiddleButton:
            self._pan_from = event.position()
            self.setCursor(Qt.CursorShape.ClosedHandCursor)
            event.accept()
            return
        super().mousePressEvent(event)

    def mouseMoveEvent(self, event: QMouseEvent) -> None:
        if self._pan_from is not None:
            delta = event.position() - self._pan_from
            self._pan_from = event.position()
            self.horizontalScrollBar().setValue(int(self.horizontalScrollBar().value() - delta.x()))
            self.verticalScrollBar().setValue(int(self.verticalScrollBar().value() - delta.y()))
            event.accept()
            return
        super().mouseMoveEvent(event)
        self._select_enclosed()

    def _select_enclosed(self) -> None:
        """As NNC, the rubber band takes the layers it encloses, not those it touches.

        (Qt's ContainsItemShape tests the bounding rect, which holds the statistic drawn
        beside the box, so it selected nothing.)"""
        band = self.rubberBandRect()
        if band.isNull():
            return
        area = self.mapToScene(band).boundingRect()
        for item in self.network_scene.layer_items.values():
            item.setSelected(area.contains(item.mapToScene(item.shape()).boundingRect()))

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        if event.button() == Qt.MouseButton.MiddleButton and self._pan_from is not None:
            self._pan_from = None
            self.unsetCursor()
            event.accept()
            return
        super().mouseReleaseEvent(event)

    # -- drops from the palette ------------------------------------------------------------
    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if event.mimeData().hasFormat(LAYER_MIME):
            event.acceptProposedAction()
        else:
            super().dragEnterEvent(event)

    def dragMoveEvent(self, event) -> None:  # noqa: ANN001 - QDragMoveEvent
        if event.mimeData().hasFormat(LAYER_MIME):
            event.acceptProposedAction()
        else:
            super().dragMoveEvent(event)

    def dropEvent(self, event: QDropEvent) -> None:
        if not event.mimeData().hasFormat(LAYER_MIME):
            super().dropEvent(event)
            return
        type_ = bytes(event.mimeData().data(LAYER_MIME).data()).decode("utf-8")
        self.network_scene.add_layer(type_, self.mapToScene(event.position().toPoint()))
        event.acceptProposedAction()

"""The plots inside Qt: the learning curve, the trade-off graph, the quantization sweep.

Each is a plain widget that stands in for its matplotlib canvas
(:mod:`console_app.tabs.plot_canvas`) until it is first shown or read: matplotlib is not
imported, and nothing drawn, before the window is up. Calls made meanwhile are kept (the last
of each kind) and replayed on the canvas; reading any canvas attribute (``lines_drawn``,
``hint``, ``optimal``, ``axes``, ``figure``) builds it first, so what is read is what is drawn.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QT_TRANSLATE_NOOP
from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import QVBoxLayout, QWidget

from engine.core import optional

# matplotlib on first display: 0.5-1 s of imports kept off the window's start-up
plot_canvas = optional.lazy("console_app.tabs.plot_canvas")

CURVE_HINT = QT_TRANSLATE_NOOP(
    "Plots", "No curve yet: click Run to train, or select jobs in the history"
)
TRADEOFF_HINT = QT_TRANSLATE_NOOP("Plots", "Jobs with a validation loss appear here")


class DeferredPlot(QWidget):
    """A widget whose matplotlib canvas is built on first display or first read."""

    CANVAS = ""  # the class's name in plot_canvas
    ARGS: tuple = ()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self._canvas: Any = None
        self._pending: dict[str, tuple] = {}  # method -> its last arguments, in call order

    def canvas(self) -> Any:
        """The matplotlib canvas, built (and the calls made meanwhile replayed) on first use."""
        if self._canvas is None:
            self._canvas = getattr(plot_canvas, self.CANVAS)(*self.ARGS)
            self.layout().addWidget(self._canvas)
            if self.isVisible():  # built in showEvent: Qt has shown the children already
                self._canvas.show()
            for method, args in self._pending.items():
                getattr(self._canvas, method)(*args)
            self._pending.clear()
        return self._canvas

    def _call(self, method: str, *args: Any) -> None:
        if self._canvas is None:
            self._pending.pop(method, None)
            self._pending[method] = args
        else:
            getattr(self._canvas, method)(*args)

    def showEvent(self, event: QShowEvent) -> None:  # noqa: N802 - Qt's API
        self.canvas()
        super().showEvent(event)

    def __getattr__(self, name: str) -> Any:  # what the canvas has and this widget has not
        if name.startswith("_"):
            raise AttributeError(name)
        return getattr(self.canvas(), name)


class LearningCurvePlot(DeferredPlot):
    """Cost, training and validation error against epochs, for one or several jobs."""

    CANVAS = "LearningCurveCanvas"
    ARGS = (CURVE_HINT,)

    def set_curves(self, curves: list[tuple[str, list]]) -> None:
        """``curves``: (label, rows of (epoch, cost, train_error, valid_error))."""
        self._call("set_curves", curves)

    def set_log_scale(self, on: bool) -> None:
        self._call("set_log_scale", on)


class TradeoffPlot(DeferredPlot):
    """Best validation error against a cost statistic; the Pareto front is marked."""

    CANVAS = "TradeoffCanvas"
    ARGS = (TRADEOFF_HINT,)

    def set_jobs(self, jobs: list, statistic: str) -> None:
        self._call("set_jobs", jobs, statistic)


class AccuracyPlot(DeferredPlot):
    """Accuracy against bits per target group; the float reference as a dashed line."""

    CANVAS = "AccuracyCanvas"

    def set_rows(self, rows: list[dict[str, Any]]) -> None:
        self._call("set_rows", rows)

"""Matplotlib plots inside Qt (QtAgg): the learning curve and the trade-off graph.

The drawing itself is :mod:`engine.report.curves`, shared with the PowerPoint report.
"""

from __future__ import annotations

from matplotlib.backends.backend_qtagg import FigureCanvasQTAgg  # no global backend switch
from matplotlib.figure import Figure

from engine.report.curves import draw_learning_curves, draw_tradeoff
from engine.runtime.job_history import JobInfo


class LearningCurvePlot(FigureCanvasQTAgg):
    """Cost, training and validation error against epochs, for one or several jobs."""

    def __init__(self) -> None:
        self.figure = Figure(figsize=(6, 3.2), tight_layout=True)
        super().__init__(self.figure)
        self.axes = self.figure.add_subplot(1, 1, 1)
        self.log_scale = False
        self.lines_drawn = 0
        self._curves: list[tuple[str, list]] = []

    def set_curves(self, curves: list[tuple[str, list]]) -> None:
        """``curves``: (label, rows of (epoch, cost, train_error, valid_error))."""
        self._curves = curves
        self.redraw()

    def set_log_scale(self, on: bool) -> None:
        self.log_scale = on
        self.redraw()

    def redraw(self) -> None:
        self.lines_drawn = draw_learning_curves(self.axes, self._curves, self.log_scale)
        self.draw_idle()


class TradeoffPlot(FigureCanvasQTAgg):
    """Best validation error against a cost statistic; the Pareto front is marked."""

    def __init__(self) -> None:
        self.figure = Figure(figsize=(4, 3.2), tight_layout=True)
        super().__init__(self.figure)
        self.axes = self.figure.add_subplot(1, 1, 1)
        self.optimal: list[str] = []

    def set_jobs(self, jobs: list[JobInfo], statistic: str) -> None:
        self.optimal = draw_tradeoff(self.axes, jobs, statistic)
        self.draw_idle()

"""Matplotlib plots inside Qt (QtAgg): the learning curve and the trade-off graph.

The drawing itself is :mod:`engine.report.curves`, shared with the PowerPoint report.
"""

from __future__ import annotations

from matplotlib.backends.backend_qtagg import FigureCanvasQTAgg  # no global backend switch
from matplotlib.figure import Figure
from PySide6.QtCore import QT_TRANSLATE_NOOP

from console_app.language import translate
from engine.report.curves import draw_learning_curves, draw_tradeoff
from engine.runtime.job_history import JobInfo

CURVE_HINT = QT_TRANSLATE_NOOP(
    "Plots", "No curve yet: click Run to train, or select jobs in the history"
)
TRADEOFF_HINT = QT_TRANSLATE_NOOP("Plots", "Jobs with a validation loss appear here")


def _hint(ax, text: str) -> str:  # noqa: ANN001 - a matplotlib Axes
    """An empty plot keeps its axes and says what will appear (returns the text shown)."""
    text = translate("Plots", text)
    ax.text(0.5, 0.5, text, transform=ax.transAxes, ha="center", va="center", wrap=True,
            color="#777", fontsize="small")  # fmt: skip
    return text


class LearningCurvePlot(FigureCanvasQTAgg):
    """Cost, training and validation error against epochs, for one or several jobs."""

    def __init__(self) -> None:
        self.figure = Figure(figsize=(6, 3.2), tight_layout=True)
        super().__init__(self.figure)
        self.axes = self.figure.add_subplot(1, 1, 1)
        self.log_scale = False
        self.lines_drawn = 0
        self.hint = ""
        self._curves: list[tuple[str, list]] = []
        self.redraw()

    def set_curves(self, curves: list[tuple[str, list]]) -> None:
        """``curves``: (label, rows of (epoch, cost, train_error, valid_error))."""
        self._curves = curves
        self.redraw()

    def set_log_scale(self, on: bool) -> None:
        self.log_scale = on
        self.redraw()

    def redraw(self) -> None:
        self.lines_drawn = draw_learning_curves(self.axes, self._curves, self.log_scale)
        self.hint = "" if self.lines_drawn else _hint(self.axes, CURVE_HINT)
        self.draw_idle()


class TradeoffPlot(FigureCanvasQTAgg):
    """Best validation error against a cost statistic; the Pareto front is marked."""

    def __init__(self) -> None:
        self.figure = Figure(figsize=(4, 3.2), tight_layout=True)
        super().__init__(self.figure)
        self.axes = self.figure.add_subplot(1, 1, 1)
        self.optimal: list[str] = []
        self.hint = ""
        self.set_jobs([], "CostMultiplyAdd")

    def set_jobs(self, jobs: list[JobInfo], statistic: str) -> None:
        self.optimal = draw_tradeoff(self.axes, jobs, statistic)
        shown = any(j.best_valid_error is not None and j.statistics.get(statistic) is not None
                    for j in jobs)  # fmt: skip
        self.hint = "" if shown else _hint(self.axes, TRADEOFF_HINT)
        self.draw_idle()

"""The matplotlib canvases (QtAgg) behind the plots of :mod:`console_app.tabs.plots`.

Loaded when a plot is first shown or read, never at start-up: matplotlib and its Qt backend
take 0.5-1 s to import and a first draw as long again, for plots on tabs not shown yet. The
drawing itself is :mod:`engine.report.curves`, shared with the PowerPoint report.
"""

from __future__ import annotations

from typing import Any

from matplotlib.backends.backend_qtagg import FigureCanvasQTAgg  # no global backend switch
from matplotlib.figure import Figure

from console_app import language
from console_app.language import translate
from engine.report.curves import draw_learning_curves, draw_tradeoff
from engine.runtime.job_history import JobInfo

language.use_plot_fonts()  # the interface's language was chosen before any plot was shown


def _hint(ax, text: str) -> str:  # noqa: ANN001 - a matplotlib Axes
    """An empty plot keeps its axes and says what will appear (returns the text shown)."""
    text = translate("Plots", text)
    ax.text(0.5, 0.5, text, transform=ax.transAxes, ha="center", va="center", wrap=True,
            color="#777", fontsize="small")  # fmt: skip
    return text


class LearningCurveCanvas(FigureCanvasQTAgg):
    """Cost, training and validation error against epochs, for one or several jobs."""

    def __init__(self, hint: str) -> None:
        self.figure = Figure(figsize=(6, 3.2), tight_layout=True)
        super().__init__(self.figure)
        self.axes = self.figure.add_subplot(1, 1, 1)
        self.empty_hint = hint
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
        self.hint = "" if self.lines_drawn else _hint(self.axes, self.empty_hint)
        self.draw_idle()


class TradeoffCanvas(FigureCanvasQTAgg):
    """Best validation error against a cost statistic; the Pareto front is marked."""

    def __init__(self, hint: str) -> None:
        self.figure = Figure(figsize=(4, 3.2), tight_layout=True)
        super().__init__(self.figure)
        self.axes = self.figure.add_subplot(1, 1, 1)
        self.empty_hint = hint
        self.optimal: list[str] = []
        self.hint = ""
        self.set_jobs([], "CostMultiplyAdd")

    def set_jobs(self, jobs: list[JobInfo], statistic: str) -> None:
        self.optimal = draw_tradeoff(self.axes, jobs, statistic)
        shown = any(j.best_valid_error is not None and j.statistics.get(statistic) is not None
                    for j in jobs)  # fmt: skip
        self.hint = "" if shown else _hint(self.axes, self.empty_hint)
        self.draw_idle()


class AccuracyCanvas(FigureCanvasQTAgg):
    """Accuracy against bits per target group; the float reference as a dashed line."""

    def __init__(self) -> None:
        self.figure = Figure(figsize=(5, 3), tight_layout=True)
        super().__init__(self.figure)
        self.axes = self.figure.add_subplot(1, 1, 1)
        self.lines_drawn = 0

    def set_rows(self, rows: list[dict[str, Any]]) -> None:
        ax = self.axes
        ax.clear()
        self.lines_drawn = 0
        for row in rows:
            if row["mode"] == "float":
                ax.axhline(100 * row["accuracy"], color="gray", linestyle="--", label="float")
        for group in sorted({(r["target"], r["mode"]) for r in rows if r["mode"] != "float"}):
            line = sorted((r for r in rows if (r["target"], r["mode"]) == group),
                          key=lambda r: r["bits"])  # fmt: skip
            ax.plot([r["bits"] for r in line], [100 * r["accuracy"] for r in line], "o-",
                    label=f"{group[0]} ({group[1].upper()})")  # fmt: skip
            self.lines_drawn += 1
        widths = sorted({r["bits"] for r in rows if r["mode"] != "float"})
        if widths:
            ax.set_xticks(widths)  # whole bit widths, not 4.5
        ax.set_xlabel(translate("QuantizationExperiment", "bits"))
        ax.set_ylabel(translate("QuantizationExperiment", "accuracy (%)"))
        ax.grid(True, alpha=0.3)
        if rows:
            ax.legend(fontsize="small")
        self.draw_idle()

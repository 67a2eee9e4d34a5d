"""Matplotlib plots inside Qt (QtAgg): the learning curve and the trade-off graph."""

from __future__ import annotations

import matplotlib
from matplotlib.backends.backend_qtagg import FigureCanvasQTAgg  # no global backend switch
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

from console_app.tabs.job_history import JobInfo, pareto_front

SERIES = (("cost", 1, "-"), ("training error", 2, "--"), ("validation error", 3, ":"))
CURVE_HINT = "No curve yet: click Run to train, or select jobs in the history"
TRADEOFF_HINT = "Jobs with a validation error appear here"


def _hint(ax, text: str) -> str:  # noqa: ANN001 - a matplotlib Axes
    """An empty plot keeps its axes and says what will appear (returns the text shown)."""
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
        ax = self.axes
        ax.clear()
        self.lines_drawn = 0
        colors = matplotlib.rcParams["axes.prop_cycle"].by_key()["color"]
        for k, (label, rows) in enumerate(self._curves):
            for name, column, style in SERIES:
                points = [(r[0], r[column]) for r in rows if r[column] is not None]
                if not points:
                    continue
                xs, ys = zip(*points, strict=True)
                color = colors[(column - 1 if len(self._curves) == 1 else k) % len(colors)]
                text = name if len(self._curves) == 1 else f"{label}: {name}"
                ax.plot(xs, ys, style, color=color, marker="." if len(xs) < 30 else None,
                        label=text)  # fmt: skip
                self.lines_drawn += 1
        ax.set_xlabel("epoch")
        ax.set_ylabel("cost / error")
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))  # epochs are whole
        self.hint = "" if self.lines_drawn else _hint(ax, CURVE_HINT)
        if self.log_scale and self.lines_drawn:
            ax.set_yscale("log")
        ax.grid(True, alpha=0.3)
        if self.lines_drawn:
            ax.legend(loc="upper right", fontsize="small")
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
        ax = self.axes
        ax.clear()
        points, names = [], []
        for job in jobs:
            error = job.best_valid_error
            cost = job.statistics.get(statistic)
            if error is not None and cost is not None:
                points.append((float(cost), float(error)))
                names.append(job.name)
        optimal = pareto_front(points)
        self.optimal = [n for n, o in zip(names, optimal, strict=True) if o]
        for (x, y), name, best in zip(points, names, optimal, strict=True):
            ax.plot([x], [y], "o", color="tab:red" if best else "tab:gray")
            ax.annotate(name, (x, y), fontsize="x-small", xytext=(3, 3),
                        textcoords="offset points")  # fmt: skip
        front = sorted(p for p, o in zip(points, optimal, strict=True) if o)
        if len(front) > 1:
            ax.plot(*zip(*front, strict=True), "-", color="tab:red", alpha=0.5, label="Pareto")
        ax.xaxis.set_major_locator(MaxNLocator(4))
        ax.ticklabel_format(axis="x", style="sci", scilimits=(-3, 4))
        ax.set_xlabel(statistic)
        ax.set_ylabel("best validation error")
        self.hint = "" if points else _hint(ax, TRADEOFF_HINT)
        ax.grid(True, alpha=0.3)
        self.draw_idle()

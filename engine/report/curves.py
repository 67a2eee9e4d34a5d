"""The learning curve and the trade-off graph drawn on a matplotlib ``Axes`` (no Qt).

The TRAINING tab draws them on its Qt canvas and the report on an Agg figure, so the app and the
report show the same picture.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import matplotlib
from matplotlib.axes import Axes
from matplotlib.ticker import FuncFormatter, MaxNLocator

from engine.report.i18n import QT_TRANSLATE_NOOP, translate
from engine.runtime.job_history import JobInfo, pareto_front

__all__ = ["SERIES", "draw_learning_curves", "draw_tradeoff", "tradeoff_points", "decimate",
           "MAX_CURVE_POINTS"]  # fmt: skip

# (legend text, column of a curve row, line style); rows are (epoch, cost, train, valid).
# NNC calls the monitors "Training Error" and "Validation Error"; they are the loss on those
# sets (the mean of the loss layers), so they are named for what they are.
SERIES = (
    (QT_TRANSLATE_NOOP("Report", "cost"), 1, "-"),
    (QT_TRANSLATE_NOOP("Report", "training loss"), 2, "--"),
    (QT_TRANSLATE_NOOP("Report", "validation loss"), 3, ":"),
)
Curve = tuple[str, Sequence[tuple[int, Any, Any, Any]]]
# Past this many jobs only the Pareto front is named: seen on a real X server, a quantization
# sweep's six jobs (same cost, long names) piled their names over each other and off the axes.
NAME_ALL_UP_TO = 4


# A curve drawn with more points than a slide or a canvas has pixels across only costs time and
# memory: a 200,000-epoch learning curve took 41 s and 1.5 GB to put in a report.
MAX_CURVE_POINTS = 2000


def decimate(points: Sequence[tuple[Any, Any]], limit: int = MAX_CURVE_POINTS) -> list[Any]:
    """At most ``limit`` of ``points`` (x, y) in order: per bucket of consecutive points its
    lowest and highest y (a spike and the best epoch stay visible), the first and last always."""
    n = len(points)
    if n <= limit:
        return list(points)
    buckets = max(1, (limit - 2) // 2)
    keep = {0, n - 1}
    for b in range(buckets):
        lo, hi = b * n // buckets, (b + 1) * n // buckets
        if hi > lo:
            span = range(lo, hi)
            keep.add(min(span, key=lambda i: points[i][1]))
            keep.add(max(span, key=lambda i: points[i][1]))
    return [points[i] for i in sorted(keep)]


def draw_learning_curves(ax: Axes, curves: Sequence[Curve], log_scale: bool = False) -> int:
    """Cost, training and validation error against epochs of one or several jobs.

    ``curves``: (label, rows of (epoch, cost, train_error, valid_error)). One job: a colour per
    series; several: a colour per job and a style per series. Returns the number of lines.
    """
    ax.clear()
    drawn = 0
    colors = matplotlib.rcParams["axes.prop_cycle"].by_key()["color"]
    for k, (label, rows) in enumerate(curves):
        for name, column, style in SERIES:
            points = decimate([(r[0], r[column]) for r in rows if r[column] is not None])
            if not points:
                continue
            xs, ys = zip(*points, strict=True)
            color = colors[(column - 1 if len(curves) == 1 else k) % len(colors)]
            name = translate("Report", name)
            text = name if len(curves) == 1 else f"{label}: {name}"
            ax.plot(xs, ys, style, color=color, marker="." if len(xs) < 30 else None, label=text)
            drawn += 1
    ax.set_xlabel(translate("Report", "epoch"))
    ax.set_ylabel(translate("Report", "cost / loss"))
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    if log_scale and drawn:
        ax.set_yscale("log")
    ax.grid(True, alpha=0.3)
    if drawn:
        ax.legend(loc="upper right", fontsize="small")
    return drawn


def tradeoff_points(
    jobs: Sequence[JobInfo], statistic: str
) -> tuple[list[tuple[float, float]], list[str], list[bool]]:
    """(cost, best validation error) of the jobs that have both, their names, Pareto-optimal."""
    points, names = [], []
    for job in jobs:
        error = job.best_valid_error
        cost = job.statistics.get(statistic)
        if error is not None and cost is not None:
            points.append((float(cost), float(error)))
            names.append(job.name)
    return points, names, pareto_front(points)


def _cost_label(value: float, _position: int) -> str:
    return (
        f"{value:,.0f}" if abs(value - round(value)) < 1e-9 or abs(value) >= 100 else f"{value:g}"
    )


def _nearby(
    named: list[tuple[float, float, str]], dx: float, dy: float
) -> list[tuple[tuple[float, float], list[str]]]:
    """Names of points drawn at (nearly) one place, together: one label each place, at its
    first point (a sweep's points share a cost and often a loss; their names overlapped)."""
    places: list[tuple[tuple[float, float], list[str]]] = []
    for x, y, name in named:
        for (px, py), names in places:
            if abs(x - px) <= dx and abs(y - py) <= dy:
                names.append(name)
                break
        else:
            places.append(((x, y), [name]))
    return places


def _label_text(names: list[str]) -> str:
    """Names at one place, one per line; a quantization experiment's points (``<sweep>: 8-bit
    PTQ``) under one ``<sweep>:`` line, so the label stays narrow enough for the axes."""
    groups: dict[str, list[str]] = {}  # "" holds the plain names
    for name in names:
        prefix, sep, rest = name.partition(": ")
        if sep:
            groups.setdefault(prefix + ":", []).append(rest)
        else:
            groups.setdefault(name, [])
    lines = []
    for head, rests in groups.items():
        lines.append(head)
        if rests:
            lines.append("  " + ", ".join(rests))
    return "\n".join(lines)


def draw_tradeoff(ax: Axes, jobs: Sequence[JobInfo], statistic: str) -> list[str]:
    """Best validation error against ``statistic``; the Pareto front in red and named (every
    point named while there are at most ``NAME_ALL_UP_TO``). Returns the front's names."""
    ax.clear()
    points, names, optimal = tradeoff_points(jobs, statistic)
    name_all = len(points) <= NAME_ALL_UP_TO
    named: list[tuple[float, float, str]] = []
    for (x, y), name, best in zip(points, names, optimal, strict=True):
        # The front on top: a sweep's points share one cost and would hide it.
        ax.plot([x], [y], "o", color="tab:red" if best else "tab:gray", zorder=3 if best else 2)
        if best or name_all:
            named.append((x, y, name))
    (x0, x1), (y0, y1) = ax.get_xlim(), ax.get_ylim()  # autoscaled to the points now
    for (x, y), together in _nearby(named, 0.04 * (x1 - x0), 0.04 * (y1 - y0)):
        # Toward the middle of the axes, so a name at the right or top edge is not cut.
        right = x1 > x0 and (x - x0) / (x1 - x0) >= 0.5
        top = y1 > y0 and (y - y0) / (y1 - y0) > 0.5
        label = ax.annotate(_label_text(together), (x, y), fontsize="x-small",
                            xytext=(-4 if right else 4, -4 if top else 4),
                            textcoords="offset points", ha="right" if right else "left",
                            va="top" if top else "bottom", clip_on=True)  # fmt: skip
        label.set_in_layout(False)  # a long name must not squeeze the axes
    front = sorted(p for p, o in zip(points, optimal, strict=True) if o)
    if len(front) > 1:
        ax.plot(*zip(*front, strict=True), "-", color="tab:red", alpha=0.5, label="Pareto")
    ax.xaxis.set_major_locator(MaxNLocator(4))
    # Whole numbers with separators: costs a few apart around a million read "1,031,746", not
    # "46 49 52 +1.0317e6" (matplotlib's offset notation).
    ax.xaxis.set_major_formatter(FuncFormatter(_cost_label))
    ax.ticklabel_format(axis="y", useOffset=False)  # losses a little apart, in full
    ax.set_xlabel(statistic)
    ax.set_ylabel(translate("Report", "best validation loss"))
    ax.grid(True, alpha=0.3)
    return [n for n, o in zip(names, optimal, strict=True) if o]

"""The outcome of a search: every attempt with its Pareto mark, as a CSV table and a plot.

``<study>_results.csv`` (number, state, valid_error, cost_multiply_add, pareto, accuracy (the
attempt's evaluation, classification only), parent, mutation, job, reason) and
``<study>_tradeoff.png`` (the TRAINING tab's trade-off graph of the attempts whose job folders
are on this machine) go to the jobs folder.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import optuna

from engine.core import optional
from engine.report.curves import draw_tradeoff
from engine.runtime.job import atomic_write_text
from engine.runtime.job_history import read_job
from engine.search.study import Settings, attempts, front

mpl_figure = optional.lazy("matplotlib.figure")  # when a search ends
ticker = optional.lazy("matplotlib.ticker")

__all__ = ["SearchResult", "results", "summary", "COLUMNS"]

COLUMNS = ("number", "state", "valid_error", "cost_multiply_add", "pareto", "accuracy",
           "parent", "mutation", "job", "reason")  # fmt: skip


@dataclass
class SearchResult:
    storage: str
    study: str
    rows: list[dict[str, Any]] = field(default_factory=list)
    table: Path | None = None
    plot: Path | None = None


def summary(trial: optuna.trial.FrozenTrial) -> dict[str, Any]:
    """One attempt as plain data (for events and the results table)."""
    return {
        "number": trial.number,
        "state": trial.state.name.lower(),
        "valid_error": trial.values[0] if trial.values else None,
        "cost_multiply_add": trial.user_attrs.get("cost"),
        "accuracy": trial.user_attrs.get("accuracy"),
        "mutation": trial.user_attrs.get("mutation", ""),
        "parent": trial.user_attrs.get("parent"),
        "job": trial.user_attrs.get("job", ""),
        "reason": trial.user_attrs.get("reason") or _silent(trial),
    }


def _silent(trial: optuna.trial.FrozenTrial) -> str:
    """A failed attempt that no worker explained: Optuna's heartbeat check failed it."""
    if trial.state != optuna.trial.TrialState.FAIL:
        return ""
    return "its worker stopped sending heartbeats while training it (killed, or its machine lost)"


def results(study: optuna.Study, url: str) -> SearchResult:
    """Every attempt with its Pareto mark; the table and the plot written to the jobs folder."""
    settings = Settings.from_attrs(study.user_attrs)
    optimal = {t.number for t in front(study, settings)}
    rows = [{**summary(t), "pareto": t.number in optimal} for t in attempts(study)]
    root = Path(settings.jobs_root)
    table = root / f"{study.study_name}_results.csv"
    text = io.StringIO()
    writer = csv.DictWriter(text, COLUMNS, lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    atomic_write_text(table, text.getvalue())
    plot = root / f"{study.study_name}_tradeoff.png"
    return SearchResult(url, study.study_name, rows, table, _plot(rows, plot))


def _plot(rows: list[dict[str, Any]], path: Path) -> Path | None:
    """The trade-off graph (Agg, no Qt) of the finished attempts found on this machine, each
    labelled with its attempt number; CostMultiplyAdd on a log scale (attempts differ by
    factors)."""
    jobs = [replace(read_job(Path(r["job"])), name=str(r["number"])) for r in rows
            if r["state"] == "complete" and Path(r["job"], "network.ncproj").is_file()]  # fmt: skip
    if not jobs:
        return None
    figure = mpl_figure.Figure(figsize=(6, 4))
    axes = figure.add_subplot(1, 1, 1)
    draw_tradeoff(axes, jobs, "CostMultiplyAdd")
    axes.set_xscale("log")
    low, high = axes.get_xlim()
    ticks = [m * 10.0**e for e in range(13) for m in (1, 2, 5) if low <= m * 10.0**e <= high]
    axes.set_xticks(ticks, [f"{t:,.0f}" for t in ticks], fontsize="small")
    axes.xaxis.set_minor_formatter(ticker.NullFormatter())
    axes.set_title("attempts: validation error vs CostMultiplyAdd (Pareto front in red)",
                   fontsize="small")  # fmt: skip
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    return path

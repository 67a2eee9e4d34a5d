"""``results.csv`` and ``sweep.png`` of a sweep folder.

``results.csv`` columns: ``quantizer,target,bits,mode,accuracy,error,parameter_bytes,
cost_multiply_add,job`` (``job``: the point's folder, relative to the sweep folder).
``sweep.png`` (matplotlib, Agg): accuracy against bits per target group, and accuracy against
parameter bytes with the Pareto front (fewest bytes for the accuracy) marked.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from engine.core import optional
from engine.quantization.scheme import QuantizationError
from engine.report.i18n import translate
from engine.runtime.job import atomic_write_text

# matplotlib's object API when a chart is drawn (a Figure draws with Agg itself: no Qt)
mpl_figure = optional.lazy("matplotlib.figure")
ticker = optional.lazy("matplotlib.ticker")

__all__ = ["COLUMNS", "read_results", "write_results", "write_plot", "plot_png", "pareto",
           "ranking_text"]  # fmt: skip

COLUMNS = ("quantizer", "target", "bits", "mode", "accuracy", "error", "parameter_bytes",
           "cost_multiply_add", "job")  # fmt: skip
_TYPES = {"bits": int, "accuracy": float, "error": float, "parameter_bytes": int,
          "cost_multiply_add": int}  # fmt: skip


def read_results(path: Path) -> list[dict[str, Any]]:
    """The rows of an existing ``results.csv`` (none when it does not exist)."""
    if not path.is_file():
        return []
    with open(path, newline="", encoding="utf-8") as f:
        reader = csv.DictReader(f)
        missing = [c for c in COLUMNS if c not in (reader.fieldnames or [])]
        if missing:
            raise QuantizationError(
                f"{path}: not the results.csv of a sweep (no column {missing[0]}); choose "
                f"another -o folder"
            )
        return [_typed(path, reader.line_num, row) for row in reader]


def _typed(path: Path, line: int, row: dict[str, str]) -> dict[str, Any]:
    """One row with its numbers converted; a bad cell is named by file, line and column."""
    typed = {}
    for column in COLUMNS:
        text = row[column]
        try:
            typed[column] = _TYPES.get(column, str)(text)
        except (TypeError, ValueError):
            raise QuantizationError(
                f"{path}, line {line}, column {column}: expected a number. Received: {text!r}"
            ) from None
    return typed


def write_results(path: Path, rows: Sequence[dict[str, Any]]) -> None:
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, COLUMNS, lineterminator="\n")
    writer.writeheader()
    for row in rows:
        writer.writerow({k: row[k] for k in COLUMNS})
    atomic_write_text(path, buffer.getvalue())


def pareto(points: Sequence[tuple[float, float]]) -> list[bool]:
    """Which (bytes, accuracy) points no other point beats with fewer-or-equal bytes and
    higher-or-equal accuracy (one strictly)."""
    return [
        not any((b2 <= b and a2 >= a) and (b2 < b or a2 > a) for b2, a2 in points)
        for b, a in points
    ]


def write_plot(path: Path, rows: Sequence[dict[str, Any]]) -> None:
    """``sweep.png``: :func:`plot_png`, written atomically."""
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_bytes(plot_png(rows))
    tmp.replace(path)


def plot_png(rows: Sequence[dict[str, Any]]) -> bytes:
    """Accuracy against bits and against parameter bytes (Pareto front marked), as PNG."""
    figure = mpl_figure.Figure(figsize=(10, 4), dpi=100)
    by_bits, by_bytes = figure.subplots(1, 2)
    reference = [r for r in rows if r["mode"] == "float"]
    quantized = [r for r in rows if r["mode"] != "float"]
    for group in sorted({(r["target"], r["mode"]) for r in quantized}):
        line = sorted((r for r in quantized if (r["target"], r["mode"]) == group),
                      key=lambda r: r["bits"])  # fmt: skip
        by_bits.plot([r["bits"] for r in line], [100 * r["accuracy"] for r in line], "o-",
                     label=f"{group[0]} ({group[1].upper()})")  # fmt: skip
    for r in reference:
        for axes in (by_bits, by_bytes):
            axes.axhline(100 * r["accuracy"], color="gray", linestyle="--", linewidth=1)
    by_bits.set(xlabel=translate("Report", "bits"), ylabel=translate("Report", "accuracy (%)"),
                title=translate("Report", "Accuracy against bits"))  # fmt: skip
    by_bits.invert_xaxis()
    if quantized:
        by_bits.legend(fontsize=8)
    points = [(float(r["parameter_bytes"]), float(r["accuracy"])) for r in rows]
    front = pareto(points)
    by_bytes.scatter([p[0] for p in points], [100 * p[1] for p in points], color="tab:blue",
                     s=18, label=translate("Report", "points"))  # fmt: skip
    best = sorted(p for p, f in zip(points, front, strict=True) if f)
    by_bytes.plot([p[0] for p in best], [100 * p[1] for p in best], "s-", color="tab:red",
                  label=translate("Report", "Pareto front"))  # fmt: skip
    by_bytes.set(xscale="log", xlabel=translate("Report", "parameter bytes"),
                 ylabel=translate("Report", "accuracy (%)"),
                 title=translate("Report", "Accuracy against model size"))  # fmt: skip
    # 1-2-5 ticks written 20k, 50k: the default labels every minor tick as 3x10^4 (overlaps)
    by_bytes.xaxis.set_major_locator(ticker.LogLocator(subs=(1.0, 2.0, 5.0)))
    by_bytes.xaxis.set_major_formatter(ticker.FuncFormatter(_short_number))
    by_bytes.xaxis.set_minor_formatter(ticker.NullFormatter())
    by_bytes.legend(fontsize=8)
    figure.tight_layout()
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png")
    return buffer.getvalue()


def _short_number(value: float, _position: object = None) -> str:
    for scale, unit in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if value >= scale:
            return f"{value / scale:g}{unit}"
    return f"{value:g}"


def ranking_text(layers: list[dict[str, Any]]) -> str:
    """``Convolution -4.71, Affine +0.00``: the accuracy points each layer costs quantized
    alone (a ``sensitivity`` event's layers, worst first), as the CLI and the app show them."""
    # + 0.0 turns the -0.0 of a layer that cost nothing into 0.0 (shown "+0.00", not "-0.00")
    return ", ".join(f"{r['layer']} {-100 * r['loss'] + 0.0:+.2f}" for r in layers)

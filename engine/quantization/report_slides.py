"""The "Quantization" slides of a job's PowerPoint report (listed in
:data:`engine.report.job_report.SLIDE_PROVIDERS`, so ``neurocanvas report JOB`` adds them).

A job's sweeps are the folders holding ``results.csv`` beside the job or inside it whose
``sweep.json`` names the job (``neurocanvas quantize sweep``'s default ``<job>_quantization``,
or any ``-o`` folder there). Each gets, before the References:

* ``Quantization : Results``: results.csv as a native table (quantizer, target, bits, mode,
  accuracy, parameter bytes, CostMultiplyAdd), split over as many slides as it needs;
* ``Quantization : Accuracy against Bits and Model Size``: sweep.png, redrawn from results.csv
  when it is missing or older (a sweep killed before it drew the plot);
* ``Quantization : Layer Sensitivity``, when the sweep ranked its layers (sensitivity.csv), with
  the measured mixed-precision pick (mixed_precision.json) if there is one.

With several sweeps the titles end with `` of <sweep folder>``. A sweep whose files cannot be
read gets one slide naming the file and the problem; the report still comes.
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

from PIL import Image

from engine.quantization.results import plot_png, read_results
from engine.quantization.scheme import QuantizationError
from engine.report.i18n import QT_TRANSLATE_NOOP, translate
from engine.report.i18n import current as report_language
from engine.report.slides import BODY_H, BODY_TOP, MARGIN, WIDTH, Deck

__all__ = ["HEADER", "SENSITIVITY_HEADER", "add_slides", "find_sweeps", "result_cells"]

HEADER = (
    QT_TRANSLATE_NOOP("Report", "Quantizer"), QT_TRANSLATE_NOOP("Report", "Target"),
    QT_TRANSLATE_NOOP("Report", "Bits"), QT_TRANSLATE_NOOP("Report", "Mode"),
    QT_TRANSLATE_NOOP("Report", "Accuracy"), QT_TRANSLATE_NOOP("Report", "Parameter bytes"),
    "CostMultiplyAdd",
)  # fmt: skip
SENSITIVITY_HEADER = (
    QT_TRANSLATE_NOOP("Report", "Rank"), QT_TRANSLATE_NOOP("Report", "Layer"),
    QT_TRANSLATE_NOOP("Report", "Bits"), QT_TRANSLATE_NOOP("Report", "Accuracy"),
    QT_TRANSLATE_NOOP("Report", "Accuracy lost"),
)  # fmt: skip
_SENSITIVITY_COLUMNS = ("rank", "layer", "bits", "accuracy", "loss")
_PLOT_DPI = 100  # results.plot_png draws at 100 dpi: pixels / 100 = inches


def add_slides(deck: Deck, context: Any) -> None:
    """The report hook: the slides of every sweep of ``context.root`` (a job folder)."""
    sweeps = find_sweeps(context.root)
    for sweep in sweeps:
        suffix = (
            translate("Report", " of {name}").format(name=sweep.name) if len(sweeps) > 1 else ""
        )
        try:
            _sweep_slides(deck, sweep, suffix)
        except (QuantizationError, OSError, ValueError, KeyError, TypeError) as exc:
            deck.text_slide(
                translate("Report", "Quantization") + suffix,
                [translate("Report", "This sweep cannot be reported: {exc}").format(exc=exc)],
            )


def find_sweeps(job_root: Path) -> list[Path]:
    """The sweep folders of the job at ``job_root``, by name."""
    root = Path(job_root).resolve()
    found = []
    for base in (root.parent, root):
        try:
            folders = sorted(p for p in base.iterdir() if (p / "results.csv").is_file())
        except OSError:
            continue
        found += [p for p in folders if _belongs(p, root)]
    return found


def _belongs(sweep: Path, root: Path) -> bool:
    recorded = str(_json(sweep / "sweep.json").get("job") or "")
    if recorded and Path(recorded).exists():
        return Path(recorded).resolve() == root
    # No record, or the folders were moved together since: go by the names.
    return sweep.name == f"{root.name}_quantization" or Path(recorded).name == root.name


def result_cells(row: dict[str, Any]) -> list[str]:
    """One results.csv row as the table shows it (accuracy with 4 decimals, as NNC's report)."""
    return [
        str(row["quantizer"]), str(row["target"]), str(row["bits"]), str(row["mode"]),
        f"{row['accuracy']:.4f}", f"{row['parameter_bytes']:,}", f"{row['cost_multiply_add']:,}",
    ]  # fmt: skip


def _sweep_slides(deck: Deck, sweep: Path, suffix: str) -> None:
    rows = read_results(sweep / "results.csv")
    if not rows:
        deck.text_slide(
            translate("Report", "Quantization") + suffix,
            [translate("Report", "Sweep {name}: no finished point yet.").format(name=sweep.name)],
        )
        return
    info = _json(sweep / "sweep.json")
    cells = [result_cells(r) for r in rows]
    header = [translate("Report", text) for text in HEADER]
    deck.table_slides(translate("Report", "Quantization : Results") + suffix, header, cells,
                      intro=[_summary(sweep, info, rows)])  # fmt: skip
    slide = deck.slide(
        translate("Report", "Quantization : Accuracy against Bits and Model Size") + suffix
    )
    png = _plot(sweep, rows)
    width, height = Image.open(io.BytesIO(png)).size
    box = (MARGIN, BODY_TOP, WIDTH - 2 * MARGIN, BODY_H)
    deck.picture(slide, png, box, (width / _PLOT_DPI, height / _PLOT_DPI))
    if (sweep / "sensitivity.csv").is_file():
        _sensitivity_slides(deck, sweep, suffix)


def _summary(sweep: Path, info: dict[str, Any], rows: list[dict[str, Any]]) -> str:
    options = info.get("options") or {}
    mode = str(options.get("mode", "")).upper()
    delta = options.get("delta")
    if mode == "QAT":
        mode = translate("Report", "QAT ({epochs} epochs)").format(epochs=options.get("epochs"))
    calibrated = translate("Report", "Delta calibrated")
    parts = [
        translate("Report", "Sweep {name}").format(name=sweep.name),
        translate("Report", "network {name}").format(name=info["network"])
        if info.get("network") else "",
        translate("Report", "{quantizer} quantizers").format(quantizer=options["quantizer"])
        if options.get("quantizer") else "",
        mode,
        calibrated if options and delta is None else (f"Delta {delta}" if delta else ""),
    ]  # fmt: skip
    reference = [r["accuracy"] for r in rows if r["mode"] == "float"]
    text = ", ".join(p for p in parts if p)
    if not reference:
        return text + "."
    return translate("Report", "{summary}; float accuracy {accuracy}.").format(
        summary=text, accuracy=f"{reference[0]:.4f}"
    )


def _plot(sweep: Path, rows: list[dict[str, Any]]) -> bytes:
    """sweep.png when it is there and as new as results.csv, else the same plot redrawn."""
    png, csv_file = sweep / "sweep.png", sweep / "results.csv"
    english = report_language() == "en"  # the sweep drew its plot in English
    if english and png.is_file() and png.stat().st_mtime >= csv_file.stat().st_mtime:
        return png.read_bytes()
    return plot_png(rows)


def _sensitivity_slides(deck: Deck, sweep: Path, suffix: str) -> None:
    """The ranking; with a mixed-precision suggestion, its width per layer as a last column
    (a column, not a sentence: it stays legible for a network of many layers)."""
    path = sweep / "sensitivity.csv"
    with open(path, newline="", encoding="utf-8") as f:
        reader = csv.DictReader(f)
        missing = [c for c in _SENSITIVITY_COLUMNS if c not in (reader.fieldnames or [])]
        if missing:
            raise QuantizationError(f"{path}: no column {missing[0]}")
        rows = [_sensitivity_cells(path, reader.line_num, row) for row in reader]
    bits = rows[0][2] if rows else "?"
    intro = [translate("Report", "Each layer alone quantized at {bits} bits (PTQ), ranked by the "
                       "accuracy lost against the float network.").format(bits=bits)]  # fmt: skip
    header = [translate("Report", text) for text in SENSITIVITY_HEADER]
    mixed = _json(sweep / "mixed_precision.json")
    if mixed.get("layer_bits"):
        chosen = {str(k): str(v) for k, v in mixed["layer_bits"].items()}
        header.append(translate("Report", "Mixed bits"))
        rows = [[*row, chosen.get(row[1], "")] for row in rows]
        intro.append(_mixed_line(mixed))
    elif mixed.get("status") in ("running", "stopped"):
        intro.append(
            translate("Report", "Mixed precision for {budget} bytes: stopped after {evaluations} "
                      "evaluations (run the sweep again to finish).").format(
                budget=f"{mixed['budget']:,}", evaluations=mixed["evaluations"])
        )  # fmt: skip
    title = translate("Report", "Quantization : Layer Sensitivity") + suffix
    deck.table_slides(title, header, rows, intro=intro)


def _mixed_line(mixed: dict[str, Any]) -> str:
    values = {"budget": f"{mixed['budget']:,}", "size": f"{mixed['parameter_bytes']:,}",
              "accuracy": f"{mixed['accuracy']:.4f}"}  # fmt: skip
    if "candidates" not in mixed:  # a record from before the pick was measured
        return translate("Report", "Mixed precision for {budget} bytes (Mixed bits): {size} "
                         "parameter bytes, accuracy {accuracy}.").format(**values)  # fmt: skip
    return translate("Report", "Mixed precision for {budget} bytes (Mixed bits): {size} "
                     "parameter bytes, accuracy {accuracy}, the most accurate that fits of "
                     "{count} networks evaluated whole (mixed_precision.json).").format(
        count=len(mixed["candidates"]), **values)  # fmt: skip


def _sensitivity_cells(path: Path, line: int, row: dict[str, str]) -> list[str]:
    try:
        return [str(int(row["rank"])), row["layer"], str(int(row["bits"])),
                f"{float(row['accuracy']):.4f}", f"{float(row['loss']):.4f}"]  # fmt: skip
    except (TypeError, ValueError):
        raise QuantizationError(f"{path}, line {line}: expected rank,layer,bits,accuracy,loss "
                                f"with numbers. Received: {row}") from None  # fmt: skip


def _json(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}

"""The evaluation slides: NNC's ``Experimental Result : Evaluation`` (from ``evaluation.json``,
4 decimals as NNC prints them), then what NNC lacks: the confusion matrix as a heatmap, the
per-class precision / recall / F-measure table and misclassified validation examples."""

from __future__ import annotations

import csv
from pathlib import Path
from typing import Any

import numpy as np

from engine.data.loaders import load_file
from engine.report import figures
from engine.report.i18n import QT_TRANSLATE_NOOP, translate
from engine.report.slides import BODY_H, BODY_TOP, MARGIN, WIDTH, Deck

__all__ = ["evaluation_slides", "CLASSIFICATION_LINES", "REGRESSION_LINES", "variable_name"]

TITLE = QT_TRANSLATE_NOOP("Report", "Experimental Result : Evaluation")
CLASSIFICATION_LINES = (
    ("Accuracy", "accuracy"),
    ("Avg.Precision", "avg_precision"),
    ("Avg.Recall", "avg_recall"),
    ("Avg.F-Measures", "avg_f_measure"),
)
REGRESSION_LINES = (
    ("Mean absolute error", "mae"),
    ("Mean squared error", "mse"),
    ("Root mean squared error", "rmse"),
    ("R2", "r2"),
)
MISCLASSIFIED = 12
_IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".bmp", ".gif", ".tif", ".tiff")


def variable_name(output: str) -> str:
    """``y'`` (the output) -> ``y`` (the variable NNC names on the slide)."""
    return output[:-1] if output.endswith("'") else output


def _evaluated_executors(plan: Any, summary: dict) -> list[dict]:
    """The executors the evaluation ran: every one (``evaluation.json`` lists them), only the
    first in a job evaluated before evaluation ran them all, or the summary's network alone."""
    listed = summary.get("executors")
    executors = list(plan.executors[: len(listed)] if listed else plan.executors[:1])
    return executors or [{"network": summary.get("network", "")}]


def evaluation_slides(
    deck: Deck, job: Path, plan: Any, summary: dict | None, wanted: str | None, best_epoch: int
) -> None:
    """NNC's evaluation slide, then the extra ones for each classified output.

    ``summary`` is ``evaluation.json`` (None when the job was never evaluated); ``wanted`` the
    checkpoint the user asked for (None: whichever was evaluated).
    """
    if summary is None or (wanted and summary.get("checkpoint") != wanted):
        deck.text_slide(translate("Report", TITLE), _not_evaluated(job, summary, wanted))
        return
    lines = []
    for executor in _evaluated_executors(plan, summary):  # NNC: a paragraph per executor
        lines.append(translate("Report", 'Evaluate network "{network}" using "{dataset}" dataset.')
                     .format(network=executor.get("network", ""),
                             dataset=summary.get("dataset", "")))  # fmt: skip
        n = int(executor.get("num_evaluations") or 1)
        if n > 1:
            kind = "average" if executor.get("repeat_evaluation_type") == "mean" else "last"
            lines += [
                translate("Report", "The calculation is executed {n} times for each data.").format(
                    n=n
                ),
                translate("Report", "The {kind} value is used as a final output.").format(
                    kind=kind
                ),
            ]
    checkpoint = summary.get("checkpoint", "best")
    epoch = f" (epoch {best_epoch})" if checkpoint == "best" and best_epoch else ""
    lines.append(
        translate("Report", "Parameters : the {checkpoint} checkpoint{epoch}; {get:,} data").format(
            checkpoint=checkpoint, epoch=epoch, get=summary.get("rows", 0)
        )
    )
    for name, m in summary.get("classification", {}).items():
        lines.append(
            translate("Report", "Variable : {variable_name}").format(
                variable_name=variable_name(name)
            )
        )
        lines += [f"    {label} : {m[key]:.4f}" for label, key in CLASSIFICATION_LINES]
    for name, m in summary.get("regression", {}).items():
        lines.append(
            translate("Report", "Variable : {variable_name}").format(
                variable_name=variable_name(name)
            )
        )
        lines += [f"    {label} : {m[key]:.6g}" for label, key in REGRESSION_LINES if key in m]
    deck.text_slide(translate("Report", TITLE), lines)
    for name, m in summary.get("classification", {}).items():
        _confusion_slide(deck, name, m)
        _per_class_slides(deck, name, m)
        _misclassified_slide(deck, job / "output_result.csv", name, int(m["classes"]))


def _not_evaluated(job: Path, summary: dict | None, wanted: str | None) -> list[str]:
    """What the slide says instead of results: for whoever reads the deck, so no command."""
    if summary is None:
        first = translate("Report", "This job has not been evaluated yet.")
    else:
        first = translate(
            "Report",
            "This job has been evaluated with the {get} parameters, not the {wanted} ones "
            "asked for.",
        ).format(get=summary.get("checkpoint"), wanted=wanted)
    return [first, "The evaluation results appear here once the job is evaluated."]


def _confusion_slide(deck: Deck, name: str, m: dict) -> None:
    matrix = np.asarray(m["confusion_matrix"], dtype=np.int64)
    labels = [str(k) for k in range(matrix.shape[0])]
    slide = deck.slide(
        translate("Report", "Experimental Result : Confusion Matrix of {variable_name}").format(
            variable_name=variable_name(name)
        )
    )
    png, size = figures.confusion_heatmap(matrix, labels, min(BODY_H, 7.0))
    deck.picture(slide, png, (MARGIN, BODY_TOP, 7.0, BODY_H), size)
    lines = [
        translate(
            "Report", "Rows: the true class; columns: the predicted class; each cell counts data."
        ),
        translate(
            "Report", "{int:,} of {int2:,} data are on the diagonal (accuracy {value:.4f})."
        ).format(int=int(np.trace(matrix)), int2=int(matrix.sum()), value=m["accuracy"]),
    ]
    deck.text(slide, lines, (MARGIN + 7.3, BODY_TOP, WIDTH - 2 * MARGIN - 7.3, 2.0), largest=16)


def _per_class_slides(deck: Deck, name: str, m: dict) -> None:
    matrix = np.asarray(m["confusion_matrix"], dtype=np.int64)
    rows = [
        [
            str(k),
            f"{m['precision'][k]:.4f}",
            f"{m['recall'][k]:.4f}",
            f"{m['f_measure'][k]:.4f}",
            f"{int(matrix[k].sum()):,}",
        ]
        for k in range(matrix.shape[0])
    ]
    deck.table_slides(
        translate("Report", "Experimental Result : Per-class Metrics of {variable_name}").format(
            variable_name=variable_name(name)
        ),
        [
            translate("Report", "Class"),
            translate("Report", "Precision"),
            translate("Report", "Recall"),
            translate("Report", "F-Measure"),
            translate("Report", "Data"),
        ],
        rows,
    )


def _misclassified_slide(deck: Deck, output_csv: Path, name: str, classes: int) -> None:
    """Up to twelve wrongly classified images, the most confident mistakes first."""
    found = _misclassified(output_csv, name, classes)
    if found is None:
        return  # not an image classification, or output_result.csv is gone
    title = translate(
        "Report", "Experimental Result : Misclassified Examples of {variable_name}"
    ).format(variable_name=variable_name(name))
    if not found:
        deck.text_slide(
            title, [translate("Report", "Every evaluated data is classified correctly.")]
        )
        return

    tiles, captions = [], []
    for path, true, predicted, score in found[:MISCLASSIFIED]:
        try:
            tiles.append(figures.tile_png(figures.to_display(load_file(Path(path)))))
        except Exception:  # noqa: BLE001, S112 - a file that has gone: leave it out
            continue
        captions.append(
            translate("Report", "true {true}, predicted {predicted} ({score:.2f})").format(
                true=true, predicted=predicted, score=score
            )
        )
    if not tiles:
        deck.text_slide(
            title, [translate("Report", "The image files of the misclassified data are gone.")]
        )
        return
    slide = deck.slide(title)
    intro = [
        translate(
            "Report",
            "{found:,} data misclassified; the {shown} most confident mistakes "
            "(true class, predicted class and its score):",
        ).format(found=len(found), shown=len(tiles))
    ]
    deck.text(slide, intro, (MARGIN, BODY_TOP, WIDTH - 2 * MARGIN, 0.5), largest=16)
    box = (MARGIN, BODY_TOP + 0.6, WIDTH - 2 * MARGIN, BODY_H - 0.6)
    deck.image_grid(slide, tiles, captions, box, columns=6)


def _misclassified(path: Path, name: str, classes: int) -> list[tuple[str, int, int, float]] | None:
    try:
        with open(path, newline="", encoding="utf-8") as f:
            rows = list(csv.reader(f))
    except OSError:
        return None
    if len(rows) < 2:
        return None
    header = [h.split(":")[0] for h in rows[0]]
    outputs = [k for k, h in enumerate(header) if h.startswith(f"{name}__")]
    target = variable_name(name)
    truth = [k for k, h in enumerate(header) if h == target or h.startswith(f"{target}__")]
    image = next(
        (
            k
            for k, cell in enumerate(rows[1])
            if cell.lower().endswith(_IMAGE_SUFFIXES) and k not in outputs
        ),
        None,
    )
    if len(outputs) < 2 or not truth or image is None:
        return None
    found = []
    for row in rows[1:]:
        scores = np.asarray([float(row[k]) for k in outputs])
        values = [float(row[k]) for k in truth]
        true = int(values[0]) if len(values) == 1 else int(np.argmax(values))
        predicted = int(np.argmax(scores))
        if predicted != true and true < classes:
            found.append((row[image], true, predicted, float(scores[predicted])))
    found.sort(key=lambda item: -item[3])
    return found

"""NNC 1.20's report slides, in its order and with its texts (docs/nnc-behaviour.md §8):
datasets and their examples, network architecture, training procedure, learning curve,
evaluation, references. Each function adds its slides to a :class:`~engine.report.slides.Deck`.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from engine import __version__
from engine.data import DatasetError, open_dataset
from engine.graph.config import SOLVER_REFERENCES
from engine.graph.derive import counted_as
from engine.graph.project_inference import ProjectInference
from engine.graph.statistics import network_statistics
from engine.graph.unit_graph import unit_calls
from engine.layers import find_spec
from engine.layers.spec import STATISTICS
from engine.report import figures
from engine.report.curves import decimate
from engine.report.i18n import QT_TRANSLATE_NOOP, translate
from engine.report.layout import unit_arguments
from engine.report.network_picture import draw_network
from engine.report.slides import BODY_H, BODY_TOP, MARGIN, WIDTH, Deck

__all__ = [
    "dataset_slides",
    "network_slides",
    "optimizer_slides",
    "learning_curve_slide",
    "references_slide",
    "used_datasets",
    "used_networks",
    "SOFTWARE",
]

EXAMPLES = 10  # NNC shows up to ten samples per image variable
SOFTWARE = (
    QT_TRANSLATE_NOOP("Report", "NeuroCanvas {version}, an open-source Neural Network Console"),
    QT_TRANSLATE_NOOP(
        "Report",
        "Neural Network Console (https://dl.sony.com/): the projects, statistics and report "
        "NeuroCanvas follows",
    ),
    QT_TRANSLATE_NOOP(
        "Report",
        "Neural Network Libraries (https://nnabla.org/): the API NeuroCanvas's engine mirrors",
    ),
)
_KINDS = {"image": "Image", "csv": "Matrix", "npy": "Array", "wav": "Audio"}


def used_datasets(plan: Any) -> list[str]:
    """The dataset links the optimizers, monitors and executors use, in the CONFIG's order."""
    used = {
        entry.get("dataset")
        for group in (plan.optimizers, plan.monitors, plan.executors)
        for entry in group
    }
    return [name for name in plan.datasets if name in used]


def used_networks(project: Any, plan: Any) -> list[str]:
    """The drawn networks the config uses (derived Validation/Runtime count as their base),
    then the unit networks their Unit layers call (at any depth), each once: the report shows
    a unit's inside on its own slide, and its layers' papers among the References."""
    names: list[str] = []
    for group in (plan.optimizers, plan.monitors, plan.executors):
        for entry in group:
            base = counted_as(project, entry.get("network", "")) or entry.get("network", "")
            if base in project.network_names and base not in names:
                names.append(base)
    calls = unit_calls(project)
    for name in names:  # grows while it runs: units that units call come last
        for _layer, unit in calls.get(name, []):
            if unit in project.network_names and unit not in names:
                names.append(unit)
    return names


# -- datasets ----------------------------------------------------------------------------------
def dataset_slides(deck: Deck, name: str, info: dict[str, Any]) -> None:
    """``Dataset : <name>`` (rows, variables) and ``Dataset : Examples of variable x in ...``."""

    title = translate("Report", "Dataset : {name}").format(name=name)
    csv = Path(str(info.get("csv", "")))
    try:
        data = open_dataset(csv, normalize=bool(info.get("normalize", True)), cache=False)
    except (DatasetError, OSError) as exc:
        deck.text_slide(
            title,
            [
                translate("Report", "The dataset file is no longer available: {csv}").format(
                    csv=csv
                ),
                f"({_first_line(exc)})",
                translate("Report", "URI : {get}").format(get=info.get("uri", "")),
            ],
        )
        return
    with data:
        lines = [translate("Report", "Number of data : {size:,}").format(size=data.size)]
        for v in data.variables:
            label = v.label if len(v.columns) == 1 else None  # x__0:sepal length names x__0 only
            lines.append(
                translate("Report", "Variable : {name}").format(name=v.name)
                + (f" ({label})" if label else "")
            )
            kind = _KINDS.get(v.kind) or ("Scalar" if v.shape in (None, (1,)) else "Tensor")
            lines.append(translate("Report", "    Type : {kind}").format(kind=kind))
            if kind != "Scalar" and v.shape is not None:
                lines.append(
                    translate("Report", "    Shape : {join}").format(
                        join=", ".join(str(s) for s in v.shape)
                    )
                )
        deck.text_slide(title, lines)
        for v in data.variables:
            if v.is_image:
                _examples_slide(deck, name, data, v.name)


def _examples_slide(deck: Deck, dataset: str, data: Any, variable: str) -> None:
    title = translate("Report", 'Dataset : Examples of variable {variable} in "{dataset}"').format(
        variable=variable, dataset=dataset
    )
    rows = np.random.default_rng(0).choice(data.size, size=min(EXAMPLES, data.size), replace=False)
    rows = np.sort(rows)
    labels = [v.name for v in data.variables if not v.is_file and v.shape in (None, (1,))]
    try:
        batch = data.get_batch(rows)
    except Exception as exc:  # noqa: BLE001 - any unreadable file: say so on the slide
        deck.text_slide(
            title,
            [
                translate("Report", "The example files cannot be read: {first_line}").format(
                    first_line=_first_line(exc)
                )
            ],
        )
        return
    tiles = [figures.tile_png(figures.to_display(batch[variable][k])) for k in range(len(rows))]
    captions = [
        ", ".join(f"{n}={float(batch[n][k].reshape(-1)[0]):g}" for n in labels[:2])
        for k in range(len(rows))
    ]
    box = (MARGIN, BODY_TOP, WIDTH - 2 * MARGIN, BODY_H)
    deck.image_grid(deck.slide(title), tiles, captions, box)


# -- networks ----------------------------------------------------------------------------------
def network_slides(deck: Deck, project: Any, names: Sequence[str]) -> dict[str, dict[str, int]]:
    """``Network Architecture : <name>``: the picture and the eight statistics; returns them."""
    inference = ProjectInference(project, follow=False)
    totals: dict[str, dict[str, int]] = {}
    picture_box = (MARGIN, BODY_TOP, 7.6, BODY_H)
    units = {unit for calls in unit_calls(project).values() for _layer, unit in calls}
    table_box = (MARGIN + 7.9, BODY_TOP, WIDTH - 2 * MARGIN - 7.9, BODY_H)
    try:
        for name in names:
            network = inference.network(name)
            stats = network_statistics(network)
            totals[name] = stats.summary()
            shapes = {layer: result.shape for layer, result in network.results().items()}
            drawn = project.network(name)
            arguments = {layer.name: unit_arguments(project, layer) for layer in drawn.layers
                         if layer.type == "Unit"}  # fmt: skip
            pictures = draw_network(drawn, shapes, *picture_box[2:], arguments=arguments)
            for k, picture in enumerate(pictures or [None]):
                title = translate("Report", "Network Architecture : {name}").format(name=name) + (
                    translate("Report", " (unit)") if name in units else ""
                )
                slide = deck.slide(title + (translate("Report", " (continued)") if k else ""))
                if picture is not None:
                    deck.picture(slide, picture.png, picture_box, (picture.width, picture.height))
                if k == 0:
                    rows = [[s, f"{stats.totals[s]:,}"] for s in STATISTICS]
                    deck.table(
                        slide,
                        [translate("Report", "Type"), translate("Report", "Value")],
                        rows,
                        table_box,
                    )
                    note = (
                        translate("Report", "FLOPs : {flops:,}").format(flops=stats.flops),
                        translate(
                            "Report",
                            "Unique parameters : {unique_parameters:,} ({parameter_bytes:,} bytes)",
                        ).format(
                            unique_parameters=stats.unique_parameters,
                            parameter_bytes=stats.parameter_bytes,
                        ),
                    )
                    top = BODY_TOP + 0.36 * (len(rows) + 1) + 0.3
                    deck.text(slide, note, (table_box[0], top, table_box[2], 1.0), largest=14)
    finally:
        inference.close()
    return totals


# -- training procedure ------------------------------------------------------------------------
def optimizer_slides(deck: Deck, plan: Any) -> None:
    """``Training Procedure : <optimizer>``: NNC's sentences, then the schedule and max epoch."""
    for opt in plan.optimizers:
        params = list(dict(opt.get("solver_parameters") or {}).items())
        k = int(opt.get("update_interval") or 1)
        lines = [
            translate("Report", 'Optimize network "{value}" using "{value2}" dataset.').format(
                value=opt["network"], value2=opt["dataset"]
            ),
            translate("Report", "Batch size : {value:,}").format(value=plan.batch_size * k),
        ]
        if k > 1:
            lines.append(
                translate(
                    "Report",
                    "    by accumulating the result of batch-size {batch_size} by {k} times",
                ).format(batch_size=plan.batch_size, k=k)
            )
        lines.append(translate("Report", "Solver : {value}").format(value=opt["solver"]))
        if params:
            lines.append(
                translate("Report", "Learning rate({value}) : {value2}").format(
                    value=params[0][0], value2=params[0][1]
                )
            )
        lines += [f"{key} : {value}" for key, value in params[1:]]
        decay = float(opt.get("weight_decay") or 0.0)
        lines.append(
            translate("Report", "Weight decay : {decay:g}").format(decay=decay)
            if decay
            else translate("Report", "Weight decay is not applied.")
        )
        lines += schedule_text(opt.get("scheduler") or {})
        lines.append(
            translate("Report", "Max epoch : {max_epoch}").format(max_epoch=plan.max_epoch)
        )
        deck.text_slide(
            translate("Report", "Training Procedure : {value}").format(value=opt["name"]), lines
        )


def schedule_text(s: dict[str, Any]) -> list[str]:
    """The learning-rate schedule in words; nothing for a constant rate."""
    epochs = str(s.get("interval_unit")) in ("0", "epoch")
    unit = translate("Report", "epochs") if epochs else translate("Report", "iterations")
    kind, gamma = s.get("scheduler", "Exponential"), float(s.get("gamma", 1.0))
    lines = []
    if kind == "Exponential" and gamma != 1.0:
        lines.append(
            translate(
                "Report", "The learning rate is multiplied by {gamma:g} every {get} {unit}."
            ).format(gamma=gamma, get=s.get("interval", 1), unit=unit)
        )
    elif kind == "Step" and s.get("steps"):
        steps = ", ".join(str(v) for v in s["steps"])
        lines.append(
            translate(
                "Report", "The learning rate is multiplied by {gamma:g} at {unit} {steps}."
            ).format(gamma=gamma, unit=unit, steps=steps)
        )
    elif kind == "Cosine":
        lines.append(
            translate(
                "Report", "The learning rate follows a cosine curve down to 0 at the last epoch."
            )
        )
    elif kind == "Polynomial":
        lines.append(
            translate(
                "Report",
                "The learning rate decays polynomially (power {float:g}) down to 0 at the last "
                "epoch.",
            ).format(float=float(s.get("power", 1)))
        )
    if str(s.get("warmup", "None")) not in ("None", "", "none"):
        warm_epochs = str(s.get("warmup_unit")) in ("0", "epoch")
        warm_unit = translate("Report", "epochs" if warm_epochs else "iterations")
        lines.append(
            translate("Report", "Linear warm-up over the first {get} {warm_unit}.").format(
                get=s.get("warmup_length"), warm_unit=warm_unit
            )
        )
    return lines


# -- learning curve ----------------------------------------------------------------------------
CURVE_SERIES = (
    (QT_TRANSLATE_NOOP("Report", "cost"), 1),
    (QT_TRANSLATE_NOOP("Report", "training loss"), 2),
    (QT_TRANSLATE_NOOP("Report", "validation loss"), 3),
)


def learning_curve_slide(deck: Deck, curve: Sequence[tuple]) -> None:
    """``Experimental Result : Learning Curve`` as a native chart of learning_curve.csv."""
    title = translate("Report", "Experimental Result : Learning Curve")
    series = [
        (
            translate("Report", name),
            decimate([(float(r[0]), float(r[c])) for r in curve if r[c] is not None]),
        )
        for name, c in CURVE_SERIES
    ]
    series = [(name, points) for name, points in series if points]
    if not series:
        deck.text_slide(
            title,
            [translate("Report", "The job has not finished an epoch: no learning curve yet.")],
        )
        return
    slide = deck.slide(title)
    deck.xy_chart(
        slide,
        series,
        (MARGIN, BODY_TOP, WIDTH - 2 * MARGIN, BODY_H),
        translate("Report", "epoch"),
        translate("Report", "cost / error"),
    )


# -- references --------------------------------------------------------------------------------
def references_slide(deck: Deck, project: Any, networks: Sequence[str], plan: Any) -> None:
    """The software, then each layer type and solver used that has a paper (one place each:
    the layer catalogue and :data:`engine.graph.config.SOLVER_REFERENCES`)."""

    lines = [translate("Report", text).format(version=__version__) for text in SOFTWARE]
    seen: set[str] = set()
    for name in networks:
        for layer in project.network(name).layers:
            spec = find_spec(layer.type)
            if spec is not None and spec.reference and spec.type not in seen:
                seen.add(spec.type)
                lines += [f"{spec.type} - {text.strip()}" for text in spec.reference.split("\n")]
    for opt in plan.optimizers:
        solver = opt.get("solver", "")
        if solver in SOLVER_REFERENCES and solver not in seen:
            seen.add(solver)
            lines.append(f"{solver} - {SOLVER_REFERENCES[solver]}")
    per_slide = 9
    for k in range(0, len(lines), per_slide):
        deck.text_slide(
            translate("Report", "References") + (translate("Report", " (continued)") if k else ""),
            lines[k : k + per_slide],
        )


def _first_line(exc: BaseException) -> str:
    return str(exc).splitlines()[0] if str(exc) else type(exc).__name__

"""Sizes, coordinates and colours of layer boxes: the canvas and the report's network picture.

Qt-free so that the editor (:mod:`console_app.editor`) and the report
(:mod:`engine.report.network_picture`) draw the same boxes at the same places.

Positions in the model are NNC file coordinates; the canvas uses NNC's editor pixels:
editor = file x 20/24 (docs/formats.md §1.4), so NNC's 24-unit file grid is a 20 px grid here.
A layer box fills the top of its 200 x 40 px grid cell and leaves a gap for the links.
"""

from __future__ import annotations

from collections.abc import Mapping

from engine.graph.project import Layer, Project
from engine.graph.unit_arguments import arguments_of
from engine.layers.spec import Inputs, LayerSpec, Outputs

FILE_TO_SCENE = 20 / 24
GRID = 20.0  # px; 24 file units
BOX_W = 200.0  # 240 file units
BOX_H = 30.0
CELL_H = 40.0  # 48 file units: the vertical pitch of Sony's samples
PIN_R = 5.0
PIN_STEP = 15.0
STAT_X = BOX_W + 8.0  # where the statistic next to a box starts
STAT_BAR_W = 70.0


def to_scene(position: tuple[float, float]) -> tuple[float, float]:
    return position[0] * FILE_TO_SCENE, position[1] * FILE_TO_SCENE


def to_file(x: float, y: float) -> tuple[float, float]:
    """File coordinates of a scene point, as integers when they are whole (Sony writes ints)."""
    fx, fy = x / FILE_TO_SCENE, y / FILE_TO_SCENE
    return _tidy(fx), _tidy(fy)


def snap(x: float, y: float) -> tuple[float, float]:
    return round(x / GRID) * GRID, round(y / GRID) * GRID


def _tidy(value: float) -> float:
    rounded = round(value, 6)
    return int(rounded) if float(rounded).is_integer() else rounded


def link_bend(start: tuple[float, float], end: tuple[float, float]) -> float:
    """How far a link leaves its output downwards and enters its input from above (the
    control points of its cubic curve). A link that runs far sideways bends more, but never
    much beyond its drop: a W/b quantizer's wire into its layer's pin, a row lower, stays in
    the gap between the rows instead of looping up through the boxes beside the pin."""
    dx, dy = abs(end[0] - start[0]), abs(end[1] - start[1])
    return max(12.0, dy / 2, min(dx / 4, 12.0 + dy))


def side_pin_xs(count: int) -> list[float]:
    """x of each side connector on the top edge, left to right, clear of the main input.

    They fill the right half first (the name is drawn on the left), as NNC's boxes do.
    """
    xs: list[float] = []
    x = BOX_W - 12.0
    while len(xs) < count:
        if abs(x - BOX_W / 2) >= PIN_STEP:
            xs.append(x)
        x -= PIN_STEP
    return sorted(xs)


# Categories without a colour in the catalogue get one here (display only).
CATEGORY_COLORS = {
    "IO": 0x5B9E5B,
    "Loss": 0xC9A13B,
    "Normalization": 0x8FA6C9,
    "Others": 0x9A9A9A,
    "Others(Pre Process)": 0x9A9A9A,
    "Math": 0x848484,
    "Trigonometric": 0x848484,
    "Validation": 0xC9A13B,
    "Quantize": 0xB38BB8,
    "Spectral": 0x848484,
    "Setting": 0x707070,
    "Unit": 0x6AA1BD,
}
UNKNOWN_COLOR = 0xB04040


def color_of(spec: LayerSpec | None) -> int:
    """The 0xRRGGBB colour of a layer type's stripe (red for an unknown type)."""
    if spec is None:
        return UNKNOWN_COLOR
    return spec.color or CATEGORY_COLORS.get(spec.category, 0x9A9A9A)


def important_text(
    layer: Layer, spec: LayerSpec | None, arguments: Mapping[str, str] | None = None
) -> str:
    """``Label : value`` of the properties shown on the box, as raw text (defaults included).

    A Unit layer also shows the value of each argument of the unit it calls (``arguments``:
    name -> the unit's default, from :func:`unit_arguments`), as set on the layer or else the
    default, as a layer shows its main properties (``Net : ConvBlock   OutMaps : 32``).
    """
    if spec is None:
        return f"unknown type {layer.type}"
    parts = []
    for prop in spec.properties:
        if prop.important and prop.editable:
            value = layer.properties.get(prop.name, prop.default)
            parts.append(f"{prop.label} : {value}")
    for name, default in (arguments or {}).items():
        parts.append(f"{name} : {layer.properties.get(name, default)}")
    return "   ".join(parts)


def unit_arguments(project: Project, layer: Layer) -> dict[str, str]:
    """The arguments of the unit a Unit layer calls, with their defaults (empty otherwise)."""
    name = layer.properties.get("Network", "") if layer.type == "Unit" else ""
    if not name or not project.has_network(name):
        return {}
    return {a.name: a.value for a in arguments_of(project.network(name)).values()}


def pin_points(spec: LayerSpec | None) -> list[tuple[str, int, str, float, float]]:
    """(kind, index, label, x, y) of each pin in box coordinates; kind is ``in`` or ``out``.

    ``in`` pin 0 is the main input (top centre), pins 1.. the side connectors; ``out`` is the
    bottom centre.
    """
    pins: list[tuple[str, int, str, float, float]] = []
    if spec is None or spec.inputs is not Inputs.NONE:
        pins.append(("in", 0, "", BOX_W / 2, 0.0))
    if spec is not None:
        xs = side_pin_xs(len(spec.connectors))
        for k, (connector, x) in enumerate(zip(spec.connectors, xs, strict=True), start=1):
            pins.append(("in", k, connector.label, x, 0.0))
    if spec is None or spec.outputs is not Outputs.NONE:
        pins.append(("out", 0, "", BOX_W / 2, BOX_H))
    return pins

"""The network as the canvas shows it, drawn with matplotlib (Agg) instead of Qt.

Boxes sit at the project's own positions (:mod:`engine.report.layout`, the editor's geometry)
with the type colour stripe, the name, the important properties and the output shape beside the
box; links leave the output downwards and enter the input from above, as on the canvas. Sizes
follow the canvas at 100 % zoom (one scene pixel = 1/96 inch, the editor's 8.5 pt names), scaled
to the space given. A network too tall to stay legible (below ``MIN_ZOOM``) is cut between rows
of layers into several pictures; links that cross a cut run off the edge of both.
"""

from __future__ import annotations

import io
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.patches import FancyBboxPatch, PathPatch, Polygon, Rectangle
from matplotlib.path import Path as MplPath

from engine.core.numbers import shape_text
from engine.graph.network import Layer, Network
from engine.layers import find_spec
from engine.report import layout as g

__all__ = ["NetworkPicture", "draw_network", "MIN_ZOOM"]

PX_PER_INCH = 96.0  # the canvas at 100 % zoom
MIN_ZOOM = 0.8  # below this the 8.5 pt names shrink under ~7 pt: split instead
MAX_ZOOM = 1.3
MARGIN = 14.0  # scene px around the drawing
STAT_W = 110.0  # scene px kept right of the box for the output shape


@dataclass(frozen=True)
class NetworkPicture:
    """One PNG of (part of) a network and its size in inches at the zoom it was drawn."""

    png: bytes
    width: float
    height: float
    layers: tuple[str, ...]  # the layers whose boxes it shows, top to bottom


def _hex(color: int) -> str:
    return f"#{color:06x}"


def _boxes(network: Network) -> dict[str, tuple[float, float]]:
    return {layer.name: g.to_scene(layer.position) for layer in network.layers}


def _bands(tops: list[float], page_px: float) -> list[tuple[float, float]]:
    """Cut the sorted layer tops into y ranges no taller than ``page_px``, in the gaps between
    rows of boxes (a row taller than a page gets a page of its own)."""
    bands: list[tuple[float, float]] = []
    start = tops[0] - MARGIN
    bottom = tops[0] + g.BOX_H  # lowest box edge so far in this band
    for y in tops[1:]:
        if y + g.BOX_H + MARGIN - start > page_px and y >= bottom:
            cut = (bottom + y) / 2
            bands.append((start, cut))
            start = cut
        bottom = max(bottom, y + g.BOX_H)
    bands.append((start, bottom + MARGIN))
    return bands


def draw_network(
    network: Network,
    shapes: Mapping[str, Sequence[int] | None],
    max_width: float,
    max_height: float,
    dpi: int = 200,
    arguments: Mapping[str, Mapping[str, str]] | None = None,
) -> list[NetworkPicture]:
    """Pictures of ``network`` that fit ``max_width`` x ``max_height`` inches each.

    ``shapes``: layer name -> output shape (batch axis excluded), shown beside each box;
    ``arguments``: Unit layer name -> its unit's arguments (:func:`layout.unit_arguments`),
    whose values the box shows.
    """
    boxes = _boxes(network)
    if not boxes:
        return []
    x0 = min(x for x, _ in boxes.values()) - MARGIN
    x1 = max(x for x, _ in boxes.values()) + g.STAT_X + STAT_W
    tops = sorted(y for _, y in boxes.values())
    y0, y1 = tops[0] - MARGIN, tops[-1] + g.BOX_H + MARGIN
    zoom = min(MAX_ZOOM, max_width * PX_PER_INCH / (x1 - x0))
    if (y1 - y0) * zoom / PX_PER_INCH > max_height:
        fit = max_height * PX_PER_INCH / (y1 - y0)
        zoom = fit if fit >= MIN_ZOOM else min(zoom, max(MIN_ZOOM, fit))
    bands = _bands(tops, max_height * PX_PER_INCH / zoom)
    args = arguments or {}
    return [_render(network, boxes, shapes, args, (x0, x1), band, zoom, dpi) for band in bands]


def _render(
    network: Network,
    boxes: Mapping[str, tuple[float, float]],
    shapes: Mapping[str, Sequence[int] | None],
    arguments: Mapping[str, Mapping[str, str]],
    xs: tuple[float, float],
    ys: tuple[float, float],
    zoom: float,
    dpi: int,
) -> NetworkPicture:
    width = (xs[1] - xs[0]) * zoom / PX_PER_INCH
    height = (ys[1] - ys[0]) * zoom / PX_PER_INCH
    figure = Figure(figsize=(width, height), dpi=dpi)
    FigureCanvasAgg(figure)
    ax = figure.add_axes((0, 0, 1, 1))
    ax.set_xlim(*xs)
    ax.set_ylim(ys[1], ys[0])  # scene y grows downwards
    ax.set_axis_off()
    for link in network.links:
        if link.source in boxes and link.destination in boxes:
            _draw_link(ax, network, boxes, link.source, link.destination, link.dest_pin, zoom)
    shown = []
    for layer in network.layers:
        x, y = boxes[layer.name]
        if ys[0] <= y + g.BOX_H / 2 < ys[1]:
            _draw_box(ax, layer, x, y, shapes.get(layer.name), zoom, arguments.get(layer.name))
            shown.append((y, layer.name))
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=dpi, facecolor="white")
    return NetworkPicture(buffer.getvalue(), width, height, tuple(n for _, n in sorted(shown)))


def _pin(layer: Layer, kind: str, index: int) -> tuple[float, float]:
    for k, i, _label, x, y in g.pin_points(find_spec(layer.type)):
        if (k, i) == (kind, index):
            return x, y
    return g.BOX_W / 2, (0.0 if kind == "in" else g.BOX_H)


def _draw_link(ax, network, boxes, source, destination, pin, zoom) -> None:  # noqa: ANN001
    sx, sy = _pin(network.layer(source), "out", 0)
    dx, dy = _pin(network.layer(destination), "in", pin)
    start = (boxes[source][0] + sx, boxes[source][1] + sy)
    end = (boxes[destination][0] + dx, boxes[destination][1] + dy)
    bend = g.link_bend(start, end)
    path = MplPath(
        [start, (start[0], start[1] + bend), (end[0], end[1] - bend), end],
        [MplPath.MOVETO, MplPath.CURVE4, MplPath.CURVE4, MplPath.CURVE4],
    )
    color = "#505050" if pin == 0 else "#7878a0"
    ax.add_patch(PathPatch(path, fill=False, edgecolor=color, linewidth=1.3 * zoom * 0.75))
    size = 5.0
    ax.add_patch(
        Polygon(
            [end, (end[0] - size * 0.6, end[1] - size), (end[0] + size * 0.6, end[1] - size)],
            closed=True,
            color=color,
            linewidth=0,
        )
    )


def _draw_box(ax, layer: Layer, x: float, y: float, shape, zoom: float,  # noqa: ANN001
              arguments: Mapping[str, str] | None = None) -> None:  # fmt: skip
    spec = find_spec(layer.type)
    pt = zoom  # 1 scene px = 0.75 pt at 100 %: the canvas's point sizes times the zoom
    ax.add_patch(
        FancyBboxPatch(
            (x, y),
            g.BOX_W,
            g.BOX_H,
            boxstyle="round,pad=0,rounding_size=3",
            facecolor="#fcfcfa",
            edgecolor="#5a5a5a",
            linewidth=0.75 * pt,
        )
    )
    ax.add_patch(Rectangle((x + 1, y + 1), 7, g.BOX_H - 2, color=_hex(g.color_of(spec)), lw=0))
    ax.text(
        x + 12,
        y + 8.5,
        layer.name,
        fontsize=8.5 * pt,
        fontweight="bold",
        va="center",
        color="#141414",
        clip_on=True,
    )
    subtitle = _elide(g.important_text(layer, spec, arguments), (g.BOX_W - 16) / (7.0 * 0.55))
    if subtitle:
        ax.text(x + 12, y + 22, subtitle, fontsize=7.0 * pt, va="center", color="#505050")
    for _kind, _index, label, px, py in g.pin_points(spec):
        radius = g.PIN_R if label else g.PIN_R - 1.5
        ax.add_patch(
            FancyBboxPatch(
                (x + px - radius, y + py - radius),
                2 * radius,
                2 * radius,
                boxstyle=f"round,pad=0,rounding_size={radius}",
                linewidth=0.75 * pt,
                facecolor="white" if label else "#787878",
                edgecolor="#464646",
            )
        )
        if label:
            ax.text(x + px, y + py, label[:2], fontsize=5.0 * pt, ha="center", va="center")
    if shape is not None:
        text = shape_text(shape)
        ax.text(x + g.STAT_X, y + 9, text, fontsize=7.0 * pt, va="center", color="#282828")


def _elide(text: str, max_chars: float) -> str:
    """Cut ``text`` to about ``max_chars`` characters with an ellipsis (the canvas elides too)."""
    limit = max(4, math.floor(max_chars))
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"

"""Sizes and coordinates of the canvas.

Positions in the model are NNC file coordinates; the canvas uses NNC's editor pixels:
editor = file x 20/24 (nnc-formats.md §1.4), so NNC's 24-unit file grid is a 20 px grid here.
A layer box fills the top of its 200 x 40 px grid cell and leaves a gap for the links.
"""

from __future__ import annotations

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

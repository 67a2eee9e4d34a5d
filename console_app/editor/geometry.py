"""Sizes and coordinates of the canvas: :mod:`engine.report.layout`, shared with the report."""

from engine.report.layout import (  # noqa: F401
    BOX_H,
    BOX_W,
    CELL_H,
    FILE_TO_SCENE,
    GRID,
    PIN_R,
    PIN_STEP,
    STAT_BAR_W,
    STAT_X,
    side_pin_xs,
    snap,
    to_file,
    to_scene,
)

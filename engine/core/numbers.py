"""How the engine and the app write numbers and shapes as text: one function per style, so a
message, a file and a table that show the same value show it alike.

* :func:`shape_text` ``3,28,28``: NNC's own way (statistics, problems, the property pane).
* :func:`shape_in_parens` ``(3, 28, 28)``: shapes in messages about datasets and parameters.
* :func:`float_text` Python's shortest round-trip text (``0.1``, ``1e-05``): CSV and YAML files
  read back exactly.
* :func:`float32_text` the shortest text of a value as a float32 (``0.001``, not
  ``0.0010000000474974513``): solver settings read from nnabla files, as NNC writes them.
* :func:`whole_number_text` integral values without ``.0`` (``1``, ``0.5``): positions in
  ``.sdcproj`` files and the bounds CONFIG names in its messages.
* :func:`short_float` six significant digits (``0.123457``): errors and costs in tables.
* :func:`count_text` thousands separators (``4,217,995``): statistics shown to people.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

__all__ = [
    "count_text",
    "float32_text",
    "float_text",
    "shape_in_parens",
    "shape_text",
    "short_float",
    "whole_number_text",
]


def shape_text(shape: object) -> str:
    """``3,28,28`` for a shape (a tuple or list of sizes); anything else as ``str``."""
    if isinstance(shape, tuple | list):
        return ",".join(map(str, shape))
    return str(shape)


def shape_in_parens(shape: Iterable[int]) -> str:
    """``(3, 28, 28)``; a one-dimensional shape is ``(10)``."""
    return "(" + ", ".join(str(n) for n in shape) + ")"


def float_text(value: float | None) -> str:
    """Python's shortest text that reads back as the same float; empty for None."""
    return "" if value is None else repr(float(value))


def float32_text(value: object) -> str:
    """A float as its float32's shortest text; a bool as ``1``/``0``; anything else as ``str``."""
    if isinstance(value, bool):
        return "1" if value else "0"
    return str(np.float32(value)) if isinstance(value, float) else str(value)


def whole_number_text(value: float | None) -> str:
    """An integer, or a float holding one exactly (below 2**53), without a decimal point;
    other values as Python writes them (``0.5``, ``1e+20``, ``None``)."""
    if isinstance(value, int) or (
        isinstance(value, float) and value.is_integer() and abs(value) < 2**53
    ):
        return str(int(value))
    return repr(value)


def short_float(value: float | None) -> str:
    """Six significant digits (``0.123457``, ``1.5e-07``); empty for None."""
    return "" if value is None else f"{value:.6g}"


def count_text(value: object) -> str:
    """A count with thousands separators (``4,217,995``); anything else as ``str``, blank for
    None (a statistic not known)."""
    return f"{value:,}" if isinstance(value, int) else str(value or "")

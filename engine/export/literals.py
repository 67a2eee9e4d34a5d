"""Safe pieces of generated source: identifiers, literals and comments from project text.

Nothing from a project file is pasted into generated code unescaped: names become identifiers
made of ``[a-z0-9_]`` only, strings are written with ``repr()``, numbers are checked to be plain
finite ``int``/``float``/``bool`` values, and comments are ``ascii()``-escaped on one line.
"""

from __future__ import annotations

import keyword
import math
import re

from engine.layers.errors import ExportError

__all__ = ["ExportError", "Identifiers", "comment", "doc", "literal"]


class Identifiers:
    """Valid, unique Python identifiers for project names (``"Conv 1"`` -> ``conv_1``)."""

    def __init__(self, reserved: tuple[str, ...] = ()) -> None:
        self._used: set[str] = set(reserved)

    def new(self, name: str, prefix: str = "h") -> str:
        base = re.sub(r"[^0-9a-z_]+", "_", name.lower()).strip("_") or prefix
        if base[0].isdigit() or keyword.iskeyword(base) or base.startswith("__"):
            base = f"{prefix}_{base}"
        ident, n = base, 2
        while ident in self._used:
            ident, n = f"{base}_{n}", n + 1
        self._used.add(ident)
        return ident


def literal(value: object) -> str:
    """Python source for a property value: bool, int, finite float, str, None, tuple, list.

    Raises:
        ExportError: any other type, or a NaN/infinite number.
    """
    if value is None or isinstance(value, bool):
        return repr(value)
    if isinstance(value, int):
        return repr(int(value))
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ExportError(f"cannot write the number {value!r}")
        return repr(float(value))
    if isinstance(value, str):
        return repr(str(value))
    if isinstance(value, tuple):
        items = ", ".join(literal(v) for v in value)
        return f"({items},)" if len(value) == 1 else f"({items})"
    if isinstance(value, list):
        return "[" + ", ".join(literal(v) for v in value) + "]"
    if hasattr(value, "item") and getattr(value, "shape", None) == ():  # numpy scalar
        return literal(value.item())  # type: ignore[attr-defined]
    raise ExportError(f"cannot write a value of type {type(value).__name__}")


def comment(text: str) -> str:
    """``text`` safe on one comment line (newlines and control characters escaped)."""
    return ascii(str(text))[1:-1]


def doc(text: str) -> str:
    """``text`` safe inside a triple-quoted docstring: escaped like :func:`comment`, and
    double quotes written as ``\\x22`` so no ``\"\"\"`` can end the docstring."""
    return comment(text).replace('"', "\\x22")

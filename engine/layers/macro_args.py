"""What NNC's shape macros share: reading a layer's list, integer, axis and flag properties
with one clear :class:`ShapeError` when a rule cannot apply (used by :mod:`engine.layers.macros`
and :mod:`engine.layers.macros_axes`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from engine.layers.evaluate import LayerEval

__all__ = ["Shape", "ShapeError", "axis_of", "flag", "integer", "ints", "joined", "output_of"]

Shape = tuple[int, ...]


class ShapeError(ValueError):
    """A shape rule that cannot be applied to the layer's inputs or properties."""


def ints(ev: LayerEval, name: str, n: int | None = None) -> tuple[int, ...]:
    """A list property, checked to have ``n`` entries (one per kernel axis)."""
    value = ev.value(name)
    items = value if isinstance(value, tuple) else (value,)
    if n is not None and len(items) != n:
        raise ShapeError(
            f"{name} needs {n} entries (one per kernel axis). Received: {name}={joined(items)}"
        )
    return tuple(int(v) for v in items)


def integer(ev: LayerEval, name: str) -> int:
    """An integer property (numbers only; the property type has checked it)."""
    value = ev.value(name)
    if isinstance(value, tuple) and len(value) == 1:
        value = value[0]
    if not isinstance(value, int | float):
        raise ShapeError(f"{name} must be a number. Received: {name}={value}")
    return int(value)


def output_of(ev: LayerEval) -> Shape:
    shape = ev.output_shape()
    if shape is None:
        raise ShapeError(f"layer type {ev.spec.type} has no output")
    return shape


def joined(shape: tuple) -> str:
    return ",".join(str(v) for v in shape)


def axis_of(ev: LayerEval, name: str, rank: int) -> int:
    axis = integer(ev, name)
    if not 0 <= axis < rank:
        raise ShapeError(
            f"{name}={axis} is not an axis of the input {joined(ev.input_shape)} "
            f"(axes 0..{rank - 1}, batch excluded)"
        )
    return axis


def flag(ev: LayerEval, name: str) -> bool:
    return bool(ev.value(name)) if ev.spec.prop(name) else False

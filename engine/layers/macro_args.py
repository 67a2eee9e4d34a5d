"""What NNC's shape macros share: reading a layer's list, integer, axis and flag properties
with one clear :class:`ShapeError` when a rule cannot apply (used by :mod:`engine.layers.macros`
and :mod:`engine.layers.macros_axes`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.core.messages import QT_TRANSLATE_NOOP
from engine.core.numbers import shape_text

if TYPE_CHECKING:
    from engine.layers.evaluate import LayerEval

__all__ = ["Shape", "ShapeError", "axis_of", "flag", "integer", "ints", "output_of"]

Shape = tuple[int, ...]


class ShapeError(ValueError):
    """A shape rule that cannot be applied to the layer's inputs or properties."""


def ints(ev: LayerEval, name: str, n: int | None = None) -> tuple[int, ...]:
    """A list property, checked to have ``n`` entries (one per kernel axis)."""
    value = ev.value(name)
    items = value if isinstance(value, tuple) else (value,)
    if n is not None and len(items) != n:
        raise ShapeError(
            QT_TRANSLATE_NOOP(
                "Problems",
                "{name} needs {n} entries (one per kernel axis). Received: {name}={items}",
            ).format(name=name, n=n, items=shape_text(items))
        )
    return tuple(int(v) for v in items)


def integer(ev: LayerEval, name: str) -> int:
    """An integer property (numbers only; the property type has checked it)."""
    value = ev.value(name)
    if isinstance(value, tuple) and len(value) == 1:
        value = value[0]
    if not isinstance(value, int | float):
        raise ShapeError(
            QT_TRANSLATE_NOOP(
                "Problems", "{name} must be a number. Received: {name}={value}"
            ).format(name=name, value=value)
        )
    return int(value)


def output_of(ev: LayerEval) -> Shape:
    shape = ev.output_shape()
    if shape is None:
        raise ShapeError(
            QT_TRANSLATE_NOOP("Problems", "layer type {type} has no output").format(
                type=ev.spec.type
            )
        )
    return shape


def axis_of(ev: LayerEval, name: str, rank: int) -> int:
    axis = integer(ev, name)
    if not 0 <= axis < rank:
        raise ShapeError(
            QT_TRANSLATE_NOOP(
                "Problems",
                "{name}={axis} is not an axis of the input {x} (axes 0..{last}, batch excluded)",  # noqa: E501 - one string for the catalogue
            ).format(name=name, axis=axis, x=shape_text(ev.input_shape), last=rank - 1)
        )
    return axis


def flag(ev: LayerEval, name: str) -> bool:
    return bool(ev.value(name)) if ev.spec.prop(name) else False

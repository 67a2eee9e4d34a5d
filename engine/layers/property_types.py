"""Property types of NNC layers: parse a raw property string into a typed value, and back.

The types and their meaning are in docs/layers.md §1.3. Parsing here is strict and literal: a
macro (``*KernelShape``), an argument name (``DropP``) or an expression (``Input[0]/4``) is not a
literal and is resolved by :mod:`engine.layers.evaluate`, which then hands the result to
:meth:`PropertyType.coerce` for the same checks.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from engine.core.messages import QT_TRANSLATE_NOOP

__all__ = [
    "PropertyType",
    "PropertyValueError",
    "MAX_INT",
    "Value",
    "TYPES",
    "PINT",
    "PINT_ARRAY",
    "UINT",
    "UINT_ARRAY",
    "INT",
    "INT_ARRAY",
    "PINT_ARRAYS",
    "FLOAT",
    "NONNEGATIVE_FLOAT",
    "FLOAT_ARRAY",
    "FLOAT_ARRAYS",
    "BOOLEAN",
    "BOOLEAN_OR_MACRO",
    "OPTION",
    "TEXT",
    "FILE",
    "DATASET",
    "is_macro",
    "format_value",
]

# A resolved property value: a number, a flag, a text, a shape or a list of shapes.
Value = int | float | bool | str | tuple

_INT = re.compile(r"[+-]?\d+")
_FLOAT = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?|[+-]?(inf|nan)", re.IGNORECASE)


# The largest integer a property may be given: shapes, sizes and seeds are int32 in nnabla's
# protobuf files, and a bigger size could never be allocated (nor its statistics be true).
MAX_INT = 2**31 - 1
# Computed integers (a size from an expression, a statistic) stay exact floats.
MAX_COMPUTED_INT = 2**53


def _literal(number: float, prop: str, what: str, raw: str) -> float:
    if abs(number) > MAX_INT:
        raise _fail(prop, _at_most(what, MAX_INT), _shorten(raw))
    return number


def _shorten(raw: str) -> str:
    return raw if len(raw) <= 40 else f"{raw[:20]}...({len(raw)} characters)"


class PropertyValueError(ValueError):
    """A property value that does not fit its type. The message names the property and value."""


def is_macro(raw: str) -> bool:
    """True for ``*Name``-style macro values, which are kept raw and resolved later."""
    return raw.startswith("*")


def _fail(name: str, expected: str, raw: object) -> PropertyValueError:
    shown = raw if isinstance(raw, str) else format_value(raw)  # type: ignore[arg-type]
    message = QT_TRANSLATE_NOOP("Problems", "property {name}: expected {expected}. Received: {name}={shown}")  # fmt: skip # noqa: E501 - one line for lupdate
    return PropertyValueError(message.format(name=name, expected=expected, shown=shown))


_LIST_OF = QT_TRANSLATE_NOOP("Problems", "a comma-separated list of {what}")


def _at_most(what: str, bound: int) -> str:
    return QT_TRANSLATE_NOOP("Problems", "{what} of at most {bound}").format(
        what=what, bound=f"{bound:,}"
    )


def format_value(value: Value) -> str:
    """The text NNC writes for a value: ``True``, ``3,3``, ``(3,8,8),(3,8,8)``, ``0.5``."""
    if isinstance(value, bool):
        return "True" if value else "False"
    if isinstance(value, tuple):
        if value and isinstance(value[0], tuple):
            return ",".join("(" + format_value(v) + ")" for v in value)
        return ",".join(format_value(v) for v in value)
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e16:
        return repr(value)
    return str(value)


def _to_int(x: object) -> int | None:
    """An integer from an int, an integral float or (for results of ``/``) a float rounded down.

    NNC does not say whether ``/`` in an expression is integer division (docs/layers.md §1.5);
    Sony's samples only divide exactly. We keep exact division and round a fractional result
    down where an integer is required, as a C-style integer division would for sizes.
    """
    if isinstance(x, bool):
        return None
    if isinstance(x, int):
        return x
    if isinstance(x, float) and math.isfinite(x):
        return math.floor(x)
    return None


@dataclass(frozen=True)
class PropertyType:
    """Base: a type named as in NNC's definition files (``Type=PIntArray``)."""

    name: str

    def parse(self, raw: str, prop: str = "value") -> Value:
        """The typed value of a literal ``raw`` string; raises :class:`PropertyValueError`."""
        return raw

    def coerce(self, value: Value, prop: str = "value") -> Value:
        """Checks a value computed by an expression or macro and converts it to this type."""
        if isinstance(value, str):
            return self.parse(value, prop)
        return value

    def is_literal(self, raw: str) -> bool:
        try:
            self.parse(raw)
        except PropertyValueError:
            return False
        return True


@dataclass(frozen=True)
class _Text(PropertyType):
    """Text, File, Dataset and Option values: any string (the spec checks Option choices)."""

    def coerce(self, value: Value, prop: str = "value") -> Value:
        return value if isinstance(value, str) else format_value(value)


@dataclass(frozen=True)
class _Int(PropertyType):
    minimum: int | None = None
    what: str = QT_TRANSLATE_NOOP("Problems", "an integer")

    def parse(self, raw: str, prop: str = "value") -> Value:
        text = raw.strip()
        if len(text) > 24:  # beyond any bound below, and Python's int() refuses 4300+ digits
            raise _fail(prop, _at_most(self.what, MAX_INT), _shorten(raw))
        if not _INT.fullmatch(text):
            # NNC's editor writes integers, but a value like ``2.0`` is accepted by its parser.
            if _FLOAT.fullmatch(text) and float(text).is_integer():
                return self.coerce(_literal(float(text), prop, self.what, raw), prop)
            raise _fail(prop, self.what, raw)
        return self.coerce(_literal(int(text), prop, self.what, raw), prop)

    def coerce(self, value: Value, prop: str = "value") -> Value:
        if isinstance(value, str):
            return self.parse(value, prop)
        if isinstance(value, tuple) and len(value) == 1:
            value = value[0]
        number = _to_int(value)
        if number is None or (self.minimum is not None and number < self.minimum):
            raise _fail(prop, self.what, value)
        if abs(number) > MAX_COMPUTED_INT:
            raise _fail(prop, _at_most(self.what, MAX_COMPUTED_INT), value)
        return number


@dataclass(frozen=True)
class _IntArray(PropertyType):
    minimum: int | None = None
    what: str = QT_TRANSLATE_NOOP("Problems", "integers")

    def parse(self, raw: str, prop: str = "value") -> Value:
        parts = [p.strip() for p in raw.split(",")]
        if any(len(p) > 24 for p in parts):
            raise _fail(prop, _at_most(self.what, MAX_INT), _shorten(raw))
        if not raw.strip() or not all(_INT.fullmatch(p) for p in parts):
            raise _fail(prop, _LIST_OF.format(what=self.what), raw)
        return self.coerce(tuple(_literal(int(p), prop, self.what, raw) for p in parts), prop)

    def coerce(self, value: Value, prop: str = "value") -> Value:
        if isinstance(value, str):
            return self.parse(value, prop)
        items = value if isinstance(value, tuple) else (value,)
        numbers = tuple(_to_int(v) for v in items)
        if not numbers or any(
            n is None or (self.minimum is not None and n < self.minimum) for n in numbers
        ):
            raise _fail(prop, _LIST_OF.format(what=self.what), value)
        if any(abs(n) > MAX_COMPUTED_INT for n in numbers):  # type: ignore[arg-type]
            raise _fail(prop, _at_most(self.what, MAX_COMPUTED_INT), value)
        return numbers


@dataclass(frozen=True)
class _IntArrays(PropertyType):
    """A list of shapes, ``(3,8,8),(3,8,8)``: the computed ``Inputs`` of multi-input layers."""

    def parse(self, raw: str, prop: str = "value") -> Value:
        groups = re.findall(r"\(([^()]*)\)", raw)
        rest = re.sub(r"\(([^()]*)\)", "", raw).replace(",", "").strip()
        if not groups or rest:
            raise _fail(
                prop, QT_TRANSLATE_NOOP("Problems", "a list of shapes such as (3,8,8),(3,8,8)"), raw
            )
        return tuple(PINT_ARRAY.parse(g, prop) for g in groups)

    def coerce(self, value: Value, prop: str = "value") -> Value:
        if isinstance(value, str):
            return self.parse(value, prop)
        if isinstance(value, tuple) and value and not isinstance(value[0], tuple):
            value = (value,)  # a single shape is a list of one shape
        if not isinstance(value, tuple) or not all(isinstance(v, tuple) for v in value):
            raise _fail(prop, QT_TRANSLATE_NOOP("Problems", "a list of shapes"), value)
        return tuple(PINT_ARRAY.coerce(v, prop) for v in value)


@dataclass(frozen=True)
class _Float(PropertyType):
    """A number; ``minimum`` also excludes NaN and infinity (a rate, a multiplier)."""

    minimum: float | None = None
    what: str = QT_TRANSLATE_NOOP("Problems", "a number")

    def parse(self, raw: str, prop: str = "value") -> Value:
        if not _FLOAT.fullmatch(raw.strip()):
            raise _fail(prop, self.what, raw)
        try:
            return self.coerce(float(raw), prop)
        except PropertyValueError:
            raise _fail(prop, self.what, raw) from None

    def coerce(self, value: Value, prop: str = "value") -> Value:
        if isinstance(value, str):
            return self.parse(value, prop)
        if isinstance(value, tuple) and len(value) == 1:
            value = value[0]
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise _fail(prop, self.what, value)
        number = float(value)
        if self.minimum is not None and not (math.isfinite(number) and number >= self.minimum):
            raise _fail(prop, self.what, value)
        return number


@dataclass(frozen=True)
class _FloatArray(PropertyType):
    def parse(self, raw: str, prop: str = "value") -> Value:
        parts = [p.strip() for p in raw.split(",")]
        if not raw.strip() or not all(_FLOAT.fullmatch(p) for p in parts):
            raise _fail(
                prop, QT_TRANSLATE_NOOP("Problems", "a comma-separated list of numbers"), raw
            )
        return tuple(float(p) for p in parts)

    def coerce(self, value: Value, prop: str = "value") -> Value:
        if isinstance(value, str):
            return self.parse(value, prop)
        items = value if isinstance(value, tuple) else (value,)
        if any(isinstance(v, bool) or not isinstance(v, int | float) for v in items):
            raise _fail(
                prop, QT_TRANSLATE_NOOP("Problems", "a comma-separated list of numbers"), value
            )
        return tuple(float(v) for v in items)


@dataclass(frozen=True)
class _FloatArrays(PropertyType):
    def parse(self, raw: str, prop: str = "value") -> Value:
        groups = re.findall(r"\(([^()]*)\)", raw)
        rest = re.sub(r"\(([^()]*)\)", "", raw).replace(",", "").strip()
        if not groups or rest:
            raise _fail(
                prop,
                QT_TRANSLATE_NOOP("Problems", "a list of number lists such as (0.1,0.2),(0.3)"),
                raw,
            )
        return tuple(FLOAT_ARRAY.parse(g, prop) for g in groups)


@dataclass(frozen=True)
class _Boolean(PropertyType):
    def parse(self, raw: str, prop: str = "value") -> Value:
        text = raw.strip()
        # The editor writes True/False; CONFIG sections use 1/0 (docs/layers.md §1.3).
        if text in ("True", "true", "1"):
            return True
        if text in ("False", "false", "0"):
            return False
        raise _fail(prop, QT_TRANSLATE_NOOP("Problems", "True or False"), raw)

    def coerce(self, value: Value, prop: str = "value") -> Value:
        if isinstance(value, str):
            return self.parse(value, prop)
        if isinstance(value, tuple) and len(value) == 1:
            value = value[0]
        if isinstance(value, bool):
            return value
        if isinstance(value, int | float) and value in (0, 1):
            return bool(value)
        raise _fail(prop, QT_TRANSLATE_NOOP("Problems", "True or False"), value)


PINT = _Int("PInt", 1, QT_TRANSLATE_NOOP("Problems", "a positive integer"))
UINT = _Int("UInt", 0, QT_TRANSLATE_NOOP("Problems", "a non-negative integer"))
INT = _Int("Int", None, QT_TRANSLATE_NOOP("Problems", "an integer"))
PINT_ARRAY = _IntArray("PIntArray", 1, QT_TRANSLATE_NOOP("Problems", "positive integers"))
UINT_ARRAY = _IntArray("UIntArray", 0, QT_TRANSLATE_NOOP("Problems", "non-negative integers"))
INT_ARRAY = _IntArray("IntArray", None, QT_TRANSLATE_NOOP("Problems", "integers"))
PINT_ARRAYS = _IntArrays("PIntArrays")
FLOAT = _Float("Float")
# NNC's Float where only a finite value >= 0 makes sense (LRateMultiplier); not in TYPES.
NONNEGATIVE_FLOAT = _Float("Float", 0.0, QT_TRANSLATE_NOOP("Problems", "a finite number >= 0"))
FLOAT_ARRAY = _FloatArray("FloatArray")
FLOAT_ARRAYS = _FloatArrays("FloatArrays")
BOOLEAN = _Boolean("Boolean")
# BooleanOrMacro differs from Boolean only in what the editor offers: a macro or argument
# reference such as ``*NetworkBS`` next to True/False. Both resolve to a bool.
BOOLEAN_OR_MACRO = _Boolean("BooleanOrMacro")
OPTION = _Text("Option")
TEXT = _Text("Text")
FILE = _Text("File")
DATASET = _Text("Dataset")

TYPES: dict[str, PropertyType] = {
    t.name: t
    for t in (
        PINT, PINT_ARRAY, UINT, UINT_ARRAY, INT, INT_ARRAY, PINT_ARRAYS, FLOAT, FLOAT_ARRAY,
        FLOAT_ARRAYS, BOOLEAN, BOOLEAN_OR_MACRO, OPTION, TEXT, FILE, DATASET,
    )
}  # fmt: skip

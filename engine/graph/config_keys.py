"""A settings section's keys and values: the typed :class:`Key`, the raw :class:`Section` that
keeps NNC's strings, and the strict reading of numbers and booleans (docs/formats.md §1.6-§1.11;
the sections themselves are in :mod:`engine.graph.config`)."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field, replace
from typing import Any, ClassVar, Self, TypeVar

from engine.core.messages import QT_TRANSLATE_NOOP, Message, text_of
from engine.core.numbers import whole_number_text

__all__ = [
    "UNDEFINED", "Key", "Section", "SettingError", "parse_number", "parse_value", "relabel",
]  # fmt: skip

_T = TypeVar("_T")


# NNC's editor writes a value it never set as ``undefined`` (Sony's senet-154 sample has
# ``RangeUnit=undefined``); it reads as the key's default.
UNDEFINED = "undefined"


class SettingError(ValueError):
    """A settings value that cannot be read as its type; the message names section and key."""


@dataclass(frozen=True)
class Key:
    """One known key: its kind (int, float, bool, str), default when missing, allowed values
    and, for numbers, the inclusive range NNC's editor accepts."""

    name: str
    kind: str = "str"
    default: str = ""
    choices: tuple[str, ...] = ()
    minimum: float | None = None
    maximum: float | None = None
    below: bool = False  # the maximum itself is excluded


@dataclass(frozen=True)
class Section:
    """Raw ``key -> value`` strings of one settings section, in file order. Treat as read-only."""

    values: dict[str, str] = field(default_factory=dict)

    SECTION: ClassVar[str] = ""
    KEYS: ClassVar[tuple[Key, ...]] = ()
    # Keys written by a new NNC project, in NNC's order; values override Key.default.
    NEW: ClassVar[tuple[tuple[str, str], ...]] = ()

    @classmethod
    def new(cls, **raw: str) -> Self:
        values = {name: value for name, value in cls.NEW}
        values.update(raw)
        return cls(values)

    @classmethod
    def key(cls, name: str) -> Key | None:
        return next((k for k in cls.KEYS if k.name == name), None)

    def raw(self, name: str) -> str | None:
        """The value as written, or ``None`` when the key is absent."""
        return self.values.get(name)

    def get(self, name: str) -> Any:
        """The typed value of a known key, NNC's default when the key is missing."""
        spec = self.key(name)
        if spec is None:
            raise KeyError(f"[{self.SECTION}] has no known key {name!r}")
        text = self.values.get(name)
        if text is None or text == UNDEFINED:
            text = spec.default
        return parse_value(spec, text, self.SECTION)

    def _typed(self, name: str, kind: type[_T]) -> _T:
        value = self.get(name)
        assert isinstance(value, kind), (name, value)  # Key.kind decides the parsed type
        return value

    def with_value(self, name: str, value: str | None) -> Self:
        """A copy with ``name`` set (appended when new) or removed (``None``)."""
        values = dict(self.values)
        if value is None:
            values.pop(name, None)
        else:
            values[name] = value
        return replace(self, values=values)

    def problems(self) -> list[str]:
        """Human-readable problems with known keys (bad numbers, unknown choices)."""
        found = []
        for spec in self.KEYS:
            if self.values.get(spec.name, UNDEFINED) != UNDEFINED:
                try:
                    parse_value(spec, self.values[spec.name], self.SECTION)
                except SettingError as exc:
                    found.append(text_of(exc))
        return found


def relabel(problem: str, section: str, label: str) -> str:
    """``problem`` with its leading ``section`` (``[Optimizer_<i>]``) replaced by ``label``,
    still a :class:`Message` when it was one (the app shows it in its language)."""
    where = problem.values.get("where") if isinstance(problem, Message) else None
    if isinstance(where, str) and problem.startswith(where):
        return problem.format(where=where.replace(section, label, 1))
    return problem.replace(section, label, 1)


# Numbers as NNC's editor writes them: no ``1_000``, no hex, no thousands of digits (Python's
# int() and float() accept the first and choke on the last); booleans are 1/0 or True/False.
_INT_TEXT = re.compile(r"[+-]?\d{1,18}")
_FLOAT_TEXT = re.compile(r"[+-]?(\d{1,400}\.?\d{0,400}|\.\d{1,400})([eE][+-]?\d{1,4})?")
_BOOL_TEXT = {"1": True, "True": True, "true": True, "0": False, "False": False, "false": False}


def parse_number(text: str, kind: str) -> int | float:
    """``text`` as an int or a finite float, strictly; raises ValueError otherwise."""
    text = text.strip()
    if kind == "int":
        if not _INT_TEXT.fullmatch(text):
            raise ValueError(text)
        return int(text)
    value = float(text) if _FLOAT_TEXT.fullmatch(text) else math.nan
    if not math.isfinite(value):
        raise ValueError(text)
    return value


_EXPECTED = QT_TRANSLATE_NOOP("Problems", "{where}: expected {expected}. Received: {key}={text}")
_ONE_OF = QT_TRANSLATE_NOOP(
    "Problems", "{where}: expected one of {allowed}. Received: {key}={text}"
)
_AN_INTEGER = QT_TRANSLATE_NOOP("Problems", "an integer")
_A_FINITE_NUMBER = QT_TRANSLATE_NOOP("Problems", "a finite number")


def parse_value(spec: Key, text: str, section: str) -> Any:
    """``text`` as ``spec``'s type; a :class:`SettingError` names the section and key."""
    where = f"[{section}] {spec.name}"
    if spec.kind in ("int", "float"):
        try:
            value = parse_number(text, spec.kind)
        except ValueError:
            kind = _AN_INTEGER if spec.kind == "int" else _A_FINITE_NUMBER
            raise SettingError(_EXPECTED.format(where=where, expected=kind, key=spec.name,
                                                text=text)) from None  # fmt: skip
        _check_range(spec, value, where, text)
        return value
    if spec.kind == "bool":
        if text.strip() not in _BOOL_TEXT:
            raise SettingError(_EXPECTED.format(where=where, expected="1 or 0", key=spec.name,
                                                text=text))  # fmt: skip
        return _BOOL_TEXT[text.strip()]
    if spec.choices and text not in spec.choices:
        allowed = ", ".join(spec.choices)
        raise SettingError(_ONE_OF.format(where=where, allowed=allowed, key=spec.name, text=text))
    return text


def _check_range(spec: Key, value: float, where: str, text: str) -> None:
    low, high = spec.minimum, spec.maximum
    under = high is None or value < high or (value == high and not spec.below)
    if (low is None or value >= low) and under:
        return
    # the app's CONFIG form words it the same way
    parts = [] if low is None else [f">= {whole_number_text(low)}"]
    if high is not None:
        parts.append(f"{'<' if spec.below else '<='} {whole_number_text(high)}")
    expected = QT_TRANSLATE_NOOP("Problems", "a value {bounds}").format(bounds=" and ".join(parts))
    raise SettingError(_EXPECTED.format(where=where, expected=expected, key=spec.name, text=text))

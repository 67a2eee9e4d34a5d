"""Checking a property text typed in the property pane before it becomes an edit (no Qt).

A value is accepted when it is a literal of the property's type, or an NNC expression or macro
(``*Name``, ``Input[0]/Ratio``, ``*Calc ...``) whose bare names are known here: ``Input``, the
layer's own properties and the arguments of the network. Anything else is refused with the
reason, in the catalogue's words (``property KernelShape: expected ...``).
"""

from __future__ import annotations

from collections.abc import Iterable

from engine.layers.expr import ExpressionError, Index, Name, Node, is_calc, parse, parse_calc
from engine.layers.property_types import TYPES, PropertyValueError
from engine.layers.spec import PropertySpec

_FREE_TEXT = ("Text", "File", "Dataset")


def check_property(prop: PropertySpec, raw: str, known_names: Iterable[str] = ()) -> str | None:
    """``None`` when ``raw`` may be stored in ``prop``, else the reason it is refused."""
    if raw == "":
        return None if not prop.required else f"property {prop.name}: a value is required"
    if prop.type.name in _FREE_TEXT:
        return None
    if prop.type.name == "Option" and raw.startswith("*"):
        return None
    try:
        prop.parse(raw)
        return None
    except PropertyValueError as exc:
        literal_error = str(exc)
    if prop.type.name == "Option" or not _looks_like_expression(raw):
        return literal_error
    return check_expression(prop.name, raw, known_names)


def check_typed(type_name: str, name: str, raw: str, known_names: Iterable[str] = ()) -> str | None:
    """The same check for a unit argument declared with ``Type=<type_name>``."""
    ptype = TYPES.get("Boolean" if type_name == "BooleanOrMacro" else type_name)
    if raw == "" or ptype is None or type_name in ("Text", "File"):
        return None
    try:
        ptype.parse(raw, name)
        return None
    except PropertyValueError as exc:
        literal_error = str(exc)
    if not _looks_like_expression(raw):
        return literal_error
    return check_expression(name, raw, known_names)


def check_expression(name: str, raw: str, known_names: Iterable[str]) -> str | None:
    try:
        nodes = [node for _, node in parse_calc(raw)] if is_calc(raw) else [parse(raw.strip())]
    except ExpressionError as exc:
        return f"property {name}: {exc}. Received: {name}={raw}"
    known = {"Input", *known_names}
    for node in nodes:
        for ident in _names(node):
            if ident not in known:
                return (
                    f"property {name}: unknown name {ident} (not an argument of this network "
                    f"nor a property). Received: {name}={raw}"
                )
    return None


def _looks_like_expression(raw: str) -> bool:
    return raw.startswith("*") or any(c.isalpha() or c in "[]()/" for c in raw)


def _names(node: Node) -> list[str]:
    """Bare names an expression reads (macros ``*X`` are resolved by the engine)."""
    if isinstance(node, Name):
        return [node.ident]
    if isinstance(node, Index):
        return [node.ident, *_names(node.index)]
    found: list[str] = []
    for child in ("operand", "left", "right"):
        if hasattr(node, child):
            found += _names(getattr(node, child))
    for item in getattr(node, "items", ()):
        found += _names(item)
    return found

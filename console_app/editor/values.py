"""Checking a property text typed in the property pane before it becomes an edit (no Qt).

A value is accepted when it is a literal of the property's type, or an NNC expression or macro
(``*Name``, ``Input[0]/Ratio``, ``*Calc ...``) whose bare names are known here: ``Input``, the
layer's own properties and the arguments of the network. Anything else is refused with the
reason, in the catalogue's words (``property KernelShape: expected ...``).

Inside a unit network (one that declares arguments or that a Unit layer calls) a ``*X``
reference must name an argument of that network or a macro NNC defines for the property
(:func:`macro_rule`): a mistyped ``*Maps`` is refused there instead of failing later.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache

from engine.core.messages import QT_TRANSLATE_NOOP, text_of
from engine.graph.project import Network, Project
from engine.layers import all_specs, find_spec
from engine.layers.expr import (
    ExpressionError,
    Index,
    Macro,
    Name,
    Node,
    is_calc,
    parse,
    parse_calc,
)
from engine.layers.property_types import TYPES, PropertyValueError
from engine.layers.spec import PropertySpec

_FREE_TEXT = ("Text", "File", "Dataset")
# Macros any property may use: the layer's name, its input shape, and the built-in LSTM unit's
# view of the calling layer (NNC's own LSTM unit network uses it).
GENERIC_MACROS = frozenset({"Name", "Input", "UnitProperty"})
_LONE_MACRO = re.compile(r"\*[A-Za-z_]\w*(\(\w+\))?")

_REQUIRED = QT_TRANSLATE_NOOP("Problems", "property {name}: a value is required")


@dataclass(frozen=True)
class MacroRule:
    """The ``*X`` references a property inside a unit network may use."""

    network: str
    arguments: tuple[str, ...]
    builtin: frozenset[str]

    def reason(self, name: str, ident: str, raw: str) -> str | None:
        if ident in self.arguments or ident in self.builtin:
            return None
        declared = ", ".join(self.arguments) if self.arguments else "none"
        return QT_TRANSLATE_NOOP(
            "Problems",
            'property {name}: *{ident} is neither an argument of network "{network}" '
            "(arguments: {declared}) nor an NNC macro of {name}. Received: {name}={raw}",
        ).format(name=name, ident=ident, network=self.network, declared=declared, raw=raw)


def is_unit_network(project: Project, network: Network) -> bool:
    """A network that declares arguments or that a Unit layer calls."""
    if any(layer.type == "Argument" for layer in network.layers):
        return True
    return any(
        layer.type == "Unit" and layer.properties.get("Network") == network.name
        for other in project.networks
        for layer in other.layers
    )


def macro_rule(
    project: Project,
    network: Network,
    layer_type: str,
    prop: str,
    arguments: Iterable[str],
    always: bool = False,
) -> MacroRule | None:
    """The rule for ``prop`` of a ``layer_type`` layer in ``network``; None outside units.

    ``always``: a rule in any network (a Unit layer's argument can only read the caller's
    arguments and the generic macros, wherever the Unit layer is).
    """
    if not always and not is_unit_network(project, network):
        return None
    builtin = set(GENERIC_MACROS) | _default_macros(prop)
    spec = find_spec(layer_type)
    if spec is not None:  # *KernelShape in Strides reads the layer's own KernelShape
        builtin |= {p.name for p in spec.properties if p.name != prop}
    return MacroRule(network.name, tuple(arguments), frozenset(builtin))


@cache
def _default_macros(prop: str) -> frozenset[str]:
    """Macros the catalogue gives a property of this name as default (any layer type)."""
    found: set[str] = set()
    for spec in all_specs():
        declared = spec.prop(prop)
        if declared is not None and declared.default.startswith("*"):
            found |= {m.group(1) for m in re.finditer(r"\*([A-Za-z_]\w*)", declared.default)}
    return frozenset(found)


def check_property(
    prop: PropertySpec,
    raw: str,
    known_names: Iterable[str] = (),
    macros: MacroRule | None = None,
) -> str | None:
    """``None`` when ``raw`` may be stored in ``prop``, else the reason it is refused."""
    if raw == "":
        return None if not prop.required else _REQUIRED.format(name=prop.name)
    if prop.type.name in _FREE_TEXT:
        return _check_lone_macro(prop.name, raw, known_names, macros)
    if prop.type.name == "Option" and raw.startswith("*"):
        return None if macros is None else check_expression(prop.name, raw, known_names, macros)
    try:
        prop.parse(raw)
        return None
    except PropertyValueError as exc:
        literal_error = text_of(exc)
    if prop.type.name == "Option" or not _looks_like_expression(raw):
        return literal_error
    return check_expression(prop.name, raw, known_names, macros)


def check_typed(
    type_name: str,
    name: str,
    raw: str,
    known_names: Iterable[str] = (),
    macros: MacroRule | None = None,
) -> str | None:
    """The same check for a unit argument declared with ``Type=<type_name>``."""
    ptype = TYPES.get("Boolean" if type_name == "BooleanOrMacro" else type_name)
    if raw == "":
        return None
    if ptype is None or type_name in _FREE_TEXT:
        return _check_lone_macro(name, raw, known_names, macros)
    try:
        ptype.parse(raw, name)
        return None
    except PropertyValueError as exc:
        literal_error = text_of(exc)
    if not _looks_like_expression(raw):
        return literal_error
    return check_expression(name, raw, known_names, macros)


def check_expression(
    name: str, raw: str, known_names: Iterable[str], macros: MacroRule | None = None
) -> str | None:
    try:
        nodes = [node for _, node in parse_calc(raw)] if is_calc(raw) else [parse(raw.strip())]
    except ExpressionError as exc:
        return QT_TRANSLATE_NOOP(
            "Problems", "property {name}: {reason}. Received: {name}={raw}"
        ).format(name=name, reason=text_of(exc), raw=raw)
    known = {"Input", *known_names}
    for node in nodes:
        for ident in _names(node):
            if ident not in known:
                return QT_TRANSLATE_NOOP(
                    "Problems",
                    "property {name}: unknown name {ident} (not an argument of this network "
                    "nor a property). Received: {name}={raw}",
                ).format(name=name, ident=ident, raw=raw)
        for ident in _macros(node) if macros is not None else ():
            reason = macros.reason(name, ident, raw)  # type: ignore[union-attr]
            if reason is not None:
                return reason
    return None


def _check_lone_macro(
    name: str, raw: str, known_names: Iterable[str], macros: MacroRule | None
) -> str | None:
    """Text is free, but a lone ``*X`` (``ParameterScope=*Name``) is a reference."""
    if macros is None or not _LONE_MACRO.fullmatch(raw.strip()):
        return None
    return check_expression(name, raw, known_names, macros)


def _looks_like_expression(raw: str) -> bool:
    return raw.startswith("*") or any(c.isalpha() or c in "[]()/" for c in raw)


def _children(node: Node) -> list[Node]:
    children = [getattr(node, c) for c in ("operand", "left", "right") if hasattr(node, c)]
    if isinstance(node, Index):
        children.append(node.index)
    return children + list(getattr(node, "items", ()))


def _names(node: Node) -> list[str]:
    """Bare names an expression reads (macros ``*X`` are checked by :func:`_macros`)."""
    own = [node.ident] if isinstance(node, Name | Index) else []
    return own + [ident for child in _children(node) for ident in _names(child)]


def _macros(node: Node) -> list[str]:
    """The ``*X`` references of an expression."""
    own = [node.ident] if isinstance(node, Macro) else []
    return own + [ident for child in _children(node) for ident in _macros(child)]

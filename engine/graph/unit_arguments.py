"""Unit arguments (docs/nnc-behaviour.md §1).

Argument layers declare a unit's arguments (:func:`arguments_of`); a Unit layer binds them
(:func:`bind_arguments`): its own property of that name, evaluated in the caller (``Input`` is
the Unit layer's input, names are the caller's arguments), else the Argument's ``Value``.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.graph.argument_messages import ARGUMENT, argument_detail
from engine.graph.network import Network
from engine.layers import get_spec
from engine.layers.evaluate import (
    LayerEval,
    RuleError,
    StaticContext,
    auto_value,
)
from engine.layers.property_types import TYPES, Value

__all__ = [
    "ArgumentDecl",
    "ArgumentError",
    "arguments_of",
    "default_arguments",
    "bind_arguments",
]


class ArgumentError(RuleError):
    """An argument value that does not fit its declared type, or an unknown argument type.

    ``prop`` is the argument's name; ``detail`` the message without the place.
    """

    def __init__(self, message: str, prop: str | None = None, detail: str = "") -> None:
        super().__init__(message, prop)
        self.detail = detail or message


@dataclass(frozen=True)
class ArgumentDecl:
    """One Argument layer: the argument's name is the layer's name."""

    name: str
    type: str
    value: str
    search: bool = False


def arguments_of(network: Network) -> dict[str, ArgumentDecl]:
    """The arguments a network declares, in layer order."""
    result = {}
    for layer in network.layers:
        if layer.type == "Argument":
            props = layer.properties
            result[layer.name] = ArgumentDecl(
                layer.name,
                props.get("Type", "Text"),
                props.get("Value", "1"),
                props.get("Search", "False") == "True",
            )
    return result


def default_arguments(
    network: Network, problems: list[ArgumentError] | None = None
) -> dict[str, Value]:
    """Argument values of a network used on its own: each Argument's ``Value``.

    A default may use an argument declared before it (``Maps*2``). Type mismatches are added
    to ``problems`` (see :func:`bind_arguments`).
    """
    values: dict[str, Value] = {}
    for decl in arguments_of(network).values():
        scope = LayerEval(get_spec("Argument"), decl.name, {}, StaticContext(arguments=values))
        where = f'network "{network.name}"'
        values[decl.name] = _argument_value(scope, decl, decl.value, where, problems)
    return values


def bind_arguments(
    unit: LayerEval, network: Network, problems: list[ArgumentError] | None = None
) -> dict[str, Value]:
    """The argument values a Unit layer passes to its unit ``network``.

    A value set on the Unit layer is evaluated in the caller: ``Maps=Input[0]+1`` uses the Unit
    layer's input, ``BS=*NetBS`` the caller's own argument. Unset arguments take the Argument
    layer's ``Value``.

    A value that does not fit the argument's declared type is reported in ``problems`` and
    used as written, as NNC does (Sony's object-detection sample passes 0.6 to a PInt argument
    that feeds a Float property). Without ``problems`` the mismatch raises.
    """
    values: dict[str, Value] = {}
    for decl in arguments_of(network).values():
        given = unit.given(decl.name)
        where = f'unit layer "{unit.name}"'
        if given is None:  # the default, which may use the unit's earlier arguments
            scope = LayerEval(get_spec("Argument"), decl.name, {}, StaticContext(arguments=values))
            values[decl.name] = _argument_value(scope, decl, decl.value, where, problems)
        else:
            values[decl.name] = _argument_value(unit, decl, given, where, problems)
    return values


def _argument_value(
    scope: LayerEval,
    decl: ArgumentDecl,
    raw: str,
    where: str,
    problems: list[ArgumentError] | None,
) -> Value:
    """``raw`` evaluated in ``scope`` and checked against the declared type."""
    where = f"{where}, argument {decl.name}"
    ptype = TYPES.get(decl.type)
    if ptype is None or decl.type == "Text":
        if ptype is None:
            detail = ARGUMENT["unknown"].format(type=decl.type)
            _problem(ArgumentError(f"{where}: {detail}", decl.name, detail), problems)
        return _untyped(scope, raw)
    # BooleanOrMacro values are booleans once resolved.
    target = TYPES["Boolean"] if decl.type == "BooleanOrMacro" else ptype
    try:
        return scope.evaluate(raw, target, decl.name)
    except RuleError as exc:
        detail = ARGUMENT["typed"].format(type=decl.type, detail=argument_detail(exc, decl.name))
        _problem(ArgumentError(f"{where}: {detail}", decl.name, detail), problems)
    return _untyped(scope, raw)


def _untyped(scope: LayerEval, raw: str) -> Value:
    """Numbers and lists stay usable in expressions; other words stay text."""
    value = auto_value(raw)
    if isinstance(value, str) and raw:
        try:
            value = scope.expression(raw)
        except RuleError:
            value = raw
    return value


def _problem(error: ArgumentError, problems: list[ArgumentError] | None) -> None:
    if problems is None:
        raise error
    problems.append(error)

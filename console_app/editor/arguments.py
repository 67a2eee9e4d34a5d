"""Argument layers edited from the property pane: their name, and Value against Type (no Qt).

An argument is named after its Argument layer and referenced by that name (``*Maps``,
``Input[0]/Maps``) inside its network and as a property of every Unit layer that calls the
network (docs/nnc-behaviour.md §1.1-§1.2). Renaming one therefore renames those references in the
same undo step; the name must be an identifier the expression grammar can read, and not one
of the Unit layer's own properties.
"""

from __future__ import annotations

import re

from console_app.editor.create_unit import RESERVED_ARGUMENT_NAMES
from console_app.editor.values import MacroRule, check_typed
from engine.core.messages import QT_TRANSLATE_NOOP
from engine.graph import commands as C
from engine.graph.project import ModelError, Network, Project
from engine.layers import find_spec
from engine.layers.expr import ExpressionError, is_calc, parse

_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def check_argument_name(network: Network, old: str, new: str) -> str | None:
    """Why ``new`` cannot name the argument ``old`` of ``network``, or None."""
    where = f'network "{network.name}", argument "{old}"'
    if not _IDENT.fullmatch(new):
        return (
            f"{where}: an argument name is a letter or _ followed by letters, digits or _ "
            f"(it is referenced as *{new}). Received: {new!r}"
        )
    if new in RESERVED_ARGUMENT_NAMES:
        return f"{where}: {new} is a property of every Unit layer; choose another name"
    if new != old and network.has_layer(new):
        return f'{where}: a layer named "{new}" already exists'
    return None


def check_value(type_name: str, raw: str, known: list[str], macros: MacroRule | None) -> str | None:
    """An Argument's ``Value`` against its ``Type`` (earlier arguments may be used)."""
    return check_typed(type_name, "Value", raw, known, macros)


def check_type(
    type_name: str, value: str, known: list[str], macros: MacroRule | None
) -> str | None:
    """A new ``Type`` is refused while the Argument's ``Value`` does not fit it."""
    reason = check_typed(type_name, "Value", value, known, macros)
    if reason is None:
        return None
    return f"property Type: the Value {value} is not a {type_name} ({reason}); change Value first"


def rename_argument(project: Project, network: Network, old: str, new: str) -> C.Command:
    """Rename the Argument layer ``old`` and every reference to it, as one undo step."""
    reason = check_argument_name(network, old, new)
    if reason is not None:
        raise ModelError(reason)
    steps: list[C.Command] = [C.RenameLayer(network, old, new)]
    for layer in network.layers:
        spec = find_spec(layer.type)
        for key, raw in layer.properties.items():
            prop = spec.prop(key) if spec is not None else None
            free = prop is not None and prop.type.name in ("Text", "File", "Dataset")
            # A bare name is the layer's own property before it is an argument.
            shadowed = spec is not None and spec.prop(old) is not None
            bare = (not free or layer.type == "Argument") and not shadowed
            renamed = _renamed(raw, old, new, bare)
            if renamed != raw:
                steps.append(C.SetProperty(network, layer.name, key, renamed))
    for caller in project.networks:
        for layer in caller.layers:
            calls = layer.type == "Unit" and layer.properties.get("Network") == network.name
            if calls and old in layer.properties:
                value = layer.properties[old]
                steps.append(C.SetProperty(caller, layer.name, old, None))
                steps.append(C.SetProperty(caller, layer.name, new, value))
    return C.Compound(
        QT_TRANSLATE_NOOP("Commands", "Rename argument {old} to {new}").format(old=old, new=new),
        steps,
    )


def _renamed(raw: str, old: str, new: str, bare: bool) -> str:
    """``raw`` with ``*old`` (and, in an expression, the bare name ``old``) renamed."""
    text = re.sub(rf"\*{re.escape(old)}\b", f"*{new}", raw)
    if not bare or is_calc(raw):
        return text
    try:
        parse(raw.strip())
    except ExpressionError:
        return text
    return re.sub(rf"(?<![\w.*]){re.escape(old)}\b", new, text)

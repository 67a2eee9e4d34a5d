"""Create Unit: move a selection into a new unit network and call it from a Unit layer (no Qt).

As NNC's editor does (docs/nnc-behaviour.md §1.4): the selected layers and the links among them move
into a new network, which gets an Input layer where the selection's input came in; in the
caller a Unit layer takes the selection's place, wired to the same neighbours (the links out
keep their order among a consumer's inputs, so Concatenate order is kept). Everything is one
undo step built from the model's commands.

Properties of the selected layers may become unit arguments (:func:`argument_choices`): each
chosen one gets an Argument layer named after the property (made unique), whose ``Value`` is
the property's current value and whose ``Type`` follows the property's type; the inner property
becomes ``*<Argument>`` and the caller's Unit layer passes the value as its property.

The selection must have at most one outside producer (a unit has one input) and one layer whose
output leaves it (a unit has one output), and no side input from outside.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace

from console_app.document import Document
from engine.core.messages import QT_TRANSLATE_NOOP
from engine.graph import commands as C
from engine.graph import unit_arguments
from engine.graph.project import Layer, Link, ModelError, Network, Project
from engine.layers import find_spec, get_spec
from engine.layers.property_types import TYPES
from engine.layers.spec import LayerSpec

UNIT_ORIGIN = (24, 72)  # where the selection's top-left lands in the unit network (file units)
ARGUMENT_TYPES: tuple[str, ...] = get_spec("Argument").prop("Type").options  # type: ignore[union-attr]
# A Unit layer's own properties and the names expressions reserve: no argument may take them.
RESERVED_ARGUMENT_NAMES = frozenset({"Name", "Input", "Output", "Network", "ParameterScope"})
_ARGUMENT_STEP = 48  # file units between stacked Argument layers (one grid row)


@dataclass(frozen=True)
class ArgumentChoice:
    """A property of a selected layer that may become a unit argument."""

    layer: str
    prop: str
    value: str  # the property's current value: the argument's default
    type: str  # the Argument's Type option that fits the property

    @property
    def label(self) -> str:
        return f"{self.layer}.{self.prop} = {self.value} ({self.type})"


@dataclass(frozen=True)
class _Plan:
    layers: list[Layer]
    inner: list[Link]
    incoming: list[Link]
    outgoing: list[tuple[int, Link]]
    source: str | None


def argument_choices(
    network: Network, names: Iterable[str], project: Project | None = None
) -> list[ArgumentChoice]:
    """Editable properties of the selected layers whose value is a literal of their type.

    Macros and expressions (``*ConvolutionPaddingSize``, ``Input[0]*2``) are left out: an
    argument's default cannot read the layer they belong to. A selected Unit layer offers the
    arguments of the unit it calls (read in ``project``), so units nest with their arguments.
    """
    chosen = set(names)
    found = []
    for layer in network.layers:
        spec = find_spec(layer.type) if layer.name in chosen else None
        if spec is None:
            continue
        for prop, type_name, raw in _properties(layer, spec, project):
            ptype = TYPES.get(type_name)
            if raw == "" or raw.startswith("*") or ptype is None or not ptype.is_literal(raw):
                continue
            kind = type_name if type_name in ARGUMENT_TYPES else "Text"
            found.append(ArgumentChoice(layer.name, prop, raw, kind))
    return found


def _properties(
    layer: Layer, spec: LayerSpec, project: Project | None
) -> Iterator[tuple[str, str, str]]:
    """``(property, type name, value)`` a user sets on ``layer``, files and datasets aside.

    A Unit layer's are the arguments of the network it calls, not its Network: an argument
    cannot choose which unit runs.
    """
    if layer.type == "Unit":
        target = layer.properties.get("Network", "")
        if project is not None and project.has_network(target):
            for decl in unit_arguments.arguments_of(project.network(target)).values():
                yield decl.name, decl.type, layer.properties.get(decl.name, decl.value)
        return
    for prop in spec.properties:
        if prop.editable and prop.visible and prop.name != "Name":
            if prop.type.name not in ("File", "Dataset"):
                yield prop.name, prop.type.name, layer.properties.get(prop.name, prop.default)


def check_selection(network: Network, names: Iterable[str]) -> _Plan:
    """What moves where; ModelError says why the selection cannot become a unit."""
    chosen = set(names)
    if not chosen:
        raise ModelError("Create Unit: select the layers to put in the unit first")
    layers = [network.layer(n) for n in network.layer_names if n in chosen]
    links = list(network.links)
    inner = [k for k in links if k.source in chosen and k.destination in chosen]
    incoming = [k for k in links if k.destination in chosen and k.source not in chosen]
    outgoing = [
        (i, k) for i, k in enumerate(links) if k.source in chosen and k.destination not in chosen
    ]
    where = f'network "{network.name}": Create Unit'
    if any(k.dest_pin != 0 for k in incoming):
        raise ModelError(f"{where}: a selected layer takes a side input from outside the selection")
    sources = sorted({k.source for k in incoming})
    if len(sources) > 1:
        listed = ", ".join(sources)
        raise ModelError(
            f"{where}: the selection has {len(sources)} inputs ({listed}); a unit has one"
        )
    leaving = sorted({k.source for _, k in outgoing})
    if len(leaving) > 1:
        listed = ", ".join(leaving)
        raise ModelError(
            f"{where}: {len(leaving)} selected layers feed layers outside the selection "
            f"({listed}); a unit has one output"
        )
    return _Plan(layers, inner, incoming, outgoing, sources[0] if sources else None)


def create_unit(
    document: Document,
    network: Network,
    names: list[str],
    arguments: Iterable[ArgumentChoice] = (),
    unit_name: str | None = None,
) -> tuple[str, str]:
    """Returns ``(unit network name, Unit layer name)``; ModelError says why it cannot."""
    plan = check_selection(network, names)
    project = document.project
    unit_name = unit_name or project.unique_network_name("Unit")
    if project.has_network(unit_name):
        raise ModelError(f'Create Unit: a network named "{unit_name}" already exists')
    unit = _unit_network(document, network, plan, unit_name)
    bound = _add_arguments(unit, list(arguments))

    x0 = min(layer.position[0] for layer in plan.layers)
    y0 = min(layer.position[1] for layer in plan.layers)
    caller_name = network.unique_name(unit_name)
    caller_props = {"Network": unit_name, "ParameterScope": "*Name"}
    caller_props |= {arg: choice.value for arg, choice in bound}
    unit_layer = Layer(caller_name, "Unit", caller_props, position=(x0, y0))
    chosen = {layer.name for layer in plan.layers}
    links = list(network.links)
    with document.macro(QT_TRANSLATE_NOOP("Commands", "Create Unit {name}").format(name=unit_name)):
        document.push(C.AddNetwork(project, unit))
        for name in [n for n in network.layer_names if n in chosen]:
            document.push(C.RemoveLayer(network, name))
        document.push(C.AddLayer(network, unit_layer))
        if plan.source is not None:
            document.push(C.Connect(network, Link(plan.source, caller_name, 0)))
        removed = {i for i, k in enumerate(links) if k.source in chosen or k.destination in chosen}
        for inserted, (index, k) in enumerate(plan.outgoing):
            before = sum(1 for i in removed if i < index)
            position = min(index - before + inserted, len(network.links))
            document.push(
                C.Connect(network, Link(caller_name, k.destination, k.dest_pin), position)
            )
    return unit_name, caller_name


def _unit_network(document: Document, network: Network, plan: _Plan, unit_name: str) -> Network:
    """The new network: an Input where the selection's input came in, then the selection."""
    unit = Network(unit_name)
    chosen = {layer.name for layer in plan.layers}
    x0 = min(layer.position[0] for layer in plan.layers)
    y0 = min(layer.position[1] for layer in plan.layers)
    dx, dy = UNIT_ORIGIN[0] - x0, UNIT_ORIGIN[1] - y0
    input_name = None
    if plan.source is not None:
        input_name = _free_name(chosen, "Input")
        shape = document.results(network.name).get(plan.source)
        size = ",".join(str(v) for v in shape.shape) if shape and shape.shape else "1"
        first = Layer(
            input_name, "Input", {"Size": size}, position=(UNIT_ORIGIN[0], UNIT_ORIGIN[1] - 48)
        )
        unit.add_layer(_defaults(unit, first))
    for layer in plan.layers:
        unit.add_layer(
            replace(layer, position=(layer.position[0] + dx, layer.position[1] + dy), id=None)
        )
    if input_name is not None:
        for k in plan.incoming:
            unit.connect(Link(input_name, k.destination, 0))
    for k in plan.inner:
        unit.connect(replace(k, id=None))
    return unit


def _add_arguments(
    unit: Network, choices: list[ArgumentChoice]
) -> list[tuple[str, ArgumentChoice]]:
    """Argument layers (right of the moved layers) and the ``*Arg`` references to them."""
    if not choices:
        return []
    # One box width clear of the widest box: the shape drawn beside a box is not covered.
    right = max(layer.position[0] + layer.size[0] for layer in unit.layers) + 240
    bound = []
    for i, choice in enumerate(choices):
        inner = unit.layer(choice.layer)
        spec = find_spec(inner.type)
        known = inner.type == "Unit" or (spec is not None and spec.prop(choice.prop) is not None)
        if not known:  # a Unit layer's arguments were read from its unit by argument_choices
            raise ModelError(f'Create Unit: layer "{choice.layer}" has no property {choice.prop}')
        name = argument_name(unit, choice.prop)
        props = {"Value": choice.value, "Type": choice.type, "Search": "False"}
        position = (right, UNIT_ORIGIN[1] - 48 + i * _ARGUMENT_STEP)
        unit.add_layer(Layer(name, "Argument", props, position=position))
        unit.set_property(choice.layer, choice.prop, f"*{name}")
        bound.append((name, choice))
    return bound


def argument_name(network: Network, base: str) -> str:
    """An identifier named after ``base`` (``W.File`` -> ``W_File``), free in ``network``."""
    stem = re.sub(r"\W", "_", base) or "Argument"
    if stem[0].isdigit():
        stem = f"A{stem}"
    taken = set(network.layer_names) | RESERVED_ARGUMENT_NAMES
    return _free_name(taken, stem)


def _free_name(taken: set[str], base: str) -> str:
    name, k = base, 2
    while name in taken:
        name, k = f"{base}_{k}", k + 1
    return name


def _defaults(network: Network, layer: Layer) -> Layer:
    """``layer`` with the catalogue's other default properties (Dataset, Generator, ...)."""
    template = network.new_layer(layer.type, layer.position, layer.name)
    return replace(layer, properties={**template.properties, **layer.properties})

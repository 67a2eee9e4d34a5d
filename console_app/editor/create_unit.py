"""Create Unit: move a selection into a new unit network and call it from a Unit layer (no Qt).

As NNC's editor does (nnc-behaviour.md §1.4): the selected layers and the links among them move
into a new network, which gets an Input layer where the selection's input came in; in the
caller a Unit layer takes the selection's place, wired to the same neighbours (the links out
keep their order among a consumer's inputs, so Concatenate order is kept). Everything is one
undo step built from the model's commands.

The selection must have at most one outside producer (a unit has one input) and one layer whose
output leaves it (a unit has one output), and no side input from outside.
"""

from __future__ import annotations

from dataclasses import replace

from console_app.document import Document
from engine.graph import commands as C
from engine.graph.project import Layer, Link, ModelError, Network

UNIT_ORIGIN = (24, 72)  # where the selection's top-left lands in the unit network (file units)


def create_unit(document: Document, network: Network, names: list[str]) -> tuple[str, str]:
    """Returns ``(unit network name, Unit layer name)``; ModelError says why it cannot."""
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

    project = document.project
    unit_name = project.unique_network_name("Unit")
    unit = Network(unit_name)
    x0 = min(layer.position[0] for layer in layers)
    y0 = min(layer.position[1] for layer in layers)
    dx, dy = UNIT_ORIGIN[0] - x0, UNIT_ORIGIN[1] - y0
    input_name = None
    if sources:
        input_name = _free_name(chosen, "Input")
        shape = document.results(network.name).get(sources[0])
        size = ",".join(str(v) for v in shape.shape) if shape and shape.shape else "1"
        first = Layer(
            input_name, "Input", {"Size": size}, position=(UNIT_ORIGIN[0], UNIT_ORIGIN[1] - 48)
        )
        unit.add_layer(_defaults(unit, first))
    for layer in layers:
        unit.add_layer(
            replace(layer, position=(layer.position[0] + dx, layer.position[1] + dy), id=None)
        )
    if input_name is not None:
        for k in incoming:
            unit.connect(Link(input_name, k.destination, 0))
    for k in inner:
        unit.connect(replace(k, id=None))

    caller_name = network.unique_name(unit_name)
    unit_layer = Layer(caller_name, "Unit", {"Network": unit_name, "ParameterScope": "*Name"},
                       position=(x0, y0))  # fmt: skip
    with document.macro(f"Create Unit {unit_name}"):
        document.push(C.AddNetwork(project, unit))
        for name in [n for n in network.layer_names if n in chosen]:
            document.push(C.RemoveLayer(network, name))
        document.push(C.AddLayer(network, unit_layer))
        if sources:
            document.push(C.Connect(network, Link(sources[0], caller_name, 0)))
        removed = {i for i, k in enumerate(links) if k.source in chosen or k.destination in chosen}
        for inserted, (index, k) in enumerate(outgoing):
            before = sum(1 for i in removed if i < index)
            position = min(index - before + inserted, len(network.links))
            document.push(
                C.Connect(network, Link(caller_name, k.destination, k.dest_pin), position)
            )
    return unit_name, caller_name


def _free_name(taken: set[str], base: str) -> str:
    name, k = base, 2
    while name in taken:
        name, k = f"{base}_{k}", k + 1
    return name


def _defaults(network: Network, layer: Layer) -> Layer:
    """``layer`` with the catalogue's other default properties (Dataset, Generator, ...)."""
    template = network.new_layer(layer.type, layer.position, layer.name)
    return replace(layer, properties={**template.properties, **layer.properties})

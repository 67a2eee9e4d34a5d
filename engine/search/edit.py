"""Graph edits the mutation rules share: remove a layer and wire around it, insert a chain.

They work on a :class:`~engine.graph.network.Network` of a private copy of the project (the
search never edits the user's document), so they call the model's methods directly.
"""

from __future__ import annotations

from dataclasses import replace

from engine.graph.network import Layer, Link, Network

STEP = 48.0  # vertical distance between stacked layers on NNC's canvas


def sole_input(network: Network, name: str) -> Link | None:
    """The only link into ``name`` when it has exactly one (on pin 0), else None."""
    links = network.inputs_of(name)
    if len(links) != 1 or links[0].dest_pin != 0:
        return None
    return links[0]


def remove_through(network: Network, name: str) -> bool:
    """Remove a one-input layer and feed its consumers from its input; False if not possible."""
    link = sole_input(network, name)
    if link is None:
        return False
    consumers = network.outputs_of(name)
    network.remove_layer(name)
    for out in consumers:
        network.connect(Link(link.source, out.destination, out.dest_pin, link.source_pin))
    return True


def insert_after(network: Network, name: str, new_layers: list[Layer]) -> list[str]:
    """Insert ``new_layers`` as a chain between ``name`` and all its consumers.

    Layers below the insertion point move down to make room; returns the new layers' names.
    """
    consumers = network.outputs_of(name)
    x, y = network.layer(name).position
    shift_below(network, y, STEP * len(new_layers))
    previous, names = name, []
    for i, layer in enumerate(new_layers):
        placed = replace(layer, name=network.unique_name(layer.name), id=None,
                         position=(x, y + STEP * (i + 1)))  # fmt: skip
        added = network.add_layer(placed)
        network.connect(Link(previous, added.name))
        previous = added.name
        names.append(added.name)
    for out in consumers:
        network.disconnect(out)
        network.connect(Link(previous, out.destination, out.dest_pin, 0))
    return names


def shift_below(network: Network, y: float, dy: float) -> None:
    for layer in network.layers:
        if layer.position[1] > y:
            network.move_layer(layer.name, (layer.position[0], layer.position[1] + dy))

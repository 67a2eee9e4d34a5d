"""A network's wiring by layer, as shape inference reads it: producers and consumers
(:class:`Adjacency`, shared between unit expansions by :func:`shared_adjacency`), the order in
which layers are computed (:func:`topological_order`) and which layers have an output to link
from (:func:`has_output`).
"""

from __future__ import annotations

from engine.graph.network import Network
from engine.graph.order import stable_order
from engine.layers import find_spec
from engine.layers.spec import Component

__all__ = [
    "Adjacency",
    "topological_order",
    "has_output",
    "shared_adjacency",
]


class Adjacency:
    """Links of a network by layer: producers (source, pin) and consumers (dest, pin)."""

    def __init__(self, network: Network) -> None:
        self.types = {layer.name: layer.type for layer in network.layers}
        self.producers: dict[str, list[tuple[str, int]]] = {}
        self.consumers: dict[str, list[tuple[str, int]]] = {}
        self.raw = {layer.name: layer.properties for layer in network.layers}
        self.memo: dict[str, object] = {}  # values derived from the structure (order, blocks)
        for link in network.links:
            self.producers.setdefault(link.destination, []).append((link.source, link.dest_pin))
            self.consumers.setdefault(link.source, []).append((link.destination, link.dest_pin))

    def has_repeats(self) -> bool:
        if "has_repeats" not in self.memo:
            self.memo["has_repeats"] = "RepeatStart" in self.types.values()
        return self.memo["has_repeats"]  # type: ignore[return-value]

    def backward(self, name: str) -> bool:
        """True when the layer's shape comes from its consumers (no main input)."""
        if any(pin == 0 for _, pin in self.producers.get(name, ())):
            return False
        spec = find_spec(self.types[name])
        if spec is None:
            return False
        size = self.raw[name].get("Size", spec.defaults().get("Size", ""))
        graph_io = spec.prop("Input") is not None and spec.prop("Input").default == "*GraphIO"  # type: ignore[union-attr]
        return size.startswith("*GraphOutput") or graph_io


def topological_order(adjacency: Adjacency, names: list[str]) -> list[str]:
    """Layers in an order where inputs come first, so computing stays shallow.

    A Delay's main input is a recurrent back edge and does not order anything. A layer
    whose shape comes from its consumers (``*GraphOutput``/``*GraphIO`` without input) is
    placed after the other inputs of those consumers.
    """
    before: dict[str, set[str]] = {n: set() for n in names}
    for dest, links in adjacency.producers.items():
        for source, pin in links:
            if not (pin == 0 and adjacency.types[dest] == "Delay"):
                before[dest].add(source)
    for name in names:
        if adjacency.backward(name):
            for consumer, _ in adjacency.consumers.get(name, ()):
                for other, _ in adjacency.producers.get(consumer, ()):
                    if other != name and name not in before[other]:
                        before[name].add(other)
    ordered, on_cycles = stable_order(names, ((b, n) for n, deps in before.items() for b in deps))
    return ordered + on_cycles  # cycles: found on demand


def has_output(type_: str) -> bool:
    """False for layers without an output to link from (settings such as Argument)."""
    spec = find_spec(type_)
    if spec is None:
        return True
    return spec.output_rule is not None and spec.component is not Component.SETTING


def shared_adjacency(cache: dict[str, tuple], network: Network) -> Adjacency:
    """The adjacency of ``network`` from ``cache`` (network name -> (layers, links, adjacency)),
    valid while the network returns these very tuples (it builds new ones on every change)."""
    layers, links = network.layers, network.links
    entry = cache.get(network.name)
    if entry is None or entry[0] is not layers or entry[1] is not links:
        entry = cache[network.name] = (layers, links, Adjacency(network))
    return entry[2]

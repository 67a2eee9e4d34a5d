"""Repeat and recurrent blocks (docs/layers.md §1.7).

Repeat blocks (RepeatStart ... RepeatEnd) give their layers one set of parameters per iteration
(:func:`repeat_blocks`); :func:`matching_start` finds the layer that opens a block, and
:func:`adjacency` / :func:`reach` walk a network's links.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Mapping

from engine.graph.network import Network

__all__ = [
    "matching_start",
    "adjacency",
    "repeat_blocks",
    "reach",
]


def matching_start(network: Network, end: str, start_type: str, end_type: str) -> str | None:
    """The RepeatStart (RecurrentInput) that a RepeatEnd (RecurrentOutput) closes.

    Walks the main inputs upstream; nested blocks of the same kind are skipped. Nesting is
    never deeper than the number of closing layers, which bounds the walk on a cyclic graph
    (a cycle through a closing layer would otherwise deepen forever).
    """
    sources = _main_sources(network)
    types = {layer.name: layer.type for layer in network.layers}
    deepest = sum(t == end_type for t in types.values())
    queue: deque[tuple[str, int]] = deque((s, 0) for s in sources.get(end, ()))
    seen: set[tuple[str, int]] = set()
    while queue:
        name, depth = queue.popleft()
        if (name, depth) in seen or depth > deepest:
            continue
        seen.add((name, depth))
        if types.get(name) == end_type:
            depth += 1
        elif types.get(name) == start_type:
            if depth == 0:
                return name
            depth -= 1
        queue.extend((s, depth) for s in sources.get(name, ()))
    return None


def _main_sources(network: Network) -> dict[str, list[str]]:
    sources: dict[str, list[str]] = {}
    for link in network.links:
        if link.dest_pin == 0 and network.layer(link.destination).type != "Delay":
            sources.setdefault(link.destination, []).append(link.source)
    return sources


def adjacency(network: Network) -> tuple[dict[str, list[str]], dict[str, list[str]]]:
    """(layer -> the layers it feeds, layer -> the layers feeding it), over every link."""
    down: dict[str, list[str]] = {}
    up: dict[str, list[str]] = {}
    for link in network.links:
        down.setdefault(link.source, []).append(link.destination)
        up.setdefault(link.destination, []).append(link.source)
    return down, up


def repeat_blocks(network: Network) -> dict[str, tuple[str, ...]]:
    """layer -> the RepeatStart layers whose block contains it (outermost first)."""
    down, up = adjacency(network)
    blocks: dict[str, list[str]] = {}
    for layer in network.layers:
        if layer.type != "RepeatEnd":
            continue
        start = matching_start(network, layer.name, "RepeatStart", "RepeatEnd")
        if start is None:
            continue
        inside = (reach(start, down) & reach(layer.name, up)) - {start, layer.name}
        for name in inside:
            blocks.setdefault(name, []).append(start)
    # Outer blocks contain more layers: sort each layer's blocks by block size, largest first.
    size = {s: sum(1 for v in blocks.values() if s in v) for v in blocks.values() for s in v}
    return {name: tuple(sorted(v, key=lambda s: -size[s])) for name, v in blocks.items()}


def reach(start: str, edges: Mapping[str, Iterable[str]]) -> set[str]:
    """``start`` and every layer reachable from it along ``edges``."""
    seen = {start}
    stack = [start]
    while stack:
        for nxt in edges.get(stack.pop(), ()):
            if nxt not in seen:
                seen.add(nxt)
                stack.append(nxt)
    return seen

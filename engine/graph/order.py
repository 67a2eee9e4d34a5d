"""Topological order, one way for the whole engine: every producer before its consumers, ties
broken by a key (the network's order, so a drawing's order survives where links allow it), and
the nodes a cycle holds returned apart instead of raised, so each caller says what a cycle means
for it (the compiler refuses the network, shape inference reports it where it is asked about).
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Hashable, Iterable, Sequence
from typing import TypeVar

__all__ = ["stable_order"]

N = TypeVar("N", bound=Hashable)


def stable_order(
    nodes: Sequence[N], edges: Iterable[tuple[N, N]], key: Callable[[N], int] | None = None
) -> tuple[list[N], list[N]]:
    """``(ordered, left)``: the nodes with every edge's source before its destination, the
    smallest ``key`` first among those ready (default: the position in ``nodes``), and the
    nodes on or after a cycle in ``nodes``' order. Edges naming other nodes are ignored."""
    position = {n: i for i, n in enumerate(nodes)}
    rank = key or position.__getitem__
    waiting = dict.fromkeys(nodes, 0)
    after: dict[N, list[N]] = {}
    for source, destination in edges:
        if source in waiting and destination in waiting:
            waiting[destination] += 1
            after.setdefault(source, []).append(destination)
    ready = [(rank(n), position[n], n) for n, count in waiting.items() if count == 0]
    heapq.heapify(ready)
    ordered: list[N] = []
    while ready:
        node = heapq.heappop(ready)[2]
        ordered.append(node)
        for consumer in after.get(node, ()):
            waiting[consumer] -= 1
            if waiting[consumer] == 0:
                heapq.heappush(ready, (rank(consumer), position[consumer], consumer))
    placed = set(ordered)
    return ordered, [n for n in nodes if n not in placed]

"""The engine's graph algorithms, one way each: topological order (every producer before its
consumers, ties broken by a key: the network's order, so a drawing's order survives where links
allow it; the nodes a cycle holds returned apart instead of raised, so each caller says what a
cycle means for it: the compiler refuses the network, shape inference reports it where it is
asked about), reachability and cycles.

Plain dictionaries, no graph library: these run on every compile and every edit, and importing
networkx alone costs a third of a second of a training process's start (issue 33's cold start).
networkx stays for the layout code (NNP import, Arrange), which runs rarely.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Hashable, Iterable, Sequence
from typing import TypeVar

__all__ = ["stable_order", "descendants", "cycles"]

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


def _successors(edges: Iterable[tuple[N, N]]) -> dict[N, list[N]]:
    after: dict[N, list[N]] = {}
    for source, destination in edges:
        after.setdefault(source, [])
        if destination not in after[source]:
            after[source].append(destination)
    return after


def descendants(edges: Iterable[tuple[N, N]], start: N) -> set[N]:
    """Every node reachable from ``start`` by one or more edges (``start`` itself only when a
    cycle leads back to it)."""
    after = _successors(edges)
    seen: set[N] = set()
    todo = list(after.get(start, ()))
    while todo:
        node = todo.pop()
        if node not in seen:
            seen.add(node)
            todo.extend(after.get(node, ()))
    return seen


def cycles(nodes: Sequence[N], edges: Iterable[tuple[N, N]]) -> list[tuple[N, list[N]]]:
    """``(first, cycle)`` per group of nodes that reach each other (strongly connected
    component with more than one node, or a node linked to itself), in the order of the
    group's first node in ``nodes``. The cycle is the first one a depth-first walk from that
    first node meets, following edges in the order given, listed from where it closes:
    ``[a, b, c]`` for a -> b -> c -> a (networkx's ``find_cycle`` finds the same)."""
    after = _successors(edges)
    groups = _components(nodes, after)
    found = []
    for group in groups:
        first = next(n for n in nodes if n in group)
        if len(group) == 1 and first not in after.get(first, ()):
            continue
        inside = {n: [m for m in after.get(n, ()) if m in group] for n in group}
        found.append((first, _first_cycle(first, inside)))
    return found


def _components(nodes: Sequence[N], after: dict[N, list[N]]) -> list[set[N]]:
    """Strongly connected components (Tarjan's algorithm, iterative), in ``nodes``' order of
    their first member."""
    index: dict[N, int] = {}
    low: dict[N, int] = {}
    stack: list[N] = []
    on_stack: set[N] = set()
    groups: list[set[N]] = []
    for root in nodes:
        if root in index:
            continue
        work = [(root, 0)]
        while work:
            node, k = work.pop()
            if k == 0:
                index[node] = low[node] = len(index)
                stack.append(node)
                on_stack.add(node)
            successors = after.get(node, [])
            if k < len(successors):
                work.append((node, k + 1))
                nxt = successors[k]
                if nxt not in index:
                    work.append((nxt, 0))
                elif nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
                continue
            if low[node] == index[node]:
                group = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.add(member)
                    if member == node:
                        break
                groups.append(group)
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
    position = {n: i for i, n in enumerate(nodes)}
    return sorted(groups, key=lambda g: min(position.get(n, len(position)) for n in g))


def _first_cycle(start: N, after: dict[N, list[N]]) -> list[N]:
    path, on_path, done = [start], {start: 0}, set()
    work = [iter(after.get(start, ()))]
    while work:
        nxt = next(work[-1], None)
        if nxt is None:  # every edge out of the path's last node explored
            finished = path.pop()
            del on_path[finished]
            done.add(finished)
            work.pop()
            continue
        if nxt in on_path:
            return path[on_path[nxt] :]
        if nxt not in done:
            on_path[nxt] = len(path)
            path.append(nxt)
            work.append(iter(after.get(nxt, ())))
    return []

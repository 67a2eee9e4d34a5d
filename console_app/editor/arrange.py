"""Auto-arrange: a readable top-to-bottom layering of a network (networkx, no Qt).

Each layer gets a row by the longest path from the inputs (a layer without inputs sits just
above its first consumer, so a Parameter feeding a ``W`` pin is next to it); inside a row,
layers keep the mean column of their inputs where free, so a chain stays a straight column and
branches fan out beside it. Layers without links (Arguments, settings) go in a column on the
right, clear of the shapes drawn beside the boxes. Recurrent inputs (a Delay's main input) do
not order rows.
"""

from __future__ import annotations

import networkx as nx

from engine.graph.project import Network

X0, Y0 = 24, 24  # file units, as Sony's samples start
COLUMN = 264  # 240 box + 24 gap
ROW = 48
SHAPE_ROOM = 216  # the loose column clears the shape drawn right of the boxes beside it


def arrange_positions(network: Network) -> dict[str, tuple[int, int]]:
    graph = nx.DiGraph()
    graph.add_nodes_from(network.layer_names)
    types = {layer.name: layer.type for layer in network.layers}
    for link in network.links:
        if link.dest_pin == 0 and types.get(link.destination) == "Delay":
            continue
        graph.add_edge(link.source, link.destination)
    _break_cycles(graph)
    linked = [n for n in network.layer_names if graph.degree(n) > 0]
    loose = [n for n in network.layer_names if graph.degree(n) == 0]
    ranks = _ranks(graph.subgraph(linked).copy())
    columns = _columns(graph, ranks, network)
    positions = {n: (X0 + COLUMN * columns[n], Y0 + ROW * ranks[n]) for n in linked}
    right = max(columns.values(), default=-1) + 1
    x = X0 + COLUMN * right + (SHAPE_ROOM if right else 0)
    for i, name in enumerate(loose):
        positions[name] = (x, Y0 + ROW * i)
    return positions


def _break_cycles(graph: nx.DiGraph) -> None:
    while True:
        try:
            cycle = nx.find_cycle(graph)
        except nx.NetworkXNoCycle:
            return
        graph.remove_edge(*cycle[-1][:2])


def _ranks(graph: nx.DiGraph) -> dict[str, int]:
    rank: dict[str, int] = {}
    for node in nx.topological_sort(graph):
        preds = list(graph.predecessors(node))
        rank[node] = max((rank[p] + 1 for p in preds), default=0)
    # Sources (inputs, parameters) move down to just above their nearest consumer.
    for node in graph.nodes:
        if graph.in_degree(node) == 0 and graph.out_degree(node) > 0:
            rank[node] = max(0, min(rank[s] for s in graph.successors(node)) - 1)
    return rank


def _columns(graph: nx.DiGraph, ranks: dict[str, int], network: Network) -> dict[str, int]:
    order = {name: i for i, name in enumerate(network.layer_names)}
    rows: dict[int, list[str]] = {}
    for node, r in ranks.items():
        rows.setdefault(r, []).append(node)
    columns: dict[str, int] = {}
    for r in sorted(rows):
        wanted = []
        for node in rows[r]:
            placed = [columns[p] for p in graph.predecessors(node) if p in columns]
            centre = sum(placed) / len(placed) if placed else 0.0
            wanted.append((centre, order[node], node))
        wanted.sort()
        used = -1
        for centre, _, node in wanted:
            column = max(used + 1, round(centre))
            columns[node] = column
            used = column
    return columns

"""engine.graph.order: the one topological order (compiler, loops, shape inference)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.graph.order import cycles, descendants, stable_order


def test_ties_keep_the_given_order_and_producers_come_first():
    nodes = ["d", "a", "c", "b"]
    ordered, left = stable_order(nodes, [("c", "a"), ("b", "d")])
    assert ordered == ["c", "a", "b", "d"] and left == []


def test_a_cycle_is_returned_apart_with_what_follows_it():
    nodes = ["in", "x", "y", "out", "other"]
    ordered, left = stable_order(nodes, [("in", "x"), ("x", "y"), ("y", "x"), ("y", "out")])
    assert ordered == ["in", "other"] and left == ["x", "y", "out"]


def test_a_key_breaks_ties_and_repeated_edges_count_once_each_way():
    ordered, _ = stable_order(
        ["a", "b", "c"], [("a", "c"), ("a", "c")], key={"a": 2, "b": 1, "c": 0}.__getitem__
    )
    assert ordered == ["b", "a", "c"]


@settings(max_examples=200, deadline=None)
@given(
    st.integers(1, 12).flatmap(
        lambda n: st.tuples(
            st.just(n),
            st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=30),
        )
    )
)
def test_every_edge_between_placed_nodes_runs_forward(case):
    n, pairs = case
    edges = [(a, b) for a, b in pairs if a < b]  # acyclic by construction
    ordered, left = stable_order(list(range(n)), edges)
    assert left == [] and sorted(ordered) == list(range(n))
    place = {v: i for i, v in enumerate(ordered)}
    assert all(place[a] < place[b] for a, b in edges)


GRAPHS = st.integers(1, 10).flatmap(
    lambda n: st.tuples(
        st.just(n),
        st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=25),
    )
)


@settings(max_examples=300, deadline=None)
@given(GRAPHS)
def test_cycles_and_descendants_are_networkx_s(case):
    """networkx (the independent reference) finds the same groups, the same first cycle in
    each, and the same reachable nodes."""
    nx = pytest.importorskip("networkx")
    n, edges = case
    nodes = [f"n{i}" for i in range(n)]
    edges = [(nodes[a], nodes[b]) for a, b in edges]
    graph = nx.DiGraph()
    graph.add_nodes_from(nodes)
    graph.add_edges_from(edges)
    expected = []
    for group in nx.strongly_connected_components(graph):
        first = next(v for v in nodes if v in group)
        if len(group) > 1 or graph.has_edge(first, first):
            cycle = [e[0] for e in nx.find_cycle(graph.subgraph(group), first)]
            expected.append((first, cycle))
    expected.sort(key=lambda item: nodes.index(item[0]))
    assert cycles(nodes, edges) == expected
    for start in nodes:
        reached = descendants(edges, start)
        assert reached - {start} == nx.descendants(graph, start)
        on_a_cycle = graph.has_edge(start, start) or any(
            start in g and len(g) > 1 for g in nx.strongly_connected_components(graph)
        )
        assert (start in reached) == on_a_cycle

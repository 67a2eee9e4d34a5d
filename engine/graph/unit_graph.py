"""The unit call graph and its limits (docs/nnc-behaviour.md §1).

Units nest to any depth; a network that calls itself, directly or through other units, is an
error (:func:`unit_cycles`). A network whose units expand to too many layers, or a layer output
too large for any machine, is refused before anything is expanded or allocated.
"""

from __future__ import annotations

import math

from engine.core.numbers import shape_text
from engine.graph.project import Project
from engine.layers.evaluate import (
    Shape,
)

__all__ = [
    "unit_calls",
    "unit_cycles",
    "MAX_EXPANDED_LAYERS",
    "expanded_sizes",
    "MAX_ELEMENTS",
    "oversized",
    "expansion_problem",
]


def unit_calls(project: Project) -> dict[str, list[tuple[str, str]]]:
    """network -> [(Unit layer, called network), ...] from the Unit layers' ``Network``."""
    return {
        network.name: [
            (layer.name, layer.properties.get("Network", ""))
            for layer in network.layers
            if layer.type == "Unit"
        ]
        for network in project.networks
    }


def unit_cycles(project: Project) -> list[list[str]]:
    """Every unit recursion, as the call path that closes it (``[A, B, A]``), once per cycle."""
    calls = {net: [called for _, called in items] for net, items in unit_calls(project).items()}
    cycles: list[list[str]] = []
    seen: set[frozenset[str]] = set()

    def visit(net: str, path: list[str]) -> None:
        for called in calls.get(net, []):
            if called in path:
                cycle = path[path.index(called) :] + [called]
                key = frozenset(cycle)
                if key not in seen:
                    seen.add(key)
                    cycles.append(cycle)
            elif called in calls:
                visit(called, path + [called])

    for net in calls:
        visit(net, [net])
    return cycles


# Units that call units several times multiply: 20 levels of two calls are a million layers.
# No real network comes near this many layers once expanded; a file that does is refused
# before anything is expanded or allocated.
MAX_EXPANDED_LAYERS = 100_000


def expanded_sizes(project: Project) -> dict[str, int]:
    """network -> its layer count once every Unit layer is expanded (recursion counts once)."""
    calls = unit_calls(project)
    own = {n.name: len(n.layers) for n in project.networks}
    sizes: dict[str, int] = {}
    for start in calls:  # iterative post-order, so a deep chain needs no deep Python stack
        stack, visiting = [start], set()
        while stack:
            net = stack[-1]
            pending = [c for _, c in calls.get(net, []) if c in calls and c not in sizes
                       and c not in visiting and c != net]  # fmt: skip
            if net not in sizes and pending:
                visiting.add(net)
                stack.extend(pending)
                continue
            stack.pop()
            if net not in sizes:
                sizes[net] = min(own[net] - len(calls[net]) + sum(
                    sizes.get(c, 1) for _, c in calls[net]), 10 * MAX_EXPANDED_LAYERS)  # fmt: skip
    return sizes


# 2^40 float32 values per sample are 4 TiB: a larger shape is a typo, and its statistics
# (printed with 20 or 300 digits) would be no use.
MAX_ELEMENTS = 2**40


def oversized(shape: Shape | None) -> str | None:
    """Why a layer output of ``shape`` cannot exist, or None."""
    if not shape or math.prod(shape) <= MAX_ELEMENTS:
        return None
    dims = shape_text(shape)
    return (f"the output holds {math.prod(shape):.3g} values per sample (shape {dims}), more "
            f"than any machine can hold")  # fmt: skip


def expansion_problem(project: Project, network: str) -> str | None:
    """Why ``network`` expands to too many layers, naming the chain of units, or None."""
    sizes = expanded_sizes(project)
    if sizes.get(network, 0) <= MAX_EXPANDED_LAYERS:
        return None
    calls = unit_calls(project)
    names, shown = [network], [network]
    while len(names) < 8:  # follow the heaviest call
        called = [c for _, c in calls.get(names[-1], []) if c in sizes and c not in names]
        if not called:
            break
        heaviest = max(called, key=lambda c: sizes[c])
        times = called.count(heaviest)
        shown.append(f"{heaviest} x{times}" if times > 1 else heaviest)
        names.append(heaviest)
    more = " -> ..." if len(names) == 8 else ""
    return (
        f"the units expand to more than {MAX_EXPANDED_LAYERS:,} layers "
        f"(unit calls {' -> '.join(shown)}{more})"
    )

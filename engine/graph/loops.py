"""How often a layer counts in the network statistics: repeat blocks and recurrent loops.

NNC counts the layers of a RepeatStart ... RepeatEnd block once per iteration (x Times) and the
layers of a RecurrentInput ... RecurrentOutput loop once per time step (x the length of the
recurrent axis); nested loops multiply (docs/layers.md §1.6). The opening layer belongs to its
loop, the closing one does not: resnet-110's Output 4,217,995 counts each RepeatStart Times
times and each RepeatEnd once, elman_net's 6,303 counts RecurrentInput 28 times.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping

from engine.graph.nesting import adjacency, matching_start, reach
from engine.graph.network import Network
from engine.layers.evaluate import RuleError

__all__ = ["LOOPS", "loop_blocks", "multipliers"]

LOOPS = {"RepeatEnd": "RepeatStart", "RecurrentOutput": "RecurrentInput"}  # end -> start


def loop_blocks(network: Network) -> dict[str, tuple[str, ...]]:
    """layer -> the opening layers (RepeatStart, RecurrentInput) of the loops that count it."""
    down, up = adjacency(network)
    blocks: dict[str, list[str]] = {}
    for layer in network.layers:
        start_type = LOOPS.get(layer.type)
        start = start_type and matching_start(network, layer.name, start_type, layer.type)
        if not start:
            continue
        for name in (reach(start, down) & reach(layer.name, up)) - {layer.name}:
            blocks.setdefault(name, []).append(start)
    return {name: tuple(starts) for name, starts in blocks.items()}


def multipliers(inference) -> dict[str, int]:  # noqa: ANN001 - an infer.NetworkInference
    """layer -> how many times its statistics count (only layers inside a loop)."""
    structure = inference.structure_memo()
    if "loop_blocks" not in structure:
        structure["loop_blocks"] = loop_blocks(inference.network)
    blocks: Mapping[str, Iterable[str]] = structure["loop_blocks"]  # type: ignore[assignment]
    factors: dict[str, int] = {}
    for starts in blocks.values():
        for start in starts:
            if start not in factors:
                factors[start] = _factor(inference, start)
    return {name: math.prod(factors[s] for s in starts) for name, starts in blocks.items()}


def _factor(inference, start: str) -> int:  # noqa: ANN001
    """Times of a RepeatStart, or the length of a RecurrentInput's axis (1 when unknown)."""
    try:
        ev = inference.eval(start)
        if ev.spec.type == "RepeatStart":
            value = ev.value("Times")
        else:
            axis = ev.value("Axis")
            value = ev.input_shape[axis if isinstance(axis, int) else 0]
    except (RuleError, IndexError, TypeError):
        return 1  # the start's own error is reported on it
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 1

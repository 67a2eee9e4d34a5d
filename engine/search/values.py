"""New values for searchable properties and arguments, with the magnitudes NNC was seen to use.

Observed in NNC's ``mutate`` (docs/nnc-behaviour.md §9.2): OutMaps 16 -> 13, 19, 20; OutShape
100 -> 159, 192 (a factor 2^u); Dropout P 0.5 -> 0.4..0.6 (0.5 x 2^u, small u); KernelShape
5,5 -> 4,3 / 7,3 / 2,7 and pooling 2,2 -> 2,4 / 1,4 (each axis on its own).
"""

from __future__ import annotations

import random

from engine.graph.network import Network
from engine.graph.project import Project
from engine.graph.unit_arguments import arguments_of

__all__ = ["new_value", "argument_sites"]


def new_value(old: str, type_name: str, key: str, rng: random.Random) -> str | None:
    """A changed value of the same type, or None when ``old`` cannot be read."""
    try:
        if type_name == "Boolean":
            return "False" if old == "True" else "True"
        if type_name == "Float":
            return _float(float(old), key, rng)
        if type_name.endswith("IntArray") and key == "KernelShape":
            return ",".join(str(rng.randint(1, int(k) + 2)) for k in old.split(","))
        if type_name.endswith("IntArray"):
            return ",".join(str(_scale(int(k), rng)) for k in old.split(","))
        if type_name.endswith("Int"):
            return str(_scale(int(old), rng))
        if type_name == "FloatArray":
            return ",".join(_float(float(k), key, rng) for k in old.split(","))
    except ValueError:
        return None
    return None


def _scale(value: int, rng: random.Random) -> int:
    """value x 2^u, u uniform in [-1, 1], at least 1 and different from ``value`` when it can."""
    for _ in range(8):
        new = max(1, round(value * 2 ** rng.uniform(-1, 1)))
        if new != value:
            return new
    return value + 1


def _float(value: float, key: str, rng: random.Random) -> str:
    new = value * 2 ** rng.uniform(-0.5, 0.5)
    if key == "P":  # a probability: Dropout keeps 0 < P < 1
        new = min(max(new, 0.01), 0.95)
    return f"{new:.3g}"


def argument_sites(project: Project, network: Network) -> list[tuple[Network, str, str, str]]:
    """(network, layer, property, type) of every Search=True argument reachable from ``network``:
    the Unit layer's own value where it sets one, else the Argument layer's ``Value``."""
    sites: list[tuple[Network, str, str, str]] = []
    seen: set[str] = set()
    todo = [network]
    while todo:
        caller = todo.pop()
        for layer in caller.layers:
            called = layer.properties.get("Network", "")
            if layer.type != "Unit" or not project.has_network(called):
                continue
            unit = project.network(called)
            for decl in arguments_of(unit).values():
                if not decl.search:
                    continue
                if _is_literal(layer.properties.get(decl.name, "")):
                    sites.append((caller, layer.name, decl.name, decl.type))
                elif called not in seen and _is_literal(decl.value):
                    sites.append((unit, decl.name, "Value", decl.type))
            if called not in seen:
                seen.add(called)
                todo.append(unit)
    return sites


def _is_literal(value: str) -> bool:
    return bool(value) and (value in ("True", "False") or
                            all(c.isdigit() or c in ",.-e" for c in value))  # fmt: skip

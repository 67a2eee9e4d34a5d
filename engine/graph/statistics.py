"""Network statistics: NNC's eight per-layer and per-network values plus what NNC lacks.

NNC's conventions (nnc-layers.md §1.6): a network value is the plain sum over its layers
(Input, Parameter and loss layers included); a Unit layer carries the sums over its expansion;
CostParameter counts a shared parameter at every layer that uses it. Beside them NeuroCanvas
reports the number of unique parameters (each parameter name once, one set per repeat
iteration), FLOPs = 2 x CostMultiplyAdd, and the parameter memory in bytes (float32).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from engine.graph import resolve
from engine.graph.infer import NetworkInference
from engine.layers import find_spec
from engine.layers.evaluate import RuleError
from engine.layers.spec import STATISTICS

__all__ = [
    "NetworkStatistics",
    "network_statistics",
    "parameter_table",
    "BYTES_PER_PARAMETER",
]

BYTES_PER_PARAMETER = 4  # float32


@dataclass(frozen=True)
class NetworkStatistics:
    """Totals and maxima of the eight statistics, per-layer values and the extras."""

    network: str
    totals: dict[str, int]
    maxima: dict[str, int]  # the largest layer value, as NNC's ``Statistics_<i>_Max``
    layers: dict[str, dict[str, int]]  # layer -> statistic -> value (layers that have values)
    shapes: dict[str, tuple[int, ...] | None]
    unique_parameters: int
    parameters: dict[str, int] = field(repr=False)  # parameter name -> element count

    @property
    def flops(self) -> int:
        """Floating-point operations of one forward pass per sample: 2 x multiply-adds."""
        return 2 * self.totals["CostMultiplyAdd"]

    @property
    def parameter_bytes(self) -> int:
        return BYTES_PER_PARAMETER * self.unique_parameters

    def summary(self) -> dict[str, int]:
        """The eight totals in NNC's order, then UniqueParameters, FLOPs and ParameterBytes."""
        return {
            **self.totals,
            "UniqueParameters": self.unique_parameters,
            "FLOPs": self.flops,
            "ParameterBytes": self.parameter_bytes,
        }


def network_statistics(inference: NetworkInference) -> NetworkStatistics:
    """Statistics of one (inferred) network; layers that failed contribute nothing."""
    results = inference.results()
    layers = {
        name: dict(zip(STATISTICS, r.stats, strict=True))
        for name, r in results.items()
        if r.stats is not None
    }
    totals = dict(zip(STATISTICS, inference.totals(), strict=True))
    maxima = {s: max((v[s] for v in layers.values()), default=0) for s in STATISTICS}
    table = parameter_table(inference)
    return NetworkStatistics(
        network=inference.network.name,
        totals=totals,
        maxima=maxima,
        layers=layers,
        shapes={name: r.shape for name, r in results.items()},
        unique_parameters=sum(table.values()),
        parameters=table,
    )


def parameter_table(inference: NetworkInference) -> dict[str, int]:
    """Every parameter of the network by full name -> element count (shared names once).

    Units add their ParameterScope in front (nnc-behaviour.md §1.3); parameters inside a
    repeat block exist once per iteration. The first definition of a shared name wins. The
    per-layer lists are cached with the layer's result, so after an edit only the changed
    layers are looked at again.
    """
    table: dict[str, int] = {}
    for name, result in inference.results().items():
        if result.error:
            continue
        memo = inference.memo(name)
        if "parameters" not in memo:
            memo["parameters"] = _layer_parameters(inference, name, result.type)
        for key, size in memo["parameters"]:  # type: ignore[attr-defined]
            table.setdefault(key, size)
    return table


def _layer_parameters(inference: NetworkInference, name: str, type_: str) -> list[tuple[str, int]]:
    spec = find_spec(type_)
    if spec is None:
        return []
    ev = inference.eval(name)
    if spec.type == "Unit":
        sub = inference.expansion(name)
        if sub is None:
            return []
        try:
            scope = str(ev.value("ParameterScope"))
        except RuleError:  # a bad scope (validation reports it): its parameters are not named
            return []
        return [(f"{scope}/{key}" if scope else key, n) for key, n in parameter_table(sub).items()]
    structure = inference.structure_memo()
    if "repeat_blocks" not in structure:
        structure["repeat_blocks"] = resolve.repeat_blocks(inference.network)
    starts = structure["repeat_blocks"].get(name, ())  # type: ignore[attr-defined]
    try:
        ids = [str(inference.eval(s).value("ID")) for s in starts]
        times = math.prod(_times(inference.eval(s).value("Times")) for s in starts)
    except RuleError:
        ids, times = [], 1
    shape = inference.result(name).shape
    fed = any(link.dest_pin == 0 for link in inference.network.inputs_of(name))
    try:
        own = list(_own_parameters(spec, name, ev, shape, ids, fed))
    except RuleError:  # a parameter shape that cannot be computed (validation reports it)
        return []
    return [(key, size * times) for key, size in own]


def _times(value: object) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 1


def _own_parameters(spec, name, ev, shape, ids, fed):  # noqa: ANN001, ANN202
    """(name, element count) of the parameters one layer owns (``fed``: it has a main input)."""
    if spec.type == "Parameter" or (spec.type == "WorkingMemory" and not fed):
        yield resolve.parameter_name(spec, name, "", None, (), ids), math.prod(shape)
        return
    if not spec.parameters:
        return
    scope = str(ev.value("ParameterScope")) if spec.prop("ParameterScope") else name
    for param in spec.parameters:
        if not ev.connector_enabled(param.name) or ev.context.is_wired(param.name):
            continue
        size = math.prod(ev.connector_shape(param.name))
        yield resolve.parameter_name(spec, name, scope, param, (), ids), size

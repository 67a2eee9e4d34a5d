"""Network statistics: NNC's eight per-layer and per-network values plus what NNC lacks.

NNC's conventions (docs/layers.md §1.6): a network value is the sum over its layers (Input,
Parameter and loss layers included), each layer counted once per iteration of the repeat blocks
and time step of the recurrent loops around it (:mod:`engine.graph.loops`); a Unit layer
carries the sums over its expansion; CostParameter counts a shared parameter at every layer that
uses it. NNC shows each network total as a float32: the exact sum rounded to the nearest float32
(alexnet CostMultiplyAdd 691,487,232 for 691,487,264; this rule gives NNC's number for every
statistic of all 184 networks of its samples). ``totals`` holds NNC's numbers, ``exact`` the
integer counts. Beside them NeuroCanvas reports the number of unique parameters (each parameter
name once, one set per repeat iteration), FLOPs = 2 x the exact CostMultiplyAdd, and the
parameter memory in bytes: float32, except a Parameter layer read only through quantizers of one
width (FixedPointQuantize/Pow2Quantize N, MinMaxQuantize L = 2^N - 1), which is stored at that
width (rounded up to whole bytes).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from engine.core.messages import QT_TRANSLATE_NOOP
from engine.core.numbers import shape_text
from engine.graph import nesting, parameter_names
from engine.graph.infer import NetworkInference, UnitCache
from engine.layers import find_spec
from engine.layers.evaluate import RuleError, Shape
from engine.layers.macros import pooling_output_size
from engine.layers.spec import STATISTICS

__all__ = [
    "NetworkStatistics",
    "network_statistics",
    "parameter_table",
    "as_float32",
    "pooling_disagreements",
    "pooling_message",
    "stored_bits",
    "BYTES_PER_PARAMETER",
]

BYTES_PER_PARAMETER = 4  # float32


@dataclass(frozen=True)
class NetworkStatistics:
    """Totals and maxima of the eight statistics, per-layer values and the extras."""

    network: str
    totals: dict[str, int]  # as NNC shows them: the exact sums rounded to float32
    exact: dict[str, int]  # the exact integer sums
    maxima: dict[str, int]  # the largest layer value, as NNC's ``Statistics_<i>_Max``
    layers: dict[str, dict[str, int]]  # layer -> statistic -> value (layers that have values)
    shapes: dict[str, tuple[int, ...] | None]
    unique_parameters: int
    parameters: dict[str, int] = field(repr=False)  # parameter name -> element count
    bits: dict[str, int] = field(default_factory=dict, repr=False)  # quantized ones: width

    @property
    def flops(self) -> int:
        """Floating-point operations of one forward pass per sample: 2 x multiply-adds."""
        return 2 * self.exact["CostMultiplyAdd"]

    @property
    def parameter_bytes(self) -> int:
        if not self.bits:
            return BYTES_PER_PARAMETER * self.unique_parameters
        return sum(math.ceil(n * self.bits.get(name, 8 * BYTES_PER_PARAMETER) / 8)
                   for name, n in self.parameters.items())  # fmt: skip

    def summary(self, exact: bool = False) -> dict[str, int]:
        """The eight totals in NNC's order (NNC's float32 values, or the ``exact`` sums), then
        UniqueParameters, FLOPs and ParameterBytes."""
        return {
            **(self.exact if exact else self.totals),
            "UniqueParameters": self.unique_parameters,
            "FLOPs": self.flops,
            "ParameterBytes": self.parameter_bytes,
        }


def network_statistics(inference: NetworkInference) -> NetworkStatistics:
    """Statistics of one (inferred) network; layers that failed contribute nothing.

    Where NNC's editor shows another pooling size than the one that runs (IgnoreBorder=False
    with Padding, :func:`pooling_disagreements`), the eight statistics are NNC's: counted on
    the editor's shapes. The shapes and unique parameters are always those that run.
    """
    results = inference.results()
    counted = _editor_inference(inference) if pooling_disagreements(inference) else inference
    layers = {
        name: dict(zip(STATISTICS, r.stats, strict=True))
        for name, r in counted.results().items()
        if r.stats is not None
    }
    exact = dict(zip(STATISTICS, counted.totals(), strict=True))
    maxima = {s: max((v[s] for v in layers.values()), default=0) for s in STATISTICS}
    table = parameter_table(inference)
    return NetworkStatistics(
        network=inference.network.name,
        totals={key: as_float32(value) for key, value in exact.items()},
        exact=exact,
        maxima=maxima,
        layers=layers,
        shapes={name: r.shape for name, r in results.items()},
        unique_parameters=sum(table.values()),
        parameters=table,
        bits=_unit_bits(inference),
    )


def pooling_disagreements(inference: NetworkInference) -> list[tuple[str, Shape, Shape]]:
    """(layer path, shape that runs, shape NNC's editor shows) of every pooling layer, units
    expanded, where the two differ: without IgnoreBorder nnabla pools to ceil((in + p) / s),
    NNC's editor shows ceil((in + 2p) / s)."""
    found: list[tuple[str, Shape, Shape]] = []
    for name, result in inference.results().items():
        spec = find_spec(result.type)
        if result.shape is None or spec is None:
            continue
        if spec.type == "Unit":
            sub = inference.expansion(name)
            inner = pooling_disagreements(sub) if sub is not None else []
            found += [(f"{name}/{path}", runs, shown) for path, runs, shown in inner]
        elif spec.output_rule == "*PoolingOutputSize":
            try:
                shown = pooling_output_size(inference.eval(name), editor=True)
            except RuleError:
                continue
            if shown != result.shape:
                found.append((name, result.shape, shown))
    return found


def pooling_message(runs: tuple[int, ...], shown: tuple[int, ...], inner: str) -> str:
    """The warning for one of :func:`pooling_disagreements` (``inner``: its path in a unit)."""
    message = QT_TRANSLATE_NOOP(
        "Problems", "with IgnoreBorder=False and Padding, nnabla (and this engine) pools to "
        "{runs} where NNC's editor shows {shown}: the network runs {runs}; the statistics are "
        "NNC's, counted on {shown}"
    ).format(runs=shape_text(runs), shown=shape_text(shown))  # fmt: skip
    if not inner:
        return message
    return QT_TRANSLATE_NOOP("Problems", 'its layer "{inner}", property Padding: {message}').format(
        inner=inner, message=message
    )


def _editor_inference(inference: NetworkInference) -> NetworkInference:
    """The same network inferred on the shapes NNC's editor shows."""
    return NetworkInference(
        inference.network,
        inference.project,
        arguments=inference.arguments,
        bound_input=inference.bound_input,
        unit_properties=inference.unit_properties,
        stack=inference.stack,
        units=UnitCache(inference.project, editor_shapes=True),
    )


def as_float32(count: int) -> int:
    """``count`` rounded to the nearest float32 (24 significant bits, ties to even), as NNC
    shows a network total."""
    shift = abs(count).bit_length() - 24
    if shift <= 0:
        return count
    kept, rest = divmod(abs(count), 1 << shift)
    half = 1 << (shift - 1)
    kept += rest > half or (rest == half and kept & 1)
    return (kept << shift) * (1 if count >= 0 else -1)


def stored_bits(network) -> dict[str, int]:  # noqa: ANN001 - an engine.graph.network.Network
    """Parameter layers read only through quantizers of one width -> that width in bits."""
    out: dict[str, int] = {}
    for layer in network.layers:
        if layer.type != "Parameter":
            continue
        widths = {_width(network.layer(k.destination)) for k in network.outputs_of(layer.name)}
        if len(widths) == 1 and None not in widths:
            out[layer.name] = widths.pop()  # type: ignore[assignment]
    return out


def _unit_bits(inference: NetworkInference) -> dict[str, int]:
    """:func:`stored_bits` of the network and of every unit it calls, by full parameter name
    (a quantized unit's Parameter layers get the calling Unit layer's ParameterScope)."""
    out = stored_bits(inference.network)
    for layer in inference.network.layers:
        if layer.type != "Unit" or inference.result(layer.name).error:
            continue
        sub = inference.expansion(layer.name)
        if sub is None:
            continue
        try:
            scope = str(inference.eval(layer.name).value("ParameterScope"))
        except RuleError:
            continue
        for key, bits in _unit_bits(sub).items():
            out.setdefault(f"{scope}/{key}" if scope else key, bits)
    return out


def _width(layer) -> int | None:  # noqa: ANN001 - a Layer
    """The bits a quantizer layer keeps (None for other layers or a width given by name)."""
    try:
        if layer.type in ("FixedPointQuantize", "Pow2Quantize"):
            return int(layer.properties.get("N", "8"))
        if layer.type == "MinMaxQuantize":
            return round(
                math.log2(float(layer.properties.get("L.InitializerMultiplier", "255")) + 1)
            )
    except (TypeError, ValueError):
        return None
    return None


def parameter_table(inference: NetworkInference) -> dict[str, int]:
    """Every parameter of the network by full name -> element count (shared names once).

    Units add their ParameterScope in front (docs/nnc-behaviour.md §1.3); parameters inside a
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
        structure["repeat_blocks"] = nesting.repeat_blocks(inference.network)
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
        yield parameter_names.parameter_name(spec, name, "", None, (), ids), math.prod(shape)
        return
    if not spec.parameters:
        return
    scope = str(ev.value("ParameterScope")) if spec.prop("ParameterScope") else name
    for param in spec.parameters:
        if not ev.connector_enabled(param.name) or ev.context.is_wired(param.name):
            continue
        size = math.prod(ev.connector_shape(param.name))
        yield parameter_names.parameter_name(spec, name, scope, param, (), ids), size

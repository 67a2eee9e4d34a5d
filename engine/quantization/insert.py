"""The quantizer insertion: a graph transform from a float network to a quantized one.

The result is made of ordinary NNC layers, so it saves to ``.sdcproj``/``.ncproj``, shows
shapes and statistics, trains, evaluates and exports like any network:

* an activation quantizer ``<Layer>_Quantize`` on the output links of each quantized layer,
  placed beside it (right, half a row down) so the original layers keep their places;
* a parameter quantizer chain ``Parameter -> <Layer>_<W|b>_Quantize -> W|b connector``; the
  Parameter layer is named after the float network's parameter (``Convolution/conv/W``), so a
  trained job's parameters load as they are. The chain sits to the right of its layer.

Inserting into a network that already holds such quantizers first removes them (recognised by
these names and this wiring), so applying the transform twice never stacks quantizers. Units
are treated as opaque layers (their output is quantized, not their insides).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field, replace

from engine.core.numbers import float_text, shape_text
from engine.graph.network import Layer, Link, Network
from engine.graph.parameter_names import parameter_name
from engine.graph.project import Project
from engine.graph.project_inference import ProjectInference
from engine.layers import find_spec
from engine.layers.evaluate import RuleError
from engine.layers.spec import ConnectorKind
from engine.quantization.scheme import QUANTIZERS, QuantizationError, Scheme, power_of_two_delta

__all__ = ["Ranges", "quantize_network", "quantize_networks", "insert_quantizers",
           "strip_quantizers", "quantizable_layers", "SUFFIX"]  # fmt: skip

SUFFIX = "_Quantize"
_TARGET_OF = {"W": "weights", "b": "biases"}
_NONNEGATIVE = frozenset({"ReLU", "ReLU6", "Sigmoid", "HardSigmoid", "Softmax", "SoftPlus",
                          "BinarySigmoid", "Abs", "Exp"})  # fmt: skip
# Layers whose output is non-negative when all their inputs are.
_KEEPS_SIGN = frozenset({"MaxPooling", "AveragePooling", "SumPooling", "GlobalAveragePooling",
                         "Unpooling", "Reshape", "Dropout", "Identity", "Concatenate", "Transpose",
                         "Slice", "Flip", "Broadcast", "BroadcastTo", "Tile"})  # fmt: skip
_FLOAT_NETWORK = "FloatNetwork"  # a Unit layer calling a quantized copy: the float unit network
_NOT_DATA = frozenset({"Input", "Parameter", "WorkingMemory", "Comment", "Argument"})
# Layout in NNC's file coordinates (multiples of its 24 grid): a box is 240 x 48; parameter
# chains start far enough right to leave room for the shape text beside each box.
_ROW, _CHAIN = 48, 336
_CHAIN_ROWS = 2  # a parameter chain: the Parameter, then its quantizer, above the layer
_CHAIN_STEP = 336  # between the W and b chains: a box and the shape drawn beside it


@dataclass
class Ranges:
    """Largest |value| seen per layer output and per parameter (from a calibration run)."""

    activations: dict[str, float] = field(default_factory=dict)
    parameters: dict[str, float] = field(default_factory=dict)


def _where(network: str, layer: str) -> str:
    return f'network "{network}", layer "{layer}"'


# -- removing earlier quantizers ----------------------------------------------------------------


def _chain_of(network: Network, layer: Layer) -> tuple[str, Link] | None:
    """``(parameter layer, link into its owner's connector)`` when ``layer`` is an inserted
    chain's quantizer, else None. A shared parameter's chain feeds every layer that shares it;
    the first of them owns (names) it."""
    ins, outs = network.inputs_of(layer.name), network.outputs_of(layer.name)
    if len(ins) != 1 or not outs or any(k.dest_pin == 0 for k in outs):
        return None
    source = network.layer(ins[0].source)
    spec = find_spec(network.layer(outs[0].destination).type)
    if source.type != "Parameter" or spec is None or outs[0].dest_pin > len(spec.connectors):
        return None
    connector = spec.connectors[outs[0].dest_pin - 1].name
    if layer.name != f"{outs[0].destination}_{connector}{SUFFIX}":
        return None
    return source.name, outs[0]


def strip_quantizers(network: Network, name: str | None = None) -> Network:
    """A copy of ``network`` without the quantizers this module inserts (links restored)."""
    drop: set[str] = set()
    bypass: dict[str, str] = {}  # activation quantizer -> the layer it follows
    for layer in network.layers:
        if layer.type not in QUANTIZERS.values() or not layer.name.endswith(SUFFIX):
            continue
        ins = network.inputs_of(layer.name)
        if len(ins) == 1 and ins[0].dest_pin == 0 and layer.name == ins[0].source + SUFFIX:
            bypass[layer.name] = ins[0].source
            drop.add(layer.name)
            continue
        chain = _chain_of(network, layer)
        if chain is not None and len(network.outputs_of(chain[0])) == 1:
            drop.update((layer.name, chain[0]))
    links = []
    for link in network.links:
        if link.source in bypass:
            links.append(replace(link, source=bypass[link.source]))
        elif link.source not in drop and link.destination not in drop:
            links.append(link)
    kept = [_float_unit(network.name, layer) for layer in network.layers if layer.name not in drop]
    owners = [chain[1].destination for layer in network.layers if layer.name in drop
              and (chain := _chain_of(network, layer)) is not None]  # fmt: skip
    extras = {n: _extra_rows(n in bypass.values(), owners.count(n)) for n in set(owners)
              | set(bypass.values())}  # fmt: skip
    places = _shifted(kept, extras, -1)
    layers = [replace(layer, position=places[layer.name]) for layer in kept]
    return Network(name or network.name, layers, links, network.extra)


def _float_unit(network: str, layer: Layer) -> Layer:
    """A Unit layer calling its quantized unit copy (``<network>_<layer>``) calls the float
    unit network again (its name is kept in the layer's ``FloatNetwork``)."""
    original = layer.extra.get(_FLOAT_NETWORK)
    if layer.type != "Unit" or original is None:
        return layer
    extra = {k: v for k, v in layer.extra.items() if k != _FLOAT_NETWORK}
    if layer.properties.get("Network") != f"{network}_{layer.name}":
        return replace(layer, extra=extra)  # pointed elsewhere since: left as it is
    return replace(layer, properties={**layer.properties, "Network": original}, extra=extra)


def _extra_rows(activation: bool, chains: int) -> tuple[int, int]:
    """(rows a layer needs above it, rows below it): its parameter chains stand above it
    (each a Parameter over its quantizer, so their wires run down into the layer's pins and
    cross no box), its output quantizer below it."""
    return (_CHAIN_ROWS if chains else 0), int(activation)


def _shifted(layers, extras: Mapping[str, tuple[int, int]], direction: int) -> dict[str, tuple]:  # noqa: ANN001, E501
    """Positions with every layer moved down (``direction`` 1) or back up (-1) by the rows
    the layers need: rows above a layer move it and every layer at or below its y, rows below
    it every layer below its y. Rows are counted per y (boxes side by side share them), and
    the shift keeps the order of the ys, so -1 undoes +1 exactly."""
    above: dict[float, int] = {}
    below: dict[float, int] = {}
    for layer in layers:
        up, down = extras.get(layer.name, (0, 0))
        y = layer.position[1]
        if up:
            above[y] = max(above.get(y, 0), up)
        if down:
            below[y] = max(below.get(y, 0), down)
    out = {}
    for layer in layers:
        x, y = layer.position
        rows = sum(n for r, n in above.items() if r <= y) + sum(
            n for r, n in below.items() if r < y
        )
        out[layer.name] = (x, y + direction * _ROW * rows)
    return out


# -- which layers ---------------------------------------------------------------------------


def _parametric(layer: Layer) -> bool:
    spec = find_spec(layer.type)
    if spec is None:
        return False
    return layer.type == "Unit" or any(c.kind is ConnectorKind.PARAMETER for c in spec.connectors)


def _ancestors_of_parametric(network: Network) -> set[str]:
    """Layers from which a parametric layer can be reached, the parametric ones included."""
    seen: set[str] = set()
    stack = [layer.name for layer in network.layers if _parametric(layer)]
    while stack:
        name = stack.pop()
        if name in seen:
            continue
        seen.add(name)
        stack.extend(link.source for link in network.inputs_of(name) if link.dest_pin == 0)
    return seen


def quantizable_layers(network: Network, scheme: Scheme, unit: bool = False) -> list[str]:
    """Layers whose output/parameters the scheme quantizes, in network order. Inside a unit
    (``unit``) every data layer is, its last one included: the caller decides about the
    unit's output."""
    names = set(network.layer_names)
    for option, listed in (("skip", scheme.skip), ("only", scheme.only)):
        for name in listed or ():
            if name not in names:
                raise QuantizationError(f'{option}: network "{network.name}" has no layer "{name}"')
    keep = set(names) if unit else _ancestors_of_parametric(network)
    out = []
    for layer in network.layers:
        spec = find_spec(layer.type)
        default_skip = (
            spec is None or spec.is_loss or layer.type in _NOT_DATA or layer.name not in keep
            or spec.category in ("Setting", "Quantize")
            or (not unit and not network.outputs_of(layer.name))
        )  # fmt: skip
        skipped = scheme.skip is None and default_skip
        if skipped or layer.name in (scheme.skip or ()) or (spec is None):
            continue
        if scheme.only is not None and layer.name not in scheme.only:
            continue
        out.append(layer.name)
    return out


def _nonnegative(network: Network) -> set[str]:
    """Layers whose output cannot be negative (ReLU-like, or pooling of such)."""
    out: set[str] = set()
    for _ in range(len(network.layers)):  # a fixed point; networks are small
        before = len(out)
        for layer in network.layers:
            ins = [k.source for k in network.inputs_of(layer.name) if k.dest_pin == 0]
            if layer.type in _NONNEGATIVE or (
                layer.type in _KEEPS_SIGN and ins and all(s in out for s in ins)
            ):
                out.add(layer.name)
        if len(out) == before:
            break
    return out


# -- quantizer layers -----------------------------------------------------------------------


def _quantizer(
    network: Network, name: str, scheme: Scheme, bits: int, sign: bool, max_abs: float | None,
    position: tuple[float, float], where: str,
) -> Layer:  # fmt: skip
    """One quantizer layer with the scheme's settings; Delta/M/range from ``max_abs``."""
    kind = scheme.layer_type
    base = network.new_layer(kind, position, name)
    props = dict(base.properties)
    ste = str(scheme.ste_fine_grained)
    if kind == "FixedPointQuantize":
        if sign and bits < 2:
            raise QuantizationError(f"{where}: a signed FixedPointQuantize needs >= 2 bits")
        delta = scheme.delta if max_abs is None else power_of_two_delta(max_abs, bits, sign)
        if delta is None:
            raise QuantizationError(
                f"{where}: no Delta; give a fixed Delta or calibrate from a trained job"
            )
        props.update(Sign=str(sign), N=str(bits), Delta=float_text(delta), STEFineGrained=ste)
    elif kind == "Pow2Quantize":
        if bits - int(sign) - 1 < 1:
            raise QuantizationError(f"{where}: Pow2Quantize needs >= {2 + int(sign)} bits here")
        top = 1 if not max_abs else max(0, math.ceil(math.log2(max_abs)))  # M is >= 0 in NNC
        props.update(Sign=str(sign), WithZero="True", N=str(bits), M=str(top), STEFineGrained=ste)
    else:
        top = max_abs if max_abs else 6.0
        props.update({"XMinMax": "False", "EMA": "False", "STEFineGrained": ste,
                      "r.InitializerMultiplier": float_text(-top if sign else 0.0),
                      "R.InitializerMultiplier": float_text(top),
                      "l.InitializerMultiplier": "0.0",
                      "L.InitializerMultiplier": float_text(2**bits - 1)})  # fmt: skip
    return Layer(name, kind, props, position=position)


def _take_name(network_names: set[str], name: str, where: str) -> str:
    if name in network_names:
        raise QuantizationError(f'{where}: the name "{name}" is taken by another layer; rename it')
    network_names.add(name)
    return name


# -- the transform --------------------------------------------------------------------------


@dataclass(frozen=True)
class _Call:
    """Where a network is quantized: the top network, or a unit network for one Unit layer."""

    path: str = ""  # call path of its layers' outputs in a calibration, "ConvBlock/" in a unit
    scopes: tuple[str, ...] = ()  # the ParameterScopes of the enclosing Unit layers
    unit: bool = False
    overrides: Mapping[str, str] = field(default_factory=dict)  # the Unit's <L>.<p>.* values


def quantize_network(
    project: Project,
    source: str,
    scheme: Scheme,
    ranges: Ranges | None = None,
    name: str | None = None,
) -> Network:
    """The quantized copy of network ``source`` (not added to the project; see the module).
    Its quantized Unit layers call the unit copies :func:`quantize_networks` also returns."""
    return quantize_networks(project, source, scheme, ranges, name)[0]


def quantize_networks(
    project: Project,
    source: str,
    scheme: Scheme,
    ranges: Ranges | None = None,
    name: str | None = None,
) -> list[Network]:
    """The quantized copy of ``source`` first, then one quantized copy of a unit network per
    quantized Unit layer (per call): ``<name>_<Unit layer>``, nested calls
    ``<that>_<inner Unit layer>``. A call's copy quantizes the weights, biases and outputs
    inside the unit at the Unit layer's bits, calibrated on that call's values; its Parameter
    layers keep the float names under the call's ParameterScope (``ConvBlock/Convolution/conv/W``),
    so calls that share parameters (one ParameterScope) still share them."""
    if not project.has_network(source):
        raise QuantizationError(
            f'no network "{source}" (networks: {", ".join(project.network_names)})'
        )
    # Quantizers inserted before (in the source and in the unit copies it calls) are removed.
    scratch = Project([strip_quantizers(n) for n in project.networks])
    inference = ProjectInference(scratch, follow=False)
    units: list[Network] = []
    try:
        base = scratch.network(source)
        main = _build(base, inference.network(source), scheme, ranges, name or source, _Call(),
                      units)  # fmt: skip
    finally:
        inference.close()
    return [main, *units]


def _terminal(network: Network) -> str | None:
    ends = [layer.name for layer in network.layers
            if not network.outputs_of(layer.name) and layer.type not in _NOT_DATA]  # fmt: skip
    return ends[0] if len(ends) == 1 else None


def _output_key(inference, layer_name: str, path: str) -> str:  # noqa: ANN001
    """The calibration key of a layer's output: its call path (a Unit layer's output is the
    last layer of its unit)."""
    if inference.network.layer(layer_name).type != "Unit":
        return path + layer_name
    sub = inference.expansion(layer_name)
    terminal = None if sub is None else _terminal(sub.network)
    if terminal is None:
        return path + layer_name
    return _output_key(sub, terminal, f"{path}{layer_name}/")


def _build(base, inference, scheme: Scheme, ranges: Ranges | None, name: str, call: _Call,
           units: list[Network]) -> Network:  # noqa: ANN001  # fmt: skip
    layers = list(base.layers)
    extra_links: list[Link] = []
    rewire: dict[str, str] = {}
    taken = set(base.layer_names)
    unsigned = _nonnegative(base)
    chosen = quantizable_layers(base, scheme, unit=call.unit)
    places: dict[str, tuple[str, int, int]] = {}  # new layer -> (owner, dx, rows below it)
    shared: dict[str, str] = {}  # parameter name -> its quantizer (shared parameters)
    extras: dict[str, tuple[int, int]] = {}
    eligible = set(quantizable_layers(base, replace(scheme, only=None), unit=call.unit))
    for layer_name in chosen:
        layer = base.layer(layer_name)
        where = _where(base.name, layer_name)
        bits = scheme.bits_of(layer_name)
        added: list[Layer] = []
        # Data paths between quantized layers: the last layers' outputs (to softmax and the
        # loss) stay float, like the wide accumulator a fixed-point design ends with.
        feeds_quantized = any(k.destination in eligible for k in base.outputs_of(layer_name))
        if "activations" in scheme.targets and feeds_quantized:
            sign = scheme.sign if scheme.sign is not None else layer_name not in unsigned
            seen = None
            if ranges is not None:
                seen = ranges.activations.get(_output_key(inference, layer_name, call.path))
            q = _quantizer(base, _take_name(taken, layer_name + SUFFIX, where), scheme, bits,
                           sign, seen, (0, 0), f"{where}, output")  # fmt: skip
            added.append(q)
            places[q.name] = (layer_name, 0, 1)
            rewire[layer_name] = q.name
            extra_links.append(Link(layer_name, q.name))
        if layer.type == "Unit":
            copy = _unit_copy(base, inference, layer, scheme, ranges, name, call, units)
            layers[layers.index(layer)] = copy
            layer = copy
        rows = 0
        for chain, links in _parameter_chains(
            base, inference, layer, scheme, ranges, taken, shared, call
        ):
            extra_links.extend(links)
            if chain:  # a new chain (a shared parameter reuses the first one)
                added.extend(chain)
                # Side by side above the layer (W, then b): the quantizer one row up, its
                # Parameter over it; wires run down, Parameter -> quantizer -> the pin.
                places[chain[0].name] = (layer_name, _CHAIN + _CHAIN_STEP * rows, -1)
                places[chain[1].name] = (layer_name, _CHAIN + _CHAIN_STEP * rows, -2)
                rows += 1
        extras[layer_name] = _extra_rows(layer_name in rewire, rows)
        index = layers.index(layer) + 1
        layers[index:index] = added
    links = [replace(k, source=rewire[k.source]) if k.source in rewire and k.source_pin == 0
             else k for k in base.links]  # fmt: skip
    # New layers and links take IDs after the existing ones, which keep theirs (so removing
    # the quantizers again gives back the same network).
    moved = _shifted(base.layers, extras, 1)
    for k, layer in enumerate(layers):
        if layer.name in moved:
            layers[k] = replace(layer, position=moved[layer.name])
        else:
            owner, dx, row = places[layer.name]
            x, y = moved[owner]
            layers[k] = replace(layer, position=(x + dx, y + row * _ROW))
    first_layer, first_link = base.next_layer_id(), base.next_link_id()
    new = [k for k, layer in enumerate(layers) if layer.id is None]
    for offset, k in enumerate(new):
        layers[k] = replace(layers[k], id=first_layer + offset)
    extra_links = [replace(k, id=first_link + i) for i, k in enumerate(extra_links)]
    return Network(name, layers, [*links, *extra_links], base.extra)


def _unit_copy(base, inference, layer: Layer, scheme: Scheme, ranges, name: str, call: _Call,
               units: list[Network]) -> Layer:  # noqa: ANN001  # fmt: skip
    """Quantizes the unit network ``layer`` calls, for this call, into ``units``; returns the
    Unit layer calling the copy."""
    where = _where(base.name, layer.name)
    sub = inference.expansion(layer.name)
    if sub is None or inference.result(layer.name).error:
        raise QuantizationError(
            f"{where}: the unit cannot be expanded ({inference.result(layer.name).error}); "
            "fix the network's problems first"
        )
    try:
        scope = str(inference.eval(layer.name).value("ParameterScope") or "")
    except RuleError as exc:
        raise QuantizationError(f"{where}, property ParameterScope: {exc}") from None
    inner = _Call(
        path=f"{call.path}{layer.name}/",
        scopes=(*call.scopes, scope),
        unit=True,
        overrides={k: v for k, v in layer.properties.items() if k.count(".") >= 2},
    )
    unit_scheme = replace(scheme, bits=scheme.bits_of(layer.name), layer_bits={}, skip=None,
                          only=None)  # fmt: skip
    copy_name = f"{name}_{layer.name}"
    units.append(Network(copy_name, [], []))  # its place: before the units it calls
    index = len(units) - 1
    units[index] = _build(sub.network, sub, unit_scheme, ranges, copy_name, inner, units)
    return replace(
        layer,
        properties={**layer.properties, "Network": copy_name},
        extra={**layer.extra, _FLOAT_NETWORK: layer.properties.get("Network", "")},
    )


def _parameter_chains(base, inference, layer: Layer, scheme: Scheme, ranges, taken, shared,  # noqa: ANN001, ANN202, E501
                      call: _Call):  # fmt: skip
    """``([Quantize, Parameter], [links])`` for each targeted, unwired parameter connector;
    ``([], [link])`` when the parameter is shared with a layer quantized before."""
    spec = find_spec(layer.type)
    if spec is None or layer.type == "Unit":
        return
    ev = inference.eval(layer.name)
    if ev is None or inference.result(layer.name).error:
        raise QuantizationError(
            f"{_where(base.name, layer.name)}: its shape is unknown "
            f"({inference.result(layer.name).error}); fix the network's problems first"
        )
    wired = {k.dest_pin for k in base.inputs_of(layer.name)}
    for pin, connector in enumerate(spec.connectors, start=1):
        target = _TARGET_OF.get(connector.name)
        if (connector.kind is not ConnectorKind.PARAMETER or target not in scheme.targets
                or pin in wired or not ev.connector_enabled(connector.name)):  # fmt: skip
            continue
        where = f"{_where(base.name, layer.name)}, parameter {connector.name}"
        pspec = next(p for p in spec.parameters if p.name == connector.name)
        scope = str(ev.value("ParameterScope")) if spec.prop("ParameterScope") else layer.name
        pname = parameter_name(spec, layer.name, scope, pspec)
        if pname in shared:
            yield [], [Link(shared[pname], layer.name, pin)]
            continue
        try:
            shape = tuple(ev.connector_shape(connector.name))
        except RuleError as exc:
            raise QuantizationError(f"{where}: unknown shape ({exc})") from None
        seen = None
        if ranges is not None:  # calibrated under the full name (the calls' scopes in front)
            full = parameter_name(spec, layer.name, scope, pspec, call.scopes)
            seen = ranges.parameters.get(full)
        sign = True if scheme.sign is None else scheme.sign
        q = _quantizer(base, _take_name(taken, f"{layer.name}_{connector.name}{SUFFIX}", where),
                       scheme, scheme.bits_of(layer.name), sign, seen, (0, 0), where)  # fmt: skip
        settings = {
            key: call.overrides.get(f"{layer.name}.{connector.name}.{key}")
            or _setting(layer, ev, f"{connector.name}.{key}")
            for key in ("File", "Initializer", "InitializerMultiplier", "LRateMultiplier")
        }
        parameter = Layer(_take_name(taken, pname, where), "Parameter",
                          {"Size": shape_text(shape), **settings})  # fmt: skip
        shared[pname] = q.name
        yield [q, parameter], [Link(parameter.name, q.name), Link(q.name, layer.name, pin)]


def _setting(layer: Layer, ev, key: str) -> str:  # noqa: ANN001 - a LayerEval
    """The layer's text as written (``1`` stays ``1``), resolved when it is a reference."""
    raw = layer.properties.get(key)
    if raw is not None and not raw.startswith("*"):
        return raw
    value = ev.value(key)
    return "" if value is None else str(value)


def insert_quantizers(
    project: Project,
    source: str,
    scheme: Scheme,
    ranges: Ranges | None = None,
    name: str | None = None,
) -> Network:
    """Add the quantized copy of ``source`` to ``project`` as ``name`` (default
    ``<source>_q<bits>``), and after it the quantized unit copies its Unit layers call
    (:func:`quantize_networks`); re-quantizing a network replaces it (and its copies) in
    place."""
    name = name or default_name(source, scheme.bits)
    network, *units = quantize_networks(project, source, scheme, ranges, name)
    replacing = project.has_network(name)
    if replacing and name != source:
        raise QuantizationError(
            f'a network named "{name}" exists already; choose another name for the result'
        )
    for unit in units:
        if project.has_network(unit.name) and not replacing:
            raise QuantizationError(
                f'a network named "{unit.name}" exists already (the quantized copy of unit '
                f'"{unit.name[len(name) + 1 :]}" takes that name); rename it or choose another '
                "name for the result"
            )
    for unit in units:
        if project.has_network(unit.name):
            project.remove_network(unit.name)
    if replacing:
        index = project.network_index(name)
        project.remove_network(name)
    else:
        index = project.network_index(source) + 1
    result = project.add_network(network, index)
    for offset, unit in enumerate(units, start=1):
        project.add_network(unit, index + offset)
    return result


def default_name(source: str, bits: int) -> str:
    """``Main`` -> ``Main_q8``; ``Main_q8`` -> ``Main_q4`` (quantizing again replaces)."""
    stem, _, tail = source.rpartition("_q")
    return f"{stem if stem and tail.isdigit() else source}_q{bits}"

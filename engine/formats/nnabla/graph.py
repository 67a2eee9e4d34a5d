"""A model as nnabla sees it, and how it becomes an editable NeuroCanvas network.

:class:`ModelGraph` is what the NNP/nntxt reader and the ONNX importer both produce: nnabla
functions (type, input and output variables, ``<snake>_param`` arguments), the network inputs
with their shapes (batch axis excluded) and the parameter values. :func:`build_network` turns it
into a :class:`~engine.graph.network.Network` through the layer catalogue: a function of type
``Convolution`` becomes the layer type whose F function it is, each argument becomes the property
whose ``ArgumentName`` is ``convolution_param.<arg>`` (``-a`` axes count without the batch axis,
``-b`` shapes leave it out), and the sizes NNC keeps as properties (OutMaps, KernelShape,
OutShape, WithBias) are read from the parameters. Layers are laid out top to bottom by graph
depth (networkx).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache
from typing import Any

import numpy as np

from engine.core import optional
from engine.graph.network import Layer, Link, Network
from engine.layers import all_specs, find_spec
from engine.layers.loop_control import LOOP_TYPES
from engine.layers.spec import ConnectorKind, Inputs, LayerSpec

nx = optional.lazy("networkx")  # for laying an imported graph out only

__all__ = ["Function", "ModelGraph", "ImportError_", "build_network", "spec_for", "snake"]

Shape = tuple[int, ...]


class ImportError_(ValueError):  # noqa: N801 - ``ImportError`` is Python's own
    """A model that cannot be imported; the message names the file and the node or parameter."""


@dataclass
class Function:
    """One nnabla function call."""

    name: str
    type: str  # nnabla's function type (``Convolution``, ``ReLU``)
    inputs: list[str]
    outputs: list[str]
    args: dict[str, Any] = field(default_factory=dict)


@dataclass
class ModelGraph:
    """A network as functions over named variables (see the module docstring)."""

    name: str
    inputs: dict[str, Shape]  # variable -> shape without the batch axis
    functions: list[Function]
    parameters: dict[str, np.ndarray]
    outputs: list[str]
    data_names: dict[str, str] = field(default_factory=dict)  # variable -> dataset variable
    generators: dict[str, tuple[str, float]] = field(default_factory=dict)  # var -> kind, mult
    # parameters of repeat blocks: var -> (its repeat ids, [(iteration index, value), ...])
    repeated: dict[str, tuple[list[str], list[tuple[tuple[int, ...], np.ndarray]]]] = field(
        default_factory=dict
    )
    shapes: dict[str, Shape] = field(default_factory=dict)  # variable -> shape without batch
    # WorkingMemory: variable -> (the layer's properties, its stored value or None)
    buffers: dict[str, tuple[dict[str, str], np.ndarray | None]] = field(default_factory=dict)
    loops: dict[str, int] = field(default_factory=dict)  # repeat_info: loop id -> times


def snake(name: str) -> str:
    """nnabla's snake_case of a function type: ``ReLU`` -> ``relu``, ``MaxPooling`` -> ..."""
    text = re.sub(r"([A-Z]+)([A-Z][a-z])", r"\1_\2", name)
    return re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", text).lower()


@cache
def _by_function() -> dict[str, LayerSpec]:
    """nnabla function type -> the layer spec that runs it (the layer of the same name first)."""
    table: dict[str, LayerSpec] = {}
    for spec in all_specs():
        if spec.function and spec.type.startswith("BinaryConnect") is False:
            table.setdefault(spec.function, spec)
    for spec in all_specs():
        if spec.function and snake(spec.type) == spec.function:
            table[spec.function] = spec
    return table


@cache
def _by_type() -> dict[str, LayerSpec]:
    return {s.type: s for s in all_specs() if s.function or s.type in (*LOOP_TYPES, "LSTM")}


def spec_for(function_type: str) -> LayerSpec | None:
    """The layer spec that computes nnabla function ``function_type``, or None."""
    spec = _by_type().get(function_type)
    return spec if spec is not None else _by_function().get(snake(function_type))


def _text(value: Any) -> str:
    if isinstance(value, bool | np.bool_):
        return "True" if value else "False"
    if isinstance(value, list | tuple | np.ndarray):
        return ",".join(_text(v) for v in value)
    if isinstance(value, float | np.floating):
        return repr(float(value))
    return str(value)


def _property_values(spec: LayerSpec, fn: Function) -> dict[str, str]:
    """Properties set from the function's ``<snake>_param`` arguments (catalogue mapping)."""
    props = {}
    for prop in spec.properties:
        arg = prop.argument
        if arg is None or "." not in arg.name:
            continue
        key = arg.name.split(".", 1)[1]
        if key not in fn.args:
            continue
        value = fn.args[key]
        if "-0" in arg.flags:  # the batch axis 0 is implied
            value = list(value)[1:]
        if arg.is_axis:
            value = [int(v) - 1 for v in value] if isinstance(value, list | tuple) else value - 1
        if "-b" in arg.flags:
            value = list(value)[1:]
        props[prop.name] = _text(value)
    return props


def _sizes(spec: LayerSpec, fn: Function, params: dict[str, np.ndarray]) -> dict[str, str]:
    """The sizes NNC keeps as properties, read from the parameter shapes (``W``, ``b``)."""
    props: dict[str, str] = {}
    names = {p.name for p in spec.properties}
    if "WithBias" in names:
        props["WithBias"] = _text("b" in params)
    w = params.get("W")
    function = spec.function or ""
    if w is None:
        return props
    group = int(fn.args.get("group", 1))
    if function.endswith("affine"):
        props["OutShape"] = _text(list(w.shape[1:]))
    elif function == "depthwise_convolution":
        props["KernelShape"] = _text(list(w.shape[1:]))
    elif function.endswith("convolution"):
        deconv = function.endswith("deconvolution")
        props["KernelShape"] = _text(list(w.shape[2:]))
        props["OutMaps"] = str(w.shape[1] * group if deconv else w.shape[0])
    if "BorderMode" in names:
        props["BorderMode"] = "valid"  # the padding is explicit
    return props


def build_network(graph: ModelGraph, where: str) -> tuple[Network, dict[str, np.ndarray]]:
    """The network and its parameters renamed as NNC names them (``Conv/conv/W``).

    Raises:
        ImportError_: functions without a layer (all listed), before anything is built.
    """
    missing = sorted({f'{f.type} (node "{f.name}")' for f in graph.functions
                      if f.type != "Parameter" and spec_for(f.type) is None})  # fmt: skip
    if missing:
        raise ImportError_(f"{where}: no NNC layer for {', '.join(missing)}")
    net = Network(graph.name)
    producer: dict[str, str] = {}  # variable -> layer name
    for var in graph.inputs:
        if any(var in f.inputs[:1] or _main_input(f, var) for f in graph.functions):
            layer = net.new_layer("Input", name=_clean(graph.data_names.get(var, var)))
            props = {**layer.properties, "Size": _text(list(graph.inputs[var])),
                     "Dataset": graph.data_names.get(var, var)}  # fmt: skip
            if var in graph.generators:
                kind, multiplier = graph.generators[var]
                props.update(Generator=kind, GeneratorMultiplier=_text(multiplier))
            net.add_layer(Layer(layer.name, "Input", props))
            producer[var] = layer.name
    params: dict[str, np.ndarray] = {}
    loops = _Loops()
    produced = {o for f in graph.functions for o in f.outputs}
    for var in graph.buffers:  # a WorkingMemory read without input: the stored buffer
        if var not in produced and any(var in f.inputs for f in graph.functions):
            producer[var] = _working_memory(net, graph, var, params)
    for fn in graph.functions:
        if fn.type == "Parameter":  # a constant operand: a Parameter layer holding it
            producer[fn.outputs[0]] = _parameter(net, graph, fn, params)
            continue
        spec = spec_for(fn.type)
        if fn.type == "Identity" and fn.outputs[0] in graph.buffers:  # one that stores
            spec = find_spec("WorkingMemory")
        assert spec is not None
        layer = _add_layer(net, graph, loops.plain(fn), spec, producer, params)
        if spec.type == "WorkingMemory":
            _working_memory(net, graph, fn.outputs[0], params, layer)
        loops.added(net, graph, fn, layer)
        for out in fn.outputs:
            producer[out] = layer
    loops.finish(net, graph, producer, params, where)
    _layout(net)
    return net, params


def _parameter(net: Network, graph: ModelGraph, fn: Function,
               params: dict[str, np.ndarray]) -> str:  # fmt: skip
    """A Parameter layer whose value is the function's one input (a parameter): what an ONNX
    operator's constant operand becomes when no layer can take it as its own parameter."""
    value = graph.parameters[fn.inputs[0]]
    layer = net.unique_name(_clean(fn.name.replace("/", "_")))
    props = {**net.new_layer("Parameter").properties, "Size": _text(list(value.shape)),
             "Initializer": "Constant"}  # fmt: skip
    net.add_layer(Layer(layer, "Parameter", props))
    params[layer] = value
    return layer


def _working_memory(net: Network, graph: ModelGraph, var: str, params: dict[str, np.ndarray],
                    layer: str | None = None) -> str:  # fmt: skip
    """The WorkingMemory layer of buffer ``var`` (named after it: networks share buffers by
    layer name), made here or completed when ``layer`` stores into it."""
    props, value = graph.buffers[var]
    if layer is None:
        layer = net.unique_name(_clean(var))
        net.add_layer(Layer(layer, "WorkingMemory", {**net.new_layer("WorkingMemory").properties,
                                                     **props}))  # fmt: skip
    else:
        for key, text in props.items():
            _set(net, layer, key, text)
    if value is not None:
        params[layer] = value
    return layer


class _Loops:
    """nnabla's loop functions as NNC's layers (docs/layers.md §4.7): a RepeatStart links
    only its first input (the loop back is implied), a Delay's previous-step input is a link
    into its pin 0 made once its producer exists, and the parameters of a repeat block are
    stored per iteration under the imported layer's name (``Conv[1]/conv/W``), as the engine
    expands the ``{ID}`` of the enclosing RepeatStart layers."""

    def __init__(self) -> None:
        self.delays: list[tuple[str, str]] = []  # (Delay layer, variable of the previous step)
        self.scoped: dict[str, list[str]] = {}  # layer -> its parameters of a repeat block

    @staticmethod
    def plain(fn: Function) -> Function:
        if fn.type == "RepeatStart":
            return Function(fn.name, fn.type, fn.inputs[:1], fn.outputs)
        if fn.type == "Delay":  # "" is wired later; the Initial side input stays
            return Function(fn.name, fn.type, ["", *fn.inputs[1:2]], fn.outputs)
        if fn.type in LOOP_TYPES:  # ids and counts are computed from the drawn loop
            return Function(fn.name, fn.type, fn.inputs, fn.outputs,
                            {k: v for k, v in fn.args.items() if k == "axis"})  # fmt: skip
        return fn

    def added(self, net: Network, graph: ModelGraph, fn: Function, layer: str) -> None:
        if fn.type == "RepeatStart":  # repeat_info counts (RepeatEnd alone needs times)
            _set(net, layer, "Times", str(graph.loops[fn.args["repeat_id"]]))
        elif fn.type == "Delay":
            self.delays.append((layer, fn.inputs[0]))
            _set(net, layer, "Size", _text(list(graph.shapes.get(fn.outputs[0], ()))))
        elif fn.type == "LSTM":  # folded back by engine.formats.nnabla.lstm
            _set(net, layer, "Axis", str(int(fn.args["axis"]) - 1))
            _set(net, layer, "Size", _text(list(fn.args["size"])))
        self.scoped[layer] = [v for v in fn.inputs if v in graph.repeated]

    def finish(self, net: Network, graph: ModelGraph, producer: Mapping[str, str],
               params: dict[str, np.ndarray], where: str) -> None:  # fmt: skip
        for layer, back in self.delays:
            if back not in producer:
                raise ImportError_(f'{where}: Delay "{layer}": its input "{back}" is computed by '
                                   f"no node")  # fmt: skip
            net.connect(Link(producer[back], layer, dest_pin=0))
        for layer, used in self.scoped.items():
            for var in used:
                _, values = graph.repeated[var]
                key = next(k for k in params if k.startswith(layer + "/") and
                           params[k] is values[0][1])  # fmt: skip
                del params[key]
                for index, value in values:
                    suffix = "".join(f"[{i}]" for i in index)
                    params[layer + suffix + key.removeprefix(layer)] = value


def _main_input(fn: Function, var: str) -> bool:
    spec = spec_for(fn.type)
    return spec is not None and spec.inputs is Inputs.MULTIPLE and var in fn.inputs


def _clean(name: str) -> str:
    return name.replace("\n", " ").strip() or "Layer"


def _add_layer(
    net: Network, graph: ModelGraph, fn: Function, spec: LayerSpec,
    producer: Mapping[str, str], params: dict[str, np.ndarray],
) -> str:  # fmt: skip
    name = net.unique_name(_clean(fn.name.replace("/", "_")))
    base = net.new_layer(spec.type, name=name)
    props = dict(base.properties)
    data = [v for v in fn.inputs if v not in graph.parameters]
    values = [graph.parameters[v] for v in fn.inputs if v in graph.parameters]
    own = [c.name for c in spec.connectors if c.kind is ConnectorKind.PARAMETER]
    paths = {c.name: c.parameter_path for c in spec.connectors if c.parameter_path}
    if len(values) > len(own):
        raise ImportError_(f'node "{fn.name}" ({fn.type}): {len(values)} parameters, the layer '
                           f"{spec.type} takes {len(own)}")  # fmt: skip
    given = dict(zip(own, values, strict=False))
    if spec.type != "LSTM":  # its arguments are set by _Loops
        props.update(_property_values(spec, fn))
    props.update(_sizes(spec, fn, given))
    for conn, value in given.items():
        path = paths.get(conn) or f"{spec.fn_scope or snake(spec.type)}/{conn}"
        params[f"{name}/{path}"] = value
    net.add_layer(Layer(name, spec.type, props))
    side = [c for c in spec.connectors if c.kind is ConnectorKind.DATA]
    for k, var in enumerate(data):
        if not var:  # wired later (a Delay's previous step)
            continue
        if spec.inputs is Inputs.MULTIPLE or k == 0:
            pin = 0
        elif k - 1 < len(side):
            pin = spec.pin_of(side[k - 1].name)
            if var not in producer or net.layer(producer[var]).type == "Input":
                conn = side[k - 1].name
                if var in graph.generators:
                    kind, multiplier = graph.generators[var]
                    _set(net, name, f"{conn}.Generator", kind)
                    _set(net, name, f"{conn}.GeneratorMultiplier", _text(multiplier))
                else:  # fed from the data (Generator None: a generator would win over it)
                    _set(net, name, f"{conn}.Dataset", graph.data_names.get(var, var))
                    _set(net, name, f"{conn}.Generator", "None")
                continue
        else:
            raise ImportError_(f'node "{fn.name}" ({fn.type}): {len(data)} inputs, the layer '
                               f"{spec.type} takes {1 + len(side)}")  # fmt: skip
        if var not in producer:
            raise ImportError_(f'node "{fn.name}" ({fn.type}): input "{var}" is computed by no '
                               f"node and is no parameter or network input")  # fmt: skip
        net.connect(Link(producer[var], name, dest_pin=pin))
    return name


def _set(net: Network, layer: str, key: str, value: str) -> None:
    net.set_property(layer, key, value)


def _layout(net: Network) -> None:
    """Top to bottom by depth (networkx topological generations), side by side within one.

    A link that skips rows (a residual connection) would run behind the layers between its
    ends; those layers move one column right so the skip line stays visible. A Delay's link
    from the previous time step goes back up and orders nothing.
    """
    g = nx.DiGraph()
    g.add_nodes_from(net.layer_names)
    back = [k for k in net.links if k.dest_pin == 0 and net.layer(k.destination).type == "Delay"]
    g.add_edges_from((k.source, k.destination) for k in net.links if k not in back)
    for k in back:  # a Delay sits below the RecurrentInput of its loop, not at the top
        starts = [n for n in nx.ancestors(g, k.source) if net.layer(n).type == "RecurrentInput"]
        g.add_edges_from((start, k.destination) for start in starts
                         if not nx.has_path(g, k.destination, start))  # fmt: skip
    row, col = {}, {}
    for depth, names in enumerate(nx.topological_generations(g)):
        for k, name in enumerate(sorted(names, key=net.index_of)):
            row[name], col[name] = depth, k
    for u, v in g.edges:
        if row[v] - row[u] > 1 and col[u] == col[v]:
            for name in row:
                if row[u] < row[name] < row[v] and col[name] == col[u]:
                    col[name] += 1
    for name in net.layer_names:
        net.move_layer(name, (float(col[name] * 280), float(row[name] * 72)))

"""Units, arguments, repeat blocks and parameter names (docs/nnc-behaviour.md §1,
docs/layers.md §1.7).

* Argument layers declare a unit's arguments (:func:`arguments_of`); a Unit layer binds them
  (:func:`bind_arguments`): its own property of that name, evaluated in the caller (``Input`` is
  the Unit layer's input, names are the caller's arguments), else the Argument's ``Value``.
* Units nest to any depth; a network that calls itself, directly or through other units, is an
  error (:func:`unit_cycles`).
* Repeat blocks (RepeatStart ... RepeatEnd) give their layers one set of parameters per
  iteration (:func:`repeat_blocks`).
* Parameter names are ``[unit scopes/]<ParameterScope>[{repeat ids}]/<fn scope>/<param>``
  (:func:`parameter_name`); equal names mean shared parameters.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from engine.graph.argument_messages import ARGUMENT, argument_detail
from engine.graph.network import Layer, Network
from engine.graph.order import stable_order
from engine.graph.project import Project
from engine.layers import find_spec, get_spec
from engine.layers.evaluate import (
    LayerContext,
    LayerEval,
    RuleError,
    Shape,
    StaticContext,
    auto_value,
)
from engine.layers.property_types import TYPES, Value
from engine.layers.spec import Component, LayerSpec, ParameterSpec

__all__ = [
    "ArgumentDecl",
    "ArgumentError",
    "arguments_of",
    "default_arguments",
    "bind_arguments",
    "unit_calls",
    "unit_cycles",
    "matching_start",
    "repeat_blocks",
    "parameter_name",
    "Adjacency",
    "topological_order",
    "NetworkContext",
    "typed_key",
    "has_output",
    "shared_adjacency",
    "reads_no_argument",
    "SharedLayers",
    "auto_in_place",
    "empty_unit_property",
]


class ArgumentError(RuleError):
    """An argument value that does not fit its declared type, or an unknown argument type.

    ``prop`` is the argument's name; ``detail`` the message without the place.
    """

    def __init__(self, message: str, prop: str | None = None, detail: str = "") -> None:
        super().__init__(message, prop)
        self.detail = detail or message


@dataclass(frozen=True)
class ArgumentDecl:
    """One Argument layer: the argument's name is the layer's name."""

    name: str
    type: str
    value: str
    search: bool = False


def arguments_of(network: Network) -> dict[str, ArgumentDecl]:
    """The arguments a network declares, in layer order."""
    result = {}
    for layer in network.layers:
        if layer.type == "Argument":
            props = layer.properties
            result[layer.name] = ArgumentDecl(
                layer.name,
                props.get("Type", "Text"),
                props.get("Value", "1"),
                props.get("Search", "False") == "True",
            )
    return result


def default_arguments(
    network: Network, problems: list[ArgumentError] | None = None
) -> dict[str, Value]:
    """Argument values of a network used on its own: each Argument's ``Value``.

    A default may use an argument declared before it (``Maps*2``). Type mismatches are added
    to ``problems`` (see :func:`bind_arguments`).
    """
    values: dict[str, Value] = {}
    for decl in arguments_of(network).values():
        scope = LayerEval(get_spec("Argument"), decl.name, {}, StaticContext(arguments=values))
        where = f'network "{network.name}"'
        values[decl.name] = _argument_value(scope, decl, decl.value, where, problems)
    return values


def bind_arguments(
    unit: LayerEval, network: Network, problems: list[ArgumentError] | None = None
) -> dict[str, Value]:
    """The argument values a Unit layer passes to its unit ``network``.

    A value set on the Unit layer is evaluated in the caller: ``Maps=Input[0]+1`` uses the Unit
    layer's input, ``BS=*NetBS`` the caller's own argument. Unset arguments take the Argument
    layer's ``Value``.

    A value that does not fit the argument's declared type is reported in ``problems`` and
    used as written, as NNC does (Sony's object-detection sample passes 0.6 to a PInt argument
    that feeds a Float property). Without ``problems`` the mismatch raises.
    """
    values: dict[str, Value] = {}
    for decl in arguments_of(network).values():
        given = unit.given(decl.name)
        where = f'unit layer "{unit.name}"'
        if given is None:  # the default, which may use the unit's earlier arguments
            scope = LayerEval(get_spec("Argument"), decl.name, {}, StaticContext(arguments=values))
            values[decl.name] = _argument_value(scope, decl, decl.value, where, problems)
        else:
            values[decl.name] = _argument_value(unit, decl, given, where, problems)
    return values


def _argument_value(
    scope: LayerEval,
    decl: ArgumentDecl,
    raw: str,
    where: str,
    problems: list[ArgumentError] | None,
) -> Value:
    """``raw`` evaluated in ``scope`` and checked against the declared type."""
    where = f"{where}, argument {decl.name}"
    ptype = TYPES.get(decl.type)
    if ptype is None or decl.type == "Text":
        if ptype is None:
            detail = ARGUMENT["unknown"].format(type=decl.type)
            _problem(ArgumentError(f"{where}: {detail}", decl.name, detail), problems)
        return _untyped(scope, raw)
    # BooleanOrMacro values are booleans once resolved.
    target = TYPES["Boolean"] if decl.type == "BooleanOrMacro" else ptype
    try:
        return scope.evaluate(raw, target, decl.name)
    except RuleError as exc:
        detail = ARGUMENT["typed"].format(type=decl.type, detail=argument_detail(exc, decl.name))
        _problem(ArgumentError(f"{where}: {detail}", decl.name, detail), problems)
    return _untyped(scope, raw)


def _untyped(scope: LayerEval, raw: str) -> Value:
    """Numbers and lists stay usable in expressions; other words stay text."""
    value = auto_value(raw)
    if isinstance(value, str) and raw:
        try:
            value = scope.expression(raw)
        except RuleError:
            value = raw
    return value


def _problem(error: ArgumentError, problems: list[ArgumentError] | None) -> None:
    if problems is None:
        raise error
    problems.append(error)


# ---------------------------------------------------------------------------------------------
# Unit calls and recursion


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
    dims = ",".join(map(str, shape))
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


# ---------------------------------------------------------------------------------------------
# Repeat and recurrent blocks


def matching_start(network: Network, end: str, start_type: str, end_type: str) -> str | None:
    """The RepeatStart (RecurrentInput) that a RepeatEnd (RecurrentOutput) closes.

    Walks the main inputs upstream; nested blocks of the same kind are skipped. Nesting is
    never deeper than the number of closing layers, which bounds the walk on a cyclic graph
    (a cycle through a closing layer would otherwise deepen forever).
    """
    sources = _main_sources(network)
    types = {layer.name: layer.type for layer in network.layers}
    deepest = sum(t == end_type for t in types.values())
    queue: deque[tuple[str, int]] = deque((s, 0) for s in sources.get(end, ()))
    seen: set[tuple[str, int]] = set()
    while queue:
        name, depth = queue.popleft()
        if (name, depth) in seen or depth > deepest:
            continue
        seen.add((name, depth))
        if types.get(name) == end_type:
            depth += 1
        elif types.get(name) == start_type:
            if depth == 0:
                return name
            depth -= 1
        queue.extend((s, depth) for s in sources.get(name, ()))
    return None


def _main_sources(network: Network) -> dict[str, list[str]]:
    sources: dict[str, list[str]] = {}
    for link in network.links:
        if link.dest_pin == 0 and network.layer(link.destination).type != "Delay":
            sources.setdefault(link.destination, []).append(link.source)
    return sources


def adjacency(network: Network) -> tuple[dict[str, list[str]], dict[str, list[str]]]:
    """(layer -> the layers it feeds, layer -> the layers feeding it), over every link."""
    down: dict[str, list[str]] = {}
    up: dict[str, list[str]] = {}
    for link in network.links:
        down.setdefault(link.source, []).append(link.destination)
        up.setdefault(link.destination, []).append(link.source)
    return down, up


def repeat_blocks(network: Network) -> dict[str, tuple[str, ...]]:
    """layer -> the RepeatStart layers whose block contains it (outermost first)."""
    down, up = adjacency(network)
    blocks: dict[str, list[str]] = {}
    for layer in network.layers:
        if layer.type != "RepeatEnd":
            continue
        start = matching_start(network, layer.name, "RepeatStart", "RepeatEnd")
        if start is None:
            continue
        inside = (reach(start, down) & reach(layer.name, up)) - {start, layer.name}
        for name in inside:
            blocks.setdefault(name, []).append(start)
    # Outer blocks contain more layers: sort each layer's blocks by block size, largest first.
    size = {s: sum(1 for v in blocks.values() if s in v) for v in blocks.values() for s in v}
    return {name: tuple(sorted(v, key=lambda s: -size[s])) for name, v in blocks.items()}


def reach(start: str, edges: Mapping[str, Iterable[str]]) -> set[str]:
    """``start`` and every layer reachable from it along ``edges``."""
    seen = {start}
    stack = [start]
    while stack:
        for nxt in edges.get(stack.pop(), ()):
            if nxt not in seen:
                seen.add(nxt)
                stack.append(nxt)
    return seen


# ---------------------------------------------------------------------------------------------
# Parameter names

# MinMaxQuantize has no [Global] ParameterScope, so NNC names its parameters /r, /R, /l, /L and
# two such layers collide (quirk 6). NeuroCanvas scopes them like engine.nn.parametric does.
_MIN_MAX_NAMES = {"r": "qr_min", "R": "qr_max", "l": "ql_min", "L": "ql_max"}


def parameter_name(
    spec: LayerSpec,
    layer: str,
    scope: str,
    param: ParameterSpec | None,
    unit_scopes: Iterable[str] = (),
    repeat_ids: Iterable[str] = (),
) -> str:
    """The full parameter name, e.g. ``SE1/Squeeze/conv/W`` or ``Conv{RepeatStart}/conv/W``.

    ``scope`` is the layer's resolved ParameterScope; ``unit_scopes`` the non-empty
    ParameterScopes of the enclosing Unit layers, outermost first. ``param`` is None for the
    layers that are a parameter themselves (Parameter, WorkingMemory): they are named after
    the layer.
    """
    prefix = [s for s in unit_scopes if s]
    ids = "".join(f"{{{i}}}" for i in repeat_ids)
    if param is None:
        return "/".join([*prefix, layer + ids])
    if spec.type == "MinMaxQuantize":
        return "/".join([*prefix, layer + ids, "min_max_quantize", _MIN_MAX_NAMES[param.name]])
    if param.path:  # LSTM: fixed paths inside the built-in unit
        return "/".join([*prefix, *([scope + ids] if scope else []), param.path])
    parts = [*prefix, *([scope + ids] if scope or ids else []), spec.fn_scope or "", param.name]
    return "/".join(p for p in parts if p)


class Adjacency:
    """Links of a network by layer: producers (source, pin) and consumers (dest, pin)."""

    def __init__(self, network: Network) -> None:
        self.types = {layer.name: layer.type for layer in network.layers}
        self.producers: dict[str, list[tuple[str, int]]] = {}
        self.consumers: dict[str, list[tuple[str, int]]] = {}
        self.raw = {layer.name: layer.properties for layer in network.layers}
        self.memo: dict[str, object] = {}  # values derived from the structure (order, blocks)
        for link in network.links:
            self.producers.setdefault(link.destination, []).append((link.source, link.dest_pin))
            self.consumers.setdefault(link.source, []).append((link.destination, link.dest_pin))

    def has_repeats(self) -> bool:
        if "has_repeats" not in self.memo:
            self.memo["has_repeats"] = "RepeatStart" in self.types.values()
        return self.memo["has_repeats"]  # type: ignore[return-value]

    def backward(self, name: str) -> bool:
        """True when the layer's shape comes from its consumers (no main input)."""
        if any(pin == 0 for _, pin in self.producers.get(name, ())):
            return False
        spec = find_spec(self.types[name])
        if spec is None:
            return False
        size = self.raw[name].get("Size", spec.defaults().get("Size", ""))
        graph_io = spec.prop("Input") is not None and spec.prop("Input").default == "*GraphIO"  # type: ignore[union-attr]
        return size.startswith("*GraphOutput") or graph_io


def topological_order(adjacency: Adjacency, names: list[str]) -> list[str]:
    """Layers in an order where inputs come first, so computing stays shallow.

    A Delay's main input is a recurrent back edge and does not order anything. A layer
    whose shape comes from its consumers (``*GraphOutput``/``*GraphIO`` without input) is
    placed after the other inputs of those consumers.
    """
    before: dict[str, set[str]] = {n: set() for n in names}
    for dest, links in adjacency.producers.items():
        for source, pin in links:
            if not (pin == 0 and adjacency.types[dest] == "Delay"):
                before[dest].add(source)
    for name in names:
        if adjacency.backward(name):
            for consumer, _ in adjacency.consumers.get(name, ()):
                for other, _ in adjacency.producers.get(consumer, ()):
                    if other != name and name not in before[other]:
                        before[name].add(other)
    ordered, on_cycles = stable_order(names, ((b, n) for n, deps in before.items() for b in deps))
    return ordered + on_cycles  # cycles: found on demand


class NetworkContext(LayerContext):
    """The network around one layer, as its rules see it (``inference``: a NetworkInference)."""

    def __init__(self, inference, owner: str) -> None:  # noqa: ANN001 - infer imports us
        self.inference = inference
        self.owner = owner
        self.pure = True  # asked only for inputs, wiring and arguments (see _share_key)
        self.read: list[str] = []  # the arguments asked for

    def input_shapes(self) -> tuple[Shape, ...]:
        links = self.inference._adj().producers.get(self.owner, ())
        return tuple(self.inference._input(self.owner, s) for s, pin in links if pin == 0)

    def side_input_shape(self, connector: str) -> Shape | None:
        source = self._side_source(connector)
        return None if source is None else self.inference._input(self.owner, source)

    def is_wired(self, connector: str) -> bool:
        return self._side_source(connector) is not None

    def _side_source(self, connector: str) -> str | None:
        spec = find_spec(self.inference._adj().types[self.owner])
        pin = spec.pin_of(connector) if spec and spec.connector(connector) else -1
        links = self.inference._adj().producers.get(self.owner, ())
        return next((s for s, p in links if p == pin), None)

    def required_shape(self) -> Shape | None:
        self.pure = False
        return self.inference.required_shape(self.owner)

    def argument(self, name: str) -> Value | None:
        self.read.append(name)
        return self.inference.arguments.get(name)

    def graph_macro(self, name: str, arg: str | None, layer: LayerEval) -> Value:
        self.pure = False
        return self.inference.graph_macro(self.owner, name, arg, layer)

    @property
    def editor_shapes(self) -> bool:
        """Shapes as NNC's editor shows them, for NNC's statistics (see UnitCache)."""
        return self.inference.units.editor_shapes


def typed_key(value: object) -> object:
    """A hashable key that tells ``True`` from ``1`` and ``1.0`` (they hash alike)."""
    if isinstance(value, Mapping):
        return tuple(sorted((k, typed_key(v)) for k, v in value.items()))
    if isinstance(value, tuple):
        return tuple(typed_key(v) for v in value)
    return (type(value).__name__, value)


def has_output(type_: str) -> bool:
    """False for layers without an output to link from (settings such as Argument)."""
    spec = find_spec(type_)
    if spec is None:
        return True
    return spec.output_rule is not None and spec.component is not Component.SETTING


def shared_adjacency(cache: dict[str, tuple], network: Network) -> Adjacency:
    """The adjacency of ``network`` from ``cache`` (network name -> (layers, links, adjacency)),
    valid while the network returns these very tuples (it builds new ones on every change)."""
    layers, links = network.layers, network.links
    entry = cache.get(network.name)
    if entry is None or entry[0] is not layers or entry[1] is not links:
        entry = cache[network.name] = (layers, links, Adjacency(network))
    return entry[2]


_SPEC_TEXTS: dict[int, tuple[LayerSpec, tuple[str, ...]]] = {}


def reads_no_argument(layer: Layer, spec: LayerSpec, arguments: Iterable[str]) -> bool:
    """True when no argument name occurs in any text the layer's rules may evaluate (its
    properties, the defaults, connector shapes and enables, cost rules): then no value of the
    layer, computed now or later, depends on the arguments."""
    entry = _SPEC_TEXTS.get(id(spec))
    if entry is None or entry[0] is not spec:
        texts = [p.default for p in spec.properties] + [rule for _, rule in spec.costs]
        texts += [t for c in spec.connectors for t in (c.shape, c.enable)]
        entry = _SPEC_TEXTS[id(spec)] = (spec, tuple(texts))
    texts = (*layer.properties.values(), *entry[1])
    return not any(name in text for name in arguments for text in texts)


class SharedLayers:
    """Layer results shared between unit expansions: a key (what the result depends on but
    arguments) -> entries (names of the arguments read, their typed values, entry), newest
    first; an entry applies where those arguments have those values."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.entries: dict[tuple, list[tuple[tuple, tuple, tuple]]] = {}

    def get(self, key: tuple, arguments: Mapping[str, Value]) -> tuple | None:
        for names, values, entry in self.entries.get(key, ()):
            if not names or values == tuple(typed_key(arguments.get(n)) for n in names):
                return entry
        return None

    def put(self, key: tuple, read: Iterable[str], arguments: Mapping, entry: tuple) -> None:
        if len(self.entries) >= self.limit:
            self.entries.clear()
        names = tuple(sorted(set(read)))
        values = tuple(typed_key(arguments.get(n)) for n in names)
        self.entries.setdefault(key, []).insert(0, (names, values, entry))
        del self.entries[key][8:]

    def clear(self) -> None:
        self.entries.clear()


def auto_in_place(inference, owner: str, once: bool) -> bool:  # noqa: ANN001 - a NetworkInference
    """``*AutoInPlaceOnce`` / ``*AutoInPlace`` as observed (docs/layers.md §1.5)."""
    adjacency = inference._adj()
    inference._consumer_readers.add(owner)
    sources = [s for s, pin in adjacency.producers.get(owner, ()) if pin == 0]
    if not sources:
        return False
    for source in sources:
        inference._depend(owner, source)
        if (
            adjacency.types[source] in ("Input", "Parameter")
            or len(adjacency.consumers.get(source, ())) != 1
        ):
            return False
        producer = inference._evaluator(source)
        if producer.spec.prop("InPlace") and producer.value("InPlace") is True:
            return False
    return True


def empty_unit_property(arg: str | None, ev: LayerEval) -> Value:
    """``*UnitProperty(X)`` where no LSTM layer calls the network (units/LSTM.sdcproj opened as
    a project). NNC leaves it empty: an integer property reads 0, anything else has no value, so
    the layer gets no shape and counts nothing (NNC: RecurrentInput (100) for its (28,100) input
    at Axis 0, Main Output 5,600, the other layers without a shape)."""
    prop = ev.spec.prop(ev.resolving() or "")
    if prop is not None and prop.type.name in ("Int", "UInt"):
        return 0
    raise RuleError(
        f"*UnitProperty({arg}) is empty here: it is the {arg} of the LSTM layer that calls this "
        "network (the built-in LSTM unit)"
    )

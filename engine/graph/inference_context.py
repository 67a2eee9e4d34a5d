"""What a layer's rules see of the network around it during shape inference
(:class:`NetworkContext`), the results shared between unit expansions (:class:`SharedLayers`,
:func:`reads_no_argument`, :func:`typed_key`) and the graph macros answered from the wiring
(``*AutoInPlace``: :func:`auto_in_place`; ``*UnitProperty`` outside an LSTM:
:func:`empty_unit_property`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from engine.graph.network import Layer
from engine.layers import find_spec
from engine.layers.evaluate import (
    LayerContext,
    LayerEval,
    RuleError,
    Shape,
)
from engine.layers.property_types import Value
from engine.layers.spec import LayerSpec

__all__ = [
    "NetworkContext",
    "typed_key",
    "reads_no_argument",
    "SharedLayers",
    "auto_in_place",
    "empty_unit_property",
]


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

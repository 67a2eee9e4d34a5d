"""Shape inference and per-layer statistics of a network, incremental.

:class:`NetworkInference` evaluates every layer of one network (or of one expansion of a unit
network) with the catalogue's rules (:class:`engine.layers.evaluate.LayerEval`). Results are
cached per layer together with the layers each result read; :meth:`NetworkInference.invalidate`
drops a layer and everything that depends on it, so after an edit only the affected part is
recomputed. :class:`engine.graph.project_inference.ProjectInference` keeps one per network,
follows the project's events and shares unit expansions between callers.

Shapes exclude the batch axis. The eight statistics follow docs/layers.md §1.6: a Unit layer
carries the sums over its expansion, and counts only its own output.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from engine.core.messages import QT_TRANSLATE_NOOP, text_of
from engine.graph import inference_context, loops, nesting, unit_arguments, unit_graph, wiring
from engine.graph.network import Network
from engine.graph.project import Project
from engine.layers import find_spec
from engine.layers.evaluate import InputShapeError, LayerEval, RuleError, Shape
from engine.layers.property_types import Value, format_value
from engine.layers.spec import STATISTICS

__all__ = [
    "LayerResult",
    "NetworkInference",
    "InferenceError",
    "UpstreamError",
    "CycleError",
]

_NO_COSTS = (0,) * (len(STATISTICS) - 1)
# The problems inference finds, in the app's language where it shows them (engine/core/messages.py).
_T = {
    "unknown type": QT_TRANSLATE_NOOP("Problems", "unknown layer type {type}"),
    "unknown macro": QT_TRANSLATE_NOOP("Problems", "unknown macro *{name}"),
    "no unit": QT_TRANSLATE_NOOP("Problems", 'unit network "{network}" does not exist'),
    "recursion": QT_TRANSLATE_NOOP("Problems", "unit recursion: {path}"),
    "in unit": QT_TRANSLATE_NOOP(
        "Problems", 'in unit network "{network}", layer "{layer}": {error}'
    ),
}


class InferenceError(RuleError):
    """A layer whose shape or statistics cannot be computed (the message says why)."""


class UpstreamError(InferenceError, InputShapeError):
    """A layer that has no shape because an input has none; the cause is reported there."""


class CycleError(InferenceError):
    """A cycle of links (outside a Delay's recurrent input)."""


@dataclass(frozen=True)
class LayerResult:
    """Output shape and the eight statistics of one layer, or the error that prevents them."""

    name: str
    type: str
    shape: Shape | None
    stats: tuple[int, ...] | None  # in STATISTICS order
    error: str | None = None
    prop: str | None = None  # the property the error is about, when known
    upstream: bool = False  # the error comes from an input (reported on that layer)

    def stat(self, name: str) -> int:
        return self.stats[STATISTICS.index(name)] if self.stats else 0


class NetworkInference:
    """Lazy, cached shapes and statistics of one network.

    ``arguments`` are the argument values visible in the network (a unit's bound arguments;
    for a network used on its own, its Argument layers' values). ``bound_input`` replaces the
    ``Size`` of the Input layers (a unit's input). ``stack`` is the unit call path, used to
    detect recursion.
    """

    def __init__(
        self,
        network: Network,
        project: Project | None = None,
        *,
        arguments: Mapping[str, Value] | None = None,
        bound_input: Shape | None = None,
        unit_properties: Mapping[str, Value] | None = None,
        stack: tuple[str, ...] = (),
        units: UnitCache | None = None,
    ) -> None:
        self.network = network
        self.project = project
        self.bound_input = bound_input
        self.unit_properties = dict(unit_properties or {})
        self.stack = stack or (network.name,)
        self.units = units if units is not None else UnitCache(project)
        # Argument values that do not fit their declared type (used as written, reported).
        self.argument_problems: list[unit_arguments.ArgumentError] = []
        if arguments is None:
            arguments = unit_arguments.default_arguments(network, self.argument_problems)
        self.arguments = dict(arguments)
        self._unit_problems: dict[str, list[unit_arguments.ArgumentError]] = {}
        self._results: dict[str, LayerResult] = {}
        self._evals: dict[str, LayerEval] = {}
        self._deps: dict[str, set[str]] = {}  # layer -> layers its result read
        self._rdeps: dict[str, set[str]] = {}  # layer -> layers whose result read it
        self._computing: list[str] = []
        self._adjacency: wiring.Adjacency | None = None
        self._subs: dict[str, NetworkInference] = {}  # Unit layer -> its expansion
        self._consumer_readers: set[str] = set()  # results that read who consumes a layer
        self._memo: dict[str, dict[str, object]] = {}  # per-layer values derived from results
        # Unit layers whose expansion changed, with their previous result: recomputed before
        # the next read; their readers are dropped only if the shape or error changed.
        self._pending: dict[str, LayerResult] = {}
        self._settling = False
        self._scope_key: tuple | None = None  # arguments and unit properties, typed
        self.key: tuple | None = None  # its key in the UnitCache, for an expansion
        self._all: dict[str, LayerResult] | None = None  # results(), while none changes
        self._totals: tuple[int, ...] | None = None

    # -- public reading ----------------------------------------------------------------------

    def result(self, name: str) -> LayerResult:
        """The cached result of one layer, computed (with what it needs) when missing."""
        if self._pending and not self._settling:
            self._settle()
        cached = self._results.get(name)
        if cached is not None:
            return cached
        if name in self._computing:
            raise CycleError(self._cycle_message(name))
        self._computing.append(name)
        try:
            result = self._refresh(name) if name in self._pending else None
            result = result or self._compute(name)
        finally:
            self._computing.pop()
        self._results[name] = result
        self._all = self._totals = None
        if self._pending:
            old = self._pending.pop(name, None)
            if old is not None and _seen(old) != _seen(result):
                readers = self._rdeps.get(name, set()) - set(self._computing) - {name}
                self.invalidate(readers)
        return result

    def _settle(self) -> None:
        """Recomputes the pending Unit layers, inputs first (see :meth:`invalidate_units`)."""
        self._settling = True
        try:
            for name in self._order():
                if name in self._pending:
                    self.result(name)
            if self._pending:  # layers gone from the network
                self.invalidate(list(self._pending))
        finally:
            self._settling = False

    def results(self) -> dict[str, LayerResult]:
        """Every layer's result, in network order (computed in dependency order)."""
        if self._pending and not self._settling:
            self._settle()
        if self._all is None:
            for name in self._order():
                self.result(name)
            self._all = {name: self._results[name] for name in self.network.layer_names}
        return dict(self._all)

    def shape(self, name: str) -> Shape | None:
        return self.result(name).shape

    def eval(self, name: str) -> LayerEval:
        """The layer's evaluator (resolved property values) as of its last computation."""
        self.result(name)
        return self._evals[name]

    def totals(self) -> tuple[int, ...]:
        """The network statistics, exact: every layer's values times its loop count (§1.6)."""
        results = self.results()
        if self._totals is None:
            times = loops.multipliers(self)
            self._totals = tuple(
                sum(r.stats[i] * times.get(n, 1) for n, r in results.items() if r.stats)
                for i in range(len(STATISTICS))
            )
        return self._totals

    def errors(self) -> list[LayerResult]:
        """The layers that failed for a reason of their own (not because of an input)."""
        return [r for r in self.results().values() if r.error and not r.upstream]

    def unit_argument_problems(self) -> dict[str, list[unit_arguments.ArgumentError]]:
        """Unit layer -> the arguments it passes that do not fit their declared type."""
        self.results()
        return {k: v for k, v in self._unit_problems.items() if v}

    def memo(self, name: str) -> dict[str, object]:
        """A scratch dict for values derived from a layer's result, dropped with the result."""
        return self._memo.setdefault(name, {})

    def structure_memo(self) -> dict[str, object]:
        """A scratch dict for values that depend only on layers and links (repeat blocks)."""
        return self._adj().memo

    def expansion(self, unit_layer: str) -> NetworkInference | None:
        """The inference of the network a Unit layer expands to (after its result)."""
        self.result(unit_layer)
        return self._subs.get(unit_layer)

    def output(self) -> Shape:
        """A unit network's result: the shape of its single terminal layer (``*UnitOutput``)."""
        adjacency = self._adj()
        terminals = [
            layer.name
            for layer in self.network.layers
            if layer.name not in adjacency.consumers and wiring.has_output(layer.type)
        ]
        if len(terminals) != 1:
            raise InferenceError(
                f'network "{self.network.name}" used as a unit needs exactly one last layer; '
                f"it has {len(terminals)} ({', '.join(terminals) or 'none'})"
            )
        result = self.result(terminals[0])
        if result.shape is None:
            raise InferenceError(
                f'network "{self.network.name}", layer "{terminals[0]}": {result.error}'
            )
        return result.shape

    # -- invalidation ------------------------------------------------------------------------

    def invalidate(self, names: Iterable[str], structure: bool = False) -> set[str]:
        """Drops the results of ``names`` and of every layer that read them; returns all dropped.

        ``structure``: links or layers changed, so the adjacency is rebuilt too.
        """
        if structure:
            self._reset_structure()
        dropped: set[str] = set()
        stack = list(names)
        while stack:
            name = stack.pop()
            if name not in dropped:
                dropped.add(name)
                stack.extend(self._rdeps.get(name, ()))
        for name in dropped:
            self._forget(name)
        return dropped

    def apply(self, event) -> set[str]:  # noqa: ANN001 - an engine.graph.events.Event
        """Drops what a model event of this network makes stale; returns the dropped layers."""
        kind = event.kind
        if kind == "property_changed":
            return self.invalidate({event.layer})
        if kind in ("link_added", "link_removed"):
            source, dest = event.link.source, event.link.destination
            self._reset_structure()
            readers = {c for c, _ in self._adj().consumers.get(source, ())}
            touched = {dest} | ({source} | readers) & (self._consumer_readers | {dest})
            return self.invalidate(touched)
        if kind == "layer_renamed":
            return self.invalidate({event.old, event.new}, structure=True)
        if kind in ("layer_added", "layer_removed"):
            return self.invalidate({event.layer.name}, structure=True)
        return set()

    def invalidate_units(self, networks: set[str]) -> set[str]:
        """Drops the Unit layers that call one of ``networks`` (their expansion changed).

        An edit inside a unit network often keeps the unit's output shape (a DenseNet block
        still adds its growth rate): a computed Unit layer is only marked pending, and its
        readers are dropped when it is recomputed with another shape or error (no layer
        reads another's statistics).
        """
        callers = [
            layer.name
            for layer in self.network.layers
            if layer.type == "Unit" and layer.properties.get("Network", "") in networks
        ]
        dropped: set[str] = set()
        for name in callers:
            old = self._results.pop(name, None)
            if old is not None:  # its evaluator, expansion and dependencies stay (_refresh)
                self._memo.pop(name, None)
                self._all = self._totals = None
                self._pending[name] = old
                dropped.add(name)
            elif name not in self._pending:
                dropped |= self.invalidate([name])
        return dropped

    def _refresh(self, name: str) -> LayerResult | None:
        """A pending Unit layer whose expansion is still the cached one and still gives the
        same output: only its statistics change. Else None, ready for a full computation."""
        old, sub = self._pending[name], self._subs.get(name)
        if sub is not None and old.error is None and self.units.entries.get(sub.key) is sub:
            try:
                if not sub.errors() and sub.output() == old.shape and old.stats:
                    return LayerResult(name, old.type, old.shape, (old.stats[0], *sub.totals()[1:]))  # type: ignore[index]
            except (RuleError, RecursionError):
                pass
        self._forget(name)
        self._pending[name] = old
        return None

    def _forget(self, name: str) -> None:
        """Drops one layer's result and what was derived from it, not its readers."""
        self._all = self._totals = None
        self._pending.pop(name, None)
        self._results.pop(name, None)
        self._evals.pop(name, None)
        self._subs.pop(name, None)
        self._memo.pop(name, None)
        self._unit_problems.pop(name, None)
        self._consumer_readers.discard(name)
        for dep in self._deps.pop(name, ()):
            self._rdeps.get(dep, set()).discard(name)

    # -- computing one layer -----------------------------------------------------------------

    def _compute(self, name: str) -> LayerResult:
        layer = self.network.layer(name)
        spec = find_spec(layer.type)
        if spec is None:
            unknown = _T["unknown type"].format(type=repr(layer.type))
            return LayerResult(name, layer.type, None, None, unknown)
        raw = layer.properties
        if self.bound_input is not None and spec.type == "Input":
            raw = {**raw, "Size": format_value(self.bound_input)}
        key = self._share_key(layer, spec.type)
        shared = self.units.layers.get(key, self.arguments) if key is not None else None
        context = inference_context.NetworkContext(self, name)
        ev = LayerEval(spec, name, raw, context)
        self._evals[name] = ev
        if shared is not None:  # the same layer with the same inputs in another expansion
            for producer, _ in key[-1]:  # type: ignore[index]
                self._depend(name, producer)
            ev.restore(shared[1])
            # Derived values (parameters): shared if no argument read differs and no repeats.
            if shared[2] is not None and not self._adj().has_repeats():
                if shared[3] == self._scope_key or self._reads_no_argument(layer, spec, shared):
                    self._memo[name] = shared[2]
            return shared[0]
        result = self._evaluate(layer.type, spec.type, name, ev)
        if key is not None and context.pure:
            memo = None if self._adj().has_repeats() else self.memo(name)
            entry = (result, ev.snapshot(), memo, self._scope_key, {})
            self.units.layers.put(key, context.read, self.arguments, entry)
        return result

    def _reads_no_argument(self, layer, spec, entry: tuple) -> bool:  # noqa: ANN001
        names = tuple(self.arguments)  # entry[4]: answers by argument names
        if names not in entry[4]:
            entry[4][names] = inference_context.reads_no_argument(layer, spec, names)
        return entry[4][names]

    def _evaluate(self, type_: str, spec_type: str, name: str, ev: LayerEval) -> LayerResult:
        try:
            shape = ev.output_shape()
            if unit_graph.oversized(shape):
                return LayerResult(name, type_, None, None, unit_graph.oversized(shape))
            if not self.units.costs:
                stats = None
            elif spec_type == "Unit":
                sub = self._subs[name]
                stats = (math.prod(shape or (0,)), *sub.totals()[1:])
            else:
                stats = tuple(ev.cost(s) for s in STATISTICS)
        except RecursionError:
            ev.context.pure = False  # type: ignore[attr-defined]
            return LayerResult(name, type_, None, None, "the network is too deep to infer")
        except RuleError as exc:
            upstream = isinstance(exc, UpstreamError)
            return LayerResult(name, type_, None, None, text_of(exc), exc.prop, upstream)
        return LayerResult(name, type_, shape, stats)

    def _share_key(self, layer, spec_type: str) -> tuple | None:  # noqa: ANN001 - a Layer
        """All a layer's result depends on if it reads only its properties, the arguments and
        its (computed) inputs, which it tells after it ran (``pure``). Expansions of a unit
        often feed a layer equal inputs (a DenseNet stage after its first convolution)."""
        if spec_type in ("Unit", "Delay"):
            return None
        producers = []
        for source, pin in self._adj().producers.get(layer.name, ()):
            result = self._results.get(source)
            if result is None:
                return None
            producers.append((source, (pin, _seen(result))))
        if self._scope_key is None:
            scope = (self.arguments, self.unit_properties)
            self._scope_key = tuple(inference_context.typed_key(s) for s in scope)
        bound = (layer.type, self.bound_input if spec_type == "Input" else None)
        props = tuple(layer.properties.items())
        # The arguments it read are matched apart (UnitCache.shared).
        return (self.network.name, layer.name, props, bound, self._scope_key[1], tuple(producers))

    def _depend(self, owner: str, on: str) -> None:
        self._deps.setdefault(owner, set()).add(on)
        self._rdeps.setdefault(on, set()).add(owner)

    def _input(self, owner: str, producer: str) -> Shape:
        """The output shape of ``producer`` as an input of ``owner``."""
        self._depend(owner, producer)
        result = self.result(producer)
        if result.error:
            cause = "" if result.upstream else f" ({_short(result.error)})"
            raise UpstreamError(f'input "{producer}" has no shape{cause}')
        if result.shape is None:
            raise InferenceError(f'layer "{producer}" ({result.type}) has no output to link from')
        return result.shape

    def _cycle_message(self, name: str) -> str:
        path = self._computing[self._computing.index(name) :] + [name]
        return "the links form a cycle: " + " -> ".join(reversed(path))

    # -- adjacency and order -----------------------------------------------------------------

    def _adj(self) -> wiring.Adjacency:
        if self._adjacency is None:
            self._adjacency = self.units.adjacency(self.network)
        return self._adjacency

    def _reset_structure(self) -> None:
        self._adjacency = None
        # Values derived from results may also depend on the links (a layer's parameters
        # repeat with the block it sits in): drop them all, they are cheap to derive again.
        self._memo.clear()

    def _order(self) -> list[str]:
        structure = self._adj().memo
        if "order" not in structure:
            structure["order"] = wiring.topological_order(self._adj(), self.network.layer_names)
        return structure["order"]  # type: ignore[return-value]

    # -- graph macros ------------------------------------------------------------------------

    def required_shape(self, owner: str) -> Shape | None:
        """``*GraphOutput``: the shape a consumer needs from ``owner`` (a W connector, ...)."""
        adjacency = self._adj()
        self._consumer_readers.add(owner)
        for consumer, pin in adjacency.consumers.get(owner, ()):
            self._depend(owner, consumer)
            spec = find_spec(adjacency.types[consumer])
            if spec is None:
                continue
            ev = self._evaluator(consumer)
            if pin >= 1:
                connector = spec.connector_at(pin)
                if connector is not None:
                    return ev.connector_shape(connector.name)
            elif spec.prop("Input") and spec.prop("Input").default == "*GraphIO":  # type: ignore[union-attr]
                if spec.output_rule == "*Input" and consumer not in self._computing:
                    self._computing.append(consumer)
                    try:
                        shape = self.required_shape(consumer)
                    finally:
                        self._computing.pop()
                    if shape is not None:
                        return shape
        return None

    def _evaluator(self, name: str) -> LayerEval:
        """A layer's evaluator without computing its result (for connector shapes)."""
        if name in self._evals:
            return self._evals[name]
        layer = self.network.layer(name)
        context = inference_context.NetworkContext(self, name)
        ev = LayerEval(find_spec(layer.type), name, layer.properties, context)  # type: ignore[arg-type]
        self._evals[name] = ev
        return ev

    def graph_macro(self, owner: str, name: str, arg: str | None, ev: LayerEval) -> Value:
        if name == "UnitOutput":
            return self._unit(owner, ev).output()
        if name == "UnitProperty":
            if arg in self.unit_properties:
                return self.unit_properties[arg]
            return inference_context.empty_unit_property(arg, ev)
        if name == "RepeatTimes":
            start = self._start(owner, "RepeatStart", "RepeatEnd")
            return self.eval(start).value("Times")
        if name == "RecurrentLength":
            start = self._start(owner, "RecurrentInput", "RecurrentOutput")
            begin = self.eval(start)
            axis = begin.value("Axis")
            return begin.input_shape[axis if isinstance(axis, int) else 0]
        if name in ("AutoInPlace", "AutoInPlaceOnce"):
            return inference_context.auto_in_place(self, owner, once=name == "AutoInPlaceOnce")
        raise InferenceError(_T["unknown macro"].format(name=name))

    def _start(self, owner: str, start_type: str, end_type: str) -> str:
        start = nesting.matching_start(self.network, owner, start_type, end_type)
        if start is None:
            raise InferenceError(f"no {start_type} opens the block that this {end_type} closes")
        self._depend(owner, start)
        return start

    def _unit(self, owner: str, ev: LayerEval) -> NetworkInference:
        """The expansion of a Unit layer: the unit network with its input and arguments bound."""
        if owner in self._subs:
            return self._subs[owner]
        target = str(ev.value("Network"))
        if self.project is None or not self.project.has_network(target):
            raise InferenceError(_T["no unit"].format(network=target), "Network")
        if target in self.stack:
            path = " -> ".join([*self.stack, target])
            raise InferenceError(_T["recursion"].format(path=path), "Network")
        if len(self.stack) <= 1:  # the top network: its units are checked once, here
            too_big = unit_graph.expansion_problem(self.project, target)
            if too_big:  # expanding would take minutes and gigabytes
                raise InferenceError(f'unit network "{target}": {too_big}', "Network")
        network = self.project.network(target)
        problems: list[unit_arguments.ArgumentError] = []
        arguments = unit_arguments.bind_arguments(ev, network, problems)
        self._unit_problems[owner] = problems
        sub = self.units.get(network, ev.input_shape, arguments, (*self.stack, target))
        self._subs[owner] = sub
        errors = sub.errors()
        if errors:
            first = errors[0]
            raise InferenceError(
                _T["in unit"].format(network=target, layer=first.name, error=first.error)
            )
        return sub


class UnitCache:
    """Expansions of unit networks, shared by every Unit layer with the same input and arguments."""

    def __init__(
        self,
        project: Project | None,
        limit: int = 4096,
        editor_shapes: bool = False,
        costs: bool = True,
    ):
        self.project = project
        self.editor_shapes = editor_shapes  # NNC's editor shapes where nnabla's differ (pooling)
        # False: shapes only, every statistic None (the compiler's use: ~30% of compiling)
        self.costs = costs
        self.limit = limit
        self.entries: dict[tuple, NetworkInference] = {}
        # Layer results by everything they depend on (NetworkInference._share_key).
        self.layers = inference_context.SharedLayers(limit * 8)
        self.structures: dict[str, tuple] = {}  # see wiring.shared_adjacency

    def adjacency(self, network: Network) -> wiring.Adjacency:
        return wiring.shared_adjacency(self.structures, network)

    def get(
        self,
        network: Network,
        input_shape: Shape,
        arguments: Mapping[str, Value],
        stack: tuple[str, ...],
    ) -> NetworkInference:
        key = (network.name, input_shape, tuple(sorted(arguments.items())))
        sub = self.entries.get(key)
        if sub is None:
            if len(self.entries) >= self.limit:
                # Evicting is safe: a caller holding an evicted expansion drops it whenever a
                # network it (transitively) calls changes (ProjectInference._drop_callers).
                del self.entries[next(iter(self.entries))]
            sub = NetworkInference(
                network, self.project, arguments=arguments, bound_input=input_shape,
                stack=stack, units=self,
            )  # fmt: skip
            self.entries[key] = sub
            sub.key = key
        return sub

    def instances(self, network: str) -> list[NetworkInference]:
        return [sub for key, sub in self.entries.items() if key[0] == network]


def _seen(result: LayerResult) -> tuple:
    """What the readers of a layer use: everything but its statistics."""
    return (result.type, result.shape, result.error, result.prop, result.upstream)


def _short(message: str) -> str:
    return message if len(message) <= 120 else message[:117] + "..."

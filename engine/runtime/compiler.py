"""Compile one network of a project into a :class:`~engine.runtime.program.Program`.

The network may be drawn or derived (``MainValidation``, ``MainRuntime``: docs/nnc-behaviour.md §3).
Everything a layer needs comes from the catalogue and from shape inference
(:class:`engine.graph.infer.NetworkInference`), so the compiler keeps no per-layer table:

* the step calls the spec's ``F`` function; its inputs are the pin-0 links in link order, then
  the side connectors in the spec's order: a wired layer, a parameter (Kind=Parameter), a
  dataset variable or a generator (Kind=Data);
* every property whose ``ArgumentName`` is ``<fn>_param.<arg>`` becomes the keyword ``arg``
  (``-pyargname=`` renames it) with its resolved value; ``-a`` axes get +1 for the batch axis,
  ``-0`` lists get the batch axis 0 in front, ``-b`` shapes get the batch size at run time;
  ``-test=<v>`` values are forced in test mode (§3.2);
* parameters are named as NNC names them (:func:`engine.graph.parameter_names.parameter_name`:
  ``Convolution_2/conv/W``, ``SE1/Squeeze/conv/W``) with the ``<p>.Initializer``,
  ``<p>.InitializerMultiplier`` and ``<p>.LRateMultiplier`` of the layer (a Unit layer's
  ``<Inner>.<p>.*`` overrides them); equal names are one shared parameter;
* Unit layers are expanded inline with their bound arguments, to any depth; in test mode the
  SkipAtTest layers inside units are bypassed too;
* RepeatStart ... RepeatEnd blocks are unrolled ``Times`` times (nested blocks too), each copy
  with its own parameters named as nnabla expands them (``Conv{RepeatStart}`` -> ``Conv[1]``);
* RecurrentInput ... RecurrentOutput loops (with Delay) and the LSTM layer are unrolled over the
  time axis with shared parameters (:mod:`engine.runtime.recurrent`).

A layer the engine cannot run (the hidden ``Unsupported`` placeholder) or a network with a shape
error raises :class:`CompileError` naming the network, the layer and the type before anything
runs.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Mapping
from dataclasses import dataclass, field, replace

import engine.nn.functions as F
from engine.graph import derive, nesting, parameter_names, unit_graph
from engine.graph.infer import NetworkInference, UnitCache
from engine.graph.network import Layer, Network
from engine.graph.order import stable_order
from engine.graph.project import Project
from engine.layers import find_spec
from engine.layers.evaluate import LayerEval, RuleError
from engine.layers.spec import ConnectorKind, LayerSpec, ParameterSpec, SideConnector, Support
from engine.runtime import folded, recurrent
from engine.runtime.program import (
    GeneratorDecl,
    ParameterDecl,
    Program,
    ProgramError,
    Ref,
    Step,
)

__all__ = ["CompileError", "compile_network"]

# docs/layers.md §1.4: SpectralNorm's Itr carries -a by mistake; it is a count, not an axis.
_NOT_AXIS = frozenset({("SpectralNorm", "Itr")})
# Axis properties whose -1 is the batch axis itself (docs/layers.md §1.2): every value gets +1.
_BATCH_IS_MINUS_ONE = frozenset((t, "BatchAxis") for t in ("LayerNormalization",
                                "InstanceNormalization", "GroupNormalization"))  # fmt: skip
# Parameters nnabla's parametric functions own that NNC's files do not list: inserted after the
# named connector, shaped like the bias connector (BinaryWeight*: alpha, not trained).
_HIDDEN = {"BinaryWeightAffine": ("Wb", "alpha"), "BinaryWeightConvolution": ("Wb", "alpha")}


class CompileError(ProgramError):
    """A network that cannot be compiled; the message names network, layer and type."""


def compile_network(
    project: Project, name: str, *, test_mode: bool | None = None, folded: bool = False
) -> Program:
    """The program of network ``name``: a drawn tab or a derived ``<Net>Validation/Runtime``.

    ``test_mode`` forces train (False) or test (True) behaviour instead of the network's own
    (the exporter writes both branches of ``test=``). ``folded`` keeps loops in nnabla's repeat
    form (:mod:`engine.runtime.folded`) for the NNP writer; such a program does not run.

    Raises:
        CompileError: unknown network, a layer the engine cannot run, a shape or property
            error; the message names the network and the layer.
    """
    try:
        derived = derive.network_for(project, name)
    except KeyError:
        raise CompileError(
            f'no network "{name}" (networks: {", ".join(project.network_names)}); '
            f"<Net>Validation and <Net>Runtime are derived from a network <Net>"
        ) from None
    too_big = unit_graph.expansion_problem(project, derived.base)
    if too_big:
        raise CompileError(f'network "{name}": {too_big}')
    test = derived.test_mode if test_mode is None else test_mode
    compiler = _Compiler(project, name, test, derived.derived, folded)
    inference = NetworkInference(derived.network, project, units=UnitCache(project, costs=False))
    refs = compiler.network(inference, _Scope(folded=folded))
    outputs = []
    for out_name, layer in derived.outputs:
        if layer in refs:
            outputs.append((out_name, refs[layer]))
    outputs.extend(compiler.outputs)
    return Program(
        network=name,
        steps=tuple(compiler.steps),
        parameters=tuple(compiler.parameters.values()),
        generators=tuple(compiler.generators),
        feeds=dict(compiler.feeds),
        losses=tuple(s.name for s in compiler.steps if s.is_loss),
        outputs=tuple(outputs),
        test_mode=test,
    )


@dataclass(frozen=True)
class _Scope:
    """Where a (unit) network is being expanded."""

    path: str = ""  # call path prefix of layer names, "SE1/" inside Unit SE1
    unit_scopes: tuple[str, ...] = ()  # ParameterScopes of the enclosing Unit layers
    bound: tuple[Ref, ...] | None = None  # the Unit layer's inputs (None at the top level)
    overrides: Mapping[str, str] = field(default_factory=dict)  # the Unit's <L>.<p>.* values
    unit: str | None = None  # the unit network's name, for messages
    repeat: tuple[tuple[str, int], ...] = ()  # (RepeatStart ID, iteration) of enclosing blocks
    time: tuple[int, ...] = ()  # time step in the enclosing recurrent loops
    folded: bool = False  # loops kept as nnabla's repeat form: no copies, names as drawn

    def name(self, layer: str) -> str:
        """The layer's call path: ``SE1/Conv``, ``Conv[1]`` in iteration 1 of a repeat block,
        ``Tanh[t=3]`` in time step 3 of a recurrent loop."""
        if self.folded:
            return self.path + layer
        return (self.path + layer + "".join(f"[{i}]" for _, i in self.repeat)
                + "".join(f"[t={t}]" for t in self.time))  # fmt: skip

    def parameter(self, name: str) -> str:
        """nnabla's expansion of repeat ids: ``Conv{RepeatStart}/conv/W`` -> ``Conv[1]/conv/W``."""
        if self.folded:  # nnabla expands the ``{id}`` when it loads the network
            return name
        for repeat_id, i in self.repeat:
            name = name.replace("{" + repeat_id + "}", f"[{i}]")
        return name

    @property
    def repeat_ids(self) -> tuple[str, ...]:
        return tuple(repeat_id for repeat_id, _ in self.repeat)


class _Compiler:
    def __init__(
        self, project: Project, network: str, test_mode: bool, derived: bool, folded: bool = False
    ) -> None:
        self.project = project
        self.folded = folded
        self.top = network
        self.test_mode = test_mode
        self.derived = derived
        self.steps: list[Step] = []
        self.parameters: dict[str, ParameterDecl] = {}
        self.generators: list[GeneratorDecl] = []
        self.feeds: dict[str, tuple[int, ...]] = {}
        self.outputs: list[tuple[str, Ref]] = []

    # -- messages ----------------------------------------------------------------------------

    def error(self, scope: _Scope, layer: str, message: str) -> CompileError:
        where = f'network "{self.top}", layer "{scope.name(layer)}"'
        if scope.unit:
            where += f' (in unit network "{scope.unit}")'
        return CompileError(f"{where}: {message}")

    # -- networks ----------------------------------------------------------------------------

    def network(self, inference: NetworkInference, scope: _Scope) -> dict[str, Ref]:
        """Compile every layer of one (expanded) network; returns layer -> output reference."""
        network = inference.network
        for layer in network.layers:  # before anything else: a loop would look like a cycle
            self._check_runnable(find_spec(layer.type), layer, scope)
        repeats = any(layer.type == "RepeatStart" for layer in network.layers)
        blocks = nesting.repeat_blocks(network) if repeats else {}
        loops = self._loops(network, scope)
        order = recurrent.order(network, loops) if loops else _order(network)
        loop_of = {n: b for b in loops.values() for n in (b.start, *b.members, b.end)}
        refs: dict[str, Ref] = {}
        self._sequence(inference, order, blocks, (), refs, scope, loop_of)
        return refs

    def _loops(self, network: Network, scope: _Scope) -> dict[str, recurrent.Block]:
        if not any(layer.type == "RecurrentInput" for layer in network.layers):
            return {}
        try:
            return recurrent.blocks(network)
        except ValueError as exc:
            raise CompileError(f'network "{self.top}": {exc}') from None

    def _sequence(
        self,
        inference: NetworkInference,
        order: list[Layer],
        blocks: Mapping[str, tuple[str, ...]],
        level: tuple[str, ...],
        refs: dict[str, Ref],
        scope: _Scope,
        loop_of: Mapping[str, recurrent.Block],
    ) -> None:
        """The layers of one repeat level (``level``: the enclosing RepeatStart layers)."""
        for layer in order:
            if blocks.get(layer.name, ()) != level or layer.type == "RepeatEnd":
                continue  # inside a nested block, or a block's end (set by its loop)
            loop = loop_of.get(layer.name)
            if loop is not None:  # a recurrent loop: compiled as a whole at its start
                if layer.name == loop.start:
                    inner = [x for x in order if loop_of.get(x.name) is loop]
                    block = folded.compile_block if self.folded else recurrent.compile_block
                    block(self, inference, loop, inner, refs, scope)
            elif layer.type == "RepeatStart":
                self._repeat(inference, order, blocks, level, layer, refs, scope, loop_of)
            else:
                self._one(inference, layer, refs, scope)

    def _one(
        self, inference: NetworkInference, layer: Layer, refs: dict[str, Ref], scope: _Scope
    ) -> None:
        spec = find_spec(layer.type)
        assert spec is not None  # checked by network()
        if spec.support is Support.ANNOTATION:
            return
        network = inference.network
        mains = [refs[k.source] for k in network.inputs_of(layer.name)
                 if k.dest_pin == 0 and k.source in refs]  # fmt: skip
        if not mains and self.derived and spec.inputs.value in ("Single", "Multiple"):
            return  # left without input when its losses were removed (a loss scaling)
        if spec.type == "Output":
            if mains:
                self.outputs.append((layer.properties.get("VariableName") or layer.name,
                                     mains[0]))  # fmt: skip
            return
        ev = self._eval(inference, layer, scope)
        if self.test_mode and spec.has_skip_at_test and ev.value("SkipAtTest") is True:
            # Derived networks are rewritten already; this bypasses them inside units.
            if mains:
                refs[layer.name] = mains[0]
            return
        ref = self.layer(inference, layer, spec, ev, mains, refs, scope)
        if ref is not None:
            refs[layer.name] = ref

    def _repeat(
        self,
        inference: NetworkInference,
        order: list[Layer],
        blocks: Mapping[str, tuple[str, ...]],
        level: tuple[str, ...],
        start: Layer,
        refs: dict[str, Ref],
        scope: _Scope,
        loop_of: Mapping[str, recurrent.Block],
    ) -> None:
        """RepeatStart ... RepeatEnd unrolled ``Times`` times, each copy with its own
        parameters (``{ID}`` -> ``[i]`` in their names, as nnabla expands them)."""
        network = inference.network
        ev = self._eval(inference, start, scope)
        end = next((layer.name for layer in network.layers if layer.type == "RepeatEnd" and
                    nesting.matching_start(network, layer.name, "RepeatStart", "RepeatEnd")
                    == start.name), None)  # fmt: skip
        source = next((k.source for k in network.inputs_of(end or "") if k.dest_pin == 0), None)
        first = next((refs[k.source] for k in network.inputs_of(start.name)
                      if k.dest_pin == 0 and k.source in refs), None)  # fmt: skip
        if end is None or source is None or first is None:
            raise self.error(scope, start.name, "the repeat block needs an input and a RepeatEnd")
        if inference.shape(source) != inference.shape(start.name):
            raise self.error(
                scope, start.name,
                f"the repeated block must keep its shape: {inference.shape(start.name)} in, "
                f"{inference.shape(source)} out",
            )  # fmt: skip
        current = first
        times = ev.value("Times")
        if self.folded:
            at = (inference, order, blocks, (*level, start.name), loop_of)
            folded.repeat_block(self, at, start.name, end, source, first, ev, refs, scope)
            return
        for i in range(times if isinstance(times, int) else 1):
            refs[start.name] = current
            inner = replace(scope, repeat=(*scope.repeat, (str(ev.value("ID")), i)))
            self._sequence(inference, order, blocks, (*level, start.name), refs, inner, loop_of)
            current = refs[source]
        refs[end] = current

    def _check_runnable(self, spec: LayerSpec | None, layer: Layer, scope: _Scope) -> None:
        if spec is None:
            raise self.error(scope, layer.name, f"unknown layer type {layer.type!r}")
        if spec.support is Support.UNSUPPORTED:
            raise self.error(
                scope, layer.name, f"layer type {spec.type} is not supported by the engine yet"
            )

    def _eval(self, inference: NetworkInference, layer: Layer, scope: _Scope) -> LayerEval:
        try:
            result = inference.result(layer.name)
        except RuleError as exc:
            raise self.error(scope, layer.name, str(exc)) from None
        if result.error:
            raise self.error(scope, layer.name, result.error)
        return inference.eval(layer.name)

    def layer(
        self,
        inference: NetworkInference,
        layer: Layer,
        spec: LayerSpec,
        ev: LayerEval,
        mains: list[Ref],
        refs: Mapping[str, Ref],
        scope: _Scope,
    ) -> Ref | None:
        kind = spec.type
        if kind == "Input":
            return self._input(layer, ev, scope)
        if kind == "Parameter":
            return ("param", self._own_parameter(layer, ev, scope, lr_default=1.0))
        if kind == "WorkingMemory":
            return self._working_memory(layer, ev, mains, scope)
        if kind == "Unit":
            return self._unit(inference, layer, ev, mains, scope)
        if kind == "LSTM":
            lstm = folded.compile_lstm if self.folded else recurrent.compile_lstm
            return lstm(self, inference, layer, ev, mains, refs, scope)
        if kind in ("RecurrentInput", "RecurrentOutput", "Delay"):
            raise self.error(scope, layer.name, f"{kind} is not inside a recurrent loop "
                             f"(RecurrentInput ... RecurrentOutput)")  # fmt: skip
        return self._kernel(inference.network, layer, spec, ev, mains, refs, scope)

    # -- graph layers ------------------------------------------------------------------------

    def _input(self, layer: Layer, ev: LayerEval, scope: _Scope) -> Ref:
        if scope.bound is not None:
            if not scope.bound:
                raise self.error(scope, layer.name, "the Unit layer has no input to bind here")
            return scope.bound[0]
        shape = tuple(ev.output_shape() or ())
        generator = str(ev.value("Generator"))
        if generator != "None":
            name = str(ev.value("Dataset") or "") or layer.name
            return self._generator(generator, ev.value("GeneratorMultiplier"), shape, name)
        variable = str(ev.value("Dataset"))
        if not variable:
            raise self.error(scope, layer.name, "property Dataset: name a dataset variable")
        return self._feed(variable, shape)

    def _feed(self, variable: str, shape: tuple[int, ...]) -> Ref:
        self.feeds.setdefault(variable, shape)
        return ("feed", variable, shape)

    def _generator(
        self, kind: str, multiplier: object, shape: tuple[int, ...], name: str = ""
    ) -> Ref:
        decl = GeneratorDecl(kind, float(multiplier), shape, name)  # type: ignore[arg-type]
        self.generators.append(decl)
        return ("gen", len(self.generators) - 1)

    def _own_parameter(self, layer: Layer, ev: LayerEval, scope: _Scope, lr_default: float) -> str:
        """Parameter/WorkingMemory: the layer is a parameter named after itself."""
        raw = parameter_names.parameter_name(
            ev.spec, layer.name, layer.name, None, scope.unit_scopes, scope.repeat_ids
        )
        name = scope.parameter(raw)
        self._declare(ParameterDecl(
            name=name, shape=tuple(ev.output_shape() or ()),
            initializer=str(ev.value("Initializer")),
            multiplier=float(ev.value("InitializerMultiplier")),  # type: ignore[arg-type]
            lr_multiplier=float(ev.value("LRateMultiplier") if lr_default else 0.0),  # type: ignore[arg-type]
            file=str(ev.value("File") or ""), layer=scope.name(layer.name),
            buffer=layer.type == "WorkingMemory",
        ))  # fmt: skip
        return name

    def _working_memory(self, layer: Layer, ev: LayerEval, mains: list[Ref], scope: _Scope) -> Ref:
        """A buffer shared by name; with an input it stores the input and passes it on."""
        name = self._own_parameter(layer, ev, scope, lr_default=0.0)
        if not mains:
            return ("param", name)
        step = Step(scope.name(layer.name), layer.type, F.identity, (mains[0],), {},
                    tuple(ev.output_shape() or ()), stores=name)  # fmt: skip
        self.steps.append(step)
        return ("step", step.name)

    def _unit(
        self, inference: NetworkInference, layer: Layer, ev: LayerEval, mains: list[Ref],
        scope: _Scope,
    ) -> Ref:  # fmt: skip
        sub = inference.expansion(layer.name)
        if sub is None:
            raise self.error(scope, layer.name, "the unit could not be expanded")
        unit_scope = str(ev.value("ParameterScope") or "")
        if unit_scope and scope.repeat:  # a unit inside a repeat block: one copy per iteration
            unit_scope += "".join("{" + r + "}" if scope.folded else f"[{i}]"
                                  for r, i in scope.repeat)  # fmt: skip
        inner = _Scope(
            path=scope.name(layer.name) + "/",
            unit_scopes=(*scope.unit_scopes, unit_scope),
            bound=tuple(mains),
            folded=scope.folded,
            overrides={k: v for k, v in layer.properties.items() if k.count(".") >= 2},
            unit=sub.network.name,
        )
        refs = self.network(sub, inner)
        terminal = _terminal(sub.network)
        if terminal is None or terminal not in refs:
            raise self.error(
                scope, layer.name, f'unit network "{sub.network.name}" has no single last layer'
            )
        return refs[terminal]

    # -- kernel layers -----------------------------------------------------------------------

    def _kernel(
        self,
        network: Network,
        layer: Layer,
        spec: LayerSpec,
        ev: LayerEval,
        mains: list[Ref],
        refs: Mapping[str, Ref],
        scope: _Scope,
    ) -> Ref:
        function = getattr(F, spec.function or "", None)
        if function is None:
            raise self.error(scope, layer.name, f"F.{spec.function} does not exist")
        side = {k.dest_pin: refs[k.source] for k in network.inputs_of(layer.name)
                if k.dest_pin > 0 and k.source in refs}  # fmt: skip
        inputs = list(mains)
        for pin, connector in enumerate(spec.connectors, start=1):
            inputs.append(self._connector(layer, spec, ev, connector, side.get(pin), scope))
            hidden = _HIDDEN.get(spec.type)
            if hidden and hidden[0] == connector.name:
                inputs.append(self._hidden_parameter(layer, spec, ev, hidden[1], scope))
        kwargs, batch_kwargs = self._arguments(layer, spec, ev, function, scope)
        step = Step(
            name=scope.name(layer.name), type=spec.type, function=function,
            inputs=tuple(inputs), kwargs=kwargs, shape=tuple(ev.output_shape() or ()),
            batch_kwargs=batch_kwargs, is_loss=spec.is_loss,
        )  # fmt: skip
        self.steps.append(step)
        return ("step", step.name)

    def _connector(
        self,
        layer: Layer,
        spec: LayerSpec,
        ev: LayerEval,
        connector: SideConnector,
        wired: Ref | None,
        scope: _Scope,
    ) -> Ref:
        if wired is not None:
            return wired
        try:
            if connector.kind is ConnectorKind.PARAMETER:
                if not ev.connector_enabled(connector.name):
                    return ("none",)
                pspec = next(p for p in spec.parameters if p.name == connector.name)
                return ("param", self._parameter(layer, spec, ev, pspec, scope))
            shape = tuple(ev.connector_shape(connector.name))
            # As for an Input layer, a generator wins over the dataset variable (docs/layers.md
            # §1.8): NNC's GANs keep T.Dataset = y beside T.Generator = Constant.
            generator = str(ev.value(f"{connector.name}.Generator"))
            multiplier = ev.value(f"{connector.name}.GeneratorMultiplier")
            variable = str(ev.value(f"{connector.name}.Dataset") or "")
        except RuleError as exc:
            raise self.error(scope, layer.name, str(exc)) from None
        if generator != "None":
            return self._generator(generator, multiplier, shape, f"{layer.name}_{connector.name}")
        if not variable:
            raise self.error(
                scope, layer.name,
                f"side input {connector.name} is not connected and names no dataset variable "
                f"or generator",
            )  # fmt: skip
        return self._feed(variable, shape)

    def _parameter(
        self, layer: Layer, spec: LayerSpec, ev: LayerEval, pspec: ParameterSpec, scope: _Scope
    ) -> str:
        own_scope = str(ev.value("ParameterScope")) if spec.prop("ParameterScope") else layer.name
        name = scope.parameter(parameter_names.parameter_name(
            spec, layer.name, own_scope, pspec, scope.unit_scopes, scope.repeat_ids))  # fmt: skip

        def setting(key: str) -> object:
            override = scope.overrides.get(f"{layer.name}.{pspec.name}.{key}")
            return override if override is not None else ev.value(f"{pspec.name}.{key}")

        self._declare(ParameterDecl(
            name=name, shape=tuple(ev.connector_shape(pspec.name)),
            initializer=str(setting("Initializer")),
            multiplier=float(setting("InitializerMultiplier")),  # type: ignore[arg-type]
            lr_multiplier=float(setting("LRateMultiplier")),  # type: ignore[arg-type]
            file=str(setting("File") or ""), layer=scope.name(layer.name),
        ))  # fmt: skip
        return name

    def _hidden_parameter(
        self, layer: Layer, spec: LayerSpec, ev: LayerEval, pname: str, scope: _Scope
    ) -> Ref:
        own_scope = str(ev.value("ParameterScope"))
        pspec = ParameterSpec(pname, "", "True", "Constant", 0.0, 0.0)
        name = scope.parameter(parameter_names.parameter_name(
            spec, layer.name, own_scope, pspec, scope.unit_scopes, scope.repeat_ids))  # fmt: skip
        shape = tuple(ev.connector_shape("b"))
        self._declare(ParameterDecl(name, shape, "Constant", 0.0, 0.0, "", scope.name(layer.name)))
        return ("param", name)

    def _declare(self, decl: ParameterDecl) -> None:
        first = self.parameters.get(decl.name)
        if first is None:
            self.parameters[decl.name] = decl  # the first definition wins (nnc-behaviour §1.3)
        elif first.shape != decl.shape:
            raise CompileError(
                f'network "{self.top}", layer "{decl.layer}": parameter {decl.name} is shared '
                f'with layer "{first.layer}" but has shape {first.shape} there and {decl.shape} '
                f"here"
            )

    def _arguments(
        self, layer: Layer, spec: LayerSpec, ev: LayerEval, function: object, scope: _Scope
    ) -> tuple[dict[str, object], tuple[str, ...]]:
        accepted = _parameters_of(function)
        kwargs: dict[str, object] = {}
        batch: list[str] = []
        for prop in spec.properties:
            arg = prop.argument
            if arg is None or "_param." not in arg.name:
                continue  # a parametric-function argument (outmaps, kernel): shapes say it
            key = next((f.split("=", 1)[1] for f in arg.flags if f.startswith("-pyargname=")),
                       arg.name.split(".", 1)[1])  # fmt: skip
            if self.test_mode and arg.test_value is not None:
                value: object = arg.test_value
            else:
                try:
                    value = ev.value(prop.name)
                except RuleError as exc:
                    raise self.error(scope, layer.name, str(exc)) from None
            if value == "" and not prop.required:
                continue
            if (spec.type, prop.name) in _BATCH_IS_MINUS_ONE and isinstance(value, int):
                value += 1  # -1 (NNC's default) is nnabla's batch_axis 0
            elif arg.is_axis and (spec.type, prop.name) not in _NOT_AXIS:
                value = _shift_axis(value)
            if "-0" in arg.flags:
                value = (0, *value)  # type: ignore[misc]
            if "-b" in arg.flags:
                batch.append(key)
            if key not in accepted:
                raise self.error(
                    scope, layer.name, f"F.{spec.function} has no argument {key} ({prop.name})"
                )
            kwargs[key] = value
        return kwargs, tuple(batch)


def _shift_axis(value: object) -> object:
    """An axis counted without the batch axis, counted with it (negative axes stay)."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        return value + 1 if value >= 0 else value
    if isinstance(value, tuple):
        return tuple(_shift_axis(v) for v in value)
    return value


@functools.cache
def _parameters_of(function: object) -> frozenset[str]:
    return frozenset(inspect.signature(function).parameters)  # type: ignore[arg-type]


def _order(network: Network) -> list[Layer]:
    """Layers with every producer before its consumers; ties keep the network's order."""
    edges = [(k.source, k.destination) for k in network.links
             if not recurrent.is_back_edge(network, k.destination, k.dest_pin)]  # fmt: skip
    ordered, stuck = stable_order(network.layer_names, edges)
    if stuck:
        raise CompileError(f'network "{network.name}", layer "{stuck[0]}": the links form a cycle')
    return [network.layer(name) for name in ordered]


def _terminal(network: Network) -> str | None:
    """The unit network's last layer (``*UnitOutput``): the one layer whose output is unused."""
    used = {link.source for link in network.links}
    last = []
    for layer in network.layers:
        spec = find_spec(layer.type)
        if layer.name in used or spec is None or spec.support is Support.ANNOTATION:
            continue
        if spec.output_rule is not None:
            last.append(layer.name)
    return last[0] if len(last) == 1 else None

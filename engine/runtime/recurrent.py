"""Recurrent loops at run time: RecurrentInput ... RecurrentOutput, Delay and the LSTM layer.

nnabla unrolls a recurrent block when it loads a network (``nnabla/utils/nnp_graph.py``,
``_expand_repeat``) and the compiler does the same:

* RecurrentInput is a Split of its input along ``Axis``: one time step per slice;
* every layer of the block is copied once per time step (``Tanh[t=3]``) and the copies share
  the parameters: recurrent parameter names carry no ``{id}``, unlike repeat blocks;
* Delay gives its ``Initial`` value (side input, dataset variable or generator) at step 0 and
  its input of the previous step afterwards;
* RecurrentOutput stacks the per-step values of its input along ``Axis``.

Backpropagation through time is then the ordinary backward pass of the unrolled steps.

A block is the set of layers downstream of the RecurrentInput and not downstream of the
matching RecurrentOutput; the links into a Delay's main input are the recurrent back edges and
order nothing. The LSTM layer (NNC's built-in unit ``Unit/LSTM.sdcproj``) is compiled here as the
same unrolled loop: per step ``Concatenate(H, x_t)``, four affine gates, ``C = I*tanh(A) + F*C'``
and ``H = O*tanh(C)``, its parameters named ``<scope>/Affine/affine/W`` ... as NNC names them.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import engine.nn.functions as F
from engine.graph import nesting
from engine.graph.infer import NetworkInference
from engine.graph.network import Layer, Network
from engine.graph.order import descendants, stable_order
from engine.layers.evaluate import LayerEval
from engine.layers.spec import ConnectorKind
from engine.runtime.program import Ref, Step

if TYPE_CHECKING:  # the compiler imports this module
    from engine.runtime.compiler import _Compiler, _Scope

__all__ = [
    "Block",
    "blocks",
    "order",
    "compile_block",
    "compile_lstm",
    "initial_state",
    "lstm_step",
    "reshape_step",
    "loop_entry",
]


@dataclass(frozen=True)
class Block:
    """One recurrent loop: its RecurrentInput, RecurrentOutput and the layers in between."""

    start: str
    end: str
    members: tuple[str, ...]  # in network order


def is_back_edge(network: Network, destination: str, pin: int) -> bool:
    """A link into a Delay's main input: the value of the previous time step."""
    return pin == 0 and network.layer(destination).type == "Delay"


def blocks(network: Network) -> dict[str, Block]:
    """RecurrentInput name -> its block, for every RecurrentOutput that closes one."""
    edges = [(k.source, k.destination) for k in network.links]
    found: dict[str, Block] = {}
    owner: dict[str, str] = {}
    for layer in network.layers:
        if layer.type != "RecurrentOutput":
            continue
        start = nesting.matching_start(network, layer.name, "RecurrentInput", "RecurrentOutput")
        if start is None:
            continue
        inside = descendants(edges, start) - descendants(edges, layer.name) - {layer.name}
        members = tuple(x.name for x in network.layers if x.name in inside)
        for name in members:
            if name in owner:
                raise ValueError(
                    f'layer "{name}" is inside two recurrent loops ({owner[name]}, {start}): '
                    f"nested recurrent loops are not supported"
                )
            owner[name] = start
        found[start] = Block(start, layer.name, members)
    return found


def order(network: Network, found: Mapping[str, Block]) -> list[Layer]:
    """Layers with producers first, each block's layers together (start, members, end).

    Ties keep the network's order. A block is one node of the sort, so every layer feeding any
    of its members is placed before the loop and every consumer of its output after it.
    """
    node = {layer.name: layer.name for layer in network.layers}
    for block in found.values():
        for name in (block.start, *block.members, block.end):
            node[name] = block.start
    index = {layer.name: i for i, layer in enumerate(network.layers)}
    nodes = list(dict.fromkeys(node.values()))
    edges = []
    for k in network.links:
        a, b = node.get(k.source), node.get(k.destination)
        if (
            a is not None
            and b is not None
            and a != b
            and not is_back_edge(network, k.destination, k.dest_pin)
        ):
            edges.append((a, b))
    first = {n: min(index[x] for x in node if node[x] == n) for n in nodes}
    result: list[Layer] = []
    for n in _sorted(nodes, edges, first):
        if n in found:
            inner = _inner_order(network, found[n])
            result.extend(network.layer(x) for x in inner)
        else:
            result.append(network.layer(n))
    return result


def _inner_order(network: Network, block: Block) -> list[str]:
    names = {block.start, *block.members, block.end}
    edges = [
        (k.source, k.destination) for k in network.links
        if k.source in names and k.destination in names
        and not is_back_edge(network, k.destination, k.dest_pin)
    ]  # fmt: skip
    index = {layer.name: i for i, layer in enumerate(network.layers)}
    return _sorted([x.name for x in network.layers if x.name in names], edges, index)


def _sorted(nodes: list[str], edges: Any, rank: Mapping[str, int]) -> list[str]:
    ordered, stuck = stable_order(nodes, edges, rank.__getitem__)
    if stuck:
        raise ValueError(f'layer "{min(stuck, key=rank.__getitem__)}": the links form a cycle')
    return ordered


# -- compiling one block --------------------------------------------------------------------


def _time(scope: _Scope, t: int) -> _Scope:
    return replace(scope, time=(*scope.time, t))


@dataclass(frozen=True)
class LoopEntry:
    """Where a recurrent loop starts, as both ways of compiling it (unrolled here, folded in
    :mod:`engine.runtime.folded`) need it."""

    start: Layer  # the RecurrentInput
    source: Ref  # what it splits over time
    ev: LayerEval  # the RecurrentInput's evaluation
    axis: int  # the time axis, counted without the batch axis
    length: int  # time steps
    delays: list[Layer]
    initial: dict[str, Ref]  # each Delay's value at the first step


def loop_entry(
    comp: _Compiler, inference: NetworkInference, block: Block, inner: list[Layer],
    refs: Mapping[str, Ref], scope: _Scope,
) -> LoopEntry:  # fmt: skip
    start = inference.network.layer(block.start)
    source = next((refs[k.source] for k in inference.network.inputs_of(start.name)
                   if k.dest_pin == 0 and k.source in refs), None)  # fmt: skip
    if source is None:
        raise comp.error(scope, start.name, "the recurrent input has no input")
    ev = comp._eval(inference, start, scope)
    axis = int(ev.value("Axis"))  # type: ignore[arg-type]
    delays = [layer for layer in inner if layer.type == "Delay"]
    initial = {d.name: _delay_initial(comp, inference, d, refs, scope) for d in delays}
    return LoopEntry(start, source, ev, axis, ev.input_shape[axis], delays, initial)


def compile_block(
    comp: _Compiler,
    inference: NetworkInference,
    block: Block,
    inner: list[Layer],
    refs: dict[str, Ref],
    scope: _Scope,
) -> None:
    """Unroll ``block`` (``inner``: its layers in order) over the time axis into ``comp``."""
    network = inference.network
    entry = loop_entry(comp, inference, block, inner, refs, scope)
    start, ev, axis, delays = entry.start, entry.ev, entry.axis, entry.delays
    previous: dict[str, Ref] = {}
    per_step: list[Ref] = []
    end_source = next((k.source for k in network.inputs_of(block.end) if k.dest_pin == 0), None)
    for t in range(entry.length):
        at = _time(scope, t)
        refs[start.name] = _split(comp, at.name(start.name), start.type, entry.source, axis, t,
                                  tuple(ev.output_shape() or ()))  # fmt: skip
        for delay in delays:
            back = next((k.source for k in network.inputs_of(delay.name) if k.dest_pin == 0), "")
            if t > 0 and back not in previous:
                raise comp.error(scope, delay.name, "the Delay has no input to pass on")
            refs[delay.name] = entry.initial[delay.name] if t == 0 else previous[back]
        for layer in inner:
            if layer.name not in (start.name, block.end) and layer.type != "Delay":
                comp._one(inference, layer, refs, at)
        previous = dict(refs)
        if end_source is None or end_source not in refs:
            raise comp.error(scope, block.end, "the recurrent output has no input")
        per_step.append(refs[end_source])
    end_ev = comp._eval(inference, network.layer(block.end), scope)
    refs[block.end] = _stack(comp, scope.name(block.end), "RecurrentOutput", per_step,
                             int(end_ev.value("Axis")), tuple(end_ev.output_shape() or ()))  # type: ignore[arg-type]  # fmt: skip


def _split(comp: _Compiler, name: str, type_: str, x: Ref, axis: int, t: int,
           shape: tuple[int, ...]) -> Ref:  # fmt: skip
    """Time step ``t`` of ``x`` (``axis`` counted without the batch axis)."""
    step = Step(name, type_, F.split, (x,), {"axis": axis + 1}, shape, item=t)
    comp.steps.append(step)
    return ("step", name)


def _stack(comp: _Compiler, name: str, type_: str, parts: list[Ref], axis: int,
           shape: tuple[int, ...]) -> Ref:  # fmt: skip
    comp.steps.append(Step(name, type_, F.stack, tuple(parts), {"axis": axis + 1}, shape))
    return ("step", name)


def _delay_initial(
    comp: _Compiler, inference: NetworkInference, delay: Layer, refs: Mapping[str, Ref],
    scope: _Scope,
) -> Ref:  # fmt: skip
    ev = comp._eval(inference, delay, scope)
    wired = next((refs[k.source] for k in inference.network.inputs_of(delay.name)
                  if k.dest_pin == 1 and k.source in refs), None)  # fmt: skip
    return initial_state(comp, delay, ev, "Initial", wired, scope)


def initial_state(
    comp: _Compiler, layer: Layer, ev: LayerEval, connector: str, wired: Ref | None,
    scope: _Scope,
) -> Ref:  # fmt: skip
    """A state's value at step 0: the wired input, a constant (a step, so exports can write
    it), a Normal/Uniform generator or, with Generator None, the dataset variable."""
    if wired is not None:
        return wired
    shape = tuple(ev.connector_shape(connector))
    generator = str(ev.value(f"{connector}.Generator"))
    if generator == "Constant" and not comp.folded:  # folded: a generator, as NNC writes it
        value = float(ev.value(f"{connector}.GeneratorMultiplier") or 0.0)  # type: ignore[arg-type]
        name = scope.name(layer.name) + f"/{connector}"
        comp.steps.append(Step(name, "Delay", F.constant, (), {"val": value, "shape": shape},
                               shape, batch_kwargs=("shape",)))  # fmt: skip
        return ("step", name)
    if generator != "None":  # the generator wins over the dataset variable (docs/layers.md §1.8)
        multiplier = ev.value(f"{connector}.GeneratorMultiplier")
        return comp._generator(generator, multiplier, shape, f"{layer.name}_{connector}")
    variable = str(ev.value(f"{connector}.Dataset") or "")
    if not variable:
        raise comp.error(scope, layer.name, f"{connector}: not connected and Generator None, "
                         f"but {connector}.Dataset names no dataset variable")  # fmt: skip
    return comp._feed(variable, shape)


# -- the LSTM layer -------------------------------------------------------------------------

_GATES = ("Affine", "IGate", "FGate", "OGate")


def compile_lstm(
    comp: _Compiler, inference: NetworkInference, layer: Layer, ev: LayerEval, mains: list[Ref],
    refs: Mapping[str, Ref], scope: _Scope,
) -> Ref:  # fmt: skip
    """NNC's LSTM unit unrolled: the steps of ``Unit/LSTM.sdcproj`` for every time step."""
    spec = ev.spec
    if not mains:
        raise comp.error(scope, layer.name, "the LSTM layer has no input")
    wired = {k.dest_pin: refs[k.source] for k in inference.network.inputs_of(layer.name)
             if k.dest_pin > 0 and k.source in refs}  # fmt: skip
    pins = {c.name: pin for pin, c in enumerate(spec.connectors, start=1)}
    params: dict[str, Ref] = {}
    for c in spec.connectors:
        if c.kind is ConnectorKind.PARAMETER:
            params[c.name] = comp._connector(layer, spec, ev, c, wired.get(pins[c.name]), scope)
    axis = int(ev.value("Axis"))  # type: ignore[arg-type]
    size = tuple(int(n) for n in ev.value("Size"))  # type: ignore[union-attr]
    inner = tuple(int(n) for n in ev.value("InnerShape"))  # type: ignore[union-attr]
    length = int(ev.value("Length"))  # type: ignore[arg-type]
    flat = (math.prod(size),)
    base = scope.name(layer.name)
    h, c = (
        reshape_step(comp, f"{base}/{s[0]}", initial_state(comp, layer, ev, s,
                                                  wired.get(pins[s]), scope), flat)
        for s in ("H.Initial", "C.Initial")
    )  # fmt: skip
    outputs = []
    for t in range(length):
        x_t = _split(comp, f"{base}/RecurrentInput[t={t}]", "RecurrentInput", mains[0], axis, t,
                     inner)  # fmt: skip
        x_t = reshape_step(comp, f"{base}/Input[t={t}]", x_t, (math.prod(inner),))
        h, c = lstm_step(comp, f"{base}/{{}}[t={t}]", x_t, h, c, params, flat, inner)
        outputs.append(reshape_step(comp, f"{base}/H[t={t}]", h, size))
    out_axis = min(axis, len(size))  # *RecurrentOutputSize2: Length inserted at Axis of Size
    return _stack(comp, base, "RecurrentOutput", outputs, out_axis, tuple(ev.output_shape() or ()))


def lstm_step(
    comp: _Compiler, pattern: str, x_t: Ref, h: Ref, c: Ref, params: Mapping[str, Ref],
    flat: tuple[int, ...], inner: tuple[int, ...],
) -> tuple[Ref, Ref]:  # fmt: skip
    """One time step of NNC's LSTM unit on flat (batch, n) inputs: the new (H, C)."""
    width = (flat[0] + math.prod(inner),)
    hx = _call(comp, pattern.format("Concatenate"), "Concatenate", F.concatenate, (h, x_t),
               {"axis": 1}, width)  # fmt: skip
    gate = {}
    for g, act in zip(_GATES, (F.tanh, F.sigmoid, F.sigmoid, F.sigmoid), strict=True):
        weights = (hx, params[f"{g}.W"], params[f"{g}.b"])
        pre = _call(comp, pattern.format(g), "Affine", F.affine, weights, {"base_axis": 1}, flat)
        kind = "Tanh" if act is F.tanh else "Sigmoid"
        gate[g] = _call(comp, pattern.format(f"{g}/{kind}"), kind, act, (pre,), {}, flat)
    mul = functools.partial(_call, comp, type_="Mul2", fn=F.mul2, kwargs={}, shape=flat)
    kept = mul(pattern.format("Mul2_2"), inputs=(gate["FGate"], c))
    new = mul(pattern.format("Mul2"), inputs=(gate["IGate"], gate["Affine"]))
    c = _call(comp, pattern.format("Add2"), "Add2", F.add2, (new, kept), {}, flat)
    tanh_c = _call(comp, pattern.format("Tanh_2"), "Tanh", F.tanh, (c,), {}, flat)
    return mul(pattern.format("Mul2_3"), inputs=(gate["OGate"], tanh_c)), c


def _call(comp: _Compiler, name: str, type_: str, fn: object, inputs: tuple[Ref, ...],
          kwargs: dict[str, object], shape: tuple[int, ...]) -> Ref:  # fmt: skip
    comp.steps.append(Step(name, type_, fn, inputs, kwargs, shape))  # type: ignore[arg-type]
    return ("step", name)


def reshape_step(comp: _Compiler, name: str, x: Ref, shape: tuple[int, ...]) -> Ref:
    comp.steps.append(Step(name, "Reshape", F.reshape, (x,), {"shape": shape}, shape,
                           batch_kwargs=("shape",)))  # fmt: skip
    return ("step", name)

"""Loops kept as nnabla writes them: the folded program the NNP writer reads.

NNC's nntxt does not unroll loops. nnabla expands them when it loads a network
(``nnabla/core/graph_def.py``, ``ProtoNetwork.expand_loop_control``; docs/formats.md §4.2):

* a block's functions and variables carry ``repeat_id`` (the enclosing loops, outer first) and
  the network a ``repeat_info {id, times}`` per loop;
* ``RepeatStart`` takes (the block's input, the value that feeds ``RepeatEnd``): iteration 0
  reads the first, iteration i the second of iteration i-1; ``RepeatEnd`` gives the last
  iteration's value; parameters in a repeat block keep ``{id}`` in their names
  (``Conv{RepeatStart}/conv/W``, expanded to ``Conv[0]/conv/W`` ...);
* ``RecurrentInput`` splits along ``recurrent_param.axis`` (batch axis counted), ``Delay``
  takes (the value of the previous step, the initial value), ``RecurrentOutput`` stacks
  ``length`` steps; recurrent parameters are shared (no ``{id}``).

Here the compiler compiles each block's layers once (names as drawn) between such marker steps
and :func:`_mark` adds the loop's id to every step compiled inside it. The marker steps have no
kernel: a folded program is a description, the unrolled one (:mod:`engine.runtime.recurrent`)
is what runs.
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from engine.graph.infer import NetworkInference
from engine.graph.network import Layer
from engine.layers.evaluate import LayerEval
from engine.layers.spec import ConnectorKind
from engine.runtime.program import Ref, Step
from engine.runtime.recurrent import Block, initial_state, loop_entry, lstm_step, reshape_step

if TYPE_CHECKING:  # the compiler imports this module
    from engine.runtime.compiler import _Compiler, _Scope

__all__ = ["compile_block", "compile_lstm", "repeat_block"]


def _marker(*_: Any, **__: Any) -> Any:
    raise RuntimeError("a folded program describes loops for the NNP writer; it does not run")


def _add(comp: _Compiler, name: str, type_: str, inputs: tuple[Ref, ...],
         kwargs: dict[str, Any], shape: tuple[int, ...]) -> Ref:  # fmt: skip
    comp.steps.append(Step(name, type_, _marker, inputs, kwargs, shape))
    return ("step", name)


def _set_input(comp: _Compiler, ref: Ref, k: int, value: Ref) -> None:
    """Fill input ``k`` of an earlier marker step (a back edge known once the body is done)."""
    index = next(i for i, s in enumerate(comp.steps) if s.name == ref[1])
    step = comp.steps[index]
    comp.steps[index] = replace(step, inputs=(*step.inputs[:k], value, *step.inputs[k + 1 :]))


def _mark(comp: _Compiler, begin: int, repeat_id: str) -> None:
    """Every step from ``begin`` on lies inside loop ``repeat_id`` (nested loops marked
    first, so the enclosing id goes in front)."""
    for i in range(begin, len(comp.steps)):
        step = comp.steps[i]
        comp.steps[i] = replace(step, repeat_ids=(repeat_id, *step.repeat_ids))


def repeat_block(
    comp: _Compiler, at: tuple[Any, ...], start: str, end: str, source: str, first: Ref,
    ev: LayerEval, refs: dict[str, Ref], scope: _Scope,
) -> None:  # fmt: skip
    """RepeatStart ... RepeatEnd once, between its markers (``at``: what ``_sequence`` takes
    besides refs and scope)."""
    inference, order, blocks, level, loop_of = at
    repeat_id, times = str(ev.value("ID")), int(ev.value("Times"))  # type: ignore[call-overload]
    shape = tuple(ev.output_shape() or ())
    args = {"repeat_id": repeat_id, "times": times}
    begin = len(comp.steps)
    refs[start] = marker = _add(comp, scope.name(start), "RepeatStart", (first, first), args,
                                shape)  # fmt: skip
    inner = replace(scope, repeat=(*scope.repeat, (repeat_id, 0)))
    comp._sequence(inference, order, blocks, level, refs, inner, loop_of)
    _set_input(comp, marker, 1, refs[source])
    _mark(comp, begin, repeat_id)
    refs[end] = _add(comp, scope.name(end), "RepeatEnd", (refs[source],), args, shape)


def compile_block(
    comp: _Compiler, inference: NetworkInference, block: Block, inner: list[Layer],
    refs: dict[str, Ref], scope: _Scope,
) -> None:  # fmt: skip
    """A recurrent loop once: RecurrentInput, Delays, the layers, RecurrentOutput."""
    network = inference.network
    entry = loop_entry(comp, inference, block, inner, refs, scope)
    start, ev, delays, initial = entry.start, entry.ev, entry.delays, entry.initial
    repeat_id = str(ev.value("ID"))
    begin = len(comp.steps)
    refs[start.name] = _add(comp, scope.name(start.name), "RecurrentInput", (entry.source,),
                            {"repeat_id": repeat_id, "axis": entry.axis + 1},
                            tuple(ev.output_shape() or ()))  # fmt: skip
    for d in delays:
        shape = tuple(comp._eval(inference, d, scope).output_shape() or ())
        refs[d.name] = _add(comp, scope.name(d.name), "Delay", (initial[d.name],) * 2,
                            {"repeat_id": repeat_id}, shape)  # fmt: skip
    for layer in inner:
        if layer.name not in (start.name, block.end) and layer.type != "Delay":
            comp._one(inference, layer, refs, scope)
    for d in delays:
        back = next((k.source for k in network.inputs_of(d.name) if k.dest_pin == 0), "")
        if back not in refs:
            raise comp.error(scope, d.name, "the Delay has no input to pass on")
        _set_input(comp, refs[d.name], 0, refs[back])
    _mark(comp, begin, repeat_id)
    end_source = next((k.source for k in network.inputs_of(block.end) if k.dest_pin == 0), None)
    if end_source is None or end_source not in refs:
        raise comp.error(scope, block.end, "the recurrent output has no input")
    end_ev = comp._eval(inference, network.layer(block.end), scope)
    args = {"repeat_id": repeat_id, "length": entry.length, "axis": int(end_ev.value("Axis")) + 1}  # type: ignore[call-overload]
    refs[block.end] = _add(comp, scope.name(block.end), "RecurrentOutput", (refs[end_source],),
                           args, tuple(end_ev.output_shape() or ()))  # fmt: skip


def compile_lstm(
    comp: _Compiler, inference: NetworkInference, layer: Layer, ev: LayerEval, mains: list[Ref],
    refs: dict[str, Ref], scope: _Scope,
) -> Ref:  # fmt: skip
    """The LSTM layer as NNC's nntxt has it: its unit's recurrent loop (Unit/LSTM.sdcproj)
    with Delays ``H`` and ``C``, names under the layer's (``LSTM/IGate``)."""
    spec = ev.spec
    if not mains:
        raise comp.error(scope, layer.name, "the LSTM layer has no input")
    wired = {k.dest_pin: refs[k.source] for k in inference.network.inputs_of(layer.name)
             if k.dest_pin > 0 and k.source in refs}  # fmt: skip
    pins = {c.name: pin for pin, c in enumerate(spec.connectors, start=1)}
    params = {c.name: comp._connector(layer, spec, ev, c, wired.get(pins[c.name]), scope)
              for c in spec.connectors if c.kind is ConnectorKind.PARAMETER}  # fmt: skip
    axis = int(ev.value("Axis"))  # type: ignore[arg-type]
    size = tuple(int(n) for n in ev.value("Size"))  # type: ignore[union-attr]
    inner = tuple(int(n) for n in ev.value("InnerShape"))  # type: ignore[union-attr]
    repeat_id = str(ev.value("RecurrentGroupID") or layer.name)
    flat = (math.prod(size),)
    base = scope.name(layer.name)
    h0, c0 = (
        reshape_step(
            comp, f"{base}/{s}", initial_state(comp, layer, ev, s, wired.get(pins[s]), scope), flat
        )
        for s in ("H.Initial", "C.Initial")
    )
    begin = len(comp.steps)
    x_t = _add(comp, f"{base}/RecurrentInput", "RecurrentInput", (mains[0],),
               {"repeat_id": repeat_id, "axis": axis + 1}, inner)  # fmt: skip
    x_t = reshape_step(comp, f"{base}/Input", x_t, (math.prod(inner),))
    h = _add(comp, f"{base}/H", "Delay", (h0, h0), {"repeat_id": repeat_id}, flat)
    c = _add(comp, f"{base}/C", "Delay", (c0, c0), {"repeat_id": repeat_id}, flat)
    h_new, c_new = lstm_step(comp, f"{base}/{{}}", x_t, h, c, params, flat, inner)
    _set_input(comp, h, 0, h_new)
    _set_input(comp, c, 0, c_new)
    out = reshape_step(comp, f"{base}/Output", h_new, size)
    _mark(comp, begin, repeat_id)
    out_axis = min(axis, len(size))  # *RecurrentOutputSize2: Length inserted at Axis of Size
    args = {"repeat_id": repeat_id, "length": int(ev.value("Length")), "axis": out_axis + 1}  # type: ignore[call-overload]
    return _add(comp, base, "RecurrentOutput", (out,), args, tuple(ev.output_shape() or ()))

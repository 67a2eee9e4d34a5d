"""The LSTM layer back from its loop: the functions the NNP writer emits for it, folded into one.

The writer spells an LSTM layer ``B`` out as its unit's recurrent loop
(:func:`engine.runtime.folded.compile_lstm`): ``B/RecurrentInput``, ``B/Input``, the Delays
``B/H`` and ``B/C``, ``B/Concatenate``, the gates ``B/Affine``, ``B/IGate``, ``B/FGate``,
``B/OGate`` with their activations, ``B/Mul2``, ``B/Mul2_2``, ``B/Add2``, ``B/Tanh_2``,
``B/Mul2_3``, ``B/Output`` and the RecurrentOutput ``B``, the initial states reshaped by
``B/H.Initial`` and ``B/C.Initial``. Imported as they are, these would be a drawn loop whose
statistics count every layer once per time step; NNC's LSTM layer counts its own costs. A
group with exactly these functions becomes one ``LSTM`` function again (inputs: x, the two
initial values, the eight parameters in the layer's connector order). Any other loop stays as
drawn layers.
"""

from __future__ import annotations

from engine.formats.nnabla.graph import Function, ModelGraph

__all__ = ["fold_lstm"]

_GATES = ("Affine", "IGate", "FGate", "OGate")
_INNER = {
    "RecurrentInput": "RecurrentInput", "Input": "Reshape", "H": "Delay", "C": "Delay",
    "Concatenate": "Concatenate", "Affine/Tanh": "Tanh", "IGate/Sigmoid": "Sigmoid",
    "FGate/Sigmoid": "Sigmoid", "OGate/Sigmoid": "Sigmoid", "Mul2": "Mul2", "Mul2_2": "Mul2",
    "Add2": "Add2", "Tanh_2": "Tanh", "Mul2_3": "Mul2", "Output": "Reshape",
    "H.Initial": "Reshape", "C.Initial": "Reshape", **dict.fromkeys(_GATES, "Affine"),
}  # fmt: skip


def _group(graph: ModelGraph, base: str) -> dict[str, Function] | None:
    """The functions of the LSTM layer ``base`` when they are exactly what the writer emits."""
    found = {f.name.removeprefix(base + "/"): f for f in graph.functions
             if f.name.startswith(base + "/")}  # fmt: skip
    if {k: f.type for k, f in found.items()} != _INNER:
        return None
    used = {v for f in graph.functions if f.name != base and f.name not in
            {base + "/" + k for k in found} for v in f.inputs}  # fmt: skip
    if any(o in used for f in found.values() for o in f.outputs):
        return None  # an inner value is read outside the layer: keep the drawn loop
    return found


def fold_lstm(graph: ModelGraph) -> ModelGraph:
    """``graph`` with every LSTM loop the writer emitted as one ``LSTM`` function."""
    functions = list(graph.functions)
    for fn in graph.functions:
        group = _group(graph, fn.name) if fn.type == "RecurrentOutput" else None
        if group is None:
            continue
        start = group["RecurrentInput"]
        params = [v for g in _GATES for v in group[g].inputs[1:3]]
        inputs = [start.inputs[0], group["H.Initial"].inputs[0], group["C.Initial"].inputs[0]]
        args = {"axis": start.args.get("axis", 1), "size": graph.shapes.get(group["Output"]
                .outputs[0], ())}  # fmt: skip
        lstm = Function(fn.name, "LSTM", [*inputs, *params], list(fn.outputs), args)
        drop = {id(f) for f in group.values()}
        functions = [lstm if f is fn else f for f in functions if id(f) not in drop]
    graph.functions = functions
    return graph

"""The ONNX rules that layer entries reference (``LayerSpec.onnx``, an :class:`OnnxRule`).

A rule's ``write(g, step, ins) -> tensor`` adds the nodes of one runtime step to the model being
exported; ``read(ctx, node)`` turns one ONNX node into nnabla functions (layers). The exporter
(:mod:`engine.export.onnx_model`) and the importer (:mod:`engine.formats.onnx_import`) keep no
table of their own: they walk the catalogue. Modules here import neither ``onnx`` at load time
nor the exporter or importer, so the catalogue loads without the optional extra.

What ``g`` (the model being written) offers: ``g.node(op, inputs, hint, **attrs)`` (a node,
returns its output), ``g.const(hint, array)``, ``g.ints(hint, values)`` (1-d int64),
``g.param(name, transform=None)`` (a parameter as an initializer, transformed once per use),
``g.ref(ref)``, ``g.values`` (parameter arrays), ``g.in_shape(step, k)`` (input ``k``'s shape
without the batch axis) and ``g.batch_constant(hint, shape, value)`` (a ``(batch, *shape)``
tensor filled with ``value``, the batch taken from a network input).

What ``ctx`` (the model being read) offers: ``ctx.attrs(node)``, ``ctx.const(node, k, what)``
(input ``k`` as a constant, or a clear error), ``ctx.consts`` and ``ctx.shapes`` (ONNX names;
shapes with the batch axis fixed to 1), ``ctx.opset``, ``ctx.param(node, value, hint,
source=None)`` (a new parameter; ``source`` names the initializer it is, so the layers that
read one initializer share one parameter), ``ctx.params``, ``ctx.emit(node, type, inputs,
**args)`` (a function writing the node's output; ``output=``/``suffix=`` for the first of a
pair), ``ctx.producer(var)`` (the function that wrote ``var``), ``ctx.node_of(var)`` and
``ctx.consumers(var)`` (ONNX nodes), ``ctx.uses(var)`` (how many nodes read it),
``ctx.alias`` (an output that is another variable) and ``ctx.fail(node, message)`` (the
error to raise).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from engine.core import optional

__all__ = ["declared_write", "declared_read", "scalar", "uniform", "NONE"]

NONE = ("none",)  # an absent optional input (a bias with WithBias=False)


def declared_write(op: str) -> Any:
    """``op`` one to one: the data inputs, and the step's arguments that are attributes of it."""

    def write(g: Any, step: Any, ins: list[str]) -> str:
        defs = optional.require("onnx").defs

        names = defs.get_schema(op).attributes
        attrs = {k: float(v) if isinstance(v, float | int) and not isinstance(v, bool) else v
                 for k, v in step.kwargs.items() if k in names}  # fmt: skip
        return str(g.node(op, ins, step.name, **attrs))

    return write


def declared_read(layer_type: str, op: str) -> Any:
    """``op`` one to one: the node's attributes (with ONNX's defaults) become the nnabla
    arguments of the same name."""

    def read(ctx: Any, node: Any) -> None:
        defs = optional.require("onnx").defs
        helper = optional.require("onnx").helper

        schema = defs.get_schema(op, ctx.opset)
        given = ctx.attrs(node)
        args = {}
        for name, attr in schema.attributes.items():
            if name in given:
                args[name] = given[name]
            elif attr.default_value.type:
                args[name] = helper.get_attribute_value(attr.default_value)
        ctx.emit(node, layer_type, list(node.input), **args)

    return read


def scalar(value: np.ndarray) -> float | None:
    """The value of a one-element constant, else None."""
    return float(value.reshape(-1)[0]) if value.size == 1 else None


def uniform(value: np.ndarray, shape: tuple[int, ...]) -> float | None:
    """The value of a constant whose elements are all equal and that broadcasts to ``shape``
    without changing it (a Delay's zero state in an unrolled loop), else None."""
    flat = np.asarray(value).reshape(-1)
    if flat.size == 0 or np.any(flat != flat[0]) or value.ndim > len(shape):
        return None
    tail = shape[len(shape) - value.ndim :]
    if any(v not in (1, s) for v, s in zip(value.shape, tail, strict=True)):
        return None
    return float(flat[0])

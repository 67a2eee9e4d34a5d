"""``neurocanvas export onnx``: a runtime network as an ONNX model (standard operators).

The network is the compiled :class:`~engine.runtime.program.Program` (test mode: Dropout and
augmentation are gone, BatchNormalization uses its running statistics). Parameters become
initializers (BinaryConnect weights are binarized at export), the batch axis is dynamic
(``batch``), the opset is recorded in the model. The final activation (Softmax, Sigmoid) stays
inside the graph; the preprocessing (1/255 Image Normalization) is stated in the metadata
(``neurocanvas.preprocessing``), not in the graph, so inputs are what the dataset yields.

Each layer's nodes come from its catalogue entry (``LayerSpec.onnx``, rules in
:mod:`engine.layers.onnx_rules`); every step type without one is listed in one
:class:`ExportError` before anything is built. A Constant generator input is a ConstantOfShape
with the batch of the first network input; random generators have no ONNX operator.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from engine.core import optional
from engine.export.literals import ExportError
from engine.export.onnx_qdq import (
    QDQ_REFUSED,
    QDQ_WRITERS,
    is_weight_quantizer,
    quantized_weights,
    unsupported_quantizers,
)
from engine.export.runtime_network import compiled_runtime, parameter_values
from engine.layers import all_specs
from engine.layers.onnx_rules import declared_write
from engine.runtime.program import Program, Ref, Step

__all__ = ["DEFAULT_OPSET", "MIN_OPSET", "onnx_bytes", "onnx_model", "unsupported_steps"]

DEFAULT_OPSET = 17
MIN_OPSET = 13  # Softmax on one axis, Reshape/Split with tensor inputs


class _Graph:
    """Nodes and initializers being built for one program."""

    def __init__(self, program: Program, values: Mapping[str, np.ndarray], opset: int) -> None:
        self.program = program
        self.values = values
        self.opset = opset
        self.nodes: list[Any] = []
        self.inits: dict[str, Any] = {}
        self.transformed: dict[str, list[tuple[np.ndarray, str]]] = {}
        self.constants: dict[int, str] = {}  # generator index -> its ConstantOfShape
        self.names: dict[str, str] = {}  # step name -> tensor name
        self.shapes: dict[Ref, tuple[int, ...]] = {
            ("feed", v, tuple(s)): tuple(s) for v, s in program.feeds.items()
        }  # reference -> shape without the batch axis
        self.count = 0

    def fresh(self, hint: str) -> str:
        self.count += 1
        return f"{hint}:{self.count}"

    def node(self, op: str, inputs: list[str], hint: str, **attrs: Any) -> str:
        helper = optional.require("onnx").helper

        out = self.fresh(hint)
        self.nodes.append(helper.make_node(op, inputs, [out], name=out, **attrs))
        return out

    def const(self, hint: str, value: np.ndarray) -> str:
        numpy_helper = optional.require("onnx").numpy_helper

        name = self.fresh(hint)  # 0-d stays 0-d (a Gather index that removes its axis)
        self.inits[name] = numpy_helper.from_array(np.asarray(value, order="C"), name)
        return name

    def generated(self, ref: Ref) -> str:
        """A Constant generator input: ``(batch, *shape)`` filled with its multiplier, once."""
        if ref not in self.shapes:
            decl = self.program.generators[ref[1]]
            if decl.kind != "Constant":  # unsupported_steps lists it before anything is built
                raise ExportError(f"a {decl.kind} generator input has no ONNX operator")
            self.shapes[ref] = tuple(decl.shape)
            self.constants[ref[1]] = self.batch_constant(f"generator{ref[1]}", decl.shape,
                                                         float(decl.multiplier))  # fmt: skip
        return self.constants[ref[1]]

    def ints(self, hint: str, values: Any) -> str:
        return self.const(hint, np.array(list(values), dtype=np.int64))

    def in_shape(self, step: Step, k: int = 0) -> tuple[int, ...]:
        """The shape of the step's input ``k``, batch excluded."""
        return self.shapes[step.inputs[k]]

    def batch_constant(self, hint: str, shape: Any, value: float) -> str:
        """``(batch, *shape)`` filled with ``value``, the batch from the first network input."""
        TensorProto = optional.require("onnx").TensorProto
        helper = optional.require("onnx").helper

        if not self.program.feeds:
            raise ExportError(f'"{hint}": a constant needs a network input for its batch')
        first = self.node("Shape", [next(iter(self.program.feeds))], hint + "/shape")
        batch = self.node("Slice", [first, self.ints("zero", [0]), self.ints("one", [1])], hint)
        full = self.node("Concat", [batch, self.ints(hint + "/size", shape)], hint + "/size",
                         axis=0)  # fmt: skip
        filled = helper.make_tensor("value", TensorProto.FLOAT, [1], [value])
        return self.node("ConstantOfShape", [full], hint, value=filled)

    def param(self, name: str, transform: Callable[[np.ndarray], np.ndarray] | None = None) -> str:
        numpy_helper = optional.require("onnx").numpy_helper

        value = np.asarray(self.values[name], dtype=np.float32)
        if transform is None:
            if name not in self.inits:
                self.inits[name] = numpy_helper.from_array(np.ascontiguousarray(value), name)
            return name
        # One initializer per distinct transformed value: the time steps of an unrolled loop
        # share their weights in the file as they do in the network.
        array = transform(value).astype(np.float32)
        for done, tensor in self.transformed.get(name, ()):
            if done.shape == array.shape and np.array_equal(done, array):
                return tensor
        tensor = self.const(name, array)
        self.transformed.setdefault(name, []).append((array, tensor))
        return tensor

    def ref(self, ref: Ref) -> str:
        if ref[0] == "step":
            return self.names[ref[1]]
        if ref[0] == "feed":
            return str(ref[1])
        if ref[0] == "param":
            return self.param(ref[1])
        if ref[0] == "gen":
            return self.generated(ref)
        raise ExportError(f"cannot export input {ref!r}")


def _writers() -> dict[str, Callable[[_Graph, Step, list[str]], str]]:
    """Layer type -> its writer, from the catalogue (``LayerSpec.onnx``): the only table."""

    return {spec.type: spec.onnx.write or declared_write(spec.onnx.op)
            for spec in all_specs() if spec.onnx}  # fmt: skip


CONVERTERS = _writers()


def unsupported_steps(program: Program, quantized: bool = False) -> list[str]:
    """``layer "X" (Type)`` for each step without an ONNX converter, and the random generator
    inputs (a Constant generator is a ConstantOfShape); ``quantized``: FixedPointQuantize is
    written as QDQ (:mod:`engine.export.onnx_qdq`), the quantizers it cannot express listed."""
    if quantized:
        bad = unsupported_quantizers(program)
        bad += [f'layer "{s.name}" ({s.type})' for s in program.steps
                if s.type not in CONVERTERS and s.type not in QDQ_WRITERS
                and s.type not in QDQ_REFUSED]  # fmt: skip
        kinds = sorted({g.kind for g in program.generators if g.kind != "Constant"})
        return bad + [f"{kind} generator inputs" for kind in kinds]
    bad = [f'layer "{s.name}" ({s.type})' for s in program.steps if s.type not in CONVERTERS]
    kinds = sorted({g.kind for g in program.generators if g.kind != "Constant"})
    return bad + [f"{kind} generator inputs" for kind in kinds]


def onnx_model(
    program: Program, values: Mapping[str, np.ndarray], opset: int = DEFAULT_OPSET,
    metadata: Mapping[str, str] | None = None, quantized: bool = False,
) -> Any:  # fmt: skip
    """The checked ``onnx.ModelProto`` of ``program`` with parameter ``values``.

    Raises:
        ExportError: unsupported layers and random generator inputs (all listed), an opset
            out of range.
    """
    onnx = optional.require("onnx")
    TensorProto = optional.require("onnx").TensorProto
    helper = optional.require("onnx").helper

    if not MIN_OPSET <= opset <= onnx.defs.onnx_opset_version():
        raise ExportError(f"--opset: expected {MIN_OPSET} to {onnx.defs.onnx_opset_version()}. "
                          f"Received: {opset}")  # fmt: skip
    bad = unsupported_steps(program, quantized)
    if bad:
        raise ExportError(f'network "{program.network}" cannot be exported to ONNX: '
                          f"{', '.join(bad)} (no standard ONNX operator)")  # fmt: skip
    converters = dict(CONVERTERS)
    if quantized:
        converters.update(QDQ_WRITERS)
    if quantized:  # layers read their quantized weights' shapes (and values) by step name
        values = {**values, **quantized_weights(program, values)}

    g = _Graph(program, values, opset)
    for step in program.steps:
        params = quantized and is_weight_quantizer(step)
        ins = [] if params else [g.ref(r) for r in step.inputs if r[0] != "none"]
        try:
            g.names[step.name] = converters[step.type](g, step, ins)
        except (KeyError, TypeError, ValueError) as exc:
            if isinstance(exc, ExportError):
                raise ExportError(f'network "{program.network}", {exc}') from None
            raise ExportError(f'network "{program.network}", layer "{step.name}": {exc}') from None
        g.shapes[("step", step.name)] = step.shape
    outputs = []
    for name, ref in program.outputs:
        g.nodes.append(helper.make_node("Identity", [g.ref(ref)], [name], name=f"output:{name}"))
        shape = g.shapes[ref if ref[0] == "step" else ref]
        outputs.append(helper.make_tensor_value_info(name, TensorProto.FLOAT, ["batch", *shape]))
    inputs = [helper.make_tensor_value_info(v, TensorProto.FLOAT, ["batch", *s])
              for v, s in program.feeds.items()]  # fmt: skip
    used = {name for node in g.nodes for name in node.input}  # raw weights replaced by transforms
    inits = [init for name, init in g.inits.items() if name in used]
    graph = helper.make_graph(g.nodes, _graph_name(program.network), inputs, outputs, inits)
    domains = [helper.make_opsetid("", opset)]
    domains += [helper.make_opsetid(d, 1) for d in sorted({n.domain for n in g.nodes} - {""})]
    model = helper.make_model(graph, opset_imports=domains, producer_name="neurocanvas")
    model.ir_version = min(model.ir_version, 8)  # readable by older runtimes too
    helper.set_model_props(model, {"neurocanvas.network": program.network, **(metadata or {})})
    try:
        onnx.checker.check_model(model, full_check=True)
    # full_check runs shape inference too, whose InferenceError is no ValidationError
    except (onnx.checker.ValidationError, onnx.shape_inference.InferenceError) as exc:
        message = f'network "{program.network}": the ONNX checker refused it: {exc}'
        raise ExportError(message) from None
    return model


def _graph_name(name: str) -> str:
    return "".join(c if c.isalnum() else "_" for c in name) or "network"


def onnx_bytes(source: Any, opset: int = DEFAULT_OPSET, quantized: bool = False) -> bytes:
    """The serialized model of ``source.runtime`` with its trained (or initial) parameters."""
    program = compiled_runtime(source, "ONNX", lambda p: unsupported_steps(p, quantized),
                               " (no standard ONNX operator)")  # fmt: skip
    values = parameter_values(source, program)
    model = onnx_model(program, values, opset, metadata(program, source.normalize), quantized)
    return bytes(model.SerializeToString())


def metadata(program: Program, normalize: bool) -> dict[str, str]:
    """What a user of the model must know: preprocessing, final activation, inputs/outputs."""
    last = {name: _last_type(program, ref) for name, ref in program.outputs}
    return {
        "neurocanvas.preprocessing": (
            "8-bit images are divided by 255 (Image Normalization) before the model; other "
            "inputs are used as they are"
            if normalize
            else "none: inputs are used as they are"
        ),
        "neurocanvas.final_activation": json.dumps(last),
        "neurocanvas.inputs": json.dumps({v: list(s) for v, s in program.feeds.items()}),
        "neurocanvas.layout": "channels first (N, C, H, W); batch axis dynamic",
    }


def _last_type(program: Program, ref: Ref) -> str:
    if ref[0] != "step":
        return "none"
    step = next(s for s in program.steps if s.name == ref[1])
    if step.type in ("Softmax", "Sigmoid", "Tanh"):
        return f"{step.type} (inside the graph)"
    return "none"

"""``neurocanvas export onnx``: a runtime network as an ONNX model (standard operators).

The network is the compiled :class:`~engine.runtime.program.Program` (test mode: Dropout and
augmentation are gone, BatchNormalization uses its running statistics). Parameters become
initializers (BinaryConnect weights are binarized at export), the batch axis is dynamic
(``batch``), the opset is recorded in the model. The final activation (Softmax, Sigmoid) stays
inside the graph; the preprocessing (1/255 Image Normalization) is stated in the metadata
(``neurocanvas.preprocessing``), not in the graph, so inputs are what the dataset yields.

Every step type without a converter below is listed in one :class:`ExportError` before anything
is built.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from engine.export.literals import ExportError
from engine.runtime.program import Program, Ref, Step

__all__ = ["DEFAULT_OPSET", "MIN_OPSET", "onnx_bytes", "onnx_model", "unsupported_steps"]

DEFAULT_OPSET = 17
MIN_OPSET = 13  # Softmax on one axis, Reshape/Split with tensor inputs


class _Graph:
    """Nodes and initializers being built for one program."""

    def __init__(self, program: Program, values: Mapping[str, np.ndarray]) -> None:
        self.program = program
        self.values = values
        self.nodes: list[Any] = []
        self.inits: dict[str, Any] = {}
        self.names: dict[str, str] = {}  # step name -> tensor name
        self.shapes: dict[Ref, tuple[int, ...]] = {
            ("feed", v, tuple(s)): tuple(s) for v, s in program.feeds.items()
        }  # reference -> shape without the batch axis
        self.count = 0

    def fresh(self, hint: str) -> str:
        self.count += 1
        return f"{hint}:{self.count}"

    def node(self, op: str, inputs: list[str], hint: str, **attrs: Any) -> str:
        from onnx import helper  # noqa: PLC0415

        out = self.fresh(hint)
        self.nodes.append(helper.make_node(op, inputs, [out], name=out, **attrs))
        return out

    def const(self, hint: str, value: np.ndarray) -> str:
        from onnx import numpy_helper  # noqa: PLC0415

        name = self.fresh(hint)
        self.inits[name] = numpy_helper.from_array(np.ascontiguousarray(value), name)
        return name

    def param(self, name: str, transform: Callable[[np.ndarray], np.ndarray] | None = None) -> str:
        from onnx import numpy_helper  # noqa: PLC0415

        value = np.asarray(self.values[name], dtype=np.float32)
        if transform is None:
            if name not in self.inits:
                self.inits[name] = numpy_helper.from_array(np.ascontiguousarray(value), name)
            return name
        return self.const(name, transform(value).astype(np.float32))

    def ref(self, ref: Ref) -> str:
        if ref[0] == "step":
            return self.names[ref[1]]
        if ref[0] == "feed":
            return str(ref[1])
        if ref[0] == "param":
            return self.param(ref[1])
        raise ExportError(f"cannot export input {ref!r}")


# -- converters: (graph, step, input tensor names) -> output tensor name ------------------------


def _unary(op: str, **fixed: Any) -> Callable[[_Graph, Step, list[str]], str]:
    def convert(g: _Graph, step: Step, ins: list[str]) -> str:
        return g.node(op, ins[:1], step.name, **fixed)

    return convert


def _conv_attrs(step: Step, kernel: tuple[int, ...]) -> dict[str, Any]:
    kw = step.kwargs
    n = len(kernel)
    pad = tuple(kw.get("pad") or (0,) * n)
    return {
        "kernel_shape": list(kernel),
        "pads": [*pad, *pad],
        "strides": list(kw.get("stride") or (1,) * n),
        "dilations": list(kw.get("dilation") or (1,) * n),
    }


def _check_base_axis(step: Step) -> None:
    if step.kwargs.get("base_axis", 1) != 1 or step.kwargs.get("channel_last"):
        raise ExportError(f'layer "{step.name}": only BaseAxis 1, channels first, is exportable')


def _sign(zero_to: float) -> Callable[[np.ndarray], np.ndarray]:
    return lambda w: np.where(w > 0, 1.0, np.where(w < 0, -1.0, zero_to))


def _convolution(g: _Graph, step: Step, ins: list[str]) -> str:
    _check_base_axis(step)
    weight_ref = step.inputs[1]
    w = np.asarray(g.values[weight_ref[1]])
    if step.type.startswith("BinaryConnect"):
        weight = g.param(weight_ref[1], _sign(float(step.kwargs.get("quantize_zero_to", 1.0))))
        bias = step.inputs[3] if len(step.inputs) > 3 else ("none",)
    else:
        weight = ins[1]
        bias = step.inputs[2] if len(step.inputs) > 2 else ("none",)
    attrs = _conv_attrs(step, tuple(w.shape[2:]))
    inputs = [ins[0], weight] + ([g.ref(bias)] if bias[0] != "none" else [])
    return g.node("Conv", inputs, step.name, group=int(step.kwargs.get("group", 1)), **attrs)


def _depthwise(g: _Graph, step: Step, ins: list[str]) -> str:
    _check_base_axis(step)
    w = np.asarray(g.values[step.inputs[1][1]])  # (C * multiplier, *kernel)
    channels = w.shape[0] // int(step.kwargs.get("multiplier", 1))
    weight = g.param(step.inputs[1][1], lambda v: v.reshape(v.shape[0], 1, *v.shape[1:]))
    attrs = _conv_attrs(step, tuple(w.shape[1:]))
    bias = step.inputs[2] if len(step.inputs) > 2 else ("none",)
    inputs = [ins[0], weight] + ([g.ref(bias)] if bias[0] != "none" else [])
    return g.node("Conv", inputs, step.name, group=channels, **attrs)


def _affine(g: _Graph, step: Step, ins: list[str]) -> str:
    _check_base_axis(step)
    name = step.inputs[1][1]
    size = int(np.prod(step.shape))
    transform: Callable[[np.ndarray], np.ndarray] = lambda v: v.reshape(-1, size)  # noqa: E731
    if step.type.startswith("BinaryConnect"):
        sign = _sign(float(step.kwargs.get("quantize_zero_to", 1.0)))
        transform = lambda v: sign(v).reshape(-1, size)  # noqa: E731
        bias = step.inputs[3] if len(step.inputs) > 3 else ("none",)
    else:
        bias = step.inputs[2] if len(step.inputs) > 2 else ("none",)
    flat = g.node("Flatten", [ins[0]], step.name + "/flatten", axis=1)
    out = g.node("MatMul", [flat, g.param(name, transform)], step.name + "/matmul")
    if bias[0] != "none":
        out = g.node("Add", [out, g.param(bias[1], lambda v: v.reshape(size))], step.name)
    if len(step.shape) != 1:
        out = _reshape_to(g, out, step.shape, step.name)
    return out


def _reshape_to(g: _Graph, x: str, shape: tuple[int, ...], hint: str) -> str:
    target = g.const(hint + "/shape", np.array([0, *shape], dtype=np.int64))  # 0: keep batch
    return g.node("Reshape", [x, target], hint)


def _pooling(op: str) -> Callable[[_Graph, Step, list[str]], str]:
    def convert(g: _Graph, step: Step, ins: list[str]) -> str:
        kw = step.kwargs
        if kw.get("channel_last"):
            raise ExportError(f'layer "{step.name}": channel-last pooling is not exportable')
        kernel = tuple(kw["kernel"])
        n = len(kernel)
        stride = tuple(kw.get("stride") or kernel)
        pad = tuple(kw.get("pad") or (0,) * n)
        spatial = step.shape[-n:]
        ends = []
        for out, k, s, p, size in zip(spatial, kernel, stride, pad, _in_spatial(g, step, n),
                                      strict=True):  # fmt: skip
            # Right padding that gives exactly the engine's size (pooled_sizes) with floor
            # division: ONNX ceil_mode differs between runtimes on the last window.
            ends.append((out - 1) * s + k - size - p)
        if min(ends) < 0 and not kw.get("ignore_border", True):
            raise ExportError(f'layer "{step.name}": this pooling geometry is not exportable')
        ends = [max(e, 0) if not kw.get("ignore_border", True) else p
                for e, p in zip(ends, pad, strict=True)]  # fmt: skip
        attrs: dict[str, Any] = {"kernel_shape": list(kernel), "strides": list(stride),
                                 "pads": [*pad, *ends]}  # fmt: skip
        if op == "AveragePool":
            # nnabla divides by the window's cells inside [-pad, in + pad): ONNX counts them with
            # count_include_pad when the right padding is the pad, the input cells without it.
            padded = bool(kw.get("including_pad", True)) and any(pad)
            if padded and ends != list(pad):
                raise ExportError(f'layer "{step.name}": IgnoreBorder=False average pooling '
                                  f"with IncludingPad and Padding is not exportable")  # fmt: skip
            attrs["count_include_pad"] = int(padded)
        return g.node(op, ins[:1], step.name, **attrs)

    return convert


def _in_spatial(g: _Graph, step: Step, n: int) -> tuple[int, ...]:
    return g.shapes[step.inputs[0]][-n:]


def _batch_norm(g: _Graph, step: Step, ins: list[str]) -> str:
    kw = step.kwargs
    if tuple(kw.get("axes", (1,))) != (1,) or kw.get("batch_stat"):
        raise ExportError(f'layer "{step.name}": only test-mode batch normalization over the '
                          f"channel axis is exportable")  # fmt: skip
    beta, gamma, mean, var = (g.param(r[1], lambda v: v.reshape(-1)) for r in step.inputs[1:5])
    return g.node("BatchNormalization", [ins[0], gamma, beta, mean, var], step.name,
                  epsilon=float(kw.get("eps", 1e-5)))  # fmt: skip


def _softmax(g: _Graph, step: Step, ins: list[str]) -> str:
    axis = step.kwargs.get("axis")
    return g.node("Softmax", ins[:1], step.name, axis=-1 if axis is None else int(axis))


def _concatenate(g: _Graph, step: Step, ins: list[str]) -> str:
    axis = step.kwargs.get("axis")
    return g.node("Concat", ins, step.name, axis=-1 if axis is None else int(axis))


def _reshape(g: _Graph, step: Step, ins: list[str]) -> str:
    return _reshape_to(g, ins[0], tuple(step.kwargs["shape"]), step.name)


def _threshold(g: _Graph, step: Step, ins: list[str], low: float) -> str:
    """1 where x > 0, else ``low`` (the engine's BinaryTanh/BinarySigmoid: 0 maps to low)."""
    positive = g.node("Greater", [ins[0], g.const("zero", np.zeros((), np.float32))], step.name)
    one, other = g.const("one", np.ones((), np.float32)), g.const("low", np.float32(low))
    return g.node("Where", [positive, one, other], step.name)


def _ints(g: _Graph, hint: str, values: Any) -> str:
    return g.const(hint, np.array(list(values), dtype=np.int64))


def _time_step(g: _Graph, step: Step, ins: list[str]) -> str:
    """RecurrentInput, time step ``item``: F.split's slice, the axis removed (Gather)."""
    from onnx import numpy_helper  # noqa: PLC0415

    index = g.fresh(step.name + "/t")  # a 0-d index (g.const would make it 1-d)
    g.inits[index] = numpy_helper.from_array(np.array(step.item or 0, dtype=np.int64), index)
    return g.node("Gather", [ins[0], index], step.name, axis=int(step.kwargs["axis"]))


def _stack(g: _Graph, step: Step, ins: list[str]) -> str:
    """RecurrentOutput (F.stack): each step gets the new axis, then one Concat."""
    axis = int(step.kwargs["axis"])
    axes = _ints(g, step.name + "/axes", [axis])
    parts = [g.node("Unsqueeze", [x, axes], step.name + "/unsqueeze") for x in ins]
    return g.node("Concat", parts, step.name, axis=axis)


def _constant(g: _Graph, step: Step, ins: list[str]) -> str:
    """A Delay's constant initial value: (batch, *shape) filled, batch from the first input."""
    from onnx import (
        TensorProto,  # noqa: PLC0415
        helper,  # noqa: PLC0415
    )

    if not g.program.feeds:
        raise ExportError(f'layer "{step.name}": a constant needs a network input for its batch')
    shape = g.node("Shape", [next(iter(g.program.feeds))], step.name + "/shape")
    batch = g.node("Slice", [shape, _ints(g, "zero", [0]), _ints(g, "one", [1])], step.name)
    full = g.node("Concat", [batch, _ints(g, step.name + "/size", step.kwargs["shape"])],
                  step.name + "/size", axis=0)  # fmt: skip
    value = helper.make_tensor("value", TensorProto.FLOAT, [1], [float(step.kwargs["val"])])
    return g.node("ConstantOfShape", [full], step.name, value=value)


def _slice(g: _Graph, step: Step, ins: list[str]) -> str:
    kw = step.kwargs
    n = len(kw["start"])
    axes = list(range(-n, 0))  # nnabla aligns the lists to the trailing axes
    inputs = [ins[0], _ints(g, "starts", kw["start"]), _ints(g, "ends", kw["stop"]),
              _ints(g, "axes", axes), _ints(g, "steps", kw.get("step") or [1] * n)]  # fmt: skip
    return g.node("Slice", inputs, step.name)


def _flip(g: _Graph, step: Step, ins: list[str]) -> str:
    axes = list(step.kwargs["axes"])
    k = len(axes)
    inputs = [ins[0], _ints(g, "starts", [-1] * k), _ints(g, "ends", [-(2**63) + 1] * k),
              _ints(g, "axes", axes), _ints(g, "steps", [-1] * k)]  # fmt: skip
    return g.node("Slice", inputs, step.name)


def _unpooling(g: _Graph, step: Step, ins: list[str]) -> str:
    """Unpooling repeats each value ``kernel`` times per axis: nearest-neighbour resizing."""
    kernel = list(step.kwargs["kernel"])
    rank = len(g.shapes[step.inputs[0]]) + 1
    scales = g.const("scales", np.array([1.0] * (rank - len(kernel)) + kernel, np.float32))
    return g.node("Resize", [ins[0], "", scales], step.name, mode="nearest",
                  coordinate_transformation_mode="asymmetric", nearest_mode="floor")  # fmt: skip


def _sum_pooling(g: _Graph, step: Step, ins: list[str]) -> str:
    kw = step.kwargs
    if not kw.get("ignore_border", True) or any(kw.get("pad") or ()):
        raise ExportError(f'layer "{step.name}": only unpadded SumPooling is exportable')
    mean = _pooling("AveragePool")(g, step, ins)
    scale = g.const("count", np.float32(np.prod(kw["kernel"])))
    return g.node("Mul", [mean, scale], step.name)


def _scalar_op(op: str, value: Callable[[float], float] = float) -> Callable[..., str]:
    """``x <op> val`` with the step's ``val`` as a constant (MulScalar, AddScalar, ...)."""

    def convert(g: _Graph, step: Step, ins: list[str]) -> str:
        const = g.const("val", np.float32(value(float(step.kwargs.get("val", 1.0)))))
        return g.node(op, [ins[0], const], step.name)

    return convert


def _r_sub_scalar(g: _Graph, step: Step, ins: list[str]) -> str:
    value = g.const("val", np.float32(step.kwargs.get("val", 1.0)))
    return g.node("Sub", [value, ins[0]], step.name)


def _declared(op: str) -> Callable[[_Graph, Step, list[str]], str]:
    """A layer whose catalogue entry names its ONNX operator (``onnx="Relu"``): the data inputs
    and the step's arguments that are attributes of that operator."""

    def convert(g: _Graph, step: Step, ins: list[str]) -> str:
        from onnx import defs  # noqa: PLC0415

        names = defs.get_schema(op).attributes
        attrs = {k: float(v) if isinstance(v, float | int) and not isinstance(v, bool) else v
                 for k, v in step.kwargs.items() if k in names}  # fmt: skip
        return g.node(op, ins, step.name, **attrs)

    return convert


def _catalogue() -> dict[str, Callable[[_Graph, Step, list[str]], str]]:
    from engine.layers import all_specs  # noqa: PLC0415

    return {spec.type: _declared(spec.onnx) for spec in all_specs() if spec.onnx}


# Layers the catalogue maps one to one (``LayerSpec.onnx``), then those needing a rule here.
CONVERTERS: dict[str, Callable[[_Graph, Step, list[str]], str]] = _catalogue() | {
    "Convolution": _convolution,
    "BinaryConnectConvolution": _convolution,
    "DepthwiseConvolution": _depthwise,
    "Affine": _affine,
    "BinaryConnectAffine": _affine,
    "MaxPooling": _pooling("MaxPool"),
    "AveragePooling": _pooling("AveragePool"),
    "BatchNormalization": _batch_norm,
    "Softmax": _softmax,
    "Concatenate": _concatenate,
    "Reshape": _reshape,
    "Dropout": _unary("Identity"),  # test mode: Dropout passes its input
    "BinaryTanh": lambda g, s, i: _threshold(g, s, i, -1.0),
    "BinarySigmoid": lambda g, s, i: _threshold(g, s, i, 0.0),
    "RecurrentInput": _time_step,  # recurrent loops arrive unrolled: one node per time step
    "RecurrentOutput": _stack,
    "Delay": _constant,
    "Slice": _slice,
    "Flip": _flip,
    "Unpooling": _unpooling,
    "SumPooling": _sum_pooling,
    "RSubScalar": _r_sub_scalar,
    "MulScalar": _scalar_op("Mul"),
    "AddScalar": _scalar_op("Add"),
    "PowScalar": _scalar_op("Pow"),
    "ReLU6": lambda g, s, i: g.node(
        "Clip", [i[0], g.const("zero", np.float32(0)), g.const("six", np.float32(6))], s.name
    ),
}


def unsupported_steps(program: Program) -> list[str]:
    """``layer "X" (Type)`` for each step without an ONNX converter."""
    return [f'layer "{s.name}" ({s.type})' for s in program.steps if s.type not in CONVERTERS]


def onnx_model(
    program: Program, values: Mapping[str, np.ndarray], opset: int = DEFAULT_OPSET,
    metadata: Mapping[str, str] | None = None,
) -> Any:  # fmt: skip
    """The checked ``onnx.ModelProto`` of ``program`` with parameter ``values``.

    Raises:
        ExportError: unsupported layers (all listed), an opset out of range, generator inputs.
    """
    import onnx  # noqa: PLC0415
    from onnx import TensorProto, helper  # noqa: PLC0415

    if not MIN_OPSET <= opset <= onnx.defs.onnx_opset_version():
        raise ExportError(f"--opset: expected {MIN_OPSET} to {onnx.defs.onnx_opset_version()}. "
                          f"Received: {opset}")  # fmt: skip
    bad = unsupported_steps(program)
    if program.generators:
        bad.append("generator inputs")
    if bad:
        raise ExportError(f'network "{program.network}" cannot be exported to ONNX: '
                          f"{', '.join(bad)} (no standard ONNX operator)")  # fmt: skip
    g = _Graph(program, values)
    for step in program.steps:
        ins = [g.ref(r) for r in step.inputs if r[0] != "none"]
        try:
            g.names[step.name] = CONVERTERS[step.type](g, step, ins)
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
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)],
                              producer_name="neurocanvas")  # fmt: skip
    model.ir_version = min(model.ir_version, 8)  # readable by older runtimes too
    helper.set_model_props(model, {"neurocanvas.network": program.network, **(metadata or {})})
    try:
        onnx.checker.check_model(model, full_check=True)
    except onnx.checker.ValidationError as exc:
        message = f'network "{program.network}": the ONNX checker refused it: {exc}'
        raise ExportError(message) from None
    return model


def _graph_name(name: str) -> str:
    return "".join(c if c.isalnum() else "_" for c in name) or "network"


def onnx_bytes(source: Any, opset: int = DEFAULT_OPSET) -> bytes:
    """The serialized model of ``source.runtime`` with its trained (or initial) parameters."""
    import engine.nn as nn  # noqa: PLC0415
    from engine.core import backend  # noqa: PLC0415
    from engine.runtime.compiler import compile_network  # noqa: PLC0415
    from engine.runtime.program import ProgramError  # noqa: PLC0415

    try:
        program = compile_network(source.project, source.runtime)
    except ProgramError as exc:
        raise ExportError(str(exc)) from None
    bad = unsupported_steps(program)  # before any parameter is read
    if bad:
        raise ExportError(f'network "{program.network}" cannot be exported to ONNX: '
                          f"{', '.join(bad)} (no standard ONNX operator)")  # fmt: skip
    # A private registry (the caller's stays untouched), on the CPU: the values only go into
    # the file, and the GUI process, which exports, must never open a CUDA context.
    with nn.parameter_scope("", {}), backend.using("cpu"):
        params = program.create_parameters(source.base)
        if source.parameters is not None:
            nn.load_parameters(source.parameters)
        values = {k: backend.to_numpy(v.data) for k, v in params.items()}
    model = onnx_model(program, values, opset, metadata(program, source.normalize))
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

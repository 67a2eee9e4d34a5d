"""ONNX models as nnabla functions (:class:`~engine.formats.nnabla.graph.ModelGraph`).

Shapes come from ONNX shape inference with the batch axis fixed to 1 (every other axis must be
static). Nodes whose inputs are all constants are folded with ONNX's reference evaluator, and so
are ``Shape`` nodes (their value is known once the shapes are); the rest become NNC layers. Every
operator without an NNC equivalent is listed in one error before anything is built.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from engine.formats.nnabla.graph import Function, ImportError_, ModelGraph

__all__ = ["read_onnx", "ONNX_OPERATORS"]


class _Ctx:
    """The state of one conversion: constants, shapes, functions being emitted."""

    def __init__(self, model: Any, where: str) -> None:
        self.where = where
        self.model = model
        self.consts: dict[str, np.ndarray] = {}
        self.shapes: dict[str, tuple[int, ...]] = {}  # with the batch axis (1)
        self.functions: list[Function] = []
        self.params: dict[str, np.ndarray] = {}
        self.alias: dict[str, str] = {}

    def var(self, name: str) -> str:
        return self.alias.get(name, name)

    def param(self, node: Any, value: np.ndarray, hint: str) -> str:
        name = f"{node.name or node.output[0]}/{hint}"
        self.params[name] = np.ascontiguousarray(value, dtype=np.float32)
        return name

    def emit(self, node: Any, type_: str, inputs: list[str], **args: Any) -> None:
        name = node.name or node.output[0]
        self.functions.append(Function(name, type_, [self.var(i) for i in inputs],
                                       [node.output[0]], args))  # fmt: skip

    def fail(self, node: Any, message: str) -> ImportError_:
        return ImportError_(f'{self.where}: node "{node.name or node.output[0]}" '
                            f"({node.op_type}): {message}")  # fmt: skip


def _attrs(node: Any) -> dict[str, Any]:
    from onnx import helper  # noqa: PLC0415

    return {a.name: helper.get_attribute_value(a) for a in node.attribute}


def _const(ctx: _Ctx, node: Any, k: int, what: str) -> np.ndarray:
    if k >= len(node.input) or node.input[k] not in ctx.consts:
        raise ctx.fail(node, f"{what} must be a constant")
    return ctx.consts[node.input[k]]


def _scalar(value: np.ndarray) -> float | None:
    return float(value.reshape(-1)[0]) if value.size == 1 else None


def _pads(ctx: _Ctx, node: Any, a: dict[str, Any], kernel: list[int], strides: list[int],
          dilations: list[int]) -> list[int]:  # fmt: skip
    n = len(kernel)
    auto = a.get("auto_pad", b"NOTSET")
    auto = auto.decode() if isinstance(auto, bytes) else auto
    if auto in ("SAME_UPPER", "SAME_LOWER"):
        size = ctx.shapes[node.input[0]][2:]
        total = [max((-(-s // st) - 1) * st + (k - 1) * d + 1 - s, 0)
                 for s, k, st, d in zip(size, kernel, strides, dilations, strict=True)]  # fmt: skip
        if any(t % 2 for t in total):
            raise ctx.fail(node, "asymmetric SAME padding has no NNC equivalent")
        return [t // 2 for t in total]
    pads = list(a.get("pads", [0] * (2 * n)))
    if pads[:n] != pads[n:]:
        raise ctx.fail(node, f"asymmetric pads {pads} have no NNC equivalent")
    return pads[:n]


def _conv(ctx: _Ctx, node: Any) -> None:
    a = _attrs(node)
    w = _const(ctx, node, 1, "the weight")
    kernel = list(w.shape[2:])
    strides = list(a.get("strides", [1] * len(kernel)))
    dil = list(a.get("dilations", [1] * len(kernel)))
    pad = _pads(ctx, node, a, kernel, strides, dil)
    inputs = [node.input[0], ctx.param(node, w, "W")]
    if len(node.input) > 2 and node.input[2]:
        inputs.append(ctx.param(node, _const(ctx, node, 2, "the bias"), "b"))
    group = int(a.get("group", 1))
    channels = ctx.shapes[node.input[0]][1]
    if node.op_type == "ConvTranspose":
        if any(a.get("output_padding", [])) or "output_shape" in a:
            raise ctx.fail(node, "output_padding/output_shape have no NNC equivalent")
        ctx.emit(node, "Deconvolution", inputs, pad=pad, stride=strides, dilation=dil,
                 group=group, base_axis=1, channel_last=False)  # fmt: skip
    elif group > 1 and group == channels and w.shape[1] == 1:
        inputs[1] = ctx.param(node, w.reshape(w.shape[0], *kernel), "W")
        ctx.emit(node, "DepthwiseConvolution", inputs, pad=pad, stride=strides, dilation=dil,
                 multiplier=w.shape[0] // channels, base_axis=1)  # fmt: skip
    else:
        ctx.emit(node, "Convolution", inputs, pad=pad, stride=strides, dilation=dil,
                 group=group, base_axis=1, channel_last=False)  # fmt: skip


def _gemm(ctx: _Ctx, node: Any) -> None:
    a = _attrs(node)
    if a.get("transA", 0):
        raise ctx.fail(node, "transA=1 has no NNC equivalent")
    w = _const(ctx, node, 1, "B") * float(a.get("alpha", 1.0))
    w = w.T if a.get("transB", 0) else w
    inputs = [node.input[0], ctx.param(node, w, "W")]
    if len(node.input) > 2 and node.input[2]:
        bias = _const(ctx, node, 2, "C") * float(a.get("beta", 1.0))
        inputs.append(ctx.param(node, np.broadcast_to(bias, (w.shape[1],)), "b"))
    ctx.emit(node, "Affine", inputs, base_axis=1)


def _matmul(ctx: _Ctx, node: Any) -> None:
    w = _const(ctx, node, 1, "the second input (weights)")
    if w.ndim != 2 or len(ctx.shapes[node.input[0]]) != 2:
        raise ctx.fail(node, "only (batch, K) x constant (K, N) has an NNC equivalent (Affine)")
    ctx.emit(node, "Affine", [node.input[0], ctx.param(node, w, "W")], base_axis=1)


def _arith(ctx: _Ctx, node: Any) -> None:
    op = node.op_type
    a, b = node.input[0], node.input[1]
    if a in ctx.consts and b not in ctx.consts and op in ("Add", "Mul"):
        a, b = b, a
    if b in ctx.consts and a not in ctx.consts:
        value = ctx.consts[b]
        if op == "Add" and _fold_bias(ctx, node, a, value):
            return
        s = _scalar(value)
        if s is None:
            raise ctx.fail(node, "a constant operand must be a scalar (or a bias after a "
                           "bias-free Conv/Gemm/MatMul)")  # fmt: skip
        types = {"Add": ("AddScalar", s), "Sub": ("AddScalar", -s), "Mul": ("MulScalar", s),
                 "Div": ("MulScalar", 1.0 / s), "Pow": ("PowScalar", s)}  # fmt: skip
        fn, val = types[op]
        ctx.emit(node, fn, [a], val=val)
        return
    if a in ctx.consts:
        s = _scalar(ctx.consts[a])
        if s is None or op not in ("Sub", "Div"):
            raise ctx.fail(node, "a constant first operand must be a scalar")
        ctx.emit(node, "RSubScalar" if op == "Sub" else "RDivScalar", [b], val=s)
        return
    if ctx.shapes.get(a) != ctx.shapes.get(b):
        raise ctx.fail(node, f"operands of shapes {ctx.shapes.get(a)} and {ctx.shapes.get(b)}: "
                       "broadcasting has no NNC equivalent here")  # fmt: skip
    ctx.emit(node, {"Add": "Add2", "Sub": "Sub2", "Mul": "Mul2", "Div": "Div2", "Pow": "Pow2"}[op],
             [a, b])  # fmt: skip


def _fold_bias(ctx: _Ctx, node: Any, x: str, value: np.ndarray) -> bool:
    """``Add(Conv/Gemm/MatMul without bias, constant per channel)``: the constant is its bias."""
    fn = next((f for f in ctx.functions if f.outputs == [ctx.var(x)]), None)
    if fn is None or fn.type not in ("Affine", "Convolution") or len(fn.inputs) != 2:
        return False
    out = ctx.shapes[x][1]
    if value.size != out or sum(
        1 for n in ctx.model.graph.node for i in n.input if i == x
    ) != 1:  # fmt: skip
        return False
    fn.inputs.append(ctx.param(node, value.reshape(out), "b"))
    ctx.alias[node.output[0]] = fn.outputs[0]
    return True


def _pool(ctx: _Ctx, node: Any) -> None:
    a = _attrs(node)
    kernel = list(a["kernel_shape"])
    strides = list(a.get("strides", [1] * len(kernel)))
    if a.get("ceil_mode", 0) or any(d != 1 for d in a.get("dilations", [])):
        raise ctx.fail(node, "ceil_mode/dilations have no NNC equivalent")
    n = len(kernel)
    pads = list(a.get("pads", [0] * (2 * n)))
    ignore_border = True
    if node.op_type == "MaxPool" and pads[:n] != pads[n:] and a.get("auto_pad") is None:
        # Extra right padding that only completes the last window: NNC's IgnoreBorder=False
        # (our exporter writes IgnoreBorder=False pooling this way).
        from engine.core.ops.pooling import pooled_sizes  # noqa: PLC0415

        size, out = ctx.shapes[node.input[0]][2:], ctx.shapes[node.output[0]][2:]
        if tuple(out) != tuple(pooled_sizes(size, kernel, strides, pads[:n], False)):
            raise ctx.fail(node, f"asymmetric pads {pads} have no NNC equivalent")
        pad, ignore_border = pads[:n], False
    else:
        pad = _pads(ctx, node, a, kernel, strides, [1] * n)
    common = {"kernel": kernel, "stride": strides, "ignore_border": ignore_border, "pad": pad,
              "channel_last": False}  # fmt: skip
    if node.op_type == "MaxPool":
        ctx.emit(node, "MaxPooling", node.input[:1], **common)
    else:
        include = bool(a.get("count_include_pad", 0))
        ctx.emit(node, "AveragePooling", node.input[:1], including_pad=include, **common)


def _batch_norm(ctx: _Ctx, node: Any) -> None:
    a = _attrs(node)
    gamma, beta, mean, var = (_const(ctx, node, k, n) for k, n in
                              ((1, "scale"), (2, "B"), (3, "mean"), (4, "var")))  # fmt: skip
    inputs = [node.input[0]] + [
        ctx.param(node, v, n)
        for v, n in ((beta, "beta"), (gamma, "gamma"), (mean, "mean"), (var, "var"))
    ]
    ctx.emit(node, "BatchNormalization", inputs, axes=[1], decay_rate=float(a.get("momentum", 0.9)),
             eps=float(a.get("epsilon", 1e-5)), batch_stat=False)  # fmt: skip


def _axis(ctx: _Ctx, node: Any, axis: int) -> int:
    return axis + len(ctx.shapes[node.input[0]]) if axis < 0 else axis


def _reshape_like(ctx: _Ctx, node: Any) -> None:
    """Reshape, Flatten, Squeeze, Unsqueeze: the inferred output shape, batch axis kept."""
    out = ctx.shapes[node.output[0]]
    if not out or out[0] != 1:
        raise ctx.fail(node, "reshaping the batch axis has no NNC equivalent")
    ctx.emit(node, "Reshape", node.input[:1], shape=[-1 if k == 0 else d for k, d in
                                                     enumerate(out)])  # fmt: skip


def _softmax(ctx: _Ctx, node: Any) -> None:
    rank = len(ctx.shapes[node.input[0]])
    axis = _axis(ctx, node, int(_attrs(node).get("axis", -1 if _opset(ctx) >= 13 else 1)))
    if _opset(ctx) < 13 and axis != rank - 1:
        raise ctx.fail(node, "opset < 13 Softmax over several axes has no NNC equivalent")
    ctx.emit(node, "Softmax", node.input[:1], axis=axis)


def _opset(ctx: _Ctx) -> int:
    return next((o.version for o in ctx.model.opset_import if o.domain in ("", "ai.onnx")), 13)


def _clip(ctx: _Ctx, node: Any) -> None:
    a = _attrs(node)
    low, high = a.get("min"), a.get("max")
    if len(node.input) > 1 and node.input[1]:
        low = _scalar(_const(ctx, node, 1, "min"))
    if len(node.input) > 2 and node.input[2]:
        high = _scalar(_const(ctx, node, 2, "max"))
    if low == 0 and high is None:
        ctx.emit(node, "ReLU", node.input[:1], inplace=False)
    elif low == 0 and high == 6:
        ctx.emit(node, "ReLU6", node.input[:1])
    else:
        raise ctx.fail(node, f"Clip({low}, {high}): only Clip(0) and Clip(0, 6) have NNC layers")


def _resize(ctx: _Ctx, node: Any) -> None:
    a = _attrs(node)
    mode = a.get("mode", b"nearest")
    mode = mode.decode() if isinstance(mode, bytes) else mode
    src, out = ctx.shapes[node.input[0]], ctx.shapes[node.output[0]]
    factors = [o // s for o, s in zip(out[2:], src[2:], strict=True)]
    if mode != "nearest" or out[:2] != src[:2] or any(
        f * s != o for f, s, o in zip(factors, src[2:], out[2:], strict=True)
    ):  # fmt: skip
        raise ctx.fail(node, "only nearest resizing by integer factors has an NNC layer")
    ctx.emit(node, "Unpooling", node.input[:1], kernel=factors)


def _reduce_mean(ctx: _Ctx, node: Any) -> None:
    a = _attrs(node)
    axes = a.get("axes")
    if axes is None and len(node.input) > 1:
        axes = _const(ctx, node, 1, "axes").tolist()
    rank = len(ctx.shapes[node.input[0]])
    axes = sorted(x + rank if x < 0 else x for x in (axes or range(1, rank)))
    if 0 in axes:
        raise ctx.fail(node, "a mean over the batch axis has no NNC equivalent")
    ctx.emit(node, "Mean", node.input[:1], axes=axes, keep_dims=bool(a.get("keepdims", 1)))


def _concat(ctx: _Ctx, node: Any) -> None:
    ctx.emit(node, "Concatenate", list(node.input), axis=_axis(ctx, node, _attrs(node)["axis"]))


def _transpose(ctx: _Ctx, node: Any) -> None:
    perm = list(_attrs(node).get("perm", []))
    if not perm or perm[0] != 0:
        raise ctx.fail(node, "moving the batch axis has no NNC equivalent")
    ctx.emit(node, "Transpose", node.input[:1], axes=perm)


def _slice(ctx: _Ctx, node: Any) -> None:
    """Constant starts/ends/axes/steps as NNC's Slice over every axis but the batch."""
    a = _attrs(node)
    shape = ctx.shapes[node.input[0]]
    if len(node.input) > 1:  # opset 10+: inputs
        starts, ends = (_const(ctx, node, k, w).tolist() for k, w in ((1, "starts"), (2, "ends")))
        axes = _const(ctx, node, 3, "axes").tolist() if len(node.input) > 3 and node.input[3] \
            else list(range(len(starts)))  # fmt: skip
        steps = _const(ctx, node, 4, "steps").tolist() if len(node.input) > 4 and node.input[4] \
            else [1] * len(starts)  # fmt: skip
    else:
        starts, ends = list(a["starts"]), list(a["ends"])
        axes = list(a.get("axes", range(len(starts))))
        steps = [1] * len(starts)
    start, stop, step = [0] * len(shape), list(shape), [1] * len(shape)
    for axis, b, e, st in zip(axes, starts, ends, steps, strict=True):
        axis = axis + len(shape) if axis < 0 else axis
        if axis == 0 or st < 1:
            raise ctx.fail(node, "slicing the batch axis or backwards has no NNC equivalent")
        dim = shape[axis]
        start[axis] = min(max(b + dim if b < 0 else b, 0), dim)
        stop[axis] = min(max(e + dim if e < 0 else e, 0), dim)
        step[axis] = st
    ctx.emit(node, "Slice", node.input[:1], start=start[1:], stop=stop[1:], step=step[1:])


def _dropout(ctx: _Ctx, node: Any) -> None:
    ratio = _attrs(node).get("ratio", 0.5)
    if len(node.input) > 1 and node.input[1] in ctx.consts:
        ratio = float(ctx.consts[node.input[1]])
    ctx.emit(node, "Dropout", node.input[:1], p=float(ratio), seed=-1)


def _declared(layer_type: str, op: str) -> Callable[[_Ctx, Any], None]:
    """The layer whose catalogue entry names ONNX operator ``op``: the node's attributes (with
    ONNX's defaults) become the nnabla arguments of the same name."""

    def convert(ctx: _Ctx, node: Any) -> None:
        from onnx import defs, helper  # noqa: PLC0415

        schema = defs.get_schema(op, _opset(ctx))
        given = _attrs(node)
        args = {}
        for name, attr in schema.attributes.items():
            if name in given:
                args[name] = given[name]
            elif attr.default_value.type:
                args[name] = helper.get_attribute_value(attr.default_value)
        ctx.emit(node, layer_type, list(node.input), **args)

    return convert


def _catalogue() -> dict[str, Callable[[_Ctx, Any], None]]:
    from engine.layers import all_specs  # noqa: PLC0415

    return {spec.onnx: _declared(spec.type, spec.onnx) for spec in all_specs() if spec.onnx}


# Operators the catalogue maps one to one (``LayerSpec.onnx``), then those needing a rule here.
ONNX_OPERATORS: dict[str, Callable[[_Ctx, Any], None]] = _catalogue() | {
    "Conv": _conv, "ConvTranspose": _conv, "Gemm": _gemm, "MatMul": _matmul,
    "Add": _arith, "Sub": _arith, "Mul": _arith, "Div": _arith, "Pow": _arith,
    "Clip": _clip, "Softmax": _softmax, "MaxPool": _pool, "AveragePool": _pool,
    "BatchNormalization": _batch_norm,
    "Concat": _concat, "Reshape": _reshape_like, "Flatten": _reshape_like,
    "Squeeze": _reshape_like, "Unsqueeze": _reshape_like, "Transpose": _transpose,
    "Dropout": _dropout, "Slice": _slice, "Resize": _resize, "Upsample": _resize,
    "ReduceMean": _reduce_mean,
}  # fmt: skip


def read_onnx(path: str | Path) -> ModelGraph:
    """The model at ``path`` as nnabla functions (see the module docstring).

    Raises:
        ImportError_: unreadable file, dynamic shapes, operators without an NNC layer (all).
    """
    model = _load(Path(path))
    where = str(path)
    ctx = _Ctx(model, where)
    graph = model.graph
    for init in graph.initializer:
        from onnx import numpy_helper  # noqa: PLC0415

        ctx.consts[init.name] = numpy_helper.to_array(init)
    inputs = {i.name: _input_shape(i, where) for i in graph.input if i.name not in ctx.consts}
    _infer_shapes(ctx, inputs)
    bad = []
    for node in graph.node:
        if node.op_type == "Constant" or node.op_type == "Shape" or (
            node.input and all(i in ctx.consts or not i for i in node.input)
        ):  # fmt: skip
            _fold(ctx, node)
        elif node.op_type not in ONNX_OPERATORS:
            bad.append(f'{node.op_type} (node "{node.name or node.output[0]}")')
    if bad:
        raise ImportError_(f"{where}: no NNC layer for {', '.join(bad)}")
    for node in graph.node:
        if node.output[0] not in ctx.consts:
            ONNX_OPERATORS[node.op_type](ctx, node)
    outputs = [ctx.var(o.name) for o in graph.output]
    return ModelGraph(graph.name or "Main", {k: v[1:] for k, v in inputs.items()},
                      ctx.functions, ctx.params, outputs)  # fmt: skip


def _load(path: Path) -> Any:
    try:
        import onnx  # noqa: PLC0415
    except ImportError:
        raise ImportError_("ONNX import needs the extra: pip install 'neurocanvas[onnx]'") from None
    try:
        model = onnx.load(str(path))
    except OSError as exc:
        raise ImportError_(f"{path}: cannot read: {exc.strerror or exc}") from None
    except Exception as exc:  # noqa: BLE001 - protobuf's DecodeError and friends
        raise ImportError_(f"{path}: not an ONNX model ({type(exc).__name__}: {exc})") from None
    if not model.graph.node:
        raise ImportError_(f"{path}: not an ONNX model (no graph nodes)")
    return model


def _input_shape(value: Any, where: str) -> tuple[int, ...]:
    dims = value.type.tensor_type.shape.dim
    shape = [d.dim_value if d.HasField("dim_value") else None for d in dims]
    if not shape or any(d is None for d in shape[1:]):
        named = [d.dim_param or "?" for d in dims[1:] if not d.HasField("dim_value")]
        raise ImportError_(f'{where}: input "{value.name}" has dynamic axes '
                           f"{', '.join(named) or 'everywhere'} besides the batch axis; "
                           f"give them fixed sizes")  # fmt: skip
    return (1, *shape[1:])


def _infer_shapes(ctx: _Ctx, inputs: dict[str, tuple[int, ...]]) -> None:
    import onnx  # noqa: PLC0415
    from onnx import helper  # noqa: PLC0415

    model = onnx.ModelProto()
    model.CopyFrom(ctx.model)
    for value in model.graph.input:
        if value.name in inputs:
            dim = value.type.tensor_type.shape.dim[0]
            dim.Clear()
            dim.dim_value = 1
    try:
        inferred = onnx.shape_inference.infer_shapes(model, strict_mode=True)
    except Exception as exc:  # noqa: BLE001 - InferenceError and checker errors
        raise ImportError_(f"{ctx.where}: shape inference failed: {exc}") from None
    graph = inferred.graph
    for value in [*graph.input, *graph.value_info, *graph.output]:
        dims = value.type.tensor_type.shape.dim
        ctx.shapes[value.name] = tuple(d.dim_value if d.HasField("dim_value") else -1
                                       for d in dims)  # fmt: skip
    del helper


def _fold(ctx: _Ctx, node: Any) -> None:
    """Evaluate a node of constants (or a Shape) with ONNX's reference evaluator."""
    if node.op_type == "Shape":
        shape = ctx.shapes.get(node.input[0])
        if shape is None or -1 in shape:
            raise ctx.fail(node, "the shape of its input is not known")
        ctx.consts[node.output[0]] = np.array(shape, dtype=np.int64)
        return
    from onnx import helper  # noqa: PLC0415
    from onnx.reference import ReferenceEvaluator  # noqa: PLC0415

    graph = helper.make_graph([node], "fold", [], [helper.make_tensor_value_info(
        o, 0, None) for o in node.output])  # fmt: skip
    model = helper.make_model(graph, opset_imports=list(ctx.model.opset_import))
    try:
        feeds = {i: ctx.consts[i] for i in node.input if i}
        results = ReferenceEvaluator(model).run(None, feeds)
    except Exception as exc:  # noqa: BLE001 - the evaluator raises many kinds
        raise ctx.fail(node, f"cannot fold constants: {exc}") from None
    for name, value in zip(node.output, results, strict=False):
        ctx.consts[name] = np.asarray(value)

"""ONNX models as nnabla functions (:class:`~engine.formats.nnabla.graph.ModelGraph`).

Shapes come from ONNX shape inference with the batch axis fixed to 1 (every other axis must be
static). Nodes whose inputs are all constants are folded with ONNX's reference evaluator, and so
are ``Shape`` nodes (their value is known once the shapes are); the rest become NNC layers by
the rules of the layer catalogue (``LayerSpec.onnx``, :mod:`engine.layers.onnx_rules`); a
folded constant that a layer takes as data is a Constant-generator input. Every operator
without an NNC equivalent is listed in one error before anything is built.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from engine.core import optional
from engine.formats.nnabla.graph import Function, ImportError_, ModelGraph
from engine.graph.network import Network
from engine.layers import all_specs
from engine.layers.onnx_rules import declared_read

__all__ = ["read_onnx", "share_parameters", "OnnxGraph", "ONNX_OPERATORS", "MAX_NODES"]

MAX_NODES = 100_000  # import takes about a millisecond per node, in time linear in the nodes


class _Ctx:
    """One conversion: constants, shapes, the functions being emitted (the ``ctx`` that the
    catalogue's ONNX rules read, see :mod:`engine.layers.onnx_rules`)."""

    def __init__(self, model: Any, where: str) -> None:
        self.where = where
        self.model = model
        self.consts: dict[str, np.ndarray] = {}
        self.shapes: dict[str, tuple[int, ...]] = {}  # with the batch axis (1)
        self.functions: list[Function] = []
        self._made: dict[str, Function] = {}  # output -> the function emitted that writes it
        self.params: dict[str, np.ndarray] = {}
        self.alias: dict[str, str] = {}
        self.sources: dict[str, str] = {}  # parameter -> the initializer it is
        self.opset = next((o.version for o in model.opset_import if o.domain in ("", "ai.onnx")),
                          13)  # fmt: skip
        self._readers: dict[str, list[Any]] = {}
        self._writer: dict[str, Any] = {}
        self.origin: dict[int, tuple[Any, str]] = {}  # id(function) -> (its node, suffix)
        self._declared = {value.name for value in model.graph.output}
        for node in model.graph.node:
            for name in node.input:
                self._readers.setdefault(name, []).append(node)
            for name in node.output:
                self._writer[name] = node

    def var(self, name: str) -> str:
        return self.alias.get(name, name)

    def attrs(self, node: Any) -> dict[str, Any]:
        helper = optional.require("onnx").helper

        return {a.name: helper.get_attribute_value(a) for a in node.attribute}

    def const(self, node: Any, k: int, what: str) -> np.ndarray:
        if k >= len(node.input) or node.input[k] not in self.consts:
            raise self.fail(node, f"{what} must be a constant")
        return self.consts[node.input[k]]

    def param(self, node: Any, value: np.ndarray, hint: str, source: str | None = None) -> str:
        name = f"{node.name or node.output[0]}/{hint}"
        self.params[name] = np.array(value, dtype=np.float32)  # a copy: one object per param
        if source is not None:
            self.sources[name] = source
        return name

    def emit(self, node: Any, type_: str, inputs: list[str], output: str | None = None,
             suffix: str = "", **args: Any) -> None:  # fmt: skip
        name = (node.name or node.output[0]) + suffix
        fn = Function(name, type_, [self.var(i) for i in inputs], [output or node.output[0]], args)
        self.functions.append(fn)
        self._made[fn.outputs[0]] = fn
        self.origin[id(fn)] = (node, suffix)

    def producer(self, var: str) -> Function | None:
        """The function emitted so far that writes ``var`` (a lookup: import stays linear)."""
        return self._made.get(self.var(var))

    def node_of(self, var: str) -> Any:
        """The ONNX node that computes ``var``, or None."""
        return self._writer.get(var)

    def consumers(self, var: str) -> list[Any]:
        """The ONNX nodes that read ``var``."""
        return self._readers.get(var, [])

    def uses(self, var: str) -> int:
        """How many nodes read ``var`` (a graph output counts as one more)."""
        return len(self.consumers(var)) + (var in self._declared)

    def fail(self, node: Any, message: str) -> ImportError_:
        return ImportError_(f'{self.where}: node "{node.name or node.output[0]}" '
                            f"({node.op_type}): {message}")  # fmt: skip


@dataclass
class OnnxGraph(ModelGraph):
    """A model graph that knows which ONNX initializer each parameter is."""

    sources: dict[str, str] = field(default_factory=dict)


def share_parameters(graph: OnnxGraph, net: Network, params: dict[str, np.ndarray]) -> None:
    """Layers of one type whose parameters are the same initializers (the time steps of an
    unrolled loop) share them: the later ones take the first one's ParameterScope, as a drawn
    NNC network shares parameters, and their copies are dropped from ``params``."""
    source = {id(value): graph.sources.get(name) for name, value in graph.parameters.items()}
    first: dict[tuple[Any, ...], str] = {}
    for layer in net.layers:
        own = sorted((k, source.get(id(v))) for k, v in params.items()
                     if k.startswith(layer.name + "/"))  # fmt: skip
        if not own or any(s is None for _, s in own) or "ParameterScope" not in layer.properties:
            continue
        key = (layer.type, tuple((k.rsplit("/", 1)[1], s) for k, s in own))
        if key not in first:
            first[key] = layer.name
            continue
        net.set_property(layer.name, "ParameterScope", first[key])
        for k, _ in own:
            del params[k]


def _readers() -> dict[str, Callable[[_Ctx, Any], None]]:
    """ONNX operator -> its reader, from the catalogue (``LayerSpec.onnx``): the only table
    (the registry checks that each operator has one reader)."""
    return {op: spec.onnx.read or declared_read(spec.type, op)
            for spec in all_specs() if spec.onnx
            for op in spec.onnx.operators_read}  # fmt: skip


ONNX_OPERATORS = _readers()


def _all_outputs() -> frozenset[str]:
    """The operators whose rule writes every output of a node (``OnnxRule.all_outputs``)."""
    return frozenset(op for spec in all_specs() if spec.onnx and spec.onnx.all_outputs
                     for op in spec.onnx.operators_read)  # fmt: skip


_ALL_OUTPUTS = _all_outputs()


def read_onnx(path: str | Path) -> ModelGraph:
    """The model at ``path`` as nnabla functions (see the module docstring).

    Raises:
        ImportError_: unreadable file, dynamic shapes, operators without an NNC layer (all).
    """
    ctx, inputs = prepare(path)
    bad = []
    for node in ctx.model.graph.node:
        if folds(ctx, node):
            _fold(ctx, node)
        elif node.op_type not in ONNX_OPERATORS:
            bad.append(f'{node.op_type} (node "{node.name or node.output[0]}")')
    for node, message in extra_outputs(ctx):
        raise ctx.fail(node, message)
    if bad:
        raise ImportError_(f"{ctx.where}: no NNC layer for {', '.join(bad)}")
    for node in ctx.model.graph.node:
        if node.output[0] in ctx.consts:
            continue
        if folds(ctx, node):
            _fold(ctx, node)  # its inputs became constants as they were read (CastLike of one)
        else:
            ONNX_OPERATORS[node.op_type](ctx, node)
    message = constant_output(ctx)
    if message:
        raise ImportError_(f"{ctx.where}: {message}")
    return finish_graph(ctx, inputs)


def prepare(path: str | Path) -> tuple[_Ctx, dict[str, tuple[int, ...]]]:
    """The model read, its initializers and input shapes checked, its shapes inferred."""
    model = _load(Path(path))
    where = str(path)
    ctx = _Ctx(model, where)
    graph = model.graph
    for init in graph.initializer:
        ctx.consts[init.name] = _initializer(init, where)
    inputs = {i.name: _input_shape(i, where) for i in graph.input if i.name not in ctx.consts}
    _check_input_types(graph, inputs, where)
    _infer_shapes(ctx, inputs)
    return ctx, inputs


def folds(ctx: _Ctx, node: Any) -> bool:
    """Whether ``node`` is computed at import (a Constant, a Shape, constants only in)."""
    return node.op_type in ("Constant", "Shape") or bool(
        node.input and all(i in ctx.consts or not i for i in node.input)
    )


def finish_graph(ctx: _Ctx, inputs: dict[str, tuple[int, ...]]) -> OnnxGraph:
    """The converted functions as a graph: outputs that are inputs made Identity layers,
    readable layer names (:func:`name_layers`), folded data constants made inputs."""
    graph = ctx.model.graph
    made = {o for fn in ctx.functions for o in fn.outputs}
    read = {i for fn in ctx.functions for i in fn.inputs}
    for value in graph.output:  # an output that is an input (Identity, Dropout, Sum of one)
        var = ctx.var(value.name)
        if var not in made and var in inputs:
            ctx.alias.pop(value.name, None)
            ctx.functions.append(Function(value.name, "Identity", [var], [value.name], {}))
        elif var in read:  # also read by a layer: an NNC output is a layer that nothing reads
            out = value.name + "/output"
            ctx.functions.append(Function(out, "Identity", [var], [out], {}))
            ctx.alias[value.name] = out
    name_layers(ctx)
    outputs = [ctx.var(o.name) for o in graph.output]
    shapes = {k: v[1:] for k, v in inputs.items()}
    generators = _constant_inputs(ctx, shapes)
    return OnnxGraph(graph.name or "Main", shapes, ctx.functions, ctx.params, outputs,
                     data_names=_names(generators), generators=generators,
                     sources=ctx.sources)  # fmt: skip


def readable_name(name: str, op: str) -> str:
    """A node's name as a layer name: an exporter's counter (``Conv:5``) dropped; a path
    (PyTorch's ``/layer1/layer1.0/conv1/Conv``, ours ``Affine/matmul:6``, ``Fire1/ReLU:5`` in
    a Unit) as the module it names, without the operator at its end or a part that the next
    one repeats (``layer1_0_conv1``, ``Affine``, ``Fire1_ReLU``); characters other than
    letters, digits and ``_`` as ``_``. Empty when nothing readable is left."""
    name = re.sub(r":\d+$", "", name.strip())
    parts = [p for p in name.split("/") if p]
    if len(parts) > 1 and parts[-1] in (op, op.lower()):  # (``ReLU`` in a Unit is a layer)
        parts = parts[:-1]
    parts = [p for k, p in enumerate(parts)
             if k + 1 == len(parts) or not parts[k + 1].startswith(p + ".")]  # fmt: skip
    text = re.sub(r"[^0-9A-Za-z_]+", "_", "_".join(parts)).strip("_")
    if text and text[0].isdigit():
        text = f"{op}_{text}"
    return text


def _suffix_name(suffix: str) -> str:
    """A composite's part (``/square``) as the end of a layer name (``_Square``)."""
    words = [w for w in re.split(r"[^0-9A-Za-z]+", suffix) if w]
    return "".join("_" + w[:1].upper() + w[1:] for w in words)


def name_layers(ctx: _Ctx) -> None:
    """Each function named after its ONNX node (:func:`readable_name`), else the operator and
    its count (``Conv_3``, counted from 1 per operator over the nodes that give layers); the
    layers of a composite share that name, each with its part (``LRN_1_Square``) and the last
    one, which writes the node's output, the name alone."""
    counts: dict[str, int] = {}
    base: dict[int, str] = {}
    for fn in ctx.functions:
        made = ctx.origin.get(id(fn))
        if made is None:
            continue
        node, suffix = made
        if id(node) not in base:
            text = readable_name(node.name, node.op_type)
            if not text:
                counts[node.op_type] = counts.get(node.op_type, 0) + 1
                text = f"{node.op_type}_{counts[node.op_type]}"
            base[id(node)] = text
        fn.name = base[id(node)] + _suffix_name(suffix)


_FLOATS = (1, 10, 11, 16)  # TensorProto FLOAT, FLOAT16, DOUBLE, BFLOAT16


def _check_input_types(graph: Any, inputs: dict[str, Any], where: str) -> None:
    """NNC networks compute in floating point: an integer or boolean input (whose operators
    round, wrap or compare as integers) is refused rather than computed in floats."""
    TensorProto = optional.require("onnx").TensorProto

    for value in graph.input:
        kind = value.type.tensor_type.elem_type
        if value.name in inputs and kind not in _FLOATS:
            raise ImportError_(f'{where}: input "{value.name}" is of type '
                               f"{TensorProto.DataType.Name(kind).lower()}; NNC networks "
                               "compute in floating point")  # fmt: skip


_ORDINAL = ("first", "second", "third", "fourth", "fifth")


def extra_outputs(ctx: _Ctx) -> Iterator[tuple[Any, str]]:
    """Only a node's first output becomes a layer's output: a later one (MaxPool's indices,
    Dropout's mask, training-mode BatchNormalization's running mean and variance) that another
    node reads or the graph declares as an output is refused, never dropped: (node, why)."""
    declared = {o.name for o in ctx.model.graph.output}
    for node in ctx.model.graph.node:
        if node.output[0] in ctx.consts or node.op_type in _ALL_OUTPUTS:
            continue
        for k, name in enumerate(node.output[1:], 1):
            if not name or name in ctx.consts:
                continue
            readers = ctx.consumers(name)
            if readers or name in declared:
                user = (f'node "{readers[0].name or readers[0].output[0]}" reads it' if readers
                        else "it is a graph output")  # fmt: skip
                yield node, (f'its {_ORDINAL[min(k, 4)]} output "{name}" ({user}) has no NNC '
                             "equivalent: only the first output is imported")  # fmt: skip
                break


def constant_output(ctx: _Ctx) -> str | None:
    """Why the network cannot be imported when a graph output does not depend on an input
    (an NNC network computes its outputs from its inputs), else None."""
    for value in ctx.model.graph.output:
        var = ctx.var(value.name)
        if var in ctx.consts and var not in ctx.params:
            return (f'the output "{value.name}" is a constant (it depends on no input); an NNC '
                    "network computes its outputs from its inputs")  # fmt: skip
    return None


def _constant_inputs(ctx: _Ctx, shapes: dict[str, tuple[int, ...]]) -> dict[str, Any]:
    """Folded constants that a layer takes as data (a Delay's initial state in an unrolled loop:
    ``ConstantOfShape`` of the input's batch) become Constant-generator inputs of their shape
    without the batch axis; only a constant of one value along a batch axis can."""
    generators: dict[str, Any] = {}
    for fn in ctx.functions:
        for var in fn.inputs:
            if var not in ctx.consts or var in ctx.params or var in generators:
                continue
            value = ctx.consts[var]
            flat = value.reshape(-1)
            if value.ndim < 2 or value.shape[0] != 1 or np.any(flat != flat[0]):
                raise ImportError_(f'{ctx.where}: node "{fn.name}": the constant "{var}" is used '
                                   "as data; only one value repeated over the batch has an NNC "
                                   "equivalent (a Constant generator input)")  # fmt: skip
            shapes[var] = tuple(value.shape[1:])
            generators[var] = ("Constant", float(flat[0]))
    return generators


def _names(generators: dict[str, Any]) -> dict[str, str]:
    """Readable Input names for generated constants (``LSTM/Delay/Initial:42``)."""
    return {var: var.split(":")[0].replace("/", "_") for var in generators}


_TYPED_FIELDS = ("float_data", "int32_data", "int64_data", "double_data", "uint64_data")


def _initializer(init: Any, where: str) -> np.ndarray:
    """An initializer's values, its declared dims checked first (sizes >= 0, the count within
    int64, equal to the values it holds): a tensor that declares 10^12 values and holds none is
    one line, not an allocation."""
    import math

    TensorProto = optional.require("onnx").TensorProto
    helper = optional.require("onnx").helper
    numpy_helper = optional.require("onnx").numpy_helper

    here = f'{where}: initializer "{init.name}"'
    dims = tuple(int(d) for d in init.dims)
    if any(d < 0 for d in dims) or math.prod(dims) >= 2**63:
        raise ImportError_(f"{here}: dims {dims} are not a shape (negative or past int64)")
    count = math.prod(dims)
    if init.data_type in (TensorProto.STRING, TensorProto.UNDEFINED):
        raise ImportError_(f"{here}: not numbers (data type {init.data_type})")
    if init.HasField("raw_data"):
        itemsize = np.dtype(helper.tensor_dtype_to_np_dtype(init.data_type)).itemsize
        bits = {TensorProto.INT4: 4, TensorProto.UINT4: 4}.get(init.data_type, 8 * itemsize)
        held = (
            count if len(init.raw_data) == -(-count * bits // 8) else len(init.raw_data) * 8 // bits
        )
    else:
        held = max((len(getattr(init, f)) for f in _TYPED_FIELDS), default=0)
        if init.data_type in (TensorProto.COMPLEX64, TensorProto.COMPLEX128):
            held //= 2
    if held != count and not (held == 1 and count == 1):
        raise ImportError_(f"{here}: declares shape {dims} ({count:,} values) but holds "
                           f"{held:,}")  # fmt: skip
    try:
        return numpy_helper.to_array(init)
    except (ValueError, TypeError) as exc:
        raise ImportError_(f"{here}: unreadable values ({exc})") from None


def _load(path: Path) -> Any:
    try:
        onnx = optional.require("onnx")
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
    if len(model.graph.node) > MAX_NODES:
        raise ImportError_(f"{path}: {len(model.graph.node):,} nodes; the importer takes at most "
                           f"{MAX_NODES:,} (a canvas that size cannot be edited)")  # fmt: skip
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
    onnx = optional.require("onnx")
    helper = optional.require("onnx").helper

    model = onnx.ModelProto()
    model.CopyFrom(ctx.model)
    for value in model.graph.input:
        if value.name in inputs:
            dim = value.type.tensor_type.shape.dim[0]
            dim.Clear()
            dim.dim_value = 1
    for value in [*model.graph.output, *model.graph.value_info]:
        # the batch axis a model declares (3 in ONNX's test_relu, or N) is NNC's batch: what
        # is inferred with batch 1 would differ from a declared fixed size
        dims = value.type.tensor_type.shape.dim
        if len(dims) and dims[0].HasField("dim_value"):
            dims[0].Clear()
            dims[0].dim_param = "batch"
    try:
        inferred = onnx.shape_inference.infer_shapes(model, strict_mode=True, data_prop=True)
    except Exception as exc:  # noqa: BLE001 - InferenceError and checker errors
        text = "; ".join(line.strip() for line in str(exc).splitlines() if line.strip())
        raise ImportError_(f"{ctx.where}: shape inference failed: {text}") from None
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
    helper = optional.require("onnx").helper
    ReferenceEvaluator = optional.require("onnx.reference").ReferenceEvaluator

    graph = helper.make_graph([node], "fold", [], [helper.make_tensor_value_info(
        o, 0, None) for o in node.output])  # fmt: skip
    model = helper.make_model(graph, opset_imports=list(ctx.model.opset_import))
    try:
        feeds = {i: ctx.consts[i] for i in node.input if i}
        results = ReferenceEvaluator(model).run(None, feeds)
    except Exception as exc:  # noqa: BLE001 - the evaluator raises many kinds
        text = "; ".join(line.strip() for line in str(exc).splitlines() if line.strip())
        raise ctx.fail(node, f"cannot fold constants: {text}") from None
    for name, value in zip(node.output, results, strict=False):
        ctx.consts[name] = np.asarray(value)

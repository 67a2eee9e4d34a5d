"""Walk the whole catalogue: counts, palette order, defaults, rules and F function names."""

import re

import pytest

import engine.nn.functions as F
from engine.layers import all_specs, find_spec, get_spec, palette
from engine.layers.evaluate import LayerEval, StaticContext
from engine.layers.expr import Macro, parse, parse_calc
from engine.layers.macros import MACROS
from engine.layers.registry import CATEGORIES, UnknownLayerError
from engine.layers.spec import STATISTICS, ConnectorKind, Support, UnsupportedLayerError

SPECS = all_specs()

# Layer types the engine cannot run yet (each opens, infers shapes and costs, and says so).
UNSUPPORTED = {
    "Unsupported",
    "ClipByNorm",
    "ClipByValue",
    "Flatten",
}

# Macros that only the network can answer (engine.graph supplies them).
GRAPH_MACROS = {
    "AutoInPlace", "AutoInPlaceOnce", "RepeatTimes", "RecurrentLength", "UnitOutput",
    "UnitProperty", "GraphOutput",
}  # fmt: skip
BUILTIN_MACROS = {"Name", "Input", "GraphInput", "GraphInputs", "GraphIO"}


def test_counts_and_palette_order():
    assert len(SPECS) == 190
    in_palette = [s for s in SPECS if s.in_palette]
    assert len(in_palette) == 187
    assert [s.palette_order for s in in_palette] == list(range(187))
    assert {s.type for s in SPECS if not s.in_palette} == {"ClipByNorm", "ClipByValue", "Flatten"}
    assert {s.type for s in SPECS if s.hidden} == {"Output", "Unsupported"}
    assert len(CATEGORIES) == 21 and CATEGORIES[0] == "IO" and CATEGORIES[-1] == "Setting"
    shown = dict(palette())
    assert sum(len(v) for v in shown.values()) == 185
    assert [s.type for s in shown["Pooling"]] == [
        "MaxPooling", "AveragePooling", "GlobalAveragePooling", "SumPooling", "Unpooling",
    ]  # fmt: skip
    assert len(shown["Activation"]) == 23 and shown["Activation"][0].type == "Tanh"


def test_lookup_and_unknown_type():
    assert get_spec("Convolution").fn_scope == "conv"
    assert find_spec("NoSuchLayer") is None
    with pytest.raises(UnknownLayerError, match="unknown layer type 'NoSuchLayer'"):
        get_spec("NoSuchLayer")


def test_defaults_as_nnc_lists_them():
    conv = get_spec("Convolution")
    assert conv.defaults()["KernelShape"] == "3,3"
    assert conv.defaults()["Padding"] == "*ConvolutionPaddingSize"
    assert conv.prop("KernelShape").important and conv.prop("OutMaps").short_name == "Maps"
    assert conv.prop("BaseAxis").argument.is_axis
    assert not conv.prop("BaseAxis").editable
    assert [p.name for p in conv.parameters] == ["W", "b"]
    assert conv.parameters[0].initializer == "NormalConvolutionGlorot"
    assert conv.parameters[1].multiplier == 0.0 and conv.parameters[1].enable == "*WithBias"
    assert get_spec("MaxPooling").defaults()["Strides"] == "*KernelShape"
    assert get_spec("Dropout").prop("SkipAtTest").legacy_names == ("SkipAtInspection",)
    bn = get_spec("BatchNormalization")
    assert bn.prop("BatchStat").argument.test_value is False
    assert [(p.name, p.multiplier, p.lr_multiplier) for p in bn.parameters] == [
        ("beta", 0.0, 1.0), ("gamma", 1.0, 1.0), ("mean", 0.0, 0.0), ("var", 0.0, 0.0),
    ]  # fmt: skip
    assert get_spec("SpectralNorm").prop("Test").argument.test_value is True
    lstm = get_spec("LSTM")
    assert lstm.pin_of("Affine.W") == 3 and lstm.connector("IGate.b").label == "Ib"
    assert lstm.parameters[0].path == "Affine/affine/W"
    assert get_spec("SquaredError").is_loss and get_spec("TopNError").is_loss
    assert not get_spec("Softmax").is_loss
    assert get_spec("Input").position_top and get_spec("Argument").component.value == "Argument"


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.type)
def test_every_spec_parses_its_own_defaults(spec):
    names = {p.name for p in spec.properties}
    for prop in spec.properties:
        raw = prop.default
        if raw == "" and not prop.required:
            continue
        if prop.type.name in ("Text", "File", "Dataset", "Option") and not raw.startswith("*"):
            if prop.options:
                assert raw in prop.options, prop.name
            continue
        if not raw.startswith("*") and prop.type.is_literal(raw):
            prop.parse(raw)
            continue
        _check_rule(spec, raw, names)
    for connector in spec.connectors:
        _check_rule(spec, connector.shape, names)
        _check_rule(spec, connector.enable, names)
    for _, rule in spec.costs:
        _check_rule(spec, rule, names)


def _check_rule(spec, raw, names):
    """A macro/expression default must parse and name only things that exist."""
    if raw in ("True", "False"):
        return
    nodes = [n for _, n in parse_calc(raw)] if raw.startswith("*Calc") else [parse(raw)]
    known = names | set(MACROS) | GRAPH_MACROS | BUILTIN_MACROS | {"Input"}
    for node in nodes:
        for ident in _idents(node):
            assert ident in known, f"{spec.type}: {raw} names unknown {ident}"


def _idents(node):
    if isinstance(node, Macro):
        yield node.ident
    for value in getattr(node, "__dict__", {}).values():
        items = value if isinstance(value, tuple) else (value,)
        for item in items:
            if hasattr(item, "__dataclass_fields__"):
                yield from _idents(item)
    if hasattr(node, "ident") and not isinstance(node, Macro):
        yield node.ident


def test_function_names_exist_in_engine_functions():
    for spec in SPECS:
        if spec.support is Support.KERNEL:
            assert callable(getattr(F, spec.function, None)), spec.type
            # The name is the nnabla snake_case of the type (ReLU6 -> relu6, AddN -> add_n).
            assert spec.function.replace("_", "") == spec.type.lower(), spec.type
        else:
            assert spec.function is None, spec.type


def test_unsupported_layers_are_listed_and_say_so():
    assert {s.type for s in SPECS if s.support is Support.UNSUPPORTED} == UNSUPPORTED
    with pytest.raises(
        UnsupportedLayerError, match="layer type Flatten is not supported by the engine"
    ):
        get_spec("Flatten").require_runnable()
    get_spec("Convolution").require_runnable()
    graph = {s.type for s in SPECS if s.support is Support.GRAPH}
    assert {"Input", "Parameter", "Unit", "RepeatStart", "RepeatEnd", "RecurrentInput",
            "RecurrentOutput", "Delay", "LSTM"} <= graph  # fmt: skip


# Representative inputs for layers whose rule needs a particular input (default (3, 8, 8)).
INPUTS = {
    "Reshape": ((4, 5, 5),),
    "BatchMatmul": ((2, 4, 4),),  # R defaults to *Input: square matrices
    "BatchInv": ((4, 4),),
    "BatchDet": ((4, 4),),
    "BatchLogdet": ((4, 4),),
    "MatrixDiagPart": ((3, 4, 4),),
    "OneHot": ((5, 1),),
    "FFT": ((3, 8, 8, 2),),
    "IFFT": ((3, 8, 8, 2),),
    "DepthwiseConvolution": ((3, 12, 12),),
    "DepthwiseDeconvolution": ((3, 8, 8),),
    "BinaryConnectConvolution": ((3, 12, 12),),
    "BinaryWeightConvolution": ((3, 12, 12),),
    "AdaptiveSeparableConvolution": ((3, 8, 8),),
    "Interpolate": ((3, 8, 8),),
    "GroupNormalization": ((8, 4, 4),),
}
CONTEXT = {
    "Parameter": {"required": (10, 4)},
    "RecurrentOutput": {"macros": {"RecurrentLength": 5}},
    "RepeatEnd": {"macros": {"RepeatTimes": 3}},
    "Unit": {"macros": {"UnitOutput": (7,)}},
}


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.type)
def test_every_rule_runs_on_a_representative_input(spec):
    inputs = INPUTS.get(spec.type, ((3, 8, 8),))
    if spec.prop("Inputs") and spec.type != "BatchMatmul":
        inputs = inputs * 2
    if spec.prop("Input") is None and spec.prop("Inputs") is None:
        inputs = ()
    context = StaticContext(inputs=inputs, **CONTEXT.get(spec.type, {}))
    layer = LayerEval(spec, spec.type, {}, context)
    out = layer.output_shape()
    if spec.output_rule is None:
        assert out is None
    else:
        assert out and all(isinstance(n, int) and n > 0 for n in out), out
    stats = {s: layer.cost(s) for s in STATISTICS}
    assert all(isinstance(v, int) and v >= 0 for v in stats.values()), stats
    for connector in spec.connectors:
        shape = layer.connector_shape(connector.name)
        assert shape and min(shape) > 0
        if connector.kind is ConnectorKind.PARAMETER:
            assert re.fullmatch(r"[A-Za-z.]+", connector.name)
    for prop in spec.properties:
        if prop.name not in ("InPlace",):  # *AutoInPlace needs the network
            layer.value(prop.name)

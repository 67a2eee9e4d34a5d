"""LayerEval: lazy typed properties, macros, arguments, stale computed values, costs."""

import pytest

from engine.layers import get_spec
from engine.layers.evaluate import LayerEval, RuleError, StaticContext, auto_value
from engine.layers.spec import STATISTICS


def layer(type_, inputs=((3, 8, 8),), name=None, **kw):
    props = kw.pop("props", {})
    return LayerEval(get_spec(type_), name or type_, props, StaticContext(inputs=inputs, **kw))


def test_worked_example_per_layer():
    """docs/layers.md §2, layer by layer (Output .. CostIf in NNC's order)."""
    rows = [
        ("Input", {"Size": "1,28,28"}, (1, 28, 28), [784, 0, 0, 0, 0, 0, 0, 0]),
        ("Convolution", {"OutMaps": "32"}, (32, 28, 28), [25088, 320, 25088, 0, 225792, 0, 0, 0]),
        ("ReLU", {}, (32, 28, 28), [25088, 0, 0, 0, 0, 0, 0, 25088]),
        ("MaxPooling", {}, (32, 14, 14), [6272, 0, 0, 0, 0, 0, 0, 25088]),
        (
            "Convolution",
            {"OutMaps": "64"},
            (64, 14, 14),
            [12544, 18496, 12544, 0, 3612672, 0, 0, 0],
        ),  # fmt: skip
        ("ReLU", {}, (64, 14, 14), [12544, 0, 0, 0, 0, 0, 0, 12544]),
        ("MaxPooling", {}, (64, 7, 7), [3136, 0, 0, 0, 0, 0, 0, 12544]),
        ("Affine", {"OutShape": "10"}, (10,), [10, 31370, 10, 0, 31360, 0, 0, 0]),
        ("Softmax", {}, (10,), [10, 0, 10, 0, 0, 10, 10, 0]),
        ("CategoricalCrossEntropy", {}, (1,), [1, 0, 0, 0, 0, 0, 0, 0]),
    ]
    shape = None
    totals = [0] * 8
    for type_, props, expected_shape, stats in rows:
        ev = layer(type_, inputs=(shape,) if shape else (), props=props)
        shape = ev.output_shape()
        assert shape == expected_shape, type_
        values = [ev.cost(s) for s in STATISTICS]
        assert values == stats, type_
        totals = [a + b for a, b in zip(totals, values, strict=True)]
    assert totals == [85477, 50186, 37652, 0, 3869824, 10, 10, 75264]


def test_values_are_typed_and_lazy():
    conv = layer("Convolution", props={"KernelShape": "5,5", "Strides": "*KernelShape"})
    assert conv.value("Strides") == (5, 5)
    assert conv.value("WithBias") is True and conv.value("BorderMode") == "same"
    assert conv.value("ParameterScope") == "Convolution"  # *Name
    assert conv.value("W.File") == ""  # optional and empty
    pool = layer("MaxPooling", props={"KernelShape": "3,3"})
    assert pool.value("Strides") == (3, 3)  # default *KernelShape
    dw = layer("DepthwiseConvolution", props={"Multiplier": "3"})
    assert dw.value("OutMaps") == 9 and dw.value("Group") == 3


def test_stored_computed_values_are_ignored():
    # NNC's `complete` writes Input/Output; they go stale when the graph changes.
    relu = layer("ReLU", inputs=((5, 5),), props={"Input": "1,28,28", "Output": "1,28,28"})
    assert relu.output_shape() == (5, 5)
    assert relu.value("Input") == (5, 5)


def test_legacy_property_name():
    dropout = layer("Dropout", props={"SkipAtInspection": "False"})
    assert dropout.value("SkipAtTest") is False


def test_arguments_by_macro_bare_name_and_expression():
    args = {"ConvMaps": 24, "DropP": 0.25, "NetBS": False, "r": 2, "SqueezeRatio": 4}
    conv = layer("Convolution", ((64, 8, 8),), arguments=args, props={"OutMaps": "*ConvMaps"})
    assert conv.output_shape() == (24, 8, 8)
    assert layer("Dropout", arguments=args, props={"P": "DropP"}).value("P") == 0.25
    assert (
        layer("BatchNormalization", arguments=args, props={"BatchStat": "*NetBS"}).value(
            "BatchStat"
        )
        is False
    )
    se = layer(
        "Convolution", (64, 8, 8), arguments=args, props={"OutMaps": "Input[0]/SqueezeRatio"}
    )
    assert se.value("OutMaps") == 16
    pool = layer("SumPooling", ((1, 5, 10),), arguments=args,
                 props={"KernelShape": "1,r*2+1", "Strides": "1,1", "Padding": "0,r"})  # fmt: skip
    assert pool.output_shape() == (1, 5, 10)  # alexnet's LRN unit: pad 0,2 with kernel 1,5


def test_errors_name_the_property():
    with pytest.raises(RuleError, match="property OutMaps: unknown name NoArg"):
        layer("Convolution", props={"OutMaps": "NoArg*2"}).output_shape()
    with pytest.raises(RuleError, match="property Padding: expected a comma-separated list"):
        layer("MaxPooling", props={"Padding": "0,-1"}).output_shape()
    with pytest.raises(RuleError, match="property BorderMode: expected one of valid, full, same"):
        layer("Convolution", props={"BorderMode": "half"}).output_shape()
    with pytest.raises(RuleError, match="refers to itself"):
        layer("MaxPooling", props={"KernelShape": "*Strides", "Strides": "*KernelShape"}).value(
            "Strides"
        )
    with pytest.raises(RuleError, match=r"\*RepeatTimes can only be resolved inside a network"):
        layer("RepeatEnd").value("Times")
    with pytest.raises(RuleError, match="has no property Nope"):
        layer("ReLU").value("Nope")


def test_graph_io_and_graph_output():
    # *GraphIO: the input when connected, else the shape the consumer needs.
    assert layer("FixedPointQuantize", inputs=(), required=(10, 4)).output_shape() == (10, 4)
    assert layer("FixedPointQuantize", inputs=((2, 2),), required=(10, 4)).output_shape() == (2, 2)
    param = layer("Parameter", inputs=(), required=(192, 10))
    assert param.output_shape() == (192, 10) and param.cost("CostParameter") == 1920
    with pytest.raises(RuleError, match="connect the input or the output"):
        layer("Parameter", inputs=()).output_shape()
    assert layer("Parameter", inputs=(), props={"Size": "3,3"}).output_shape() == (3, 3)


def test_layers_without_output_and_unit_costs():
    assert layer("Comment", inputs=()).output_shape() is None
    assert layer("Argument", inputs=()).cost("Output") == 0
    unit = layer("Unit", macros={"UnitOutput": (32, 4, 4)})
    assert unit.output_shape() == (32, 4, 4)
    assert unit.cost("CostMultiplyAdd") == 0  # filled from the expansion by engine.graph


def test_auto_value_types_text_arguments():
    assert auto_value("2") == 2
    assert auto_value("1,1") == (1, 1)
    assert auto_value("0.75") == 0.75
    assert auto_value("False") is False
    assert auto_value("relu") == "relu"


def test_evaluate_any_raw_value_in_layer_scope():
    unit_like = layer("Convolution", ((10, 4, 4),), arguments={"NetMaps": 3})
    from engine.layers.property_types import INT

    assert unit_like.evaluate("Input[0]+1", INT) == 11
    assert unit_like.evaluate("NetMaps*2", INT) == 6

"""Units and arguments: declarations, binding in the caller, recursion, repeat blocks, names."""

import pytest

from engine.graph import nesting, unit_arguments, unit_graph
from engine.graph.inference_context import typed_key
from engine.graph.parameter_names import parameter_name
from engine.graph.project import Layer, Link, Network, Project
from engine.layers import get_spec
from engine.layers.evaluate import LayerEval, StaticContext


def network(name, layers, links=()):
    net = Network(name, [Layer(n, t, dict(p)) for n, t, p in layers])
    for a, b, *pin in links:
        net.connect(Link(a, b, *pin))
    return net


UNIT = network(
    "SE",
    [
        ("Input", "Input", {}),
        ("Ratio", "Argument", {"Value": "4", "Type": "PInt"}),
        ("BS", "Argument", {"Value": "True", "Type": "BooleanOrMacro"}),
        ("Note", "Argument", {"Value": "relu"}),  # Type defaults to Text
        ("Pad", "Argument", {"Value": "1,1", "Type": "UIntArray"}),
        ("Double", "Argument", {"Value": "Ratio*2", "Type": "PInt"}),
    ],
)


def unit_layer(props, inputs=((64, 8, 8),), arguments=None):
    context = StaticContext(inputs=inputs, arguments=arguments or {})
    return LayerEval(get_spec("Unit"), "SE1", {"Network": "SE", **props}, context)


def test_arguments_of_and_defaults():
    decls = unit_arguments.arguments_of(UNIT)
    assert list(decls) == ["Ratio", "BS", "Note", "Pad", "Double"]
    assert decls["Note"].type == "Text" and decls["Ratio"].value == "4"
    assert unit_arguments.default_arguments(UNIT) == {
        "Ratio": 4, "BS": True, "Note": "relu", "Pad": (1, 1), "Double": 8,
    }  # fmt: skip


def test_bind_arguments_in_the_caller():
    caller = {"NetRatio": 2, "NetBS": False}
    values = unit_arguments.bind_arguments(
        unit_layer({"Ratio": "Input[0]/NetRatio", "BS": "*NetBS", "Note": "7"}, arguments=caller),
        UNIT,
    )
    assert values["Ratio"] == 32  # Input is the Unit layer's input (64 channels)
    assert values["BS"] is False
    assert values["Note"] == 7  # Text arguments keep numbers usable
    assert values["Pad"] == (1, 1)  # not set on the Unit layer: the Argument's Value
    bare = unit_arguments.bind_arguments(unit_layer({"Ratio": "NetRatio"}, arguments=caller), UNIT)
    assert bare["Ratio"] == 2


def test_argument_type_errors_are_reported_and_the_value_used():
    problems = []
    values = unit_arguments.bind_arguments(unit_layer({"Ratio": "0.5"}), UNIT, problems)
    assert values["Ratio"] == 0.5
    assert [p.prop for p in problems] == ["Ratio"]
    assert "argument of type PInt: expected a positive integer" in problems[0].detail
    with pytest.raises(unit_arguments.ArgumentError, match='unit layer "SE1", argument BS'):
        unit_arguments.bind_arguments(unit_layer({"BS": "maybe"}), UNIT)
    odd = network("Odd", [("A", "Argument", {"Value": "1", "Type": "Complex"})])
    problems = []
    assert unit_arguments.default_arguments(odd, problems) == {"A": 1}
    assert problems[0].detail == "unknown argument type Complex"


def test_unit_cycles():
    project = Project(
        [
            network("Main", [("U", "Unit", {"Network": "A"})]),
            network("A", [("U", "Unit", {"Network": "B"})]),
            network("B", [("U", "Unit", {"Network": "A"}), ("S", "Unit", {"Network": "B"})]),
        ]
    )
    assert unit_graph.unit_calls(project)["B"] == [("U", "A"), ("S", "B")]
    cycles = unit_graph.unit_cycles(project)
    assert sorted(map(tuple, cycles)) == [("A", "B", "A"), ("B", "B")]


def test_repeat_blocks_and_matching_start():
    net = network(
        "N",
        [
            ("x", "Input", {}),
            ("S1", "RepeatStart", {}),
            ("a", "ReLU", {}),
            ("S2", "RepeatStart", {}),
            ("b", "ReLU", {}),
            ("c", "Add2", {}),
            ("E2", "RepeatEnd", {}),
            ("E1", "RepeatEnd", {}),
            ("out", "Tanh", {}),
        ],
        [
            ("x", "S1"),
            ("S1", "a"),
            ("a", "S2"),
            ("S2", "b"),
            ("b", "c"),
            ("S2", "c"),
            ("c", "E2"),
            ("E2", "E1"),
            ("E1", "out"),
        ],  # fmt: skip
    )
    assert nesting.matching_start(net, "E1", "RepeatStart", "RepeatEnd") == "S1"
    assert nesting.matching_start(net, "E2", "RepeatStart", "RepeatEnd") == "S2"
    blocks = nesting.repeat_blocks(net)
    assert blocks["a"] == ("S1",)
    assert blocks["b"] == ("S1", "S2") and blocks["c"] == ("S1", "S2")
    assert blocks["E2"] == ("S1",) and "out" not in blocks and "x" not in blocks


def test_parameter_names():
    conv = get_spec("Convolution")
    w = conv.parameters[0]
    assert parameter_name(conv, "Conv", "Conv", w) == "Conv/conv/W"
    assert parameter_name(conv, "Squeeze", "Squeeze", w, ["SE1"]) == "SE1/Squeeze/conv/W"
    # An empty unit ParameterScope adds nothing (docs/nnc-behaviour.md §1.3).
    assert parameter_name(conv, "Conv", "Conv", w, ["", "B1"]) == "B1/Conv/conv/W"
    repeated = parameter_name(conv, "Convolution_5", "Convolution_5", w, (), ["RepeatStart"])
    assert repeated == "Convolution_5{RepeatStart}/conv/W"
    assert parameter_name(get_spec("Parameter"), "P", "", None, ["U"]) == "U/P"
    lstm = get_spec("LSTM")
    assert parameter_name(lstm, "LSTM", "LSTM", lstm.parameters[2]) == "LSTM/IGate/affine/W"
    mmq = get_spec("MinMaxQuantize")
    assert parameter_name(mmq, "Q", "", mmq.parameters[1]) == "Q/min_max_quantize/qr_max"
    bn = get_spec("BatchNormalization")
    assert parameter_name(bn, "BN", "Shared", bn.parameters[1]) == "Shared/bn/gamma"


def test_typed_key_tells_bools_ints_and_floats_apart():
    keys = {typed_key({"A": v}) for v in (True, 1, 1.0, "1", (1,), (True,))}
    assert len(keys) == 6
    assert typed_key({"B": (1, 2), "A": 3}) == typed_key({"A": 3, "B": (1, 2)})

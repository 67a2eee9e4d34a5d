"""Checking typed property text; ``*X`` references inside unit networks (no Qt needed)."""

from __future__ import annotations

import pytest

from console_app.editor.values import check_property, check_typed, is_unit_network, macro_rule
from engine.graph.project import Layer, Network, Project
from engine.layers import get_spec


@pytest.fixture
def project():
    unit = Network("Block", [
        Layer("Input", "Input", {"Size": "3,8,8"}),
        Layer("Conv", "Convolution", {"OutMaps": "*Maps"}),
        Layer("BN", "BatchNormalization", {"BatchStat": "*BS"}),
        Layer("Maps", "Argument", {"Value": "4", "Type": "PInt"}),
        Layer("BS", "Argument", {"Value": "True", "Type": "BooleanOrMacro"}),
    ])  # fmt: skip
    called = Network("Called", [Layer("ReLU", "ReLU")])
    main = Network("Main", [Layer("Call", "Unit", {"Network": "Called"})])
    return Project([main, unit, called])


def _check(project, network, layer_type, prop, raw):
    net = project.network(network)
    args = [layer.name for layer in net.layers if layer.type == "Argument"]
    spec = get_spec(layer_type)
    rule = macro_rule(project, net, layer_type, prop, args)
    return check_property(spec.prop(prop), raw, [*args, *(p.name for p in spec.properties)], rule)


def test_unit_networks_are_those_with_arguments_or_callers(project):
    assert [is_unit_network(project, n) for n in project.networks] == [False, True, True]
    assert macro_rule(project, project.network("Main"), "ReLU", "InPlace", []) is None


@pytest.mark.parametrize(
    ("layer_type", "prop", "raw"),
    [
        ("Convolution", "OutMaps", "*Maps"),  # an argument
        ("Convolution", "OutMaps", "*Maps*2+1"),
        ("Convolution", "Padding", "*ConvolutionPaddingSize"),  # the catalogue's default
        ("Convolution", "ParameterScope", "*Name"),
        ("Convolution", "ParameterScope", "my scope"),  # Text stays free text
        ("MaxPooling", "Strides", "*KernelShape"),
        ("Convolution", "Strides", "*KernelShape"),  # the layer's own KernelShape
        ("ReLU", "InPlace", "*AutoInPlace"),  # a default of InPlace elsewhere (Add2)
        ("BatchNormalization", "BatchStat", "*BS"),
        ("Reshape", "OutShape", "*Input"),
        ("Affine", "OutShape", "*UnitProperty(Size)"),  # NNC's LSTM unit
        ("Convolution", "BorderMode", "*Maps"),  # an Option may take an argument
    ],
)
def test_accepted_references_in_a_unit_network(project, layer_type, prop, raw):
    assert _check(project, "Block", layer_type, prop, raw) is None


@pytest.mark.parametrize(
    ("network", "layer_type", "prop", "raw", "ident"),
    [
        ("Block", "Convolution", "OutMaps", "*Map", "Map"),
        ("Block", "Convolution", "OutMaps", "Input[0]+*Nope", "Nope"),
        ("Block", "Convolution", "Padding", "*KernelShapes", "KernelShapes"),
        ("Block", "Convolution", "ParameterScope", "*Scope", "Scope"),
        ("Block", "ReLU", "InPlace", "*ConvolutionPaddingSize", "ConvolutionPaddingSize"),
        ("Block", "BatchNormalization", "BatchStat", "*NetworkBS", "NetworkBS"),
        ("Block", "Convolution", "BorderMode", "*Border", "Border"),
        ("Called", "ReLU", "InPlace", "*AutoInPlaceTwice", "AutoInPlaceTwice"),
    ],
)
def test_refused_references_in_a_unit_network(project, network, layer_type, prop, raw, ident):
    declared = "Maps, BS" if network == "Block" else "none"
    assert _check(project, network, layer_type, prop, raw) == (
        f'property {prop}: *{ident} is neither an argument of network "{network}" '
        f"(arguments: {declared}) nor an NNC macro of {prop}. Received: {prop}={raw}"
    )


def test_outside_units_macros_are_left_to_the_engine(project):
    assert _check(project, "Main", "Convolution", "OutMaps", "*Whatever") is None
    assert "unknown name Maps" in _check(project, "Main", "Convolution", "OutMaps", "Maps*2")


def test_typed_values_of_arguments(project):
    block = project.network("Block")
    rule = macro_rule(project, block, "Unit", "Maps", ["Maps", "BS"])
    assert check_typed("PInt", "Maps", "3") is None
    assert "Maps" in check_typed("PInt", "Maps", "0")
    assert check_typed("PIntArray", "K", "Input[1],3") is None
    assert check_typed("BooleanOrMacro", "BS", "*BS", ["BS"], rule) is None
    assert "*Other is neither" in check_typed("BooleanOrMacro", "BS", "*Other", ["BS"], rule)
    assert check_typed("Text", "Label", "free words") is None
    assert "*Label is neither" in check_typed("Text", "Label", "*Label", [], rule)
    assert check_typed("FloatArray", "F", "0.5,1e-3") is None
    assert "F" in check_typed("FloatArray", "F", "0.5,,1")

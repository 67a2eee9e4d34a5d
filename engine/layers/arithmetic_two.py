"""Arithmetic (2 Inputs): Add2, Sub2, Mul2, Div2, Pow2, Maximum2, Minimum2.

Declarations follow docs/layers.md §4.14
(Sony's ``Arithmetic (2 Inputs)/*.txt``).
"""

from __future__ import annotations

from engine.layers.declare import (
    INPUT,
    INPUTS,
    Inputs,
    OnnxRule,
    data,
    data_props,
    layer,
    output,
    prop,
)
from engine.layers.onnx_rules import arithmetic as onnx
from engine.layers.property_types import (
    BOOLEAN_OR_MACRO,
)

CATEGORY = "Arithmetic (2 Inputs)"

SPECS = (
    layer(
        "Add2",
        CATEGORY,
        "Element-wise sum of two inputs (broadcasting over size-1 axes).",
        (
            INPUTS,
            prop("InPlace", BOOLEAN_OR_MACRO, "*AutoInPlace", arg="add2_param.inplace"),
            output("*BasicMathOutputSizewBC"),
        ),
        costs={
            "CostAdd": "*Calc +*Output",
        },
        function="add2",
        onnx=OnnxRule("Add", read=onnx.read_arithmetic),
        inputs=Inputs.MULTIPLE,
        color=0x848484,
    ),
    layer(
        "Sub2",
        CATEGORY,
        ("Element-wise input - R (R from the side connector, a dataset variable or a generator)."),
        (
            INPUT,
            *data_props("R", canvas=True),
            output(),
        ),
        connectors=(data("R"),),
        costs={
            "CostAdd": "*Calc +*Output",
        },
        function="sub2",
        onnx=OnnxRule("Sub", read=onnx.read_arithmetic),
        color=0x848484,
    ),
    layer(
        "Mul2",
        CATEGORY,
        "Element-wise product of two inputs.",
        (
            INPUTS,
            output("*BasicMathOutputSizewBC"),
        ),
        costs={
            "CostMultiply": "*Calc +*Output",
        },
        function="mul2",
        onnx=OnnxRule("Mul", read=onnx.read_arithmetic),
        inputs=Inputs.MULTIPLE,
        color=0x848484,
    ),
    layer(
        "Div2",
        CATEGORY,
        "Element-wise input / R.",
        (
            INPUT,
            *data_props("R", canvas=True),
            output(),
        ),
        connectors=(data("R"),),
        costs={
            "CostDivision": "*Calc +*Output",
        },
        function="div2",
        onnx=OnnxRule("Div", read=onnx.read_arithmetic),
        color=0x848484,
    ),
    layer(
        "Pow2",
        CATEGORY,
        "Element-wise input ^ R.",
        (
            INPUT,
            *data_props("R", canvas=True),
            output(),
        ),
        connectors=(data("R"),),
        costs={
            "CostMultiply": "*Calc +*Output",
            "CostExp": "*Calc +*Output:+*Output",
        },
        function="pow2",
        onnx=OnnxRule("Pow", read=onnx.read_arithmetic),
        color=0x848484,
    ),
    layer(
        "Maximum2",
        CATEGORY,
        "Element-wise maximum of two inputs.",
        (
            INPUTS,
            output("*BasicMathOutputSizewBC"),
        ),
        costs={
            "CostIf": "*Calc +*Output",
        },
        function="maximum2",
        inputs=Inputs.MULTIPLE,
        onnx=OnnxRule("Max", read=onnx.read_extreme),
        color=0x848484,
    ),
    layer(
        "Minimum2",
        CATEGORY,
        "Element-wise minimum of two inputs.",
        (
            INPUTS,
            output("*BasicMathOutputSizewBC"),
        ),
        costs={
            "CostIf": "*Calc +*Output",
        },
        function="minimum2",
        inputs=Inputs.MULTIPLE,
        onnx=OnnxRule("Min", read=onnx.read_extreme),
        color=0x848484,
    ),
)

"""Arithmetic (Scalar): AddScalar, MulScalar, RSubScalar, RDivScalar, PowScalar, RPowScalar,
MaximumScalar, MinimumScalar.

Declarations follow docs/layers.md §4.13
(Sony's ``Arithmetic (Scalar)/*.txt``).
"""

from __future__ import annotations

from engine.layers.declare import (
    INPUT_IO,
    OnnxRule,
    layer,
    output,
    prop,
)
from engine.layers.onnx_rules import arithmetic as onnx
from engine.layers.property_types import (
    FLOAT,
)

CATEGORY = "Arithmetic (Scalar)"

SPECS = (
    layer(
        "AddScalar",
        CATEGORY,
        "x + Value.",
        (
            INPUT_IO,
            prop("Value", FLOAT, "0.0", canvas=True, arg="add_scalar_param.val"),
            output(),
        ),
        costs={
            "CostAdd": "*Calc +*Input",
        },
        function="add_scalar",
        color=0x848484,
        onnx=OnnxRule("Add", onnx.write_scalar("Add"), reads=()),
    ),
    layer(
        "MulScalar",
        CATEGORY,
        "x * Value.",
        (
            INPUT_IO,
            prop("Value", FLOAT, "1.0", canvas=True, arg="mul_scalar_param.val"),
            output(),
        ),
        costs={
            "CostMultiply": "*Calc +*Input",
        },
        function="mul_scalar",
        color=0x848484,
        onnx=OnnxRule("Mul", onnx.write_scalar("Mul"), onnx.read_unary_scalar, reads=("Neg",)),
    ),
    layer(
        "RSubScalar",
        CATEGORY,
        "Value - x.",
        (
            INPUT_IO,
            prop("Value", FLOAT, "0.0", canvas=True, arg="r_sub_scalar_param.val"),
            output(),
        ),
        costs={
            "CostAdd": "*Calc +*Input",
        },
        function="r_sub_scalar",
        color=0x848484,
        onnx=OnnxRule("Sub", onnx.write_reverse_scalar("Sub"), reads=()),
    ),
    layer(
        "RDivScalar",
        CATEGORY,
        "Value / x.",
        (
            INPUT_IO,
            prop("Value", FLOAT, "1.0", canvas=True, arg="r_div_scalar_param.val"),
            output(),
        ),
        costs={
            "CostDivision": "*Calc +*Input",
        },
        function="r_div_scalar",
        color=0x848484,
        onnx=OnnxRule(
            "Div", onnx.write_reverse_scalar("Div"), onnx.read_unary_scalar, reads=("Reciprocal",)
        ),
    ),
    layer(
        "PowScalar",
        CATEGORY,
        "x ^ Value.",
        (
            INPUT_IO,
            prop("Value", FLOAT, "2.0", canvas=True, arg="pow_scalar_param.val"),
            output(),
        ),
        costs={
            "CostMultiply": "*Calc +*Input",
            "CostExp": "*Calc +*Input:+*Input",
        },
        function="pow_scalar",
        color=0x848484,
        onnx=OnnxRule("Pow", onnx.write_scalar("Pow"), onnx.read_unary_scalar, reads=("Sqrt",)),
    ),
    layer(
        "RPowScalar",
        CATEGORY,
        "Value ^ x.",
        (
            INPUT_IO,
            prop("Value", FLOAT, "1.0", canvas=True, arg="r_pow_scalar_param.val"),
            output(),
        ),
        costs={
            "CostMultiply": "*Calc +*Input",
            "CostExp": "*Calc +*Input:+*Input",
        },
        function="r_pow_scalar",
        color=0x848484,
    ),
    layer(
        "MaximumScalar",
        CATEGORY,
        "max(x, Value).",
        (
            INPUT_IO,
            prop("Value", FLOAT, "0.0", canvas=True, arg="maximum_scalar_param.val"),
            output(),
        ),
        costs={
            "CostIf": "*Calc +*Input",
        },
        function="maximum_scalar",
        color=0x848484,
        onnx=OnnxRule("Max", onnx.write_scalar("Max"), reads=()),  # Maximum2's rule reads it
    ),
    layer(
        "MinimumScalar",
        CATEGORY,
        "min(x, Value).",
        (
            INPUT_IO,
            prop("Value", FLOAT, "1.0", canvas=True, arg="minimum_scalar_param.val"),
            output(),
        ),
        costs={
            "CostIf": "*Calc +*Input",
        },
        function="minimum_scalar",
        color=0x848484,
        onnx=OnnxRule("Min", onnx.write_scalar("Min"), reads=()),  # Minimum2's rule reads it
    ),
)

"""Logical: LogicalAnd, LogicalOr, LogicalXor, Equal, NotEqual, GreaterEqual, Greater, LessEqual,
Less, LogicalAndScalar, LogicalOrScalar, LogicalXorScalar, EqualScalar, NotEqualScalar,
GreaterEqualScalar, GreaterScalar, LessEqualScalar, LessScalar, LogicalNot, IsNaN, IsInf.

Declarations follow docs/layers.md §4.16
(Sony's ``Logical/*.txt``).
"""

from __future__ import annotations

from engine.layers.declare import (
    INPUT,
    INPUT_IO,
    INPUTS,
    Inputs,
    data,
    data_props,
    layer,
    output,
    prop,
)
from engine.layers.property_types import (
    FLOAT,
)

CATEGORY = "Logical"

SPECS = (
    layer(
        "LogicalAnd",
        CATEGORY,
        "1 where both inputs are non-zero, else 0.",
        (
            INPUTS,
            output("*BasicMathOutputSizewBC"),
        ),
        costs={
            "CostIf": "*Calc +*Output",
        },
        function="logical_and",
        inputs=Inputs.MULTIPLE,
        color=0x848484,
    ),
    layer(
        "LogicalOr",
        CATEGORY,
        "1 where either input is non-zero.",
        (
            INPUTS,
            output("*BasicMathOutputSizewBC"),
        ),
        costs={
            "CostIf": "*Calc +*Output",
        },
        function="logical_or",
        inputs=Inputs.MULTIPLE,
        color=0x848484,
    ),
    layer(
        "LogicalXor",
        CATEGORY,
        "1 where exactly one input is non-zero.",
        (
            INPUTS,
            output("*BasicMathOutputSizewBC"),
        ),
        costs={
            "CostIf": "*Calc +*Output",
        },
        function="logical_xor",
        inputs=Inputs.MULTIPLE,
        color=0x848484,
    ),
    layer(
        "Equal",
        CATEGORY,
        "1 where a == b.",
        (
            INPUTS,
            output("*BasicMathOutputSizewBC"),
        ),
        costs={
            "CostIf": "*Calc +*Output",
        },
        function="equal",
        inputs=Inputs.MULTIPLE,
        color=0x848484,
    ),
    layer(
        "NotEqual",
        CATEGORY,
        "1 where a != b.",
        (
            INPUTS,
            output("*BasicMathOutputSizewBC"),
        ),
        costs={
            "CostIf": "*Calc +*Output",
        },
        function="not_equal",
        inputs=Inputs.MULTIPLE,
        color=0x848484,
    ),
    layer(
        "GreaterEqual",
        CATEGORY,
        "1 where input >= R.",
        (
            INPUT,
            *data_props("R", canvas=True),
            output(),
        ),
        connectors=(data("R"),),
        costs={
            "CostIf": "*Calc +*Output",
        },
        function="greater_equal",
        color=0x848484,
    ),
    layer(
        "Greater",
        CATEGORY,
        "1 where input > R.",
        (
            INPUT,
            *data_props("R", canvas=True),
            output(),
        ),
        connectors=(data("R"),),
        costs={
            "CostIf": "*Calc +*Output",
        },
        function="greater",
        color=0x848484,
    ),
    layer(
        "LessEqual",
        CATEGORY,
        "1 where input <= R.",
        (
            INPUT,
            *data_props("R", canvas=True),
            output(),
        ),
        connectors=(data("R"),),
        costs={
            "CostIf": "*Calc +*Output",
        },
        function="less_equal",
        color=0x848484,
    ),
    layer(
        "Less",
        CATEGORY,
        "1 where input < R.",
        (
            INPUT,
            *data_props("R", canvas=True),
            output(),
        ),
        connectors=(data("R"),),
        costs={
            "CostIf": "*Calc +*Output",
        },
        function="less",
        color=0x848484,
    ),
    layer(
        "LogicalAndScalar",
        CATEGORY,
        "x && Value.",
        (
            INPUT_IO,
            prop("Value", FLOAT, "0.0", canvas=True, arg="logical_and_scalar_param.val"),
            output(),
        ),
        costs={
            "CostIf": "*Calc +*Input",
        },
        function="logical_and_scalar",
        color=0x848484,
    ),
    layer(
        "LogicalOrScalar",
        CATEGORY,
        "x || Value.",
        (
            INPUT_IO,
            prop("Value", FLOAT, "0.0", canvas=True, arg="logical_or_scalar_param.val"),
            output(),
        ),
        costs={
            "CostIf": "*Calc +*Input",
        },
        function="logical_or_scalar",
        color=0x848484,
    ),
    layer(
        "LogicalXorScalar",
        CATEGORY,
        "x xor Value.",
        (
            INPUT_IO,
            prop("Value", FLOAT, "0.0", canvas=True, arg="logical_xor_scalar_param.val"),
            output(),
        ),
        costs={
            "CostIf": "*Calc +*Input",
        },
        function="logical_xor_scalar",
        color=0x848484,
    ),
    layer(
        "EqualScalar",
        CATEGORY,
        "x == Value.",
        (
            INPUT_IO,
            prop("Value", FLOAT, "0.0", canvas=True, arg="equal_scalar_param.val"),
            output(),
        ),
        costs={
            "CostIf": "*Calc +*Input",
        },
        function="equal_scalar",
        color=0x848484,
    ),
    layer(
        "NotEqualScalar",
        CATEGORY,
        "x != Value.",
        (
            INPUT_IO,
            prop("Value", FLOAT, "0.0", canvas=True, arg="not_equal_scalar_param.val"),
            output(),
        ),
        costs={
            "CostIf": "*Calc +*Input",
        },
        function="not_equal_scalar",
        color=0x848484,
    ),
    layer(
        "GreaterEqualScalar",
        CATEGORY,
        "x >= Value.",
        (
            INPUT_IO,
            prop("Value", FLOAT, "0.0", canvas=True, arg="greater_equal_scalar_param.val"),
            output(),
        ),
        costs={
            "CostIf": "*Calc +*Input",
        },
        function="greater_equal_scalar",
        color=0x848484,
    ),
    layer(
        "GreaterScalar",
        CATEGORY,
        "x > Value.",
        (
            INPUT_IO,
            prop("Value", FLOAT, "0.0", canvas=True, arg="greater_scalar_param.val"),
            output(),
        ),
        costs={
            "CostIf": "*Calc +*Input",
        },
        function="greater_scalar",
        color=0x848484,
    ),
    layer(
        "LessEqualScalar",
        CATEGORY,
        "x <= Value.",
        (
            INPUT_IO,
            prop("Value", FLOAT, "0.0", canvas=True, arg="less_equal_scalar_param.val"),
            output(),
        ),
        costs={
            "CostIf": "*Calc +*Input",
        },
        function="less_equal_scalar",
        color=0x848484,
    ),
    layer(
        "LessScalar",
        CATEGORY,
        "x < Value.",
        (
            INPUT_IO,
            prop("Value", FLOAT, "0.0", canvas=True, arg="less_scalar_param.val"),
            output(),
        ),
        costs={
            "CostIf": "*Calc +*Input",
        },
        function="less_scalar",
        color=0x848484,
    ),
    layer(
        "LogicalNot",
        CATEGORY,
        "1 where x == 0.",
        (
            INPUT,
            output(),
        ),
        costs={
            "CostIf": "*Calc +*Input",
        },
        function="logical_not",
        color=0x848484,
    ),
    layer(
        "IsNaN",
        CATEGORY,
        "1 where x is NaN.",
        (
            INPUT_IO,
            output(),
        ),
        costs={
            "CostIf": "*Calc +*Input",
        },
        function="isnan",
        export_name="isnan",
        color=0x848484,
    ),
    layer(
        "IsInf",
        CATEGORY,
        "1 where x is +-inf.",
        (
            INPUT_IO,
            output(),
        ),
        costs={
            "CostIf": "*Calc +*Input",
        },
        function="isinf",
        export_name="isinf",
        color=0x848484,
    ),
)

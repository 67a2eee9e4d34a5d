"""Math: Sum, CumSum, Mean, Prod, CumProd, Max, Min, Norm, Log, Exp, Sign, BatchMatmul, BatchInv,
BatchDet, BatchLogdet, Round, Ceil, Floor.

Declarations follow docs/layers.md §4.11
(Sony's ``Math/*.txt``).
"""

from __future__ import annotations

from engine.layers.declare import (
    INPUT,
    INPUT_IO,
    OnnxRule,
    data,
    layer,
    output,
    prop,
)
from engine.layers.onnx_rules import activation as onnx_activation
from engine.layers.onnx_rules import pooling as onnx
from engine.layers.property_types import (
    BOOLEAN,
    FLOAT,
    INT_ARRAY,
    PINT_ARRAY,
    UINT,
)

CATEGORY = "Math"


def _extremum(type_: str, word: str, function: str):
    """Max and Min: the same declaration with their own names."""
    param = f"{function}_param"
    return layer(
        type_,
        CATEGORY,
        f"{word} over `Axes` (optionally the index only).",
        (
            INPUT,
            prop("Axes", INT_ARRAY, "0", arg=f"{param}.axes -a -pyargname=axis"),
            prop("KeepDims", BOOLEAN, "False", arg=f"{param}.keep_dims -pyargname=keepdims"),
            prop("WithIndex", BOOLEAN, "False", computed=True, arg=f"{param}.with_index"),
            prop("OnlyIndex", BOOLEAN, "False", arg=f"{param}.only_index"),
            output("*SumOutputSize"),
        ),
        costs={"CostIf": "*Calc +*Input"},
        function=function,
        onnx=OnnxRule(
            f"Reduce{type_}",
            onnx.write_reduce(f"Reduce{type_}"),
            onnx.read_reduce,
            reads=(f"Reduce{type_}", f"Arg{type_}"),
        ),
    )


SPECS = (
    layer(
        "Sum",
        CATEGORY,
        "Sum over `Axes`.",
        (
            INPUT,
            prop("Axes", INT_ARRAY, "0", arg="sum_param.axes -a -pyargname=axis"),
            prop("KeepDims", BOOLEAN, "False", arg="sum_param.keep_dims -pyargname=keepdims"),
            output("*SumOutputSize"),
        ),
        costs={
            "CostAdd": "*Calc +*Input",
        },
        function="sum",
        onnx=OnnxRule("ReduceSum", onnx.write_reduce("ReduceSum"), onnx.read_reduce),
    ),
    layer(
        "CumSum",
        CATEGORY,
        "Cumulative sum along `Axis`.",
        (
            INPUT,
            prop("Axis", UINT, "0", canvas=True, arg="cumsum_param.axis -a"),
            prop("Exclusive", BOOLEAN, "False", arg="cumsum_param.exclusive"),
            prop("Reverse", BOOLEAN, "False", arg="cumsum_param.reverse"),
            output(),
        ),
        costs={
            "CostAdd": "*Calc +*Input",
        },
        function="cumsum",
    ),
    layer(
        "Mean",
        CATEGORY,
        "Mean over `Axes`.",
        (
            INPUT,
            prop("Axes", INT_ARRAY, "0", arg="mean_param.axes -a -pyargname=axis"),
            prop("KeepDims", BOOLEAN, "False", arg="mean_param.keep_dims -pyargname=keepdims"),
            output("*SumOutputSize"),
        ),
        costs={
            "CostAdd": "*Calc +*Input",
        },
        function="mean",
        onnx=OnnxRule("ReduceMean", onnx.write_mean, onnx.read_reduce),
    ),
    layer(
        "Prod",
        CATEGORY,
        "Product over `Axes`.",
        (
            INPUT,
            prop("Axes", INT_ARRAY, "0", arg="prod_param.axes -a -pyargname=axis"),
            prop("KeepDims", BOOLEAN, "False", arg="prod_param.keep_dims -pyargname=keepdims"),
            output("*SumOutputSize"),
        ),
        costs={
            "CostMultiply": "*Calc +*Input",
        },
        function="prod",
    ),
    layer(
        "CumProd",
        CATEGORY,
        "Cumulative product along `Axis`.",
        (
            INPUT,
            prop("Axis", UINT, "0", canvas=True, arg="cumprod_param.axis -a"),
            prop("Exclusive", BOOLEAN, "False", arg="cumprod_param.exclusive"),
            prop("Reverse", BOOLEAN, "False", arg="cumprod_param.reverse"),
            output(),
        ),
        costs={
            "CostMultiply": "*Calc +*Input",
        },
        function="cumprod",
    ),
    _extremum("Max", "Maximum", "max"),
    _extremum("Min", "Minimum", "min"),
    layer(
        "Norm",
        CATEGORY,
        "Lp norm over `Axes`.",
        (
            INPUT,
            prop("P", FLOAT, "2", arg="norm_param.p"),
            prop("Axes", INT_ARRAY, "0", arg="norm_param.axes -a -pyargname=axis"),
            prop("KeepDims", BOOLEAN, "False", arg="norm_param.keep_dims -pyargname=keepdims"),
            output("*SumOutputSize"),
        ),
        costs={
            "CostAdd": "*Calc +*Input",
            "CostMultiply": "*Calc +*Input:*2",
            "CostExp": "*Calc +*Input:*2",
        },
        function="norm",
    ),
    layer(
        "Log",
        CATEGORY,
        "Natural logarithm.",
        (
            INPUT_IO,
            output(),
        ),
        costs={
            "CostExp": "*Calc +*Input",
        },
        function="log",
        onnx="Log",
    ),
    layer(
        "Exp",
        CATEGORY,
        "Exponential.",
        (
            INPUT_IO,
            output(),
        ),
        costs={
            "CostExp": "*Calc +*Input",
        },
        function="exp",
        onnx="Exp",
    ),
    layer(
        "Sign",
        CATEGORY,
        "sign(x); x = 0 gives `Alpha`. Gradient is passed straight through.",
        (
            INPUT_IO,
            prop("Alpha", FLOAT, "0.0", arg="sign_param.alpha"),
            output(),
        ),
        costs={
            "CostIf": "*Calc +*Input",
        },
        function="sign",
        onnx=OnnxRule("Sign", onnx_activation.write_sign, onnx_activation.read_sign),
    ),
    layer(
        "BatchMatmul",
        CATEGORY,
        "Batched matrix product of the main input (.., M, K) and the side input R (.., K, N).",
        (
            prop("Inputs", PINT_ARRAY, "*GraphInputs", computed=True),
            output("*MatmulOutputSize"),
        ),
        connectors=(data("R"),),
        costs={
            "CostMultiplyAdd": "*MatmulMultiplyAddSize",
        },
        function="batch_matmul",
    ),
    layer(
        "BatchInv",
        CATEGORY,
        "Matrix inverse of each sample.",
        (
            INPUT,
            output(),
        ),
        costs={
            "CostAdd": "Input[1]*(Input[1]-1)*(Input[1]-1)",
            "CostMultiplyAdd": "Input[1]*Input[1]*Input[1]",
        },
        function="batch_inv",
    ),
    layer(
        "BatchDet",
        CATEGORY,
        "Determinant of each sample matrix.",
        (
            INPUT,
            output("*BatchDetOutputSize"),
        ),
        costs={
            "CostAdd": "*Calc +Input[1]:*Input[1]",
            "CostMultiply": "*Calc +Input[1]",
            "CostMultiplyAdd": "*Calc +Input[1]:*Input[1]:*Input[1]",
            "CostDivision": "*Calc +Input[1]:*Input[1]",
        },
        function="batch_det",
        export_name="batch_logdet",
    ),
    layer(
        "BatchLogdet",
        CATEGORY,
        "log |det| of each sample matrix.",
        (
            INPUT,
            output("*BatchDetOutputSize"),
        ),
        costs={
            "CostAdd": "*Calc +Input[1]:*Input[1]",
            "CostMultiply": "*Calc +Input[1]",
            "CostMultiplyAdd": "*Calc +Input[1]:*Input[1]:*Input[1]",
            "CostDivision": "*Calc +Input[1]:*Input[1]",
            "CostExp": "1",
        },
        function="batch_logdet",
        export_name="batch_logdet",
    ),
    layer(
        "Round",
        CATEGORY,
        "Round half away from zero; gradient passed straight through.",
        (
            INPUT_IO,
            output(),
        ),
        function="round",
    ),
    layer(
        "Ceil",
        CATEGORY,
        "Ceiling; gradient passed straight through.",
        (
            INPUT_IO,
            output(),
        ),
        function="ceil",
        onnx="Ceil",
    ),
    layer(
        "Floor",
        CATEGORY,
        "Floor; gradient passed straight through.",
        (
            INPUT_IO,
            output(),
        ),
        function="floor",
        onnx="Floor",
    ),
)

"""Pooling: MaxPooling, AveragePooling, GlobalAveragePooling, SumPooling, Unpooling.

Declarations follow docs/layers.md §4.5
(Sony's ``Pooling/*.txt``).
"""

from __future__ import annotations

from engine.layers.declare import (
    INPUT,
    OnnxRule,
    layer,
    output,
    prop,
)
from engine.layers.onnx_rules import pooling as onnx
from engine.layers.property_types import (
    BOOLEAN,
    PINT_ARRAY,
    UINT_ARRAY,
)

CATEGORY = "Pooling"

SPECS = (
    layer(
        "MaxPooling",
        CATEGORY,
        "Max pooling over the trailing len(KernelShape) axes.",
        (
            INPUT,
            prop(
                "KernelShape",
                PINT_ARRAY,
                "2,2",
                canvas=True,
                search=True,
                short="Shape",
                arg="max_pooling_param.kernel -f",
            ),
            prop("Strides", PINT_ARRAY, "*KernelShape", arg="max_pooling_param.stride -f"),
            prop("IgnoreBorder", BOOLEAN, "True", arg="max_pooling_param.ignore_border"),
            prop("Padding", UINT_ARRAY, "0,0", arg="max_pooling_param.pad"),
            prop("ChannelLast", BOOLEAN, "False", arg="max_pooling_param.channel_last"),
            output("*PoolingOutputSize"),
        ),
        costs={
            "CostIf": "*Calc +*Output:**KernelShape",
        },
        function="max_pooling",
        color=0xA58E7F,
        onnx=OnnxRule("MaxPool", onnx.write_pooling("MaxPool"), onnx.read_pool),
    ),
    layer(
        "AveragePooling",
        CATEGORY,
        (
            "Average pooling over the trailing len(KernelShape) axes. `IncludingPad` decides "
            "whether padded zeros count in the divisor."
        ),
        (
            INPUT,
            prop(
                "KernelShape",
                PINT_ARRAY,
                "2,2",
                canvas=True,
                search=True,
                short="Shape",
                arg="average_pooling_param.kernel -f",
            ),
            prop("Strides", PINT_ARRAY, "*KernelShape", arg="average_pooling_param.stride -f"),
            prop("IgnoreBorder", BOOLEAN, "True", arg="average_pooling_param.ignore_border"),
            prop("Padding", UINT_ARRAY, "0,0", arg="average_pooling_param.pad"),
            prop("ChannelLast", BOOLEAN, "False", arg="average_pooling_param.channel_last"),
            prop("IncludingPad", BOOLEAN, "True", arg="average_pooling_param.including_pad"),
            output("*PoolingOutputSize"),
        ),
        costs={
            "CostAdd": "*Calc +*Input",
            "CostMultiply": "*Calc +*Output",
        },
        function="average_pooling",
        color=0xA58E7F,
        onnx=OnnxRule("AveragePool", onnx.write_pooling("AveragePool"), onnx.read_pool),
    ),
    layer(
        "GlobalAveragePooling",
        CATEGORY,
        "Average over all spatial positions of each channel (output C,1,1).",
        (
            INPUT,
            output("Input[0],1,1"),
        ),
        costs={
            "CostAdd": "*Calc +*Input",
            "CostMultiply": "*Calc +*Output",
        },
        function="global_average_pooling",
        onnx="GlobalAveragePool",
        color=0xA58E7F,
    ),
    layer(
        "SumPooling",
        CATEGORY,
        "Sum pooling over the trailing len(KernelShape) axes.",
        (
            INPUT,
            prop(
                "KernelShape",
                PINT_ARRAY,
                "2,2",
                canvas=True,
                search=True,
                short="Shape",
                arg="sum_pooling_param.kernel -f",
            ),
            prop("Strides", PINT_ARRAY, "*KernelShape", arg="sum_pooling_param.stride -f"),
            prop("IgnoreBorder", BOOLEAN, "True", arg="sum_pooling_param.ignore_border"),
            prop("Padding", UINT_ARRAY, "0,0", arg="sum_pooling_param.pad"),
            output("*PoolingOutputSize"),
        ),
        costs={
            "CostAdd": "*Calc +*Input",
        },
        function="sum_pooling",
        color=0xA58E7F,
        onnx=OnnxRule("AveragePool", onnx.write_sum_pooling, reads=()),
    ),
    layer(
        "Unpooling",
        CATEGORY,
        (
            "Nearest-neighbour upsampling: each element is repeated KernelShape times along the "
            "trailing axes."
        ),
        (
            INPUT,
            prop(
                "KernelShape",
                PINT_ARRAY,
                "2,2",
                canvas=True,
                search=True,
                short="Shape",
                arg="unpooling_param.kernel -f",
            ),
            output("*UnpoolingOutputSize"),
        ),
        function="unpooling",
        color=0xA58E7F,
        onnx=OnnxRule(
            "Resize", onnx.write_unpooling, onnx.read_resize, reads=("Resize", "Upsample")
        ),
    ),
)

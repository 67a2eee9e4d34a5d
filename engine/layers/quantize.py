"""Quantize: FixedPointQuantize, MinMaxQuantize, Pow2Quantize, BinaryConnectAffine,
BinaryConnectConvolution, BinaryWeightAffine, BinaryWeightConvolution, BinaryTanh,
BinarySigmoid.

Declarations follow docs/layers.md §4.8
(Sony's ``Quantize/*.txt``).
"""

from __future__ import annotations

from engine.layers.declare import (
    AFFINE_INIT,
    BIAS_INIT,
    CONV_INIT,
    CONV_INIT_NO_CL,
    INPUT,
    INPUT_IO,
    PARAMETER_SCOPE,
    OnnxRule,
    layer,
    output,
    param,
    param_props,
    prop,
)
from engine.layers.onnx_rules import arithmetic as onnx_arithmetic
from engine.layers.onnx_rules import basic as onnx
from engine.layers.property_types import (
    BOOLEAN,
    FLOAT,
    OPTION,
    PINT,
    PINT_ARRAY,
    UINT,
    UINT_ARRAY,
)

CATEGORY = "Quantize"

BINARY_CONNECT_PAPER = (
    "M. Courbariaux, Y. Bengio, and J.-P. David. BinaryConnect: Training Deep Neural "
    "Networks with binary weights during propagations. https://arxiv.org/abs/1511.00363"
)
XNOR_NET_PAPER = (
    "Rastegari, Mohammad, et al. XNOR-Net: ImageNet Classification Using Binary "
    "Convolutional Neural Networks. https://arxiv.org/abs/1603.05279"
)


def _binary_affine(
    type_: str,
    description: str,
    function: str,
    fn_scope: str,
    paper: str,
    onnx_rule: OnnxRule | None = None,
):
    """BinaryConnectAffine and BinaryWeightAffine: Sony's two files differ only in their names."""
    return layer(
        type_,
        CATEGORY,
        description,
        (
            INPUT,
            prop("OutShape", PINT_ARRAY, "100", search=True, arg="outshape"),
            prop("WithBias", BOOLEAN, "True", arg="with_bias"),
            prop("BaseAxis", UINT, "0", computed=True, arg=f"{function}_param.base_axis -a"),
            PARAMETER_SCOPE,
            *param_props("W", "UniformAffineGlorot", AFFINE_INIT),
            *param_props("Wb", "Constant", AFFINE_INIT, multiplier="0.0", lr="0.0"),
            *param_props("b", "Constant", BIAS_INIT, multiplier="0.0"),
            output("*OutShape"),
        ),
        connectors=(
            param("W", "*AffineWeightShape"),
            param("Wb", "*AffineWeightShape", short="Wb"),
            param("b", "*OutShape", enable="*WithBias"),
        ),
        costs={
            "CostAdd": "*Calc +*Input:**OutShape",
            "CostParameter": "*AffineParameterSizeDiv32",
        },
        function=function,
        fn_scope=fn_scope,
        color=0x6AA1BD,
        reference=paper,
        onnx=onnx_rule,
    )


def _binary_convolution(
    type_: str,
    description: str,
    function: str,
    fn_scope: str,
    paper: str,
    onnx_rule: OnnxRule | None = None,
):
    """BinaryConnectConvolution and BinaryWeightConvolution: the same declaration by name."""
    arg = f"{function}_param"
    return layer(
        type_,
        CATEGORY,
        description,
        (
            INPUT,
            prop("OutMaps", PINT, "16", canvas=True, search=True, short="Maps", arg="outmaps"),
            prop("KernelShape", PINT_ARRAY, "5,5", canvas=True, search=True, arg="kernel"),
            prop("WithBias", BOOLEAN, "True"),
            prop("BorderMode", OPTION, "valid", options=("valid", "full", "same")),
            prop("Padding", UINT_ARRAY, "*ConvolutionPaddingSize", arg=f"{arg}.pad"),
            prop("Strides", PINT_ARRAY, "1,1", arg=f"{arg}.stride"),
            prop("Dilation", PINT_ARRAY, "1,1", arg=f"{arg}.dilation"),
            prop("Group", PINT, "1", computed=True, arg=f"{arg}.group"),
            prop("BaseAxis", UINT, "0", computed=True, arg=f"{arg}.base_axis -a"),
            PARAMETER_SCOPE,
            *param_props("W", "UniformConvolutionGlorot", CONV_INIT),
            *param_props("Wb", "Constant", CONV_INIT_NO_CL, multiplier="0.0", lr="0.0"),
            *param_props("b", "Constant", BIAS_INIT, multiplier="0.0"),
            output("*ConvolutionOutputSize"),
        ),
        connectors=(
            param("W", "*ConvolutionWeightShape"),
            param("Wb", "*ConvolutionWeightShape", short="Wb"),
            param("b", "*OutMaps", enable="*WithBias"),
        ),
        costs={
            "CostParameter": "*ConvolutionParameterSizeDiv32",
            "CostAdd": "*ConvolutionMultiplyAddSize",
        },
        function=function,
        fn_scope=fn_scope,
        color=0x6AA1BD,
        reference=paper,
        onnx=onnx_rule,
    )


SPECS = (
    layer(
        "FixedPointQuantize",
        CATEGORY,
        (
            "Simulated fixed-point quantization (values stay float). See "
            "docs/nnc-behaviour.md §5.1 for the exact forward and backward."
        ),
        (
            INPUT_IO,
            prop("Sign", BOOLEAN, "True", arg="fixed_point_quantize_param.sign"),
            prop("N", PINT, "8", arg="fixed_point_quantize_param.n"),
            prop("Delta", FLOAT, "0.0625", arg="fixed_point_quantize_param.delta"),
            prop(
                "STEFineGrained",
                BOOLEAN,
                "True",
                arg="fixed_point_quantize_param.ste_fine_grained",
            ),
            output(),
        ),
        function="fixed_point_quantize",
    ),
    layer(
        "MinMaxQuantize",
        CATEGORY,
        (
            "Simulated linear (min/max) quantization with learnable or tracked range. See "
            "docs/nnc-behaviour.md §5.3."
        ),
        (
            INPUT_IO,
            prop("Decay", FLOAT, "0.999", arg="min_max_quantize_param.decay"),
            prop("XMinMax", BOOLEAN, "False", arg="min_max_quantize_param.x_min_max"),
            prop("EMA", BOOLEAN, "False", arg="min_max_quantize_param.ema"),
            prop("STEFineGrained", BOOLEAN, "True", arg="min_max_quantize_param.ste_fine_grained"),
            prop("Epsilon", FLOAT, "0.01", arg="min_max_quantize_param.eps"),
            *param_props("r", "Constant", BIAS_INIT, multiplier="-6.0"),
            *param_props("R", "Constant", BIAS_INIT, multiplier="6.0"),
            *param_props("l", "Constant", BIAS_INIT, multiplier="0.0", lr="0.0"),
            *param_props("L", "Constant", BIAS_INIT, multiplier="255.0", lr="0.0"),
            output(),
        ),
        connectors=(
            param("r", "1"),
            param("R", "1"),
            param("l", "1"),
            param("L", "1"),
        ),
        function="min_max_quantize",
        reference=(
            "Benoit Jacob, Skirmantas Kligys, Bo Chen, Menglong Zhu, Matthew Tang, Andrew Howard, "
            "Hartwig Adam, Dmitry Kalenichenko, Quantization and Training of Neural Networks for "
            "Efficient Integer-Arithmetic-Only Inference, https://arxiv.org/abs/1712.05877"
        ),
    ),
    layer(
        "Pow2Quantize",
        CATEGORY,
        "Simulated power-of-two quantization. See docs/nnc-behaviour.md §5.2.",
        (
            INPUT_IO,
            prop("Sign", BOOLEAN, "True", arg="pow2_quantize_param.sign"),
            prop("WithZero", BOOLEAN, "True", arg="pow2_quantize_param.with_zero"),
            prop("N", PINT, "8", arg="pow2_quantize_param.n"),
            prop("M", UINT, "1", arg="pow2_quantize_param.m"),
            prop("STEFineGrained", BOOLEAN, "True", arg="pow2_quantize_param.ste_fine_grained"),
            output(),
        ),
        function="pow2_quantize",
        export_name="pow2_quantize",
        reference=(
            "Miyashita Daisuke, Lee H. Edward, Murmann Boris. Convolutional Neural Networks using "
            "Logarithmic Data Representation. https://arxiv.org/abs/1603.01025 / Aojun Zhou, "
            "Anbang Yao, Yiwen Guo, Lin Xu, Yurong Chen. Incremental Network Quantization: Towards"
            " Lossless CNNs with Low-precision Weights. https://arxiv.org/abs/1702.03044"
        ),
    ),
    _binary_affine(
        "BinaryConnectAffine",
        "Affine with weights binarized to sign(W) in the forward pass (float W kept for training).",
        "binary_connect_affine",
        "bicon_affine",
        BINARY_CONNECT_PAPER,
        OnnxRule("MatMul", onnx.write_affine, reads=()),  # binarized weights
    ),
    _binary_convolution(
        "BinaryConnectConvolution",
        "Convolution with weights binarized to sign(W) in the forward pass.",
        "binary_connect_convolution",
        "bicon_conv",
        BINARY_CONNECT_PAPER,
        OnnxRule("Conv", onnx.write_convolution, reads=()),
    ),
    _binary_affine(
        "BinaryWeightAffine",
        "Affine with weights binarized to alpha sign(W), alpha = mean |W| per output unit.",
        "binary_weight_affine",
        "bwn_affine",
        XNOR_NET_PAPER,
    ),
    _binary_convolution(
        "BinaryWeightConvolution",
        "Convolution with weights binarized to alpha sign(W), alpha = mean |W| per output map.",
        "binary_weight_convolution",
        "bwn_conv",
        XNOR_NET_PAPER,
    ),
    layer(
        "BinaryTanh",
        CATEGORY,
        "+1 if x > 0 else -1, with a straight-through gradient inside |x| < 1.",
        (
            INPUT,
            output(),
        ),
        costs={
            "CostAdd": "*Calc +*Input:*2",
            "CostMultiply": "*Calc +*Input:*2",
            "CostIf": "*Calc +*Input",
        },
        function="binary_tanh",
        color=0xD77B6A,
        onnx=OnnxRule(
            "Where",
            onnx_arithmetic.write_threshold(-1.0),
            onnx_arithmetic.read_threshold,
            reads=("Where", "Greater"),
        ),
    ),
    layer(
        "BinarySigmoid",
        CATEGORY,
        "1 if x > 0 else 0, with a straight-through gradient (x 0.5) inside |x| < 1.",
        (
            INPUT,
            output(),
        ),
        costs={
            "CostAdd": "*Calc +*Input",
            "CostMultiply": "*Calc +*Input",
            "CostIf": "*Calc +*Input",
        },
        function="binary_sigmoid",
        color=0xD77B6A,
        onnx=OnnxRule("Where", onnx_arithmetic.write_threshold(0.0), reads=()),
    ),
)

"""Basic: Affine, Convolution, DepthwiseConvolution, Deconvolution, DepthwiseDeconvolution,
DeformableConvolution, AdaptiveSeparableConvolution, Embed.

Declarations follow docs/layers.md §4.4
(Sony's ``Basic/*.txt``).
"""

from __future__ import annotations

from engine.layers.declare import (
    AFFINE_INIT,
    BIAS_INIT,
    CONV_INIT,
    CONV_INIT_NO_CL,
    INPUT,
    PARAMETER_SCOPE,
    OnnxRule,
    data,
    data_props,
    layer,
    output,
    param,
    param_props,
    prop,
)
from engine.layers.onnx_rules import basic as onnx
from engine.layers.property_types import (
    BOOLEAN,
    OPTION,
    PINT,
    PINT_ARRAY,
    UINT,
    UINT_ARRAY,
)

CATEGORY = "Basic"

SPECS = (
    layer(
        "Affine",
        CATEGORY,
        (
            "Fully connected layer: y = x.reshape(N, -1) @ W + b. `OutShape` may be "
            "multi-dimensional."
        ),
        (
            INPUT,
            prop("OutShape", PINT_ARRAY, "100", search=True, arg="n_outmaps -f"),
            prop("BaseAxis", UINT, "0", computed=True, arg="affine_param.base_axis -a -n"),
            prop("WithBias", BOOLEAN, "True", arg="with_bias -n"),
            PARAMETER_SCOPE,
            *param_props("W", "NormalAffineGlorot", AFFINE_INIT),
            *param_props("b", "Constant", BIAS_INIT, multiplier="0.0"),
            output("*OutShape"),
        ),
        connectors=(
            param("W", "*AffineWeightShape"),
            param("b", "*OutShape", enable="*WithBias"),
        ),
        costs={
            "CostParameter": "*SumParameterSize",
            "CostAdd": "*Calc +*WithBias:**OutShape",
            "CostMultiplyAdd": "*Calc +*Input:**OutShape",
        },
        function="affine",
        fn_scope="affine",
        color=0x6AA1BD,
        onnx=OnnxRule("MatMul", onnx.write_affine, onnx.read_affine, reads=("Gemm", "MatMul")),
    ),
    layer(
        "Convolution",
        CATEGORY,
        "N-D convolution (usually 2-D) with padding, stride, dilation and groups.",
        (
            INPUT,
            prop("OutMaps", PINT, "16", canvas=True, search=True, short="Maps", arg="outmaps"),
            prop("KernelShape", PINT_ARRAY, "3,3", canvas=True, search=True, arg="kernel"),
            prop("BorderMode", OPTION, "same", options=("valid", "full", "same")),
            prop("Padding", UINT_ARRAY, "*ConvolutionPaddingSize", arg="convolution_param.pad"),
            prop("Strides", PINT_ARRAY, "1,1", arg="convolution_param.stride"),
            prop("Dilation", PINT_ARRAY, "1,1", arg="convolution_param.dilation"),
            prop("Group", PINT, "1", arg="convolution_param.group"),
            prop("ChannelLast", BOOLEAN, "False", arg="convolution_param.channel_last"),
            prop("BaseAxis", UINT, "0", computed=True, arg="convolution_param.base_axis -a -n"),
            prop("WithBias", BOOLEAN, "True", arg="with_bias -n"),
            PARAMETER_SCOPE,
            *param_props("W", "NormalConvolutionGlorot", CONV_INIT),
            *param_props("b", "Constant", BIAS_INIT, multiplier="0.0"),
            output("*ConvolutionOutputSize"),
        ),
        connectors=(
            param("W", "*ConvolutionWeightShape"),
            param("b", "*OutMaps", enable="*WithBias"),
        ),
        costs={
            "CostParameter": "*SumParameterSize",
            "CostAdd": "*Calc +*WithBias:**Output",
            "CostMultiplyAdd": "*ConvolutionMultiplyAddSize",
        },
        function="convolution",
        fn_scope="conv",
        color=0x6AA1BD,
        reference=(
            "Chen et al., DeepLab: Semantic Image Segmentation with Deep Convolutional Nets, "
            "Atrous Convolution, and Fully Connected CRFs. https://arxiv.org/abs/1606.00915 / Yu "
            "et al., Multi-Scale Context Aggregation by Dilated Convolutions. "
            "https://arxiv.org/abs/1511.07122"
        ),
        onnx=OnnxRule("Conv", onnx.write_convolution, onnx.read_conv),
    ),
    layer(
        "DepthwiseConvolution",
        CATEGORY,
        (
            "Depthwise convolution: each input channel is convolved with `Multiplier` kernels of "
            "its own (OutMaps = Cin x Multiplier)."
        ),
        (
            INPUT,
            prop("OutMaps", PINT, "Input[0]*Multiplier", computed=True),
            prop("KernelShape", PINT_ARRAY, "5,5", canvas=True, search=True, arg="kernel"),
            prop("BorderMode", OPTION, "valid", options=("valid", "full", "same")),
            prop(
                "Padding",
                UINT_ARRAY,
                "*ConvolutionPaddingSize",
                arg="depthwise_convolution_param.pad",
            ),
            prop("Strides", PINT_ARRAY, "1,1", arg="depthwise_convolution_param.stride"),
            prop("Dilation", PINT_ARRAY, "1,1", arg="depthwise_convolution_param.dilation"),
            prop("Group", PINT, "Input[0]", computed=True, hidden=True),
            prop("Multiplier", PINT, "1", arg="depthwise_convolution_param.multiplier"),
            prop(
                "BaseAxis",
                UINT,
                "0",
                computed=True,
                arg="depthwise_convolution_param.base_axis -a -n",
            ),
            prop("WithBias", BOOLEAN, "True", arg="with_bias -n"),
            PARAMETER_SCOPE,
            *param_props("W", "NormalConvolutionGlorot", CONV_INIT_NO_CL),
            *param_props("b", "Constant", BIAS_INIT, multiplier="0.0"),
            output("*ConvolutionOutputSize"),
        ),
        connectors=(
            param("W", "Input[0]*Multiplier,KernelShape[0],KernelShape[1]"),
            param("b", "*OutMaps", enable="*WithBias"),
        ),
        costs={
            "CostParameter": "*SumParameterSize",
            "CostAdd": "*Calc +*WithBias:**Output",
            "CostMultiplyAdd": "*ConvolutionMultiplyAddSize",
        },
        function="depthwise_convolution",
        fn_scope="depthwise_conv",
        color=0x6AA1BD,
        reference=(
            'F. Chollet: Chollet, Francois. "Xception: Deep Learning with Depthwise Separable '
            "Convolutions. https://arxiv.org/abs/1610.02357"
        ),
        onnx=OnnxRule("Conv", onnx.write_depthwise, reads=()),
    ),
    layer(
        "Deconvolution",
        CATEGORY,
        "Transposed convolution.",
        (
            INPUT,
            prop("OutMaps", PINT, "16", canvas=True, search=True, short="Maps", arg="outmaps -f"),
            prop("KernelShape", PINT_ARRAY, "5,5", canvas=True, search=True, arg="kernel -f"),
            prop("Padding", UINT_ARRAY, "0,0", arg="deconvolution_param.pad"),
            prop("Strides", PINT_ARRAY, "1,1", arg="deconvolution_param.stride"),
            prop("Dilation", PINT_ARRAY, "1,1", arg="deconvolution_param.dilation"),
            prop("Group", PINT, "1", arg="deconvolution_param.group"),
            prop("ChannelLast", BOOLEAN, "False", arg="deconvolution_param.channel_last"),
            prop("BaseAxis", UINT, "0", computed=True, arg="deconvolution_param.base_axis -a -n"),
            prop("WithBias", BOOLEAN, "True", arg="with_bias -n"),
            PARAMETER_SCOPE,
            *param_props("W", "NormalConvolutionHeForward", CONV_INIT_NO_CL),
            *param_props("b", "Constant", BIAS_INIT, multiplier="0.0"),
            output("*DeconvolutionOutputSize"),
        ),
        connectors=(
            param("W", "*ConvolutionWeightShapeDeconvolution"),
            param("b", "*OutMaps", enable="*WithBias"),
        ),
        costs={
            "CostParameter": "*SumParameterSize",
            "CostAdd": "*Calc +*WithBias:**Output",
            "CostMultiplyAdd": "*ConvolutionMultiplyAddSize",
        },
        function="deconvolution",
        fn_scope="deconv",
        color=0x6AA1BD,
        onnx=OnnxRule("ConvTranspose", onnx.write_deconvolution, onnx.read_conv),
    ),
    layer(
        "DepthwiseDeconvolution",
        CATEGORY,
        (
            "Depthwise transposed convolution; `Divisor` input maps are summed into each output "
            "map (OutMaps = Cin / Divisor)."
        ),
        (
            INPUT,
            prop("OutMaps", PINT, "Input[0]/Divisor", computed=True),
            prop("KernelShape", PINT_ARRAY, "5,5", canvas=True, search=True, arg="kernel -f"),
            prop("Padding", UINT_ARRAY, "0,0", arg="depthwise_deconvolution_param.pad"),
            prop("Strides", PINT_ARRAY, "1,1", arg="depthwise_deconvolution_param.stride"),
            prop("Dilation", PINT_ARRAY, "1,1", arg="depthwise_deconvolution_param.dilation"),
            prop("Group", PINT, "Input[0]", computed=True, hidden=True),
            prop("Divisor", PINT, "1", arg="depthwise_deconvolution_param.divisor"),
            prop(
                "BaseAxis",
                UINT,
                "0",
                computed=True,
                arg="depthwise_deconvolution_param.base_axis -a -n",
            ),
            prop("WithBias", BOOLEAN, "True", arg="with_bias -n"),
            PARAMETER_SCOPE,
            *param_props("W", "NormalConvolutionHeForward", CONV_INIT_NO_CL),
            *param_props("b", "Constant", BIAS_INIT, multiplier="0.0"),
            output("*DeconvolutionOutputSize"),
        ),
        connectors=(
            param("W", "Input[0]*Divisor,KernelShape[0],KernelShape[1]"),
            param("b", "*OutMaps", enable="*WithBias"),
        ),
        costs={
            "CostParameter": "*SumParameterSize",
            "CostAdd": "*Calc +*WithBias:**Output",
            "CostMultiplyAdd": "*ConvolutionMultiplyAddSize",
        },
        function="depthwise_deconvolution",
        fn_scope="depthwise_deconv",
        color=0x6AA1BD,
    ),
    layer(
        "DeformableConvolution",
        CATEGORY,
        (
            "Modulated deformable convolution (DCNv2). Offsets and masks come from side inputs "
            "`Offset` and `Mask`."
        ),
        (
            INPUT,
            prop("OutMaps", PINT, "16", canvas=True, search=True, short="Maps", arg="outmaps"),
            prop("KernelShape", PINT_ARRAY, "3,3", canvas=True, search=True, arg="kernel"),
            prop("BorderMode", OPTION, "same", options=("valid", "full", "same")),
            prop(
                "Padding",
                UINT_ARRAY,
                "*ConvolutionPaddingSize",
                arg="deformable_convolution_param.pad",
            ),
            prop("Strides", PINT_ARRAY, "1,1", arg="deformable_convolution_param.stride"),
            prop("Dilation", PINT_ARRAY, "1,1", arg="deformable_convolution_param.dilation"),
            prop("Group", PINT, "1", arg="deformable_convolution_param.group"),
            prop("DeformableGroup", PINT, "1", arg="deformable_convolution_param.deformable_group"),
            prop("ChannelLast", BOOLEAN, "False", arg="deformable_convolution_param.channel_last"),
            prop(
                "BaseAxis",
                UINT,
                "0",
                computed=True,
                arg="deformable_convolution_param.base_axis -a -n",
            ),
            prop("WithBias", BOOLEAN, "True", arg="with_bias -n"),
            PARAMETER_SCOPE,
            *param_props("W", "NormalConvolutionGlorot", CONV_INIT),
            *data_props("Offset", generator="Normal"),
            *data_props("Mask"),
            *param_props("b", "Constant", BIAS_INIT, multiplier="0.0"),
            output("*ConvolutionOutputSize"),
        ),
        connectors=(
            param("W", "*ConvolutionWeightShape"),
            data("Offset", "*DeformableConvOffsetShape"),
            data("Mask", "*DeformableConvMaskShape"),
            param("b", "*OutMaps", enable="*WithBias"),
        ),
        costs={
            "CostParameter": "*SumParameterSize",
            "CostAdd": "*Calc +*WithBias:**Output",
            "CostMultiplyAdd": "*ConvolutionMultiplyAddSize",
        },
        function="deformable_convolution",
        fn_scope="deformable_conv",
        color=0x6AA1BD,
        reference=(
            "Jifeng Dai, Haozhi Qi, Yuwen Xiong, Yi Li, Guodong Zhang, Han Hu, Yichen Wei, "
            "Deformable Convolutional Networks, https://arxiv.org/abs/1703.06211, Xizhou Zhu, Han "
            "Hu, Stephen Lin, Jifeng Dai, Deformable ConvNets v2: More Deformable, Better Results,"
            " https://arxiv.org/abs/1811.11168"
        ),
    ),
    layer(
        "AdaptiveSeparableConvolution",
        CATEGORY,
        (
            "Per-pixel separable filtering with a vertical kernel `V` and a horizontal kernel `H` "
            "given as side inputs (video frame interpolation)."
        ),
        (
            INPUT,
            prop("KernelShape", PINT_ARRAY, "3,3", canvas=True, search=True),
            PARAMETER_SCOPE,
            *data_props("V", generator="Normal"),
            *data_props("H"),
            output("*AdaptiveSeparableConvolutionOutputSize"),
        ),
        connectors=(
            data("V", "*AdaptiveSeparableConvVKernelShape"),
            data("H", "*AdaptiveSeparableConvHKernelShape"),
        ),
        costs={
            "CostMultiplyAdd": "*AdaptiveSeparableConvolutionMultiplyAddSize",
        },
        function="adaptive_separable_convolution",
        fn_scope="adaptive_separable_conv",
        color=0x6AA1BD,
        reference=(
            "Simon Niklaus, Long Mai, Feng Liu, Video Frame Interpolation via Adaptive Separable "
            "Convolution, https://arxiv.org/abs/1708.01692, Mart Kartašev, Carlo Rapisarda, "
            "Dominik Fay, Implementing Adaptive Separable Convolution for Video Frame "
            "Interpolation, https://arxiv.org/abs/1809.07759"
        ),
    ),
    layer(
        "Embed",
        CATEGORY,
        (
            "Lookup table: integer indices in [0, NumClass) are replaced by rows of W with shape "
            "`Shape`."
        ),
        (
            INPUT,
            prop("NumClass", PINT, "100", canvas=True),
            prop("Shape", PINT_ARRAY, "32", canvas=True, search=True),
            PARAMETER_SCOPE,
            *param_props("W", "Uniform", BIAS_INIT),
            output("*EmbeddingOutputSize"),
        ),
        connectors=(param("W", "*EmbeddingWeightSize"),),
        costs={
            "CostParameter": "*SumParameterSize",
        },
        function="embed",
        fn_scope="embed",
        color=0x6AA1BD,
    ),
)

"""Normalization: BatchNormalization, FusedBatchNormalization, NormNormalization,
WeightStandardization, WeightNormalization, SpectralNorm, LayerNormalization,
InstanceNormalization, GroupNormalization.

Declarations follow docs/layers.md §4.18
(Sony's ``Normalization/*.txt``).
"""

from __future__ import annotations

from engine.layers.declare import (
    BIAS_INIT,
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
from engine.layers.onnx_rules import normalization as onnx_norm
from engine.layers.onnx_rules import others as onnx
from engine.layers.property_types import (
    BOOLEAN_OR_MACRO,
    FLOAT,
    INT,
    INT_ARRAY,
    OPTION,
    PINT,
    UINT,
    UINT_ARRAY,
)

CATEGORY = "Normalization"

SPECS = (
    layer(
        "BatchNormalization",
        CATEGORY,
        (
            "Batch normalization over the batch and all axes except `Axes`; running mean/var "
            "updated with `DecayRate` when BatchStat is true."
        ),
        (
            INPUT,
            prop("Axes", UINT_ARRAY, "0", arg="batch_normalization_param.axes -a"),
            prop("DecayRate", FLOAT, "0.9", arg="batch_normalization_param.decay_rate"),
            prop("Epsilon", FLOAT, "0.0001", arg="batch_normalization_param.eps"),
            prop(
                "BatchStat",
                BOOLEAN_OR_MACRO,
                "True",
                arg="batch_normalization_param.batch_stat -test=False",
            ),
            PARAMETER_SCOPE,
            *param_props("beta", "Constant", BIAS_INIT, multiplier="0.0"),
            *param_props("gamma", "Constant", BIAS_INIT),
            *param_props("mean", "Constant", BIAS_INIT, multiplier="0.0", lr="0.0"),
            *param_props("var", "Constant", BIAS_INIT, multiplier="0.0", lr="0.0"),
            output(),
        ),
        connectors=(
            param("beta", "*BatchNormalizationShape"),
            param("gamma", "*BatchNormalizationShape"),
            param("mean", "*BatchNormalizationShape"),
            param("var", "*BatchNormalizationShape"),
        ),
        costs={
            "CostParameter": "*SumParameterSize",
            "CostAdd": "*Calc +*Input",
            "CostMultiply": "*Calc +*Input",
        },
        function="batch_normalization",
        fn_scope="bn",
        reference=(
            "Ioffe and Szegedy, Batch Normalization: Accelerating Deep Network Training by "
            "Reducing Internal Covariate Shift. https://arxiv.org/abs/1502.03167"
        ),
        onnx=OnnxRule("BatchNormalization", onnx.write_batch_norm, onnx.read_batch_norm),
    ),
    layer(
        "FusedBatchNormalization",
        CATEGORY,
        (
            "BatchNormalization fused with a following non-linearity (`Nonlinearity`, ReLU) and an"
            " optional residual add (nnabla)."
        ),
        (
            INPUT,
            prop("Axes", UINT_ARRAY, "0", arg="fused_batch_normalization_param.axes -a -n"),
            prop("DecayRate", FLOAT, "0.9", arg="fused_batch_normalization_param.decay_rate -n"),
            prop("Epsilon", FLOAT, "0.0001", arg="fused_batch_normalization_param.eps -n"),
            prop(
                "BatchStat",
                BOOLEAN_OR_MACRO,
                "True",
                arg="fused_batch_normalization_param.batch_stat -n -test=False",
            ),
            prop(
                "Nonlinearity",
                OPTION,
                "relu",
                arg="fused_batch_normalization_param.nonlinearity -n",
            ),
            PARAMETER_SCOPE,
            *param_props("beta", "Constant", BIAS_INIT, multiplier="0.0"),
            *param_props("gamma", "Constant", BIAS_INIT),
            *param_props("mean", "Constant", BIAS_INIT, multiplier="0.0", lr="0.0"),
            *param_props("var", "Constant", BIAS_INIT, multiplier="0.0", lr="0.0"),
            output(),
        ),
        connectors=(
            param("beta", "*BatchNormalizationShape"),
            param("gamma", "*BatchNormalizationShape"),
            param("mean", "*BatchNormalizationShape"),
            param("var", "*BatchNormalizationShape"),
        ),
        costs={
            "CostParameter": "*SumParameterSize",
            "CostAdd": "*Calc +*Input",
            "CostMultiply": "*Calc +*Input",
        },
        function="fused_batch_normalization",
        fn_scope="bn",
        reference=(
            "Ioffe and Szegedy, Batch Normalization: Accelerating Deep Network Training by "
            "Reducing Internal Covariate Shift. https://arxiv.org/abs/1502.03167"
        ),
    ),
    layer(
        "NormNormalization",
        CATEGORY,
        "x / (||x||_P + Epsilon) over `Axes`.",
        (
            INPUT,
            prop("P", FLOAT, "2", arg="norm_normalization_param.p"),
            prop("Axes", INT_ARRAY, "-1,0,1,2", arg="norm_normalization_param.axes -a"),
            prop("Epsilon", FLOAT, "1e-12", arg="norm_normalization_param.eps"),
            output(),
        ),
        costs={
            "CostAdd": "*Calc +*Input",
            "CostMultiply": "*Calc +*Input:*3",
            "CostExp": "*Calc +*Input:*2",
        },
        function="norm_normalization",
    ),
    layer(
        "WeightStandardization",
        CATEGORY,
        (
            "Standardizes a weight tensor over all axes except `ChannelAxis` (meant to sit between"
            " a Parameter and a weight connector)."
        ),
        (
            INPUT_IO,
            prop("ChannelAxis", UINT, "0", arg="weight_standardization_param.channel_axis -a"),
            prop("Epsilon", FLOAT, "1e-5", arg="weight_standardization_param.eps"),
            output(),
        ),
        function="weight_standardization",
        reference=(
            "Siyuan Qiao, Huiyu Wang, Chenxi Liu, Wei Shen, Alan Yuille, Weight Standardization "
            "https://arxiv.org/pdf/1903.10520v1.pdf"
        ),
    ),
    layer(
        "WeightNormalization",
        CATEGORY,
        "w = g v / ||v|| along `Dim` (meant to sit on a weight path).",
        (
            INPUT_IO,
            prop("Dim", UINT, "0", arg="weight_normalization_param.dim -a"),
            prop("Epsilon", FLOAT, "1e-12", arg="weight_normalization_param.eps"),
            PARAMETER_SCOPE,
            *param_props("g", "Constant", BIAS_INIT),
            output(),
        ),
        connectors=(param("g", "Input[Dim]"),),
        function="weight_normalization",
        fn_scope="wn",
        reference=(
            "Tim Salimans, Diederik P. Kingma, Weight Normalization: A Simple Reparameterization "
            "to Accelerate Training of Deep Neural Networks, https://arxiv.org/abs/1602.07868"
        ),
    ),
    layer(
        "SpectralNorm",
        CATEGORY,
        (
            "Divides a weight by its largest singular value estimated by power iteration (vector "
            "`u` kept as a parameter)."
        ),
        (
            INPUT_IO,
            prop("Dim", UINT, "0", arg="spectral_norm_param.dim -a"),
            prop("Itr", PINT, "1", arg="spectral_norm_param.itr -a"),
            prop("Epsilon", FLOAT, "1e-12", arg="spectral_norm_param.eps"),
            prop("Test", BOOLEAN_OR_MACRO, "False", arg="spectral_norm_param.test -test=True"),
            PARAMETER_SCOPE,
            *param_props("u", "Constant", BIAS_INIT),
            output(),
        ),
        connectors=(param("u", "Input[Dim]"),),
        function="spectral_norm",
        fn_scope="sn",
        reference=(
            'Takeru Miyato, Toshiki Kataoka, Masanori Koyama, Yuichi Yoshida, "Spectral '
            'Normalization for Generative Adversarial Networks", International Conference on '
            "Learning Representations. 2018."
        ),
    ),
    layer(
        "LayerNormalization",
        CATEGORY,
        (
            "Normalizes each sample over all non-batch axes; learned beta/gamma have the full "
            "sample shape."
        ),
        (
            INPUT,
            prop("BatchAxis", INT, "-1", arg="layer_normalization_param.batch_axis -a"),
            prop("Epsilon", FLOAT, "1e-5", arg="layer_normalization_param.eps"),
            PARAMETER_SCOPE,
            *param_props("beta", "Constant", BIAS_INIT, multiplier="0.0"),
            *param_props("gamma", "Constant", BIAS_INIT),
            output(),
        ),
        connectors=(
            param("beta", "*LayerNormalizationShape"),
            param("gamma", "*LayerNormalizationShape"),
        ),
        costs={
            "CostParameter": "*SumParameterSize",
            "CostAdd": "*Calc +*Input:*4",
            "CostMultiply": "*Calc +*Input:*3",
        },
        function="layer_normalization",
        fn_scope="layer_normalization",
        onnx=OnnxRule("LayerNormalization", onnx_norm.write_layer_norm, onnx_norm.read_layer_norm),
        reference=(
            "Jimmy Lei Ba, Jamie Ryan Kiros, Geoffrey E. Hinton, Layer Normalization. "
            "https://arxiv.org/abs/1607.06450"
        ),
    ),
    layer(
        "InstanceNormalization",
        CATEGORY,
        "Normalizes each channel of each sample over the spatial axes.",
        (
            INPUT,
            prop("ChannelAxis", UINT, "0", arg="instance_normalization_param.channel_axis -a"),
            prop("BatchAxis", INT, "-1", arg="instance_normalization_param.batch_axis -a"),
            prop("Epsilon", FLOAT, "1e-5", arg="instance_normalization_param.eps"),
            PARAMETER_SCOPE,
            *param_props("beta", "Constant", BIAS_INIT, multiplier="0.0"),
            *param_props("gamma", "Constant", BIAS_INIT),
            output(),
        ),
        connectors=(
            param("beta", "*BatchNormalizationShape"),
            param("gamma", "*BatchNormalizationShape"),
        ),
        costs={
            "CostParameter": "*SumParameterSize",
            "CostAdd": "*Calc +*Input:*4",
            "CostMultiply": "*Calc +*Input:*3",
        },
        function="instance_normalization",
        fn_scope="instance_normalization",
        onnx=OnnxRule(
            "InstanceNormalization", onnx_norm.write_instance_norm, onnx_norm.read_instance_norm
        ),
        reference=(
            "Dmitry Ulyanov, Andrea Vedaldi, Victor Lempitsky, Instance Normalization: The Missing"
            " Ingredient for Fast Stylization https://arxiv.org/abs/1607.08022"
        ),
    ),
    layer(
        "GroupNormalization",
        CATEGORY,
        "Normalizes groups of `NumGroups` channels of each sample.",
        (
            INPUT,
            prop("ChannelAxis", UINT, "0", arg="group_normalization_param.channel_axis -a"),
            prop("BatchAxis", INT, "-1", arg="group_normalization_param.batch_axis -a"),
            prop("NumGroups", PINT, "4", arg="group_normalization_param.num_groups"),
            prop("Epsilon", FLOAT, "1e-5", arg="group_normalization_param.eps"),
            PARAMETER_SCOPE,
            *param_props("beta", "Constant", BIAS_INIT, multiplier="0.0"),
            *param_props("gamma", "Constant", BIAS_INIT),
            output(),
        ),
        connectors=(
            param("beta", "*BatchNormalizationShape"),
            param("gamma", "*BatchNormalizationShape"),
        ),
        costs={
            "CostParameter": "*SumParameterSize",
            "CostAdd": "*Calc +*Input:*4",
            "CostMultiply": "*Calc +*Input:*3",
        },
        function="group_normalization",
        fn_scope="group_normalization",
        reference="Yuxin Wu, Kaiming He, Group Normalization. https://arxiv.org/abs/1803.08494",
    ),
)

"""Activation: Tanh, HardTanh, TanhShrink, Sigmoid, HardSigmoid, LogSigmoid, Abs, ReLU, CReLU,
LeakyReLU, PReLU, ReLU6, ELU, CELU, SELU, GELU, SoftPlus, SoftSign, Sinc, Swish, Mish, Softmax,
LogSoftmax.

Declarations follow docs/layers.md §4.6
(Sony's ``Activation/*.txt``).
"""

from __future__ import annotations

from engine.layers.declare import (
    BIAS_INIT,
    INPUT,
    PARAMETER_SCOPE,
    OnnxRule,
    layer,
    output,
    param,
    param_props,
    prop,
)
from engine.layers.onnx_rules import activation as onnx_activation
from engine.layers.onnx_rules import arithmetic as onnx
from engine.layers.onnx_rules import others as onnx_others
from engine.layers.property_types import (
    BOOLEAN,
    BOOLEAN_OR_MACRO,
    FLOAT,
    INT,
    UINT,
)

CATEGORY = "Activation"

SPECS = (
    layer(
        "Tanh",
        CATEGORY,
        "tanh(x).",
        (
            INPUT,
            output(),
        ),
        costs={
            "CostAdd": "*Calc +*Input:+*Input",
            "CostDivision": "*Calc +*Input",
            "CostExp": "*Calc +*Input",
        },
        function="tanh",
        onnx="Tanh",
        color=0xD77B6A,
    ),
    layer(
        "HardTanh",
        CATEGORY,
        "clip(x, -1, 1).",
        (
            INPUT,
            output(),
        ),
        costs={
            "CostIf": "*Calc +*Input:*2",
        },
        function="hard_tanh",
        color=0xD77B6A,
    ),
    layer(
        "TanhShrink",
        CATEGORY,
        "x - tanh(x).",
        (
            INPUT,
            output(),
        ),
        costs={
            "CostAdd": "*Calc +*Input:*3",
            "CostDivision": "*Calc +*Input",
            "CostExp": "*Calc +*Input",
        },
        function="tanh_shrink",
        color=0xD77B6A,
    ),
    layer(
        "Sigmoid",
        CATEGORY,
        "1 / (1 + exp(-x)).",
        (
            INPUT,
            output(),
        ),
        costs={
            "CostAdd": "*Calc +*Input",
            "CostDivision": "*Calc +*Input",
            "CostExp": "*Calc +*Input",
        },
        function="sigmoid",
        onnx="Sigmoid",
        color=0xD77B6A,
    ),
    layer(
        "HardSigmoid",
        CATEGORY,
        "clip(0.2 x + 0.5, 0, 1) (nnabla definition).",
        (
            INPUT,
            output(),
        ),
        costs={
            "CostAdd": "*Calc +*Input",
            "CostMultiply": "*Calc +*Input",
            "CostIf": "*Calc +*Input:*2",
        },
        function="hard_sigmoid",
        color=0xD77B6A,
        onnx=OnnxRule(
            "HardSigmoid",
            read=onnx_activation.read_hard_sigmoid,
            reads=("HardSigmoid", "HardSwish"),
        ),
    ),
    layer(
        "LogSigmoid",
        CATEGORY,
        "ln(sigmoid(x)).",
        (
            INPUT,
            output(),
        ),
        costs={
            "CostAdd": "*Calc +*Input",
            "CostDivision": "*Calc +*Input",
            "CostExp": "*Calc +*Input:*2",
        },
        function="log_sigmoid",
        color=0xD77B6A,
    ),
    layer(
        "Abs",
        CATEGORY,
        "|x|.",
        (
            INPUT,
            output(),
        ),
        costs={
            "CostIf": "*Calc +*Input",
        },
        function="abs",
        onnx="Abs",
        color=0xD77B6A,
    ),
    layer(
        "ReLU",
        CATEGORY,
        "max(0, x).",
        (
            INPUT,
            prop("InPlace", BOOLEAN_OR_MACRO, "*AutoInPlaceOnce", arg="relu_param.inplace"),
            output(),
        ),
        costs={
            "CostIf": "*Calc +*Input",
        },
        function="relu",
        onnx=OnnxRule("Relu", read=onnx_activation.read_relu, reads=("Relu", "ThresholdedRelu")),
        export_name="relu",
        color=0xD77B6A,
        reference=(
            "Vinod Nair, Geoffrey E. Hinton. Rectified Linear Units Improve Restricted Boltzmann "
            "Machines. "
            "http://citeseerx.ist.psu.edu/viewdoc/download?doi=10.1.1.165.6419&rep=rep1&type=pdf"
        ),
    ),
    layer(
        "CReLU",
        CATEGORY,
        "Concatenated ReLU: concat(ReLU(x), ReLU(-x)) along `Axis` (channel count doubles).",
        (
            INPUT,
            prop("Axis", UINT, "0", arg="crelu_param.axis -a"),
            output("*ConcatenateActivationOutputSize"),
        ),
        costs={
            "CostIf": "*Calc +*Output",
        },
        function="crelu",
        export_name="crelu",
        color=0xD77B6A,
        reference=(
            "Wenling Shang, Kihyuk Sohn, Diogo Almeida, Honglak Lee. Understanding and Improving "
            "Convolutional Neural Networks via Concatenated Rectified Linear Units. "
            "https://arxiv.org/abs/1603.05201"
        ),
    ),
    layer(
        "LeakyReLU",
        CATEGORY,
        "x if x > 0 else Alpha x.",
        (
            INPUT,
            prop("Alpha", FLOAT, "0.1", canvas=True, arg="leaky_relu_param.alpha"),
            prop("InPlace", BOOLEAN_OR_MACRO, "*AutoInPlaceOnce", arg="leaky_relu_param.inplace"),
            output(),
        ),
        costs={
            "CostIf": "*Calc +*Input",
            "CostMultiply": "*Calc +*Input",
        },
        function="leaky_relu",
        onnx="LeakyRelu",
        export_name="leaky_relu",
        color=0xD77B6A,
        reference=(
            "Andrew L. Maas, Awni Y. Hannun, Andrew Y. Ng. Rectifier Nonlinearities Improve Neural"
            " Network Acoustic Models. "
            "https://ai.stanford.edu/~amaas/papers/relu_hybrid_icml2013_final.pdf"
        ),
    ),
    layer(
        "PReLU",
        CATEGORY,
        "x if x > 0 else slope x, with a learned slope per channel (BaseAxis).",
        (
            INPUT,
            prop("BaseAxis", INT, "0", arg="prelu_param.base_axis -a -f"),
            prop("Shared", BOOLEAN, "False", computed=True, arg="shared -f"),
            PARAMETER_SCOPE,
            *param_props("slope", "Constant", BIAS_INIT, multiplier="0.25"),
            output(),
        ),
        connectors=(param("slope", "*PReluParameterSize"),),
        costs={
            "CostParameter": "*SumParameterSize",
            "CostIf": "*Calc +*Input",
            "CostMultiplyAdd": "*Calc +*Input",
        },
        function="prelu",
        fn_scope="prelu",
        export_name="prelu",
        color=0xD77B6A,
        reference=(
            "Kaiming He, Xiangyu Zhang, Shaoqing Ren, Jian Sun. Delving Deep into Rectifiers: "
            "Surpassing Human-Level Performance on ImageNet Classification. "
            "https://arxiv.org/abs/1502.01852"
        ),
        onnx=OnnxRule("PRelu", onnx_activation.write_prelu, onnx_activation.read_prelu),
    ),
    layer(
        "ReLU6",
        CATEGORY,
        "min(max(0, x), 6).",
        (
            INPUT,
            output(),
        ),
        costs={
            "CostIf": "*Calc +*Input:*2",
        },
        function="relu6",
        export_name="relu6",
        color=0xD77B6A,
        onnx=OnnxRule("Clip", onnx.write_relu6, onnx.read_clip),
    ),
    layer(
        "ELU",
        CATEGORY,
        "x if x >= 0 else Alpha (exp(x) - 1).",
        (
            INPUT,
            prop("Alpha", FLOAT, "1.0", canvas=True, arg="elu_param.alpha"),
            output(),
        ),
        costs={
            "CostIf": "*Calc +*Input",
            "CostAdd": "*Calc +*Input",
            "CostMultiply": "*Calc +*Input",
            "CostExp": "*Calc +*Input",
        },
        function="elu",
        onnx=OnnxRule("Elu", read=onnx_activation.read_elu, reads=("Elu", "Celu")),
        export_name="elu",
        color=0xD77B6A,
        reference=(
            "Clevart et al., Fast and Accurate Deep Network Learning by Exponential Linear Units "
            "(ELUs). http://arxiv.org/abs/1511.07289"
        ),
    ),
    layer(
        "CELU",
        CATEGORY,
        "Concatenated ELU: concat(ELU(x), ELU(-x)) along `Axis`.",
        (
            INPUT,
            prop("Alpha", FLOAT, "1.0", canvas=True, arg="celu_param.alpha"),
            prop("Axis", UINT, "0", arg="celu_param.axis -a"),
            output("*ConcatenateActivationOutputSize"),
        ),
        costs={
            "CostIf": "*Calc +*Output",
            "CostAdd": "*Calc +*Output",
            "CostMultiply": "*Calc +*Output",
            "CostExp": "*Calc +*Output",
        },
        function="celu",
        color=0xD77B6A,
    ),
    layer(
        "SELU",
        CATEGORY,
        "Scale x if x >= 0 else Scale Alpha (exp(x) - 1).",
        (
            INPUT,
            prop("Scale", FLOAT, "1.05070098735548", arg="selu_param.scale"),
            prop("Alpha", FLOAT, "1.673263242354377", canvas=True, arg="selu_param.alpha"),
            output(),
        ),
        costs={
            "CostIf": "*Calc +*Input",
            "CostAdd": "*Calc +*Input",
            "CostMultiply": "*Calc +*Input:+*Input",
            "CostExp": "*Calc +*Input",
        },
        function="selu",
        export_name="selu",
        onnx=OnnxRule("Selu", onnx.write_selu, onnx.read_selu),
        color=0xD77B6A,
        reference=(
            "Element-wise Scaled Exponential Linear Unit (SELU) function by Klambauer et al. "
            "(2017)."
        ),
    ),
    layer(
        "GELU",
        CATEGORY,
        "Gaussian error linear unit (tanh approximation in nnabla).",
        (
            INPUT,
            output(),
        ),
        costs={
            "CostAdd": "*Calc +*Input:*2",
            "CostMultiply": "*Calc +*Input:*6",
            "CostExp": "*Calc +*Input:*2",
        },
        function="gelu",
        export_name="gelu",
        color=0xD77B6A,
        reference=(
            "Dan Hendrycks, Kevin Gimpel, Gaussian Error Linear Units (GELUs). "
            "https://arxiv.org/abs/1606.08415"
        ),
        # written in opset 13 operators (Tanh ...); Gelu and Erf read back
        onnx=OnnxRule(
            "Tanh", onnx_activation.write_gelu, onnx_activation.read_gelu, reads=("Gelu", "Erf")
        ),
    ),
    layer(
        "SoftPlus",
        CATEGORY,
        "ln(1 + exp(x)) (nnabla has a `beta` argument fixed to 1 here).",
        (
            INPUT,
            output(),
        ),
        costs={
            "CostAdd": "*Calc +*Input",
            "CostExp": "*Calc +*Input:*2",
        },
        function="softplus",
        onnx="Softplus",
        export_name="softplus",
        color=0xD77B6A,
    ),
    layer(
        "SoftSign",
        CATEGORY,
        "x / (1 + |x|).",
        (
            INPUT,
            output(),
        ),
        costs={
            "CostAdd": "*Calc +*Input",
            "CostDivision": "*Calc +*Input",
            "CostIf": "*Calc +*Input",
        },
        function="softsign",
        onnx="Softsign",
        export_name="softsign",
        color=0xD77B6A,
    ),
    layer(
        "Sinc",
        CATEGORY,
        "sin(x) / x, with 1 at x = 0.",
        (
            INPUT,
            output(),
        ),
        costs={
            "CostDivision": "*Calc +*Input",
            "CostIf": "*Calc +*Input",
        },
        function="sinc",
        color=0xD77B6A,
    ),
    layer(
        "Swish",
        CATEGORY,
        "x sigmoid(x).",
        (
            INPUT,
            output(),
        ),
        costs={
            "CostAdd": "*Calc +*Input",
            "CostMultiply": "*Calc +*Input",
            "CostDivision": "*Calc +*Input",
            "CostExp": "*Calc +*Input",
        },
        function="swish",
        color=0xD77B6A,
        reference=(
            "Prajit Ramachandran, Barret Zoph, and Quoc V. Le, SEARCHING FOR ACTIVATION FUNCTIONS."
            " https://arxiv.org/abs/1710.05941"
        ),
    ),
    layer(
        "Mish",
        CATEGORY,
        "x tanh(softplus(x)).",
        (
            INPUT,
            output(),
        ),
        costs={
            "CostAdd": "*Calc +*Input:*2",
            "CostMultiply": "*Calc +*Input",
            "CostDivision": "*Calc +*Input",
            "CostExp": "*Calc +*Input:*3",
        },
        function="mish",
        # written in opset 13 operators (Softplus, Tanh, Mul); ONNX's Mish read back
        onnx=OnnxRule("Softplus", onnx_activation.write_mish, reads=("Mish",)),
        color=0xD77B6A,
        reference=(
            "Diganta Misra, Mish: A Self Regularized Non-Monotonic Activation Function "
            "https://arxiv.org/abs/1908.08681"
        ),
    ),
    layer(
        "Softmax",
        CATEGORY,
        "exp(x) / sum(exp(x)) along `Axis`.",
        (
            INPUT,
            prop("Axis", UINT, "0", arg="softmax_param.axis -a"),
            output(),
        ),
        costs={
            "CostAdd": "*Calc +*Input",
            "CostExp": "*Calc +*Input",
            "CostDivision": "*Calc +*Input",
        },
        function="softmax",
        color=0xD77B6A,
        onnx=OnnxRule("Softmax", onnx_others.write_softmax, onnx_others.read_softmax),
    ),
    layer(
        "LogSoftmax",
        CATEGORY,
        "x - ln(sum(exp(x))) along `Axis`.",
        (
            INPUT,
            prop("Axis", UINT, "0", arg="log_softmax_param.axis -a"),
            output(),
        ),
        costs={
            "CostAdd": "*Calc +*Input",
            "CostExp": "*Calc +*Input:*2",
        },
        function="log_softmax",
        color=0xD77B6A,
        onnx=OnnxRule("LogSoftmax", onnx_others.write_softmax, onnx_others.read_softmax),
    ),
)

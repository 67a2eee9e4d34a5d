"""Shape and cost rules of the closed-utility macros against hand-computed values."""

import pytest

from engine.layers import all_specs, get_spec
from engine.layers.evaluate import LayerEval, RuleError, StaticContext


def layer(type_, *inputs, side=None, **props):
    context = StaticContext(inputs=tuple(inputs), side_inputs=side or {})
    return LayerEval(get_spec(type_), type_, props, context)


def out(type_, *inputs, **props):
    return layer(type_, *inputs, **props).output_shape()


# -- convolution -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("x", "props", "expected"),
    [
        ((3, 32, 32), {}, (16, 32, 32)),  # defaults: 3x3 same -> pad 1
        ((3, 28, 28), {"KernelShape": "5,5", "BorderMode": "valid"}, (16, 24, 24)),
        ((3, 7, 7), {"BorderMode": "valid", "Strides": "2,2"}, (16, 3, 3)),  # (7-3)//2+1
        ((3, 7, 7), {"Strides": "2,2"}, (16, 4, 4)),  # same: (7+2-3)//2+1
        ((1, 10, 10), {"KernelShape": "4,4"}, (16, 9, 9)),  # even kernel same: pad 1, -1
        ((1, 10, 10), {"KernelShape": "4,4", "Dilation": "2,2"}, (16, 10, 10)),  # pad 3
        ((1, 10, 10), {"Dilation": "2,2"}, (16, 10, 10)),  # pad 2
        ((1, 10, 10), {"BorderMode": "full"}, (16, 12, 12)),  # pad 2
        ((1, 10, 10), {"BorderMode": "full", "KernelShape": "4,2"}, (16, 13, 11)),
        ((1, 10, 10), {"Padding": "0,0"}, (16, 8, 8)),  # an explicit Padding wins
        ((1, 9, 11), {"KernelShape": "3,5", "Strides": "2,3", "Padding": "1,0"}, (16, 5, 3)),
        (
            (2, 5, 6, 7),
            {"KernelShape": "3,3,3", "Strides": "1,1,1", "Dilation": "1,1,1"},
            (16, 5, 6, 7),
        ),  # fmt: skip
        (
            (2, 20),
            {"KernelShape": "5", "Strides": "2", "Dilation": "1", "BorderMode": "valid"},
            (16, 8),
        ),  # fmt: skip
        ((8, 8, 3), {"ChannelLast": "True"}, (8, 8, 16)),
        ((4, 6, 6), {"OutMaps": "6", "Group": "2", "BorderMode": "valid"}, (6, 4, 4)),
    ],
)
def test_convolution_output(x, props, expected):
    assert out("Convolution", x, **props) == expected


def test_convolution_padding_values():
    assert layer("Convolution", (1, 10, 10), KernelShape="4,4").value("Padding") == (1, 1)
    conv = layer("Convolution", (1, 10, 10), KernelShape="4,4", Dilation="2,2")
    assert conv.value("Padding") == (3, 3)
    assert layer("Convolution", (1, 10, 10), BorderMode="valid").value("Padding") == (0, 0)
    assert layer("Convolution", (1, 10, 10), BorderMode="full").value("Padding") == (2, 2)


def test_convolution_weights_groups_and_costs():
    conv = layer("Convolution", (4, 6, 6), OutMaps="6", Group="2", BorderMode="valid")
    assert conv.connector_shape("W") == (6, 2, 3, 3)
    assert conv.connector_shape("b") == (6,)
    assert conv.cost("CostParameter") == 6 * 2 * 9 + 6
    assert conv.cost("CostMultiplyAdd") == 6 * 4 * 4 * 2 * 9
    assert conv.cost("CostAdd") == 96
    nobias = layer("Convolution", (4, 6, 6), WithBias="False")
    assert nobias.cost("CostParameter") == 16 * 4 * 9 and nobias.cost("CostAdd") == 0
    last = layer("Convolution", (8, 8, 3), ChannelLast="True")
    assert last.connector_shape("W") == (16, 3, 3, 3)


@pytest.mark.parametrize(
    ("props", "message"),
    [
        ({"Group": "3"}, "Group=3 does not divide the 4 input channels"),
        ({"Strides": "1"}, "Strides needs 2 entries"),
        ({"KernelShape": "9,9", "BorderMode": "valid"}, "the output would be empty"),
        ({"KernelShape": "3,x"}, "property KernelShape: unknown name x. Received: KernelShape=3,x"),
        (
            {"KernelShape": "3,0"},
            "property KernelShape: expected a comma-separated list of positive",
        ),
    ],
)
def test_convolution_errors_name_the_property(props, message):
    conv = layer("Convolution", (4, 6, 6), **props)
    with pytest.raises(RuleError, match=message):
        conv.output_shape()
        conv.connector_shape("W")


def test_deconvolution():
    assert out("Deconvolution", (4, 5, 5)) == (16, 9, 9)  # (5-1) + 4 + 1
    assert out("Deconvolution", (4, 5, 5), KernelShape="4,4", Strides="2,2", Padding="1,1") == (
        16, 10, 10,
    )  # fmt: skip
    assert out("Deconvolution", (4, 5, 5), KernelShape="3,3", Dilation="2,2") == (16, 9, 9)
    assert out("Deconvolution", (4, 5, 7), KernelShape="2,3", Strides="3,2") == (16, 14, 15)
    deconv = layer("Deconvolution", (4, 5, 5), Group="2")
    assert deconv.connector_shape("W") == (4, 8, 5, 5)
    # Multiply-adds are counted on the output size: M x Cin/Group x prod(kernel).
    assert deconv.cost("CostMultiplyAdd") == 16 * 9 * 9 * 2 * 25


def test_depthwise_layers():
    dw = layer("DepthwiseConvolution", (3, 12, 12), Multiplier="2")
    assert dw.output_shape() == (6, 8, 8)
    assert dw.connector_shape("W") == (6, 5, 5)
    assert dw.cost("CostMultiplyAdd") == 6 * 8 * 8 * 25
    assert dw.cost("CostParameter") == 6 * 25 + 6
    dd = layer("DepthwiseDeconvolution", (4, 8, 8), Divisor="2")
    assert dd.output_shape() == (2, 12, 12)
    assert dd.cost("CostMultiplyAdd") == 2 * 12 * 12 * 25


def test_deformable_and_adaptive_separable():
    dc = layer("DeformableConvolution", (3, 8, 8))
    assert dc.output_shape() == (16, 8, 8)
    assert dc.connector_shape("Offset") == (18, 8, 8)
    assert dc.connector_shape("Mask") == (9, 8, 8)
    asc = layer("AdaptiveSeparableConvolution", (3, 8, 8), KernelShape="3,5")
    assert asc.output_shape() == (3, 6, 4)
    assert asc.connector_shape("V") == (3, 6, 4) and asc.connector_shape("H") == (5, 6, 4)
    assert asc.cost("CostMultiplyAdd") == 72 * 15


# -- pooling -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("type_", "x", "props", "expected"),
    [
        ("MaxPooling", (3, 7, 7), {}, (3, 3, 3)),
        ("MaxPooling", (3, 7, 7), {"IgnoreBorder": "False"}, (3, 4, 4)),
        (
            "MaxPooling",
            (96, 112, 112),
            {"KernelShape": "3,3", "Strides": "2,2", "Padding": "1,1"},
            (96, 56, 56),
        ),  # fmt: skip
        # NNC and nnabla: ceil(5 / 1) = 5, the kernel plays no part (nin: 55 -> 28, NNC's shape).
        (
            "MaxPooling",
            (3, 5, 5),
            {"KernelShape": "3,3", "Strides": "1,1", "IgnoreBorder": "False"},
            (3, 5, 5),
        ),  # fmt: skip
        (
            "MaxPooling",
            (96, 55, 55),
            {"KernelShape": "3,3", "Strides": "2,2", "IgnoreBorder": "False"},
            (96, 28, 28),
        ),  # fmt: skip
        # With padding the engine runs nnabla's ceil((7 + 1) / 2) = 4 (NNC's editor shows 5).
        (
            "AveragePooling",
            (3, 7, 7),
            {"KernelShape": "3,3", "Strides": "2,2", "Padding": "1,1", "IgnoreBorder": "False"},
            (3, 4, 4),
        ),  # fmt: skip
        ("AveragePooling", (3, 9, 6), {"KernelShape": "3,2", "Strides": "2,2"}, (3, 4, 3)),
        ("AveragePooling", (8, 8, 3), {"ChannelLast": "True"}, (4, 4, 3)),
        (
            "SumPooling",
            (2, 3, 10),
            {"KernelShape": "4", "Strides": "3", "Padding": "1"},
            (2, 3, 3),
        ),  # fmt: skip
        ("GlobalAveragePooling", (16, 5, 5), {}, (16, 1, 1)),
        ("GlobalAveragePooling", (10,), {}, (10, 1, 1)),  # always 3-D (quirk 10)
        ("Unpooling", (3, 4, 5), {}, (3, 8, 10)),
        ("Tile", (3, 4, 5), {}, (3, 4, 10)),
        ("Tile", (3, 4, 5), {"Reps": "1,2,3,4"}, (6, 12, 20)),  # extra leading reps ignored
    ],
)
def test_pooling_output(type_, x, props, expected):
    assert out(type_, x, **props) == expected


def test_pooling_costs():
    pool = layer("MaxPooling", (32, 28, 28))
    assert pool.cost("CostIf") == 32 * 14 * 14 * 4
    avg = layer("AveragePooling", (32, 28, 28))
    assert (avg.cost("CostAdd"), avg.cost("CostMultiply")) == (32 * 28 * 28, 32 * 14 * 14)
    with pytest.raises(RuleError, match="larger than the input"):
        out("MaxPooling", (3, 1, 1))


# -- shape manipulation ------------------------------------------------------------------------


def test_shape_layers():
    assert out("Concatenate", (3, 8, 8), (5, 8, 8)) == (8, 8, 8)
    assert out("Concatenate", (3, 8, 8), (3, 8, 2), Axis="2") == (3, 8, 10)
    assert out("Reshape", (3, 8, 8), OutShape="12,16") == (12, 16)
    assert out("Transpose", (3, 4, 5), Axes="1,2,0") == (4, 5, 3)
    assert out("Slice", (3, 8, 8), Start="0,1,2", Stop="3,8,8", Step="1,2,3") == (3, 4, 2)
    assert out("Slice", (3, 8, 8)) == (3, 8, 8)  # Stop defaults to *Input
    assert out("Pad", (3, 4, 5), PadWidth="1,1,2,3") == (3, 6, 10)
    assert out("Stack", (3, 4), (3, 4), (3, 4), Axis="1") == (3, 3, 4)
    assert out("Broadcast", (1, 4, 1), OutShape="3,4,5") == (3, 4, 5)
    assert out("Flip", (3, 4)) == (3, 4)
    assert out("MatrixDiag", (3, 4)) == (3, 4, 4)
    assert out("MatrixDiagPart", (3, 4, 4)) == (3, 4)
    assert out("TopKData", (3, 4, 5), K="7") == (7,)
    assert out("TopKData", (3, 4, 5), K="7", BaseAxis="1") == (3, 7)
    assert out("TopKData", (3, 4, 5), Reduce="False") == (3, 4, 5)
    assert out("OneHot", (5, 2), Shape="10,20") == (5, 10, 20)
    assert out("Embed", (7,), Shape="4,5") == (7, 4, 5)
    assert out("Interpolate", (3, 8, 8), OutputSize="16,12") == (3, 16, 12)
    assert out("RandomCrop", (3, 32, 32), Shape="3,28,28") == (3, 28, 28)
    assert out("ImageAugmentation", (3, 32, 32)) == (3, 32, 32)
    assert out("Flatten", (3, 4, 5)) == (60,)


@pytest.mark.parametrize(
    ("type_", "inputs", "props", "message"),
    [
        ("Concatenate", ((3, 8, 8), (3, 4, 8)), {}, "must match on every axis except Axis=0"),
        ("Reshape", ((3, 8, 8),), {"OutShape": "10,10"}, "has 100 elements but the input"),
        ("Transpose", ((3, 4),), {}, "not a permutation of the 2 input axes"),
        ("Add2", ((3, 4, 5), (5,)), {}, "inputs of different rank"),
        ("Add2", ((3, 4, 5), (3, 2, 5)), {}, "input shapes do not broadcast"),
        ("Pad", ((3, 4),), {"PadWidth": "1,1,1"}, "PadWidth needs"),
        ("OneHot", ((5, 2),), {}, "must equal len"),
        ("Softmax", (), {}, "the main input is not connected"),
    ],
)
def test_shape_errors(type_, inputs, props, message):
    with pytest.raises(RuleError, match=message):
        out(type_, *inputs, **props)


def test_reductions_and_axes():
    assert out("Sum", (3, 4, 5)) == (4, 5)
    assert out("Mean", (3, 4, 5), Axes="1,2") == (3,)
    assert out("Max", (3, 4, 5), Axes="2", KeepDims="True") == (3, 4, 1)
    assert out("Prod", (10,)) == (1,)  # one value per sample is shown as 1
    assert out("CategoricalCrossEntropy", (10, 4), Axis="1") == (10, 1)
    assert out("TopNError", (10,)) == (1,)
    assert out("KLMultinomial", (3, 4)) == (1,)
    assert out("CReLU", (3, 4)) == (6, 4)
    # NNC's utility doubles axis 0 whatever Axis is; NeuroCanvas doubles Axis like nnabla.
    assert out("CELU", (3, 4), Axis="1") == (3, 8)
    assert out("RecurrentInput", (5, 3, 2), Axis="1") == (5, 2)
    assert out("Add2", (3, 4, 5), (1, 4, 1)) == (3, 4, 5)
    assert out("AddN", (1, 4), (3, 1), (3, 4)) == (3, 4)
    assert out("BatchDet", (4, 4)) == (1,)
    assert out("BatchMatmul", (2, 3, 4), side={"R": (2, 4, 5)}) == (2, 3, 5)


def test_loss_label_shapes():
    cce = layer("CategoricalCrossEntropy", (10, 4, 4))
    assert cce.connector_shape("T") == (1, 4, 4)
    assert layer("SquaredError", (3, 8)).connector_shape("T") == (3, 8)


# -- costs of the decoded macros ---------------------------------------------------------------


def test_parameter_costs():
    assert layer("BatchNormalization", (16, 8, 8)).cost("CostParameter") == 4 * 16
    assert layer("BatchNormalization", (16, 8, 8)).connector_shape("beta") == (16, 1, 1)
    assert layer("InstanceNormalization", (16, 8, 8)).connector_shape("gamma") == (16, 1, 1)
    assert layer("PReLU", (16, 8, 8)).cost("CostParameter") == 16
    assert layer("LayerNormalization", (3, 8, 8)).cost("CostParameter") == 2 * 192
    # MeanSubtraction and MinMaxQuantize own parameters but declare no CostParameter.
    mean_sub = layer("MeanSubtraction", (3, 8, 8))
    assert mean_sub.connector_shape("mean") == (3, 8, 8) and mean_sub.cost("CostParameter") == 0
    assert layer("MinMaxQuantize", (3, 8, 8)).cost("CostParameter") == 0
    assert layer("Embed", (7,), NumClass="10", Shape="4").cost("CostParameter") == 40
    assert layer("WeightNormalization", (8, 3, 3)).connector_shape("g") == (8,)


def test_sum_parameter_size_skips_wired_and_disabled_parameters():
    affine = layer("Affine", (3, 8, 8), OutShape="10")
    assert affine.cost("CostParameter") == 192 * 10 + 10
    wired = layer("Affine", (3, 8, 8), side={"W": (192, 10)}, OutShape="10")
    assert wired.cost("CostParameter") == 10
    assert layer("Affine", (3, 8, 8), OutShape="10", WithBias="False").cost("CostParameter") == 1920


def test_binary_layer_costs():
    bca = layer("BinaryConnectAffine", (3, 8, 8))
    assert bca.cost("CostParameter") == 19200 // 32 + 100
    assert bca.cost("CostAdd") == 19200
    bcc = layer("BinaryConnectConvolution", (3, 12, 12))
    assert bcc.output_shape() == (16, 8, 8)
    assert bcc.cost("CostParameter") == 38 + 16  # ceil(16*3*25 / 32) + 16
    assert bcc.cost("CostAdd") == 16 * 64 * 3 * 25
    odd = layer("BinaryWeightAffine", (3,), OutShape="5", WithBias="False")
    assert odd.cost("CostParameter") == 1  # ceil(15 / 32)


def test_math_costs():
    inv = layer("BatchInv", (4, 4))
    assert (inv.cost("CostAdd"), inv.cost("CostMultiplyAdd")) == (4 * 3 * 3, 64)
    det = layer("BatchLogdet", (4, 4))
    assert [det.cost(s) for s in ("CostAdd", "CostMultiply", "CostExp")] == [16, 4, 1]
    mm = layer("BatchMatmul", (2, 3, 4), side={"R": (2, 4, 5)})
    assert mm.cost("CostMultiplyAdd") == 2 * 3 * 5 * 4
    fft = layer("FFT", (3, 8, 8, 2))
    assert fft.cost("CostMultiplyAdd") == 384 * 4 * (3 + 3)
    assert fft.cost("CostMultiply") == 0
    assert layer("IFFT", (3, 5, 2), SignalNDim="1", Normalized="True").cost("CostMultiply") == 30
    assert layer("IFFT", (3, 5, 2), SignalNDim="1").cost("CostMultiplyAdd") == 30 * 4 * 3
    assert layer("SELU", (10,)).cost("CostMultiply") == 20
    assert layer("Pow2", (3, 4)).cost("CostExp") == 24


def test_lstm_verified_example():
    # docs/layers.md §4.9: input (3,5,6), Size 4, Axis 1 -> InnerShape (3,6), Length 5,
    # Output (4,5).
    lstm = layer("LSTM", (3, 5, 6), Size="4", Axis="1")
    assert lstm.value("InnerShape") == (3, 6) and lstm.value("Length") == 5
    assert lstm.output_shape() == (4, 5)
    assert lstm.connector_shape("Affine.W") == (22, 4)
    assert lstm.cost("CostParameter") == 368
    assert lstm.cost("CostAdd") == 4 * 5 * 4
    assert lstm.cost("CostMultiplyAdd") == (18 + 4) * 4 * 5 * 4
    assert layer("LSTM", (5, 6)).output_shape() == (5, 100)


# -- the element-wise layers: the output is the input, for an odd-sized input -------------------

ELEMENTWISE = [s for s in all_specs() if s.output_rule == "*Input" and s.prop("Input")]


@pytest.mark.parametrize("spec", ELEMENTWISE, ids=lambda s: s.type)
def test_elementwise_layers_keep_the_input_shape(spec):
    assert len(ELEMENTWISE) > 100
    ev = LayerEval(spec, spec.type, {}, StaticContext(inputs=((3, 5, 7),)))
    assert ev.output_shape() == (3, 5, 7)
    assert ev.cost("Output") == 105

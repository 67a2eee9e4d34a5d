"""The macros that NNC evaluates only inside its closed utility, as short Python functions.

Each function takes the layer being evaluated (:class:`engine.layers.evaluate.LayerEval`) and
returns a shape or a count. The rules are those decoded in docs/layers.md §1.5/§1.6 and the
per-layer "Output shape" lines; where NNC's utility and nnabla disagree the choice is noted.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TYPE_CHECKING

from engine.core.messages import QT_TRANSLATE_NOOP
from engine.core.numbers import shape_text
from engine.layers.expr import product
from engine.layers.macro_args import (
    Shape,
    ShapeError,
    flag,
    integer,
    ints,
    output_of,
)
from engine.layers.macros_axes import (
    axis_size,
    batch_det_output_size,
    batch_normalization_shape,
    broadcast_output_size,
    cce_output_size,
    concatenate_activation_output_size,
    concatenate_output_size,
    fft_multiply_add_size,
    lstm_output_size,
    lstm_weight_shape,
    matmul_multiply_add_size,
    matmul_output_size,
    matrix_diag_output_size,
    matrix_diag_part_output_size,
    one_hot_output_size,
    prelu_parameter_size,
    recurrent_output_size,
    reshape_output_size,
    running_mean_shape,
    shape_except_axis,
    slice_output_size,
    stack_output_size,
    sum_output_size,
    sum_parameter_size,
    top_k_data_output_size,
    transpose_output_size,
)

if TYPE_CHECKING:
    from engine.layers.evaluate import LayerEval

__all__ = ["MACROS", "ShapeError"]

# ---------------------------------------------------------------------------------------------
# Convolution family


def _conv_geometry(ev: LayerEval) -> tuple[Shape, int, Shape, int]:
    """(leading axes, input channels, spatial sizes, kernel rank) of a convolution input."""
    x = ev.input_shape
    n = len(ints(ev, "KernelShape"))
    if len(x) < n + 1:
        raise ShapeError(
            QT_TRANSLATE_NOOP(
                "Problems",
                "a {n}-D kernel needs an input with a channel axis and {n} spatial axes. Received: Input={x}",  # noqa: E501 - one string for the catalogue
            ).format(n=n, x=shape_text(x))
        )
    if flag(ev, "ChannelLast"):
        return x[: -n - 1], x[-1], x[-n - 1 : -1], n
    return x[: -n - 1], x[-n - 1], x[-n:], n


def convolution_padding_size(ev: LayerEval) -> Shape:
    """``*ConvolutionPaddingSize``: valid 0, same floor(d(k-1)/2), full d(k-1) per axis."""
    kernel = ints(ev, "KernelShape")
    n = len(kernel)
    dilation = ints(ev, "Dilation", n) if ev.spec.prop("Dilation") else (1,) * n
    mode = ev.value("BorderMode") if ev.spec.prop("BorderMode") else "valid"
    if mode == "same":
        return tuple(d * (k - 1) // 2 for k, d in zip(kernel, dilation, strict=True))
    if mode == "full":
        return tuple(d * (k - 1) for k, d in zip(kernel, dilation, strict=True))
    return (0,) * len(kernel)


def _maps(ev: LayerEval) -> int:
    return integer(ev, "OutMaps")


def convolution_output_size(ev: LayerEval) -> Shape:
    """``*ConvolutionOutputSize``: o = floor((i + 2p - d(k-1) - 1) / s) + 1 per kernel axis."""
    lead, _, spatial, n = _conv_geometry(ev)
    kernel = ints(ev, "KernelShape")
    pad, stride, dil = (ints(ev, p, n) for p in ("Padding", "Strides", "Dilation"))
    out = tuple(
        (i + 2 * p - d * (k - 1) - 1) // s + 1
        for i, k, p, s, d in zip(spatial, kernel, pad, stride, dil, strict=True)
    )
    if min(out) < 1:
        raise ShapeError(
            QT_TRANSLATE_NOOP(
                "Problems",
                "the output would be empty ({out}): kernel {kernel} with dilation {dil} does not fit the input {spatial} padded by {pad}",  # noqa: E501 - one string for the catalogue
            ).format(
                out=shape_text(out),
                kernel=shape_text(kernel),
                dil=shape_text(dil),
                spatial=shape_text(spatial),
                pad=shape_text(pad),
            )
        )
    maps = _maps(ev)
    return lead + (out + (maps,) if flag(ev, "ChannelLast") else (maps,) + out)


def deconvolution_output_size(ev: LayerEval) -> Shape:
    """``*DeconvolutionOutputSize``: o = (i - 1)s - 2p + d(k-1) + 1 per kernel axis.

    NNC's Deconvolution has no output-padding property, so nnabla's ``output_padding`` is 0.
    """
    lead, _, spatial, n = _conv_geometry(ev)
    kernel = ints(ev, "KernelShape")
    pad, stride, dil = (ints(ev, p, n) for p in ("Padding", "Strides", "Dilation"))
    out = tuple(
        (i - 1) * s - 2 * p + d * (k - 1) + 1
        for i, k, p, s, d in zip(spatial, kernel, pad, stride, dil, strict=True)
    )
    if min(out) < 1:
        raise ShapeError(
            QT_TRANSLATE_NOOP(
                "Problems", "the output would be empty ({out}): Padding is too large"
            ).format(out=shape_text(out))
        )
    maps = _maps(ev)
    return lead + (out + (maps,) if flag(ev, "ChannelLast") else (maps,) + out)


def _group(ev: LayerEval, cin: int) -> int:
    group = integer(ev, "Group") if ev.spec.prop("Group") else 1
    if cin % group:
        raise ShapeError(
            QT_TRANSLATE_NOOP(
                "Problems", "Group={group} does not divide the {cin} input channels"
            ).format(group=group, cin=cin)
        )
    return group


def convolution_weight_shape(ev: LayerEval) -> Shape:
    """``*ConvolutionWeightShape``: (OutMaps, Cin/Group, *k), channel-last (OutMaps, *k, Cin/G)."""
    _, cin, _, _ = _conv_geometry(ev)
    kernel = ints(ev, "KernelShape")
    per_group = cin // _group(ev, cin)
    if flag(ev, "ChannelLast"):
        return (_maps(ev), *kernel, per_group)
    return (_maps(ev), per_group, *kernel)


def deconvolution_weight_shape(ev: LayerEval) -> Shape:
    """``*ConvolutionWeightShapeDeconvolution``: (Cin, OutMaps/Group, *k)."""
    _, cin, _, _ = _conv_geometry(ev)
    group = _group(ev, cin)
    maps = _maps(ev)
    if maps % group:
        raise ShapeError(
            QT_TRANSLATE_NOOP("Problems", "Group={group} does not divide OutMaps={maps}").format(
                group=group, maps=maps
            )
        )
    return (cin, maps // group, *ints(ev, "KernelShape"))


def convolution_multiply_add_size(ev: LayerEval) -> int:
    """``*ConvolutionMultiplyAddSize``: M x Cin//Group x prod(k); depthwise M x prod(k).

    Deconvolution is also counted on its output size M (observed, §1.6).
    """
    m = product(output_of(ev))
    k = math.prod(ints(ev, "KernelShape"))
    if ev.spec.type.startswith("Depthwise"):
        return int(m * k)
    _, cin, _, _ = _conv_geometry(ev)
    return int(m * (cin // _group(ev, cin)) * k)


def convolution_parameter_size_div32(ev: LayerEval) -> int:
    """``*ConvolutionParameterSizeDiv32``: ceil(|W| / 32) + WithBias x OutMaps (1-bit weights)."""
    _, cin, _, _ = _conv_geometry(ev)
    weights = _maps(ev) * (cin // _group(ev, cin)) * math.prod(ints(ev, "KernelShape"))
    return math.ceil(weights / 32) + int(flag(ev, "WithBias")) * _maps(ev)


def deformable_offset_shape(ev: LayerEval) -> Shape:
    """``*DeformableConvOffsetShape``: (DeformableGroup x 2 x prod(k), *output spatial)."""
    k = math.prod(ints(ev, "KernelShape"))
    return (integer(ev, "DeformableGroup") * 2 * k, *_output_spatial(ev))


def deformable_mask_shape(ev: LayerEval) -> Shape:
    """``*DeformableConvMaskShape``: (DeformableGroup x prod(k), *output spatial)."""
    k = math.prod(ints(ev, "KernelShape"))
    return (integer(ev, "DeformableGroup") * k, *_output_spatial(ev))


def _output_spatial(ev: LayerEval) -> Shape:
    n = len(ints(ev, "KernelShape"))
    out = output_of(ev)
    return out[-n - 1 : -1] if flag(ev, "ChannelLast") else out[-n:]


def adaptive_separable_output_size(ev: LayerEval) -> Shape:
    """``*AdaptiveSeparableConvolutionOutputSize``: (C, H - kv + 1, W - kh + 1)."""
    x = ev.input_shape
    kv, kh = ints(ev, "KernelShape", 2)
    if len(x) < 3 or x[-2] < kv or x[-1] < kh:
        raise ShapeError(
            QT_TRANSLATE_NOOP(
                "Problems", "KernelShape={kv},{kh} does not fit the input {x}"
            ).format(kv=kv, kh=kh, x=shape_text(x))
        )
    return (*x[:-2], x[-2] - kv + 1, x[-1] - kh + 1)


def adaptive_separable_kernel_shape(axis: int) -> Callable[[LayerEval], Shape]:
    """``*AdaptiveSeparableConv{V,H}KernelShape``: (kv or kh, *output spatial), as nnabla.

    NNC's utility emitted the input shape in one test (uncertain, docs/layers.md §4.4); nnabla's
    kernel needs the per-pixel kernels shaped like this, so we follow nnabla.
    """

    def rule(ev: LayerEval) -> Shape:
        k = ints(ev, "KernelShape", 2)[axis]
        return (k, *output_of(ev)[-2:])

    return rule


def adaptive_separable_multiply_add_size(ev: LayerEval) -> int:
    return int(product(output_of(ev)) * math.prod(ints(ev, "KernelShape")))


# ---------------------------------------------------------------------------------------------
# Affine, embedding, binary affine


def affine_weight_shape(ev: LayerEval) -> Shape:
    """``*AffineWeightShape``: (element count of the input sample, *OutShape)."""
    return (int(product(ev.input_shape)), *ints(ev, "OutShape"))


def affine_parameter_size_div32(ev: LayerEval) -> int:
    """``*AffineParameterSizeDiv32``: ceil(N x prod(OutShape) / 32) + WithBias x prod(OutShape)."""
    out = math.prod(ints(ev, "OutShape"))
    return math.ceil(product(ev.input_shape) * out / 32) + int(flag(ev, "WithBias")) * out


def embedding_weight_size(ev: LayerEval) -> Shape:
    return (integer(ev, "NumClass"), *ints(ev, "Shape"))


def embedding_output_size(ev: LayerEval) -> Shape:
    return ev.input_shape + ints(ev, "Shape")


# ---------------------------------------------------------------------------------------------
# Pooling and tiling


from engine.core.ops.pooling import pooled_sizes  # noqa: E402 - the kernel owns the rule


def pooling_output_size(ev: LayerEval, editor: bool | None = None) -> Shape:
    """``*PoolingOutputSize``: the size the kernel produces (nnabla's rule, see
    :func:`engine.core.ops.pooling.pooled_sizes`), or with ``editor`` (by default the context's
    ``editor_shapes``) the size NNC's editor shows, which differs without IgnoreBorder when
    Padding is not 0."""
    if editor is None:
        editor = getattr(ev.context, "editor_shapes", False)
    x = ev.input_shape
    kernel = ints(ev, "KernelShape")
    n = len(kernel)
    stride, pad = ints(ev, "Strides", n), ints(ev, "Padding", n)
    last = flag(ev, "ChannelLast")
    if len(x) < n + (1 if last else 0):
        raise ShapeError(
            QT_TRANSLATE_NOOP(
                "Problems", "a {n}-D kernel needs {n} spatial axes. Received: Input={x}"
            ).format(n=n, x=shape_text(x))
        )
    spatial = x[-n - 1 : -1] if last else x[-n:]
    out = pooled_sizes(spatial, kernel, stride, pad, flag(ev, "IgnoreBorder"), editor)
    if min(out) < 1:
        raise ShapeError(
            QT_TRANSLATE_NOOP(
                "Problems",
                "the output would be empty ({out}): kernel {kernel} is larger than the input {spatial} padded by {pad}",  # noqa: E501 - one string for the catalogue
            ).format(
                out=shape_text(out),
                kernel=shape_text(kernel),
                spatial=shape_text(spatial),
                pad=shape_text(pad),
            )
        )
    return x[: -n - 1] + out + x[-1:] if last else x[:-n] + out


def unpooling_output_size(ev: LayerEval) -> Shape:
    """``*UnpoolingOutputSize``: trailing axes times KernelShape (Unpooling) or Reps (Tile).

    Right-aligned; entries beyond the input rank are ignored, as NNC's utility does for Tile.
    """
    reps = ints(ev, "KernelShape" if ev.spec.prop("KernelShape") else "Reps")
    x = ev.input_shape
    reps = reps[-len(x) :] if len(reps) > len(x) else reps
    lead = len(x) - len(reps)
    return x[:lead] + tuple(i * r for i, r in zip(x[lead:], reps, strict=True))


def pad_output_size(ev: LayerEval) -> Shape:
    """``*PadOutputSize``: the trailing len(PadWidth)/2 axes grow by (before + after)."""
    width = ints(ev, "PadWidth")
    x = ev.input_shape
    if len(width) % 2 or len(width) // 2 > len(x):
        raise ShapeError(
            QT_TRANSLATE_NOOP(
                "Problems",
                "PadWidth needs (before, after) pairs for at most {rank} axes. Received: PadWidth={width}",  # noqa: E501 - one string for the catalogue
            ).format(rank=len(x), width=shape_text(width))
        )
    pairs = len(width) // 2
    lead = len(x) - pairs
    grow = tuple(width[2 * i] + width[2 * i + 1] for i in range(pairs))
    return x[:lead] + tuple(i + g for i, g in zip(x[lead:], grow, strict=True))


MACROS: dict[str, Callable[[LayerEval], object]] = {
    "ConvolutionPaddingSize": convolution_padding_size,
    "ConvolutionOutputSize": convolution_output_size,
    "DeconvolutionOutputSize": deconvolution_output_size,
    "ConvolutionWeightShape": convolution_weight_shape,
    "ConvolutionWeightShapeDeconvolution": deconvolution_weight_shape,
    "ConvolutionMultiplyAddSize": convolution_multiply_add_size,
    "ConvolutionParameterSizeDiv32": convolution_parameter_size_div32,
    "DeformableConvOffsetShape": deformable_offset_shape,
    "DeformableConvMaskShape": deformable_mask_shape,
    "AdaptiveSeparableConvolutionOutputSize": adaptive_separable_output_size,
    "AdaptiveSeparableConvVKernelShape": adaptive_separable_kernel_shape(0),
    "AdaptiveSeparableConvHKernelShape": adaptive_separable_kernel_shape(1),
    "AdaptiveSeparableConvolutionMultiplyAddSize": adaptive_separable_multiply_add_size,
    "AffineWeightShape": affine_weight_shape,
    "AffineParameterSizeDiv32": affine_parameter_size_div32,
    "EmbeddingWeightSize": embedding_weight_size,
    "EmbeddingOutputSize": embedding_output_size,
    "PoolingOutputSize": pooling_output_size,
    "UnpoolingOutputSize": unpooling_output_size,
    "PadOutputSize": pad_output_size,
    "SumOutputSize": sum_output_size,
    "CCEOutputSize": cce_output_size,
    "SoftmaxLabelShape": cce_output_size,
    "ConcatenateActivationOutputSize": concatenate_activation_output_size,
    "ShapeExceptAxis": shape_except_axis,
    "AxisSize": axis_size,
    "BasicMathOutputSizewBC": broadcast_output_size,
    "ConcatenateOutputSize": concatenate_output_size,
    "StackOutputSize": stack_output_size,
    "ReshapeOutputSize": reshape_output_size,
    "TransposeOutputSize": transpose_output_size,
    "SliceOutputSize": slice_output_size,
    "MatrixDiagOutputSize": matrix_diag_output_size,
    "MatrixDiagPartOutputSize": matrix_diag_part_output_size,
    "TopKDataOutputSize": top_k_data_output_size,
    "OneHotOutputSize": one_hot_output_size,
    "MatmulOutputSize": matmul_output_size,
    "MatmulMultiplyAddSize": matmul_multiply_add_size,
    "BatchDetOutputSize": batch_det_output_size,
    "FFTMultiplyAddSize": fft_multiply_add_size,
    "BatchNormalizationShape": batch_normalization_shape,
    "LayerNormalizationShape": lambda ev: ev.input_shape,
    "RunningMeanShape": running_mean_shape,
    "PReluParameterSize": prelu_parameter_size,
    "LSTMWeightShape": lstm_weight_shape,
    "RecurrentOutputSize": recurrent_output_size,
    "RecurrentOutputSize2": lstm_output_size,
    "SumParameterSize": sum_parameter_size,
}

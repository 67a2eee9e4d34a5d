"""The macros that NNC evaluates only inside its closed utility, as short Python functions.

Each function takes the layer being evaluated (:class:`engine.layers.evaluate.LayerEval`) and
returns a shape or a count. The rules are those decoded in docs/layers.md §1.5/§1.6 and the
per-layer "Output shape" lines; where NNC's utility and nnabla disagree the choice is noted.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TYPE_CHECKING

from engine.layers.expr import product

if TYPE_CHECKING:
    from engine.layers.evaluate import LayerEval

__all__ = ["MACROS", "ShapeError"]

Shape = tuple[int, ...]


class ShapeError(ValueError):
    """A shape rule that cannot be applied to the layer's inputs or properties."""


def _ints(ev: LayerEval, name: str, n: int | None = None) -> tuple[int, ...]:
    """A list property, checked to have ``n`` entries (one per kernel axis)."""
    value = ev.value(name)
    items = value if isinstance(value, tuple) else (value,)
    if n is not None and len(items) != n:
        raise ShapeError(
            f"{name} needs {n} entries (one per kernel axis). Received: {name}={_fmt(items)}"
        )
    return tuple(int(v) for v in items)


def _int(ev: LayerEval, name: str) -> int:
    """An integer property (numbers only; the property type has checked it)."""
    value = ev.value(name)
    if isinstance(value, tuple) and len(value) == 1:
        value = value[0]
    if not isinstance(value, int | float):
        raise ShapeError(f"{name} must be a number. Received: {name}={value}")
    return int(value)


def _out(ev: LayerEval) -> Shape:
    shape = ev.output_shape()
    if shape is None:
        raise ShapeError(f"layer type {ev.spec.type} has no output")
    return shape


def _fmt(shape: tuple) -> str:
    return ",".join(str(v) for v in shape)


def _axis(ev: LayerEval, name: str, rank: int) -> int:
    axis = _int(ev, name)
    if not 0 <= axis < rank:
        raise ShapeError(
            f"{name}={axis} is not an axis of the input {_fmt(ev.input_shape)} "
            f"(axes 0..{rank - 1}, batch excluded)"
        )
    return axis


def _flag(ev: LayerEval, name: str) -> bool:
    return bool(ev.value(name)) if ev.spec.prop(name) else False


# ---------------------------------------------------------------------------------------------
# Convolution family


def _conv_geometry(ev: LayerEval) -> tuple[Shape, int, Shape, int]:
    """(leading axes, input channels, spatial sizes, kernel rank) of a convolution input."""
    x = ev.input_shape
    n = len(_ints(ev, "KernelShape"))
    if len(x) < n + 1:
        raise ShapeError(
            f"a {n}-D kernel needs an input with a channel axis and {n} spatial axes. "
            f"Received: Input={_fmt(x)}"
        )
    if _flag(ev, "ChannelLast"):
        return x[: -n - 1], x[-1], x[-n - 1 : -1], n
    return x[: -n - 1], x[-n - 1], x[-n:], n


def convolution_padding_size(ev: LayerEval) -> Shape:
    """``*ConvolutionPaddingSize``: valid 0, same floor(d(k-1)/2), full d(k-1) per axis."""
    kernel = _ints(ev, "KernelShape")
    n = len(kernel)
    dilation = _ints(ev, "Dilation", n) if ev.spec.prop("Dilation") else (1,) * n
    mode = ev.value("BorderMode") if ev.spec.prop("BorderMode") else "valid"
    if mode == "same":
        return tuple(d * (k - 1) // 2 for k, d in zip(kernel, dilation, strict=True))
    if mode == "full":
        return tuple(d * (k - 1) for k, d in zip(kernel, dilation, strict=True))
    return (0,) * len(kernel)


def _maps(ev: LayerEval) -> int:
    return _int(ev, "OutMaps")


def convolution_output_size(ev: LayerEval) -> Shape:
    """``*ConvolutionOutputSize``: o = floor((i + 2p - d(k-1) - 1) / s) + 1 per kernel axis."""
    lead, _, spatial, n = _conv_geometry(ev)
    kernel = _ints(ev, "KernelShape")
    pad, stride, dil = (_ints(ev, p, n) for p in ("Padding", "Strides", "Dilation"))
    out = tuple(
        (i + 2 * p - d * (k - 1) - 1) // s + 1
        for i, k, p, s, d in zip(spatial, kernel, pad, stride, dil, strict=True)
    )
    if min(out) < 1:
        raise ShapeError(
            f"the output would be empty ({_fmt(out)}): kernel {_fmt(kernel)} with dilation "
            f"{_fmt(dil)} does not fit the input {_fmt(spatial)} padded by {_fmt(pad)}"
        )
    maps = _maps(ev)
    return lead + (out + (maps,) if _flag(ev, "ChannelLast") else (maps,) + out)


def deconvolution_output_size(ev: LayerEval) -> Shape:
    """``*DeconvolutionOutputSize``: o = (i - 1)s - 2p + d(k-1) + 1 per kernel axis.

    NNC's Deconvolution has no output-padding property, so nnabla's ``output_padding`` is 0.
    """
    lead, _, spatial, n = _conv_geometry(ev)
    kernel = _ints(ev, "KernelShape")
    pad, stride, dil = (_ints(ev, p, n) for p in ("Padding", "Strides", "Dilation"))
    out = tuple(
        (i - 1) * s - 2 * p + d * (k - 1) + 1
        for i, k, p, s, d in zip(spatial, kernel, pad, stride, dil, strict=True)
    )
    if min(out) < 1:
        raise ShapeError(f"the output would be empty ({_fmt(out)}): Padding is too large")
    maps = _maps(ev)
    return lead + (out + (maps,) if _flag(ev, "ChannelLast") else (maps,) + out)


def _group(ev: LayerEval, cin: int) -> int:
    group = _int(ev, "Group") if ev.spec.prop("Group") else 1
    if cin % group:
        raise ShapeError(f"Group={group} does not divide the {cin} input channels")
    return group


def convolution_weight_shape(ev: LayerEval) -> Shape:
    """``*ConvolutionWeightShape``: (OutMaps, Cin/Group, *k), channel-last (OutMaps, *k, Cin/G)."""
    _, cin, _, _ = _conv_geometry(ev)
    kernel = _ints(ev, "KernelShape")
    per_group = cin // _group(ev, cin)
    if _flag(ev, "ChannelLast"):
        return (_maps(ev), *kernel, per_group)
    return (_maps(ev), per_group, *kernel)


def deconvolution_weight_shape(ev: LayerEval) -> Shape:
    """``*ConvolutionWeightShapeDeconvolution``: (Cin, OutMaps/Group, *k)."""
    _, cin, _, _ = _conv_geometry(ev)
    group = _group(ev, cin)
    maps = _maps(ev)
    if maps % group:
        raise ShapeError(f"Group={group} does not divide OutMaps={maps}")
    return (cin, maps // group, *_ints(ev, "KernelShape"))


def convolution_multiply_add_size(ev: LayerEval) -> int:
    """``*ConvolutionMultiplyAddSize``: M x Cin//Group x prod(k); depthwise M x prod(k).

    Deconvolution is also counted on its output size M (observed, §1.6).
    """
    m = product(_out(ev))
    k = math.prod(_ints(ev, "KernelShape"))
    if ev.spec.type.startswith("Depthwise"):
        return int(m * k)
    _, cin, _, _ = _conv_geometry(ev)
    return int(m * (cin // _group(ev, cin)) * k)


def convolution_parameter_size_div32(ev: LayerEval) -> int:
    """``*ConvolutionParameterSizeDiv32``: ceil(|W| / 32) + WithBias x OutMaps (1-bit weights)."""
    _, cin, _, _ = _conv_geometry(ev)
    weights = _maps(ev) * (cin // _group(ev, cin)) * math.prod(_ints(ev, "KernelShape"))
    return math.ceil(weights / 32) + int(_flag(ev, "WithBias")) * _maps(ev)


def deformable_offset_shape(ev: LayerEval) -> Shape:
    """``*DeformableConvOffsetShape``: (DeformableGroup x 2 x prod(k), *output spatial)."""
    k = math.prod(_ints(ev, "KernelShape"))
    return (_int(ev, "DeformableGroup") * 2 * k, *_output_spatial(ev))


def deformable_mask_shape(ev: LayerEval) -> Shape:
    """``*DeformableConvMaskShape``: (DeformableGroup x prod(k), *output spatial)."""
    k = math.prod(_ints(ev, "KernelShape"))
    return (_int(ev, "DeformableGroup") * k, *_output_spatial(ev))


def _output_spatial(ev: LayerEval) -> Shape:
    n = len(_ints(ev, "KernelShape"))
    out = _out(ev)
    return out[-n - 1 : -1] if _flag(ev, "ChannelLast") else out[-n:]


def adaptive_separable_output_size(ev: LayerEval) -> Shape:
    """``*AdaptiveSeparableConvolutionOutputSize``: (C, H - kv + 1, W - kh + 1)."""
    x = ev.input_shape
    kv, kh = _ints(ev, "KernelShape", 2)
    if len(x) < 3 or x[-2] < kv or x[-1] < kh:
        raise ShapeError(f"KernelShape={kv},{kh} does not fit the input {_fmt(x)}")
    return (*x[:-2], x[-2] - kv + 1, x[-1] - kh + 1)


def adaptive_separable_kernel_shape(axis: int) -> Callable[[LayerEval], Shape]:
    """``*AdaptiveSeparableConv{V,H}KernelShape``: (kv or kh, *output spatial), as nnabla.

    NNC's utility emitted the input shape in one test (uncertain, docs/layers.md §4.4); nnabla's
    kernel needs the per-pixel kernels shaped like this, so we follow nnabla.
    """

    def rule(ev: LayerEval) -> Shape:
        k = _ints(ev, "KernelShape", 2)[axis]
        return (k, *_out(ev)[-2:])

    return rule


def adaptive_separable_multiply_add_size(ev: LayerEval) -> int:
    return int(product(_out(ev)) * math.prod(_ints(ev, "KernelShape")))


# ---------------------------------------------------------------------------------------------
# Affine, embedding, binary affine


def affine_weight_shape(ev: LayerEval) -> Shape:
    """``*AffineWeightShape``: (element count of the input sample, *OutShape)."""
    return (int(product(ev.input_shape)), *_ints(ev, "OutShape"))


def affine_parameter_size_div32(ev: LayerEval) -> int:
    """``*AffineParameterSizeDiv32``: ceil(N x prod(OutShape) / 32) + WithBias x prod(OutShape)."""
    out = math.prod(_ints(ev, "OutShape"))
    return math.ceil(product(ev.input_shape) * out / 32) + int(_flag(ev, "WithBias")) * out


def embedding_weight_size(ev: LayerEval) -> Shape:
    return (_int(ev, "NumClass"), *_ints(ev, "Shape"))


def embedding_output_size(ev: LayerEval) -> Shape:
    return ev.input_shape + _ints(ev, "Shape")


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
    kernel = _ints(ev, "KernelShape")
    n = len(kernel)
    stride, pad = _ints(ev, "Strides", n), _ints(ev, "Padding", n)
    last = _flag(ev, "ChannelLast")
    if len(x) < n + (1 if last else 0):
        raise ShapeError(f"a {n}-D kernel needs {n} spatial axes. Received: Input={_fmt(x)}")
    spatial = x[-n - 1 : -1] if last else x[-n:]
    out = pooled_sizes(spatial, kernel, stride, pad, _flag(ev, "IgnoreBorder"), editor)
    if min(out) < 1:
        raise ShapeError(
            f"the output would be empty ({_fmt(out)}): kernel {_fmt(kernel)} is larger than "
            f"the input {_fmt(spatial)} padded by {_fmt(pad)}"
        )
    return x[: -n - 1] + out + x[-1:] if last else x[:-n] + out


def unpooling_output_size(ev: LayerEval) -> Shape:
    """``*UnpoolingOutputSize``: trailing axes times KernelShape (Unpooling) or Reps (Tile).

    Right-aligned; entries beyond the input rank are ignored, as NNC's utility does for Tile.
    """
    reps = _ints(ev, "KernelShape" if ev.spec.prop("KernelShape") else "Reps")
    x = ev.input_shape
    reps = reps[-len(x) :] if len(reps) > len(x) else reps
    lead = len(x) - len(reps)
    return x[:lead] + tuple(i * r for i, r in zip(x[lead:], reps, strict=True))


def pad_output_size(ev: LayerEval) -> Shape:
    """``*PadOutputSize``: the trailing len(PadWidth)/2 axes grow by (before + after)."""
    width = _ints(ev, "PadWidth")
    x = ev.input_shape
    if len(width) % 2 or len(width) // 2 > len(x):
        raise ShapeError(
            f"PadWidth needs (before, after) pairs for at most {len(x)} axes. "
            f"Received: PadWidth={_fmt(width)}"
        )
    pairs = len(width) // 2
    lead = len(x) - pairs
    grow = tuple(width[2 * i] + width[2 * i + 1] for i in range(pairs))
    return x[:lead] + tuple(i + g for i, g in zip(x[lead:], grow, strict=True))


# ---------------------------------------------------------------------------------------------
# Reductions, axes and element-wise broadcasting


def sum_output_size(ev: LayerEval) -> Shape:
    """``*SumOutputSize``: the input without the reduced Axes (kept as 1 with KeepDims)."""
    x = ev.input_shape
    axes = {a + len(x) if a < 0 else a for a in _ints(ev, "Axes")}
    if any(not 0 <= a < len(x) for a in axes):
        raise ShapeError(f"Axes={_fmt(_ints(ev, 'Axes'))} are not axes of {_fmt(x)}")
    if _flag(ev, "KeepDims"):
        return tuple(1 if i in axes else n for i, n in enumerate(x))
    # A full reduction leaves one value per sample, which NNC shows as 1.
    return tuple(n for i, n in enumerate(x) if i not in axes) or (1,)


def cce_output_size(ev: LayerEval) -> Shape:
    """``*CCEOutputSize`` / ``*SoftmaxLabelShape``: the input with the Axis dimension set to 1."""
    x = ev.input_shape
    axis = _axis(ev, "Axis", len(x))
    return x[:axis] + (1,) + x[axis + 1 :]


def concatenate_activation_output_size(ev: LayerEval) -> Shape:
    """``*ConcatenateActivationOutputSize`` (CReLU, CELU): the Axis dimension doubled.

    NNC's utility doubles axis 0 whatever Axis says (quirk 7); we double Axis as nnabla does,
    which is the same for the default Axis=0 and keeps shapes right when the network runs.
    """
    x = ev.input_shape
    axis = _axis(ev, "Axis", len(x))
    return x[:axis] + (2 * x[axis],) + x[axis + 1 :]


def shape_except_axis(ev: LayerEval) -> Shape:
    x = ev.input_shape
    axis = _axis(ev, "Axis", len(x))
    return x[:axis] + x[axis + 1 :]


def axis_size(ev: LayerEval) -> int:
    x = ev.input_shape
    return x[_axis(ev, "Axis", len(x))]


def broadcast_output_size(ev: LayerEval) -> Shape:
    """``*BasicMathOutputSizewBC``: equal ranks; each axis takes the size that is not 1."""
    shapes = ev.input_shapes
    if not shapes:
        raise ShapeError("no input is connected")
    out = list(shapes[0])
    for shape in shapes[1:]:
        if len(shape) != len(out):
            raise ShapeError(f"inputs of different rank cannot be broadcast: {_shapes(shapes)}")
        for i, n in enumerate(shape):
            if out[i] == 1:
                out[i] = n
            elif n not in (1, out[i]):
                raise ShapeError(f"input shapes do not broadcast: {_shapes(shapes)}")
    return tuple(out)


def _shapes(shapes: tuple[Shape, ...]) -> str:
    return " and ".join(f"({_fmt(s)})" for s in shapes)


def concatenate_output_size(ev: LayerEval) -> Shape:
    """``*ConcatenateOutputSize``: sizes along Axis add up; the other axes must match."""
    shapes = ev.input_shapes
    if not shapes:
        raise ShapeError("no input is connected")
    axis = _axis(ev, "Axis", len(shapes[0]))
    for shape in shapes[1:]:
        if len(shape) != len(shapes[0]) or any(
            a != b for i, (a, b) in enumerate(zip(shape, shapes[0], strict=True)) if i != axis
        ):
            raise ShapeError(
                f"inputs must match on every axis except Axis={axis}: {_shapes(shapes)}"
            )
    first = shapes[0]
    return first[:axis] + (sum(s[axis] for s in shapes),) + first[axis + 1 :]


def stack_output_size(ev: LayerEval) -> Shape:
    shapes = ev.input_shapes
    if not shapes or any(s != shapes[0] for s in shapes):
        raise ShapeError(f"stacked inputs must have the same shape: {_shapes(shapes)}")
    axis = _int(ev, "Axis")
    if not 0 <= axis <= len(shapes[0]):
        raise ShapeError(f"Axis={axis} is out of range for inputs of rank {len(shapes[0])}")
    return shapes[0][:axis] + (len(shapes),) + shapes[0][axis:]


def reshape_output_size(ev: LayerEval) -> Shape:
    """``*ReshapeOutputSize``: OutShape; the element count must match (no -1 in NNC)."""
    out = _ints(ev, "OutShape")
    if math.prod(out) != product(ev.input_shape):
        raise ShapeError(
            f"OutShape={_fmt(out)} has {math.prod(out)} elements but the input "
            f"{_fmt(ev.input_shape)} has {product(ev.input_shape)}"
        )
    return out


def transpose_output_size(ev: LayerEval) -> Shape:
    x = ev.input_shape
    axes = _ints(ev, "Axes")
    if sorted(axes) != list(range(len(x))):
        raise ShapeError(f"Axes={_fmt(axes)} is not a permutation of the {len(x)} input axes")
    return tuple(x[a] for a in axes)


def slice_output_size(ev: LayerEval) -> Shape:
    """``*SliceOutputSize``: per axis the length of range(Start, Stop, Step) within the input."""
    x = ev.input_shape
    start, stop, step = (_ints(ev, p) for p in ("Start", "Stop", "Step"))
    if not len(start) == len(stop) == len(step) == len(x):
        raise ShapeError(f"Start, Stop and Step need one entry per input axis ({_fmt(x)})")
    out = tuple(
        len(range(*slice(a, b, c).indices(n)))
        for a, b, c, n in zip(start, stop, step, x, strict=True)
    )
    if min(out) < 1:
        raise ShapeError(f"the slice is empty ({_fmt(out)}) for the input {_fmt(x)}")
    return out


def matrix_diag_output_size(ev: LayerEval) -> Shape:
    return ev.input_shape + ev.input_shape[-1:]


def matrix_diag_part_output_size(ev: LayerEval) -> Shape:
    x = ev.input_shape
    if len(x) < 2 or x[-1] != x[-2]:
        raise ShapeError(f"the last two axes must be square. Received: Input={_fmt(x)}")
    return x[:-1]


def top_k_data_output_size(ev: LayerEval) -> Shape:
    if not _flag(ev, "Reduce"):
        return ev.input_shape
    return ev.input_shape[: _int(ev, "BaseAxis")] + (_int(ev, "K"),)


def one_hot_output_size(ev: LayerEval) -> Shape:
    x = ev.input_shape
    shape = _ints(ev, "Shape")
    if x[-1] != len(shape):
        raise ShapeError(f"the last input axis ({x[-1]}) must equal len(Shape)={len(shape)}")
    return x[:-1] + shape


def matmul_output_size(ev: LayerEval) -> Shape:
    """``*MatmulOutputSize``: (..., M, K) x (..., K, N) -> (..., M, N)."""
    a, b = _matmul_inputs(ev)
    return a[:-1] + b[-1:]


def _matmul_inputs(ev: LayerEval) -> tuple[Shape, Shape]:
    shapes = ev.input_shapes
    if len(shapes) != 2:
        raise ShapeError(f"BatchMatmul multiplies 2 inputs, got {len(shapes)}")
    a, b = shapes
    if len(a) < 2 or len(a) != len(b) or a[:-2] != b[:-2] or a[-1] != b[-2]:
        raise ShapeError(f"cannot multiply {_shapes(shapes)}: need (..., M, K) and (..., K, N)")
    return a, b


def matmul_multiply_add_size(ev: LayerEval) -> int:
    """``*MatmulMultiplyAddSize``: M x K, K the contracted dimension."""
    a, _ = _matmul_inputs(ev)
    return int(product(_out(ev)) * a[-1])


def batch_det_output_size(ev: LayerEval) -> Shape:
    x = ev.input_shape
    if len(x) < 2 or x[-1] != x[-2]:
        raise ShapeError(f"needs square matrices. Received: Input={_fmt(x)}")
    return x[:-2] or (1,)


def fft_multiply_add_size(ev: LayerEval) -> int:
    """``*FFTMultiplyAddSize``: N x 4 x sum(ceil(log2 n)) over the SignalNDim signal axes."""
    x = ev.input_shape
    ndim = _int(ev, "SignalNDim")
    if len(x) < ndim + 1 or x[-1] != 2:
        raise ShapeError(
            f"needs {ndim} signal axes and a trailing axis of 2 (real, imaginary). "
            f"Received: Input={_fmt(x)}"
        )
    logs = sum(math.ceil(math.log2(n)) for n in x[-ndim - 1 : -1])
    return int(product(x) * 4 * logs)


# ---------------------------------------------------------------------------------------------
# Normalization and other parameter shapes


def batch_normalization_shape(ev: LayerEval) -> Shape:
    """``*BatchNormalizationShape``: the channel axis (Axes or ChannelAxis) kept, 1 elsewhere."""
    x = ev.input_shape
    name = "Axes" if ev.spec.prop("Axes") else "ChannelAxis"
    axes = set(_ints(ev, name))
    if any(not 0 <= a < len(x) for a in axes):
        raise ShapeError(f"{name}={_fmt(tuple(sorted(axes)))} are not axes of {_fmt(x)}")
    return tuple(n if i in axes else 1 for i, n in enumerate(x))


def prelu_parameter_size(ev: LayerEval) -> Shape:
    x = ev.input_shape
    return (x[_axis(ev, "BaseAxis", len(x))],)


def running_mean_shape(ev: LayerEval) -> Shape:
    x = ev.input_shape
    return x[_axis(ev, "BaseAxis", len(x)) :]


def lstm_weight_shape(ev: LayerEval) -> Shape:
    """``*LSTMWeightShape``: (prod(InnerShape) + prod(Size), prod(Size))."""
    size = int(product(ev.value("Size")))
    return (int(product(ev.value("InnerShape"))) + size, size)


def recurrent_output_size(ev: LayerEval) -> Shape:
    """``*RecurrentOutputSize``: the recurrent Length inserted at Axis of the step shape."""
    x = ev.input_shape
    axis = _int(ev, "Axis")
    if not 0 <= axis <= len(x):
        raise ShapeError(f"Axis={axis} is out of range for the step shape {_fmt(x)}")
    return x[:axis] + (_int(ev, "Length"),) + x[axis:]


def lstm_output_size(ev: LayerEval) -> Shape:
    """``*RecurrentOutputSize2`` (LSTM): Size with Length inserted at Axis."""
    size = _ints(ev, "Size")
    axis = min(_int(ev, "Axis"), len(size))
    return size[:axis] + (_int(ev, "Length"),) + size[axis:]


def sum_parameter_size(ev: LayerEval) -> int:
    """``*SumParameterSize``: the enabled parameter connectors that no layer is wired into."""
    return sum(
        int(product(ev.connector_shape(c.name)))
        for c in ev.spec.parameters
        if ev.connector_enabled(c.name) and not ev.context.is_wired(c.name)
    )


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

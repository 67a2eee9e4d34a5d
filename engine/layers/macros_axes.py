"""NNC's shape macros for reductions, axes, element-wise broadcasting, normalization and the
other parameter shapes (docs/layers.md §1.5/§1.6); the convolution, affine and pooling ones and
the table of every macro are in :mod:`engine.layers.macros`."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from engine.core.messages import QT_TRANSLATE_NOOP
from engine.core.numbers import shape_text
from engine.layers.expr import product
from engine.layers.macro_args import (
    Shape,
    ShapeError,
    axis_of,
    flag,
    integer,
    ints,
    output_of,
)

if TYPE_CHECKING:
    from engine.layers.evaluate import LayerEval


def sum_output_size(ev: LayerEval) -> Shape:
    """``*SumOutputSize``: the input without the reduced Axes (kept as 1 with KeepDims)."""
    x = ev.input_shape
    axes = {a + len(x) if a < 0 else a for a in ints(ev, "Axes")}
    if any(not 0 <= a < len(x) for a in axes):
        raise ShapeError(
            QT_TRANSLATE_NOOP("Problems", "Axes={axes} are not axes of {x}").format(
                axes=shape_text(ints(ev, "Axes")), x=shape_text(x)
            )
        )
    if flag(ev, "KeepDims"):
        return tuple(1 if i in axes else n for i, n in enumerate(x))
    # A full reduction leaves one value per sample, which NNC shows as 1.
    return tuple(n for i, n in enumerate(x) if i not in axes) or (1,)


def cce_output_size(ev: LayerEval) -> Shape:
    """``*CCEOutputSize`` / ``*SoftmaxLabelShape``: the input with the Axis dimension set to 1."""
    x = ev.input_shape
    axis = axis_of(ev, "Axis", len(x))
    return x[:axis] + (1,) + x[axis + 1 :]


def concatenate_activation_output_size(ev: LayerEval) -> Shape:
    """``*ConcatenateActivationOutputSize`` (CReLU, CELU): the Axis dimension doubled.

    NNC's utility doubles axis 0 whatever Axis says (quirk 7); we double Axis as nnabla does,
    which is the same for the default Axis=0 and keeps shapes right when the network runs.
    """
    x = ev.input_shape
    axis = axis_of(ev, "Axis", len(x))
    return x[:axis] + (2 * x[axis],) + x[axis + 1 :]


def shape_except_axis(ev: LayerEval) -> Shape:
    x = ev.input_shape
    axis = axis_of(ev, "Axis", len(x))
    return x[:axis] + x[axis + 1 :]


def axis_size(ev: LayerEval) -> int:
    x = ev.input_shape
    return x[axis_of(ev, "Axis", len(x))]


def broadcast_output_size(ev: LayerEval) -> Shape:
    """``*BasicMathOutputSizewBC``: equal ranks; each axis takes the size that is not 1."""
    shapes = ev.input_shapes
    if not shapes:
        raise ShapeError(QT_TRANSLATE_NOOP("Problems", "no input is connected"))
    out = list(shapes[0])
    for shape in shapes[1:]:
        if len(shape) != len(out):
            raise ShapeError(
                QT_TRANSLATE_NOOP(
                    "Problems", "inputs of different rank cannot be broadcast: {shapes}"
                ).format(shapes=_shapes(shapes))
            )
        for i, n in enumerate(shape):
            if out[i] == 1:
                out[i] = n
            elif n not in (1, out[i]):
                raise ShapeError(
                    QT_TRANSLATE_NOOP("Problems", "input shapes do not broadcast: {shapes}").format(
                        shapes=_shapes(shapes)
                    )
                )
    return tuple(out)


def _shapes(shapes: tuple[Shape, ...]) -> str:
    texts = [f"({shape_text(s)})" for s in shapes]
    if len(texts) != 2:
        return " and ".join(texts)
    return QT_TRANSLATE_NOOP("Problems", "{first} and {second}").format(
        first=texts[0], second=texts[1]
    )


def concatenate_output_size(ev: LayerEval) -> Shape:
    """``*ConcatenateOutputSize``: sizes along Axis add up; the other axes must match."""
    shapes = ev.input_shapes
    if not shapes:
        raise ShapeError(QT_TRANSLATE_NOOP("Problems", "no input is connected"))
    axis = axis_of(ev, "Axis", len(shapes[0]))
    for shape in shapes[1:]:
        if len(shape) != len(shapes[0]) or any(
            a != b for i, (a, b) in enumerate(zip(shape, shapes[0], strict=True)) if i != axis
        ):
            raise ShapeError(
                QT_TRANSLATE_NOOP(
                    "Problems", "inputs must match on every axis except Axis={axis}: {shapes}"
                ).format(axis=axis, shapes=_shapes(shapes))
            )
    first = shapes[0]
    return first[:axis] + (sum(s[axis] for s in shapes),) + first[axis + 1 :]


def stack_output_size(ev: LayerEval) -> Shape:
    shapes = ev.input_shapes
    if not shapes or any(s != shapes[0] for s in shapes):
        raise ShapeError(
            QT_TRANSLATE_NOOP(
                "Problems", "stacked inputs must have the same shape: {shapes}"
            ).format(shapes=_shapes(shapes))
        )
    axis = integer(ev, "Axis")
    if not 0 <= axis <= len(shapes[0]):
        raise ShapeError(
            QT_TRANSLATE_NOOP(
                "Problems", "Axis={axis} is out of range for inputs of rank {rank}"
            ).format(axis=axis, rank=len(shapes[0]))
        )
    return shapes[0][:axis] + (len(shapes),) + shapes[0][axis:]


def reshape_output_size(ev: LayerEval) -> Shape:
    """``*ReshapeOutputSize``: OutShape; the element count must match (no -1 in NNC)."""
    out = ints(ev, "OutShape")
    if math.prod(out) != product(ev.input_shape):
        raise ShapeError(
            QT_TRANSLATE_NOOP(
                "Problems",
                "OutShape={out} has {count} elements but the input {x} has {size}",
            ).format(
                out=shape_text(out),
                count=math.prod(out),
                x=shape_text(ev.input_shape),
                size=product(ev.input_shape),
            )
        )
    return out


def transpose_output_size(ev: LayerEval) -> Shape:
    x = ev.input_shape
    axes = ints(ev, "Axes")
    if sorted(axes) != list(range(len(x))):
        raise ShapeError(
            QT_TRANSLATE_NOOP(
                "Problems", "Axes={axes} is not a permutation of the {rank} input axes"
            ).format(axes=shape_text(axes), rank=len(x))
        )
    return tuple(x[a] for a in axes)


def slice_output_size(ev: LayerEval) -> Shape:
    """``*SliceOutputSize``: per axis the length of range(Start, Stop, Step) within the input."""
    x = ev.input_shape
    start, stop, step = (ints(ev, p) for p in ("Start", "Stop", "Step"))
    if not len(start) == len(stop) == len(step) == len(x):
        raise ShapeError(
            QT_TRANSLATE_NOOP(
                "Problems", "Start, Stop and Step need one entry per input axis ({x})"
            ).format(x=shape_text(x))
        )
    out = tuple(
        len(range(*slice(a, b, c).indices(n)))
        for a, b, c, n in zip(start, stop, step, x, strict=True)
    )
    if min(out) < 1:
        raise ShapeError(
            QT_TRANSLATE_NOOP("Problems", "the slice is empty ({out}) for the input {x}").format(
                out=shape_text(out), x=shape_text(x)
            )
        )
    return out


def matrix_diag_output_size(ev: LayerEval) -> Shape:
    return ev.input_shape + ev.input_shape[-1:]


def matrix_diag_part_output_size(ev: LayerEval) -> Shape:
    x = ev.input_shape
    if len(x) < 2 or x[-1] != x[-2]:
        raise ShapeError(
            QT_TRANSLATE_NOOP(
                "Problems", "the last two axes must be square. Received: Input={x}"
            ).format(x=shape_text(x))
        )
    return x[:-1]


def top_k_data_output_size(ev: LayerEval) -> Shape:
    if not flag(ev, "Reduce"):
        return ev.input_shape
    return ev.input_shape[: integer(ev, "BaseAxis")] + (integer(ev, "K"),)


def one_hot_output_size(ev: LayerEval) -> Shape:
    x = ev.input_shape
    shape = ints(ev, "Shape")
    if x[-1] != len(shape):
        raise ShapeError(
            QT_TRANSLATE_NOOP(
                "Problems", "the last input axis ({x}) must equal len(Shape)={length}"
            ).format(x=x[-1], length=len(shape))
        )
    return x[:-1] + shape


def matmul_output_size(ev: LayerEval) -> Shape:
    """``*MatmulOutputSize``: (..., M, K) x (..., K, N) -> (..., M, N)."""
    a, b = _matmul_inputs(ev)
    return a[:-1] + b[-1:]


def _matmul_inputs(ev: LayerEval) -> tuple[Shape, Shape]:
    shapes = ev.input_shapes
    if len(shapes) != 2:
        raise ShapeError(
            QT_TRANSLATE_NOOP("Problems", "BatchMatmul multiplies 2 inputs, got {count}").format(
                count=len(shapes)
            )
        )
    a, b = shapes
    if len(a) < 2 or len(a) != len(b) or a[:-2] != b[:-2] or a[-1] != b[-2]:
        raise ShapeError(
            QT_TRANSLATE_NOOP(
                "Problems", "cannot multiply {shapes}: need (..., M, K) and (..., K, N)"
            ).format(shapes=_shapes(shapes))
        )
    return a, b


def matmul_multiply_add_size(ev: LayerEval) -> int:
    """``*MatmulMultiplyAddSize``: M x K, K the contracted dimension."""
    a, _ = _matmul_inputs(ev)
    return int(product(output_of(ev)) * a[-1])


def batch_det_output_size(ev: LayerEval) -> Shape:
    x = ev.input_shape
    if len(x) < 2 or x[-1] != x[-2]:
        raise ShapeError(
            QT_TRANSLATE_NOOP("Problems", "needs square matrices. Received: Input={x}").format(
                x=shape_text(x)
            )
        )
    return x[:-2] or (1,)


def fft_multiply_add_size(ev: LayerEval) -> int:
    """``*FFTMultiplyAddSize``: N x 4 x sum(ceil(log2 n)) over the SignalNDim signal axes."""
    x = ev.input_shape
    ndim = integer(ev, "SignalNDim")
    if len(x) < ndim + 1 or x[-1] != 2:
        raise ShapeError(
            QT_TRANSLATE_NOOP(
                "Problems",
                "needs {ndim} signal axes and a trailing axis of 2 (real, imaginary). Received: Input={x}",  # noqa: E501 - one string for the catalogue
            ).format(ndim=ndim, x=shape_text(x))
        )
    logs = sum(math.ceil(math.log2(n)) for n in x[-ndim - 1 : -1])
    return int(product(x) * 4 * logs)


# ---------------------------------------------------------------------------------------------
# Normalization and other parameter shapes


def batch_normalization_shape(ev: LayerEval) -> Shape:
    """``*BatchNormalizationShape``: the channel axis (Axes or ChannelAxis) kept, 1 elsewhere."""
    x = ev.input_shape
    name = "Axes" if ev.spec.prop("Axes") else "ChannelAxis"
    axes = set(ints(ev, name))
    if any(not 0 <= a < len(x) for a in axes):
        raise ShapeError(
            QT_TRANSLATE_NOOP("Problems", "{name}={axes} are not axes of {x}").format(
                name=name, axes=shape_text(tuple(sorted(axes))), x=shape_text(x)
            )
        )
    return tuple(n if i in axes else 1 for i, n in enumerate(x))


def prelu_parameter_size(ev: LayerEval) -> Shape:
    x = ev.input_shape
    return (x[axis_of(ev, "BaseAxis", len(x))],)


def running_mean_shape(ev: LayerEval) -> Shape:
    x = ev.input_shape
    return x[axis_of(ev, "BaseAxis", len(x)) :]


def lstm_weight_shape(ev: LayerEval) -> Shape:
    """``*LSTMWeightShape``: (prod(InnerShape) + prod(Size), prod(Size))."""
    size = int(product(ev.value("Size")))
    return (int(product(ev.value("InnerShape"))) + size, size)


def recurrent_output_size(ev: LayerEval) -> Shape:
    """``*RecurrentOutputSize``: the recurrent Length inserted at Axis of the step shape."""
    x = ev.input_shape
    axis = integer(ev, "Axis")
    if not 0 <= axis <= len(x):
        raise ShapeError(
            QT_TRANSLATE_NOOP(
                "Problems", "Axis={axis} is out of range for the step shape {x}"
            ).format(axis=axis, x=shape_text(x))
        )
    return x[:axis] + (integer(ev, "Length"),) + x[axis:]


def lstm_output_size(ev: LayerEval) -> Shape:
    """``*RecurrentOutputSize2`` (LSTM): Size with Length inserted at Axis."""
    size = ints(ev, "Size")
    axis = min(integer(ev, "Axis"), len(size))
    return size[:axis] + (integer(ev, "Length"),) + size[axis:]


def sum_parameter_size(ev: LayerEval) -> int:
    """``*SumParameterSize``: the enabled parameter connectors that no layer is wired into."""
    return sum(
        int(product(ev.connector_shape(c.name)))
        for c in ev.spec.parameters
        if ev.connector_enabled(c.name) and not ev.context.is_wired(c.name)
    )

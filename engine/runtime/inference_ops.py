"""The test-mode plan's fast operations (:mod:`engine.runtime.inference_plan`): each stands
in for one layer's forward pass where the plan's compiled loops serve its arrays (max and
global average pooling, 1x1 and windowed convolutions, Affine layers on the 1x1 loop,
depthwise convolutions, a residual Add2 into its first operand), with the predicates that say
when a step can take one. Each gives the bytes of the layer it replaces (tests compare)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from engine.core import products
from engine.core.ops import _direct_conv, _inference_cpu
from engine.core.ops._im2col import conv_out_size
from engine.runtime.program import Ref, Step


class _Array:
    """An array returned where the plan expects a layer's Variable (``.data``)."""

    __slots__ = ("data",)

    def __init__(self, data: np.ndarray) -> None:
        self.data = data


class _MaxPooling:
    """Max pooling without noting each window's winning cell (no backward will ask)."""

    def __init__(self, generic: Callable[..., Any]) -> None:
        self.generic = generic

    def __call__(self, x: Any, **kwargs: Any) -> Any:
        y = _inference_cpu.max_pooling(x, **kwargs)
        return self.generic(x, **kwargs) if y is None else _Array(y)


def _batch_last(x: Any) -> np.ndarray | None:
    """(N, C, *spatial) ``x`` as the contiguous (C, *spatial, N) buffer it views, or None."""
    if type(x) is not np.ndarray or x.ndim < 2:
        return None
    buf = x.transpose((*range(1, x.ndim), 0))
    return buf if buf.flags.c_contiguous else None


class _GlobalAveragePooling:
    """The mean over the spatial axes of a batch-innermost convolution output as one sum over
    the middle axis of its (C, H*W, N) buffer (NumPy reduces the strided (N, C, H, W) view
    several times slower); else the generic function."""

    def __init__(self, generic: Callable[..., Any]) -> None:
        self.generic = generic

    def __call__(self, x: Any) -> Any:
        buf = _batch_last(x)
        if buf is None or x.ndim < 3:
            return self.generic(x)
        c, n = x.shape[1], x.shape[0]
        count = buf.size // (c * n)
        means = _inference_cpu.channel_mean(buf.reshape(c, count, n))
        if means is None:
            means = buf.reshape(c, count, n).sum(axis=1) * x.dtype.type(1 / count)
        return _Array(means.T.reshape(n, c, 1, 1))


class _Pointwise:
    """A 1x1 convolution (stride 1, no padding, one group) on a batch-innermost input: one GEMM
    ``W (O, C) @ X (C, H*W*N)`` into the output's own (O, H, W, N) buffer, then the bias and the
    activation in one pass; the layer's geometry checks and column views are skipped. Other
    layouts go to the generic function (with the bias as an input)."""

    def __init__(self, generic: Callable[..., Any], w: np.ndarray, bias: Any, act: str) -> None:
        self.generic, self.w2 = generic, w.reshape(w.shape[0], -1)
        self.w, self.bias, self.act = w, bias, act

    def __call__(self, x: Any, w: Any, b: Any = None, **kwargs: Any) -> Any:
        bias = self.bias if b is None else b  # the plan's (a separated bias) or the input
        buf = _batch_last(x)
        if buf is None and type(x) is np.ndarray and x.ndim > 2:  # the batch-innermost copy
            buf = np.ascontiguousarray(x.transpose((*range(1, x.ndim), 0)))
        if buf is None or buf.shape[0] != self.w2.shape[1] or buf.dtype != self.w2.dtype:
            out = self.generic(x, w, bias, **kwargs).data
            if self.act:
                _act(out, self.act)
            return _Array(out)
        x2 = buf.reshape(buf.shape[0], -1)
        y = _inference_cpu.pointwise(self.w2, x2, bias, self.act)
        if y is not None:  # the vector loop, bias and activation in its registers
            out = y.reshape((y.shape[0], *buf.shape[1:]))
            return _Array(out.transpose((x.ndim - 1, *range(x.ndim - 1))))
        y = products.matmul(self.w2, x2)
        if bias is not None:
            bias = bias.reshape(-1)
            if not _inference_cpu.bias_act(y, bias, self.act):
                y += bias.reshape(-1, 1)
                if self.act:
                    _act(y, self.act)
        elif self.act:
            _act(y, self.act)
        out = y.reshape((y.shape[0], *buf.shape[1:]))
        return _Array(out.transpose((x.ndim - 1, *range(x.ndim - 1))))


def _maps_with_constant_weights(step: Step, inputs: list[Ref]) -> bool:
    """A step of (C, H, W) samples whose weight (and bias, if any) the plan holds as constants."""
    return (
        len(step.shape) == 3
        and inputs[1][0] in ("param", "folded")
        and (len(inputs) < 3 or inputs[2][0] in ("param", "folded", "none"))
    )


def _pointwise(step: Step, inputs: list[Ref]) -> bool:
    kw = step.kwargs
    return (
        step.type == "Convolution"
        and _maps_with_constant_weights(step, inputs)
        and int(kw.get("group", 1)) == 1
        and int(kw.get("base_axis", 1)) == 1
        and not kw.get("channel_last", False)
        and tuple(kw.get("pad") or (0, 0)) == (0, 0)
        and tuple(kw.get("stride") or (1, 1)) == (1, 1)
        and tuple(kw.get("dilation") or (1, 1)) == (1, 1)
    )


class _Affine:
    """An Affine layer (one output axis) as the 1x1 loop of :func:`_inference_cpu.pointwise`:
    ``y.T (O, N) = W.T (O, K) @ x (K, N)`` on the input's batch-innermost (K, N) buffer (a
    transposed copy when it has another layout), the bias and the activation in the loop's
    registers, handed out as the (N, O) view of the (O, N) buffer, itself batch-innermost for
    the next Affine. Each sample's outputs are the same sums in the same order whatever the
    batch (OpenBLAS picks its kernel by the product's size), so the plan may cut the batch
    across threads through it. A batch that is not whole SIMD vectors takes the generic
    function, then the activation."""

    def __init__(self, generic: Callable[..., Any], w: np.ndarray, act: str) -> None:
        self.generic, self.act = generic, act
        self.wt = np.ascontiguousarray(w.T, dtype=np.float32)  # (O, K)

    def __call__(self, x: Any, w: Any, b: Any = None, base_axis: int = 1) -> Any:
        lanes = _inference_cpu.lanes()
        if (
            lanes
            and type(x) is np.ndarray
            and x.dtype == np.float32
            and x.ndim >= 2
            and x.shape[0] % lanes == 0
            and x.size == x.shape[0] * self.wt.shape[1]
        ):
            n = x.shape[0]
            buf = _batch_last(x)
            if buf is None:
                buf = np.ascontiguousarray(x.reshape(n, -1).T)
            bias = None if b is None else np.asarray(b).reshape(-1)
            y = _inference_cpu.pointwise(self.wt, buf.reshape(-1, n), bias, self.act)
            if y is not None:
                return _Array(y.T)
        out = self.generic(x, w, b, base_axis=base_axis).data
        if self.act:
            _act(out, self.act)
        return _Array(out)


def _affine(step: Step, inputs: list[Ref], w: Any) -> bool:
    """Whether the plan runs Affine ``step`` as :class:`_Affine`: one output axis, base axis
    1, float32 weights and a bias (if any) that are parameters or folded ones."""
    return (
        step.type == "Affine"
        and len(inputs) > 1
        and len(step.shape) == 1
        and int(step.kwargs.get("base_axis", 1)) == 1
        and inputs[1][0] in ("param", "folded")
        and (len(inputs) < 3 or inputs[2][0] in ("param", "folded", "none"))
        and type(w) is np.ndarray
        and w.dtype == np.float32
        and w.ndim == 2
    )


class _Dense:
    """A 2-D convolution (one group, a window larger than 1x1) straight on the direct kernel
    (:mod:`engine.core.ops._direct_conv`: the input zero-padded into its batch-innermost copy,
    a register-blocked product, no columns), the calls the layer makes without its geometry
    checks and autograd record (tens of microseconds a layer, held under the GIL the parts of
    a split batch share); a bias the layer would add goes through the plan's compiled pass
    (the same float32 sums). Batches the kernel does not take go to the generic function.
    While a pass runs on one thread per part (or alone) the kernel runs on its thread without
    asking BLAS its thread count: that ctypes call lets the GIL go mid-op, and taking it back
    from the other part's thread costs a wake-up each time."""

    def __init__(self, generic: Callable[..., Any]) -> None:
        self.generic = generic

    def __call__(self, x: Any, w: Any, b: Any = None, **kwargs: Any) -> Any:
        if (
            type(x) is np.ndarray
            and x.ndim == 4
            and type(w) is np.ndarray
            and w.ndim == 4
            and x.shape[1] == w.shape[1]
            and _direct_conv.applies(x, 1, w.shape[2:], True)
        ):
            pad = tuple(kwargs.get("pad") or (0, 0))
            stride = tuple(kwargs.get("stride") or (1, 1))
            dilation = tuple(kwargs.get("dilation") or (1, 1))
            out = tuple(
                conv_out_size(*a)
                for a in zip(x.shape[2:], w.shape[2:], pad, stride, dilation, strict=True)
            )
            if min(out) >= 1:
                xp = _direct_conv.padded(x.transpose(1, 2, 3, 0), pad)
                split = not _inference_cpu.alone()
                y = _direct_conv.forward(xp, w, stride, dilation, out, split)
                if b is not None:
                    _bias_act(y.transpose(3, 0, 1, 2), np.asarray(b).reshape(-1), "")
                return _Array(y.transpose(3, 0, 1, 2))
        return self.generic(x, w, b, **kwargs)


def _dense(step: Step, inputs: list[Ref], w: Any) -> bool:
    """Whether the plan calls the direct kernel for Convolution ``step`` itself (:class:`_Dense`):
    2-D, one group, channels first, a float32 weight parameter with a window larger than 1x1."""
    kw = step.kwargs
    return (
        step.type == "Convolution"
        and _maps_with_constant_weights(step, inputs)
        and int(kw.get("group", 1)) == 1
        and int(kw.get("base_axis", 1)) == 1
        and not kw.get("channel_last", False)
        and type(w) is np.ndarray
        and w.dtype == np.float32
        and w.ndim == 4
        and w.shape[2] * w.shape[3] > 1
    )


class _AddInto:
    """Add2 into ``x0``'s own buffer (no new array), then the activation after it, one pass
    (:func:`engine.core.ops._inference_cpu.add_act`): the sum NumPy's ``x0 + x1`` gives."""

    def __init__(self, act: str) -> None:
        self.act = act

    def __call__(self, x0: Any, x1: Any, inplace: bool = False) -> _Array:
        if type(x0) is not np.ndarray or x0.shape != np.shape(x1) or not x0.flags.writeable:
            out = x0 + x1
        else:
            out = x0
            if _inference_cpu.add_act(x0, x1, self.act):
                return _Array(out)
            np.add(x0, x1, out=x0)
        if self.act:
            _act(out, self.act)
        return _Array(out)


class _Depthwise:
    """A 2-D depthwise convolution (multiplier 1) on a batch-innermost float32 input: the
    vector kernel with the bias and activation applied before each store, its channels shared
    by the threads (:func:`engine.core.ops._inference_cpu.depthwise`); other inputs go to the
    generic function, then the bias pass."""

    def __init__(self, generic: Callable[..., Any], w: np.ndarray, bias: Any, act: str) -> None:
        self.generic, self.bias, self.act = generic, bias, act
        self.w = np.ascontiguousarray(w.reshape(w.shape[0], *w.shape[-2:]), dtype=np.float32)

    def __call__(self, x: Any, w: Any, b: Any = None, **kwargs: Any) -> Any:
        bias = self.bias if b is None else b
        buf = _batch_last(x)
        if buf is not None and x.ndim == 4 and buf.shape[0] == self.w.shape[0]:
            pad = tuple(kwargs.get("pad") or (0, 0))
            stride = tuple(kwargs.get("stride") or (1, 1))
            dilation = tuple(kwargs.get("dilation") or (1, 1))
            out = tuple(
                conv_out_size(*a)
                for a in zip(x.shape[2:], self.w.shape[1:], pad, stride, dilation, strict=True)
            )
            y = None
            if min(out) >= 1:
                b1 = None if bias is None else np.asarray(bias).reshape(-1)
                y = _inference_cpu.depthwise(buf, self.w, b1, pad, stride, dilation, out, self.act)
            if y is not None:
                return _Array(y.transpose(3, 0, 1, 2))
        if b is None and bias is not None:  # the plan holds the bias: the layer runs without it
            out = self.generic(x, w, None, **kwargs).data
            _bias_act(out, bias, self.act)
        else:
            out = self.generic(x, w, b, **kwargs).data
            if self.act:
                _act(out, self.act)
        return _Array(out)


def _depthwise(step: Step, inputs: list[Ref]) -> bool:
    kw = step.kwargs
    return (
        step.type == "DepthwiseConvolution"
        and _maps_with_constant_weights(step, inputs)
        and int(kw.get("multiplier", 1)) == 1
        and int(kw.get("base_axis", 1)) == 1
    )


def _act(out: np.ndarray, act: str) -> None:
    if act == "ReLU":
        np.maximum(out, 0, out=out)
    else:
        np.clip(out, 0, 6, out=out)


def _bias_act(out: np.ndarray, bias: np.ndarray, act: str, residual: Any = None) -> None:
    """``out`` (N, C, ...) += ``bias`` (C,) per channel (then ``+= residual``, a folded Add2's
    other operand), then ``act``, in place: one compiled pass over the (C, rest) matrix a
    convolution's channels-major buffer is, else NumPy."""
    rows = _channel_rows(out)
    res_rows = None
    if residual is not None:
        same = type(residual) is np.ndarray and residual.strides == out.strides
        res_rows = _channel_rows(residual) if same and residual.shape == out.shape else None
        if res_rows is None:
            rows = None
    if rows is None or not _inference_cpu.bias_act(rows, bias, act, res_rows):
        out += bias.reshape((1, -1) + (1,) * (out.ndim - 2))
        if residual is not None:
            out += residual
        if act:
            _act(out, act)


def _channel_rows(out: np.ndarray) -> np.ndarray | None:
    """``out`` (N, C, ...) as a (C, rest) contiguous view when its memory is channels-major."""
    order = sorted(range(out.ndim), key=lambda i: -out.strides[i])
    if order[0] != 1 or min(out.strides) < 0:
        return None
    t = out.transpose(order)
    return t.reshape(out.shape[1], -1) if t.flags.c_contiguous else None

"""ONNX rules of the Pooling layers and of Mean (see the package docstring).

Pooling sizes follow the engine's rule (``pooled_sizes``, floor division): IgnoreBorder=False
is written as the right padding that completes the last window, since ONNX's ceil_mode differs
between runtimes on that window, and read back the same way.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from engine.core.ops.pooling import pooled_sizes
from engine.layers.errors import ExportError
from engine.layers.onnx_rules.basic import pads

__all__ = ["write_pooling", "write_sum_pooling", "write_unpooling", "write_mean", "read_pool",
           "read_resize", "read_reduce_mean", "read_reduce", "write_reduce",
           "read_lrn"]  # fmt: skip


def _error(message: str) -> Exception:
    return ExportError(message)


def write_pooling(op: str) -> Callable[[Any, Any, list[str]], str]:
    """MaxPooling (MaxPool), AveragePooling (AveragePool)."""

    def write(g: Any, step: Any, ins: list[str]) -> str:
        kw = step.kwargs
        if kw.get("channel_last"):
            raise _error(f'layer "{step.name}": channel-last pooling is not exportable')
        kernel = tuple(kw["kernel"])
        n = len(kernel)
        stride = tuple(kw.get("stride") or kernel)
        pad = tuple(kw.get("pad") or (0,) * n)
        ignore_border = kw.get("ignore_border", True)
        size = g.in_shape(step)[-n:]
        # Right padding that gives exactly the engine's size with floor division.
        ends = [(out - 1) * s + k - i - p for out, k, s, p, i in
                zip(step.shape[-n:], kernel, stride, pad, size, strict=True)]  # fmt: skip
        if min(ends) < 0 and not ignore_border:
            raise _error(f'layer "{step.name}": this pooling geometry is not exportable')
        ends = [p if ignore_border else max(e, 0) for e, p in zip(ends, pad, strict=True)]
        attrs: dict[str, Any] = {"kernel_shape": list(kernel), "strides": list(stride),
                                 "pads": [*pad, *ends]}  # fmt: skip
        if op == "AveragePool":
            # nnabla divides by the window's cells inside [-pad, in + pad): ONNX counts them with
            # count_include_pad when the right padding is the pad, the input cells without it.
            padded = bool(kw.get("including_pad", True)) and any(pad)
            if padded and ends != list(pad):
                raise _error(f'layer "{step.name}": IgnoreBorder=False average pooling '
                             f"with IncludingPad and Padding is not exportable")  # fmt: skip
            attrs["count_include_pad"] = int(padded)
        return str(g.node(op, ins[:1], step.name, **attrs))

    return write


def write_sum_pooling(g: Any, step: Any, ins: list[str]) -> str:
    """SumPooling: AveragePool times the window's size; zero padding (LRN's channel window)
    is counted in the average (``count_include_pad``), so the product is the padded sum."""
    kw = step.kwargs
    if not kw.get("ignore_border", True):  # (a partial last window: a mean of fewer cells)
        raise _error(f'layer "{step.name}": only IgnoreBorder=True SumPooling is exportable')
    count = g.const("count", np.float32(np.prod(kw["kernel"])))
    if len(kw["kernel"]) < len(g.in_shape(step)):
        mean = write_pooling("AveragePool")(g, step, ins)  # (no IncludingPad: it is 1)
        return str(g.node("Mul", [mean, count], step.name))
    # a window over the channels too (LRN's): a pooling of one channel over (C, H, W)
    axis = g.ints("axis", [1])
    x = g.node("Unsqueeze", [ins[0], axis], step.name)
    total = g.node("Mul", [write_pooling("AveragePool")(g, step, [x]), count], step.name)
    return str(g.node("Squeeze", [total, axis], step.name))


def write_unpooling(g: Any, step: Any, ins: list[str]) -> str:
    """Unpooling repeats each value ``kernel`` times per axis: nearest-neighbour Resize."""
    kernel = list(step.kwargs["kernel"])
    rank = len(g.in_shape(step)) + 1
    scales = g.const("scales", np.array([1.0] * (rank - len(kernel)) + kernel, np.float32))
    return str(g.node("Resize", [ins[0], "", scales], step.name, mode="nearest",
                      coordinate_transformation_mode="asymmetric",
                      nearest_mode="floor"))  # fmt: skip


def write_mean(g: Any, step: Any, ins: list[str]) -> str:
    """Mean: ReduceMean over the same axes (input from opset 18, attribute before)."""
    return write_reduce("ReduceMean")(g, step, ins)


_AXES_INPUT = {"ReduceSum": 13}  # the opset from which the axes are an input (else 18)


def write_reduce(op: str) -> Callable[[Any, Any, list[str]], str]:
    """Mean, Sum, Max, Min: ReduceMean/Sum/Max/Min over the same axes."""

    def write(g: Any, step: Any, ins: list[str]) -> str:
        rank = len(g.in_shape(step)) + 1
        axes = step.kwargs.get("axis")
        axes = list(range(rank)) if axes is None else [axes] if isinstance(axes, int) else list(
            axes)  # fmt: skip
        keep = int(bool(step.kwargs.get("keepdims", False)))
        if (
            step.kwargs.get("only_index")
            and not step.kwargs.get("with_index")
            and (len(axes) == 1 and op in _ARG)
        ):  # the index over one axis: ArgMax/ArgMin, as float (the network's type)
            index = g.node(_ARG[op], ins[:1], step.name + "/index", axis=int(axes[0]),
                           keepdims=keep)  # fmt: skip
            return str(g.node("Cast", [index], step.name, to=1))
        if step.kwargs.get("with_index") or step.kwargs.get("only_index"):
            raise _error(f'layer "{step.name}": an index output is not exportable (but the '
                         "index alone over one axis, ArgMax/ArgMin)")  # fmt: skip
        if g.opset >= _AXES_INPUT.get(op, 18):
            return str(g.node(op, [ins[0], g.ints("axes", axes)], step.name, keepdims=keep))
        return str(g.node(op, ins[:1], step.name, axes=axes, keepdims=keep))

    return write


def read_lrn(ctx: Any, node: Any) -> None:
    """LRN as the layers that compute it: ``x / (bias + alpha / size * window_sum(x^2))^beta``,
    the window sum over channels a SumPooling of kernel (size, 1, ...) (PowScalar 2,
    SumPooling, MulScalar, AddScalar, PowScalar, Div2; named after the node)."""
    a = ctx.attrs(node)
    size = int(a["size"])
    shape = ctx.shapes[node.input[0]]
    if size % 2 == 0:
        raise ctx.fail(node, f"an even window (size {size}) is asymmetric: no NNC equivalent")
    rest = len(shape) - 2
    out = node.output[0]
    names = [f"{out}/{k}" for k in ("square", "window", "scale", "bias", "power")]
    x = node.input[0]
    ctx.emit(node, "PowScalar", [x], output=names[0], suffix="/square", val=2.0)
    ctx.emit(node, "SumPooling", [names[0]], output=names[1], suffix="/window",
             kernel=[size] + [1] * rest, stride=[1] * (rest + 1), ignore_border=True,
             pad=[size // 2] + [0] * rest)  # fmt: skip
    ctx.emit(node, "MulScalar", [names[1]], output=names[2], suffix="/scale",
             val=float(a.get("alpha", 1e-4)) / size)  # fmt: skip
    ctx.emit(node, "AddScalar", [names[2]], output=names[3], suffix="/bias",
             val=float(a.get("bias", 1.0)))  # fmt: skip
    ctx.emit(node, "PowScalar", [names[3]], output=names[4], suffix="/power",
             val=float(a.get("beta", 0.75)))  # fmt: skip
    ctx.emit(node, "Div2", [x, names[4]])


def read_pool(ctx: Any, node: Any) -> None:
    """MaxPool as MaxPooling, AveragePool as AveragePooling."""
    a = ctx.attrs(node)
    kernel = list(a["kernel_shape"])
    strides = list(a.get("strides", [1] * len(kernel)))
    if a.get("ceil_mode", 0) or any(d != 1 for d in a.get("dilations", [])):
        raise ctx.fail(node, "ceil_mode/dilations have no NNC equivalent")
    n = len(kernel)
    given = list(a.get("pads", [0] * (2 * n)))
    if _one_window(ctx, node, a, kernel, given):
        return
    ignore_border = True
    if given[:n] != given[n:] and a.get("auto_pad") is None:
        # Extra right padding that only completes the last window: IgnoreBorder=False.

        size, out = ctx.shapes[node.input[0]][2:], ctx.shapes[node.output[0]][2:]
        if tuple(out) != tuple(pooled_sizes(size, kernel, strides, given[:n], False)):
            raise ctx.fail(node, f"asymmetric pads {given} have no NNC equivalent")
        pad, ignore_border = given[:n], False
    else:
        pad = pads(ctx, node, a, kernel, strides, [1] * n)
    common = {"kernel": kernel, "stride": strides, "ignore_border": ignore_border, "pad": pad,
              "channel_last": False}  # fmt: skip
    if node.op_type == "MaxPool":
        ctx.emit(node, "MaxPooling", node.input[:1], **common)
    else:
        include = bool(a.get("count_include_pad", 0))
        ctx.emit(node, "AveragePooling", node.input[:1], including_pad=include, **common)


def _one_window(ctx: Any, node: Any, a: dict[str, Any], kernel: list[int],
                given: list[int]) -> bool:  # fmt: skip
    """A pooling whose one window covers the whole input (Inception's 7x7 average over a 6x6
    map with a padded border that is not counted): GlobalAveragePooling, or Max over the
    spatial axes."""
    n = len(kernel)
    size, out = ctx.shapes[node.input[0]][2:], ctx.shapes[node.output[0]][2:]
    if len(size) != n or len(out) != n or any(o != 1 for o in out):
        return False
    if a.get("auto_pad") not in (None, b"NOTSET", "NOTSET"):
        return False
    windows = zip(kernel, size, given[:n], given[n:], strict=True)
    if any(k < s or k > s + b + e for k, s, b, e in windows) or tuple(kernel) == tuple(size):
        return False  # (a window exactly the input: the plain reading)
    if node.op_type == "AveragePool":
        if a.get("count_include_pad", 0) or n != 2:
            return False
        ctx.emit(node, "GlobalAveragePooling", node.input[:1])
    else:
        axes = list(range(2, 2 + n))
        ctx.emit(node, "Max", node.input[:1], axes=axes, keep_dims=True, with_index=False,
                 only_index=False)  # fmt: skip
    return True


def read_resize(ctx: Any, node: Any) -> None:
    """Resize/Upsample, nearest, by integer factors as Unpooling, when the source pixel ONNX
    picks for each output pixel (its coordinate transformation and rounding) is the one
    Unpooling repeats; else a clear error."""
    a = {k: v.decode() if isinstance(v, bytes) else v for k, v in ctx.attrs(node).items()}
    src, out = ctx.shapes[node.input[0]], ctx.shapes[node.output[0]]
    factors = [o // s if s else 0 for o, s in zip(out[2:], src[2:], strict=True)]
    if a.get("mode", "nearest") != "nearest" or out[:2] != src[:2] or any(
        f < 1 or f * s != o for f, s, o in zip(factors, src[2:], out[2:], strict=True)
    ):  # fmt: skip
        raise ctx.fail(node, "only nearest resizing by integer factors has an NNC layer")
    if node.op_type == "Resize" and ctx.opset >= 11:
        transform = a.get("coordinate_transformation_mode", "half_pixel")
        rounding = a.get("nearest_mode", "round_prefer_floor")
    else:  # Upsample, Resize-10: asymmetric, floor
        transform, rounding = "asymmetric", "floor"
    scales = _resize_scales(ctx, node, src, out)
    for axis, (size, f) in enumerate(zip(src[2:], factors, strict=True)):
        picked = _nearest_sources(size, size * f, scales[axis + 2], transform, rounding)
        if picked is None or picked != [j // f for j in range(size * f)]:
            raise ctx.fail(node, f"nearest resizing with coordinate_transformation_mode="
                           f"{transform} and nearest_mode={rounding} picks other pixels than "
                           f"Unpooling (the only NNC layer that resizes by nearest)")  # fmt: skip
    ctx.emit(node, "Unpooling", node.input[:1], kernel=factors)


def _resize_scales(ctx: Any, node: Any, src: Any, out: Any) -> list[float]:
    """The scales ONNX transforms coordinates with: the ``scales`` given, else out / in."""
    k = 2 if node.op_type == "Resize" and ctx.opset >= 11 else 1
    if len(node.input) > k and node.input[k] and node.input[k] in ctx.consts:
        given = ctx.consts[node.input[k]].astype(float).reshape(-1)
        if given.size == len(src):
            return list(given)
    if node.op_type == "Upsample" and "scales" in ctx.attrs(node):
        return [float(v) for v in ctx.attrs(node)["scales"]]
    return [o / s for o, s in zip(out, src, strict=True)]


def _nearest_sources(size: int, length: int, scale: float, transform: str,
                     rounding: str) -> list[int] | None:  # fmt: skip
    """The input index ONNX's nearest Resize reads for each output index (None: a mode this
    reading does not know)."""
    import math

    picked = []
    for j in range(length):
        if transform == "half_pixel":
            x = (j + 0.5) / scale - 0.5
        elif transform == "pytorch_half_pixel":
            x = (j + 0.5) / scale - 0.5 if length > 1 else 0.0
        elif transform == "align_corners":
            x = j * (size - 1) / (length - 1) if length > 1 else 0.0
        elif transform == "asymmetric":
            x = j / scale
        elif transform == "tf_half_pixel_for_nn":
            x = (j + 0.5) / scale
        else:
            return None
        if rounding == "floor":
            i = math.floor(x)
        elif rounding == "ceil":
            i = math.ceil(x)
        elif rounding == "round_prefer_ceil":
            i = math.floor(x + 0.5)
        elif rounding == "round_prefer_floor":
            i = math.ceil(x - 0.5)
        else:
            return None
        picked.append(min(max(i, 0), size - 1))
    return picked


_REDUCED = {"ReduceMean": "Mean", "ReduceSum": "Sum", "ReduceMax": "Max", "ReduceMin": "Min"}
_ARG = {"ReduceMax": "ArgMax", "ReduceMin": "ArgMin"}


def _read_arg(ctx: Any, node: Any) -> None:
    """ArgMax/ArgMin over one non-batch axis (the first index of the extreme) as Max/Min with
    OnlyIndex; the index is a float in the network."""
    a = ctx.attrs(node)
    rank = len(ctx.shapes[node.input[0]])
    axis = int(a.get("axis", 0))
    axis = axis + rank if axis < 0 else axis
    if axis == 0:
        raise ctx.fail(node, "an index over the batch axis has no NNC equivalent")
    layer, keep, out = node.op_type.removeprefix("Arg"), bool(a.get("keepdims", 1)), node.output[0]
    if not a.get("select_last_index", 0):
        ctx.emit(node, layer, node.input[:1], axes=[axis], keep_dims=keep, with_index=False,
                 only_index=True)  # fmt: skip
        return
    # the last index: (n - 1) - the first index in the axis reversed
    ctx.emit(node, "Flip", node.input[:1], output=out + "/flip", suffix="/flip", axes=[axis])
    ctx.emit(node, layer, [out + "/flip"], output=out + "/index", suffix="/index", axes=[axis],
             keep_dims=keep, with_index=False, only_index=True)  # fmt: skip
    ctx.emit(node, "RSubScalar", [out + "/index"], val=float(ctx.shapes[node.input[0]][axis] - 1))


def read_reduce(ctx: Any, node: Any) -> None:
    """ReduceMean/Sum/Max/Min (not over the batch) as Mean/Sum/Max/Min; ArgMax/ArgMin as
    Max/Min with OnlyIndex."""
    if node.op_type in ("ArgMax", "ArgMin"):
        _read_arg(ctx, node)
        return
    a = ctx.attrs(node)
    axes = a.get("axes")
    if axes is None and len(node.input) > 1 and node.input[1]:
        axes = ctx.const(node, 1, "axes").tolist()
    rank = len(ctx.shapes[node.input[0]])
    if not axes and a.get("noop_with_empty_axes", 0):
        ctx.alias[node.output[0]] = ctx.var(node.input[0])
        return
    axes = sorted(x + rank if x < 0 else x for x in (axes or range(rank)))  # none: every axis
    if 0 in axes:
        what = _REDUCED[node.op_type].lower()
        raise ctx.fail(node, f"a {what} over the batch axis has no NNC equivalent")
    layer = _REDUCED[node.op_type]
    extra = {"with_index": False, "only_index": False} if layer in ("Max", "Min") else {}
    ctx.emit(node, layer, node.input[:1], axes=axes, keep_dims=bool(a.get("keepdims", 1)),
             **extra)  # fmt: skip


read_reduce_mean = read_reduce

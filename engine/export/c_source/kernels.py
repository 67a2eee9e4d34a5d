"""One C writer per layer type: the loops of a layer, written out with its sizes as constants.

``WRITERS`` maps a catalogue layer type to ``write(ctx, step) -> list of C lines``. The lines
are the body of one block of ``model_infer``; ``ctx`` (:class:`engine.export.c_source.Context`)
offers ``ctx.inp(k)`` (input ``k`` as a ``const float *`` expression), ``ctx.out`` (the output
pointer), ``ctx.in_shape(k)`` (without the batch axis), ``ctx.param(k)`` (input ``k``, a
parameter, as a ``const float`` array in parameters.c; None when absent), ``ctx.const(hint,
array)`` (a derived constant array, e.g. BatchNormalization folded into a scale and a shift)
and ``ctx.fail(message)``. Steps in :data:`engine.export.c_source.plan.ALIASES` have no writer
(their output is their input). Every key is a catalogue layer type (a test checks it), so the
exporter's list of what it can write is this table only.

The arithmetic follows the engine's kernels (float32, test mode): a convolution or affine adds
its bias after the products, BatchNormalization is ``x * scale + shift`` with ``scale = gamma /
sqrt(var + eps)`` and ``shift = beta - mean * scale`` folded in float64, Softmax subtracts the
maximum, the quantizers round as :mod:`engine.core.ops.quantize` does.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

__all__ = ["WRITERS", "flt"]


def flt(value: float) -> str:
    """A float32 C literal that reads back as the same float32."""
    v = float(np.float32(value))
    if not math.isfinite(v):
        raise ValueError(f"{value} is not a finite number")
    text = f"{v:.9g}"
    if "." not in text and "e" not in text:
        text += ".0"
    return text + "f"


def _size(shape: Any) -> int:
    return math.prod(shape)


def _spatial(ctx: Any, step: Any, what: str, kernel: Any) -> tuple[int, int, int, int, int]:
    """(planes, H, W, OH, OW) of a 2-D window op on (..., H, W)."""
    shape, out = ctx.in_shape(0), step.shape
    if len(kernel) != 2 or len(shape) < 2:
        ctx.fail(f"{what}: only 2-D windows are written (kernel {tuple(kernel)})")
    return _size(shape[:-2]), shape[-2], shape[-1], out[-2], out[-1]


def _convolution(ctx: Any, step: Any) -> list[str]:
    kw = step.kwargs
    x_shape = ctx.in_shape(0)
    weight = ctx.param_shape(1)
    if kw.get("base_axis", 1) != 1 or kw.get("channel_last", False) or len(x_shape) != 3:
        ctx.fail("only (C, H, W) inputs, channels first, base axis 1 are written")
    C, H, W = x_shape
    OC, OH, OW = step.shape
    KH, KW = weight[-2:]
    if step.type == "DepthwiseConvolution":
        groups, icg = C, 1
    else:
        groups, icg = int(kw.get("group", 1)), int(weight[1])
    ocg = OC // groups
    (sy, sx), (py, px), (dy, dx) = kw["stride"], kw["pad"], kw["dilation"]
    w, b = ctx.param(1), ctx.param(2)
    if groups == 1:
        channel = "ic"
    elif icg == 1:
        channel = f"oc / {ocg}"
    else:
        channel = f"(oc / {ocg}) * {icg} + ic"
    looped = icg > 1 or groups == 1
    pad = "  " if looped else ""
    body = [
        f"{pad}      for (ky = 0; ky < {KH}; ++ky) {{",
        f"{pad}        int iy = oy * {sy} - {py} + ky * {dy};",
        f"{pad}        if (iy < 0 || iy >= {H}) continue;",
        f"{pad}        for (kx = 0; kx < {KW}; ++kx) {{",
        f"{pad}          int ix = ox * {sx} - {px} + kx * {dx};",
        f"{pad}          if (ix < 0 || ix >= {W}) continue;",
        f"{pad}          acc += x[(({channel}) * {H} + iy) * {W} + ix]"
        f" * {w}[(({'oc * ' + str(icg) + ' + ic' if looped else 'oc'}) * {KH} + ky) * {KW} + kx];",
        f"{pad}        }}",
        f"{pad}      }}",
    ]
    if looped:
        body = [f"      for (ic = 0; ic < {icg}; ++ic) {{", *body, "      }"]
    return [
        f"const float *x = {ctx.inp(0)};",
        f"float *y = {ctx.out};",
        f"int oc, oy, ox, ky, kx{', ic' if looped else ''};",
        f"for (oc = 0; oc < {OC}; ++oc) {{",
        f"  for (oy = 0; oy < {OH}; ++oy) {{",
        f"    for (ox = 0; ox < {OW}; ++ox) {{",
        "      float acc = 0.0f;",
        *body,
        f"      y[(oc * {OH} + oy) * {OW} + ox] = acc{f' + {b}[oc]' if b else ''};",
        "    }",
        "  }",
        "}",
    ]


def _affine(ctx: Any, step: Any) -> list[str]:
    if step.kwargs.get("base_axis", 1) != 1:
        ctx.fail("only base axis 1 is written")
    k, n = _size(ctx.in_shape(0)), _size(step.shape)
    w, b = ctx.param(1), ctx.param(2)
    return [
        f"const float *x = {ctx.inp(0)};",
        f"float *y = {ctx.out};",
        "int i, j;",
        f"for (j = 0; j < {n}; ++j) y[j] = 0.0f;",
        f"for (i = 0; i < {k}; ++i) {{",
        "  const float xi = x[i];",
        f"  const float *row = {w} + i * {n};",
        f"  for (j = 0; j < {n}; ++j) y[j] += xi * row[j];",
        "}",
        *([f"for (j = 0; j < {n}; ++j) y[j] += {b}[j];"] if b else []),
    ]


def _batch_normalization(ctx: Any, step: Any) -> list[str]:
    shape = ctx.in_shape(0)
    if tuple(step.kwargs.get("axes", (1,))) != (1,):
        ctx.fail("only the channel axis (axes 1) is written")
    beta, gamma, mean, var = (ctx.value(k) for k in (1, 2, 3, 4))
    channels, inner = shape[0], _size(shape[1:])
    eps = float(step.kwargs.get("eps", 1e-5))
    ones = np.ones(channels)
    g = ones if gamma is None else gamma.astype(np.float64).reshape(-1)
    scale = g / np.sqrt((ones if var is None else var.astype(np.float64).reshape(-1)) + eps)
    m = np.zeros(channels) if mean is None else mean.astype(np.float64).reshape(-1)
    shift = (
        np.zeros(channels) if beta is None else beta.astype(np.float64).reshape(-1)
    ) - m * scale
    s, t = ctx.const("scale", scale), ctx.const("shift", shift)
    return [
        f"const float *x = {ctx.inp(0)};",
        f"float *y = {ctx.out};",
        "int c, i;",
        f"for (c = 0; c < {channels}; ++c)",
        f"  for (i = 0; i < {inner}; ++i)",
        f"    y[c * {inner} + i] = x[c * {inner} + i] * {s}[c] + {t}[c];",
    ]


def _pooling(kind: str) -> Callable[[Any, Any], list[str]]:
    def write(ctx: Any, step: Any) -> list[str]:
        kw = step.kwargs
        if kw.get("channel_last", False):
            ctx.fail("channel_last pooling is not written")
        planes, H, W, OH, OW = _spatial(ctx, step, step.type, kw["kernel"])
        KH, KW = kw["kernel"]
        sy, sx = kw.get("stride") or kw["kernel"]
        py, px = kw.get("pad") or (0, 0)
        if kind == "max":
            start, update, final = "-3.402823466e+38f", "if (v > acc) acc = v;", "acc"
        else:
            start, update = "0.0f", "acc += v; ++n;"
            final = "acc / (float)n" if not kw.get("including_pad", True) else (
                f"acc / {flt(KH * KW)}")  # fmt: skip
            if kw.get("including_pad", True) and not kw.get("ignore_border", True):
                ctx.fail("AveragePooling with IgnoreBorder=False and IncludingPad is not written")
        return [
            f"const float *x = {ctx.inp(0)};",
            f"float *y = {ctx.out};",
            "int p, oy, ox, ky, kx;",
            f"for (p = 0; p < {planes}; ++p)",
            f"  for (oy = 0; oy < {OH}; ++oy)",
            f"    for (ox = 0; ox < {OW}; ++ox) {{",
            f"      float acc = {start};",
            *(["      int n = 0;"] if kind != "max" else []),
            f"      for (ky = 0; ky < {KH}; ++ky) {{",
            f"        int iy = oy * {sy} - {py} + ky;",
            f"        if (iy < 0 || iy >= {H}) continue;",
            f"        for (kx = 0; kx < {KW}; ++kx) {{",
            f"          int ix = ox * {sx} - {px} + kx;",
            "          float v;",
            f"          if (ix < 0 || ix >= {W}) continue;",
            f"          v = x[(p * {H} + iy) * {W} + ix];",
            f"          {update}",
            "        }",
            "      }",
            *(["      (void)n;"] if kind != "max" and kw.get("including_pad", True) else []),
            f"      y[(p * {OH} + oy) * {OW} + ox] = {final};",
            "    }",
        ]

    return write


def _global_average_pooling(ctx: Any, step: Any) -> list[str]:
    shape = ctx.in_shape(0)
    planes, inner = _size(shape[:1]), _size(shape[1:])
    return [
        f"const float *x = {ctx.inp(0)};",
        f"float *y = {ctx.out};",
        "int c, i;",
        f"for (c = 0; c < {planes}; ++c) {{",
        "  float acc = 0.0f;",
        f"  for (i = 0; i < {inner}; ++i) acc += x[c * {inner} + i];",
        f"  y[c] = acc / {flt(inner)};",
        "}",
    ]


def _softmax(ctx: Any, step: Any) -> list[str]:
    shape = ctx.in_shape(0)
    axis = int(step.kwargs.get("axis", len(shape))) - 1  # without the batch axis
    if not 0 <= axis < len(shape):
        ctx.fail(f"axis {axis + 1} is the batch axis or out of range")
    outer, n, inner = _size(shape[:axis]), shape[axis], _size(shape[axis + 1 :])
    return [
        f"const float *x = {ctx.inp(0)};",
        f"float *y = {ctx.out};",
        "int o, i, k;",
        f"for (o = 0; o < {outer}; ++o)",
        f"  for (i = 0; i < {inner}; ++i) {{",
        f"    const int base = o * {n * inner} + i;",
        "    float top = x[base], sum = 0.0f;",
        f"    for (k = 1; k < {n}; ++k)",
        f"      if (x[base + k * {inner}] > top) top = x[base + k * {inner}];",
        f"    for (k = 0; k < {n}; ++k) {{",
        f"      y[base + k * {inner}] = expf(x[base + k * {inner}] - top);",
        f"      sum += y[base + k * {inner}];",
        "    }",
        f"    for (k = 0; k < {n}; ++k) y[base + k * {inner}] /= sum;",
        "  }",
    ]


def _unary(expression: Callable[[Any], str]) -> Callable[[Any, Any], list[str]]:
    def write(ctx: Any, step: Any) -> list[str]:
        n = _size(step.shape)
        return [
            f"const float *x = {ctx.inp(0)};",
            f"float *y = {ctx.out};",
            "int i;",
            f"for (i = 0; i < {n}; ++i) {{",
            "  const float v = x[i];",
            f"  y[i] = {expression(step.kwargs)};",
            "}",
        ]

    return write


def _binary(op: str) -> Callable[[Any, Any], list[str]]:
    def write(ctx: Any, step: Any) -> list[str]:
        if ctx.in_shape(0) != ctx.in_shape(1):
            ctx.fail(f"inputs of shapes {ctx.in_shape(0)} and {ctx.in_shape(1)}: broadcasting "
                     "is not written")  # fmt: skip
        n = _size(step.shape)
        return [
            f"const float *a = {ctx.inp(0)};",
            f"const float *b = {ctx.inp(1)};",
            f"float *y = {ctx.out};",
            "int i;",
            f"for (i = 0; i < {n}; ++i) y[i] = a[i] {op} b[i];",
        ]

    return write


def _concatenate(ctx: Any, step: Any) -> list[str]:
    axis = int(step.kwargs.get("axis", 1)) - 1
    if axis < 0:
        ctx.fail("concatenation along the batch axis is not written")
    outer = _size(step.shape[:axis])
    total = _size(step.shape[axis:])
    lines = [f"float *y = {ctx.out};", "int o, i;"]
    at = 0
    for k in range(len(step.inputs)):
        chunk = _size(ctx.in_shape(k)[axis:])
        lines += [
            f"for (o = 0; o < {outer}; ++o)",
            f"  for (i = 0; i < {chunk}; ++i)",
            f"    y[o * {total} + {at} + i] = ({ctx.inp(k)})[o * {chunk} + i];",
        ]
        at += chunk
    return lines


def _fixed_point(kw: Any) -> str:
    if not kw.get("quantize", True):
        return "v"
    bits = int(kw.get("n", 8)) - (1 if kw.get("sign", True) else 0)
    delta = float(np.float32(kw.get("delta", 0.0625)))
    top = float(np.float32((2**bits - 1) * delta))
    low = -top if kw.get("sign", True) else 0.0
    sign = "(v < 0.0f ? -1.0f : v > 0.0f ? 1.0f : 0.0f)"
    q = f"{sign} * floorf(fabsf(v) / {flt(delta)} + 0.5f) * {flt(delta)}"
    return f"v > {flt(top)} ? {flt(top)} : v < {flt(low)} ? {flt(low)} : {q}"


def _pow2(kw: Any) -> str:
    if not kw.get("quantize", True):
        return "v"
    sign, zero = bool(kw.get("sign", True)), bool(kw.get("with_zero", True))
    bits = int(kw.get("n", 8)) - int(sign) - int(zero)
    m = int(kw.get("m", 1))
    p_max, p_min = 2.0**m, 2.0 ** (m - (2**bits - 1))
    small = f"(fabsf(v) < {flt(p_min * 2.0**-0.5)} ? 0.0f : {flt(p_min)})" if zero else flt(p_min)
    q = f"nc_pow2(fabsf(v), {flt(p_max)}, {flt(p_min)}, {small})"
    if sign:
        return f"v < 0.0f ? -{q} : {q}"
    return f"v < 0.0f ? {'0.0f' if zero else flt(p_min)} : {q}"


WRITERS: dict[str, Callable[[Any, Any], list[str]]] = {
    "Convolution": _convolution,
    "DepthwiseConvolution": _convolution,
    "Affine": _affine,
    "BatchNormalization": _batch_normalization,
    "MaxPooling": _pooling("max"),
    "AveragePooling": _pooling("average"),
    "GlobalAveragePooling": _global_average_pooling,
    "Softmax": _softmax,
    "ReLU": _unary(lambda kw: "v > 0.0f ? v : 0.0f"),
    "ReLU6": _unary(lambda kw: "v < 0.0f ? 0.0f : v > 6.0f ? 6.0f : v"),
    "Tanh": _unary(lambda kw: "tanhf(v)"),
    "Sigmoid": _unary(lambda kw: "1.0f / (1.0f + expf(-v))"),
    "ELU": _unary(lambda kw: f"v > 0.0f ? v : {flt(kw.get('alpha', 1.0))} * (expf(v) - 1.0f)"),
    "LeakyReLU": _unary(lambda kw: f"v > 0.0f ? v : {flt(kw.get('alpha', 0.1))} * v"),
    "Abs": _unary(lambda kw: "fabsf(v)"),
    "Exp": _unary(lambda kw: "expf(v)"),
    "AddScalar": _unary(lambda kw: f"v + {flt(kw.get('val', 1.0))}"),
    "MulScalar": _unary(lambda kw: f"v * {flt(kw.get('val', 1.0))}"),
    "FixedPointQuantize": _unary(_fixed_point),
    "Pow2Quantize": _unary(_pow2),
    "Add2": _binary("+"),
    "Sub2": _binary("-"),
    "Mul2": _binary("*"),
    "Concatenate": _concatenate,
}

"""Integer arithmetic for networks with FixedPointQuantize layers (``quantize insert``).

A FixedPointQuantize with a power-of-two Delta ``2^e`` and at most 8 bits makes its output a
tensor of int8 *codes* ``k`` (value ``k * 2^e``). Codes flow through ReLU, MaxPooling and
Reshape unchanged in kind; a Convolution, DepthwiseConvolution or Affine whose input is codes
and whose weight is a quantized parameter (codes ``k_w``, Delta ``2^w``) multiplies int8 by
int8 into an int32 accumulator and adds its bias in the same integer grid (a quantized bias),
then writes the float value ``t * 2^g`` its next quantizer reads; an elementwise function of
codes (Tanh, Sigmoid...) is a table of its 2^n values computed by the engine itself. A
quantizer of a float requantizes as the engine rounds (half away from zero, clipped), a
quantizer of codes by a shift.

Why the results equal the engine's quantized simulation exactly: every value the engine
computes in float32 from codes is a multiple of a power of two; the export checks, per layer,
that the largest possible accumulator (the sum of ``|k_w|`` times the largest input code,
plus the bias) stays below 2^24, where float32 sums of such multiples are exact in any order,
so the integer sum is the engine's float sum. A layer past that bound, a non-power-of-two
Delta, more than 8 bits, or a layer reading codes that is not listed here makes the network
use float arithmetic instead, and the summary says which layer and why. The first layer (its
input is the raw image, not codes) and the layers after the last quantizer (Softmax) compute
in float32 as the float export does.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from engine.export.c_source.kernels import flt
from engine.export.c_source.plan import ALIASES
from engine.runtime.program import Program, Step

__all__ = ["Codes", "integer_plan", "INTEGER_WRITERS", "NotInteger"]

LUT_TYPES = frozenset({"Tanh", "Sigmoid", "ELU", "LeakyReLU", "ReLU6", "Abs", "Exp", "AddScalar",
                       "MulScalar"})  # fmt: skip
MAC_TYPES = frozenset({"Convolution", "DepthwiseConvolution", "Affine"})
EXACT = 2**24  # float32 sums of multiples of one power of two are exact below this many units


class NotInteger(Exception):
    """Why the network keeps float arithmetic (names the layer)."""


@dataclass(frozen=True)
class Codes:
    """A tensor of 8-bit codes ``k`` with value ``k * 2^exponent``."""

    exponent: int
    low: int
    high: int

    @property
    def ctype(self) -> str:
        """int8_t, or uint8_t for unsigned 8-bit codes (0..255)."""
        return "int8_t" if self.low < 0 else "uint8_t"


def _pow2(delta: float) -> int | None:
    e = round(math.log2(delta)) if delta > 0 else None
    return e if e is not None and 2.0**e == delta else None


def quantizer_codes(step: Step, where: str) -> Codes:
    kw = step.kwargs
    if not kw.get("quantize", True):
        raise NotInteger(f'{where} "{step.name}": Quantize is off')
    e = _pow2(float(kw.get("delta", 0.0625)))
    n, sign = int(kw.get("n", 8)), bool(kw.get("sign", True))
    if e is None:
        raise NotInteger(f'{where} "{step.name}": Delta {kw.get("delta")} is not a power of two')
    if n > 8:
        raise NotInteger(f'{where} "{step.name}": {n} bits (int8 codes take 8 at most)')
    top = 2 ** (n - 1 if sign else n) - 1
    return Codes(e, -top if sign else 0, top)


def integer_plan(program: Program, folded: Mapping[str, np.ndarray]) -> dict[str, Any]:
    """Step name -> :class:`Codes` (its output is codes) or ``"mac"`` (a layer multiplying
    codes) or ``"lut"`` (a table of codes); steps not listed compute in float.

    Raises:
        NotInteger: the network cannot compute exactly in integers (the reason).
    """
    steps = {s.name: s for s in program.steps}
    kinds: dict[str, Any] = {}

    def codes(ref: Any) -> Codes | None:
        kind = kinds.get(ref[1]) if ref[0] == "step" else None
        return kind if isinstance(kind, Codes) else None

    for step in program.steps:
        if step.name in folded or not step.inputs:
            continue
        source = codes(step.inputs[0])
        others = [codes(r) for r in step.inputs[1:]]
        if step.type == "FixedPointQuantize":
            kinds[step.name] = quantizer_codes(step, "layer")
        elif source is None and not any(others):
            continue  # float in, float out
        elif step.type in ALIASES or step.type in ("ReLU", "MaxPooling"):
            kinds[step.name] = source
        elif step.type in LUT_TYPES:
            kinds[step.name] = "lut"
        elif step.type in MAC_TYPES and source is not None:
            _check_mac(step, source, steps, folded)
            kinds[step.name] = "mac"
        else:
            raise NotInteger(f'layer "{step.name}" ({step.type}) reads int8 codes and has no '
                             "integer form")  # fmt: skip
    if not any(isinstance(k, Codes) for k in kinds.values()):
        raise NotInteger("no FixedPointQuantize on activations")
    return kinds


def _weight(step: Step, k: int, steps: Mapping[str, Step], folded: Mapping[str, np.ndarray]):
    """(codes array, exponent) of a quantized parameter input, or None (absent or float)."""
    ref = step.inputs[k] if k < len(step.inputs) else ("none",)
    if ref[0] != "step" or ref[1] not in folded or steps[ref[1]].type != "FixedPointQuantize":
        return None
    c = quantizer_codes(steps[ref[1]], "weight quantizer")
    values = folded[ref[1]].astype(np.float64)
    k_values = np.rint(values / 2.0**c.exponent)
    assert np.array_equal(k_values * 2.0**c.exponent, values)
    return k_values.astype(np.int64), c.exponent


def _check_mac(step: Step, source: Codes, steps: Mapping[str, Step], folded: Any) -> None:
    weight = _weight(step, 1, steps, folded)
    if weight is None:
        raise NotInteger(f'layer "{step.name}" ({step.type}): its weight is not quantized')
    kw, ew = weight
    top = max(abs(source.low), abs(source.high))
    per_output = np.abs(kw).reshape(kw.shape[0], -1).sum(axis=1) * top
    if step.type == "Affine":
        per_output = np.abs(kw).sum(axis=0) * top
    bias = _weight(step, 2, steps, folded)
    grid = source.exponent + ew
    if bias is not None:
        kb, eb = bias
        g = min(grid, eb)
        per_output = per_output * 2 ** (grid - g) + np.abs(kb).reshape(-1) * 2 ** (eb - g)
    elif len(step.inputs) > 2 and step.inputs[2][0] != "none":
        raise NotInteger(f'layer "{step.name}" ({step.type}): its bias is not quantized')
    if per_output.max(initial=0) >= EXACT:
        raise NotInteger(f'layer "{step.name}" ({step.type}): sums up to {int(per_output.max())} '
                         f"units, past float32's exact 2^24")  # fmt: skip


def _mac_parts(ctx: Any, step: Any) -> tuple[str, str | None, int, int]:
    """(weight codes array, bias codes array or None, shift of the accumulator, exponent of
    the result): value = (acc << shift + bias) * 2^exponent."""
    steps = {s.name: s for s in ctx.model.program.steps}
    kw, ew = _weight(step, 1, steps, ctx.model.folded)
    source = ctx.codes(0)
    grid = source.exponent + ew
    w = ctx.int8(f"{step.inputs[1][1]} codes (x 2^{ew})", kw)
    bias = _weight(step, 2, steps, ctx.model.folded)
    if bias is None:
        return w, None, 0, grid
    kb, eb = bias
    g = min(grid, eb)
    b = ctx.int32(f"{step.inputs[2][1]} in units of 2^{g}", kb.reshape(-1) * 2 ** (eb - g))
    return w, b, grid - g, g


def _mac(ctx: Any, step: Any) -> list[str]:
    w, b, shift, g = _mac_parts(ctx, step)
    scale = flt(2.0**g)
    ct = ctx.codes(0).ctype
    if step.type == "Affine":
        k, n = math.prod(ctx.in_shape(0)), math.prod(step.shape)
        return [
            f"const {ct} *x = {ctx.inp(0)};",
            f"float *y = {ctx.out};",
            "int i, j;",
            f"for (j = 0; j < {n}; ++j) {{",
            "  int32_t acc = 0;",
            f"  for (i = 0; i < {k}; ++i) acc += (int32_t)x[i] * {w}[i * {n} + j];",
            f"  y[j] = (float)(acc * {2**shift}{f' + {b}[j]' if b else ''}) * {scale};",
            "}",
        ]
    C, H, W = ctx.in_shape(0)
    OC, OH, OW = step.shape
    KH, KW = ctx.param_shape(1)[-2:]
    kwargs = step.kwargs
    depthwise = step.type == "DepthwiseConvolution"
    groups = C if depthwise else int(kwargs.get("group", 1))
    icg = C // groups
    ocg = OC // groups
    (sy, sx), (py, px), (dy, dx) = kwargs["stride"], kwargs["pad"], kwargs["dilation"]
    channel = "ic" if groups == 1 else f"(oc / {ocg}) * {icg} + ic"
    return [
        f"const {ct} *x = {ctx.inp(0)};",
        f"float *y = {ctx.out};",
        "int oc, oy, ox, ic, ky, kx;",
        f"for (oc = 0; oc < {OC}; ++oc)",
        f"  for (oy = 0; oy < {OH}; ++oy)",
        f"    for (ox = 0; ox < {OW}; ++ox) {{",
        "      int32_t acc = 0;",
        f"      for (ic = 0; ic < {icg}; ++ic)",
        f"        for (ky = 0; ky < {KH}; ++ky) {{",
        f"          int iy = oy * {sy} - {py} + ky * {dy};",
        f"          if (iy < 0 || iy >= {H}) continue;",
        f"          for (kx = 0; kx < {KW}; ++kx) {{",
        f"            int ix = ox * {sx} - {px} + kx * {dx};",
        f"            if (ix < 0 || ix >= {W}) continue;",
        f"            acc += (int32_t)x[(({channel}) * {H} + iy) * {W} + ix]"
        f" * {w}[((oc * {icg} + ic) * {KH} + ky) * {KW} + kx];",
        "          }",
        "        }",
        f"      y[(oc * {OH} + oy) * {OW} + ox] = (float)(acc * {2**shift}"
        f"{f' + {b}[oc]' if b else ''}) * {scale};",
        "    }",
    ]


def _quantize(ctx: Any, step: Any) -> list[str]:
    out = ctx.codes_of(step.name)
    n = math.prod(step.shape)
    lines = [f"{out.ctype} *y = {ctx.out};", "int i;"]
    source = ctx.codes(0)
    if source is None:  # from float, rounded as the engine: sign * floor(|v| / delta + 0.5)
        delta = flt(2.0**out.exponent)
        return lines[:1] + [
            f"const float *x = {ctx.inp(0)};",
            "int i;",
            f"for (i = 0; i < {n}; ++i) {{",
            "  const float v = x[i];",
            f"  y[i] = ({out.ctype})(v > {flt(out.high * 2.0**out.exponent)} ? {out.high} : "
            f"v < {flt(out.low * 2.0**out.exponent)} ? {out.low} : "
            f"(v < 0.0f ? -1.0f : 1.0f) * floorf(fabsf(v) / {delta} + 0.5f));",
            "}",
        ]
    s = out.exponent - source.exponent
    if s <= 0:
        scaled = f"(int32_t)x[i] * {2**-s}"
    else:  # half away from zero
        half = 2 ** (s - 1)
        scaled = f"((int32_t)x[i] + {half}) >> {s}"
        if source.low < 0:
            scaled = f"(x[i] < 0 ? -((-(int32_t)x[i] + {half}) >> {s}) : {scaled})"
    return lines + [
        f"const {source.ctype} *x = {ctx.inp(0)};",
        f"for (i = 0; i < {n}; ++i) {{",
        f"  const int32_t k = {scaled};",
        f"  y[i] = ({out.ctype})(k > {out.high} ? {out.high} : k < {out.low} ? {out.low} : k);",
        "}",
    ]


def _relu(ctx: Any, step: Any) -> list[str]:
    n = math.prod(step.shape)
    ct = ctx.codes(0).ctype
    return [
        f"const {ct} *x = {ctx.inp(0)};",
        f"{ct} *y = {ctx.out};",
        "int i;",
        f"for (i = 0; i < {n}; ++i) y[i] = x[i] > 0 ? x[i] : 0;",
    ]


def _max_pooling(ctx: Any, step: Any) -> list[str]:
    kw = step.kwargs
    shape, out = ctx.in_shape(0), step.shape
    if len(kw["kernel"]) != 2 or kw.get("channel_last", False):
        ctx.fail("only 2-D channels-first windows are written")
    planes, H, W, OH, OW = math.prod(shape[:-2]), shape[-2], shape[-1], out[-2], out[-1]
    KH, KW = kw["kernel"]
    sy, sx = kw.get("stride") or kw["kernel"]
    py, px = kw.get("pad") or (0, 0)
    source = ctx.codes(0)
    return [
        f"const {source.ctype} *x = {ctx.inp(0)};",
        f"{source.ctype} *y = {ctx.out};",
        "int p, oy, ox, ky, kx;",
        f"for (p = 0; p < {planes}; ++p)",
        f"  for (oy = 0; oy < {OH}; ++oy)",
        f"    for (ox = 0; ox < {OW}; ++ox) {{",
        f"      {source.ctype} acc = {source.low};",
        f"      for (ky = 0; ky < {KH}; ++ky) {{",
        f"        int iy = oy * {sy} - {py} + ky;",
        f"        if (iy < 0 || iy >= {H}) continue;",
        f"        for (kx = 0; kx < {KW}; ++kx) {{",
        f"          int ix = ox * {sx} - {px} + kx;",
        f"          if (ix < 0 || ix >= {W}) continue;",
        f"          if (x[(p * {H} + iy) * {W} + ix] > acc) acc = x[(p * {H} + iy) * {W} + ix];",
        "        }",
        "      }",
        f"      y[(p * {OH} + oy) * {OW} + ox] = acc;",
        "    }",
    ]


def _lut(ctx: Any, step: Any) -> list[str]:
    """The engine's own function on every code: a table, so the values are the engine's."""
    import engine.nn as nn  # noqa: PLC0415
    from engine.core import backend  # noqa: PLC0415

    source = ctx.codes(0)
    codes = np.arange(source.low, source.high + 1)
    values = (codes * 2.0**source.exponent).astype(np.float32)
    with nn.no_grad(), backend.using("cpu"):
        out = step.function(nn.Variable.from_numpy_array(values), **step.kwargs)
        table = np.asarray(backend.to_numpy(out.data), dtype=np.float32)
    t = ctx.const("table of its values at each code", table)
    n = math.prod(step.shape)
    return [
        f"const {source.ctype} *x = {ctx.inp(0)};",
        f"float *y = {ctx.out};",
        "int i;",
        f"for (i = 0; i < {n}; ++i) y[i] = {t}[x[i] - ({source.low})];",
    ]


INTEGER_WRITERS = {"mac": _mac, "lut": _lut, "FixedPointQuantize": _quantize, "ReLU": _relu,
                   "MaxPooling": _max_pooling}  # fmt: skip

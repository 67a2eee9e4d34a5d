"""Integer arithmetic for networks with FixedPointQuantize layers (``quantize insert``).

A FixedPointQuantize with a power-of-two Delta ``2^e`` and at most 16 bits makes its output a
tensor of integer *codes* ``k`` (value ``k * 2^e``), stored in the narrowest of int8, uint8,
int16 and uint16 that holds every code the layer can reach (see below): a mixed-precision
network's 16-bit quantizers give int16 codes, its 8-bit ones int8. Codes flow through ReLU,
MaxPooling and Reshape unchanged in kind; a Convolution, DepthwiseConvolution or Affine whose
input is codes and whose weight is a quantized parameter (codes ``k_w``, Delta ``2^w``)
multiplies codes by codes into an int32 accumulator and adds its bias in the same integer grid
(a quantized bias), then writes the float value ``t * 2^g`` its next quantizer reads; an
elementwise function of codes (Tanh, Sigmoid...) is a table of its values at the codes that can
occur, computed by the engine itself (past 4,096 codes: C's float function, ``fn``). A
quantizer of a float requantizes as the engine rounds (half away from zero, clipped), a
quantizer of codes by a shift.

Why the results equal the engine's quantized simulation exactly: every value the engine computes
in float32 from codes is a multiple of a power of two; the export checks, per layer, that the
largest possible accumulator (the sum of ``|k_w|`` times the largest input code, plus the bias)
stays below 2^24, where float32 sums of such multiples are exact in any order, so the integer
sum is the engine's float sum. A layer past that bound (16-bit codes times 16-bit weights reach
2^30 in one product) accumulates in int64 (``mac64``): its sum is exact, the engine's float32
sum there is rounded, so the two can differ by a code where the sum lies near a rounding
boundary; the summary lists these layers (``rounded_layers``). A non-power-of-two Delta, more
than 16 bits, or a layer reading codes that is not listed here makes the network use float
arithmetic instead, and the summary says which layer and why.

The codes a tensor can reach are tracked through the graph (interval arithmetic), not only its
quantizer's clip range: a 16-bit quantizer of a ReLU of 8-bit codes reaches 0..127, a quantizer
after a MAC layer reaches what that layer's largest possible sum gives, one after a table what
the table holds. So a 16-bit layer is checked against 2^24 with the codes it can really receive,
its tables hold only the codes that can occur, and its storage is int8 where that is enough.
Sums below 2^24 units take int32 accumulators, larger ones int64.

The first layer (its input is the raw image, not codes) and the layers after the last quantizer
(Softmax) compute in float32 as the float export does.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

import engine.nn as nn
from engine.core import backend
from engine.export.c_source.kernels import WRITERS, flt
from engine.export.c_source.plan import ALIASES
from engine.runtime.program import Program, Step

__all__ = [
    "Codes",
    "integer_plan",
    "INTEGER_WRITERS",
    "NotInteger",
    "from_float",
    "FUSABLE",
    "storage",
]

LUT_TYPES = frozenset({"Tanh", "Sigmoid", "ELU", "LeakyReLU", "ReLU6", "Abs", "Exp", "AddScalar",
                       "MulScalar"})  # fmt: skip
MAC_TYPES = frozenset({"Convolution", "DepthwiseConvolution", "Affine"})
# Layers whose float output, read only by a FixedPointQuantize, is written as its codes
# directly (the float buffer never exists): the same float value, rounded as the quantizer.
FUSABLE = MAC_TYPES
EXACT = 2**24  # float32 sums of multiples of one power of two are exact below this many units


class NotInteger(Exception):
    """Why the network keeps float arithmetic (names the layer)."""


MAX_BITS = 16
MAX_TABLE = 4096  # entries of a table of an elementwise function of codes


@dataclass(frozen=True)
class Codes:
    """A tensor of integer codes ``k`` with value ``k * 2^exponent``: ``low``..``high`` is its
    quantizer's clip range, ``lo``..``hi`` the codes it can reach (within the clip range)."""

    exponent: int
    low: int
    high: int
    lo: int
    hi: int

    @property
    def ctype(self) -> str:
        """The narrowest C type holding ``lo``..``hi``: int8_t, uint8_t, int16_t, uint16_t."""
        return storage(self.lo, self.hi)

    @property
    def itemsize(self) -> int:
        return 1 if self.ctype.endswith("int8_t") else 2

    def reaching(self, lo: int, hi: int) -> Codes:
        """The same codes, reaching only ``lo``..``hi`` (clipped)."""
        lo, hi = max(self.low, lo), min(self.high, hi)
        return Codes(self.exponent, self.low, self.high, min(lo, hi), max(lo, hi))


def storage(lo: int, hi: int) -> str:
    """The narrowest C integer type holding ``lo``..``hi`` (at most 16 bits)."""
    for ctype, low, high in (("int8_t", -128, 127), ("uint8_t", 0, 255),
                             ("int16_t", -32768, 32767), ("uint16_t", 0, 65535)):  # fmt: skip
        if low <= lo and hi <= high:
            return ctype
    raise NotInteger(f"codes {lo}..{hi} need more than 16 bits")


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
    if n > MAX_BITS:
        raise NotInteger(f'{where} "{step.name}": {n} bits (int16 codes take {MAX_BITS} at most)')
    top = 2 ** (n - 1 if sign else n) - 1
    return Codes(e, -top if sign else 0, top, -top if sign else 0, top)


def _round_code(v: float, e: int) -> int:
    """The engine's rounding of the value ``v`` to a code of Delta 2^e (half away from 0)."""
    return int(math.copysign(math.floor(abs(v) / 2.0**e + 0.5), v))


def _shifted(k: int, s: int) -> int:
    """The code ``k`` requantized by ``s`` bits as :func:`_quantize` writes it."""
    if s <= 0:
        return k * 2**-s
    half = 2 ** (s - 1)
    return -((-k + half) >> s) if k < 0 else (k + half) >> s


def lut_table(step: Step, source: Codes) -> np.ndarray:
    """The engine's own function on every code ``source`` can reach (float32)."""

    codes = np.arange(source.lo, source.hi + 1)
    values = (codes * 2.0**source.exponent).astype(np.float32)
    with nn.no_grad(), backend.using("cpu"):
        out = step.function(nn.Variable.from_numpy_array(values), **step.kwargs)
        return np.asarray(backend.to_numpy(out.data), dtype=np.float32)


def integer_plan(program: Program, folded: Mapping[str, np.ndarray]) -> dict[str, Any]:
    """Step name -> :class:`Codes` (its output is codes) or ``"mac"`` (a layer multiplying
    codes) or ``"lut"`` (a table of codes); steps not listed compute in float.

    Raises:
        NotInteger: the network cannot compute exactly in integers (the reason).
    """
    steps = {s.name: s for s in program.steps}
    kinds: dict[str, Any] = {}
    bound: dict[str, tuple[float, float]] = {}  # float output of a mac/lut -> its value range

    def codes(ref: Any) -> Codes | None:
        kind = kinds.get(ref[1]) if ref[0] == "step" else None
        return kind if isinstance(kind, Codes) else None

    for step in program.steps:
        if step.name in folded or not step.inputs:
            continue
        source = codes(step.inputs[0])
        others = [codes(r) for r in step.inputs[1:]]
        if step.type == "FixedPointQuantize":
            out = quantizer_codes(step, "layer")
            ref = step.inputs[0]
            if source is not None:
                s = out.exponent - source.exponent
                out = out.reaching(_shifted(source.lo, s), _shifted(source.hi, s))
            elif ref[0] == "step" and ref[1] in bound:
                low, high = bound[ref[1]]
                out = out.reaching(_round_code(low, out.exponent), _round_code(high, out.exponent))
            kinds[step.name] = out
        elif source is None and not any(others):
            continue  # float in, float out
        elif step.type in ALIASES or step.type == "MaxPooling":
            kinds[step.name] = source
        elif step.type == "ReLU":
            kinds[step.name] = source.reaching(max(0, source.lo), max(0, source.hi))
        elif step.type in LUT_TYPES:
            if source.hi - source.lo + 1 > MAX_TABLE:  # C's float function of the values
                kinds[step.name] = "fn"
                continue
            table = lut_table(step, source)
            bound[step.name] = (float(table.min()), float(table.max()))
            kinds[step.name] = "lut"
        elif step.type in MAC_TYPES and source is not None:
            units, largest = _check_mac(step, source, steps, folded)
            wide = units >= EXACT  # the engine's float32 sum may round: C sums exactly
            largest *= 1 + 2.0**-20 if wide else 1  # the float of an exact sum rounds too
            bound[step.name] = (-largest, largest)
            kinds[step.name] = "mac64" if wide else "mac"
        else:
            raise NotInteger(f'layer "{step.name}" ({step.type}) reads integer codes and has no '
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


def _check_mac(step: Step, source: Codes, steps: Mapping[str, Step],
               folded: Any) -> tuple[float, float]:  # fmt: skip
    """(units, value): the largest |sum| the layer can take, in units of its integer grid and
    as a value; raises NotInteger past 2^62 units (no int64 accumulator holds it)."""
    weight = _weight(step, 1, steps, folded)
    if weight is None:
        raise NotInteger(f'layer "{step.name}" ({step.type}): its weight is not quantized')
    kw, ew = weight
    top = max(abs(source.lo), abs(source.hi))
    per_output = np.abs(kw).reshape(kw.shape[0], -1).sum(axis=1) * top
    if step.type == "Affine":
        per_output = np.abs(kw).sum(axis=0) * top
    bias = _weight(step, 2, steps, folded)
    grid = source.exponent + ew
    if bias is not None:
        kb, eb = bias
        g = min(grid, eb)
        per_output = per_output * 2 ** (grid - g) + np.abs(kb).reshape(-1) * 2 ** (eb - g)
        grid = g
    elif len(step.inputs) > 2 and step.inputs[2][0] != "none":
        raise NotInteger(f'layer "{step.name}" ({step.type}): its bias is not quantized')
    units = float(per_output.max(initial=0))
    if units >= 2.0**62:
        raise NotInteger(f'layer "{step.name}" ({step.type}): sums up to {units:.3g} units, '
                         "past an int64 accumulator")  # fmt: skip
    return units, units * 2.0**grid


def _mac_parts(ctx: Any, step: Any) -> tuple[str, str | None, int, int]:
    """(weight codes array, bias codes array or None, shift of the accumulator, exponent of
    the result): value = (acc << shift + bias) * 2^exponent."""
    steps = {s.name: s for s in ctx.model.program.steps}
    kw, ew = _weight(step, 1, steps, ctx.model.folded)
    source = ctx.codes(0)
    grid = source.exponent + ew
    w = ctx.codes_array(f"{step.inputs[1][1]} codes (x 2^{ew})", kw)
    bias = _weight(step, 2, steps, ctx.model.folded)
    if bias is None:
        return w, None, 0, grid
    kb, eb = bias
    g = min(grid, eb)
    b = ctx.integers(f"{step.inputs[2][1]} in units of 2^{g}", kb.reshape(-1) * 2 ** (eb - g))
    return w, b, grid - g, g


def _mac(ctx: Any, step: Any) -> list[str]:
    """int32 accumulators where the sum stays below 2^24 units (``mac``: the engine's float32
    sum is exact there), int64 past it (``mac64``: the exact sum, which the engine rounds)."""
    w, b, shift, g = _mac_parts(ctx, step)
    acc = "int64_t" if ctx.model.kinds[step.name] == "mac64" else "int32_t"
    times = f"{2**shift}" if acc == "int32_t" else f"(int64_t){2**shift}"
    scale = flt(2.0**g)
    ct = ctx.codes(0).ctype
    if step.type == "Affine":
        k, n = math.prod(ctx.in_shape(0)), math.prod(step.shape)
        return [
            f"const {ct} *x = {ctx.inp(0)};",
            f"{ctx.out_type} *y = {ctx.out};",
            "int i, j;",
            f"for (j = 0; j < {n}; ++j) {{",
            f"  {acc} acc = 0;",
            f"  for (i = 0; i < {k}; ++i) acc += ({acc})x[i] * {w}[i * {n} + j];",
            "  " + ctx.store("j", f"(float)(acc * {times}{f' + {b}[j]' if b else ''}) * {scale}"),
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
        f"{ctx.out_type} *y = {ctx.out};",
        "int oc, oy, ox, ic, ky, kx;",
        f"for (oc = 0; oc < {OC}; ++oc)",
        f"  for (oy = 0; oy < {OH}; ++oy)",
        f"    for (ox = 0; ox < {OW}; ++ox) {{",
        f"      {acc} acc = 0;",
        f"      for (ic = 0; ic < {icg}; ++ic)",
        f"        for (ky = 0; ky < {KH}; ++ky) {{",
        f"          int iy = oy * {sy} - {py} + ky * {dy};",
        f"          if (iy < 0 || iy >= {H}) continue;",
        f"          for (kx = 0; kx < {KW}; ++kx) {{",
        f"            int ix = ox * {sx} - {px} + kx * {dx};",
        f"            if (ix < 0 || ix >= {W}) continue;",
        f"            acc += ({acc})x[(({channel}) * {H} + iy) * {W} + ix]"
        f" * {w}[((oc * {icg} + ic) * {KH} + ky) * {KW} + kx];",
        "          }",
        "        }",
        "      "
        + ctx.store(
            f"(oc * {OH} + oy) * {OW} + ox",
            f"(float)(acc * {times}{f' + {b}[oc]' if b else ''}) * {scale}",
        ),
        "    }",
    ]


def _quantize(ctx: Any, step: Any) -> list[str]:
    out = ctx.codes_of(step.name)
    n = math.prod(step.shape)
    lines = [f"{out.ctype} *y = {ctx.out};", "int i;"]
    source = ctx.codes(0)
    if source is None:  # from float, rounded as the engine: sign * floor(|v| / delta + 0.5)
        return lines[:1] + [
            f"const float *x = {ctx.inp(0)};",
            "int i;",
            f"for (i = 0; i < {n}; ++i) {{",
            "  const float v = x[i];",
            f"  y[i] = {from_float(out)};",
            "}",
        ]
    s = out.exponent - source.exponent
    if s <= 0:
        scaled = f"(int32_t)x[i] * {2**-s}"
    else:  # half away from zero
        half = 2 ** (s - 1)
        scaled = f"((int32_t)x[i] + {half}) >> {s}"
        if source.lo < 0:
            scaled = f"(x[i] < 0 ? -((-(int32_t)x[i] + {half}) >> {s}) : {scaled})"
    return lines + [
        f"const {source.ctype} *x = {ctx.inp(0)};",
        f"for (i = 0; i < {n}; ++i) {{",
        f"  const int32_t k = {scaled};",
        f"  y[i] = ({out.ctype})(k > {out.high} ? {out.high} : k < {out.low} ? {out.low} : k);",
        "}",
    ]


def from_float(out: Codes) -> str:
    """The code of the float ``v`` as the engine's FixedPointQuantize rounds it: clipped,
    else sign * floor(|v| / delta + 0.5)."""
    delta = flt(2.0**out.exponent)
    return (f"({out.ctype})(v > {flt(out.high * 2.0**out.exponent)} ? {out.high} : "
            f"v < {flt(out.low * 2.0**out.exponent)} ? {out.low} : "
            f"(v < 0.0f ? -1.0f : 1.0f) * floorf(fabsf(v) / {delta} + 0.5f))")  # fmt: skip


def _function(ctx: Any, step: Any) -> list[str]:
    """An elementwise function of codes with more values than a table takes (16-bit codes):
    the float export's loop on the codes' values (C's tanhf..., not the engine's own values,
    so a code after it may differ by one)."""

    source = ctx.codes(0)
    lines = WRITERS[step.type](ctx, step)
    lines[0] = lines[0].replace("const float *x", f"const {source.ctype} *x")
    value = f"(float)x[i] * {flt(2.0**source.exponent)}"
    return [line.replace("const float v = x[i];", f"const float v = {value};") for line in lines]


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
        f"      {source.ctype} acc = {source.lo};",
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
    source = ctx.codes(0)
    table = lut_table(step, source)
    t = ctx.const("table of its values at each code", table)
    n = math.prod(step.shape)
    return [
        f"const {source.ctype} *x = {ctx.inp(0)};",
        f"float *y = {ctx.out};",
        "int i;",
        f"for (i = 0; i < {n}; ++i) y[i] = {t}[x[i] - ({source.lo})];",
    ]


INTEGER_WRITERS = {"mac": _mac, "mac64": _mac, "lut": _lut, "fn": _function,
                   "FixedPointQuantize": _quantize, "ReLU": _relu,
                   "MaxPooling": _max_pooling}  # fmt: skip

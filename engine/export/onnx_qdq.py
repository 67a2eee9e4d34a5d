"""``neurocanvas export onnx --quantized``: FixedPointQuantize as QuantizeLinear/DequantizeLinear.

A FixedPointQuantize (sign, ``n`` bits, Delta) is a QuantizeLinear with scale Delta and zero
point 0 (int8, or uint8 unsigned) followed by a DequantizeLinear: the QDQ form onnxruntime
turns into integer kernels (QLinearConv, QLinearMatMul) where a layer sits between two of them.
A ``Clip`` to the engine's range (+-(2^(n-1)-1) Delta) comes first. A weight
quantizer (a FixedPointQuantize of a parameter) is stored as its int8 codes with a
DequantizeLinear, computed by the engine's own function at export.

QuantizeLinear rounds halves to even where the engine rounds them away from zero (and halves
are frequent: a sum of products of codes often lands on one), so the engine's rounding is
written before it in the same float32 operations (Abs, Div, Add 0.5, Floor, Sign, Mul); the
QuantizeLinear then only stores exact multiples of Delta, and the clip keeps the engine's range
(+-127 for 8 signed bits). The results differ from the engine only where float sums are
ordered differently (the first layer, whose input is not quantized). What it cannot express
at all is refused before anything is written: Pow2Quantize (power-of-two levels are not a
linear scale), MinMaxQuantize and more than 16 bits, each layer named.

A quantizer of 9 to 16 bits (a mixed-precision pick keeps some layers at 16) is an int16 (or
uint16) QDQ pair: ONNX's own from opset 21 (``--opset 21``), else onnxruntime's
``com.microsoft`` QuantizeLinear/DequantizeLinear, which take int16 at any opset. The default
stays opset 17 because onnxruntime 1.32 refuses every opset-21 QDQ model in which an int8
DequantizeLinear feeds a MaxPool (its QDQ propagation writes a QuantizeLinear whose
output_dtype contradicts its zero point), which LeNet has.
"""

from __future__ import annotations

from typing import Any

import numpy as np

import engine.nn as nn
from engine.core import backend, optional

__all__ = ["QDQ_WRITERS", "QDQ_REFUSED", "is_weight_quantizer", "quantized_weights",
           "unsupported_quantizers", "INT16_OPSET", "CONTRIB"]  # fmt: skip

INT16_OPSET = 21  # the first opset whose QuantizeLinear/DequantizeLinear take int16/uint16
CONTRIB = "com.microsoft"  # onnxruntime's operators: 16-bit QDQ below opset 21

# Quantizers with no linear scale: listed by unsupported_quantizers, with the reason.
QDQ_REFUSED = ("Pow2Quantize", "MinMaxQuantize")


def is_weight_quantizer(step: Any) -> bool:
    """A FixedPointQuantize of a parameter: computed at export (quantized_weights), no node."""
    return step.type == "FixedPointQuantize" and step.inputs[0][0] == "param"


def _codes_range(step: Any) -> tuple[int, int, bool]:
    n, sign = int(step.kwargs.get("n", 8)), bool(step.kwargs.get("sign", True))
    top = 2 ** (n - 1 if sign else n) - 1
    return (-top if sign else 0), top, sign


def unsupported_quantizers(program: Any) -> list[str]:
    """The quantizers of ``program`` that QDQ cannot express, as ``layer "X" (Type): why``."""
    bad = []
    for step in program.steps:
        if step.type in QDQ_REFUSED:
            bad.append(f'layer "{step.name}" ({step.type}): no linear scale in ONNX')
        elif step.type == "FixedPointQuantize" and int(step.kwargs.get("n", 8)) > 16:
            bad.append(f'layer "{step.name}" (FixedPointQuantize): {step.kwargs.get("n")} bits '
                       "(int8 and int16 QDQ only)")  # fmt: skip
    return bad


def _engine(step: Any, value: np.ndarray) -> np.ndarray:
    """The engine's FixedPointQuantize of ``value`` (float32)."""

    with nn.no_grad(), backend.using("cpu"):
        q = step.function(nn.Variable.from_numpy_array(np.asarray(value, np.float32)),
                          **step.kwargs)  # fmt: skip
        return np.asarray(backend.to_numpy(q.data), dtype=np.float32)


def quantized_weights(program: Any, values: Any) -> dict[str, np.ndarray]:
    """Weight quantizer step -> the quantized weight (its float values)."""
    return {s.name: _engine(s, values[s.inputs[0][1]]) for s in program.steps
            if is_weight_quantizer(s)}  # fmt: skip


def _fixed_point(g: Any, step: Any, ins: list[str]) -> str:
    numpy_helper = optional.require("onnx").numpy_helper

    if not step.kwargs.get("quantize", True):
        return str(g.node("Identity", ins, step.name))
    delta = float(step.kwargs.get("delta", 0.0625))
    low, high, sign = _codes_range(step)
    wide = int(step.kwargs.get("n", 8)) > 8
    domain = {"domain": CONTRIB} if wide and g.opset < INT16_OPSET else {}
    dtype = (np.int16 if sign else np.uint16) if wide else (np.int8 if sign else np.uint8)
    scale = g.const(step.name + "/scale", np.array(delta, dtype=np.float32))
    zero = g.const(step.name + "/zero_point", np.array(0, dtype=dtype))
    ref = step.inputs[0]
    if ref[0] == "param":  # a weight: its int8 (int16) codes, as the engine quantizes it
        quantized = g.values[step.name].astype(np.float64)
        codes = np.rint(quantized / delta).astype(dtype)
        name = g.fresh(step.name + "/codes")
        g.inits[name] = numpy_helper.from_array(codes, name)
        return str(g.node("DequantizeLinear", [name, scale, zero], step.name, **domain))
    rounded = _rounded(g, step, ins[0], scale, low * delta, high * delta)
    q = g.node("QuantizeLinear", [rounded, scale, zero], step.name + "/quantize", **domain)
    return str(g.node("DequantizeLinear", [q, scale, zero], step.name, **domain))


def _rounded(g: Any, step: Any, x: str, scale: str, low: float, high: float) -> str:
    # the engine's range first (int8 alone would also give -128)
    lo = g.const(step.name + "/min", np.array(low, dtype=np.float32))
    hi = g.const(step.name + "/max", np.array(high, dtype=np.float32))
    x = g.node("Clip", [x, lo, hi], step.name + "/clip")
    # The engine's rounding, sign(x) * floor(|x| / delta + 0.5) * delta, in the same float32
    # operations: QuantizeLinear then meets exact multiples of delta (no halves to round).
    half = g.const(step.name + "/half", np.array(0.5, dtype=np.float32))
    steps = g.node("Floor", [g.node("Add", [g.node("Div", [g.node("Abs", [x], step.name + "/abs"),
                                                            scale], step.name + "/div"), half],
                                    step.name + "/add")], step.name + "/floor")  # fmt: skip
    signed = g.node("Mul", [g.node("Sign", [x], step.name + "/sign"), steps], step.name + "/mul")
    return str(g.node("Mul", [signed, scale], step.name + "/rounded"))


QDQ_WRITERS = {"FixedPointQuantize": _fixed_point}

"""``neurocanvas export tflite JOB -o model.tflite [--int8]``: the runtime network for LiteRT.

The file is a TensorFlow Lite flatbuffer (schema version 3) built with the schema's generated
object API (:mod:`engine.export.tflite.schema`) and ``flatbuffers``. One subgraph, batch 1:
the input is NHWC (``1, H, W, C``, TFLite's layout; the same bytes as the engine's (C, H, W)
for one channel), the output has the engine's shape and order (``1, ...``). The operators of
each layer come from :data:`engine.export.tflite.ops.WRITERS`; a BatchNormalization that alone
reads a Convolution/Affine output is folded into its weights, and a ReLU/ReLU6 that alone reads
one (or its folded BatchNormalization) becomes the layer's fused activation, as TensorFlow's
converter does: in int8 the layer's codes then span only the ReLU's range.

``int8``: full-integer model (int8 input, activations and output; int8 weights; int32 biases),
quantized as :mod:`engine.export.tflite.quant` says: from the network's FixedPointQuantize
layers where it has them, else from ranges calibrated on the training dataset.

Every layer the writers cannot express is named in one :class:`ExportError` before anything is
written; the file is written atomically (``--force`` to replace one).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

import engine.nn as nn
from engine.core import backend, optional
from engine.core.atomic import atomic_write_bytes
from engine.export.literals import ExportError
from engine.export.runtime_network import compiled_runtime, constant_steps, parameter_values
from engine.export.tflite.ops import ALIASES, WRITERS, StepError
from engine.export.tflite.quant import (
    FIXED,
    TABLED,
    activation_params,
    calibrate,
    from_quantizer,
    from_range,
)
from engine.export.tflite.schema import schema
from engine.runtime.program import Program, Ref, Step

flatbuffers = optional.lazy("flatbuffers", "TFLite export")

__all__ = ["tflite_bytes", "export_tflite", "unsupported_tflite_steps"]

_TIME_STEP = re.compile(r"\[t=\d+\]")
_FOLDABLE = frozenset({"Convolution", "DepthwiseConvolution", "Affine"})
_ACTIVATIONS = {"ReLU": "RELU", "ReLU6": "RELU6"}


def unsupported_tflite_steps(program: Program) -> list[str]:
    """``layer "X" (Type)`` for each step without a writer, and the graph shapes not written."""
    bad: list[str] = []
    for step in program.steps:
        entry = f'layer "{_TIME_STEP.sub("", step.name)}" ({step.type})'
        if step.type not in WRITERS and step.type not in ALIASES and entry not in bad:
            if step.type == "Pow2Quantize" and all(r[0] == "param" for r in step.inputs):
                continue  # a weight's quantizer: its value is computed at export
            bad.append(entry)
    bad += [f'generator input "{g.name or g.kind}"' for g in program.generators]
    if len(program.feeds) != 1:
        bad.append(f"{len(program.feeds)} inputs (the TFLite export takes one)")
    if len(program.outputs) != 1:
        bad.append(f"{len(program.outputs)} outputs (the TFLite export writes one)")
    elif program.outputs[0][1][0] != "step":
        bad.append("an output that is not a layer's")
    for name, shape in program.feeds.items():
        if len(shape) not in (1, 3):
            bad.append(f'input "{name}" of shape {tuple(shape)} (only (C,) and (C, H, W))')
    return bad


class Model:
    """The tensors, buffers and operators being built (what a writer sees, see :mod:`ops`)."""

    def __init__(self, program: Program, values: Mapping[str, np.ndarray],
                 qp: Mapping[str, tuple[float, int]] | None) -> None:  # fmt: skip
        self.s = schema()
        self.program, self.values = program, values
        self.int8 = qp is not None
        self.qp = dict(qp or {})
        self.folded = constant_steps(program, values, ALIASES)
        self.types = {s.name: s for s in program.steps}
        self.tensors: list[Any] = []
        self.buffers: list[Any] = [self.s.BufferT()]  # 0: the empty buffer of activations
        self.operators: list[Any] = []
        self.codes: dict[int, int] = {}  # builtin operator -> index in operatorCodes
        self.tensor_qp: dict[int, tuple[float, int] | None] = {}
        self.of: dict[str, int] = {}  # step name (or feed:NAME) -> tensor
        self.into: dict[str, str] = {}  # Convolution/Affine -> the BatchNormalization folded in
        self.fused: dict[str, tuple[str, int]] = {}  # Convolution/Affine -> (ReLU, activation)
        self.alias: dict[str, str] = {}  # a folded or fused step -> the layer that writes it
        self._plan_batch_norm()

    # -- the graph -------------------------------------------------------------------------
    def _plan_batch_norm(self) -> None:
        readers: dict[str, list[str]] = {}
        for step in self.program.steps:
            for ref in step.inputs:
                if ref[0] == "step":
                    readers.setdefault(ref[1], []).append(step.name)
        outputs = {ref[1] for _, ref in self.program.outputs if ref[0] == "step"}
        for step in self.program.steps:
            source = step.inputs[0] if step.inputs else ("none",)
            if (step.type == "BatchNormalization" and source[0] == "step"
                    and tuple(step.kwargs.get("axes", (1,))) == (1,)
                    and self.types[source[1]].type in _FOLDABLE
                    and readers.get(source[1]) == [step.name] and source[1] not in outputs
                    and source[1] not in self.folded):  # fmt: skip
                self.into[source[1]] = step.name
                self.alias[step.name] = source[1]
        for step in self.program.steps:
            source = step.inputs[0] if step.inputs else ("none",)
            if step.type not in _ACTIVATIONS or source[0] != "step":
                continue
            writer = self.alias.get(source[1], source[1])
            alone = readers.get(source[1]) == [step.name] and source[1] not in outputs
            if self.types[writer].type in _FOLDABLE and writer not in self.folded and alone:
                code = getattr(self.s.ActivationFunctionType, _ACTIVATIONS[step.type])
                self.fused[writer] = (step.name, code)
                self.alias[step.name] = writer

    def final(self, name: str) -> str:
        """The step whose output the layer ``name`` writes (its fused ReLU, its folded
        BatchNormalization, or itself)."""
        if name in self.fused:
            return self.fused[name][0]
        return self.into.get(name, name)

    def activation(self, step: Step) -> int:
        """The fused activation of a Convolution/Affine (0: none)."""
        return self.fused.get(step.name, ("", 0))[1]

    def in_shape(self, step: Step, k: int) -> tuple[int, ...]:
        ref = step.inputs[k]
        if ref[0] == "feed":
            return tuple(ref[2])
        if ref[0] == "step":
            return tuple(self.types[ref[1]].shape)
        raise StepError(f"input {k + 1} is not an activation")

    def act(self, step: Step, k: int) -> int:
        ref = step.inputs[k]
        key = ref[1] if ref[0] == "step" else f"feed:{ref[1]}"
        if ref[0] not in ("step", "feed") or key not in self.of:
            raise StepError(f"input {k + 1} must be a layer's output or the network input")
        return self.of[key]

    def param(self, step: Step, k: int) -> np.ndarray | None:
        ref: Ref = step.inputs[k] if k < len(step.inputs) else ("none",)
        if ref[0] == "none":
            return None
        if ref[0] == "step" and ref[1] in self.folded:
            return np.asarray(self.folded[ref[1]], np.float64)
        if ref[0] != "param":
            raise StepError(f"input {k + 1} must be a parameter (or computed from parameters)")
        return np.asarray(self.values[ref[1]], np.float64)

    def batch_norm(self, step: Step) -> tuple[np.ndarray, np.ndarray]:
        """(scale, shift) per channel of a BatchNormalization in test mode."""
        channels = self.in_shape(step, 0)[0]
        beta, gamma, mean, var = (self.param(step, k) for k in (1, 2, 3, 4))
        eps = float(step.kwargs.get("eps", 1e-5))
        g = np.ones(channels) if gamma is None else gamma.reshape(-1)
        v = np.ones(channels) if var is None else var.reshape(-1)
        scale = g / np.sqrt(v + eps)
        m = np.zeros(channels) if mean is None else mean.reshape(-1)
        shift = (np.zeros(channels) if beta is None else beta.reshape(-1)) - m * scale
        return scale, shift

    def batch_norm_folded(self, step: Step, weight: Any, bias: Any) -> tuple[Any, Any]:
        """The weights (output channels first for convolutions, last for Affine) and bias
        with the BatchNormalization that alone reads this layer folded in."""
        if weight is None:
            raise StepError("input 2 (the weight) is missing")
        outputs = step.shape[0] if step.type != "Affine" else int(np.prod(step.shape))
        bias = np.zeros(outputs) if bias is None else bias.reshape(-1)
        bn = self.into.get(step.name)
        if bn is None:
            return weight, bias
        scale, shift = self.batch_norm(self.types[bn])
        if step.type == "Affine":
            weight = weight.reshape(-1, outputs) * scale[None, :]
        else:
            weight = weight * scale.reshape(-1, *([1] * (weight.ndim - 1)))
        return weight, bias * scale + shift

    # -- tensors ---------------------------------------------------------------------------
    def _quantization(self, scale: Any, zero: Any, axis: int = 0) -> Any:
        q = self.s.QuantizationParametersT()
        q.scale = [float(v) for v in np.atleast_1d(scale)]
        q.zeroPoint = [int(v) for v in np.atleast_1d(zero)]
        q.quantizedDimension = axis
        return q

    def tensor(self, name: str, shape: Any, qp: tuple[float, int] | None = None,
               data: np.ndarray | None = None, kind: str | None = None,
               quantization: Any = None) -> int:  # fmt: skip
        t = self.s.TensorT()
        t.name = name
        t.shape = [int(v) for v in shape]
        if kind is None:
            kind = "INT8" if self.int8 and qp is not None else "FLOAT32"
        t.type = getattr(self.s.TensorType, kind)
        if quantization is not None:
            t.quantization = quantization
        elif kind in ("INT8", "INT16") and qp is not None:
            t.quantization = self._quantization(qp[0], qp[1])
        if data is not None:
            buffer = self.s.BufferT()
            buffer.data = np.frombuffer(np.ascontiguousarray(data).tobytes(), dtype=np.uint8)
            self.buffers.append(buffer)
            t.buffer = len(self.buffers) - 1
        self.tensors.append(t)
        index = len(self.tensors) - 1
        self.tensor_qp[index] = qp if kind in ("INT8", "INT16") else None
        return index

    def shape(self, index: int) -> list[int]:
        return list(self.tensors[index].shape)

    def is_nhwc(self, index: int) -> bool:
        return len(self.tensors[index].shape) == 4

    def qp_of(self, index: int) -> tuple[float, int] | None:
        return self.tensor_qp.get(index)

    def qp_step(self, step: Step) -> tuple[float, int] | None:
        if not self.int8:
            return None
        return self.qp[self.final(step.name)]

    @staticmethod
    def file_shape(shape: tuple[int, ...]) -> list[int]:
        if len(shape) == 3:
            c, h, w = shape
            return [1, h, w, c]
        return [1, *shape]

    def output(self, step: Step, same_as: int | None = None,
               fixed: tuple[float, int] | None = None) -> int:  # fmt: skip
        """The tensor of the step's output, quantized as :mod:`quant` planned."""
        if not self.int8:
            qp = None
        elif same_as is not None:
            qp = self.qp_of(same_as)
        elif fixed is not None:
            qp = fixed
        else:
            qp = self.qp_step(step)
        name = self.final(step.name)
        kind = None
        if self.wide(step):
            qp, kind = self.qp[f"int16:{name}"], "INT16"
        index = self.tensor(name, self.file_shape(tuple(step.shape)), qp, kind=kind)
        if fixed is not None and self.int8:
            self.qp[step.name] = fixed  # a quantizer that reads it requantizes
        return index

    def wide(self, step: Step) -> bool:
        """Whether the step's output is int16 (:data:`quant.WIDE`)."""
        return self.int8 and f"int16:{self.final(step.name)}" in self.qp

    def widen(self, step: Step, x: int) -> int:
        """The input of an int16 layer: ``x`` requantized to int16 (symmetric) over its range."""
        if not self.wide(step) or self.tensors[x].type != self.s.TensorType.INT8:
            return x
        scale, zero = self.qp_of(x)  # type: ignore[misc]
        top = max(abs(-128 - zero), abs(127 - zero)) * scale
        y = self.tensor(f"{self.tensors[x].name}/int16", self.shape(x), (top / 32767.0, 0),
                        kind="INT16")  # fmt: skip
        self.op("QUANTIZE", [x], [y])
        return y

    def tabled(self, step: Step) -> bool:
        """Whether the step is written as a table of codes (:data:`quant.TABLED`)."""
        return self.int8 and step.type in TABLED and self.qp[step.name] != FIXED[step.type]

    def table(self, step: Step, x: int) -> int:
        """The step's int8 codes looked up (GATHER) in the table of the engine's own values:
        its function and then the FixedPointQuantize that alone reads it, for each input code.
        The index is the code + 128 (QUANTIZE to int16 with the zero point moved, CAST)."""

        reader = next(s for s in self.program.steps
                      if s.inputs and s.inputs[0] == ("step", step.name))  # fmt: skip
        scale, zero = self.qp_of(x)  # type: ignore[misc]
        out_scale, out_zero = self.qp[step.name]
        codes = np.arange(-128, 128)
        with nn.no_grad(), backend.using("cpu"):
            v = nn.Variable.from_numpy_array(((codes - zero) * scale).astype(np.float32)[None])
            value = reader.function(step.function(v, **step.kwargs), **reader.kwargs)
            real = np.asarray(backend.to_numpy(value.data), np.float64).reshape(-1)
        table = np.clip(np.round(real / out_scale) + out_zero, -128, 127).astype(np.int8)
        shape = self.shape(x)
        shifted = self.tensor(f"{step.name}/index16", shape, (scale, zero + 128), kind="INT16")
        self.op("QUANTIZE", [x], [shifted])
        index = self.tensor(f"{step.name}/index", shape, kind="INT32")
        self.op("CAST", [shifted], [index])
        lookup = self.tensor(f"{step.name}/table", [256], (out_scale, out_zero), data=table,
                             kind="INT8")  # fmt: skip
        y = self.output(step)
        self.op("GATHER", [lookup, index], [y], "GatherOptions", axis=0)
        return y

    def ints(self, name: str, values: Any) -> int:
        array = np.asarray(values, dtype=np.int32)
        return self.tensor(name, array.shape, data=array, kind="INT32")

    def weights(self, step: Step, weight: np.ndarray, axis: int | None) -> int:
        """Float32, or symmetric int8 per channel along ``axis`` (None: per tensor); the Delta of
        the weight's own FixedPointQuantize when it has one (its codes exactly)."""
        name = f"{step.name}/W"
        if not self.int8:
            return self.tensor(name, weight.shape, data=weight.astype(np.float32))
        delta = self._weight_delta(step)
        if delta is not None:
            scale = np.full(weight.shape[axis] if axis is not None else 1, delta)
        elif axis is None:
            scale = np.array([np.abs(weight).max() / 127.0])
        else:
            moved = np.moveaxis(weight, axis, 0).reshape(weight.shape[axis], -1)
            scale = np.abs(moved).max(axis=1) / 127.0
        scale = np.where(scale > 0, scale, 1.0).astype(np.float32).astype(np.float64)
        shaped = scale if axis is None else scale.reshape(
            [-1 if i == axis else 1 for i in range(weight.ndim)])  # fmt: skip
        codes = np.clip(np.round(weight / shaped), -127, 127).astype(np.int8)
        # The scale written is a hair larger (2^-17): a layer output exactly halfway between
        # two codes (frequent when inputs and weights are the codes of power-of-two Deltas)
        # then rounds away from zero, as the engine's FixedPointQuantize does, in TFLite's
        # fixed-point requantization and in XNNPACK's float one alike.
        q = self._quantization(scale * (1 + 2.0**-17), np.zeros(len(scale), np.int64), axis or 0)
        return self.tensor(name, weight.shape, data=codes, kind="INT8", quantization=q)

    def _weight_delta(self, step: Step) -> float | None:
        ref = step.inputs[1]
        quantizer = self.types.get(ref[1]) if ref[0] == "step" else None
        if (quantizer is None or quantizer.type != "FixedPointQuantize"
                or step.name in self.into):  # fmt: skip
            return None
        try:
            scale, zero = from_quantizer(quantizer)
        except ValueError:
            return None
        return scale if zero == 0 else None

    def bias(self, step: Step, bias: np.ndarray, size: int, x: int, w: int) -> int:
        name = f"{step.name}/b"
        if not self.int8:
            return self.tensor(name, [size], data=bias.astype(np.float32))
        in_scale = self.qp_of(x)[0]  # type: ignore[index]
        w_scale = np.asarray(self.tensors[w].quantization.scale, np.float64)
        scale = in_scale * (w_scale if len(w_scale) == size else np.full(size, w_scale[0]))
        q = self._quantization(scale[: len(w_scale)], np.zeros(len(w_scale), np.int64), 0)
        if self.tensors[x].type == self.s.TensorType.INT16:  # 16x8 kernels: int64 biases
            codes = np.round(bias / scale).astype(np.int64)
            return self.tensor(name, [size], data=codes, kind="INT64", quantization=q)
        codes = np.clip(np.round(bias / scale), -(2**31), 2**31 - 1).astype(np.int32)
        return self.tensor(name, [size], data=codes, kind="INT32", quantization=q)

    def constant(self, name: str, value: np.ndarray, like: int) -> int:
        """A per-channel (last axis) or scalar operand: float32, or int8 over its own range."""
        value = np.asarray(value, np.float64).reshape(-1)
        if not self.int8:
            return self.tensor(name, value.shape, data=value.astype(np.float32))

        scale, zero = from_range(value.min(), value.max())
        codes = np.clip(np.round(value / scale) + zero, -128, 127).astype(np.int8)
        return self.tensor(name, value.shape, (scale, zero), data=codes, kind="INT8")

    # -- operators -------------------------------------------------------------------------
    def op(self, code: str, inputs: list[int], outputs: list[int], options: str = "",
           **fields: Any) -> None:  # fmt: skip
        builtin = getattr(self.s.BuiltinOperator, code)
        if builtin not in self.codes:
            oc = self.s.OperatorCodeT()
            oc.builtinCode = builtin
            oc.deprecatedBuiltinCode = min(builtin, 127)
            oc.version = 1
            self.codes[builtin] = len(self.codes)
        o = self.s.OperatorT()
        o.opcodeIndex = self.codes[builtin]
        o.inputs, o.outputs = list(inputs), list(outputs)
        if options:
            opts = getattr(self.s, options + "T")()
            for key, value in fields.items():
                if key == "padding":
                    value = getattr(self.s.Padding, value)
                setattr(opts, key, value)
            o.builtinOptionsType = getattr(self.s.BuiltinOptions, options)
            o.builtinOptions = opts
        self.operators.append(o)

    def requantized(self, x: int, like: int) -> int:
        """``x`` at ``like``'s quantization (a QUANTIZE operator when they differ)."""
        if not self.int8 or self.qp_of(x) == self.qp_of(like):
            return x
        y = self.tensor(f"{self.tensors[x].name}/requantized", self.shape(x), self.qp_of(like))
        self.op("QUANTIZE", [x], [y])
        return y

    def quantizer(self, step: Step, x: int) -> int:
        """FixedPointQuantize of an activation (see :func:`ops._fixed_point`)."""
        bits, sign = int(step.kwargs.get("n", 8)), bool(step.kwargs.get("sign", True))
        top = 2 ** (bits - 1) - 1 if sign else 2**bits - 1
        low = -top if sign else 0
        if not self.int8:  # the engine's own float operations (its rounding of halves), any n
            delta = float(step.kwargs.get("delta", 2.0**-4))
            return self._float_quantizer(step, x, delta, low, top)
        try:
            scale, zero = from_quantizer(step)
        except ValueError as exc:
            raise StepError(str(exc)) from None
        shape = self.shape(x)
        if self.qp_of(x) != (scale, zero):
            y = self.tensor(step.name, shape, (scale, zero))
            self.op("QUANTIZE", [x], [y])
            x = y
        if low + zero > -128 + (1 if sign else 0) or top + zero < 127:
            x = self._clamp(step, x, low + zero, top + zero, (scale, zero))
        return x

    def _float_quantizer(self, step: Step, x: int, delta: float, low: int, top: int) -> int:
        """sign(x) floor(|x| / Delta + 0.5) Delta clipped to [low, top] Delta, in float32 as
        the engine computes it (QUANTIZE would round halves its own way)."""
        shape = self.shape(x)

        def const(hint: str, value: float) -> int:
            data = np.array([value], np.float32)
            return self.tensor(f"{step.name}/{hint}", [1], data=data, kind="FLOAT32")

        def then(code: str, inputs: list[int], hint: str, options: str = "") -> int:
            y = self.tensor(f"{step.name}/{hint}", shape, kind="FLOAT32")
            self.op(code, inputs, [y], options)
            return y

        d = const("delta", delta)
        steps = then("FLOOR", [then("ADD", [then("DIV", [then("ABS", [x], "abs"), d], "scaled",
                                                     "DivOptions"), const("half", 0.5)],
                                    "halved", "AddOptions")], "floor")  # fmt: skip
        signed = then("MUL", [then("SIGN", [x], "sign"), steps], "codes", "MulOptions")
        value = then("MUL", [signed, d], "value", "MulOptions")
        high = then("MAXIMUM", [value, const("min", low * delta)], "clip_low")
        y = self.tensor(step.name, shape, kind="FLOAT32")
        self.op("MINIMUM", [high, const("max", top * delta)], [y])
        return y

    def _clamp(self, step: Step, x: int, low: int, top: int, qp: tuple[float, int]) -> int:
        """Codes clipped to [low, top] (the quantizer's n bits inside int8)."""
        if low <= -128 and top >= 127:
            return x
        shape = self.shape(x)
        hi = self.tensor(f"{step.name}/max", [1], qp, data=np.array([top], np.int8), kind="INT8")
        lo = self.tensor(f"{step.name}/min", [1], qp, data=np.array([low], np.int8), kind="INT8")
        clipped = self.tensor(f"{step.name}/clip_high", shape, qp, kind="INT8")
        self.op("MINIMUM", [x, hi], [clipped])
        y = self.tensor(f"{step.name}/clipped", shape, qp, kind="INT8")
        self.op("MAXIMUM", [clipped, lo], [y])
        return y

    def reshaped(self, x: int, shape: tuple[int, ...], step: Step) -> int:
        """``x`` (engine shape ``shape``) as the step's shape, in the engine's element order."""
        qp = self.qp_of(x)
        target = tuple(step.shape)
        if self.is_nhwc(x) and shape[0] != 1 and shape[1] * shape[2] != 1:
            c, h, w = shape
            nchw = self.tensor(f"{step.name}/nchw", [1, c, h, w], qp)
            self.op("TRANSPOSE", [x, self.ints("perm", [0, 3, 1, 2])], [nchw])
            x = nchw
        if len(target) == 3 and target[0] != 1 and target[1] * target[2] != 1:
            flat = self.tensor(f"{step.name}/nchw_out", [1, *target], qp)
            self.op("RESHAPE", [x, self.ints("shape", [1, *target])], [flat], "ReshapeOptions",
                    newShape=[1, *target])  # fmt: skip
            y = self.tensor(step.name, self.file_shape(target), qp)
            self.op("TRANSPOSE", [flat, self.ints("perm", [0, 2, 3, 1])], [y])
            return y
        new = self.file_shape(target)
        if new == self.shape(x):
            return x
        y = self.tensor(step.name, new, qp)
        self.op("RESHAPE", [x, self.ints("shape", new)], [y], "ReshapeOptions", newShape=new)
        return y

    # -- the whole model -------------------------------------------------------------------
    def build(self, description: str) -> bytes:
        ((feed, in_shape),) = self.program.feeds.items()
        x = self.tensor(feed, self.file_shape(tuple(in_shape)), self.qp.get(f"feed:{feed}"))
        self.of[f"feed:{feed}"] = x
        problems = []
        for step in self.program.steps:
            if step.name in self.folded:
                continue
            try:
                if step.name in self.alias:
                    self.of[step.name] = self.of[self.alias[step.name]]
                elif step.type in ALIASES:
                    self.of[step.name] = self.act(step, 0)
                else:
                    self.of[step.name] = WRITERS[step.type](self, step)
            except (StepError, ValueError, KeyError, IndexError, TypeError) as exc:
                problems.append(f'layer "{step.name}" ({step.type}): {exc}')
                if step.inputs and step.inputs[0][0] in ("step", "feed"):
                    try:  # keep going to name every problem at once
                        self.of[step.name] = self.act(step, 0)
                    except StepError:
                        pass
        if problems:
            raise ExportError(f'network "{self.program.network}" cannot be exported to TFLite: '
                              + "; ".join(problems))  # fmt: skip
        ((out_name, out_ref),) = self.program.outputs
        y = self.of[out_ref[1]]
        shape = tuple(self.types[out_ref[1]].shape)
        if self.is_nhwc(y) and shape[0] != 1 and shape[1] * shape[2] != 1:
            nchw = self.tensor(out_name, [1, *shape], self.qp_of(y))
            self.op("TRANSPOSE", [y, self.ints("perm", [0, 3, 1, 2])], [nchw])
            y = nchw
        elif self.is_nhwc(y):
            flat = self.tensor(out_name, [1, *shape], self.qp_of(y))
            self.op("RESHAPE", [y, self.ints("shape", [1, *shape])], [flat], "ReshapeOptions",
                    newShape=[1, *shape])  # fmt: skip
            y = flat
        self.tensors[y].name = out_name
        graph = self.s.SubGraphT()
        graph.tensors, graph.operators = self.tensors, self.operators
        graph.inputs, graph.outputs = [x], [y]
        graph.name = self.program.network
        model = self.s.ModelT()
        model.version = 3
        model.description = description
        model.buffers = self.buffers
        model.subgraphs = [graph]
        codes = [None] * len(self.codes)
        for builtin, index in self.codes.items():
            oc = self.s.OperatorCodeT()
            oc.builtinCode, oc.deprecatedBuiltinCode, oc.version = builtin, min(builtin, 127), 1
            codes[index] = oc
        model.operatorCodes = codes
        builder = flatbuffers.Builder(1024)
        builder.Finish(model.Pack(builder), file_identifier=b"TFL3")
        return bytes(builder.Output())


def tflite_bytes(program: Program, values: Mapping[str, np.ndarray],
                 qp: Mapping[str, tuple[float, int]] | None = None,
                 description: str = "") -> bytes:  # fmt: skip
    """The TFLite file of ``program`` with parameter ``values``; ``qp``: int8 (see
    :func:`quant.activation_params`), None: float32.

    Raises:
        ExportError: every layer the writers cannot express, listed together.
    """
    bad = unsupported_tflite_steps(program)
    if bad:
        raise ExportError(f'network "{program.network}" cannot be exported to TFLite: '
                          f"{', '.join(bad)}")  # fmt: skip
    return Model(program, values, qp).build(description or f"neurocanvas: {program.network}")


def export_tflite(source: Any, out: str | Path, int8: bool = False,
                  force: bool = False) -> Path:  # fmt: skip
    """Write the TFLite file of ``source.runtime`` (``int8``: full integer, calibrated on the
    training dataset where the network has no quantizer).

    Raises:
        ExportError: no runtime network, unsupported layers (all named), no trained
            parameters for int8, ``out`` exists without ``force``; nothing is written then.
    """
    out = Path(out)
    if out.is_dir():
        raise ExportError(f"{out}: is a folder; -o names the .tflite file to write")
    if not out.parent.is_dir():
        raise ExportError(f"{out}: the folder {out.parent} does not exist")
    if out.exists() and not force:
        raise ExportError(f"{out}: exists; pass --force to overwrite")
    program = compiled_runtime(source, "TFLite", unsupported_tflite_steps)
    schema()  # the optional dependency, named before any work
    if int8 and source.parameters is None:
        raise ExportError(f"{source.title}: --int8 needs trained parameters (export a job "
                          "folder, or pass --params)")  # fmt: skip
    values = parameter_values(source, program)
    qp = None
    if int8:  # calibration runs the network: its parameters as variables
        with nn.parameter_scope("", {}), backend.using("cpu"):
            params = program.create_parameters(source.base)
            nn.load_parameters(source.parameters)
            folded = Model(program, values, None).folded
            qp = activation_params(program, folded, calibrate(source, program, params))
    kind = "int8" if int8 else "float32"
    note = "; 8-bit images divided by 255" if source.normalize else ""
    title = f"neurocanvas export tflite ({kind}): network {program.network}; input NHWC{note}"
    data = tflite_bytes(program, values, qp, title)
    atomic_write_bytes(out, data)
    return out

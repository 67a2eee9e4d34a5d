"""int8 quantization of a TFLite export: every activation tensor's (scale, zero point).

* A FixedPointQuantize on an activation fixes its tensor: scale = Delta, zero point 0 (signed)
  or -128 (unsigned: codes 0..2^n-1); the layer it alone reads writes those codes directly.
* TANH, LOGISTIC and SOFTMAX have the output quantization TFLite's int8 kernels require;
  pooling and reshaping keep their input's.
* Every other tensor takes the range the float network reaches (min and max over the first
  rows of the job's training dataset, with the trained parameters: :func:`calibrate`).

Weights are symmetric int8 with zero point 0, one scale per output channel (convolutions) or
per tensor (fully connected), or the Delta of the weight's own FixedPointQuantize; biases are
int32 at input scale x weight scale, as TFLite's integer kernels expect.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

import engine.nn as nn
from engine.core import backend
from engine.data import open_dataset
from engine.data.iterator import batches_once
from engine.export.literals import ExportError
from engine.runtime.session import plan_run

__all__ = [
    "FIXED",
    "SAME",
    "TABLED",
    "WIDE",
    "calibrate",
    "from_quantizer",
    "from_range",
    "activation_params",
]

FIXED = {"Tanh": (1 / 128, 0), "Sigmoid": (1 / 256, -128), "Softmax": (1 / 256, -128)}
# The layer whose output only the final Softmax reads computes int16 logits from int8 weights
# and its int8 input (TFLite's 16x8 kernels), and the Softmax runs in int16 before the int8
# output: int8 logits would move the probabilities by several output steps (the logits of
# LeNet span about 40 in 256 steps).
WIDE = frozenset({"Affine", "Convolution", "DepthwiseConvolution"})
# Tanh and Sigmoid that only a FixedPointQuantize reads: a table of the 256 codes the engine
# computes (GATHER), instead of TFLite's TANH/LOGISTIC at their fixed output scale and a
# requantization, which rounds twice.
TABLED = frozenset({"Tanh", "Sigmoid"})
SAME = frozenset({"MaxPooling", "AveragePooling", "GlobalAveragePooling", "Reshape",
                  "Identity", "Dropout"})  # fmt: skip

QParams = tuple[float, int]


def from_range(lo: float, hi: float) -> QParams:
    """Asymmetric int8 for values in [lo, hi] (0 always representable)."""
    lo, hi = min(float(lo), 0.0), max(float(hi), 0.0)
    if hi - lo <= 0.0:
        return 1.0 / 255.0, -128
    scale = (hi - lo) / 255.0
    zero = int(np.clip(round(-128 - lo / scale), -128, 127))
    return float(np.float32(scale)), zero


def from_quantizer(step: Any) -> QParams:
    """The tensor of a FixedPointQuantize's codes (raises ValueError beyond 8 bits)."""
    kw = step.kwargs
    bits = int(kw.get("n", 8))
    if bits > 8:
        raise ValueError(f"{bits}-bit codes do not fit int8")
    return float(kw.get("delta", 2.0**-4)), 0 if kw.get("sign", True) else -128


def activation_params(program: Any, folded: Mapping[str, Any],
                      ranges: Mapping[str, tuple[float, float]]) -> dict[str, QParams]:  # fmt: skip
    """Step name (and ``feed:NAME``) -> (scale, zero point); see the module docstring."""
    qp: dict[str, QParams] = {}
    for name in program.feeds:
        qp[f"feed:{name}"] = from_range(*ranges[f"feed:{name}"])

    def of(ref: Any) -> QParams:
        return qp[ref[1] if ref[0] == "step" else f"feed:{ref[1]}"]

    readers: dict[str, list[str]] = {}
    types = {}
    problems = []
    for step in program.steps:
        types[step.name] = step.type
        if step.name in folded:
            continue
        for ref in step.inputs:
            if ref[0] == "step":
                readers.setdefault(ref[1], []).append(step.name)
        if step.type == "FixedPointQuantize":
            try:
                qp[step.name] = from_quantizer(step)
            except ValueError as exc:
                problems.append(f'layer "{step.name}" (FixedPointQuantize): {exc}')
                qp[step.name] = from_range(*ranges[step.name])  # to name every one at once
        elif step.type in FIXED:
            qp[step.name] = FIXED[step.type]
        elif step.type in SAME:
            qp[step.name] = of(step.inputs[0])
        else:
            qp[step.name] = from_range(*ranges[step.name])
    if problems:
        raise ExportError(f'network "{program.network}" cannot be exported to TFLite int8: '
                          + "; ".join(problems))  # fmt: skip
    outputs = {ref[1] for _, ref in program.outputs if ref[0] == "step"}
    for step in program.steps:  # the classifier's logits in int16 (see WIDE)
        source = step.inputs[0] if step.inputs else ("none",)
        if step.type != "Softmax" or source[0] != "step" or readers.get(source[1]) != [step.name]:
            continue
        kind = types[source[1]]
        if kind == "BatchNormalization":
            before = next(s for s in program.steps if s.name == source[1]).inputs[0]
            if before[0] != "step" or readers.get(before[1]) != [source[1]]:
                continue
            kind = types[before[1]]
        if kind in WIDE:
            top = max(abs(v) for v in ranges[source[1]])
            qp[f"int16:{source[1]}"] = (float(np.float32(top / 32767.0 or 1.0)), 0)
    for step in program.steps:  # the layer a quantizer alone reads writes its codes
        if step.type != "FixedPointQuantize" or step.name in folded:
            continue
        source = step.inputs[0]
        if (source[0] == "step" and readers.get(source[1]) == [step.name]
                and (types[source[1]] not in FIXED or types[source[1]] in TABLED)
                and types[source[1]] not in SAME
                and source[1] not in outputs):  # fmt: skip
            qp[source[1]] = qp[step.name]
    return qp


def calibrate(source: Any, program: Any, params: Mapping[str, Any],
              rows: int = 256) -> dict[str, tuple[float, float]]:  # fmt: skip
    """(min, max) of every step output and network input over the first ``rows`` rows of the
    project's training dataset (the first optimizer's), in test mode."""

    try:
        plan = plan_run(source.project, base=source.base, seed=0)
        name = plan.optimizers[0]["dataset"]
        info = plan.datasets[name]
        csv, normalize = info["csv"], bool(info["normalize"])
    except Exception as exc:  # noqa: BLE001 - a setup problem is the user's: named in one line
        raise ExportError(f"{source.title}: cannot open the training dataset to calibrate int8 "
                          f"ranges: {exc}") from None  # fmt: skip
    if not csv:
        raise ExportError(f"{source.title}: the training dataset has no CSV to calibrate from")
    ranges: dict[str, tuple[float, float]] = {}
    seen = 0
    with open_dataset(csv, normalize=normalize, cache=False) as data, nn.no_grad():
        for _, batch in batches_once(data, 64, program.variables()):
            feeds = {v: np.asarray(batch[v], np.float32).reshape(len(batch[v]), *s)
                     for v, s in program.feeds.items()}  # fmt: skip
            acts = dict(program.forward(feeds, params).items())
            arrays = {f"feed:{v}": x for v, x in feeds.items()}
            arrays.update({k: backend.to_numpy(v.data) for k, v in acts.items()})
            for key, array in arrays.items():
                if key.startswith("output:") or not array.size:
                    continue
                lo, hi = float(array.min()), float(array.max())
                old = ranges.get(key, (lo, hi))
                ranges[key] = (min(lo, old[0]), max(hi, old[1]))
            seen += len(next(iter(feeds.values())))
            if seen >= rows:
                break
    if not seen:
        raise ExportError(f"{source.title}: the training dataset has no rows to calibrate from")
    return ranges

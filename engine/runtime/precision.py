"""Precision "Half" (NNC's CONFIG option): float16 activations and gradients, float32 masters.

As nnabla's half context (docs/nnc-behaviour.md §6.2): inputs, generated values and the parameter
copies layers read are float16, so activations and their gradients are float16; the parameters
themselves (the solver's master weights) and their gradients stay float32 (:class:`Cast`
converts both ways and back-propagates through the conversion); the layers nnabla keeps in
float32 (losses, BatchNormalization and the other normalizations, Softmax, Mean/Sum) read
float32 inputs and hand float16 to the next layer. :class:`DynamicLossScaler` is nnabla's
``DynamicLossScalingUpdater`` rule; a step whose gradients overflow is skipped and counted.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from engine.core.autograd import Function, Variable

HALF = np.float16

# Layers computed in float32 in half mode (reductions and losses; nnabla falls back to float).
FLOAT32_TYPES = frozenset({
    "BatchNormalization", "FusedBatchNormalization", "LayerNormalization",
    "InstanceNormalization", "GroupNormalization", "WeightNormalization",
    "WeightStandardization", "SpectralNorm", "MeanSubtraction", "Softmax", "LogSoftmax",
    "Mean", "Sum", "Prod", "Max", "Min", "Norm", "NormNormalization",
})  # fmt: skip


class Cast(Function):
    """``x.astype(dtype)`` with the gradient cast back to ``x``'s dtype."""

    def __init__(self, dtype: Any) -> None:
        self.dtype = np.dtype(dtype)

    def forward(self, x):
        self.x_dtype = x.dtype
        return x.astype(self.dtype)

    def backward(self, gy):
        return gy.astype(self.x_dtype)


def cast(v: Variable, dtype: Any) -> Variable:
    """``v`` as ``dtype`` when it holds floating values of another dtype, else ``v`` itself."""
    data = v.data
    if data is None or data.dtype.kind != "f" or data.dtype == dtype:
        return v
    return Cast(dtype)(v)


def runs_in_float32(step: Any) -> bool:
    """Whether a program step reads float32 in half mode (losses and :data:`FLOAT32_TYPES`)."""
    return bool(step.is_loss) or step.type in FLOAT32_TYPES


class DynamicLossScaler:
    """nnabla's dynamic loss scaling (``DynamicLossScalingUpdater``, docs/nnc-behaviour.md §6.2).

    The loss gradient is seeded with :attr:`scale`; before the update the gradients are
    checked: an overflow divides the scale by ``factor``, resets the counter and skips the
    update (nnabla retries at once on fresh data; here the next iteration is that retry);
    otherwise the gradients are divided by the scale, the solver updates, and the scale is
    multiplied by ``factor`` when more than ``interval`` good steps have passed since the last
    change. No bounds on the scale, as nnabla.
    """

    def __init__(self, scale: float = 8.0, factor: float = 2.0, interval: int = 2000) -> None:
        self.scale = float(scale)
        self.factor = float(factor)
        self.interval = int(interval)
        self.counter = 0
        self.overflows = 0  # skipped steps, over the whole run

    def after_backward(self, overflow: bool) -> bool:
        """Record one step's outcome; True when the solver should update (no overflow)."""
        if overflow:
            self.scale /= self.factor
            self.counter = 0
            self.overflows += 1
            return False
        return True

    def after_update(self) -> None:
        """nnabla: ``if counter > N: scale *= factor; counter = 0``, then ``counter += 1``."""
        if self.counter > self.interval:
            self.scale *= self.factor
            self.counter = 0
        self.counter += 1

    def state(self) -> dict[str, Any]:
        return {"scale": self.scale, "counter": self.counter, "overflows": self.overflows}

    def load_state(self, state: dict[str, Any]) -> None:
        self.scale = float(state["scale"])
        self.counter = int(state["counter"])
        self.overflows = int(state["overflows"])

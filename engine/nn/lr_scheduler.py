"""Learning-rate schedulers: nnabla's ``utils/learning_rate_scheduler.py`` and NNC's settings.

Each scheduler is a function of the global 0-based iteration ``i`` at which the solver updates:
``solver.set_learning_rate(scheduler.get_learning_rate(i))``. Formulas: docs/nnc-behaviour.md
§2.2. :func:`create_scheduler` turns an NNC ``[Optimizer]`` section's settings (units in
epochs or iterations) into a scheduler exactly as NNC converts them to nntxt.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

__all__ = [
    "BaseLearningRateScheduler", "ExponentialScheduler", "StepScheduler", "PolynomialScheduler",
    "CosineScheduler", "LinearWarmupScheduler", "create_scheduler",
]  # fmt: skip


class BaseLearningRateScheduler:
    """``get_learning_rate(iter)`` for the 0-based iteration ``iter``."""

    def get_learning_rate(self, iter: int) -> float:  # noqa: A002 - nnabla's argument name
        raise NotImplementedError

    def __call__(self, iter: int) -> float:  # noqa: A002
        return self.get_learning_rate(iter)

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in vars(self).items())
        return f"{type(self).__name__}({args})"


class ExponentialScheduler(BaseLearningRateScheduler):
    """lr₀ · γ^floor(i / iter_interval); constant when γ = 1."""

    def __init__(self, init_lr: float, gamma: float, iter_interval: int = 1) -> None:
        if int(iter_interval) < 1:
            raise ValueError(
                f"ExponentialScheduler: iter_interval must be >= 1. Received: {iter_interval!r}"
            )
        self.init_lr = float(init_lr)
        self.gamma = float(gamma)
        self.iter_interval = int(iter_interval)

    def get_learning_rate(self, iter: int) -> float:  # noqa: A002
        return self.init_lr * self.gamma ** (int(iter) // self.iter_interval)


class StepScheduler(BaseLearningRateScheduler):
    """lr₀ · γ^(number of steps s with i ≥ s)."""

    def __init__(self, init_lr: float, gamma: float, iter_steps: Iterable[int]) -> None:
        self.init_lr = float(init_lr)
        self.gamma = float(gamma)
        self.iter_steps = [int(s) for s in iter_steps]

    def get_learning_rate(self, iter: int) -> float:  # noqa: A002
        passed = sum(1 for s in self.iter_steps if iter >= s)
        return self.init_lr * self.gamma**passed


class PolynomialScheduler(BaseLearningRateScheduler):
    """lr₀ · (1 − i / max_iter)^power."""

    def __init__(self, init_lr: float, max_iter: int, power: float) -> None:
        if int(max_iter) < 1:
            raise ValueError(f"PolynomialScheduler: max_iter must be >= 1. Received: {max_iter!r}")
        self.init_lr = float(init_lr)
        self.max_iter = int(max_iter)
        self.power = float(power)

    def get_learning_rate(self, iter: int) -> float:  # noqa: A002
        return self.init_lr * (1.0 - iter / self.max_iter) ** self.power


class CosineScheduler(BaseLearningRateScheduler):
    """lr₀ · 0.5 · (1 + cos(π · i / max_iter))."""

    def __init__(self, init_lr: float, max_iter: int) -> None:
        if int(max_iter) < 1:
            raise ValueError(f"CosineScheduler: max_iter must be >= 1. Received: {max_iter!r}")
        self.init_lr = float(init_lr)
        self.max_iter = int(max_iter)

    def get_learning_rate(self, iter: int) -> float:  # noqa: A002
        return self.init_lr * 0.5 * (1.0 + math.cos(math.pi * iter / self.max_iter))


class LinearWarmupScheduler(BaseLearningRateScheduler):
    """Wraps a scheduler: for i < warmup_iter, lr(i) · (i + 1) / warmup_iter."""

    def __init__(self, scheduler: BaseLearningRateScheduler, warmup_iter: int) -> None:
        self.scheduler = scheduler
        self.warmup_iter = int(warmup_iter)

    def get_learning_rate(self, iter: int) -> float:  # noqa: A002
        lr = self.scheduler.get_learning_rate(iter)
        if iter < self.warmup_iter:
            lr *= (iter + 1) / self.warmup_iter
        return lr


def _iters(value: float, unit: Any, iter_per_epoch: int) -> int:
    """``value`` in iterations: ``unit`` is ``"epoch"``/0 or ``"iteration"``/1 (NNC's codes)."""
    name = str(unit).strip().lower()
    if name in ("0", "epoch", "epochs"):
        return int(value) * int(iter_per_epoch)
    if name in ("1", "iteration", "iterations", "iter"):
        return int(value)
    raise ValueError(f"learning-rate unit: expected epoch or iteration. Received: {unit!r}")


def create_scheduler(
    scheduler: str = "Exponential",
    init_lr: float = 0.001,
    *,
    iter_per_epoch: int,
    max_epoch: int = 1,
    gamma: float = 1.0,
    interval: int = 1,
    interval_unit: Any = "iteration",
    steps: Iterable[int] | str = (),
    power: float = 1.0,
    warmup: str | None = None,
    warmup_length: int = 0,
    warmup_unit: Any = "epoch",
) -> BaseLearningRateScheduler:
    """The scheduler an NNC ``[Optimizer]`` section describes (docs/nnc-behaviour.md §2.2).

    Args:
        scheduler: ``LearningRateScheduler``: Exponential, Step, Polynomial or Cosine.
        init_lr: the solver's first parameter (Alpha or LearningRate).
        iter_per_epoch: floor(NumData of the main dataset / BatchSize).
        max_epoch: CONFIG Max Epoch (Polynomial and Cosine use MaxEpoch × ipe).
        gamma: ``LearningRateMultiplier`` (Exponential, Step).
        interval: ``LearningRateUpdateInterval`` (Exponential).
        interval_unit: ``LearningRateUpdateIntervalUnit`` (also the unit of the Step steps);
            NNC reads a missing value as iterations.
        steps: ``LearningRateSteps``, a list or NNC's comma-separated text.
        power: ``LearningRatePower``; 0 is read as 1, as NNC does.
        warmup: ``LearningRateWarmupScheduler``: None/"None" or "Linear".
        warmup_length, warmup_unit: ``LearningRateWarmupLength`` and its unit.
    """
    kind = str(scheduler).strip().lower()
    if kind == "exponential":
        base: BaseLearningRateScheduler = ExponentialScheduler(
            init_lr, gamma, max(1, _iters(interval, interval_unit, iter_per_epoch))
        )
    elif kind == "step":
        if isinstance(steps, str):
            steps = [int(float(s)) for s in steps.split(",") if s.strip()]
        base = StepScheduler(
            init_lr, gamma, [_iters(s, interval_unit, iter_per_epoch) for s in steps]
        )
    elif kind == "polynomial":
        base = PolynomialScheduler(init_lr, max(1, max_epoch * iter_per_epoch), power or 1.0)
    elif kind == "cosine":
        base = CosineScheduler(init_lr, max(1, max_epoch * iter_per_epoch))
    else:
        raise ValueError(
            "LearningRateScheduler: expected Exponential, Step, Polynomial or Cosine. "
            f"Received: {scheduler!r}"
        )
    if warmup is None or str(warmup).strip().lower() in ("", "none"):
        return base
    if str(warmup).strip().lower() != "linear":
        raise ValueError(
            f"LearningRateWarmupScheduler: expected None or Linear. Received: {warmup!r}"
        )
    warmup_iter = _iters(warmup_length, warmup_unit, iter_per_epoch)
    return LinearWarmupScheduler(base, warmup_iter) if warmup_iter > 0 else base

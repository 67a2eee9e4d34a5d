"""One NNC optimizer entry: a solver with its update interval, weight decay, learning-rate
schedule and effective range, stepping exactly as nnabla's CLI trainer does.

Per iteration ``i`` (0-based, global) an active optimizer (docs/nnc-behaviour.md §2.2, §6.1):

1. zeroes the gradients when ``i % update_interval == 0``;
2. back-propagates the *mean* of every loss variable (their gradients are summed), so with an
   update interval k the solver sees the **sum** of k batch-mean gradients, not their average;
3. when ``i % update_interval == update_interval - 1``: ``weight_decay(wd)`` if wd > 0, sets the
   scheduled learning rate ``scheduler(i)``, and updates.

It is active at ``i`` when ``(start_iter == 0 or i + 1 >= start_iter) and
(end_iter == 0 or i + 1 <= end_iter)``.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from engine.core.autograd import Variable, backward
from engine.core.backend import get_array_module
from engine.nn._solver_base import Solver

__all__ = ["Optimizer"]


class Optimizer:
    """A solver plus NNC's per-optimizer settings.

    Args:
        solver: a solver with its parameters set.
        update_interval: ``UpdateInterval`` k (gradient accumulation over k iterations).
        weight_decay: CONFIG ``WeightDecay``; 0 disables it.
        scheduler: ``scheduler(i) -> lr``; None keeps the solver's rate.
        start_iter, end_iter: the effective range in iterations, 1-based, 0 = unbounded.
        loss_scaler: dynamic loss scaling (``engine.runtime.precision.DynamicLossScaler``, for
            precision Half); None seeds the loss gradient with 1.

    ``reduce_grads`` (None, or a callable taking the solver) runs when an update is due, right
    after back-propagation: data-parallel training averages the gradients of every process
    there (:mod:`engine.runtime.distributed`), so the rest of the update sees the global ones.
    """

    def __init__(
        self,
        solver: Solver,
        *,
        update_interval: int = 1,
        weight_decay: float = 0.0,
        scheduler: Callable[[int], float] | None = None,
        start_iter: int = 0,
        end_iter: int = 0,
        loss_scaler: Any = None,
    ) -> None:
        if int(update_interval) < 1:
            raise ValueError(f"UpdateInterval must be >= 1. Received: {update_interval!r}")
        if float(weight_decay) < 0:
            raise ValueError(f"WeightDecay must be >= 0. Received: {weight_decay!r}")
        self.solver = solver
        self.update_interval = int(update_interval)
        self.weight_decay = float(weight_decay)
        self.scheduler = scheduler
        self.start_iter = max(0, int(start_iter))
        self.end_iter = max(0, int(end_iter))
        self.loss_scaler = loss_scaler
        self.reduce_grads: Callable[[Solver], None] | None = None

    def is_active(self, i: int) -> bool:
        """Whether the optimizer runs at 0-based iteration ``i`` (its effective range)."""
        after_start = self.start_iter == 0 or i + 1 >= self.start_iter
        before_end = self.end_iter == 0 or i + 1 <= self.end_iter
        return after_start and before_end

    def step(self, i: int, losses: Sequence[Variable]) -> bool:
        """Back-propagate ``losses`` (already forwarded) and update when the interval is due.

        Returns:
            True when the solver updated the parameters at this iteration.
        """
        k = self.update_interval
        if i % k == 0:
            self.solver.zero_grad()
        scaler = self.loss_scaler
        scale = 1.0 if scaler is None else scaler.scale
        seeds = []
        for loss in losses:
            xp = get_array_module(loss.data)
            seed = scale / max(1, loss.data.size)
            seeds.append(xp.full(loss.data.shape, seed, loss.data.dtype))
        # With loss scaling, float16 overflows are expected: they are detected below.
        with np.errstate(over="ignore", invalid="ignore") if scaler else contextlib.nullcontext():
            backward(list(losses), seeds, clear_buffer=True)
        if i % k != k - 1:
            return False
        if self.reduce_grads is not None:
            self.reduce_grads(self.solver)
        if scaler is not None:
            if not scaler.after_backward(self.solver.check_inf_or_nan_grad()):
                return False  # overflow: skipped (and counted); the scale went down
            self.solver.scale_grad(1.0 / scale)
        if self.weight_decay > 0:
            self.solver.weight_decay(self.weight_decay)
        if self.scheduler is not None:
            self.solver.set_learning_rate(self.scheduler(i))
        self.solver.update()
        if scaler is not None:
            scaler.after_update()
        return True

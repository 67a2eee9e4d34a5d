"""The trainer of one rank: the single-process loop plus the all-reduce of every update.

Every rank runs the same :class:`~engine.runtime.trainer.Trainer` loop on its shard. When an
optimizer's update is due, its gradients and the iteration's loss go into one buffer per dtype,
are averaged over the ranks, and every rank applies the same update to the same parameters, so
they never drift apart. The learning curve therefore shows the global batch's loss. A stop
request (Stop button, SIGTERM from mpirun) is agreed on by an all-reduce after each iteration,
so every rank stops after the same one.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from engine.core import backend
from engine.runtime.distributed.collectives import GradientReducer, World
from engine.runtime.events import EventSink
from engine.runtime.session import OptimizerRun, Session
from engine.runtime.trainer import Trainer, TrainState

__all__ = ["DistributedTrainer", "ScaledSchedule", "scale_learning_rates"]


class DistributedTrainer(Trainer):
    """A :class:`Trainer` whose updates use the mean gradient of all ranks."""

    def __init__(
        self,
        session: Session,
        w: World,
        extensions: Sequence[Any] = (),
        events: EventSink | None = None,
        state: TrainState | None = None,
    ) -> None:
        super().__init__(session, extensions, events, state)
        self.world = w
        self.reducer = GradientReducer(w)
        self._stop_wanted = False
        self._loss: Any = None
        self._loss_reduced = False
        for run in session.optimizers:
            run.optimizer.reduce_grads = self._reduce_grads

    def request_stop(self) -> None:
        """Stop after the iteration every rank agrees on (see :meth:`update`)."""
        self._stop_wanted = True

    def update(self) -> None:
        super().update()
        if self.world.size > 1 and self.world.allreduce(int(self._stop_wanted)):
            self.stop_event.set()
        elif self._stop_wanted:
            self.stop_event.set()

    def _forward_backward(self, run: OptimizerRun, batch: dict[str, Any], i: int) -> Any:
        acts = run.program.forward(batch, run.params)
        losses = run.program.loss_values(acts)
        xp = backend.get_array_module(losses[0].data)
        value = sum(xp.mean(v.data, dtype=np.float64) for v in losses)
        # The loss travels with the gradients in their float32 buffer (one collective).
        self._loss, self._loss_reduced = xp.asarray(value, dtype=np.float32).reshape(1), False
        run.optimizer.step(i, losses)
        if not self._loss_reduced:  # inside an update interval: no gradients to send yet
            self._loss = self.reducer.mean([self._loss])[0]
        value = self._loss.reshape(()).astype(np.float64)
        if xp is np and not np.isfinite(value):  # every rank sees the same mean: all stop
            where = run.program.find_non_finite(acts, run.params)
            cause = where.describe() if where else "the loss of another process is NaN or inf"
            raise self._non_finite(i, run, cause)
        return value

    def _reduce_grads(self, solver: Any) -> None:
        params = [v for v in solver.get_parameters().values() if v.grad is not None]
        means = self.reducer.mean([*(v.grad for v in params), self._loss])
        for var, grad in zip(params, means, strict=False):
            var.grad = grad
        self._loss, self._loss_reduced = means[-1], True


class ScaledSchedule:
    """A learning-rate schedule times ``factor``, reached linearly over ``warmup`` iterations
    from the unscaled rate (Goyal et al., "Accurate, Large Minibatch SGD"; ChainerMN)."""

    def __init__(self, base: Any, factor: float, warmup: int) -> None:
        self.base, self.factor, self.warmup = base, float(factor), int(warmup)

    def __call__(self, i: int) -> float:
        ramp = min(1.0, (i + 1) / self.warmup) if self.warmup > 0 else 1.0
        rate = self.base(i) if callable(self.base) else self.base  # a schedule or a fixed rate
        return float(rate) * (1.0 + (self.factor - 1.0) * ramp)


def scale_learning_rates(session: Session, processes: int) -> None:
    """``--lr-scaling linear``: every optimizer's rate x K (after ``lr_warmup`` epochs)."""
    plan = session.plan
    if plan.lr_scaling != "linear" or processes == 1:
        return
    warmup = plan.lr_warmup * plan.iter_per_epoch
    for run in session.optimizers:
        opt = run.optimizer
        base = opt.scheduler if opt.scheduler is not None else opt.solver.learning_rate()
        opt.scheduler = ScaledSchedule(base, processes, warmup)

"""The training loop, as nnabla's CLI trainer runs an NNC project (nnc-behaviour.md §6).

The loop is short; everything else (monitors, best and last checkpoints, the learning curve,
events, progress, stop requests) is an :class:`~engine.runtime.extensions.Extension` called at
the start, after each iteration, after each epoch and at the end, in the order given.

Per iteration ``i`` (0-based, global), each optimizer active at ``i`` (its effective range), in
project order, takes the next batch of its dataset (optimizers sharing a dataset get the same
batch), runs its network forward, adds Σ mean(loss) to the epoch's cost, back-propagates and
updates when its update interval is due (:class:`engine.nn.optimizer.Optimizer`). An epoch is
``floor(rows of the main dataset / batch size)`` iterations; its cost is the mean over its
iterations. A NaN or infinite loss stops the run with :class:`NonFiniteError`, which names the
epoch, the iteration and the first layer whose output held it.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from engine.core import backend
from engine.runtime.events import EventSink
from engine.runtime.session import OptimizerRun, Session

__all__ = ["TrainState", "EpochRecord", "Trainer", "TrainingError", "NonFiniteError"]


class TrainingError(RuntimeError):
    """A run that cannot go on; the message names the place."""


class NonFiniteError(TrainingError):
    """A loss became NaN or infinite."""


@dataclass
class EpochRecord:
    epoch: int  # 1-based
    cost: float
    monitors: dict[str, float] = field(default_factory=dict)  # only on monitored epochs
    best: bool = False

    @property
    def monitored(self) -> bool:
        return bool(self.monitors)


@dataclass
class TrainState:
    """Where a run is; saved in checkpoints so a resumed run continues exactly."""

    iteration: int = 0  # completed iterations (global)
    epoch: int = 0  # completed epochs
    cost_sum: float = 0.0  # Σ over the current epoch's iterations of Σ mean(loss)
    cost_count: int = 0
    best_error: float | None = None
    best_epoch: int | None = None
    history: list[EpochRecord] = field(default_factory=list)
    elapsed: float = 0.0  # training seconds before this process (resume)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> TrainState:
        """The state as :meth:`to_json` wrote it; raises ValueError (JobError) when damaged."""
        from engine.runtime.job import typed_fields  # noqa: PLC0415

        values = typed_fields(cls, data, "state.json state")
        records = [
            typed_fields(EpochRecord, r, "state.json history") for r in values.get("history", [])
        ]
        try:
            history = [EpochRecord(**r) for r in records]
        except TypeError as exc:
            raise ValueError(f"state.json history: damaged ({exc})") from None
        return cls(**{**values, "history": history})


class Trainer:
    """Runs a :class:`~engine.runtime.session.Session` with extensions."""

    def __init__(
        self,
        session: Session,
        extensions: Sequence[Any] = (),
        events: EventSink | None = None,
        state: TrainState | None = None,
    ) -> None:
        self.session = session
        self.extensions = list(extensions)
        self.events = events or EventSink()
        self.state = state or TrainState()
        self.stop_event = threading.Event()
        self._started = 0.0

    # -- control -----------------------------------------------------------------------------

    def request_stop(self) -> None:
        """Finish the current iteration, save a checkpoint and end with status ``stopped``."""
        self.stop_event.set()

    def emit(self, event: str, **fields: Any) -> None:
        self.events.emit(event, **fields)

    @property
    def elapsed(self) -> float:
        return self.state.elapsed + (time.monotonic() - self._started if self._started else 0.0)

    @property
    def iter_per_epoch(self) -> int:
        return self.session.plan.iter_per_epoch

    # -- the loop ----------------------------------------------------------------------------

    def run(self) -> str:
        """Train to the last epoch (or a stop request); returns ``finished`` or ``stopped``."""
        self._started = time.monotonic()
        self._call("on_start")
        status = "finished"
        try:
            while self.state.iteration < self.session.total_iterations:
                if self.stop_event.is_set():
                    status = "stopped"
                    break
                self.update()
                self._call("on_iteration")
                if self.state.iteration % self.iter_per_epoch == 0:
                    self.end_epoch()
        except BaseException as exc:
            self._stop_clock()
            self._call("on_error", exc)
            raise
        self._stop_clock()
        self._call("on_end", status)
        return status

    def _stop_clock(self) -> None:
        self.state.elapsed = self.elapsed
        self._started = 0.0

    def update(self) -> None:
        """One iteration of every active optimizer (nnc-behaviour.md §6.1)."""
        i = self.state.iteration
        batches: dict[str, dict[str, Any]] = {}
        cost = 0.0
        ran = False
        for run in self.session.optimizers:
            if not run.optimizer.is_active(i):
                continue
            if run.dataset not in batches:
                batches[run.dataset] = self.session.iterators[run.dataset].next()
            cost += self._step(run, batches[run.dataset], i)
            ran = True
        self.state.iteration = i + 1
        if ran:
            self.state.cost_sum += cost
            self.state.cost_count += 1

    def _step(self, run: OptimizerRun, batch: dict[str, Any], i: int) -> float:
        acts = run.program.forward(batch, run.params)
        losses = run.program.loss_values(acts)
        value = sum(float(backend.get_array_module(v.data).mean(v.data)) for v in losses)
        if not np.isfinite(value):
            where = run.program.find_non_finite(acts, run.params)
            epoch, k = divmod(i, self.iter_per_epoch)
            cause = where.describe() if where else "the loss is NaN or infinity"
            raise NonFiniteError(
                f"NaN or infinity at epoch {epoch + 1}, iteration {k + 1} (global iteration "
                f'{i + 1}): optimizer "{run.name}", network "{run.network}": {cause}'
            )
        run.optimizer.step(i, losses)
        return value

    def end_epoch(self) -> None:
        state = self.state
        cost = state.cost_sum / state.cost_count if state.cost_count else 0.0
        state.epoch += 1
        state.cost_sum, state.cost_count = 0.0, 0
        record = EpochRecord(state.epoch, cost)
        state.history.append(record)
        self._call("on_epoch", record)

    def is_monitored(self, epoch: int) -> bool:
        """NNC: monitors run after epoch e when e % interval == 0 or e <= 5 (§2.1)."""
        interval = self.session.plan.monitor_interval
        interval = interval if interval > 0 else 10
        return epoch % interval == 0 or epoch <= 5

    def _call(self, hook: str, *args: Any) -> None:
        for ext in self.extensions:
            method = getattr(ext, hook, None)
            if method is not None:
                method(self, *args)

"""The training loop, as nnabla's CLI trainer runs an NNC project (docs/nnc-behaviour.md §6).

The loop is short; everything else (monitors, best and last checkpoints, the learning curve,
events, progress, stop requests) is an :class:`~engine.runtime.extensions.Extension` called at
the start, after each iteration, after each epoch and at the end, in the order given.

Per iteration ``i`` (0-based, global), each optimizer active at ``i`` (its effective range), in
project order, takes the next batch of its dataset (optimizers sharing a dataset get the same
batch), runs its network forward, adds Σ mean(loss) to the epoch's cost, back-propagates and
updates when its update interval is due (:class:`engine.nn.optimizer.Optimizer`). A network
without loss layer that stores into a WorkingMemory (NNC's mixup sample, network SetData) only
runs forward. An epoch is
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

import engine.nn as nn
from engine.core import backend, gpu, threads
from engine.core.messages import QT_TRANSLATE_NOOP
from engine.runtime.events import EventSink
from engine.runtime.job import typed_fields
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
        # Losses of the steps not yet read back: (iteration, run, 0-d device array). On the CPU
        # each is read at once; on a device only when someone needs the cost (events, epoch
        # end, checkpoints), so a training step never waits for the GPU.
        self._pending: list[tuple[int, OptimizerRun, Any]] = []

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
        # one thread or every core, whichever makes the steps faster (engine/core/threads.py)
        choice = threads.chooser() if backend.device() == "cpu" else None
        try:
            while self.state.iteration < self.session.total_iterations:
                if self.stop_event.is_set():
                    status = "stopped"
                    break
                if choice is not None:
                    choice.begin()
                self.update()
                if choice is not None:
                    choice.end()
                self._call("on_iteration")
                if self.state.iteration % self.iter_per_epoch == 0:
                    self.end_epoch()
            self.flush()
        except BaseException as exc:
            self._stop_clock()
            self._call("on_error", exc)
            raise
        finally:
            if choice is not None:
                choice.close()
        self._stop_clock()
        self._call("on_end", status)
        return status

    def _stop_clock(self) -> None:
        self.state.elapsed = self.elapsed
        self._started = 0.0

    def update(self) -> None:
        """One iteration of every active optimizer (docs/nnc-behaviour.md §6.1)."""
        i = self.state.iteration
        batches: dict[str, dict[str, Any]] = {}
        ran = False
        for run in self.session.optimizers:
            if not run.optimizer.is_active(i):
                continue
            if run.dataset not in batches:
                batches[run.dataset] = self.session.iterators[run.dataset].next()
            value = self._step(run, batches[run.dataset], i)
            if value is not None:
                self._pending.append((i, run, value))
                ran = True
        self.state.iteration = i + 1
        if ran:
            self.state.cost_count += 1
            if backend.get_array_module(self._pending[-1][2]) is np:
                self.flush()

    def _step(self, run: OptimizerRun, batch: dict[str, Any], i: int) -> Any:
        """The iteration's loss (a 0-d device array), None for a network without loss."""
        try:
            if not run.program.losses:  # mixup's SetData: it only fills WorkingMemory buffers
                with nn.no_grad():
                    run.program.forward(batch, run.params)
                return None
            return self._forward_backward(run, batch, i)
        except Exception as exc:
            if isinstance(exc, gpu.DeviceFailure):
                failure = exc
            elif gpu.is_device_error(exc):  # raised outside a layer: back-propagation, update
                failure = gpu.explain(exc, f'network "{run.network}" (gradients or update)')
            else:
                raise
            hint = ""
            if failure.out_of_memory:
                hint = (f"; try a smaller batch size (CONFIG: Batch Size, now "
                        f"{self.session.plan.batch_size})")  # fmt: skip
            raise TrainingError(f'optimizer "{run.name}": {failure}{hint}') from None

    def _forward_backward(self, run: OptimizerRun, batch: dict[str, Any], i: int) -> Any:
        acts = run.program.forward(batch, run.params)
        losses = run.program.loss_values(acts)
        xp = backend.get_array_module(losses[0].data)
        value = sum(xp.mean(v.data, dtype=np.float64) for v in losses)
        if xp is np and not np.isfinite(value):  # on the CPU the layer is found at once
            where = run.program.find_non_finite(acts, run.params)
            raise self._non_finite(i, run, where.describe() if where else "")
        run.optimizer.step(i, losses)
        return value

    def flush(self) -> None:
        """Read back the losses of the steps since the last call (one host synchronisation) into
        the epoch's cost; a NaN or infinity among them stops the run."""
        if not self._pending:
            return
        pending, self._pending = self._pending, []
        xp = backend.get_array_module(pending[0][2])
        try:
            values = backend.to_numpy(xp.stack([v.reshape(()) for _, _, v in pending]))
        except ValueError as exc:  # a check deferred on the device (a label out of range)
            first, last = pending[0][0] + 1, pending[-1][0] + 1
            raise TrainingError(f"global iterations {first}-{last}: {exc}") from None
        for (i, run, _), value in zip(pending, values, strict=True):
            if not np.isfinite(value):
                raise self._non_finite(i, run, "")
            self.state.cost_sum += float(value)

    def _non_finite(self, i: int, run: OptimizerRun, cause: str) -> NonFiniteError:
        epoch, k = divmod(i, self.iter_per_epoch)
        if not cause:
            cause = QT_TRANSLATE_NOOP("Training", "the loss is NaN or infinity")
            if backend.device() == "gpu":
                cause = QT_TRANSLATE_NOOP(
                    "Training",
                    "the loss is NaN or infinity (on the GPU the layer is not searched: rerun "
                    "with --device cpu)",
                )
        return NonFiniteError(
            QT_TRANSLATE_NOOP(
                "Training",
                "NaN or infinity at epoch {epoch}, iteration {iteration} (global iteration "
                '{step}): optimizer "{optimizer}", network "{network}": {cause}',
            ).format(
                epoch=epoch + 1,
                iteration=k + 1,
                step=i + 1,
                optimizer=run.name,
                network=run.network,
                cause=cause,
            )  # fmt: skip
        )

    def end_epoch(self) -> None:
        self.flush()
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

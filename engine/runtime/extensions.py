"""Trainer extensions: each one job, called by :class:`engine.runtime.trainer.Trainer`.

An extension may define ``on_start(trainer)``, ``on_iteration(trainer)``,
``on_epoch(trainer, record)``, ``on_end(trainer, status)`` and ``on_error(trainer, exc)``.
They run in list order; :func:`standard_extensions` gives the order that makes the numbers
flow: monitors first, then the best checkpoint, the last checkpoint, the job files, events and
progress.
"""

from __future__ import annotations

import itertools
import logging
import math
import os
import socket
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

import engine.nn as nn
from engine.core import backend, optional
from engine.core.atomic import describe_write_error
from engine.core.messages import QT_TRANSLATE_NOOP, text_of
from engine.data.iterator import batches_once
from engine.runtime.checkpoint import save_best, save_checkpoint
from engine.runtime.job import Job
from engine.runtime.results import ResultFiles
from engine.runtime.session import MonitorRun, Session
from engine.runtime.trainer import EpochRecord, Trainer

tqdm = optional.lazy("tqdm")  # the command line's progress bar

__all__ = [
    "Monitors", "BestKeeper", "Checkpointer", "DivergenceWatch", "JobRecorder", "EventStream",
    "ProgressBar", "StdinStop", "evaluate_monitor", "standard_extensions", "log_line",
]  # fmt: skip

logger = logging.getLogger("neurocanvas")


def evaluate_monitor(session: Session, monitor: MonitorRun) -> tuple[float, str | None]:
    """NNC's monitor value: the mean over ``floor(rows / batch)`` batches of Σ mean(loss).

    Every loss-type layer of the monitored network counts (docs/nnc-behaviour.md §6.3). Returns
    ``(value, warning)``; NaN/inf is reported as 0 with a warning, as NNC does.
    """
    program = monitor.program
    if not program.losses:
        return 0.0, QT_TRANSLATE_NOOP(
            "Training", 'monitor "{monitor}": network "{network}" has no loss layer'
        ).format(monitor=monitor.name, network=monitor.network)
    dataset = session.datasets[monitor.dataset]
    batch = session.plan.batch_size
    count = max(1, dataset.size // batch)  # a dataset smaller than a batch: one short batch
    total = 0.0
    with nn.no_grad():
        stream = batches_once(dataset, batch, program.variables())
        for _, data in itertools.islice(stream, count):  # leaving early stops the prefetch
            acts = program.forward(data, monitor.params)
            for v in program.loss_values(acts):  # summed on the device, read back once
                total = total + backend.get_array_module(v.data).mean(v.data, dtype=np.float64)
        getattr(stream, "close", lambda: None)()  # a generator: stop its prefetch thread
    value = float(backend.to_numpy(total)) / count
    if not math.isfinite(value):
        return 0.0, QT_TRANSLATE_NOOP(
            "Training", 'Validation error is Nan: monitor "{monitor}" reported as 0'
        ).format(monitor=monitor.name)
    return value, None


class Monitors:
    """Evaluates every monitor after the epochs NNC monitors (every interval, and 1-5)."""

    def on_epoch(self, trainer: Trainer, record: EpochRecord) -> None:
        if not trainer.is_monitored(record.epoch):
            return
        for monitor in trainer.session.monitors:
            value, warning = evaluate_monitor(trainer.session, monitor)
            record.monitors[monitor.name] = value
            if warning:
                trainer.emit("warning", message=warning)


class BestKeeper:
    """NNC's best epoch (§6.4): after a monitored epoch, keep the parameters when Save Best is
    off, when there is no best yet (or it is exactly 0), or when valid_error <= best."""

    def __init__(self, folder: Any) -> None:
        self.folder = folder

    def on_epoch(self, trainer: Trainer, record: EpochRecord) -> None:
        if not record.monitored:
            return
        state = trainer.state
        value = record.monitors.get("valid_error", 0.0)
        best = state.best_error
        if not trainer.session.plan.save_best or best is None or best == 0 or value <= best:
            state.best_error, state.best_epoch = value, record.epoch
            record.best = True
            save_best(trainer, self.folder, record.epoch, value)
            trainer.emit("checkpoint", kind="best", epoch=record.epoch,
                         iteration=state.iteration, path=str(self.folder))  # fmt: skip


class Checkpointer:
    """The ``last`` checkpoint: after every epoch while a save costs at most ``overhead`` of
    the training time since the previous one (so a run killed mid-way loses at most one short
    epoch, as NNC's results_current), else every ``interval`` seconds; after the last epoch;
    and when the run stops."""

    def __init__(self, folder: Any, interval: float = 30.0, overhead: float = 0.25) -> None:
        self.folder = folder
        self.interval = interval
        self.overhead = overhead
        self._saved_at = time.monotonic()
        self._save_seconds = 0.0  # how long the previous save took
        self._saved_iteration = -1

    def on_start(self, trainer: Trainer) -> None:
        self._saved_at = time.monotonic()
        self._saved_iteration = trainer.state.iteration

    def on_epoch(self, trainer: Trainer, record: EpochRecord) -> None:
        last = record.epoch >= trainer.session.plan.max_epoch
        since = time.monotonic() - self._saved_at
        cheap = self._save_seconds <= self.overhead * since
        if last or cheap or since >= self.interval:
            self.save(trainer)

    def on_end(self, trainer: Trainer, status: str) -> None:
        if trainer.state.iteration != self._saved_iteration or not Path(self.folder).is_dir():
            self.save(trainer)

    def save(self, trainer: Trainer) -> None:
        trainer.flush()  # the saved cost includes every finished step
        started = time.monotonic()
        save_checkpoint(trainer, self.folder)
        self._saved_at = time.monotonic()
        self._save_seconds = self._saved_at - started
        self._saved_iteration = trainer.state.iteration
        trainer.emit("checkpoint", kind="last", epoch=trainer.state.epoch,
                     iteration=trainer.state.iteration, path=str(self.folder))  # fmt: skip


class DivergenceWatch:
    """A warning (once) when an epoch's cost ends far above the cost the run started from:
    a learning rate that is too high often diverges to a flat, large cost without NaN."""

    FACTOR = 10.0

    def __init__(self) -> None:
        self.start_cost: float | None = None
        self.warned = False

    def on_iteration(self, trainer: Trainer) -> None:
        state = trainer.state
        if self.start_cost is None and state.epoch == 0 and state.cost_count == 1:
            self.start_cost = state.cost_sum  # the untrained network's first batch

    def on_epoch(self, trainer: Trainer, record: EpochRecord) -> None:
        start = self.start_cost
        if self.warned or start is None or not math.isfinite(record.cost):
            return
        if record.cost > self.FACTOR * abs(start) and record.cost - start > 1.0:
            self.warned = True
            message = QT_TRANSLATE_NOOP(
                "Training",
                "the cost diverges: epoch {epoch} ended at {cost}, the first iteration was "
                "at {start}; the learning rate may be too high",
            ).format(epoch=record.epoch, cost=f"{record.cost:.6g}", start=f"{start:.6g}")
            logger.warning(message)
            trainer.emit("warning", message=message)


def log_line(trainer: Trainer, record: EpochRecord) -> str:
    """nnabla's log line (docs/formats.md §3.4)."""
    plan = trainer.session.plan
    elapsed = trainer.elapsed
    done = max(1, trainer.state.iteration)
    estimate = elapsed / done * trainer.session.total_iterations
    line = f"epoch {record.epoch} of {plan.max_epoch} cost={record.cost:.6f} "
    if record.monitored:
        line += " {" + ", ".join(f"{k}={v:.6f}" for k, v in record.monitors.items()) + "}"
    return line + f" time=({elapsed:.1f}s /{estimate:.1f}s)"


class JobRecorder:
    """The job folder's status, learning curve, monitoring report and log."""

    def __init__(self, job: Job, echo: Callable[[str], None] | None = None) -> None:
        self.job = job
        self.echo = echo

    def on_start(self, trainer: Trainer) -> None:
        self._status(trainer, "running")

    def on_epoch(self, trainer: Trainer, record: EpochRecord) -> None:
        history = trainer.state.history
        self.job.write_curve(
            (r.epoch, r.cost, r.monitors.get("train_error"), r.monitors.get("valid_error"))
            for r in history
        )
        self.job.write_report(
            {"epoch": r.epoch, "cost": r.cost, "monitors": r.monitors} for r in history
        )
        line = log_line(trainer, record)
        self.job.append_line(self.job.log_file, line)
        if self.echo is not None:
            self.echo(line)
        self._status(trainer, "running")

    def on_end(self, trainer: Trainer, status: str) -> None:
        self._status(trainer, status)

    def on_error(self, trainer: Trainer, exc: BaseException) -> None:
        stopped = isinstance(exc, KeyboardInterrupt)
        message = describe_write_error(exc) if isinstance(exc, OSError) else str(exc)
        self._status(trainer, "stopped" if stopped else "failed", message=message)

    def _status(self, trainer: Trainer, status: str, message: str = "") -> None:
        state = trainer.state
        self.job.write_status(
            status=status, epoch=state.epoch, max_epoch=trainer.session.plan.max_epoch,
            iteration=state.iteration, total_iterations=trainer.session.total_iterations,
            best_epoch=state.best_epoch, best_valid_error=state.best_error,
            elapsed=round(trainer.elapsed, 3), message=message, pid=os.getpid(),
            host=socket.gethostname(),
        )  # fmt: skip


class EventStream:
    """start / iteration (at most every ``every`` seconds) / epoch / done / error events."""

    def __init__(self, every: float = 0.5, **start_fields: Any) -> None:
        self.every = every
        self.start_fields = start_fields
        self._last = 0.0

    def on_start(self, trainer: Trainer) -> None:
        plan = trainer.session.plan
        trainer.emit("start", max_epoch=plan.max_epoch, iter_per_epoch=plan.iter_per_epoch,
                     batch_size=plan.batch_size, seed=plan.seed, epoch=trainer.state.epoch,
                     iteration=trainer.state.iteration, **self.start_fields)  # fmt: skip
        notice = backend.device_notice()  # an automatic CPU fallback is never silent
        if notice:
            trainer.emit("warning", message=notice)
        if plan.precision == "Half" and backend.device() == "cpu":
            trainer.emit("warning", message=QT_TRANSLATE_NOOP(
                "Training", "Precision Half on the CPU: float16 is emulated by NumPy and trains "
                "slower than Float"))  # fmt: skip

    def on_iteration(self, trainer: Trainer) -> None:
        now = time.monotonic()
        if now - self._last < self.every:
            return
        self._last = now
        trainer.flush()
        state = trainer.state
        cost = state.cost_sum / state.cost_count if state.cost_count else None
        trainer.emit("iteration", epoch=state.epoch + 1, iteration=state.iteration,
                     total=trainer.session.total_iterations, cost=cost)  # fmt: skip

    def on_epoch(self, trainer: Trainer, record: EpochRecord) -> None:
        scalers = [r.optimizer.loss_scaler for r in trainer.session.optimizers]
        scalers = [s for s in scalers if s is not None]
        extra = {}
        if scalers:  # precision Half: the loss scales and the overflow steps skipped so far
            extra = {"loss_scale": [s.scale for s in scalers],
                     "overflow_steps": sum(s.overflows for s in scalers)}  # fmt: skip
        trainer.emit("epoch", epoch=record.epoch, cost=record.cost,
                     train_error=record.monitors.get("train_error"),
                     valid_error=record.monitors.get("valid_error"), monitors=record.monitors,
                     best=record.best, elapsed=round(trainer.elapsed, 3), **extra)  # fmt: skip

    def on_end(self, trainer: Trainer, status: str) -> None:
        state = trainer.state
        trainer.emit("done", status=status, epoch=state.epoch, iteration=state.iteration,
                     best_epoch=state.best_epoch, best_valid_error=state.best_error,
                     elapsed=round(trainer.elapsed, 3))  # fmt: skip

    def on_error(self, trainer: Trainer, exc: BaseException) -> None:
        if isinstance(exc, KeyboardInterrupt):
            trainer.emit("done", status="stopped", epoch=trainer.state.epoch,
                         iteration=trainer.state.iteration, best_epoch=trainer.state.best_epoch,
                         best_valid_error=trainer.state.best_error,
                         elapsed=round(trainer.elapsed, 3))  # fmt: skip
        else:
            trainer.emit("error", message=text_of(exc) or type(exc).__name__)


class ProgressBar:
    """A tqdm bar on stderr over all iterations (for a terminal)."""

    def __init__(self) -> None:
        self.bar: Any = None

    def on_start(self, trainer: Trainer) -> None:
        self.bar = tqdm.tqdm(total=trainer.session.total_iterations,
                             initial=trainer.state.iteration, unit="it", file=sys.stderr,
                             dynamic_ncols=True, leave=False)  # fmt: skip

    def on_iteration(self, trainer: Trainer) -> None:
        state = trainer.state
        self.bar.set_description(f"epoch {state.epoch + 1}/{trainer.session.plan.max_epoch}",
                                 refresh=False)  # fmt: skip
        if state.cost_count and not trainer._pending:  # no read-back of its own on a device
            self.bar.set_postfix(cost=f"{state.cost_sum / state.cost_count:.4f}", refresh=False)
        self.bar.update(1)

    def write(self, line: str) -> None:
        tqdm.tqdm.write(line, file=sys.stderr)

    def on_end(self, trainer: Trainer, status: str) -> None:
        self.close()

    def on_error(self, trainer: Trainer, exc: BaseException) -> None:
        self.close()

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None


class StdinStop:
    """A line ``stop`` on stdin asks the trainer to stop (the app's Stop button)."""

    def __init__(self, stream: Any = None) -> None:
        self.stream = stream

    def on_start(self, trainer: Trainer) -> None:
        watch_stdin(trainer.request_stop, self.stream)


def watch_stdin(on_stop: Callable[[], Any], stream: Any = None) -> None:
    """Call ``on_stop`` when a line ``stop`` arrives on ``stream`` (stdin), from a daemon thread;
    train, quantize sweep and search share it."""
    stream = stream or sys.stdin
    if stream is None:
        return

    def watch() -> None:
        try:
            for line in stream:
                if line.strip().lower() == "stop":
                    on_stop()
                    return
        except (OSError, ValueError):  # stdin closed, or a test's stand-in that cannot be read
            return

    threading.Thread(target=watch, name="nc-stdin-stop", daemon=True).start()


def standard_extensions(
    job: Job,
    *,
    progress: bool = False,
    stdin_stop: bool = False,
    checkpoint_interval: float = 30.0,
    start_fields: dict[str, Any] | None = None,
) -> list[Any]:
    """The extensions of ``neurocanvas train``, in the order the numbers flow."""
    bar = ProgressBar() if progress else None
    echo = bar.write if bar is not None else logger.info
    extensions: list[Any] = [
        Monitors(),
        BestKeeper(job.checkpoint_dir("best")),
        Checkpointer(job.checkpoint_dir("last"), checkpoint_interval),
        DivergenceWatch(),
        JobRecorder(job, echo),
        ResultFiles(job),  # result.ini and results.nnp at the end, as NNC's job folders
        EventStream(**(start_fields or {})),
    ]
    if bar is not None:
        extensions.append(bar)
    if stdin_stop:
        extensions.append(StdinStop())
    return extensions

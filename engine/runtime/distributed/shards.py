"""Each process's share of the data: training batches and validation batches.

The K processes together draw exactly the batches one process would draw with the global batch
``G = K x B`` (same seed, same per-epoch permutation, nnabla's endless stream): batch ``k`` of
the stream is cut into K consecutive slices of B rows and rank r takes slice r. So every epoch
the shards are disjoint, seeded, and cover every sample once, and K processes with batch B
follow one process with batch G step for step. Validation is split the same way and reduced.
"""

from __future__ import annotations

from typing import Any

import numpy as np

import engine.nn as nn
from engine.core import backend
from engine.core.messages import QT_TRANSLATE_NOOP
from engine.data.csv_dataset import Dataset
from engine.data.errors import DatasetError
from engine.data.iterator import STATE_FORMAT, BatchOrder, DataIterator
from engine.runtime.distributed.collectives import World
from engine.runtime.session import MonitorRun, Session
from engine.runtime.trainer import EpochRecord, Trainer

__all__ = ["ShardOrder", "ShardIterator", "ShardedMonitors", "evaluate_monitor_shard"]


class ShardOrder(BatchOrder):
    """A :class:`BatchOrder` of the global batch; :meth:`rows` gives only this rank's slice."""

    def __init__(self, size: int, batch: int, shuffle: bool, seed: int, rank: int, k: int):
        super().__init__(size, batch * k, shuffle, seed)
        self.local_batch, self.rank = batch, rank

    def rows(self, batch: int) -> np.ndarray:
        start = self.rank * self.local_batch
        return super().rows(batch)[start : start + self.local_batch]


class ShardIterator(DataIterator):
    """This rank's batches of B rows; its state is the global stream's (same on every rank).

    Resuming a state saved with another number of processes keeps the sample position of the
    stream, rounded down to a whole global batch of the new run.
    """

    def __init__(self, dataset: Dataset, batch: int, w: World, *, shuffle: bool, seed: int,
                 variables: Any = None, prefetch: int = 2) -> None:  # fmt: skip
        super().__init__(dataset, batch, shuffle=shuffle, seed=seed, variables=variables,
                         prefetch=prefetch)  # fmt: skip
        self.world = w
        self._order = ShardOrder(dataset.size, batch, shuffle, seed, w.rank, w.size)

    def load_state_dict(self, state: dict[str, Any]) -> None:
        ours = isinstance(state, dict) and state.get("format") == STATE_FORMAT
        saved = state.get("batch_size") if ours else None
        if isinstance(saved, int) and saved > 0:
            position = int(state.get("batches", 0)) * saved
            state = {**state, "batch_size": self.batch_size,
                     "batches": position // self.batch_size}  # fmt: skip
        super().load_state_dict(state)
        b = self._order
        self._order = ShardOrder(b.size, b.batch_size // self.world.size, b.shuffle, b.seed,
                                 self.world.rank, self.world.size)  # fmt: skip


def evaluate_monitor_shard(session: Session, monitor: MonitorRun, w: World) -> float:
    """NNC's monitor value (``evaluate_monitor``) computed by K ranks with the global batch.

    The value is the mean over ``floor(rows / G)`` global batches of Σ mean(loss); each rank
    evaluates its slice of every global batch and the weighted slice means are summed over ranks.
    """
    program = monitor.program
    dataset = session.datasets[monitor.dataset]
    local = session.plan.batch_size
    glob = local * w.size
    count = max(1, dataset.size // glob)
    total: Any = 0.0
    with nn.no_grad():
        for k in range(count):
            rows = np.arange(k * glob, min(dataset.size, (k + 1) * glob))
            mine = np.array_split(rows, w.size)[w.rank]
            if mine.size == 0:
                continue
            data = dataset.get_batch(mine, program.variables())
            acts = program.forward(data, monitor.params)
            weight = mine.size / rows.size
            for v in program.loss_values(acts):
                xp = backend.get_array_module(v.data)
                total = total + xp.mean(v.data, dtype=np.float64) * weight
    return float(w.allreduce(float(backend.to_numpy(total)))) / count


class ShardedMonitors:
    """Replaces :class:`~engine.runtime.extensions.Monitors` on every rank (it is collective)."""

    def __init__(self, w: World) -> None:
        self.world = w

    def on_epoch(self, trainer: Trainer, record: EpochRecord) -> None:
        if not trainer.is_monitored(record.epoch):
            return
        for monitor in trainer.session.monitors:
            if not monitor.program.losses:  # as evaluate_monitor: 0 and a warning
                record.monitors[monitor.name] = 0.0
                trainer.emit("warning", message=QT_TRANSLATE_NOOP(
                    "Training", 'monitor "{monitor}": network "{network}" has no loss layer'
                ).format(monitor=monitor.name, network=monitor.network))  # fmt: skip
                continue
            value = evaluate_monitor_shard(trainer.session, monitor, self.world)
            if not np.isfinite(value):
                trainer.emit("warning", message=QT_TRANSLATE_NOOP(
                    "Training", 'Validation error is Nan: monitor "{monitor}" reported as 0'
                ).format(monitor=monitor.name))  # fmt: skip
                value = 0.0
            record.monitors[monitor.name] = value


def check_shards(session: Session, w: World) -> None:
    """Every training dataset holds at least one global batch (K x B rows)."""
    glob = session.plan.batch_size * w.size
    for name, dataset in session.datasets.items():
        if name in session.iterators and dataset.size < glob:
            raise DatasetError(
                f'dataset "{name}" has {dataset.size} rows, fewer than one global batch of '
                f"{w.size} processes x batch size {session.plan.batch_size} = {glob}; use fewer "
                "processes or a smaller [Config] BatchSize"
            )

"""Each rank's slice of the global batch: disjoint, seeded, every sample once per epoch."""

from __future__ import annotations

import numpy as np
import pytest

from engine.data.iterator import BatchOrder
from engine.runtime.distributed.collectives import World
from engine.runtime.distributed.shards import ShardIterator, ShardOrder


@pytest.mark.parametrize("k", [2, 3, 4])
def test_shards_are_disjoint_and_cover_each_epoch_once(k):
    size, batch = 120, 5
    per_epoch = size // (batch * k)
    orders = [ShardOrder(size, batch, True, 11, rank, k) for rank in range(k)]
    for epoch in range(3):
        seen = np.concatenate([o.rows(epoch * per_epoch + j) for j in range(per_epoch)
                               for o in orders])  # fmt: skip
        assert sorted(seen.tolist()) == list(range(size))  # each row once, all rows
    # seeded: another seed gives another order; the same seed the same one
    again = ShardOrder(size, batch, True, 11, 1, k).rows(4)
    assert np.array_equal(again, orders[1].rows(4))
    assert not np.array_equal(ShardOrder(size, batch, True, 12, 1, k).rows(4), again)


def test_the_slices_of_the_ranks_make_the_single_process_global_batch():
    k, batch = 2, 8
    single = BatchOrder(100, k * batch, True, 3)
    for j in range(20):  # across epoch boundaries (100 is not a multiple of 16)
        joined = np.concatenate([ShardOrder(100, batch, True, 3, r, k).rows(j) for r in range(k)])
        assert np.array_equal(joined, single.rows(j))


class _Rows:
    """A dataset stand-in: the iterator only needs its size and names here."""

    size = 64
    names = ("x",)

    def select(self, names):
        return ()


def test_resuming_with_another_k_keeps_the_sample_position():
    world = World(comm=None, rank=1, size=4, local_rank=1)
    saved = {"format": "neurocanvas-data-iterator", "version": 1, "size": 64, "batch_size": 8,
             "shuffle": True, "seed": 9, "batches": 6}  # fmt: skip  # 48 samples, K=1 x 8
    iterator = ShardIterator(_Rows(), 4, world, shuffle=True, seed=9, prefetch=0)
    iterator.load_state_dict(saved)
    assert iterator.batch_size == 16 and iterator.batches_done == 3  # 48 samples / (4 x 4)
    assert iterator.rows().tolist() == BatchOrder(64, 16, True, 9).rows(3)[4:8].tolist()

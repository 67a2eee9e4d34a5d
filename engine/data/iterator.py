"""Batches over a dataset as NNC's trainer draws them (nnabla DataIterator; docs/nnc-behaviour.md
§2, §6).

The iterator is an endless stream of samples cut into batches of ``batch_size``:

- Epoch ``e`` visits every row once, in file order, or, with ``shuffle``, in a permutation drawn
  for that epoch: a new permutation every epoch. When the stream reaches the end of an epoch it
  continues with the next epoch's order, so a batch may hold the last rows of one epoch and the
  first of the next, exactly like nnabla's ``DataIterator``. Nothing is dropped: the trainer
  counts ``iter_per_epoch = floor(N / batch_size)`` iterations as one epoch (docs/formats.md §2.5)
  while the stream carries on where it stopped.
- The permutation of epoch ``e`` is a pure function of ``(seed, e)``
  (``numpy.random.default_rng([seed, e])``), so the same seed gives the same order and the whole
  state is the number of batches handed out: :meth:`DataIterator.state_dict` is a small JSON-able
  dict and :meth:`DataIterator.load_state_dict` resumes exactly, even in a new process.
- A background thread prepares the next ``prefetch`` batches while the caller trains on the
  current one (file decoding in Pillow and NumPy releases the GIL). Errors raised while loading
  come out of :meth:`DataIterator.next` in the caller's thread. :meth:`DataIterator.close` (or the
  ``with`` block, or garbage collection) stops the thread.
"""

from __future__ import annotations

import queue
import threading
import weakref
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import numpy as np

from engine.core.messages import QT_TRANSLATE_NOOP
from engine.data.csv_dataset import Dataset
from engine.data.errors import DatasetError

__all__ = ["BatchOrder", "DataIterator", "batches_once"]

STATE_FORMAT = "neurocanvas-data-iterator"
STATE_VERSION = 1
_POLL_S = 0.05  # how often a blocked prefetch thread checks whether it should stop


class BatchOrder:
    """Which rows batch ``k`` of the stream holds (a pure function of its settings)."""

    def __init__(self, size: int, batch_size: int, shuffle: bool, seed: int) -> None:
        if batch_size < 1:
            raise ValueError(f"batch_size must be positive. Received: batch_size={batch_size}")
        if seed < 0:
            raise ValueError(f"seed must be 0 or positive. Received: seed={seed}")
        self.size, self.batch_size, self.shuffle, self.seed = size, batch_size, shuffle, seed
        self._perms: dict[int, np.ndarray] = {}
        self._lock = threading.Lock()

    def permutation(self, epoch: int) -> np.ndarray:
        """The row order of ``epoch`` (0-based)."""
        if not self.shuffle:
            return np.arange(self.size, dtype=np.int64)
        with self._lock:
            perm = self._perms.get(epoch)
            if perm is None:
                perm = np.random.default_rng([self.seed, epoch]).permutation(self.size)
                if len(self._perms) >= 2:  # the stream only ever straddles two epochs
                    self._perms.pop(min(self._perms))
                self._perms[epoch] = perm
            return perm

    def rows(self, batch: int) -> np.ndarray:
        """The dataset rows of batch number ``batch`` (0-based) of the stream."""
        if self.size == 0:
            raise DatasetError(
                QT_TRANSLATE_NOOP("Problems", "the dataset has no rows to draw a batch from")
            )
        stream = np.arange(batch * self.batch_size, (batch + 1) * self.batch_size, dtype=np.int64)
        epochs, offsets = np.divmod(stream, self.size)
        if not self.shuffle:
            return offsets
        out = np.empty(self.batch_size, dtype=np.int64)
        for epoch in np.unique(epochs):
            mask = epochs == epoch
            out[mask] = self.permutation(int(epoch))[offsets[mask]]
        return out


class DataIterator:
    """Endless batches ``{name: float32 (batch_size, *shape)}`` over a :class:`Dataset`.

    Args:
        dataset: the dataset (Image Normalization is the dataset's ``normalize`` setting).
        batch_size: samples per batch.
        shuffle: a new permutation every epoch (NNC's dataset "Shuffle").
        seed: chooses the permutations; same seed, same order.
        variables: names of the variables to return (all when None), e.g. ``("x", "y")``.
        prefetch: batches prepared ahead in a background thread (0: load in ``next``).
    """

    def __init__(
        self,
        dataset: Dataset,
        batch_size: int,
        *,
        shuffle: bool = False,
        seed: int = 0,
        variables: Iterable[str] | None = None,
        prefetch: int = 2,
    ) -> None:
        self.dataset = dataset
        self.names = tuple(v.name for v in dataset.select(variables))
        self._order = BatchOrder(dataset.size, batch_size, shuffle, seed)
        self._prefetch_depth = max(0, int(prefetch))
        self._batches = 0
        self._prefetcher: _Prefetcher | None = None
        self._finalizer: Any = None

    # -- the stream ---------------------------------------------------------------------------

    @property
    def batch_size(self) -> int:
        return self._order.batch_size

    @property
    def size(self) -> int:
        """Rows in the dataset."""
        return self._order.size

    @property
    def shuffle(self) -> bool:
        return self._order.shuffle

    @property
    def seed(self) -> int:
        return self._order.seed

    @property
    def iter_per_epoch(self) -> int:
        """NNC's iterations per epoch: ``floor(rows / batch_size)``."""
        return self.size // self.batch_size

    @property
    def batches_done(self) -> int:
        """Batches handed out so far."""
        return self._batches

    @property
    def position(self) -> int:
        """Samples handed out so far (the stream position)."""
        return self._batches * self.batch_size

    @property
    def epoch(self) -> int:
        """The 0-based epoch of the next sample (the stream's epoch, not the trainer's)."""
        return self.position // self.size if self.size else 0

    def rows(self, batch: int | None = None) -> np.ndarray:
        """The dataset rows of batch ``batch`` (default: the next one)."""
        return self._order.rows(self._batches if batch is None else batch)

    def next(self) -> dict[str, np.ndarray]:
        """The next batch: ``{name: float32 array (batch_size, *shape)}``."""
        if self._prefetch_depth == 0:
            batch = _make_batch(self.dataset, self._order, self.names, self._batches)
        else:
            if self._prefetcher is None:
                self._start_prefetch()
            assert self._prefetcher is not None
            try:
                batch = self._prefetcher.get()
            except BaseException:
                self._stop_prefetch()  # the next call retries this batch
                raise
        self._batches += 1
        return batch

    def __next__(self) -> dict[str, np.ndarray]:
        return self.next()

    def __iter__(self) -> DataIterator:
        return self

    # -- state ----------------------------------------------------------------------------------

    def state_dict(self) -> dict[str, Any]:
        """Everything needed to resume the stream exactly (JSON-able)."""
        return {
            "format": STATE_FORMAT,
            "version": STATE_VERSION,
            "size": self.size,
            "batch_size": self.batch_size,
            "shuffle": self.shuffle,
            "seed": self.seed,
            "batches": self._batches,
        }

    def load_state_dict(self, state: dict[str, Any]) -> None:
        """Continue from ``state`` (from :meth:`state_dict`); the next batch is the one it left."""
        if not isinstance(state, dict) or state.get("format") != STATE_FORMAT:
            raise DatasetError(
                QT_TRANSLATE_NOOP("Problems", "not a data iterator state (missing format marker)")
            )
        if state.get("version") != STATE_VERSION:
            raise DatasetError(
                QT_TRANSLATE_NOOP(
                    "Problems", "unsupported data iterator state version {version}"
                ).format(version=repr(state.get("version")))
            )
        for key, mine in (("size", self.size), ("batch_size", self.batch_size),
                          ("shuffle", self.shuffle)):  # fmt: skip
            if state.get(key) != mine:
                raise DatasetError(
                    QT_TRANSLATE_NOOP(
                        "Problems",
                        "the saved data iterator has {key}={get} but this one has {key2}={mine}; the dataset or the settings changed since it was saved",  # noqa: E501 - one string for the catalogue
                    ).format(key=key, get=repr(state.get(key)), key2=key, mine=repr(mine))
                )
        batches, seed = state.get("batches"), state.get("seed")
        if not isinstance(batches, int) or batches < 0 or not isinstance(seed, int) or seed < 0:
            raise DatasetError(
                QT_TRANSLATE_NOOP(
                    "Problems", "the saved data iterator state has an invalid seed or position"
                )
            )
        self._stop_prefetch()
        self._order = BatchOrder(self.size, self.batch_size, self.shuffle, seed)
        self._batches = batches

    # -- lifetime ----------------------------------------------------------------------------

    def close(self) -> None:
        """Stop the prefetch thread (the iterator can be used again; it restarts the thread)."""
        self._stop_prefetch()

    def __enter__(self) -> DataIterator:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _start_prefetch(self) -> None:
        # The thread must not hold the iterator itself, so that dropping the iterator stops it.
        produce = _producer(self.dataset, self._order, self.names)
        self._prefetcher = _Prefetcher(produce, self._batches, self._prefetch_depth)
        self._finalizer = weakref.finalize(self, self._prefetcher.close)

    def _stop_prefetch(self) -> None:
        if self._finalizer is not None:
            self._finalizer()  # runs _Prefetcher.close once
        self._prefetcher = self._finalizer = None


def batches_once(
    dataset: Dataset,
    batch_size: int,
    variables: Iterable[str] | None = None,
    *,
    prefetch: int = 2,
) -> Iterator[tuple[int, dict[str, np.ndarray]]]:
    """Every row once in file order, ``(first row, batch)``, the last batch possibly shorter.

    For evaluation (output_result.csv covers every row). Like :meth:`Dataset.batches`, with the
    next batches loaded in a background thread; leaving the loop early stops the thread. A
    dataset whose batches are read from memory (numbers, the opened array cache: a batch of 64
    digits in ~40 us) is read in the caller's thread: handing batches over costs more.
    """
    if batch_size < 1:
        raise ValueError(f"batch_size must be positive. Received: batch_size={batch_size}")
    names = tuple(v.name for v in dataset.select(variables))
    count = -(-dataset.size // batch_size)
    if prefetch < 1 or dataset.in_memory(names):  # nothing to decode: no thread to feed
        yield from dataset.batches(batch_size, names)
        return

    def produce(k: int) -> dict[str, np.ndarray] | None:
        if k >= count:
            return None  # past the end: the consumer stops before asking for it
        stop = min(dataset.size, (k + 1) * batch_size)
        return dataset.get_batch(range(k * batch_size, stop), names)

    prefetcher = _Prefetcher(produce, 0, prefetch)
    try:
        for k in range(count):
            yield k * batch_size, prefetcher.get()
    finally:
        prefetcher.close()


def _make_batch(
    dataset: Dataset, order: BatchOrder, names: tuple[str, ...], batch: int
) -> dict[str, np.ndarray]:
    return dataset.get_batch(order.rows(batch), names)


def _producer(
    dataset: Dataset, order: BatchOrder, names: tuple[str, ...]
) -> Callable[[int], dict[str, np.ndarray]]:
    return lambda batch: _make_batch(dataset, order, names, batch)


class _Prefetcher:
    """A daemon thread that computes batches ``start, start+1, ...`` into a bounded queue."""

    def __init__(self, produce: Callable[[int], Any], start: int, depth: int) -> None:
        self._queue: queue.Queue[tuple[int, Any]] = queue.Queue(maxsize=depth)
        self._stop = threading.Event()
        self.thread = threading.Thread(
            target=self._run, args=(produce, start), name="nc-data-prefetch", daemon=True
        )
        self.thread.start()

    def _run(self, produce: Callable[[int], Any], batch: int) -> None:
        while not self._stop.is_set():
            try:
                item: Any = produce(batch)
            except BaseException as exc:  # handed to the consumer, raised in its thread
                item = exc
            while not self._stop.is_set():
                try:
                    self._queue.put((batch, item), timeout=_POLL_S)
                    break
                except queue.Full:
                    continue
            if isinstance(item, BaseException):
                return
            batch += 1

    def get(self) -> Any:
        while True:
            try:
                _, item = self._queue.get(timeout=_POLL_S)
                break
            except queue.Empty:
                if not self.thread.is_alive():
                    raise RuntimeError("the data prefetch thread stopped unexpectedly") from None
        if isinstance(item, BaseException):
            raise item
        return item

    def close(self) -> None:
        self._stop.set()
        while True:  # unblock a pending put
            try:
                self._queue.get_nowait()
            except queue.Empty:
                break
        self.thread.join(timeout=10)

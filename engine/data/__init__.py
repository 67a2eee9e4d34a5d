"""Datasets: NNC dataset CSVs, file loaders, array cache, batching iterator, built-in datasets.

How a trainer gets batches::

    from engine.data import open_dataset, DataIterator

    ds = open_dataset("train.csv", normalize=True, cache=True)  # ImageNormalization, EnableCache
    with DataIterator(ds, batch_size=64, shuffle=True, seed=0, variables=("x", "y")) as it:
        for i in range(max_epoch * it.iter_per_epoch):
            batch = it.next()          # {"x": float32 (64, 1, 28, 28), "y": float32 (64, 1)}
        state = it.state_dict()        # JSON-able; DataIterator(...).load_state_dict(state) resumes

Evaluation walks every row once, in file order, the last batch possibly shorter, with the same
background prefetch: ``for start, batch in batches_once(ds, batch_size, ("x", "y")): ...``.
"""

from engine.data.cache import cache_root
from engine.data.csv_dataset import Dataset, Variable, open_dataset
from engine.data.errors import DatasetError, DownloadError
from engine.data.iterator import DataIterator, batches_once

__all__ = [
    "DataIterator", "Dataset", "DatasetError", "DownloadError", "Variable", "cache_root",
    "batches_once", "open_dataset",
]  # fmt: skip

"""Writing NNC dataset CSVs and image files (built-in datasets, datasets made from folders).

CSVs are UTF-8 without BOM, LF line ends, standard quoting, written atomically (temporary file,
then rename). Image cells are paths relative to the CSV, written as ``./training/5/00000.png``
like NNC's sample datasets.
"""

from __future__ import annotations

import csv
from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
from PIL import Image

from engine.core.atomic import atomic_output
from engine.data.progress import Progress

__all__ = ["save_image", "write_csv", "write_image_set"]


def write_csv(path: Path, header: Sequence[str], rows: Iterable[Sequence[object]]) -> Path:
    """Write a dataset CSV atomically; numbers are written with ``str``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with atomic_output(path, "w", encoding="utf-8", newline="") as f:
        writer = csv.writer(f, lineterminator="\n")
        writer.writerow(header)
        writer.writerows(rows)
    return path


def save_image(path: Path, image: np.ndarray) -> None:
    """Save a (C, H, W) or (H, W) uint8 array as an image (the format follows the suffix)."""
    arr = np.asarray(image)
    if arr.ndim == 3:
        arr = arr[0] if arr.shape[0] == 1 else arr.transpose(1, 2, 0)
    path.parent.mkdir(parents=True, exist_ok=True)
    Image.fromarray(np.ascontiguousarray(arr)).save(path)


def write_image_set(
    folder: Path,
    split: str,
    images: np.ndarray,
    labels: np.ndarray,
    progress: Progress | None = None,
    workers: int = 4,
) -> list[tuple[str, int]]:
    """Save ``images`` (N, C, H, W) uint8 as ``folder/split/<label>/<i:05d>.png``.

    Returns the CSV rows ``("./split/<label>/<i:05d>.png", label)`` in input order.
    """
    rows = [(f"./{split}/{int(label)}/{i:05d}.png", int(label)) for i, label in enumerate(labels)]
    for label in np.unique(labels):
        (folder / split / str(int(label))).mkdir(parents=True, exist_ok=True)

    def save(i: int) -> None:
        save_image(folder / rows[i][0][2:], images[i])

    total = len(rows)
    step = 1000
    with ThreadPoolExecutor(max(1, workers), thread_name_prefix="nc-data-write") as pool:
        for start in range(0, total, step):
            list(pool.map(save, range(start, min(total, start + step))))
            if progress is not None:
                progress(min(total, start + step), total)
    return rows

"""The user's cache folder and the on-disk array cache of decoded dataset files.

NNC (nnabla) converts a dataset CSV into a cache folder before training (docs/formats.md §2.5).
NeuroCanvas does the same with plain ``.npy`` files: one array (rows, *shape) per file-backed
variable, in the file's own dtype (8-bit images stay 8-bit), opened memory-mapped so a dataset
larger than memory is paged in by the operating system as batches ask for rows.

The cache lives in ``<cache root>/arrays/<key>/``, where the key is a hash of the CSV's bytes and
the size and modification time of every file it names: editing the CSV or any data file gives a
new key, so a stale cache is never used. A cache is built in a temporary folder and renamed into
place when complete; a failed build leaves nothing behind.

The cache root is ``NEUROCANVAS_CACHE`` when set, else the platform's user cache folder
(``~/.cache/neurocanvas`` on Linux, ``~/Library/Caches/neurocanvas`` on macOS,
``%LOCALAPPDATA%\\neurocanvas\\Cache`` on Windows). Built-in datasets are generated there too.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from engine.data.progress import Progress

__all__ = ["ENV_CACHE", "ArraySpec", "cache_root", "open_or_build"]

ENV_CACHE = "NEUROCANVAS_CACHE"
CACHE_VERSION = 1
CHUNK_ROWS = 256  # rows decoded per step of a build (bounds memory, paces progress reports)


def cache_root() -> Path:
    """The folder for caches and generated built-in datasets (created on demand by users)."""
    env = os.environ.get(ENV_CACHE)
    if env:
        return Path(env).expanduser()
    home = Path.home()
    if sys.platform == "win32":
        base = os.environ.get("LOCALAPPDATA")
        return (Path(base) if base else home / "AppData" / "Local") / "neurocanvas" / "Cache"
    if sys.platform == "darwin":
        return home / "Library" / "Caches" / "neurocanvas"
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg) if xdg else home / ".cache") / "neurocanvas"


@dataclass(frozen=True)
class ArraySpec:
    """One cached variable: its name, per-sample shape and stored dtype."""

    name: str
    shape: tuple[int, ...]
    dtype: str


def open_or_build(
    key: str,
    specs: list[ArraySpec],
    rows: int,
    fill: Callable[[int, int], dict[str, np.ndarray]],
    *,
    root: Path | None = None,
    source: str = "",
    progress: Progress | None = None,
) -> dict[str, np.ndarray]:
    """Memory-mapped arrays (rows, *shape) per spec, built with ``fill(start, stop)`` if needed.

    ``fill`` returns the arrays of rows ``start:stop`` for every spec (checked by the caller);
    any exception it raises aborts the build and leaves no cache behind.
    """
    folder = (root or cache_root()) / "arrays" / key
    arrays = _open(folder, specs, rows)
    if arrays is not None:
        return arrays
    folder.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".tmp-{key[:16]}-", dir=folder.parent))
    try:
        _build(tmp, specs, rows, fill, source, progress)
        if folder.exists():  # stale or unreadable (we checked above): ours to replace
            shutil.rmtree(folder, ignore_errors=True)
        try:
            os.replace(tmp, folder)
        except OSError:  # another process finished the same cache first
            pass
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    arrays = _open(folder, specs, rows)
    if arrays is None:
        raise OSError(f"the dataset cache in {folder} could not be read back after building it")
    return arrays


def _open(folder: Path, specs: list[ArraySpec], rows: int) -> dict[str, np.ndarray] | None:
    try:
        meta = json.loads((folder / "meta.json").read_text(encoding="utf-8"))
        if meta.get("version") != CACHE_VERSION or meta.get("rows") != rows:
            return None
        arrays = {}
        for i, spec in enumerate(specs):
            arr = np.load(folder / f"v{i}.npy", mmap_mode="r", allow_pickle=False)
            if arr.shape != (rows, *spec.shape) or arr.dtype != np.dtype(spec.dtype):
                return None
            arrays[spec.name] = arr
        return arrays
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _build(
    tmp: Path,
    specs: list[ArraySpec],
    rows: int,
    fill: Callable[[int, int], dict[str, np.ndarray]],
    source: str,
    progress: Progress | None,
) -> None:
    outputs = [
        np.lib.format.open_memmap(
            tmp / f"v{i}.npy", mode="w+", dtype=s.dtype, shape=(rows, *s.shape)
        )
        for i, s in enumerate(specs)
    ]
    for start in range(0, rows, CHUNK_ROWS):
        stop = min(rows, start + CHUNK_ROWS)
        chunk = fill(start, stop)
        for spec, out in zip(specs, outputs, strict=True):
            out[start:stop] = chunk[spec.name]
        if progress is not None:
            progress(stop, rows)
    for out in outputs:
        out.flush()
    del outputs  # close the maps before the folder is renamed (Windows needs this)
    meta = {
        "version": CACHE_VERSION,
        "source": source,
        "rows": rows,
        "variables": [{"name": s.name, "shape": list(s.shape), "dtype": s.dtype} for s in specs],
    }
    (tmp / "meta.json").write_text(json.dumps(meta, indent=2), encoding="utf-8")

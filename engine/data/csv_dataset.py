"""An NNC dataset CSV as a random-access dataset of float32 samples (docs/formats.md §2).

:func:`open_dataset` reads and checks the whole CSV before anything is trained: column counts,
numbers where numbers must be, the extension and existence of every file a cell names. It then
loads the first row to learn each variable's shape. Every later sample is checked against that
shape; a file that does not fit raises :class:`DatasetError` naming the CSV, line and column.

Cell rules (as nnabla's ``CsvDataSource``): a cell that parses as a float is a number; any other
cell is a file path, relative to the CSV's folder (backslashes read as ``/``). A column must hold
one kind throughout. Element columns ``y__0 ... y__n`` must hold numbers and form a vector (n+1,);
a number column gives shape (1,). A path with stray spaces around it is found when the spaced
name does not exist but the trimmed one does (NNC's documentation warns about such spaces).

With ``cache=True`` (NNC's "Enable Cache"), file-backed variables are decoded once into a
memory-mapped array cache (:mod:`engine.data.cache`); otherwise files are read for every batch
(lazily, :class:`~engine.data.iterator.DataIterator` prefetches in the background).
Image Normalization (``normalize=True``) multiplies 8-bit images by 1/255 and 16-bit images by
1/65535; numbers, CSV, ``.npy`` and ``.wav`` files are never scaled.
"""

from __future__ import annotations

import hashlib
import os
import threading
from collections.abc import Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from engine.core.messages import QT_TRANSLATE_NOOP
from engine.data import cache as _cache
from engine.data.errors import DatasetError
from engine.data.file_cells import resolve_cell, resolve_plain
from engine.data.loaders import (
    FileLoadError,
    file_kind,
    load_file,
    normalization_scale,
    supported_extensions,
)
from engine.data.progress import Progress
from engine.data.table import Column, Table, read_table

__all__ = ["Dataset", "Variable", "open_dataset"]

FILE_KINDS = ("image", "csv", "npy", "wav")

# The key of the empty array a batch of no variables holds, to carry its number of rows (no
# dataset variable has an empty name).
ROWS = ""


@dataclass(frozen=True)
class Variable:
    """One dataset variable as NNC's DATASET tab shows it.

    ``kind`` is ``"number"`` (a number column or ``__i`` element columns) or the file kind
    ``"image"``, ``"csv"``, ``"npy"``, ``"wav"``. ``shape`` excludes the batch axis (None when
    the dataset has no rows to learn it from); ``dtype`` is the stored dtype (``uint8`` or
    ``uint16`` for most images, else ``float32``); batches are always float32.
    """

    name: str
    kind: str
    shape: tuple[int, ...] | None
    dtype: str
    columns: tuple[Column, ...]

    @property
    def label(self) -> str | None:
        return self.columns[0].label

    @property
    def header(self) -> str:
        """The header text as NNC shows it: ``x:image`` or ``y__0:cat .. y__2``."""
        if len(self.columns) == 1:
            return self.columns[0].header
        return f"{self.columns[0].header} .. {self.columns[-1].header}"

    @property
    def is_image(self) -> bool:
        return self.kind == "image"

    @property
    def is_file(self) -> bool:
        return self.kind in FILE_KINDS


def open_dataset(
    path: str | Path,
    *,
    normalize: bool = True,
    cache: bool = True,
    cache_dir: str | Path | None = None,
    workers: int | None = None,
) -> Dataset:
    """Read and check the dataset CSV at ``path`` (see the module docstring)."""
    return Dataset(read_table(path), normalize, cache, cache_dir, workers)


class Dataset:
    """Random access to the samples of a checked dataset CSV; thread-safe for reading."""

    def __init__(
        self,
        table: Table,
        normalize: bool = True,
        cache: bool = True,
        cache_dir: str | Path | None = None,
        workers: int | None = None,
    ) -> None:
        self.path = table.path
        self.normalize = normalize
        self.use_cache = cache
        self._table = table
        self._cache_dir = Path(cache_dir) if cache_dir is not None else None
        self._workers = workers or min(4, os.cpu_count() or 1)
        self._pool: ThreadPoolExecutor | None = None
        self._lock = threading.Lock()  # guards the cache build
        self._pool_lock = threading.Lock()
        self._numbers: dict[str, np.ndarray] = {}
        self._paths: dict[str, list[str]] = {}
        self._stats: dict[str, np.ndarray] = {}
        self._cached: dict[str, np.ndarray] | None = None
        kinds = {name: self._classify(columns) for name, columns in table.variables}
        self.variables = tuple(self._describe(name, columns, kinds[name])
                               for name, columns in table.variables)  # fmt: skip

    # -- description -----------------------------------------------------------------------

    @property
    def header(self) -> tuple[str, ...]:
        """Every header cell as written, comment columns included (for evaluation output)."""
        return self._table.header

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(v.name for v in self.variables)

    @property
    def size(self) -> int:
        return len(self._table.rows)

    def __len__(self) -> int:
        return self.size

    def __repr__(self) -> str:
        return f"Dataset({str(self.path)!r}, rows={self.size}, variables={self.names})"

    def variable(self, name: str) -> Variable:
        for v in self.variables:
            if v.name == name:
                return v
        raise DatasetError(
            QT_TRANSLATE_NOOP(
                "Problems", '"{path}": no variable {name}; the dataset has {names}'
            ).format(path=self.path, name=repr(name), names=", ".join(self.names))
        )

    def select(self, names: Iterable[str] | None) -> tuple[Variable, ...]:
        """The variables called ``names`` in that order (all when None); unknown names raise."""
        return self.variables if names is None else tuple(self.variable(n) for n in names)

    def row_cells(self, index: int) -> list[str]:
        """The CSV cells of data row ``index`` as written (for output_result.csv)."""
        return list(self._table.rows[index])

    def line(self, index: int) -> int:
        """The 1-based line of the CSV where data row ``index`` starts."""
        return self._table.lines[index]

    def file_path(self, name: str, index: int) -> Path:
        """The resolved file that variable ``name`` of row ``index`` names."""
        return Path(self._paths[name][index])

    def check_class_labels(self, name: str, classes: int, user: str) -> None:
        """Every value of number variable ``name`` must be a whole number below ``classes``
        (negative ones are labels the losses ignore, as nnabla's). ``user`` names the layer."""
        values = self._numbers.get(name)
        if values is None or not values.size:
            return  # file-backed labels are checked by the layer as their batch arrives
        with np.errstate(invalid="ignore"):
            bad = ~np.isfinite(values) | (values != np.floor(values)) | (values >= classes)
        if not bad.any():
            return
        row, j = (int(i) for i in np.argwhere(bad)[0])
        column = self.variable(name).columns[j]
        cell = self._table.rows[row][column.index]
        raise DatasetError(
            QT_TRANSLATE_NOOP(
                "Problems",
                "{where}: {user} reads a class index from 0 to {value} here. Received: {cell}",
            ).format(
                where=self._table.where(row, column), user=user, value=classes - 1, cell=repr(cell)
            )
        )

    # -- loading ---------------------------------------------------------------------------

    def load_sample(self, index: int, names: Iterable[str] | None = None) -> dict[str, np.ndarray]:
        """One sample as float32 arrays of each variable's shape (normalized as configured)."""
        batch = self.get_batch([index], names)
        return {name: arr[0] for name, arr in batch.items()}

    def get_batch(
        self, indices: Sequence[int] | np.ndarray, names: Iterable[str] | None = None
    ) -> dict[str, np.ndarray]:
        """Rows ``indices`` as ``{name: float32 (len(indices), *shape)}``."""
        idx = np.asarray(indices, dtype=np.int64)
        if idx.size and (idx.min() < 0 or idx.max() >= self.size):
            raise IndexError(f"row index out of range for {self.size} rows")
        variables = self.select(names)
        if not variables:  # a network fed by generators only still learns the batch's size
            return {ROWS: np.empty((idx.size, 0), dtype=np.float32)}
        if self.use_cache and self._cached is None and any(v.is_file for v in variables):
            self.prepare()
        out = {}
        for v in variables:
            if not v.is_file:
                out[v.name] = self._numbers[v.name][idx]
            elif self._cached is not None:
                out[v.name] = self._to_float(v, _gather(self._cached[v.name], idx))
            else:
                out[v.name] = self._to_float(v, self._load_rows(v, idx))
        return out

    def batches(
        self, batch_size: int, names: Iterable[str] | None = None
    ) -> Iterator[tuple[int, dict[str, np.ndarray]]]:
        """Every row once in file order: ``(first row, batch)``; the last batch may be shorter."""
        if batch_size < 1:
            raise ValueError(f"batch_size must be positive. Received: batch_size={batch_size}")
        for start in range(0, self.size, batch_size):
            yield start, self.get_batch(range(start, min(self.size, start + batch_size)), names)

    def prepare(self, progress: Progress | None = None) -> None:
        """Build or open the array cache now (with ``cache=True``); a no-op otherwise.

        Building decodes every file once, so a bad file anywhere is reported before training.
        """
        if not self.use_cache:
            return
        with self._lock:
            if self._cached is not None:
                return
            files = [v for v in self.variables if v.is_file and v.shape is not None]
            if not files or self.size == 0:
                self._cached = {}
                return
            specs = [_cache.ArraySpec(v.name, v.shape or (), v.dtype) for v in files]
            self._cached = _cache.open_or_build(
                self._fingerprint(files), specs, self.size,
                lambda a, b: {v.name: self._load_rows(v, np.arange(a, b)) for v in files},
                root=self._cache_dir, source=str(self.path), progress=progress,
            )  # fmt: skip

    def in_memory(self, names: Iterable[str] | None = None) -> bool:
        """Whether batches of variables ``names`` (all when None) are read from memory: number
        variables, and file variables once the array cache is open (with ``cache=True``
        :meth:`prepare` opens it, building it first if needed). Otherwise files are decoded."""
        files = [v for v in self.select(names) if v.is_file]
        if not files:
            return True
        if self.use_cache:
            self.prepare()
        cached = self._cached
        return cached is not None and all(v.name in cached for v in files)

    def check(self, progress: Progress | None = None) -> None:
        """Load every row once (through the cache when enabled) so any bad file is reported."""
        if self.use_cache:
            self.prepare(progress)
            return
        files = [v for v in self.variables if v.is_file]
        for start in range(0, self.size, _cache.CHUNK_ROWS):
            stop = min(self.size, start + _cache.CHUNK_ROWS)
            for v in files:
                self._load_rows(v, np.arange(start, stop))
            if progress is not None:
                progress(stop, self.size)

    def close(self) -> None:
        """Release the loader threads and the cache maps (the dataset stays usable)."""
        with self._pool_lock:
            pool, self._pool = self._pool, None
        with self._lock:
            self._cached = None
        if pool is not None:
            pool.shutdown(wait=True)

    def __enter__(self) -> Dataset:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- internals: classification ----------------------------------------------------------

    def _classify(self, columns: tuple[Column, ...]) -> str:
        """``"number"`` or a file kind; parses numbers and resolves paths as a side effect."""
        table = self._table
        if columns[0].element is not None:
            self._parse_numbers(columns[0].variable, columns)
            return "number"
        if not table.rows:  # a header-only CSV: a plain column may be numbers or files
            self._numbers[columns[0].variable] = np.empty((0, 1), dtype=np.float32)
            return "unknown"
        column = columns[0]
        first = table.rows[0][column.index]
        if _is_number(first):
            self._parse_numbers(column.variable, columns)
            return "number"
        return self._resolve_files(column)

    def _parse_numbers(self, name: str, columns: tuple[Column, ...]) -> None:
        table = self._table
        values = np.empty((len(table.rows), len(columns)), dtype=np.float32)
        for j, column in enumerate(columns):
            for r, row in enumerate(table.rows):
                try:
                    values[r, j] = float(row[column.index])
                except ValueError:
                    raise DatasetError(self._not_a_number(r, column, columns)) from None
        self._numbers[name] = values

    def _not_a_number(self, row: int, column: Column, columns: tuple[Column, ...]) -> str:
        cell = self._table.rows[row][column.index]
        where = self._table.where(row, column)
        if len(columns) > 1 or column.element is not None:
            return f"{where}: element columns hold numbers. Received: {cell!r}"
        return (f"{where}: expected a number like the column's first row "
                f"(line {self._table.lines[0]}); a column holds numbers or file paths, not both. "
                f"Received: {cell!r}")  # fmt: skip

    def _resolve_files(self, column: Column) -> str:
        plain = resolve_plain(self._table, column, str(self.path.parent))
        if plain is not None:
            kind, self._paths[column.variable], self._stats[column.variable] = plain
            return kind
        return self._resolve_checked(column)

    def _resolve_checked(self, column: Column) -> str:
        """:func:`~engine.data.file_cells.resolve_plain`'s work cell by cell, each check in
        turn: the message names the first cell that fails one."""
        table, folder = self._table, str(self.path.parent)
        kinds: dict[str, int] = {}
        paths: list[str] = []
        stats = np.empty((len(table.rows), 2), dtype=np.int64)
        for r, row in enumerate(table.rows):
            cell = row[column.index]
            if _is_number(cell):
                raise DatasetError(
                    QT_TRANSLATE_NOOP(
                        "Problems",
                        "{where}: expected a file path like the column's first row (line {lines}); a column holds numbers or file paths, not both. Received: {cell}",  # noqa: E501 - one string for the catalogue
                    ).format(where=table.where(r, column), lines=table.lines[0], cell=repr(cell))
                )
            kind = file_kind(cell.strip())
            if kind is None:
                raise DatasetError(
                    QT_TRANSLATE_NOOP(
                        "Problems",
                        "{where}: {cell} is neither a number nor a file of a supported type ({value})",  # noqa: E501 - one string for the catalogue
                    ).format(
                        where=table.where(r, column), cell=repr(cell), value=supported_extensions()
                    )
                )
            kinds.setdefault(kind, r)
            if len(kinds) > 1:
                (k0, r0), (k1, r1) = kinds.items()
                raise DatasetError(
                    QT_TRANSLATE_NOOP(
                        "Problems",
                        "{where}: a {k1} file in a column of {k0} files (line {lines}); every sample of a variable must be the same kind of file",  # noqa: E501 - one string for the catalogue
                    ).format(where=table.where(r, column), k1=k1, k0=k0, lines=table.lines[r0])
                )
            resolved, stat = resolve_cell(folder, cell)
            if stat is None:
                raise DatasetError(
                    QT_TRANSLATE_NOOP(
                        "Problems", "{where}: file not found: {cell} (looked for {resolved})"
                    ).format(where=table.where(r, column), cell=cell, resolved=resolved)
                )
            paths.append(resolved)
            stats[r] = stat
        self._paths[column.variable] = paths
        self._stats[column.variable] = stats
        return next(iter(kinds))

    def _describe(self, name: str, columns: tuple[Column, ...], kind: str) -> Variable:
        if kind == "number":
            return Variable(name, "number", (len(columns),), "float32", columns)
        if kind == "unknown":
            return Variable(name, "unknown", None, "float32", columns)
        first = self._load_raw(name, kind, columns[0], 0)
        dtype = str(first.dtype) if kind == "image" else "float32"
        return Variable(name, kind, tuple(first.shape), dtype, columns)

    # -- internals: loading -----------------------------------------------------------------

    def _load_raw(self, name: str, kind: str, column: Column, row: int) -> np.ndarray:
        try:
            return load_file(Path(self._paths[name][row]), kind)
        except FileLoadError as exc:
            raise DatasetError(
                QT_TRANSLATE_NOOP("Problems", "{where}: {exc}").format(
                    where=self._table.where(row, column), exc=exc
                )
            ) from None

    def _load_one(self, v: Variable, row: int) -> np.ndarray:
        arr = self._load_raw(v.name, v.kind, v.columns[0], row)
        if arr.shape != v.shape:
            raise DatasetError(
                QT_TRANSLATE_NOOP(
                    "Problems",
                    "{where}: shape {shape} differs from {first} of line {lines}; every sample of a variable must have the same shape",  # noqa: E501 - one string for the catalogue
                ).format(
                    where=self._table.where(row, v.columns[0]),
                    shape=_shape(arr.shape),
                    first=_shape(v.shape),
                    lines=self._table.lines[0],
                )
            )
        if v.is_image and arr.dtype != np.dtype(v.dtype):
            raise DatasetError(
                QT_TRANSLATE_NOOP(
                    "Problems",
                    "{where}: a {dtype} image among {dtype2} images (line {lines}); convert the images to one bit depth",  # noqa: E501 - one string for the catalogue
                ).format(
                    where=self._table.where(row, v.columns[0]),
                    dtype=arr.dtype,
                    dtype2=v.dtype,
                    lines=self._table.lines[0],
                )
            )
        return arr

    def _load_rows(self, v: Variable, rows: np.ndarray) -> np.ndarray:
        """Raw arrays of ``rows`` stacked in the variable's stored dtype."""
        out = np.empty((len(rows), *(v.shape or ())), dtype=v.dtype)
        if len(rows) > 1 and self._workers > 1:
            results = self._executor().map(lambda r: self._load_one(v, int(r)), rows)
        else:
            results = (self._load_one(v, int(r)) for r in rows)
        for i, arr in enumerate(results):
            out[i] = arr
        return out

    def _executor(self) -> ThreadPoolExecutor:
        with self._pool_lock:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(self._workers, thread_name_prefix="nc-data-load")
            return self._pool

    def _to_float(self, v: Variable, raw: np.ndarray) -> np.ndarray:
        scale = normalization_scale(raw.dtype) if (v.is_image and self.normalize) else None
        out = raw.astype(np.float32)
        if scale is not None:
            out *= np.float32(scale)
        return out

    def _fingerprint(self, files: list[Variable]) -> str:
        digest = hashlib.sha256(f"neurocanvas-array-cache-{_cache.CACHE_VERSION}\n".encode())
        digest.update(self.path.read_bytes())
        for v in files:
            digest.update(f"\n{v.name}:{v.kind}:{v.dtype}:{v.shape}\n".encode())
            digest.update("\n".join(self._paths[v.name]).encode("utf-8", "surrogatepass"))
            digest.update(self._stats[v.name].tobytes())
        return digest.hexdigest()


def _gather(arr: np.ndarray, idx: np.ndarray) -> np.ndarray:
    """``arr[idx]``, reading a memory map in ascending row order (sequential disk reads)."""
    order = np.argsort(idx, kind="stable")
    out = np.empty((len(idx), *arr.shape[1:]), dtype=arr.dtype)
    out[order] = arr[idx[order]]
    return out


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _shape(shape: tuple[int, ...] | None) -> str:
    return "(" + ", ".join(str(s) for s in shape or ()) + ")"

"""The files a dataset CSV's cells name (docs/formats.md §2): each cell joined to the CSV's folder,
checked for a supported extension, one kind per column, and given one ``stat`` (its size and
time go into the array cache's key, so a changed file is noticed).

:func:`resolve_plain` takes a column whose cells are all plain (the usual ``./train/0/1.png``)
in one pass and leaves any other to :class:`~engine.data.csv_dataset.Dataset`'s checked loop,
which names the first cell that fails; :func:`resolve_cell` is that loop's step.
"""

from __future__ import annotations

import os
from pathlib import Path
from stat import S_ISREG

import numpy as np

from engine.data.loaders import KIND_BY_EXTENSION
from engine.data.table import Column, Table

__all__ = ["join", "resolve_cell", "resolve_plain"]

_WINDOWS_ABS = ("\\\\", "//")


def resolve_plain(
    table: Table, column: Column, folder: str
) -> tuple[str, list[str], np.ndarray] | None:
    """``(kind, paths, (size, mtime_ns) per row)`` of a file column whose every cell is a plain
    path (no surrounding spaces, no backslash) to an existing file of the first cell's kind;
    None as soon as a cell is not, for the checked loop to find and name the problem. A cell
    with a supported extension never reads as a number (``float("1.png")`` fails)."""
    cells = [row[column.index] for row in table.rows]
    quick = resolve_alike(cells, folder)
    if quick is not None:
        return quick
    return resolve_each(cells, folder)


def resolve_alike(cells: list[str], folder: str) -> tuple[str, list[str], np.ndarray] | None:
    """:func:`resolve_each` of a column whose cells all end with the first cell's extension
    after a character that is neither "/" nor "." (the extension is then each cell's
    ``os.path.splitext`` one) and join to the folder as plain text, each test made over the
    whole column; None for any other column (for :func:`resolve_each`)."""
    first = cells[0] if cells else ""
    dot = first.rfind(".")
    extension = first[dot:] if dot > 0 else ""
    kind = KIND_BY_EXTENSION.get(extension.lower()) if "/" not in extension else None
    if kind is None:
        return None
    n = len(extension)
    if not all(c.endswith(extension) and len(c) > n and c[-n - 1] not in "/." for c in cells):
        return None
    if any(cell.strip() != cell for cell in cells):
        return None
    text = "\n".join(cells)
    prefix = folder + "/" if os.sep == "/" and folder not in ("", ".") and folder[-1] != "/" else ""
    if (not prefix or "\\" in text or "//" in text or "/." in text
            or text.count("\n") != len(cells) - 1):  # fmt: skip
        return None
    rests = [cell[2:] if cell.startswith("./") else cell for cell in cells]
    if any(rest[0] in "/." for rest in rests):
        return None
    paths = [prefix + rest for rest in rests]
    try:
        found = [os.stat(path) for path in paths]
    except OSError:
        return None
    if not all(S_ISREG(st.st_mode) for st in found):
        return None
    stats = [n for st in found for n in (st.st_size, st.st_mtime_ns)]
    return kind, paths, np.array(stats, dtype=np.int64).reshape(len(paths), 2)


def resolve_each(cells: list[str], folder: str) -> tuple[str, list[str], np.ndarray] | None:
    """:func:`resolve_plain` cell by cell."""
    kind = None
    paths: list[str] = []
    stats: list[int] = []
    kinds = KIND_BY_EXTENSION
    # _join's plain case, decided per cell with a few string tests
    prefix = folder + "/" if os.sep == "/" and folder not in ("", ".") and folder[-1] != "/" else ""
    for cell in cells:
        if "\\" in cell or cell.strip() != cell:
            return None
        dot, slash = cell.rfind("."), cell.rfind("/")
        # os.path.splitext's extension: after the last "/", not the leading dots of a name
        named = dot > slash + 1 and cell[slash + 1 : dot].strip(".")
        this = kinds.get(cell[dot:].lower()) if named else None
        if this is None or (kind is not None and this != kind):
            return None
        kind = this
        rest = cell[2:] if cell.startswith("./") else cell
        if prefix and rest[0] not in "/." and "//" not in rest and "/." not in rest:
            path = prefix + rest  # (ends with the extension: neither "/" nor "/.")
        else:
            path = join(folder, cell)
        try:
            st = os.stat(path)
        except OSError:
            return None
        if not S_ISREG(st.st_mode):
            return None
        paths.append(path)
        stats += (st.st_size, st.st_mtime_ns)
    if kind is None:
        return None
    return kind, paths, np.array(stats, dtype=np.int64).reshape(len(paths), 2)


def resolve_cell(folder: str, cell: str) -> tuple[str, tuple[int, int] | None]:
    """The file a cell names and its (size, mtime_ns), or None when it does not exist."""
    candidates = [cell] if cell.strip() == cell else [cell, cell.strip()]
    first = None
    for text in candidates:
        text = text.replace("\\", "/")
        path = join(folder, text)
        first = first or path
        try:
            st = os.stat(path)  # one system call per file (Path.is_file would make a second)
        except OSError:
            continue
        if S_ISREG(st.st_mode):
            return path, (st.st_size, st.st_mtime_ns)
    return first or join(folder, cell), None


def join(folder: str, text: str) -> str:
    """``str(Path(folder) / text)`` (``Path(text)`` for an absolute ``text``), without building
    Path objects for the plain relative paths datasets hold (``./train/0/001.png``): opening a
    dataset joins one per row."""
    if os.path.isabs(text) or text.startswith(_WINDOWS_ABS):
        return str(Path(text))
    rest = text
    while rest.startswith("./"):
        rest = rest[2:]
    plain = (
        os.sep == "/" and rest and rest != "." and folder not in ("", ".") and folder[-1] != "/"
        and rest[0] != "/" and "//" not in rest and "/./" not in rest
        and not rest.endswith(("/", "/."))
    )  # fmt: skip
    return folder + "/" + rest if plain else str(Path(folder) / text)

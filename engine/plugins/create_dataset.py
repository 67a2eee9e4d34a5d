"""DATASET > Create Dataset: what the pre-process plugins compute, with NNC's definitions.

The scripts of ``scripts/_Pre_Process/_Create_Dataset/`` (and Restore Split Image of
``_Post_Process/_Utils``) are thin argparse front ends of these functions; each checks all its
input before it writes anything, and bad input is one :class:`PluginError` line naming the
file, line and column.

- :func:`tabular`: a CSV of mixed columns to NNC's ``x__k:Name`` / ``x__k:Name=Category`` /
  ``y__k:Name`` columns (numbers standardised to mean 0, standard deviation 1 with the
  population standard deviation; categories one-hot in sorted order, a categorical objective
  as its index), with the parameters (NNC's ``preprocessing_parameters.csv``) that apply the
  same transform to later data.
- :func:`tile_origins`, :func:`cut_tiles`, :func:`restore_image`: NNC's Split Image geometry.
  Tiles of ``patch`` pixels step by ``patch - 2 * overlap`` starting at ``-overlap``; the part
  of a tile outside the image is 0; the centre of each tile (``overlap`` in from each side)
  is what Restore puts back, so a split and its restore give the image back exactly.
- :func:`vocabulary`, :func:`encode`: String Classification's character index (0 = end of
  string, 1 = others, then the characters by falling frequency).
- :func:`split_rows`: the train / validation split, shuffled with a seed.
"""

from __future__ import annotations

import csv
import math
import unicodedata
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from PIL import Image, UnidentifiedImageError

from engine.plugins.errors import PluginError

__all__ = [
    "ColumnTransform",
    "Source",
    "check_tile",
    "columns_named",
    "cut_tiles",
    "encode",
    "is_number",
    "read_image",
    "read_source",
    "restore_image",
    "split_rows",
    "tabular",
    "tile_origins",
    "vocabulary",
    "write_csv",
]

EOS, OTHERS = "(EOS)", "(others)"


@dataclass
class Source:
    """A CSV as read: its header and data rows (cells stripped), and where each row was."""

    path: Path
    header: list[str]
    rows: list[list[str]]
    lines: list[int]  # the file's line number of each row (the header is line 1)

    def where(self, row: int, column: int | None = None) -> str:
        at = f"{self.path}, line {self.lines[row]}"
        return at if column is None else f"{at}, column {self.header[column]!r}"

    def column(self, name: str, option: str) -> int:
        names = [h.split(":")[0].strip() for h in self.header]
        for candidates in (self.header, names):
            if name in candidates:
                return candidates.index(name)
        raise PluginError(
            f"{self.path}: {option} {name!r}: no such column (it has {', '.join(self.header)})"
        )


def read_source(path: str | Path, encoding: str = "utf-8-sig", option: str = "--input") -> Source:
    """Read a CSV whose first line is the header; every row must have the header's width."""
    path = Path(path)
    try:
        with open(path, newline="", encoding=encoding) as f:
            reader = csv.reader(f)
            raw = [(reader.line_num, row) for row in reader]
    except OSError as exc:
        raise PluginError(f"{option} {path}: {exc.strerror}") from None
    except (UnicodeDecodeError, LookupError) as exc:
        raise PluginError(f"{option} {path}: cannot read as {encoding}: {exc}") from None
    except csv.Error as exc:
        raise PluginError(f"{option} {path}: not a CSV file: {exc}") from None
    if not raw:
        raise PluginError(f"{option} {path}: the file is empty")
    header = [h.strip() for h in raw[0][1]]
    rows, lines = [], []
    for line, row in raw[1:]:
        if not any(cell.strip() for cell in row):
            continue
        if len(row) != len(header):
            raise PluginError(
                f"{path}, line {line}: {len(row)} cells, but the header has {len(header)} columns"
            )
        rows.append([cell.strip() for cell in row])
        lines.append(line)
    if not rows:
        raise PluginError(f"{option} {path}: no data rows under the header")
    return Source(path, header, rows, lines)


def columns_named(source: Source, text: str | None, option: str) -> list[str]:
    """The column names of a comma-separated option; each must be a column of the CSV."""
    names = [n.strip() for n in (text or "").split(",") if n.strip()]
    for name in names:
        source.column(name, option)
    return names


def write_csv(path: Path, header: list[str], rows: list[list[object]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f, lineterminator="\n")
        writer.writerow(header)
        writer.writerows(rows)


# -- the train / validation split --------------------------------------------------------------
def split_rows(
    count: int,
    ratio1: float,
    ratio2: float,
    shuffle: bool,
    seed: int,
    names: tuple[str, str] = ("output_file1", "output_file2"),
) -> tuple[list[int], list[int]]:
    """The rows of file 1 and file 2: ``ratio1`` percent and the rest (NNC: they sum to 100;
    ratio2 0 puts every row in file 1)."""
    if ratio1 < 0 or ratio2 < 0 or (ratio2 > 0 and not math.isclose(ratio1 + ratio2, 100)):
        raise PluginError(
            f"--ratio1 {ratio1:g} and --ratio2 {ratio2:g}: percentages that "
            f"sum to 100 (or ratio2 0)"
        )
    order = list(range(count))
    if shuffle:
        order = [int(k) for k in np.random.default_rng(seed).permutation(count)]
    if ratio2 <= 0:
        return order, []
    cut = int(count * ratio1) // 100
    first, second = order[:cut], order[cut:]
    for rows, name, ratio in ((first, names[0], ratio1), (second, names[1], ratio2)):
        if not rows:
            raise PluginError(f"--ratio {ratio:g}%: {count} rows leave none for {name}")
    return first, second


# -- Simple Tabular Dataset ----------------------------------------------------------------------
@dataclass
class ColumnTransform:
    """One column's preprocessing (a row of NNC's preprocessing parameter file)."""

    name: str
    kind: str  # "numeric" or "category"
    mean: float = 0.0
    std: float = 1.0
    categories: list[str] = field(default_factory=list)

    def row(self) -> list[str]:
        if self.kind == "numeric":
            return [self.name, "numeric", repr(self.mean), repr(self.std)]
        return [self.name, "category", *self.categories]


def read_parameters(path: str | Path) -> dict[str, ColumnTransform]:
    """NNC's preprocessing parameter file: ``name,numeric,mean,std`` or
    ``name,category,first,second,...`` per line."""
    found: dict[str, ColumnTransform] = {}
    try:
        with open(path, newline="", encoding="utf-8-sig") as f:
            lines = [(n + 1, row) for n, row in enumerate(csv.reader(f)) if row]
    except OSError as exc:
        raise PluginError(f"--preprocess-param-input {path}: {exc.strerror}") from None
    for n, row in lines:
        kind = row[1].strip() if len(row) > 1 else ""
        try:
            if kind == "numeric":
                found[row[0]] = ColumnTransform(row[0], kind, float(row[2]), float(row[3]))
            elif kind == "category":
                found[row[0]] = ColumnTransform(row[0], kind, categories=row[2:])
            else:
                raise ValueError(f"{kind!r} is neither numeric nor category")
        except (ValueError, IndexError) as exc:
            raise PluginError(f"{path}, line {n}: not a preprocessing parameter ({exc})") from None
    return found


def _number(source: Source, row: int, column: int) -> float | None:
    text = source.rows[row][column]
    if text == "":
        return None  # a missing value: left out of the statistics, written as the mean (0)
    try:
        value = float(text)
    except ValueError:
        raise PluginError(f"{source.where(row, column)}: {text!r} is not a number") from None
    if not math.isfinite(value):
        raise PluginError(f"{source.where(row, column)}: {text!r} is not a finite number")
    return value


def _is_numeric(source: Source, column: int) -> bool:
    for row in source.rows:
        try:
            float(row[column]) if row[column] else None
        except ValueError:
            return False
    return True


def _fit(source: Source, name: str, numeric: set[str], standardize: bool) -> ColumnTransform:
    k = source.column(name, "column")
    if name in numeric or _is_numeric(source, k):
        values = [v for r in range(len(source.rows)) if (v := _number(source, r, k)) is not None]
        if not values:
            raise PluginError(f"{source.path}, column {name!r}: every cell is empty")
        if not standardize:
            return ColumnTransform(name, "numeric")
        mean, std = float(np.mean(values)), float(np.std(values))
        return ColumnTransform(name, "numeric", mean, std)
    return ColumnTransform(name, "category", categories=sorted({r[k] for r in source.rows}))


def tabular(
    source: Source,
    *,
    objective: list[str],
    include: list[str] | None = None,
    exclude: list[str] | None = None,
    comment: list[str] | None = None,
    sensitive: list[str] | None = None,
    numeric: list[str] | None = None,
    standardize: bool = True,
    parameters: dict[str, ColumnTransform] | None = None,
) -> tuple[list[str], list[list[object]], list[ColumnTransform]]:
    """NNC's Simple Tabular Dataset: ``(header, rows, transforms)`` of the dataset CSV.

    Explanatory columns are ``include`` or else every column but the comment, excluded,
    objective and sensitive ones; they become ``x``, the objectives ``y`` and the sensitive
    ones ``z``. ``numeric``: columns that must hold numbers (others are numbers when every
    cell is one). ``parameters``: apply these transforms instead of fitting new ones.
    """
    comment, sensitive, numeric_set = comment or [], sensitive or [], set(numeric or [])
    if not objective:
        raise PluginError("--objective-variables: name the column(s) to predict")
    taken = set(comment) | set(exclude or []) | set(objective) | set(sensitive)
    explanatory = include or [h for h in source.header if h not in taken]
    if not explanatory:
        raise PluginError(f"{source.path}: no column is left for the explanatory variables")
    header = [f"# {name}" for name in comment]
    columns: list[list[object]] = [
        [r[source.column(n, "--comment-cols")] for r in source.rows] for n in comment
    ]
    transforms = []
    for variable, names in (("x", explanatory), ("y", objective), ("z", sensitive)):
        index = 0
        for name in names:
            k = source.column(name, "column")
            if parameters is not None:
                if name not in parameters:
                    raise PluginError(
                        f"--preprocess-param-input: no parameters for column {name!r}"
                    )
                t = parameters[name]
            else:
                # an objective stays as it is (NNC standardises a numeric one too, so a class
                # label 0, 1, 2 would no longer be a class index)
                t = _fit(source, name, numeric_set, standardize and variable != "y")
            transforms.append(t)
            if t.kind == "numeric":
                std = t.std if t.std > 0 else 1.0  # a constant column stays at 0
                values = [_number(source, r, k) for r in range(len(source.rows))]
                if (t.mean, std) == (0.0, 1.0):  # as written (a class label stays 0, 1, 2)
                    columns.append([0 if v is None else int(v) if v.is_integer() else v
                                    for v in values])  # fmt: skip
                else:
                    columns.append([0.0 if v is None else (v - t.mean) / std for v in values])
                header.append(f"{variable}__{index}:{name}")
                index += 1
                continue
            for r, row in enumerate(source.rows):
                if row[k] not in t.categories:
                    raise PluginError(
                        f"{source.where(r, k)}: category {row[k]!r} is not one of "
                        f"{', '.join(t.categories)}"
                    )
            if variable == "y":  # the objective: the category's index
                columns.append([t.categories.index(row[k]) for row in source.rows])
                header.append(f"y__{index}:{name}")
                index += 1
                continue
            for c, category in enumerate(t.categories):
                columns.append([int(row[k] == category) for row in source.rows])
                header.append(f"{variable}__{index + c}:{name}={category}")
            index += len(t.categories)
    rows = [list(cells) for cells in zip(*columns, strict=True)]
    return header, rows, transforms


# -- Split Image / Restore Split Image ---------------------------------------------------------
def check_tile(patch: int, overlap: int, option: str = "") -> int:
    base = patch - 2 * overlap
    if patch <= 0 or overlap < 0 or base <= 0:
        raise PluginError(
            f"--patch-size{option} {patch}, --overlap-size{option} {overlap}: the "
            f"patch must be larger than twice the overlap"
        )
    return base


def tile_origins(height: int, width: int, patch: int, overlap: int) -> list[tuple[int, int]]:
    """The (top, left) of every tile in the image, row by row (may be negative)."""
    base = check_tile(patch, overlap)
    rows, cols = (height - 1) // base + 1, (width - 1) // base + 1
    return [(-overlap + y * base, -overlap + x * base) for y in range(rows) for x in range(cols)]


def cut_tiles(image: np.ndarray, patch: int, overlap: int) -> list[tuple[int, int, np.ndarray]]:
    """``(top, left, tile)`` for each tile of an (H, W) or (H, W, C) image; outside is 0."""
    height, width = image.shape[:2]
    out = []
    for top, left in tile_origins(height, width, patch, overlap):
        tile = np.zeros((patch, patch, *image.shape[2:]), dtype=image.dtype)
        y0, x0 = max(top, 0), max(left, 0)
        y1, x1 = min(top + patch, height), min(left + patch, width)
        tile[y0 - top : y1 - top, x0 - left : x1 - left] = image[y0:y1, x0:x1]
        out.append((top, left, tile))
    return out


def restore_image(
    tiles: list[tuple[int, int, np.ndarray]], height: int, width: int, overlap: int
) -> np.ndarray:
    """The image from its tiles: each tile's centre (``overlap`` in from each side)."""
    first = tiles[0][2]
    patch = first.shape[0]
    image = np.zeros((height, width, *first.shape[2:]), dtype=first.dtype)
    for top, left, tile in tiles:
        y0, x0 = max(top + overlap, 0), max(left + overlap, 0)
        y1, x1 = min(top + patch - overlap, height), min(left + patch - overlap, width)
        if y1 > y0 and x1 > x0:
            image[y0:y1, x0:x1] = tile[y0 - top : y1 - top, x0 - left : x1 - left]
    return image


def is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def read_image(path: Path, where: str) -> np.ndarray:
    """An image file as an (H, W) or (H, W, C) array, as stored (grey stays grey)."""
    try:
        with Image.open(path) as im:
            if im.mode not in ("L", "RGB", "RGBA", "I;16"):
                im = im.convert("RGB")
            return np.asarray(im).copy()
    except FileNotFoundError:
        raise PluginError(f"{where}: {path}: no such file") from None
    except (OSError, UnidentifiedImageError) as exc:
        raise PluginError(f"{where}: {path}: not an image ({exc})") from None


# -- String Classification ------------------------------------------------------------------------
def _text(text: str, normalize: bool) -> str:
    return unicodedata.normalize("NFKC", text) if normalize else text


def vocabulary(
    texts: list[str],
    max_length: int,
    max_characters: int,
    min_occurrences: int,
    normalize: bool = False,
) -> list[str]:
    """The character index: ``(EOS)``, ``(others)``, then the characters seen at least
    ``min_occurrences`` times in the first ``max_length`` of each string, most frequent first
    (ties in order of first appearance), at most ``max_characters`` entries in all."""
    if max_length <= 0 or max_characters < 3:
        raise PluginError(
            f"--max-length {max_length}, --max-characters {max_characters}: "
            f"need a length above 0 and at least 3 characters"
        )
    counts = Counter(ch for t in texts for ch in _text(t, normalize)[:max_length])
    kept = [ch for ch, n in counts.most_common() if n >= min_occurrences]
    return [EOS, OTHERS, *kept[: max_characters - 2]]


def encode(
    text: str, index: dict[str, int], max_length: int, normalize: bool = False
) -> tuple[int, list[int]]:
    """``(length, indices)``: the string's characters as indices, padded with 0 (EOS)."""
    chars = _text(text, normalize)[:max_length]
    codes = [index.get(ch, 1) for ch in chars]
    return len(codes), codes + [0] * (max_length - len(codes))


def read_index(path: str | Path) -> list[str]:
    """A character index file (``index,character`` per line, from 0)."""
    try:
        with open(path, newline="", encoding="utf-8-sig") as f:
            rows = [row for row in csv.reader(f) if row]
    except OSError as exc:
        raise PluginError(f"--index-file-input {path}: {exc.strerror}") from None
    chars = []
    for n, row in enumerate(rows):
        if len(row) < 2 or row[0].strip() != str(n):
            raise PluginError(f"{path}, line {n + 1}: expected '{n},<character>'")
        chars.append(row[1])
    return chars

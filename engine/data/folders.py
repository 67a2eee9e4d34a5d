"""Make an NNC image-classification dataset from a folder with one sub-folder per class.

Like NNC's "create dataset" tool: every image is converted to gray or RGB, resized to one size,
saved as PNG under ``OUT/<class>/`` and listed in ``OUT/training.csv`` and
``OUT/validation.csv`` (``x:image,y:label``; ``y`` is the class index in sorted folder-name
order, and ``OUT/classes.txt`` lists the class names, one per line, in index order). Each class is
split on its own (stratified) after a shuffle seeded by ``seed``, so the same seed gives the same
split.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from PIL import Image, UnidentifiedImageError

from engine.core.messages import QT_TRANSLATE_NOOP
from engine.data.errors import DatasetError
from engine.data.loaders import IMAGE_EXTENSIONS
from engine.data.progress import Progress
from engine.data.writers import write_csv

__all__ = ["create_from_folders"]

HEADER = ("x:image", "y:label")
CHANNEL_MODES = {"gray": "L", "rgb": "RGB"}


def create_from_folders(
    source: str | Path,
    out: str | Path,
    *,
    size: tuple[int, int] | None = None,
    channel: str = "rgb",
    ratio: float = 0.8,
    seed: int = 0,
    progress: Progress | None = None,
) -> dict[str, Path]:
    """Write the dataset; return ``{"training": csv, "validation": csv}``.

    Args:
        source: folder holding one sub-folder of images per class (searched recursively).
        out: new or empty output folder.
        size: (width, height) of every output image; None keeps the size of the images, which
            must then all be the same.
        channel: ``"gray"`` (1 channel) or ``"rgb"`` (3 channels).
        ratio: fraction of each class that goes to training (0 < ratio <= 1).
        seed: seed of the per-class shuffle before the split.
    """
    source, out = Path(source), Path(out)
    if channel not in CHANNEL_MODES:
        raise DatasetError(
            QT_TRANSLATE_NOOP(
                "Problems", "channel must be gray or rgb. Received: channel={channel}"
            ).format(channel=repr(channel))
        )
    if not 0 < ratio <= 1:
        raise DatasetError(
            QT_TRANSLATE_NOOP(
                "Problems", "the training ratio must be in (0, 1]. Received: ratio={ratio}"
            ).format(ratio=ratio)
        )
    if size is not None and (len(size) != 2 or min(size) < 1):
        raise DatasetError(
            QT_TRANSLATE_NOOP(
                "Problems", "size must be two positive integers (width, height). Received: {size}"
            ).format(size=size)
        )
    classes = _classes(source)
    _check_output(out)
    created = not out.exists()
    out.mkdir(parents=True, exist_ok=True)
    try:
        return _write(classes, source, out, size, channel, ratio, seed, progress)
    except BaseException:  # a bad image half-way: leave no half-made dataset behind
        _remove_written(out, created)
        raise


def _write(
    classes: list[tuple[str, list[Path]]],
    source: Path,
    out: Path,
    size: tuple[int, int] | None,
    channel: str,
    ratio: float,
    seed: int,
    progress: Progress | None,
) -> dict[str, Path]:
    total = sum(len(files) for _, files in classes)
    splits: dict[str, list[tuple[str, int]]] = {"training": [], "validation": []}
    sizer, done = _Sizer((int(size[0]), int(size[1])) if size is not None else None), 0
    for label, (name, files) in enumerate(classes):
        order = np.random.default_rng([seed, label]).permutation(len(files))
        n_train = int(round(len(files) * ratio))
        used: set[str] = set()
        for rank, i in enumerate(order):
            cell = _convert(files[i], source / name, out, name, used, channel, sizer)
            splits["training" if rank < n_train else "validation"].append((cell, label))
            done += 1
            if progress is not None:
                progress(done, total)
    (out / "classes.txt").write_text("".join(f"{name}\n" for name, _ in classes), "utf-8")
    paths: dict[str, Path] = {}
    for split, rows in splits.items():
        rows.sort(key=_row_key)
        paths[split] = write_csv(out / f"{split}.csv", HEADER, rows)
    return paths


def _remove_written(out: Path, created: bool) -> None:
    """Undo a failed write: the folder this call made, or what it put in the empty folder."""
    if created:
        shutil.rmtree(out, ignore_errors=True)
        return
    for child in out.iterdir():  # empty before the call (checked), so all of it is ours
        if child.is_dir() and not child.is_symlink():
            shutil.rmtree(child, ignore_errors=True)
        else:
            child.unlink(missing_ok=True)


def _row_key(row: tuple[str, int]) -> tuple[int, str]:
    return row[1], row[0]


def _classes(source: Path) -> list[tuple[str, list[Path]]]:
    if not source.is_dir():
        raise DatasetError(
            QT_TRANSLATE_NOOP(
                "Problems", '"{source}" is not a folder (expected one sub-folder per class)'
            ).format(source=source)
        )
    folders = sorted(p for p in source.iterdir() if p.is_dir() and not p.name.startswith("."))
    if not folders:
        raise DatasetError(
            QT_TRANSLATE_NOOP(
                "Problems",
                '"{source}" has no sub-folders; put the images of each class into a sub-folder named after the class',  # noqa: E501 - one string for the catalogue
            ).format(source=source)
        )
    classes = []
    for folder in folders:
        files = sorted(
            p
            for p in folder.rglob("*")
            if p.is_file()
            and p.suffix.lower() in IMAGE_EXTENSIONS
            and not any(part.startswith(".") for part in p.relative_to(folder).parts)
        )
        if not files:
            raise DatasetError(
                QT_TRANSLATE_NOOP(
                    "Problems", 'class folder "{folder}" holds no images ({suffixes})'
                ).format(folder=folder, suffixes=" ".join(IMAGE_EXTENSIONS))
            )
        classes.append((folder.name, files))
    return classes


@dataclass
class _Sizer:
    """The output size: the one asked for, or that of the first image, which all must match."""

    size: tuple[int, int] | None
    first: Path | None = None

    def fit(self, img: Image.Image, path: Path) -> Image.Image:
        if self.size is None:
            self.size, self.first = img.size, path
        elif img.size != self.size and self.first is not None:
            raise DatasetError(
                QT_TRANSLATE_NOOP(
                    "Problems",
                    '"{path}" is {width}x{height} but "{first}" is {first_width}x{first_height}; pass a size to resize every image to',  # noqa: E501 - one string for the catalogue
                ).format(
                    path=path,
                    width=img.size[0],
                    height=img.size[1],
                    first=self.first,
                    first_width=self.size[0],
                    first_height=self.size[1],
                )
            )
        return img if img.size == self.size else img.resize(self.size, Image.Resampling.BICUBIC)


def _check_output(out: Path) -> None:
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise DatasetError(
            QT_TRANSLATE_NOOP(
                "Problems", 'output folder "{out}" exists and is not empty; choose a new folder'
            ).format(out=out)
        )


def _convert(
    path: Path, class_dir: Path, out: Path, name: str, used: set[str], channel: str, sizer: _Sizer
) -> str:
    """Save ``path`` as ``out/<class>/<stem>.png``; return the CSV cell ``./<class>/<stem>.png``."""
    try:
        with Image.open(path) as opened:
            opened.seek(0)
            img = opened.convert(CHANNEL_MODES[channel])
    except (UnidentifiedImageError, Image.DecompressionBombError, OSError, ValueError) as exc:
        raise DatasetError(
            QT_TRANSLATE_NOOP("Problems", 'cannot read image "{path}": {exc}').format(
                path=path, exc=exc
            )
        ) from None
    img = sizer.fit(img, path)
    stem = "_".join(path.relative_to(class_dir).with_suffix("").parts)
    unique, k = stem, 1
    while unique.casefold() in used:  # case-insensitive file systems would merge these
        unique, k = f"{stem}_{k}", k + 1
    used.add(unique.casefold())
    target = out / name / f"{unique}.png"
    target.parent.mkdir(parents=True, exist_ok=True)
    img.save(target)
    return f"./{name}/{unique}.png"

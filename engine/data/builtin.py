"""Built-in datasets, generated on first use into ``<cache root>/datasets/<folder>/``.

==================  ========================================================================
``digits``          scikit-learn's 1,797 handwritten digits (8x8, no network needed) as
                    1x28x28 gray PNGs (scaled to 20x20, centred as MNIST); fixed split:
                    1,500 training, 297 validation rows; ``x:image,y:label``
``digits-4or9``     the 4s and 9s of ``digits``; ``y`` is 1 for 9 (like NNC's first tutorial)
``iris``            scikit-learn's iris, features min-max scaled to 0..1 (4 decimals),
                    ``x__0..x__3`` and ``y`` (class 0-2); stratified 120 / 30 split
``mnist``           MNIST (download), ``mnist_training.csv`` / ``mnist_test.csv`` as NNC's
``mnist-4or9``      NNC's ``small_mnist_4or9``: the first 1,500 / 500 4s and 9s of MNIST
``fashion-mnist``   Fashion-MNIST (download)
``cifar10``         CIFAR-10 binary version (download), 3x32x32 RGB PNGs
``bit-majority``    a synthetic sequence task: 15 random bits per sample (a 15x1 CSV file,
                    one bit per time step), ``y`` is 1 when most bits are 1; 2,000 / 500 rows
==================  ========================================================================

A set is generated in a temporary folder and renamed into place, with a marker file written last,
so an interrupted generation is redone. Derived sets (``-4or9``) are extra CSVs in the folder of
the set they come from. :func:`for_nnc_uri` maps NNC's ``{SDCPATH}samples\\sample_dataset\\...``
URIs to these sets.
"""

from __future__ import annotations

import csv
import json
import os
import shutil
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from PIL import Image

from engine.core import optional
from engine.core.messages import QT_TRANSLATE_NOOP
from engine.data import downloads
from engine.data.cache import cache_root
from engine.data.errors import DatasetError
from engine.data.progress import Progress, bar
from engine.data.writers import write_csv, write_image_set

sklearn_datasets = optional.lazy("sklearn.datasets", "the built-in digits and iris datasets")

__all__ = ["Builtin", "BUILTINS", "ensure", "for_nnc_uri", "names"]

GENERATOR_VERSION = 1
DIGITS_SPLIT_SEED = 20171
DIGITS_VALIDATION = 297
BITS_SEED, BITS_LENGTH, BITS_ROWS = 20260, 15, {"training": 2000, "validation": 500}
IRIS_SPLIT_SEED = 150
IRIS_VALIDATION_PER_CLASS = 10
IRIS_HEADER = ("x__0:sepal length", "x__1:sepal width", "x__2:petal length", "x__3:petal width",
               "y:label")  # fmt: skip
IMAGE_HEADER = ("x:image", "y:label")
BINARY_HEADER = ("x:image", "y:9")  # NNC's small_mnist_4or9 header

Maker = Callable[[Path, Path, bool], None]  # (folder, downloads folder, progress)


@dataclass(frozen=True)
class Builtin:
    """One built-in dataset: where it lives and which CSV holds each split."""

    name: str
    description: str
    folder: str
    training: str
    validation: str
    make: Maker
    base: str | None = None  # derived from this set (written into its folder)
    archives: tuple[downloads.Archive, ...] = ()


def names() -> tuple[str, ...]:
    return tuple(BUILTINS)


def get(name: str) -> Builtin:
    try:
        return BUILTINS[name]
    except KeyError:
        raise DatasetError(
            QT_TRANSLATE_NOOP(
                "Problems", "unknown built-in dataset {name}; choose one of {names}"
            ).format(name=repr(name), names=", ".join(BUILTINS))
        ) from None


def ensure(name: str, *, root: Path | None = None, progress: bool = False) -> dict[str, Path]:
    """Generate ``name`` if needed; return ``{"training": csv, "validation": csv}``."""
    spec = get(name)
    root = root or cache_root()
    base = get(spec.base) if spec.base else None
    if base is not None:
        ensure(base.name, root=root, progress=progress)
    folder = root / "datasets" / (base or spec).folder
    paths = {"training": folder / spec.training, "validation": folder / spec.validation}
    marker = folder / f".neurocanvas-{spec.name}.json"
    if _complete(marker, paths):
        return paths
    if base is None:
        _generate_folder(spec, folder, root / "downloads", progress)
    else:
        spec.make(folder, root / "downloads", progress)
        _write_marker(folder, spec)
    return paths


def for_nnc_uri(uri: str) -> tuple[str, str] | None:
    """``(built-in name, "training" | "validation")`` for an NNC sample-dataset URI, else None.

    NNC's sample projects name ``{SDCPATH}samples\\sample_dataset\\mnist\\mnist_training.csv``
    and similar; the file name decides.
    """
    filename = uri.replace("\\", "/").rsplit("/", 1)[-1].lower()
    return _NNC_FILES.get(filename)


def _complete(marker: Path, paths: dict[str, Path]) -> bool:
    try:
        meta = json.loads(marker.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return meta.get("version") == GENERATOR_VERSION and all(p.is_file() for p in paths.values())


def _write_marker(folder: Path, spec: Builtin) -> None:
    meta = {"name": spec.name, "version": GENERATOR_VERSION}
    write_json = folder / f".neurocanvas-{spec.name}.json"
    tmp = write_json.with_suffix(".tmp")
    tmp.write_text(json.dumps(meta), encoding="utf-8")
    os.replace(tmp, write_json)


def _generate_folder(spec: Builtin, folder: Path, downloads_dir: Path, progress: bool) -> None:
    folder.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".tmp-{spec.folder}-", dir=folder.parent))
    try:
        spec.make(tmp, downloads_dir, progress)
        _write_marker(tmp, spec)
        if folder.exists():  # an earlier, interrupted generation: ours to replace
            shutil.rmtree(folder)
        try:
            os.replace(tmp, folder)
        except OSError:  # another process generated it meanwhile
            if not (folder / f".neurocanvas-{spec.name}.json").exists():
                raise
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _progress(enabled: bool, desc: str) -> Progress | None:
    return bar(desc, unit="img") if enabled else None


# -- digits and iris (scikit-learn's bundled data) ---------------------------------------------


def _make_digits(folder: Path, _downloads: Path, progress: bool) -> None:
    digits = sklearn_datasets.load_digits()
    images8 = np.rint(digits.images * (255.0 / 16.0)).clip(0, 255).astype(np.uint8)
    labels = digits.target.astype(np.int64)
    perm = np.random.default_rng(DIGITS_SPLIT_SEED).permutation(len(labels))
    splits = {"training": np.sort(perm[DIGITS_VALIDATION:]),
              "validation": np.sort(perm[:DIGITS_VALIDATION])}  # fmt: skip
    for split, rows in splits.items():
        images = np.stack([_mnist_like(images8[i]) for i in rows])
        cells = write_image_set(folder, split, images, labels[rows],
                                _progress(progress, f"digits {split}"))  # fmt: skip
        write_csv(folder / f"digits_{split}.csv", IMAGE_HEADER, cells)


def _mnist_like(image8: np.ndarray) -> np.ndarray:
    """An 8x8 digit as MNIST draws digits: 20x20 in the middle of a black 28x28 field."""
    digit = Image.fromarray(image8).resize((20, 20), Image.Resampling.BILINEAR)
    field = Image.new("L", (28, 28), 0)
    field.paste(digit, (4, 4))
    return np.asarray(field)[None]


def _make_binary(source: str, name: str, counts: tuple[int, int] | None) -> Maker:
    """A maker of the CSVs of built-in ``name``: the 4s (y=0) and 9s (y=1) of ``source``."""

    def make(folder: Path, _downloads: Path, _progress_enabled: bool) -> None:
        spec = BUILTINS[name]
        base = BUILTINS[source]
        for split, limit in zip(("training", "validation"), counts or (None, None), strict=True):
            rows = [(path, 1 if label == 9 else 0)
                    for path, label in _read_image_csv(folder / getattr(base, split))
                    if label in (4, 9)]  # fmt: skip
            write_csv(folder / getattr(spec, split), BINARY_HEADER, rows[:limit])

    return make


def _read_image_csv(path: Path) -> list[tuple[str, int]]:
    with open(path, encoding="utf-8", newline="") as f:
        reader = csv.reader(f)
        next(reader)
        return [(row[0], int(row[1])) for row in reader if row]


def _make_iris(folder: Path, _downloads: Path, _progress_enabled: bool) -> None:
    iris = sklearn_datasets.load_iris()
    x, y = iris.data, iris.target.astype(np.int64)
    scaled = np.round((x - x.min(axis=0)) / (x.max(axis=0) - x.min(axis=0)), 4)
    rng = np.random.default_rng(IRIS_SPLIT_SEED)
    validation = np.sort(np.concatenate([
        rng.permutation(np.flatnonzero(y == c))[:IRIS_VALIDATION_PER_CLASS] for c in range(3)
    ]))  # fmt: skip
    training = np.setdiff1d(np.arange(len(y)), validation)
    for split, rows in (("training", training), ("validation", validation)):
        cells = [[*(float(v) for v in scaled[i]), int(y[i])] for i in rows]
        write_csv(folder / f"iris_{split}.csv", IRIS_HEADER, cells)


def _make_bit_majority(folder: Path, _downloads: Path, _progress_enabled: bool) -> None:
    """Sequences of random bits; the label needs the whole sequence (a count over time)."""
    rng = np.random.default_rng(BITS_SEED)
    for split, rows in BITS_ROWS.items():
        bits = rng.integers(0, 2, (rows, BITS_LENGTH))
        (folder / split).mkdir(parents=True)
        cells = []
        for i, seq in enumerate(bits):
            name = f"{split}/{i:05d}.csv"  # the folder is renamed into place when complete
            (folder / name).write_text("".join(f"{b}\n" for b in seq), encoding="utf-8")
            cells.append((f"./{name}", int(seq.sum() * 2 > BITS_LENGTH)))
        write_csv(folder / f"bit_majority_{split}.csv", ("x:bits", "y:majority"), cells)


# -- downloaded sets ----------------------------------------------------------------------------

_MNIST_URLS = ("https://storage.googleapis.com/cvdf-datasets/mnist/",
               "https://ossci-datasets.s3.amazonaws.com/mnist/")  # fmt: skip
_FASHION_URLS = ("http://fashion-mnist.s3-website.eu-central-1.amazonaws.com/",)


def _idx_archives(
    urls: tuple[str, ...], table: tuple[tuple[str, int, str], ...]
) -> tuple[downloads.Archive, ...]:
    return tuple(downloads.Archive(name, sha, size, tuple(u + name for u in urls))
                 for name, size, sha in table)  # fmt: skip


MNIST_ARCHIVES = _idx_archives(_MNIST_URLS, (
    ("train-images-idx3-ubyte.gz", 9912422,
     "440fcabf73cc546fa21475e81ea370265605f56be210a4024d2ca8f203523609"),
    ("train-labels-idx1-ubyte.gz", 28881,
     "3552534a0a558bbed6aed32b30c495cca23d567ec52cac8be1a0730e8010255c"),
    ("t10k-images-idx3-ubyte.gz", 1648877,
     "8d422c7b0a1c1c79245a5bcf07fe86e33eeafee792b84584aec276f5a2dbc4e6"),
    ("t10k-labels-idx1-ubyte.gz", 4542,
     "f7ae60f92e00ec6debd23a6088c31dbd2371eca3ffa0defaefb259924204aec6"),
))  # fmt: skip
FASHION_ARCHIVES = _idx_archives(_FASHION_URLS, (
    ("train-images-idx3-ubyte.gz", 26421880,
     "3aede38d61863908ad78613f6a32ed271626dd12800ba2636569512369268a84"),
    ("train-labels-idx1-ubyte.gz", 29515,
     "a04f17134ac03560a47e3764e11b92fc97de4d1bfaf8ba1a3aa29af54cc90845"),
    ("t10k-images-idx3-ubyte.gz", 4422102,
     "346e55b948d973a97e58d2351dde16a484bd415d4595297633bb08f03db6a073"),
    ("t10k-labels-idx1-ubyte.gz", 5148,
     "67da17c76eaffca5446c3361aaab5c3cd6d1c2608764d35dfb1850b086bf8dd5"),
))  # fmt: skip
CIFAR10_ARCHIVES = (downloads.Archive(
    "cifar-10-binary.tar.gz", "c4a38c50a1bc5f3a1c5537f2155ab9d68f9f25eb1ed8d9ddda3db29a59bca1dd",
    170052171, ("https://www.cs.toronto.edu/~kriz/cifar-10-binary.tar.gz",),
),)  # fmt: skip


def _make_idx_set(name: str) -> Maker:
    def make(folder: Path, downloads_dir: Path, progress: bool) -> None:
        spec = BUILTINS[name]
        # Fashion-MNIST reuses MNIST's file names, so each set downloads into its own folder.
        files = downloads.fetch_all(name, spec.archives, downloads_dir / name, progress)
        for split, stem in (("training", "train"), ("validation", "t10k")):
            images = downloads.read_idx_gz(files[f"{stem}-images-idx3-ubyte.gz"])
            labels = downloads.read_idx_gz(files[f"{stem}-labels-idx1-ubyte.gz"])
            if images.ndim != 3 or labels.ndim != 1 or len(images) != len(labels):
                raise DatasetError(
                    QT_TRANSLATE_NOOP(
                        "Problems", "{name}: {stem} images {shape} and labels {shape2} do not match"
                    ).format(name=name, stem=stem, shape=images.shape, shape2=labels.shape)
                )
            cells = write_image_set(folder, split, images[:, None], labels,
                                    _progress(progress, f"{name} {split}"))  # fmt: skip
            write_csv(folder / getattr(spec, split), IMAGE_HEADER, cells)

    return make


def _make_cifar10(folder: Path, downloads_dir: Path, progress: bool) -> None:
    spec = BUILTINS["cifar10"]
    files = downloads.fetch_all("cifar10", spec.archives, downloads_dir / "cifar10", progress)
    data = downloads.read_cifar10_binary(files[spec.archives[0].filename])
    for split, (images, labels) in data.items():
        cells = write_image_set(folder, split, images, labels,
                                _progress(progress, f"cifar10 {split}"))  # fmt: skip
        write_csv(folder / getattr(spec, split), IMAGE_HEADER, cells)


BUILTINS: dict[str, Builtin] = {
    b.name: b
    for b in (
        Builtin("digits", "scikit-learn handwritten digits as 1x28x28 PNGs, 10 classes (1,500 / "
                "297 rows)", "digits", "digits_training.csv", "digits_validation.csv",
                _make_digits),
        Builtin("digits-4or9", "4 or 9 from digits, y=1 for 9 (296 / 65 rows)", "digits",
                "digits_4or9_training.csv", "digits_4or9_validation.csv",
                _make_binary("digits", "digits-4or9", None), base="digits"),
        Builtin("iris", "iris flowers, x__0..x__3 scaled to 0..1, y = class 0-2 (120 / 30 rows)",
                "iris", "iris_training.csv", "iris_validation.csv", _make_iris),
        Builtin("mnist", "MNIST handwritten digits, 1x28x28 PNGs (60,000 / 10,000 rows; download)",
                "mnist", "mnist_training.csv", "mnist_test.csv", _make_idx_set("mnist"),
                archives=MNIST_ARCHIVES),
        Builtin("mnist-4or9", "NNC's small_mnist_4or9: 4 or 9 from MNIST (1,500 / 500 rows)",
                "mnist", "small_mnist_4or9_training.csv", "small_mnist_4or9_test.csv",
                _make_binary("mnist", "mnist-4or9", (1500, 500)), base="mnist"),
        Builtin("fashion-mnist", "Fashion-MNIST clothes, 1x28x28 PNGs (60,000 / 10,000 rows; "
                "download)", "fashion-mnist", "fashion_mnist_training.csv",
                "fashion_mnist_test.csv", _make_idx_set("fashion-mnist"),
                archives=FASHION_ARCHIVES),
        Builtin("cifar10", "CIFAR-10 objects, 3x32x32 PNGs (50,000 / 10,000 rows; download)",
                "cifar10", "cifar10_training.csv", "cifar10_test.csv", _make_cifar10,
                archives=CIFAR10_ARCHIVES),
        Builtin("bit-majority", "synthetic sequences: 15 random bits (15x1), y=1 when most are "
                "1 (2,000 / 500 rows)", "bit-majority", "bit_majority_training.csv",
                "bit_majority_validation.csv", _make_bit_majority),
    )
}  # fmt: skip

_NNC_FILES = {
    "mnist_training.csv": ("mnist", "training"),
    "mnist_test.csv": ("mnist", "validation"),
    "small_mnist_4or9_training.csv": ("mnist-4or9", "training"),
    "small_mnist_4or9_test.csv": ("mnist-4or9", "validation"),
    "fashion_mnist_training.csv": ("fashion-mnist", "training"),
    "fashion_mnist_test.csv": ("fashion-mnist", "validation"),
    "cifar10_training.csv": ("cifar10", "training"),
    "cifar10_test.csv": ("cifar10", "validation"),
    "iris_flower_dataset_training_delo.csv": ("iris", "training"),
    "iris_flower_dataset_validation_delo.csv": ("iris", "validation"),
}

"""Loaders for the files a dataset CSV cell may name (docs/formats.md §2.3).

The loader is chosen by the lower-cased extension. Every loader returns the array with the dtype
the file holds (images stay ``uint8``/``uint16`` so that a cache stays small and Image
Normalization can tell 8-bit from 16-bit); conversion to float32 happens when a batch is built.

- images (``.bmp .jpg .jpeg .png .gif .tif .tiff``) through Pillow: gray -> (1, H, W), colour ->
  (C, H, W) (alpha channels are kept, as nnabla's OpenCV loader does); first frame of animations.
- ``.csv``: a headerless matrix of numbers -> (rows, cols); one row gives (1, cols).
- ``.npy``: ``numpy.load(allow_pickle=False)``. nnabla allows pickle; NeuroCanvas never unpickles
  a dataset file because unpickling can run arbitrary code.
- ``.wav``: integer PCM through the standard library -> (samples, channels), values unscaled.

Loaders raise :class:`FileLoadError` with the problem only; the dataset adds file, line, column.
"""

from __future__ import annotations

import csv
import io
import os
import wave
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image, UnidentifiedImageError

__all__ = [
    "IMAGE_EXTENSIONS", "KIND_BY_EXTENSION", "FileLoadError", "file_kind", "load_file",
    "normalization_scale",
]  # fmt: skip

IMAGE_EXTENSIONS = (".bmp", ".jpg", ".jpeg", ".png", ".gif", ".tif", ".tiff")
KIND_BY_EXTENSION = {ext: "image" for ext in IMAGE_EXTENSIONS} | {
    ".csv": "csv",
    ".npy": "npy",
    ".wav": "wav",
}
_NUMERIC_KINDS = "biuf"  # bool, signed, unsigned, float dtypes


class FileLoadError(Exception):
    """A data file cannot be read; the message says why (without the file's place in the CSV)."""


def file_kind(path: str) -> str | None:
    """``"image"``, ``"csv"``, ``"npy"``, ``"wav"`` or None for an unsupported extension."""
    return KIND_BY_EXTENSION.get(os.path.splitext(path)[1].lower())


def supported_extensions() -> str:
    return " ".join(KIND_BY_EXTENSION)


def load_file(path: Path, kind: str | None = None) -> np.ndarray:
    """Load one data file as a NumPy array in its own dtype (see the module docstring)."""
    kind = kind or file_kind(str(path))
    loader = _LOADERS.get(kind or "")
    if loader is None:
        raise FileLoadError(
            f"unsupported file type {Path(path).suffix!r}; supported: {supported_extensions()}"
        )
    try:
        return loader(Path(path))
    except FileNotFoundError:
        raise FileLoadError(f"file not found: {path}") from None
    except (OSError, MemoryError) as exc:
        raise FileLoadError(f"cannot read {path}: {exc}") from None


def normalization_scale(dtype: np.dtype) -> float | None:
    """The Image Normalization factor for an image array of ``dtype`` (None: not scaled)."""
    if dtype == np.uint8:
        return 1.0 / 255.0
    if dtype == np.uint16:
        return 1.0 / 65535.0
    return None


def _load_image(path: Path) -> np.ndarray:
    try:
        with Image.open(path) as img:
            img.seek(0)
            arr = _image_array(img)
    except UnidentifiedImageError:
        raise FileLoadError(f"not a readable image: {path}") from None
    except Image.DecompressionBombError as exc:  # a header claiming billions of pixels
        raise FileLoadError(f"image too large to decode: {path} ({exc})") from None
    except (SyntaxError, ValueError) as exc:  # Pillow reports some corrupt files this way
        raise FileLoadError(f"corrupt image {path}: {exc}") from None
    if arr.ndim == 2:
        return arr[None]
    return np.ascontiguousarray(arr.transpose(2, 0, 1))


def _image_array(img: Image.Image) -> np.ndarray:
    """Pixels as (H, W) or (H, W, C) in uint8/uint16 (float32 only for float TIFFs)."""
    mode = img.mode
    if mode == "P":
        img = img.convert(_palette_mode(img))
    elif mode == "PA":
        img = img.convert("RGBA")
    elif mode == "1":
        img = img.convert("L")
    elif mode in ("CMYK", "YCbCr", "LAB", "HSV"):
        img = img.convert("RGB")
    elif mode in ("RGBa", "La"):  # premultiplied alpha
        img = img.convert("RGBA" if mode == "RGBa" else "LA")
    arr = np.asarray(img)
    if mode.startswith("I;16"):
        return arr.astype(np.uint16)
    if mode == "I":  # 16-bit PNGs open as 32-bit integers in some Pillow versions
        if arr.size and (arr.min() < 0 or arr.max() > 65535):
            raise FileLoadError("32-bit integer images are not supported (use 8 or 16 bits)")
        return arr.astype(np.uint16)
    if mode == "F":
        return arr.astype(np.float32)
    return arr


def _palette_mode(img: Image.Image) -> str:
    """Gray when every palette entry is gray, else RGB (RGBA with transparency)."""
    if "transparency" in img.info:
        return "RGBA"
    palette = img.getpalette() or []
    triples = zip(palette[0::3], palette[1::3], palette[2::3], strict=False)
    return "L" if all(r == g == b for r, g, b in triples) else "RGB"


def _load_csv(path: Path) -> np.ndarray:
    try:
        text = path.read_bytes().decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise FileLoadError(
            f"{path} is not UTF-8 text ({exc.reason} at byte {exc.start})"
        ) from None
    rows = [row for row in csv.reader(io.StringIO(text, newline="")) if row]
    if not rows:
        raise FileLoadError(f"empty CSV file: {path}")
    width = len(rows[0])
    values = np.empty((len(rows), width), dtype=np.float32)
    for r, row in enumerate(rows):
        if len(row) != width:
            raise FileLoadError(
                f"{path}: data row {r + 1} has {len(row)} values, the first row has {width}"
            )
        try:
            values[r] = [float(cell) for cell in row]
        except ValueError:
            bad = next(c for c, cell in enumerate(row) if not _is_float(cell))
            raise FileLoadError(
                f"{path}: data row {r + 1}, value {bad + 1} is not a number: {row[bad]!r}"
            ) from None
    return values


def _is_float(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _load_npy(path: Path) -> np.ndarray:
    try:
        arr = np.load(path, allow_pickle=False)
    except ValueError as exc:
        if "pickle" in str(exc):
            raise FileLoadError(
                f"{path} holds Python objects, which need pickle to load; NeuroCanvas never "
                "unpickles dataset files because that can run code. Save it as a numeric array "
                "(e.g. np.save(path, array.astype(np.float32)))"
            ) from None
        raise FileLoadError(f"not a valid .npy file: {path} ({exc})") from None
    if not isinstance(arr, np.ndarray):  # np.load returns an NpzFile for zip archives
        raise FileLoadError(f"{path} is an .npz archive, not a single .npy array")
    if arr.dtype.kind not in _NUMERIC_KINDS:
        raise FileLoadError(f"{path} holds {arr.dtype} values; a numeric array is needed")
    return arr


def _load_wav(path: Path) -> np.ndarray:
    try:
        with wave.open(str(path), "rb") as wav:
            channels, width = wav.getnchannels(), wav.getsampwidth()
            frames = wav.readframes(wav.getnframes())
    except (wave.Error, EOFError) as exc:
        raise FileLoadError(f"{path}: unsupported or corrupt WAV file ({exc})") from None
    dtype = _WAV_DTYPES.get(width)
    if dtype is None:
        raise FileLoadError(f"{path}: {8 * width}-bit WAV is not supported (use 8, 16 or 32 bits)")
    return np.frombuffer(frames, dtype=dtype).reshape(-1, channels).copy()


_WAV_DTYPES: dict[int, np.dtype[Any]] = {
    1: np.dtype(np.uint8), 2: np.dtype("<i2"), 4: np.dtype("<i4")
}  # fmt: skip
_LOADERS = {"image": _load_image, "csv": _load_csv, "npy": _load_npy, "wav": _load_wav}

"""Pictures the Utils and Visualization plugins write: a grid of images (Tile Images), a
layer's feature maps (Feature Visualization), inputs read from a file, a folder or a table
(Inference)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from PIL import Image

from engine.plugins.errors import PluginError

__all__ = ["feature_maps", "inference_inputs", "read_image", "tile"]

IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".bmp", ".gif", ".tif", ".tiff")


def read_image(path: str | Path, size: tuple[int, int] | None = None) -> np.ndarray:
    """An image file as uint8 RGB (H, W, 3), resized to ``size`` (width, height) if given."""
    try:
        with Image.open(path) as image:
            rgb = image.convert("RGB")
            if size is not None and rgb.size != size:
                rgb = rgb.resize(size, Image.Resampling.BILINEAR)
            return np.asarray(rgb, dtype=np.uint8)
    except (OSError, ValueError) as exc:
        raise PluginError(f"image {path}: cannot be read ({exc})") from None


def tile(images: list[np.ndarray], columns: int) -> np.ndarray:
    """Images of one size (H, W, 3) in a grid of ``columns``, row by row, black where none."""
    if not images:
        raise PluginError("no images to tile")
    h, w = images[0].shape[:2]
    columns = max(1, min(columns, len(images)))
    rows = -(-len(images) // columns)
    grid = np.zeros((rows * h, columns * w, 3), np.uint8)
    for k, image in enumerate(images):
        r, c = divmod(k, columns)
        grid[r * h : (r + 1) * h, c * w : (c + 1) * w] = image
    return grid


def feature_maps(value: np.ndarray) -> tuple[list[np.ndarray], list[tuple[float, float]]]:
    """A layer's output for one sample as gray pictures, one per channel (C, H, W), or one
    (H, W) / one row (a vector): each scaled from its own minimum (0) to maximum (255), so
    ``value = min + pixel / 255 * (max - min)``; returns the pictures and each (min, max)."""
    v = np.asarray(value, np.float64)
    if v.ndim == 1:
        maps = [v[None, :]]
    elif v.ndim == 2:
        maps = [v]
    else:
        maps = list(v.reshape((-1, *v.shape[-2:])))
    pictures, ranges = [], []
    for m in maps:
        low, high = float(m.min()), float(m.max())
        span = high - low
        scaled = (m - low) / span if span > 0 else np.zeros_like(m)
        pictures.append(np.round(scaled * 255.0).astype(np.uint8))
        ranges.append((low, high))
    return pictures, ranges


def inference_inputs(source: str, input_name: str) -> tuple[list[str], list[list[str]]]:
    """The samples to infer as an output-table-like ``(header, rows)``: one file; a folder's
    files (sorted, recursively); or a CSV (its own header and rows, file cells relative to
    its folder made absolute)."""
    path = Path(source)
    if not source or not path.exists():
        raise PluginError(f"--input_data {source!r}: no such file or folder")
    if path.is_dir():
        files = sorted(p for p in path.rglob("*") if p.suffix.lower() in IMAGE_SUFFIXES
                       or p.suffix.lower() in (".npy", ".csv"))  # fmt: skip
        if not files:
            raise PluginError(f"--input_data {source}: the folder holds no image, .npy or .csv "
                              f"files")  # fmt: skip
        return [f"{input_name}:image"], [[str(p.resolve())] for p in files]
    if path.suffix.lower() == ".csv":
        import csv

        with open(path, newline="", encoding="utf-8") as f:
            rows = list(csv.reader(f))
        if len(rows) < 2:
            raise PluginError(f"--input_data {source}: the table has no rows")
        header = rows[0]
        base = path.resolve().parent
        body = [[str(base / c) if h.endswith(":image") and c and not Path(c).is_absolute()
                 else c for h, c in zip(header, r, strict=False)] for r in rows[1:]]  # fmt: skip
        names = [h.split(":")[0] for h in header]
        if input_name not in names and not any(n.startswith(f"{input_name}__") for n in names):
            raise PluginError(f"--input_data {source}: the table has no column {input_name!r} "
                              f"(the network's input)")  # fmt: skip
        return header, body
    return [f"{input_name}:image"], [[str(path.resolve())]]

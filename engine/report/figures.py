"""Pictures of the report drawn with matplotlib's Agg canvas (no pyplot, no Qt): sample
images, the confusion matrix and misclassified examples. Each returns PNG bytes and the size in
inches it was drawn for, so the slide places it at its own resolution (crisp, not resampled)."""

from __future__ import annotations

import io
from collections.abc import Sequence

import numpy as np
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from engine.report.curves import draw_tradeoff
from engine.runtime.job_history import JobInfo

__all__ = ["Picture", "image_grid", "confusion_heatmap", "tradeoff_picture", "to_display"]

DPI = 200
Picture = tuple[bytes, tuple[float, float]]  # PNG, (width, height) in inches


def _png(figure: Figure) -> bytes:
    FigureCanvasAgg(figure)
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=DPI, facecolor="white")
    return buffer.getvalue()


def to_display(sample: np.ndarray) -> np.ndarray:
    """A (C, H, W) or (H, W) sample as an (H, W) or (H, W, 3) image in [0, 1] for imshow."""
    arr = np.asarray(sample, dtype=np.float64)
    if arr.ndim == 3:
        arr = arr[0] if arr.shape[0] == 1 else np.moveaxis(arr[:3], 0, -1)
    low, high = float(np.min(arr)), float(np.max(arr))
    return (arr - low) / (high - low) if high > low else np.zeros_like(arr)


def image_grid(
    images: Sequence[np.ndarray],
    captions: Sequence[str],
    width: float,
    height: float,
    columns: int = 5,
) -> Picture:
    """Images in a grid (nearest-neighbour, as pixels), a caption under each."""
    rows = max(1, -(-len(images) // columns))
    cell = min(width / columns, height / rows)
    figure = Figure(figsize=(cell * columns, cell * rows))
    for k, (image, caption) in enumerate(zip(images, captions, strict=True)):
        ax = figure.add_subplot(rows, columns, k + 1)
        ax.imshow(image, cmap="gray", vmin=0, vmax=1, interpolation="nearest")
        ax.set_xticks([])
        ax.set_yticks([])
        if caption:
            ax.set_xlabel(caption, fontsize=9 if cell > 1.2 else 7)
    figure.tight_layout(pad=0.4)
    return _png(figure), (cell * columns, cell * rows)


def confusion_heatmap(matrix: np.ndarray, labels: Sequence[str], size: float) -> Picture:
    """Counts as a heatmap with the number in each cell (rows true, columns predicted)."""
    k = len(labels)
    figure = Figure(figsize=(size, size))
    ax: Axes = figure.add_subplot(1, 1, 1)
    shown = ax.imshow(matrix, cmap="Blues", interpolation="nearest")
    figure.colorbar(shown, ax=ax, fraction=0.046, pad=0.04)
    ticks = range(k)
    font = max(5.0, min(10.0, 120.0 / max(k, 1)))
    ax.set_xticks(ticks, labels, fontsize=font, rotation=90 if k > 12 else 0)
    ax.set_yticks(ticks, labels, fontsize=font)
    ax.set_xlabel("predicted")
    ax.set_ylabel("true")
    if k <= 30:
        peak = float(matrix.max()) if matrix.size else 0.0
        for (i, j), value in np.ndenumerate(matrix):
            ax.text(
                j,
                i,
                str(int(value)),
                ha="center",
                va="center",
                fontsize=font,
                color="white" if peak and value > peak / 2 else "black",
            )
    figure.tight_layout(pad=0.4)
    return _png(figure), (size, size)


def tradeoff_picture(
    jobs: Sequence[JobInfo], statistic: str, width: float, height: float
) -> tuple[Picture, list[str]]:
    """The TRAINING tab's trade-off graph; also the names on the Pareto front."""
    figure = Figure(figsize=(width, height))
    optimal = draw_tradeoff(figure.add_subplot(1, 1, 1), jobs, statistic)
    figure.tight_layout(pad=0.4)
    return (_png(figure), (width, height)), optimal

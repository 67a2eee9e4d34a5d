"""Pictures of the report: the confusion matrix and the trade-off graph drawn with matplotlib's
Agg canvas (no pyplot, no Qt), returned as PNG bytes with the size in inches they were drawn for
(placed at their own resolution, not resampled); sample images as one small PNG each, enlarged
by whole pixels (the slide's :meth:`~engine.report.slides.Deck.image_grid` lays them out with
native captions)."""

from __future__ import annotations

import io
from collections.abc import Sequence

import numpy as np
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from PIL import Image as PILImage

from engine.report.curves import draw_tradeoff
from engine.report.i18n import translate
from engine.runtime.job_history import JobInfo

__all__ = ["Picture", "tile_png", "confusion_heatmap", "tradeoff_picture", "to_display"]

DPI = 200
Picture = tuple[bytes, tuple[float, float]]  # PNG, (width, height) in inches


def _png(figure: Figure, dpi: int = DPI) -> bytes:
    FigureCanvasAgg(figure)
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=dpi, facecolor="white")
    return buffer.getvalue()


def to_display(sample: np.ndarray) -> np.ndarray:
    """A (C, H, W) or (H, W) sample as an (H, W) or (H, W, 3) image in [0, 1] for imshow."""
    arr = np.asarray(sample, dtype=np.float64)
    if arr.ndim == 3:
        arr = arr[0] if arr.shape[0] == 1 else np.moveaxis(arr[:3], 0, -1)
    low, high = float(np.min(arr)), float(np.max(arr))
    return (arr - low) / (high - low) if high > low else np.zeros_like(arr)


def tile_png(image: np.ndarray, pixels: int = 384) -> bytes:
    """One image (from :func:`to_display`) as a PNG, enlarged by whole pixels (crisp, not
    blurred) to about ``pixels`` on its long side, or reduced to it when larger."""
    arr = np.clip(np.asarray(image) * 255.0 + 0.5, 0, 255).astype(np.uint8)
    picture = PILImage.fromarray(arr, "L" if arr.ndim == 2 else "RGB")
    longest = max(picture.size)
    if longest < pixels:
        factor = max(1, pixels // longest)
        picture = picture.resize((picture.width * factor, picture.height * factor),
                                 PILImage.Resampling.NEAREST)  # fmt: skip
    elif longest > pixels:
        picture.thumbnail((pixels, pixels), PILImage.Resampling.LANCZOS)
    buffer = io.BytesIO()
    picture.save(buffer, format="PNG", compress_level=1)
    return buffer.getvalue()


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
    ax.set_xlabel(translate("Report", "predicted"))
    ax.set_ylabel(translate("Report", "true"))
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
    figure.subplots_adjust(left=0.1, right=0.95, bottom=0.1, top=0.97)
    return _png(figure, dpi=150), (size, size)


def tradeoff_picture(
    jobs: Sequence[JobInfo], statistic: str, width: float, height: float
) -> tuple[Picture, list[str]]:
    """The TRAINING tab's trade-off graph; also the names on the Pareto front."""
    figure = Figure(figsize=(width, height))
    optimal = draw_tradeoff(figure.add_subplot(1, 1, 1), jobs, statistic)
    figure.tight_layout(pad=0.4)
    return (_png(figure), (width, height)), optimal

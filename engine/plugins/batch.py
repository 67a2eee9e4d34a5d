"""The batch form of an image explanation: every row of a table (the whole evaluation set),
one picture per row in ``<method>/`` of the result folder, and the table again with a column
naming each row's picture (the app shows them as thumbnails). The class explained is each
row's predicted class (the argmax of the output's ``y'__k`` columns) unless one is given."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from engine.plugins import lime, script_kit, shap, xai
from engine.plugins.errors import PluginError
from engine.plugins.model import JobModel

__all__ = ["explain_rows", "lime_map", "shap_map"]

Explain = Callable[[JobModel, np.ndarray, int], np.ndarray]  # (model, image, class) -> map


def _predicted(header: list[str], row: list[str], output: str) -> int | None:
    names = [h.split(":")[0] for h in header]
    picks = [k for k, n in enumerate(names) if n.startswith(f"{output}__")]
    if not picks:
        return None
    return int(np.argmax([float(row[k]) for k in picks]))


def explain_rows(model: JobModel, table: str, output: str, class_index: int, rows_wanted: int,
                 column: str, explain: Explain, out_csv: str) -> None:  # fmt: skip
    header, rows = script_kit.read_table(table)
    if rows_wanted > 0:
        rows = rows[:rows_wanted]
    folder = Path(column)
    folder.mkdir(exist_ok=True)
    out = []
    for k, row in enumerate(rows):
        image = model.row_input(header, row)
        cls = class_index if class_index >= 0 else _predicted(header, row, output)
        if cls is None:
            raise PluginError(f"--class_index -1: the table has no {output}__k columns to take "
                              f"each row's predicted class from; give a class")  # fmt: skip
        path = folder / f"{k:05d}.png"
        xai.save_overlay(path, image, explain(model, image, cls), scale=4)
        out.append([*row, path.as_posix()])  # relative: the folder may move
        script_kit.progress(k + 1, len(rows))
    script_kit.write_csv(out_csv, [*header, f"{column}:image"], out)


def shap_map(grid: int, samples: int, seed: int, output: str) -> Explain:
    """Kernel SHAP over a ``grid`` x ``grid`` of superpixels, as a map (positive part)."""

    def explain(model: JobModel, image: np.ndarray, cls: int) -> np.ndarray:
        segments = shap.grid_segments(image.shape, grid)
        build = shap.masked_images(image, segments, 0.0)
        score = model.class_score(output, cls)
        phi, _ = shap.kernel_shap(lambda rows: score(build(rows)), np.ones(grid * grid),
                                  np.zeros((1, grid * grid)), samples, seed)  # fmt: skip
        return np.maximum(phi[segments], 0.0)

    return explain


def lime_map(grid: int, samples: int, seed: int, output: str) -> Explain:
    """LIME weights over a ``grid`` x ``grid`` of superpixels, as a map (positive part)."""

    def explain(model: JobModel, image: np.ndarray, cls: int) -> np.ndarray:
        segments = shap.grid_segments(image.shape, grid)
        build = shap.masked_images(image, segments, 0.0)
        score = model.class_score(output, cls)
        weights, _ = lime.lime_weights(lambda z: score(build(z)), grid * grid, samples, seed=seed)
        return np.maximum(weights[segments], 0.0)

    return explain


def run_batch(args: argparse.Namespace, column: str, explain: Callable[[], Any],
              title: str) -> None:  # fmt: skip
    """Run a batch explanation script (:func:`script_kit.batch_parser`'s arguments and
    ``--num_rows``): ``explain()`` gives the per-image explanation; one picture per row in
    ``column/``."""

    def run() -> None:
        model = script_kit.load_model(args.model)
        explain_rows(model, args.input, args.output_variable, args.class_index,
                     args.num_rows, column, explain(), args.output)  # fmt: skip

    script_kit.main(run, title)

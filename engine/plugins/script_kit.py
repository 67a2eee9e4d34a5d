"""What the built-in plugin scripts share: the job a ``--model`` names, progress lines, the
output table, and one clear line instead of a traceback on bad input."""

from __future__ import annotations

import csv
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np

from engine.plugins.model import JobModel, PluginError

__all__ = ["column", "job_of", "load_model", "main", "progress", "read_table", "write_csv"]


def job_of(model: str) -> Path:
    """The job folder of ``--model`` (its ``results.nnp``, or the folder itself). A job
    without ``results.nnp`` (a recurrent network) is the folder the result folder is in."""
    path = Path(model)
    if path.is_dir():
        return path
    if path.exists():
        return path.parent
    here = Path.cwd()
    if (here.parents[1] / "config.json").is_file():
        return here.parents[1]
    raise PluginError(f"--model {model}: no such file")


def load_model(model: str) -> JobModel:
    return JobModel(job_of(model))


def progress(done: int, total: int) -> None:
    print(f"progress: {done}/{total}", flush=True)


def read_table(path: str) -> tuple[list[str], list[list[str]]]:
    try:
        with open(path, newline="", encoding="utf-8") as f:
            rows = list(csv.reader(f))
    except OSError as exc:
        raise PluginError(f"--input {path}: {exc.strerror}") from None
    if not rows:
        raise PluginError(f"--input {path}: the file is empty")
    return rows[0], rows[1:]


def column(header: list[str], rows: list[list[str]], name: str, what: str) -> list[str]:
    """The cells of column ``name`` (``y`` matches ``y:label`` as NNC's header writes it)."""
    names = [h.split(":")[0] for h in header]
    if name in header:
        k = header.index(name)
    elif name in names:
        k = names.index(name)
    else:
        raise PluginError(f"{what} {name!r}: the table has no such column (it has "
                          f"{', '.join(header)})")  # fmt: skip
    return [r[k] if k < len(r) else "" for r in rows]


def numbers(cells: list[str], name: str) -> np.ndarray:
    try:
        return np.array([float(c) for c in cells], dtype=np.float64)
    except ValueError as exc:
        raise PluginError(f"column {name!r}: not a number: {exc}") from None


def write_csv(path: str, header: list[str], rows: list[list[object]]) -> None:
    with open(path, "w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(header)
        writer.writerows(rows)


def main(func: Callable[[], None], title: str) -> None:
    """Run ``func``; bad input is one line on stderr and exit status 1."""
    try:
        func()
    except (PluginError, ValueError, OSError) as exc:
        print(f"{title}: error: {exc}", file=sys.stderr, flush=True)
        sys.exit(1)
    print(f"{title} completed successfully.", flush=True)


def class_scores(
    header: list[str], rows: list[list[str]], target: str, output: str
) -> tuple[np.ndarray, list[tuple[str, np.ndarray]]]:
    """The target labels and each class's scores: ``y'`` alone (binary, class 1) or its
    ``y'__k`` columns (one class against the rest)."""
    truth = numbers(column(header, rows, target, "--target_variable"), target)
    names = [h.split(":")[0] for h in header]
    per_class = [n for n in names if n.startswith(f"{output}__")]
    if per_class:
        return truth, [(n.rpartition("__")[2],
                        numbers(column(header, rows, n, "--output_variable"), n))
                       for n in per_class]  # fmt: skip
    return truth, [("1", numbers(column(header, rows, output, "--output_variable"), output))]


def figure(width: float = 6.0, height: float = 5.0):  # type: ignore[no-untyped-def]
    import matplotlib  # noqa: PLC0415

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # noqa: PLC0415

    return plt.subplots(figsize=(width, height))

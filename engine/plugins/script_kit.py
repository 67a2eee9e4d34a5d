"""What the built-in plugin scripts share: their common parameters (the argparse lines NNC's
protocol reads), the job a ``--model`` names, progress lines, the output table, the batch and
per-class curve scripts, and one clear line instead of a traceback on bad input.

Importing this module is quick (NumPy, no engine network code), so a script's ``--help``
stays fast; the job's network is loaded by :func:`load_model`."""

from __future__ import annotations

import argparse
import csv
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from engine.core import optional
from engine.plugins.errors import PluginError

matplotlib = optional.lazy("matplotlib")
plt = optional.lazy("matplotlib.pyplot")

if TYPE_CHECKING:
    from engine.plugins.model import JobModel

__all__ = [
    "absolute", "add_explained", "add_input", "add_model", "add_num_rows", "add_output",
    "add_seed", "add_superpixels", "batch_parser", "class_curves", "column", "curve_parser",
    "image_parser", "influence_parser", "job_of", "labelled", "load_model", "main", "parser",
    "progress", "read_table", "run_influence", "training_set", "variable_values",
    "write_csv",
]  # fmt: skip


# -- parameters (NNC's protocol: the kind in parentheses, then the default) --------------------
def parser(description: str) -> argparse.ArgumentParser:
    """A script's parser; the description's first line is the plugin's title."""
    return argparse.ArgumentParser(description=description,
                                   formatter_class=argparse.RawTextHelpFormatter)  # fmt: skip


def add_model(p: argparse.ArgumentParser, required: bool = False) -> None:
    p.add_argument("-m", "--model", default="results.nnp", required=required,
                   help="path to model nnp file (model) default=results.nnp")  # fmt: skip


def add_input(p: argparse.ArgumentParser) -> None:
    p.add_argument("-i", "--input", default="output_result.csv",
                   help="path to input csv file (csv) default=output_result.csv")  # fmt: skip


def add_output(p: argparse.ArgumentParser, default: str) -> None:
    kind = "image" if default.lower().endswith((".png", ".jpg")) else "csv"
    p.add_argument("-o", "--output", default=default,
                   help=f"path to output {kind} file ({kind}) default={default}")  # fmt: skip


def add_explained(p: argparse.ArgumentParser, verb: str = "visualize",
                  per_row: bool = False) -> None:  # fmt: skip
    """``--output_variable`` and ``--class_index`` (``per_row``: -1, each row's prediction)."""
    p.add_argument("-ov", "--output_variable", default="y'",
                   help=f"output variable to {verb} (variable) default=y'")  # fmt: skip
    if per_row:
        text = f"class to {verb}, -1 for each row's prediction (int) default=-1"
        p.add_argument("-c", "--class_index", type=int, default=-1, help=text)
    else:
        p.add_argument("-c", "--class_index", type=int, default=0,
                       help=f"class index to {verb} (int) default=0")  # fmt: skip


def add_num_rows(p: argparse.ArgumentParser, flag: str = "-n") -> None:
    p.add_argument(flag, "--num_rows", type=int, default=0,
                   help="rows to process, 0 for all (int) default=0")  # fmt: skip


def add_superpixels(p: argparse.ArgumentParser, samples: int, what: str) -> None:
    """``--grid`` (superpixels per side) and ``--num_samples`` (``what`` names them)."""
    p.add_argument("-g", "--grid", type=int, default=4,
                   help="superpixels per side (int) default=4")  # fmt: skip
    p.add_argument("-n", "--num_samples", type=int, default=samples,
                   help=f"{what} (int) default={samples}")  # fmt: skip


def add_seed(p: argparse.ArgumentParser) -> None:
    p.add_argument("-s", "--seed", type=int, default=0, help="random seed (int) default=0")


def image_parser(description: str, verb: str = "visualize",
                 required_model: bool = False) -> argparse.ArgumentParser:  # fmt: skip
    """A single-image explanation's parser: model, image, output variable and class."""
    p = parser(description)
    add_model(p, required_model)
    p.add_argument("-image", "--image", help="path to input image file (image)", required=True)
    add_explained(p, verb)
    return p


def batch_parser(description: str, verb: str = "visualize") -> argparse.ArgumentParser:
    """A batch explanation's parser: model, input table, output variable, each row's class."""
    p = parser(description)
    add_model(p)
    add_input(p)
    add_explained(p, verb, per_row=True)
    return p


def curve_parser(description: str, default_output: str) -> argparse.ArgumentParser:
    """A per-class curve's parser (ROC, precision-recall): the table, its label and score
    columns, the graph's size."""
    p = parser(description)
    add_input(p)
    p.add_argument("-t", "--target_variable", default="y",
                   help="original label (variable) default=y")  # fmt: skip
    p.add_argument("-v", "--output_variable", default="y'",
                   help="predicted score (variable) default=y'")  # fmt: skip
    p.add_argument("-w", "--width", type=float, default=6,
                   help="graph width in inches (float) default=6")  # fmt: skip
    p.add_argument("-he", "--height", type=float, default=5,
                   help="graph height in inches (float) default=5")  # fmt: skip
    add_output(p, default_output)
    return p


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
    # the network code, slow to import: loaded after a script's --help
    return optional.load("engine.plugins.model").JobModel(job_of(model))


def progress(done: int, total: int) -> None:
    print(f"progress: {done}/{total}", flush=True)


def read_table(path: str, what: str = "--input") -> tuple[list[str], list[list[str]]]:
    try:
        with open(path, newline="", encoding="utf-8") as f:
            rows = list(csv.reader(f))
    except OSError as exc:
        raise PluginError(f"{what} {path}: {exc.strerror}") from None
    if not rows:
        raise PluginError(f"{what} {path}: the file is empty")
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


def absolute(header: list[str], row: list[str], base: Path) -> list[str]:
    """Dataset cells naming files are relative to the dataset CSV's folder."""
    return [str(base / c) if h.endswith(":image") and c and not Path(c).is_absolute() else c
            for h, c in zip(header, row, strict=False)]  # fmt: skip


def labelled(model: JobModel, header: list[str], rows: list[list[str]],
             what: str) -> tuple[np.ndarray, np.ndarray]:  # fmt: skip
    """The network's inputs and the loss's labels of the rows of a table (``what`` names it)."""
    label = model.label_variable()
    names = [h.split(":")[0] for h in header]
    if label not in names:
        raise PluginError(f"{what}: the table has no label column {label!r}")
    k = names.index(label)
    try:
        t = np.array([float(r[k]) for r in rows])
    except (ValueError, IndexError) as exc:
        raise PluginError(f"{what}: column {label!r}: not a number: {exc}") from None
    if not rows:
        raise PluginError(f"{what}: the table has no rows")
    return np.stack([model.row_input(header, r) for r in rows]), t


def training_set(model: JobModel, path: str, limit: int = 0
                 ) -> tuple[list[str], list[list[str]], np.ndarray, np.ndarray]:  # fmt: skip
    """The training table (``path``, or the job's training dataset when empty), its first
    ``limit`` rows (0: all) with file cells made absolute, their inputs and labels."""
    if not path:
        plan = model.job.plan()
        name = plan["optimizers"][0]["dataset"] if plan.get("optimizers") else None
        path = plan.get("datasets", {}).get(name, {}).get("csv") or ""
        if not path:
            raise PluginError("the job names no training dataset CSV; give --train")
    header, rows = read_table(path, "training table")
    if limit > 0:
        rows = rows[:limit]
    base = Path(path).resolve().parent
    rows = [absolute(header, r, base) for r in rows]
    x, t = labelled(model, header, rows, f"training table {path}")
    return header, rows, x, t


def variable_values(header: list[str], rows: list[list[str]], name: str, what: str) -> list[str]:
    """A column's cells, or for a class output written as ``y'__0..y'__n`` (no ``y'``
    column), each row's predicted class (the argmax)."""
    names = [h.split(":")[0] for h in header]
    classes = [k for k, n in enumerate(names) if n.startswith(f"{name}__")]
    if name not in names and classes:
        try:
            picks = [max(classes, key=lambda k: float(r[k])) for r in rows]
        except (ValueError, IndexError) as exc:
            raise PluginError(f"{what} {name!r}: not a number: {exc}") from None
        return [names[k].rpartition("__")[2] for k in picks]
    return [c.strip() for c in column(header, rows, name, what)]


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
    matplotlib.use("Agg")  # before pyplot's first use: no window, no Qt
    return plt.subplots(figsize=(width, height))


def add_training_rows(p: argparse.ArgumentParser) -> None:
    """``--train`` and ``--num_samples``: the training table a data-influence script scores
    (SGD influence, influence functions, TracIn) and how many of its rows."""
    p.add_argument("-t", "--train", default="",
                   help="training dataset csv, empty for the job's (csv)")  # fmt: skip
    p.add_argument("-n", "--num_samples", type=int, default=0,
                   help="training rows to score, 0 for all (int) default=0")  # fmt: skip


def add_sgd_arguments(p: argparse.ArgumentParser) -> None:
    """The replay settings of the SGD influence scripts (images and tabular)."""
    p.add_argument("-e", "--epochs", type=int, default=1,
                   help="epochs replayed, the last ones, as NNC (int) default=1")  # fmt: skip
    p.add_argument("-bs", "--batch_size", type=int, default=0,
                   help="batch size replayed, 0 for the job's (int) default=0")  # fmt: skip
    p.add_argument("-nt", "--n_trials", type=int, default=6,
                   help="shuffles of the replayed epochs averaged (int) default=6")  # fmt: skip
    add_seed(p)


def sgd_scores(
    args: argparse.Namespace,
) -> Callable[[JobModel, np.ndarray, np.ndarray, np.ndarray, np.ndarray], np.ndarray]:
    """The ``scores`` of :func:`run_influence` for SGD influence (:func:`add_sgd_arguments`'
    settings): the job's learning rate, the replayed batch size (the job's unless given)."""

    def scores(model: JobModel, x: np.ndarray, t: np.ndarray, ex: np.ndarray,
               et: np.ndarray) -> np.ndarray:  # fmt: skip
        # the network code, imported once a run starts: --help (how the app reads the
        # parameters) stays fast
        influence = optional.load("engine.plugins.influence")
        tracin = optional.load("engine.plugins.tracin")
        plan = model.job.plan()
        batch = args.batch_size or int(plan.get("batch_size") or 64)
        return influence.sgd_influence(
            model, x, t, ex, et, tracin.learning_rate(model), batch, max(1, args.epochs),
            max(1, args.n_trials), args.seed, progress,
        )  # fmt: skip

    return scores


def influence_parser(description: str, default_output: str) -> argparse.ArgumentParser:
    """The parameters an influence script shares (SGD influence, influence functions): the
    training table scored, the evaluated rows (all, or the one ``--index`` names), how many
    rows are listed."""
    p = parser(description)
    add_model(p)
    add_input(p)
    p.add_argument("-ix", "--index", type=int, default=-1,
                   help="row of the input whose loss is traced, -1 for all rows (int) "
                        "default=-1")  # fmt: skip
    add_training_rows(p)
    p.add_argument("-k", "--top", type=int, default=0,
                   help="rows listed, most harmful first, 0 for all (int) default=0")  # fmt: skip
    add_output(p, default_output)
    return p


def run_influence(args: argparse.Namespace, title: str,
                  scores: Callable[[JobModel, np.ndarray, np.ndarray, np.ndarray, np.ndarray],
                                   np.ndarray]) -> None:  # fmt: skip
    """Run an influence script (:func:`influence_parser`'s arguments): ``scores(model, train
    x, train t, evaluated x, evaluated t)``, one per training row, listed ascending as NNC
    lists them (the most harmful first) with the training row's cells (file cells absolute,
    so images show as thumbnails) and its index in the training table."""

    def run() -> None:
        model = load_model(args.model)
        header, rows, x, t = training_set(model, args.train, args.num_samples)
        eh, erows = read_table(args.input)
        if args.index >= 0:
            if args.index >= len(erows):
                raise PluginError(f"--index {args.index}: the input has rows 0 to "
                                  f"{len(erows) - 1}")  # fmt: skip
            erows = [erows[args.index]]
        ex, et = labelled(model, eh, erows, f"--input {args.input}")
        found = scores(model, x, t, ex, et)
        order = np.argsort(found, kind="stable")[: args.top if args.top > 0 else None]
        write_csv(args.output, [*header, "influence", "datasource_index"],
                  [[*rows[i], f"{found[i]:.6g}", int(i)] for i in order])  # fmt: skip

    main(run, title)


Curve = Callable[[np.ndarray, np.ndarray], tuple[float, np.ndarray, np.ndarray, np.ndarray]]


def class_curves(args: argparse.Namespace, curve: Curve, summary: tuple[str, str],
                 points: tuple[str, str, str], step: bool = False) -> Any:  # fmt: skip
    """A curve per class of :func:`class_scores` (:func:`curve_parser`'s arguments):
    ``curve(positive, score) -> (summary value, x, y, thresholds)``. Writes ``--output`` (the
    summary per class: ``summary`` = its column and legend names) and ``points`` = (file, x
    column, y column), each point; returns the axes (a line per class, labelled) to finish."""
    header, rows = read_table(args.input)
    truth, classes = class_scores(header, rows, args.target_variable, args.output_variable)
    fig, ax = figure(args.width, args.height)
    table, found = [], []
    for cls, score in classes:
        positive = truth == float(cls)
        value, xs, ys, thresholds = curve(positive, score)
        table.append([cls, f"{value:.6f}", int(positive.sum()), int((~positive).sum())])
        found += [[cls, f"{t:.6g}", f"{x:.6f}", f"{y:.6f}"]
                  for t, x, y in zip(thresholds, xs, ys, strict=True)]  # fmt: skip
        label = f"class {cls} ({summary[1]} {value:.4f})"
        if step:
            ax.step(xs, ys, where="post", label=label)
        else:
            ax.plot(xs, ys, label=label)
    write_csv(args.output, ["class", summary[0], "positives", "negatives"], table)
    write_csv(points[0], ["class", "threshold", points[1], points[2]], found)
    return fig, ax

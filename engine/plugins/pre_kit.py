"""What the pre-process plugin scripts share: NNC's output options (``--output-dir``,
``--shuffle``, two output files with their percentages, and our ``--seed``), writing the split
dataset, and one clear line instead of a traceback on bad input."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path

from engine.plugins.create_dataset import split_rows, write_csv
from engine.plugins.errors import PluginError

__all__ = ["add_output_arguments", "main", "output_dir", "progress", "save_split"]


def add_output_arguments(parser: argparse.ArgumentParser) -> None:
    """NNC's output options of every Create Dataset plugin (train / validation here)."""
    parser.add_argument("-o", "--output-dir", required=True, help="output directory (dir)")
    parser.add_argument(
        "-s", "--shuffle", action="store_true", help="shuffle the rows (bool) default=True"
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of the shuffle (int) default=0")
    parser.add_argument(
        "-f1",
        "--output_file1",
        default="train.csv",
        help="output file name 1 (csv) default=train.csv",
    )
    parser.add_argument(
        "-r1",
        "--ratio1",
        type=float,
        default=80,
        help="output file 1 ratio as a percentage (int) default=80",
    )
    parser.add_argument(
        "-f2",
        "--output_file2",
        default="validation.csv",
        help="output file name 2 (csv) default=validation.csv",
    )
    parser.add_argument(
        "-r2",
        "--ratio2",
        type=float,
        default=20,
        help="output file 2 ratio as a percentage (int) default=20",
    )


def output_dir(args: argparse.Namespace) -> Path:
    folder = Path(args.output_dir)
    if folder.exists() and not folder.is_dir():
        raise PluginError(f"--output-dir {folder}: a file, not a folder")
    for option in ("output_file1", "output_file2"):
        name = getattr(args, option)
        if name and (Path(name).is_absolute() or ".." in Path(name).parts):
            raise PluginError(f"--{option} {name}: a file name in the output folder")
    return folder


def save_split(
    args: argparse.Namespace, header: list[str], groups: list[list[list[object]]]
) -> list[Path]:
    """Write the rows (in groups: all the rows of one source row go to the same file) as
    ``output_file1`` and ``output_file2``; returns the files written."""
    first, second = split_rows(
        len(groups),
        args.ratio1,
        args.ratio2,
        args.shuffle,
        args.seed,
        (args.output_file1, args.output_file2),
    )
    folder = output_dir(args)
    written = []
    for name, picks in ((args.output_file1, first), (args.output_file2, second)):
        if picks:
            path = folder / name
            write_csv(path, header, [row for k in picks for row in groups[k]])
            written.append(path)
            print(f"{name}: {sum(len(groups[k]) for k in picks)} rows", flush=True)
    return written


def progress(done: int, total: int) -> None:
    print(f"progress: {done}/{total}", flush=True)


def main(func: Callable[[], None], title: str) -> None:
    """Run ``func``; bad input is one line on stderr and exit status 1."""
    try:
        func()
    except (PluginError, ValueError, OSError) as exc:
        print(f"{title}: error: {exc}", file=sys.stderr, flush=True)
        sys.exit(1)
    print(f"{title} completed successfully.", flush=True)

"""``neurocanvas dataset``: inspect dataset CSVs, make them from folders, generate built-in ones.

- ``dataset info CSV [--check] [--json]``: rows and variables (header, type, shape), like NNC's
  DATASET tab; ``--check`` loads every row so a bad file anywhere is reported.
- ``dataset create --from-folders DIR -o OUT [--size 28|WxH] [--channel gray|rgb]
  [--ratio PERCENT] [--seed N]``: one sub-folder per class -> ``OUT/training.csv`` and
  ``OUT/validation.csv``.
- ``dataset builtin NAME`` / ``dataset builtin --list``: generate a built-in dataset into the user
  cache folder and print its CSV paths.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING

from engine.cli import UserError

if TYPE_CHECKING:
    from engine.data.progress import Progress

ACTIONS = ("info", "create", "builtin")


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> argparse.ArgumentParser:
    parser = sub.add_parser(
        "dataset", help="inspect, create and generate datasets (NNC dataset CSVs)",
        description="Inspect NNC dataset CSVs, make them from image folders, and generate the "
        "built-in datasets.",
    )  # fmt: skip
    actions = parser.add_subparsers(dest="dataset_action", metavar="ACTION")

    info = actions.add_parser("info", help="rows and variables of a dataset CSV")
    info.add_argument("csv", help="dataset CSV file")
    info.add_argument("--check", action="store_true", help="load every row to find bad files")
    info.add_argument("--json", action="store_true", help="print JSON instead of a table")

    create = actions.add_parser("create", help="make a dataset from one folder per class")
    create.add_argument("--from-folders", dest="source", required=True, metavar="DIR",
                        help="folder with one sub-folder of images per class")  # fmt: skip
    create.add_argument("-o", "--output", required=True, metavar="OUT_DIR",
                        help="new (or empty) folder for the images and CSVs")  # fmt: skip
    create.add_argument(
        "--size",
        default=None,
        metavar="N|WxH",
        help="resize every image, e.g. 28 or 32x24 (default: keep the size)",
    )
    create.add_argument("--channel", choices=("gray", "rgb"), default="rgb")
    create.add_argument(
        "--ratio",
        type=float,
        default=80.0,
        metavar="PERCENT",
        help="percentage of each class used for training (default 80)",
    )
    create.add_argument("--seed", type=int, default=0, help="seed of the split (default 0)")

    builtin = actions.add_parser("builtin", help="generate a built-in dataset, print its CSVs")
    builtin.add_argument("name", nargs="?", help="digits, digits-4or9, iris, mnist, ...")
    builtin.add_argument("--list", action="store_true", help="list the built-in datasets")
    parser.set_defaults(_dataset_parser=parser)
    return parser


def run(args: argparse.Namespace) -> int:
    from engine.data.errors import DatasetError  # keep `--help` fast

    action = getattr(args, "dataset_action", None)
    if action is None:
        args._dataset_parser.print_help()
        return 2
    try:
        return {"info": _info, "create": _create, "builtin": _builtin}[action](args)
    except DatasetError as exc:
        raise UserError(str(exc)) from None


def _progress(desc: str) -> Progress | None:
    from engine.data.progress import bar

    return bar(desc) if sys.stderr.isatty() else None


def _info(args: argparse.Namespace) -> int:
    from engine.data import open_dataset

    ds = open_dataset(args.csv, cache=False)
    if args.check:
        ds.check(_progress("checking rows"))
    variables = [
        {"name": v.name, "header": v.header, "type": v.kind,
         "shape": list(v.shape) if v.shape is not None else None, "dtype": v.dtype}
        for v in ds.variables
    ]  # fmt: skip
    ds.close()
    if args.json:
        print(json.dumps({"path": str(ds.path), "rows": ds.size, "variables": variables}, indent=2))
        return 0
    print(f"CSV        {ds.path}")
    print(f"Rows       {ds.size}")
    print(f"Variables  {len(variables)}")
    table = [("Name", "Header", "Type", "Shape")] + [
        (v.name, v.header, v.kind + (f" ({v.dtype})" if v.is_image else ""),
         ",".join(map(str, v.shape)) if v.shape is not None else "?")
        for v in ds.variables
    ]  # fmt: skip
    widths = [max(len(row[i]) for row in table) for i in range(4)]
    for row in table:
        print("  " + "  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip())
    if args.check:
        print(f"Checked    all {ds.size} rows load")
    return 0


def _parse_size(text: str | None) -> tuple[int, int] | None:
    if text is None:
        return None
    parts = text.lower().split("x")
    try:
        values = [int(p) for p in parts]
    except ValueError:
        values = []
    if len(values) not in (1, 2) or min(values, default=0) < 1:
        raise UserError(f"--size must be N or WIDTHxHEIGHT with positive integers. "
                        f"Received: --size {text}")  # fmt: skip
    return (values[0], values[-1])


def _create(args: argparse.Namespace) -> int:
    from engine.data.folders import create_from_folders

    if not 0 < args.ratio <= 100:
        raise UserError(f"--ratio is the training percentage, in (0, 100]. "
                        f"Received: --ratio {args.ratio:g}")  # fmt: skip
    paths = create_from_folders(
        args.source, args.output, size=_parse_size(args.size), channel=args.channel,
        ratio=args.ratio / 100.0, seed=args.seed, progress=_progress("converting images"),
    )  # fmt: skip
    for split, path in paths.items():
        rows = sum(1 for _ in path.open(encoding="utf-8")) - 1
        print(f"{split:<11} {path}  ({rows} rows)")
    return 0


def _builtin(args: argparse.Namespace) -> int:
    from engine.data import builtin

    if args.list or not args.name:
        if not args.list:
            raise UserError(f"name a built-in dataset: {', '.join(builtin.names())} (or --list)")
        for name, spec in builtin.BUILTINS.items():
            print(f"{name:<14} {spec.description}")
        return 0
    paths = builtin.ensure(args.name, progress=sys.stderr.isatty())
    for split, path in paths.items():
        print(f"{split:<11} {path}")
    return 0

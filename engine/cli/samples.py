"""``neurocanvas samples``: list the sample projects, or copy one to a folder of your own."""

from __future__ import annotations

import argparse
from pathlib import Path

from engine.cli import UserError
from engine.formats.samples import SampleError, copy_sample, sample_projects, samples_folder


def add_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    parser = sub.add_parser(
        "samples",
        help="list the sample projects, or copy one to a folder",
        description="Without arguments, list the sample projects that come with NeuroCanvas. "
        "With NAME, copy that sample into FOLDER (default: the current folder) to open, edit "
        "and train there: the installed samples are never changed.",
    )
    parser.add_argument("name", nargs="?", metavar="NAME", help="the sample to copy")
    parser.add_argument("folder", nargs="?", type=Path, default=Path("."), metavar="FOLDER")
    parser.add_argument("--force", action="store_true", help="overwrite an existing copy")
    return parser


def run(args: argparse.Namespace) -> int:
    if args.name is None:
        samples = sample_projects()
        if not samples:
            raise UserError("no sample projects installed")
        print(f"{len(samples)} sample projects in {samples_folder()}:")
        for path in samples:
            print(f"  {path.stem}")
        print("copy one to a folder: neurocanvas samples NAME FOLDER")
        return 0
    try:
        target = copy_sample(args.name, args.folder, args.force)
    except SampleError as exc:
        raise UserError(str(exc)) from None
    except OSError as exc:
        raise UserError(f"{args.folder}: {exc.strerror or exc}") from None
    print(f"wrote {target}")
    return 0

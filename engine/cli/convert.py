"""``neurocanvas convert IN OUT``: between native ``.ncproj`` and NNC ``.sdcproj``.

IN is read by content (an NNC job folder's ``network.ini`` works); OUT's format follows its
extension: ``.sdcproj`` or ``.ini`` gives NNC's INI, ``.ncproj`` the native JSON.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from engine.cli import UserError

OUT_SUFFIXES = (".ncproj", ".sdcproj", ".ini")


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> argparse.ArgumentParser:
    parser: argparse.ArgumentParser = sub.add_parser(
        "convert",
        help="convert a project between .ncproj and .sdcproj",
        description="Convert a project between NeuroCanvas (.ncproj) and NNC (.sdcproj). "
        "The input format is detected by content; the output format follows OUT's extension.",
    )
    parser.add_argument("input", metavar="IN", help="project file (.ncproj, .sdcproj, network.ini)")
    parser.add_argument("output", metavar="OUT", help="file to write: .ncproj, .sdcproj or .ini")
    parser.add_argument("--force", "-f", action="store_true", help="overwrite OUT if it exists")
    return parser


def run(args: argparse.Namespace) -> int:
    from engine.formats import ProjectFileError, load_project, save_project

    source, target = Path(args.input), Path(args.output)
    if target.suffix.lower() not in OUT_SUFFIXES:
        raise UserError(
            f"{target}: unknown output format {target.suffix or '(no extension)'!r}; "
            f"use one of {', '.join(OUT_SUFFIXES)}"
        )
    if target.exists() and not args.force:
        raise UserError(f"{target} exists; pass --force to overwrite it")
    if target.exists() and source.exists() and target.resolve() == source.resolve():
        raise UserError(f"{target}: input and output are the same file")
    try:
        project = load_project(source)
        save_project(project, target)
    except ProjectFileError as exc:
        raise UserError(str(exc)) from None
    layers = sum(len(n.layers) for n in project.networks)
    nets = len(project.networks)
    print(
        f"wrote {target} ({nets} network{'s' * (nets != 1)}, {layers} layer{'s' * (layers != 1)})"
    )
    return 0

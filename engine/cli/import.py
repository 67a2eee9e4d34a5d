"""``neurocanvas import MODEL -o PROJECT``: an ONNX, NNP or nntxt model as an editable project.

Writes the project (``.ncproj``, or ``.sdcproj`` by extension) and its parameters beside it as
``<stem>_parameters.npz`` (``neurocanvas forward PROJECT --params`` and
``neurocanvas train PROJECT --params`` read them) and, for a model with parameters (.nnp,
.onnx), a finished job folder ``<stem>.files/<date_time>/`` that ``neurocanvas evaluate`` runs.
Nothing is written when the model cannot be converted: the one-line error names the node or
parameter. ``--summary`` (ONNX) lists the operators, how each maps to layers and what is
refused, and writes nothing.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from engine.cli import UserError


def add_parser(
    sub: argparse._SubParsersAction[argparse.ArgumentParser],
) -> argparse.ArgumentParser:
    parser: argparse.ArgumentParser = sub.add_parser(
        "import", help="import an ONNX, NNP or nntxt model as a project",
        description="Convert a model file (.onnx, .nnp, .nntxt) into an editable project.",
    )  # fmt: skip
    parser.add_argument("model", metavar="MODEL", help="model file (.onnx, .nnp, .nntxt)")
    parser.add_argument("-o", "--output", metavar="PROJECT",
                        help="project file to write (.ncproj or .sdcproj)")  # fmt: skip
    parser.add_argument("--force", action="store_true", help="replace an existing project")
    parser.add_argument("--summary", action="store_true",
                        help="list the ONNX model's operators, how each maps to NNC layers and "
                        "what is refused; writes nothing")  # fmt: skip
    parser.add_argument("--json", action="store_true", help="with --summary: print JSON")
    return parser


def run(args: argparse.Namespace) -> int:
    from engine.formats import ProjectFileError
    from engine.model_import import (
        ImportError_,
        import_model,
        parameters_path,
    )

    if args.summary:
        return _summary(args)
    if not args.output:
        raise UserError("-o PROJECT is required (or --summary to only list what the "
                        "model would become)")  # fmt: skip
    out = Path(args.output)
    if not args.force:
        for path in (out, parameters_path(out)):
            if path.exists():
                raise UserError(f"{path} exists; pass --force to replace it")
    try:
        written = import_model(args.model, out)
    except (ImportError_, ProjectFileError) as exc:
        raise UserError(str(exc)) from None
    for path in written:
        print(f"wrote {path}")
    return 0


def _summary(args: argparse.Namespace) -> int:
    """``--summary``: print what the model would become; exit 2 when it would not import."""
    import json

    from engine.model_import import ImportError_, model_kind

    path = Path(args.model)
    if not path.is_file():
        raise UserError(f"{path}: no such file")
    if model_kind(path) != "onnx":
        raise UserError(f"{path}: --summary reads ONNX models (an NNP's functions are "
                        "NNC's layers one to one)")  # fmt: skip
    from engine.model_import.onnx_summary import format_summary, summarize_onnx

    try:
        summary = summarize_onnx(path)
    except ImportError_ as exc:
        raise UserError(str(exc)) from None
    print(json.dumps(summary.to_json(), indent=1) if args.json else format_summary(summary))
    if not summary.imports:
        why = [f"{len(summary.refused)} node(s) refused"] if summary.refused else []
        raise UserError(f"{path}: does not import ({'; '.join(why + summary.problems)})")
    return 0

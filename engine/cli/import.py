"""``neurocanvas import MODEL -o PROJECT``: an ONNX, NNP or nntxt model as an editable project.

Writes the project (``.ncproj``, or ``.sdcproj`` by extension) and its parameters beside it as
``<stem>_parameters.npz`` (``neurocanvas forward PROJECT --params`` and
``neurocanvas train PROJECT --params`` read them) and, for a model with parameters (.nnp,
.onnx), a finished job folder ``<stem>.files/<date_time>/`` that ``neurocanvas evaluate`` runs.
Nothing is written when the model cannot be converted: the one-line error names the node or
parameter.
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
    parser.add_argument("-o", "--output", required=True, metavar="PROJECT",
                        help="project file to write (.ncproj or .sdcproj)")  # fmt: skip
    parser.add_argument("--force", action="store_true", help="replace an existing project")
    return parser


def run(args: argparse.Namespace) -> int:
    from engine.formats import ProjectFileError  # noqa: PLC0415
    from engine.model_import import (  # noqa: PLC0415
        ImportError_,
        import_model,
        parameters_path,
    )

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

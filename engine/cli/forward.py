"""``neurocanvas forward PROJECT_OR_JOB --input FILE...``: inference on image/CSV/npy files.

As nnabla's ``forward``, each file goes through every executor of the CONFIG in turn (or those
``--executor`` names), honouring their Number of Evaluations and Need Back Propagation;
``--network`` runs one network instead. A job folder uses its trained (best or last)
parameters; a project ``--params FILE.npz`` (or fresh parameters). Prints each file's outputs
per executor (and the predicted class of a vector output), or JSON with ``--json``: one entry
per file and executor.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from engine.cli import UserError, project_error


def add_parser(
    sub: argparse._SubParsersAction[argparse.ArgumentParser],
) -> argparse.ArgumentParser:
    parser: argparse.ArgumentParser = sub.add_parser(
        "forward", help="run a trained network on image/CSV/npy files",
        description="Inference on files with a job's trained parameters (or a project).",
    )  # fmt: skip
    parser.add_argument("source", metavar="PROJECT_OR_JOB", help="job folder or project file")
    # "extend": `-i a.png -i b.png` runs both files (the default "store" kept only the last).
    parser.add_argument("--input", "-i", nargs="+", action="extend", default=[],
                        metavar="FILE", help="one sample per file (NAME=FILE when the executors "
                        "read several variables); repeatable")  # fmt: skip
    parser.add_argument(
        "--count",
        "-n",
        type=int,
        default=1,
        metavar="N",
        help="runs of executors that read no file (a GAN's generator)",
    )
    parser.add_argument("--save", metavar="DIR", help="write image outputs (C, H, W) as PNG "
                        "files here, as evaluate pictures them (x255)")  # fmt: skip
    which = parser.add_mutually_exclusive_group()
    which.add_argument("--executor", "-e", action="append", metavar="NAME",
                       help="executor to run (default: every executor, in CONFIG order); "
                       "repeatable")  # fmt: skip
    which.add_argument("--network", help="run this network once instead of the executors")
    parser.add_argument("--checkpoint", choices=("best", "last"), default="best")
    parser.add_argument("--params", metavar="FILE.npz", help="parameters for a project")
    parser.add_argument(
        "--no-normalize",
        action="store_true",
        help="do not divide 8-bit images by 255 (Image Normalization off)",
    )
    parser.add_argument("--device", choices=("cpu", "gpu", "auto"), default=None)
    parser.add_argument("--seed", type=int, help="seed of generators and dropout "
                        "(default: the job's seed; a project's is random)")  # fmt: skip
    parser.add_argument("--json", action="store_true", help="print JSON")
    return parser


def run(args: argparse.Namespace) -> int:
    from engine.core import backend
    from engine.runtime.inference import forward_files

    try:
        backend.set_device(args.device)
        predictions = forward_files(
            args.source, args.input, network=args.network, executors=args.executor,
            checkpoint=args.checkpoint, params=args.params, normalize=not args.no_normalize,
            seed=args.seed, count=args.count,
        )  # fmt: skip
    except _errors() as exc:
        raise project_error(args.source, exc) from None
    saved = _save_pictures(predictions, Path(args.save)) if args.save else {}
    if args.json:
        print(json.dumps([p.to_json() for p in predictions], indent=2))
        return 0
    for p in predictions:  # FILE(S) <tab> EXECUTOR (or network) <tab> OUTPUT[ class K] <tab> values
        files = ", ".join(p.inputs.values()) or "-"  # "-": the executor reads no file
        for name, value in p.outputs.items():
            if (id(p), name) in saved:
                print(f"{files}\t{p.executor or p.network}\t{name}\t{saved[id(p), name]}")
                continue
            flat = value.reshape(-1)
            shown = " ".join(f"{v:.6g}" for v in flat[:16]) + (" ..." if flat.size > 16 else "")
            best = f" class {int(np.argmax(flat))}" if value.ndim == 1 and flat.size > 1 else ""
            print(f"{files}\t{p.executor or p.network}\t{name}{best}\t{shown}")
    return 0


def _save_pictures(predictions: list, folder: Path) -> dict[tuple[int, str], Path]:
    """Each image output as ``DIR/<k>_<executor>_<output>.png``; {(prediction, output): path}."""
    from engine.data.writers import save_image
    from engine.runtime.evaluator import picture

    saved = {}
    for k, p in enumerate(predictions):
        for name, value in p.outputs.items():
            if value.ndim == 3 and value.shape[0] in (1, 3):
                path = folder / f"{k:04d}_{p.executor or p.network}_{_safe(name)}.png"
                try:
                    save_image(path, picture(value))
                except OSError as exc:
                    raise UserError(f"--save {folder}: {exc.strerror or exc}") from None
                saved[id(p), name] = path
    return saved


def _safe(name: str) -> str:
    """An output name as a file name part (NNC's outputs end with ')."""
    return "".join(c if c.isalnum() or c in "-_" else "_" for c in name).strip("_") or "output"


def _errors() -> tuple[type[BaseException], ...]:
    from engine.cli.evaluate import _errors as evaluate_errors

    return evaluate_errors()

"""``neurocanvas evaluate JOB_DIR [--dataset NAME] [--checkpoint best|last] [--threads N]``.

NNC's Evaluate. Runs the job's executors, each batch through every executor in turn as nnabla's
``forward``, over a dataset (the first executor's, a dataset link of the project by name, a CSV
file or a built-in dataset ``builtin:<name>/<split>``) and writes ``output_result.csv``,
``confusion_matrix_<var>.csv`` and ``evaluation.json`` into the job folder
(:mod:`engine.runtime.evaluator`). ``--threads N`` forces a thread count (default: one or every
core, whichever its first batches find faster: engine/core/threads.py).
"""

from __future__ import annotations

import argparse
import json
import sys

from engine.cli import project_error
from engine.cli.train import add_threads_option, find_blocking_early, force_threads
from engine.core.messages import text_of
from engine.core.ops import _jit


def add_parser(
    sub: argparse._SubParsersAction[argparse.ArgumentParser],
) -> argparse.ArgumentParser:
    parser: argparse.ArgumentParser = sub.add_parser(
        "evaluate", help="evaluate a trained job (NNC's Evaluate)",
        description="Run a job's executors over a dataset; write output_result.csv, "
        "confusion matrices and evaluation.json into the job folder.",
    )  # fmt: skip
    parser.add_argument("job", metavar="JOB_DIR", help="job folder made by neurocanvas train")
    parser.add_argument(
        "--dataset",
        metavar="NAME",
        help="dataset link name (default: the executor's), a CSV file or builtin:<name>/<split>",
    )
    parser.add_argument(
        "--checkpoint",
        choices=("best", "last"),
        default="best",
        help="parameters of the best epoch (default, as NNC) or the last",
    )
    parser.add_argument("--device", choices=("cpu", "gpu", "auto"), default=None)
    parser.add_argument("--json", action="store_true", help="print the summary as JSON")
    parser.add_argument("--events", action="store_true",
                        help="a failure is also a JSON error event on stdout (the app shows it "
                        "in its language)")  # fmt: skip
    add_threads_option(parser)
    return parser


def prepare() -> None:
    """Set the compiled kernels up on a thread while the command imports and reads the job
    (issue 33's cold start): called as soon as the command line names ``evaluate``."""
    _jit.preload()
    find_blocking_early()


def run(args: argparse.Namespace) -> int:
    _jit.preload()  # when called without prepare() (tests, Python callers): the same set-up
    from engine.core import backend
    from engine.runtime.evaluator import evaluate

    force_threads(args)
    try:
        backend.set_device(args.device)
        result = evaluate(args.job, dataset=args.dataset, checkpoint=args.checkpoint)
    except _errors() as exc:
        if args.events:
            from engine.runtime.events import EventSink

            EventSink(None, sys.stdout).emit("error", message=text_of(exc))
        raise project_error(args.job, exc) from None
    if args.json:
        print(json.dumps(result.summary, indent=2))
        return 0
    print(f"evaluated {result.rows} rows of {result.dataset} with the {result.checkpoint} "
          f"parameters -> {result.output_file}")  # fmt: skip
    for name, m in result.summary.get("classification", {}).items():
        print(f"{name}: accuracy {m['accuracy']:.4f}, avg. precision {m['avg_precision']:.4f}, "
              f"avg. recall {m['avg_recall']:.4f}, avg. F-measure {m['avg_f_measure']:.4f} "
              f"({m['classes']} classes)")  # fmt: skip
    for name, m in result.summary.get("regression", {}).items():
        print(f"{name}: MAE {m['mae']:.6g}, RMSE {m['rmse']:.6g}, R2 {m['r2']:.4f}")
    for path in result.confusion_files:
        print(f"confusion matrix: {path}")
    return 0


def _errors() -> tuple[type[BaseException], ...]:
    from engine.core.backend import DeviceError
    from engine.core.gpu import DeviceFailure
    from engine.data import DatasetError
    from engine.formats import ProjectFileError
    from engine.nn.parameter_file import ParameterFileError
    from engine.runtime.job import JobError
    from engine.runtime.metrics import MetricsError
    from engine.runtime.program import ProgramError

    return (DeviceError, DeviceFailure, DatasetError, ProjectFileError, ParameterFileError,
            JobError, MetricsError, ProgramError)  # fmt: skip

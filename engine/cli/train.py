"""``neurocanvas train PROJECT``: what NNC's Run button does, from the command line.

::

    neurocanvas train PROJECT [-o JOB_DIR] [--epochs N] [--device cpu|gpu|auto] [--events]
                              [--seed N] [--loss-scaling dynamic|none] [--threads N]
    neurocanvas train --resume JOB_DIR [--epochs N] [--events]
    mpirun -n K neurocanvas train PROJECT --distributed [--lr-scaling linear|none] [--lr-warmup E]

PROJECT is a ``.ncproj`` or an NNC ``.sdcproj`` (any extension, by content). The job folder
(default ``<project>.files/<YYYYMMDD_HHMMSS>``) is described in docs/job-folder.md §6.
With ``--events`` stdout carries one JSON object per line (:mod:`engine.runtime.events`);
otherwise a progress bar is drawn on a terminal. A line ``stop`` on stdin, Ctrl-C or SIGTERM
saves a checkpoint and ends the run cleanly (exit 0, status ``stopped``); ``--resume`` continues
it exactly. NaN/inf losses and other failures exit 1 with a one-line message.
"""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from pathlib import Path
from typing import Any

from engine.cli import UserError, one_line, project_error
from engine.core.messages import text_of
from engine.core.ops import _jit
from engine.warmup import ahead


def add_parser(
    sub: argparse._SubParsersAction[argparse.ArgumentParser],
) -> argparse.ArgumentParser:
    parser: argparse.ArgumentParser = sub.add_parser(
        "train", help="train a project into a job folder (NNC's Run)",
        description="Train a project as NNC's Run button does: every optimizer, monitor and "
        "checkpoint rule of its CONFIG. Results go to a job folder.",
    )  # fmt: skip
    parser.add_argument("project", nargs="?", metavar="PROJECT",
                        help="project file (.ncproj, .sdcproj, network.ini)")  # fmt: skip
    parser.add_argument(
        "-o",
        "--output",
        metavar="JOB_DIR",
        help="job folder to create (default: <project>.files/<date_time>)",
    )
    parser.add_argument("--numbered", action="store_true",
                        help="with -o: a JOB_DIR that is taken gives way to the next free "
                        "JOB_DIR_2, JOB_DIR_3... (the start event names the folder)")  # fmt: skip
    parser.add_argument("--epochs", type=int, metavar="N", help="override Max Epoch")
    parser.add_argument("--device", choices=("cpu", "gpu", "auto"), default=None,
                        help="array backend (default: NEUROCANVAS_DEVICE or auto)")  # fmt: skip
    parser.add_argument("--events", action="store_true",
                        help="print one JSON event per line on stdout (for the app)")  # fmt: skip
    parser.add_argument("--resume", metavar="JOB_DIR",
                        help="continue the job in JOB_DIR from its last checkpoint")  # fmt: skip
    parser.add_argument("--seed", type=int, metavar="N",
                        help="random seed (default: a random one, stored in the job)")  # fmt: skip
    parser.add_argument("--loss-scaling", choices=("dynamic", "none"), default="dynamic",
                        help="precision Half: nnabla's dynamic loss scaling (default) or none, "
                        "as NNC's trainer")  # fmt: skip
    parser.add_argument("--params", metavar="FILE.npz",
                        help="start from these parameters (fine-tune an imported model, "
                        "neurocanvas import writes <stem>_parameters.npz)")  # fmt: skip
    add_threads_option(parser)
    parser.add_argument(
        "--distributed",
        action="store_true",
        help="one process of a data-parallel run started by mpirun -n K: "
        "BatchSize per process, gradients averaged (also with --resume)",
    )
    parser.add_argument(
        "--lr-scaling",
        choices=("linear", "none"),
        default="none",
        help="--distributed: multiply the learning rate by K (linear) or keep it (none, default)",
    )
    parser.add_argument("--lr-warmup", type=int, default=0, metavar="EPOCHS",
                        help="--distributed --lr-scaling linear: reach the scaled rate "
                        "linearly over EPOCHS epochs (default 0)")  # fmt: skip
    return parser


def add_threads_option(parser: argparse.ArgumentParser) -> None:
    """``--threads N``: a forced thread count (also NEUROCANVAS_THREADS=N); without it the
    engine times one thread against every core and keeps the faster (engine/core/threads.py)."""
    parser.add_argument("--threads", type=_thread_count, metavar="N|auto",
                        help="run on N threads; default (auto): one or every core, whichever "
                        "the steps find faster, checked again as the run goes (the numbers "
                        "are the same on any count; with a BLAS other than NumPy's OpenBLAS "
                        "the default is every core)")  # fmt: skip


def _thread_count(text: str) -> int | str:
    if text.strip() == "auto":
        return "auto"
    if not text.strip().isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer. Received: {text}")
    return int(text)


def force_threads(args: argparse.Namespace) -> None:
    """Apply ``--threads N`` or ``--threads auto`` if given."""
    if getattr(args, "threads", None):
        from engine.core import threads

        if args.threads == "auto":
            threads.adapt()
        else:
            threads.force(args.threads)


def prepare() -> None:
    """Set the compiled kernels up on a thread while the command imports and reads (issue 33's
    cold start): called as soon as the command line names ``train``."""
    _jit.preload()
    ahead.start()  # a fresh machine: the step's later kernels compiled in a second process
    find_blocking_early()


def find_blocking_early() -> None:
    """Find OpenBLAS's blocking (engine/core/products.py: about 20 ms of small products) on a
    thread while the command imports and reads, not in its first step."""

    def find() -> None:
        from engine.core import products

        products.blocking()

    threading.Thread(target=find, name="BLAS blocking", daemon=True).start()


def run(args: argparse.Namespace) -> int:
    _jit.preload()  # when called without prepare() (tests, Python callers): the same set-up
    ahead.start()
    from engine.core import backend
    from engine.runtime import run as runner

    try:
        _check_arguments(args)
    except UserError:
        if args.distributed and _launcher_rank() > 0:  # every rank finds it; rank 0 says it
            from engine.cli.train_distributed import quiet_failure

            return quiet_failure()
        raise
    force_threads(args)
    try:
        backend.set_device(args.device)
    except backend.DeviceError as exc:
        _report(args, str(exc))
        raise UserError(str(exc)) from None
    options = runner.Options(
        events=sys.stdout if args.events else None,
        progress=not args.events and sys.stderr.isatty(),
        stdin_stop=args.events or not sys.stdin.isatty(),
        on_trainer=_starter(args.params),
    )  # fmt: skip
    if args.distributed:
        from engine.cli import train_distributed

        try:
            return train_distributed.run(args, options, _USER_ERRORS(), _report)
        finally:
            _restore_signals()
    try:
        if args.resume:
            result = runner.resume(args.resume, epochs=args.epochs, options=options)
        else:
            result = runner.train(args.project, job_dir=args.output, epochs=args.epochs,
                                  seed=args.seed, options=options, numbered=args.numbered,
                                  loss_scaling=args.loss_scaling)  # fmt: skip
    except _USER_ERRORS() as exc:
        _report(args, text_of(exc))  # its template too: the app shows it in its language
        raise project_error(args.project or args.resume, exc) from None
    except _RUN_ERRORS() as exc:  # already an "error" event of the run
        print(f"neurocanvas train: error: {one_line(exc)}", file=sys.stderr)
        return 1
    finally:
        _restore_signals()
    state = result.state
    best = f", best epoch {state.best_epoch}" if state.best_epoch else ""
    print(f"{result.status}: epoch {state.epoch}{best}; job folder {result.job.root}",
          file=sys.stderr)  # fmt: skip
    return 0


def _starter(params: str | None) -> Any:
    """Before the first iteration: signal handlers, and the ``--params`` values (in place)."""

    def start(trainer: Any) -> None:
        _install_signals(trainer)
        if params is not None:
            import engine.nn as nn

            nn.load_parameters(params)

    return start


def _check_arguments(args: argparse.Namespace) -> None:
    if args.resume and args.project:
        raise UserError("give either PROJECT or --resume JOB_DIR, not both")
    if not args.resume and not args.project:
        raise UserError("name the project to train (or --resume JOB_DIR)")
    if args.resume and (args.output or args.seed is not None):
        raise UserError("--resume continues the job in its own folder with its own seed; "
                        "drop -o/--seed")  # fmt: skip
    if args.numbered and args.resume:
        raise UserError("--numbered applies to a new run; --resume continues its own folder")
    if args.epochs is not None and args.epochs < 1:
        raise UserError(f"--epochs: expected a positive integer. Received: {args.epochs}")
    if not args.distributed and (args.lr_scaling != "none" or args.lr_warmup):
        raise UserError("--lr-scaling and --lr-warmup apply to --distributed runs only")
    if args.resume and (args.lr_scaling != "none" or args.lr_warmup):
        raise UserError("--resume keeps the job's learning-rate scaling; drop --lr-scaling and "
                        "--lr-warmup")  # fmt: skip
    if args.lr_warmup and args.lr_scaling != "linear":
        raise UserError("--lr-warmup ramps up the scaled learning rate: add --lr-scaling linear")
    if args.lr_warmup < 0:
        raise UserError(f"--lr-warmup: expected 0 or more epochs. Received: {args.lr_warmup}")
    if args.project and not Path(args.project).is_file():
        raise UserError(f"{args.project}: no such project file")
    if args.params is not None:
        from engine.nn.parameter_file import ParameterFileError, load_arrays

        if args.resume:
            raise UserError("--params starts a new job; --resume continues from its checkpoint")
        try:
            load_arrays(args.params)  # readable before a job folder is created
        except (OSError, ParameterFileError) as exc:
            raise UserError(f"--params: {exc}") from None


def _launcher_rank() -> int:
    """This process's rank as mpirun tells it (before MPI starts): Open MPI, MPICH, PMIx."""
    import os

    for name in ("OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK"):
        if os.environ.get(name, "").isdigit():
            return int(os.environ[name])
    return 0


def _USER_ERRORS() -> tuple[type[BaseException], ...]:
    """Bad input: the project, its settings, its datasets, the job folder."""
    from engine.data import DatasetError
    from engine.formats import ProjectFileError
    from engine.nn.parameter_file import ParameterFileError
    from engine.runtime.job import JobError
    from engine.runtime.program import ProgramError
    from engine.runtime.session import SetupError

    return (ProjectFileError, SetupError, DatasetError, JobError, ProgramError, ParameterFileError)


def _RUN_ERRORS() -> tuple[type[BaseException], ...]:
    from engine.runtime.trainer import TrainingError

    return (TrainingError,)


def _report(args: argparse.Namespace, message: str) -> None:
    """With --events, failures before or during the run are an ``error`` event too."""
    if args.events:
        from engine.runtime.events import EventSink

        EventSink(None, sys.stdout).emit("error", message=message)


_previous: dict[int, Any] = {}


def _install_signals(trainer: Any) -> None:
    """SIGINT/SIGTERM ask for a clean stop; a second SIGINT interrupts at once."""

    def handler(signum: int, frame: Any) -> None:
        if trainer.stop_event.is_set() and signum == signal.SIGINT:
            raise KeyboardInterrupt
        trainer.request_stop()

    for signum in (signal.SIGINT, signal.SIGTERM):
        try:
            _previous[signum] = signal.signal(signum, handler)
        except ValueError:  # not the main thread (tests calling run() from a thread)
            return


def _restore_signals() -> None:
    for signum, previous in _previous.items():
        signal.signal(signum, previous)
    _previous.clear()

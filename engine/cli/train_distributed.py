"""``mpirun -n K neurocanvas train PROJECT --distributed``: the per-rank side of ``train``.

Bad input found while the ranks set up (the project, datasets, K larger than the data, ranks
that disagree) is one error printed by rank 0, and every rank exits with status 2 before any
job file is written. A failure during training is reported by rank 0 (error event, job status,
one line); then the whole MPI job is aborted so that no rank waits forever in a collective.
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any

from engine.cli import UserError

ABORT_GRACE_S = 3.0  # a failing non-root rank lets rank 0 report a shared failure first
REPORT_S = 1.0


def run(args: argparse.Namespace, options: Any, user_errors: tuple[type[BaseException], ...],
        report: Any) -> int:  # fmt: skip
    """Train or resume on this rank; returns the exit status (raises UserError on rank 0)."""
    from engine.runtime.distributed import run as distributed
    from engine.runtime.distributed.collectives import DistributedError, use_local_gpu, world

    try:
        w = world()
    except DistributedError as exc:
        report(args, str(exc))
        raise UserError(str(exc)) from None
    use_local_gpu(w)
    if not w.is_root:
        options.events, options.progress, options.stdin_stop = None, False, False
    try:
        if args.resume:
            result = distributed.resume(args.resume, w, epochs=args.epochs, options=options)
        else:
            result = distributed.train(
                args.project, w, job_dir=args.output, epochs=args.epochs, seed=args.seed,
                options=options, loss_scaling=args.loss_scaling, lr_scaling=args.lr_scaling,
                lr_warmup=args.lr_warmup, numbered=args.numbered,
            )  # fmt: skip
    except (DistributedError, *user_errors) as exc:  # every rank raises it
        if not w.is_root:
            return quiet_failure()
        report(args, str(exc))
        raise UserError(str(exc)) from None
    except Exception as exc:
        _fail(w, exc)
        return 1
    if w.is_root:
        state = result.state
        best = f", best epoch {state.best_epoch}" if state.best_epoch else ""
        print(f"{result.status}: epoch {state.epoch}{best}; {w.size} processes; job folder "
              f"{result.job.root}", file=sys.stderr)  # fmt: skip
    return 0


def quiet_failure() -> int:
    """A non-root rank's exit on a failure every rank found: rank 0 alone reports it, so wait
    until it has (mpirun kills the other ranks, rank 0 included, as soon as one exits non-zero;
    under load rank 0's message was lost)."""
    time.sleep(ABORT_GRACE_S)
    return 2


def _fail(w: Any, exc: BaseException) -> None:
    """Report a training failure once, then end every rank (none may hang in a collective).

    A NaN found on the CPU is seen by every rank at the same iteration (the loss is averaged
    before it is checked), so they all leave together; anything else may have hit one rank only
    and aborts the MPI job.
    """
    from engine.core import backend
    from engine.runtime.trainer import NonFiniteError

    shared = isinstance(exc, NonFiniteError) and backend.device() == "cpu"
    if w.is_root:
        print(f"neurocanvas train: error: {exc}", file=sys.stderr)
    elif not shared:
        time.sleep(ABORT_GRACE_S)
        print(f"neurocanvas train: process {w.rank}: error: {exc}", file=sys.stderr)
    sys.stderr.flush()
    if w.size > 1 and not shared:
        time.sleep(REPORT_S)  # mpirun forwards the line before the abort tears the job down
        w.abort(1)

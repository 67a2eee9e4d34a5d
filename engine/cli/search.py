"""``neurocanvas search PROJECT``: NNC's automatic structure search from the command line.

::

    neurocanvas search PROJECT [--from-job JOB] [--method random|gp] [--objective error|error+cost]
                       [--attempts N] [--hours H] [--parallel K] [--epochs N] [--seed N]
                       [--validation-range MIN MAX] [--cost-range MIN MAX]
                       [--storage URL] [--study NAME] [--jobs-dir DIR] [--events]
    neurocanvas search worker --storage URL --study NAME [--project FILE] [--jobs-dir DIR]
                              [--events]

Settings not given come from the project's CONFIG > Global Structure Search. The study is kept
in ``<jobs dir>/structure_search.db`` (SQLite; the jobs dir defaults to ``<project>.files``)
unless ``--storage`` names another database (``postgresql://...``): workers on other machines
join it with ``search worker`` (with ``--project``/``--jobs-dir`` where that machine keeps the
project and its jobs elsewhere). Running the same command again resumes the search. Each attempt
is a job folder ``<study>_<NNNN>`` beside the project's other jobs; the table of attempts with
the Pareto-optimal ones marked is printed at the end and written to
``<jobs dir>/<study>_results.csv``. A line ``stop`` on stdin, Ctrl-C or SIGTERM ends the search
cleanly (the attempt in training is recorded as failed, "stopped").
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
from pathlib import Path
from typing import Any

from engine.cli import UserError


def add_parser(
    sub: argparse._SubParsersAction[argparse.ArgumentParser],
) -> argparse.ArgumentParser:
    p: argparse.ArgumentParser = sub.add_parser(
        "search", help="automatic structure search (NNC's Structure Search)",
        description="Train mutated networks one after another and keep the Pareto front of "
        "validation error and CostMultiplyAdd. 'search worker' joins a running study.",
    )  # fmt: skip
    p.add_argument("project", metavar="PROJECT", help="project file, or 'worker'")
    p.add_argument("--from-job", metavar="JOB", help="trained job of the seed network")
    p.add_argument("--method", choices=("random", "gp"))
    p.add_argument("--objective", choices=("error", "error+cost"))
    p.add_argument("--attempts", type=int, metavar="N", help="attempts in all (AttemptTimes)")
    p.add_argument("--hours", type=float, metavar="H", help="time limit (AttemptHours)")
    p.add_argument("--parallel", type=int, metavar="K", help="workers at once (NumParallel)")
    p.add_argument("--epochs", type=int, metavar="N", help="override Max Epoch of each attempt")
    p.add_argument("--seed", type=int, metavar="N", help="the same training seed for every "
                   "attempt (default: one per attempt, drawn from the study)")  # fmt: skip
    p.add_argument("--validation-range", type=float, nargs=2, metavar=("MIN", "MAX"))
    p.add_argument("--cost-range", type=float, nargs=2, metavar=("MIN", "MAX"),
                   help="CostMultiplyAdd range (-1: open)")  # fmt: skip
    p.add_argument("--storage", metavar="URL", help="study database (default: SQLite in "
                   "<project>.files)")  # fmt: skip
    p.add_argument("--study", default="search", metavar="NAME", help="study name")
    p.add_argument("--jobs-dir", metavar="DIR", help="folder of the attempts' job folders "
                   "(default: <project>.files)")  # fmt: skip
    p.add_argument("--device", choices=("cpu", "gpu", "auto"), default=None,
                   help="array backend (default: NEUROCANVAS_DEVICE or auto)")  # fmt: skip
    p.add_argument("--project", dest="project_file", metavar="FILE", help="search worker: this "
                   "machine's copy of the project (datasets are read from its folder)")  # fmt: skip
    p.add_argument("--deadline", type=float, help=argparse.SUPPRESS)  # set for helper workers
    p.add_argument("--events", action="store_true", help="one JSON event per line on stdout")
    return p


def run(args: argparse.Namespace) -> int:
    from engine.core import backend
    from engine.search.study import SearchError

    emit = _emitter(args)
    try:
        if args.device:
            backend.set_device(args.device)
            os.environ["NEUROCANVAS_DEVICE"] = args.device  # for the helper workers too
        if args.project == "worker":
            return _worker(args, emit)
        return _search(args, emit)
    except (SearchError, backend.DeviceError) as exc:
        getattr(emit, "close", lambda: None)()  # the progress bar ends before the message
        if args.events:
            emit("error", message=str(exc))
        raise UserError(str(exc)) from None
    finally:
        _restore_signals()


def _search(args: argparse.Namespace, emit: Any) -> int:
    from engine.search.session import SearchRequest, run_search

    if args.epochs is not None and args.epochs < 1:
        raise UserError(f"--epochs: expected a positive integer. Received: {args.epochs}")
    request = SearchRequest(
        args.project, from_job=args.from_job, method=args.method, objective=args.objective,
        attempts=args.attempts, hours=args.hours, parallel=args.parallel, epochs=args.epochs,
        validation_range=tuple(args.validation_range) if args.validation_range else None,
        cost_range=tuple(args.cost_range) if args.cost_range else None,
        storage=args.storage, study=args.study, jobs_dir=args.jobs_dir, seed=args.seed,
    )  # fmt: skip
    workers: list[Any] = []

    def started(worker: Any) -> None:
        workers.append(worker)
        _install_stop(args, worker)

    result = run_search(request, emit, on_worker=started)
    pareto = [row["number"] for row in result.rows if row["pareto"]]
    status = "stopped" if workers and workers[0].stop_event.is_set() else "finished"
    emit("search_end", attempts=len(result.rows), pareto=pareto, table=str(result.table))
    emit("done", status=status)  # the app's job runner ends a run on "done"
    if not args.events:
        _print_table(result.rows)
        plot = f", plot {result.plot}" if result.plot else ""
        print(f"{len(result.rows)} attempts, Pareto-optimal: {pareto}; table {result.table}"
              f"{plot}", file=sys.stderr)  # fmt: skip
        if status == "stopped":
            print("stopped; the same command continues the search", file=sys.stderr)
    return 0


def _worker(args: argparse.Namespace, emit: Any) -> int:
    from engine.search.study import open_study
    from engine.search.worker import Worker

    if not args.storage:
        raise UserError("search worker: give --storage URL (and --study NAME) of the study")
    study = open_study(args.storage, args.study)
    project = None if args.project_file is None else Path(args.project_file)
    if project is not None and not project.is_file():
        raise UserError(f"--project {project}: no such project file")
    worker = Worker(study, emit, args.deadline or 0.0, project=project, jobs_root=args.jobs_dir)
    _install_stop(args, worker)
    trained = worker.run()
    print(f"worker trained {trained} attempts of study {args.study!r}", file=sys.stderr)
    return 0


def _emitter(args: argparse.Namespace) -> Any:
    from engine.runtime.events import EventSink

    if args.events:
        return EventSink(None, sys.stdout).emit
    bar: dict[str, Any] = {}

    def progress(event: str, **fields: Any) -> None:
        from tqdm import tqdm

        if event == "search_start":
            bar["bar"] = tqdm(total=fields["attempts"], initial=min(fields["done"],
                              fields["attempts"]), desc="attempts", unit="net",
                              disable=not sys.stderr.isatty())  # fmt: skip
        elif event in ("attempt_end", "attempt_failed") and "bar" in bar:
            bar["bar"].update(1)
            error = fields.get("valid_error")
            if error is not None:
                bar["bar"].set_postfix(error=f"{error:.4g}", cost=fields["cost_multiply_add"])
        elif event == "search_end" and "bar" in bar:
            bar.pop("bar").close()

    progress.close = lambda: bar.pop("bar").close() if "bar" in bar else None  # type: ignore[attr-defined]
    return progress


def _print_table(rows: list[dict[str, Any]]) -> None:
    print(f"{'#':>4} {'state':9} {'valid_error':>11} {'MultiplyAdd':>12} pareto "
          f"{'accuracy':>8}  mutation")  # fmt: skip
    for r in rows:
        err = "" if r["valid_error"] is None else f"{r['valid_error']:.4f}"
        cost = "" if r["cost_multiply_add"] is None else f"{r['cost_multiply_add']:,.0f}"
        acc = "" if r["accuracy"] is None else f"{100 * r['accuracy']:.1f} %"
        mark = "*" if r["pareto"] else ""
        print(f"{r['number']:>4} {r['state']:9} {err:>11} {cost:>12} {mark:^6} {acc:>8}  "
              f"{r['mutation'] or r['reason']}")  # fmt: skip


_previous: dict[int, Any] = {}


def _install_stop(args: argparse.Namespace, worker: Any) -> None:
    """Ctrl-C, SIGTERM and a line "stop" on stdin (the app's Stop, or any stdin that is not a
    terminal, as ``train`` reads it)."""
    for signum in (signal.SIGINT, signal.SIGTERM):
        try:
            _previous[signum] = signal.signal(signum, lambda *_: worker.stop())
        except ValueError:  # not the main thread
            break
    if args.events or not sys.stdin.isatty():
        from engine.runtime.extensions import watch_stdin

        watch_stdin(worker.stop)


def _restore_signals() -> None:
    for signum, previous in _previous.items():
        signal.signal(signum, previous)
    _previous.clear()

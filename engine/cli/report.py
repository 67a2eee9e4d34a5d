"""``neurocanvas report JOB_DIR... [-o FILE.pptx] [--checkpoint best|last] [--lang en|ja]
[--events]``.

One job: its PowerPoint report (:func:`engine.report.job_report.write_report`), by default
``report.pptx`` in the job folder. Several jobs: one comparison deck
(:func:`engine.report.compare.write_comparison`), by default ``compare.pptx`` beside the first
job folder. ``--events`` prints one JSON object per line (``progress``, then ``done``) for the
desktop app.
"""

from __future__ import annotations

import argparse
import json
import sys

from engine.cli import UserError


def add_parser(
    sub: argparse._SubParsersAction[argparse.ArgumentParser],
) -> argparse.ArgumentParser:
    parser: argparse.ArgumentParser = sub.add_parser(
        "report",
        help="PowerPoint report of a job, or a comparison of several jobs",
        description="Write the PowerPoint report of a trained job (NNC's pptx report and more); "
        "with several jobs, one deck comparing them.",
    )
    parser.add_argument("jobs", nargs="+", metavar="JOB_DIR", help="job folder(s)")
    parser.add_argument(
        "-o",
        "--output",
        metavar="FILE.pptx",
        help="the deck to write (default: report.pptx in the job folder; "
        "compare.pptx beside the first job for several)",
    )
    parser.add_argument(
        "--checkpoint",
        choices=("best", "last"),
        default=None,
        help="report the evaluation made with these parameters (default: the "
        "job's evaluation, whichever they were)",
    )
    parser.add_argument(
        "--evaluate",
        action="store_true",
        help="evaluate a job that has not been evaluated (its first executor's dataset) before "
        "writing its report",
    )
    parser.add_argument(
        "--lang",
        choices=("en", "ja"),
        default="en",
        help="the deck's language: slide titles, table headings, axis titles (default: en)",
    )
    parser.add_argument("--events", action="store_true", help="print progress as JSON lines")
    return parser


def run(args: argparse.Namespace) -> int:
    from engine.report.compare import write_comparison
    from engine.report.job_report import ReportError, write_report

    def progress(step: int, steps: int, text: str) -> None:
        if args.events:
            _emit({"event": "progress", "step": step, "total": steps, "message": text})

    try:
        if args.evaluate:
            _evaluate_unevaluated(args, progress)
        if len(args.jobs) == 1:
            path = write_report(
                args.jobs[0],
                args.output,
                checkpoint=args.checkpoint,
                progress=progress,
                lang=args.lang,
            )
        else:
            path = write_comparison(args.jobs, args.output, progress=progress, lang=args.lang)
    except ReportError as exc:
        if args.events:
            _emit({"event": "error", "message": str(exc)})
        raise UserError(str(exc)) from None
    if args.events:
        _emit({"event": "done", "path": str(path)})
    else:
        print(f"wrote {path}")
    return 0


def _evaluate_unevaluated(args: argparse.Namespace, progress) -> None:  # noqa: ANN001
    """``neurocanvas evaluate`` of each job without an evaluation (with the checkpoint asked
    for), so its report has the evaluation slides; errors end the command as evaluate's do."""
    from pathlib import Path

    from engine.cli.evaluate import _errors
    from engine.core.messages import in_file
    from engine.runtime.evaluator import evaluate

    for job in map(Path, args.jobs):
        summary = job / "evaluation.json"
        wanted = args.checkpoint or "best"
        if summary.is_file() and (
            args.checkpoint is None or json.loads(summary.read_text()).get("checkpoint") == wanted
        ):
            continue
        progress(0, 0, f"evaluating {job.name} ({wanted} parameters)")
        try:
            evaluate(job, checkpoint=wanted)
        except _errors() as exc:
            raise UserError(f"evaluating {in_file(job, exc)}") from None


def _emit(record: dict) -> None:
    sys.stdout.write(json.dumps(record) + "\n")
    sys.stdout.flush()

"""``neurocanvas quantize insert|sweep``: quantization experiments (:mod:`engine.quantization`).

::

    neurocanvas quantize insert PROJECT -o OUT [--network Main] [--quantizer fixed-point]
        [--bits 8] [--targets weights,biases,activations] [--delta auto|X] [--job JOB_DIR]
        [--name NAME] [--sign auto|signed|unsigned] [--no-ste-fine-grained] [--skip L1,L2] [--force]
    neurocanvas quantize sweep PROJECT --job JOB_DIR [--bits 16,8,6,4,3,2] [--targets both]
        [--mode ptq|qat] [--epochs N] [-o SWEEP_DIR] [--events]
        [--sensitivity BITS] [--budget BYTES] [--max-evaluations N]

``insert`` writes OUT: the project with the quantized network added (``<network>_q<bits>``).
``sweep`` writes one job folder per point, ``results.csv`` and ``sweep.png`` into SWEEP_DIR
(default ``<job>_quantization`` beside the job); ``--budget`` adds the measured mixed-precision
pick (:mod:`engine.quantization.mixed`); ``--events`` prints one JSON object per line
(``sweep``, ``point_start``, ``point``, ``done``, ``sensitivity``, ``mixed_candidate``,
``mixed_precision``, ``error``) and a line
``stop`` on stdin ends the sweep after keeping the finished points.
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
from pathlib import Path
from typing import Any

from engine.cli import UserError, project_error
from engine.cli.convert import OUT_SUFFIXES


def add_parser(
    sub: argparse._SubParsersAction[argparse.ArgumentParser],
) -> argparse.ArgumentParser:
    parser: argparse.ArgumentParser = sub.add_parser(
        "quantize", help="insert quantizers into a network; sweep bit widths",
        description="Quantization experiments: insert FixedPointQuantize (or Pow2/MinMax) "
        "layers into a network, or sweep bit widths and targets over a trained job.",
    )  # fmt: skip
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    insert = actions.add_parser("insert", help="add a quantized copy of a network")
    insert.add_argument("project", metavar="PROJECT")
    insert.add_argument("-o", "--output", required=True, metavar="OUT", help="project to write")
    insert.add_argument("--network", default=None, help="network to quantize (default: Main)")
    insert.add_argument("--name", default=None, help="name of the new network")
    insert.add_argument("--bits", default="8")
    insert.add_argument("--targets", default="weights,biases,activations")
    insert.add_argument("--delta", default="auto", help="auto (needs --job) or a number")
    insert.add_argument("--job", metavar="JOB_DIR", help="trained job to calibrate Delta from")
    insert.add_argument("--sign", choices=("auto", "signed", "unsigned"), default="auto")
    insert.add_argument("--skip", default=None, help="layers to leave float (comma-separated)")
    insert.add_argument("--force", "-f", action="store_true", help="overwrite OUT if it exists")
    _common(insert)
    sweep = actions.add_parser("sweep", help="PTQ/QAT sweep over bits and targets")
    sweep.add_argument("project", metavar="PROJECT")
    sweep.add_argument("--job", required=True, metavar="JOB_DIR", help="trained float job")
    sweep.add_argument("-o", "--output", metavar="SWEEP_DIR")
    sweep.add_argument("--network", default=None, help="default: the optimizer's network")
    sweep.add_argument("--bits", default="16,8,6,4,3,2")
    sweep.add_argument("--targets", default="both",
                       help="target groups: weights, biases, activations, parameters, both; "
                       "join with + (weights+activations)")  # fmt: skip
    sweep.add_argument("--mode", choices=("ptq", "qat"), default="ptq")
    sweep.add_argument("--epochs", type=int, default=2, help="QAT epochs (default 2)")
    sweep.add_argument("--delta", default="auto", help="auto (calibrated) or a number")
    sweep.add_argument("--calibration-rows", type=int, default=256, metavar="N")
    sweep.add_argument("--sensitivity", type=int, default=None, metavar="BITS",
                       help="also rank the layers by the accuracy lost at BITS")  # fmt: skip
    sweep.add_argument("--budget", type=int, default=None, metavar="BYTES",
                       help="with --sensitivity: pick bits per layer within BYTES of "
                       "parameters, measuring each candidate network")  # fmt: skip
    sweep.add_argument(
        "--max-evaluations",
        type=int,
        default=200,
        metavar="N",
        help="with --budget: networks the pick may evaluate (default 200)",
    )
    sweep.add_argument("--events", action="store_true", help="JSON events on stdout (the app)")
    sweep.add_argument("--device", choices=("cpu", "gpu", "auto"), default=None)
    _common(sweep)
    return parser


def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--quantizer", choices=("fixed-point", "pow2", "min-max"),
                        default="fixed-point")  # fmt: skip
    parser.add_argument("--no-ste-fine-grained", dest="ste", action="store_false",
                        help="pass the gradient everywhere (STEFineGrained=False)")  # fmt: skip


def run(args: argparse.Namespace) -> int:
    try:
        return _insert(args) if args.action == "insert" else _sweep(args)
    except _errors() as exc:
        if getattr(args, "events", False):
            _print_event({"event": "error", "message": str(exc)})
        raise project_error(args.project, exc) from None


def _errors() -> tuple[type[BaseException], ...]:
    from engine.core.backend import DeviceError
    from engine.data import DatasetError
    from engine.formats import ProjectFileError
    from engine.graph.network import ModelError
    from engine.nn.parameter_file import ParameterFileError
    from engine.quantization import QuantizationError
    from engine.runtime.job import JobError
    from engine.runtime.program import ProgramError
    from engine.runtime.session import SetupError

    return (DeviceError, DatasetError, ProjectFileError, ModelError, ParameterFileError,
            QuantizationError, JobError, ProgramError, SetupError, OSError)  # fmt: skip


def _delta(text: str) -> float | None:
    from engine.quantization import QuantizationError

    if text.strip().lower() == "auto":
        return None
    try:
        value = float(text)
    except ValueError:
        raise QuantizationError(
            f"--delta: expected auto or a number > 0. Received: {text!r}"
        ) from None
    if not value > 0:
        raise QuantizationError(f"--delta: expected auto or a number > 0. Received: {text}")
    return value


def _insert(args: argparse.Namespace) -> int:
    from engine.formats import load_project, save_project
    from engine.quantization import (
        QuantizationError,
        Scheme,
        insert_quantizers,
        parse_bits,
        parse_targets,
    )

    delta = _delta(args.delta)
    if not Path(args.project).is_file():
        raise QuantizationError(f"{args.project}: no such project file")
    _check_output(Path(args.output), args.force)
    project = load_project(args.project)
    network = args.network or ("Main" if project.has_network("Main") else project.network_names[0])
    if not project.has_network(network):
        raise QuantizationError(
            f'--network: no network "{network}" (networks: {", ".join(project.network_names)})'
        )
    skip = tuple(s.strip() for s in args.skip.split(",") if s.strip()) if args.skip else None
    sign = {"auto": None, "signed": True, "unsigned": False}[args.sign]
    scheme = Scheme(quantizer=args.quantizer, targets=parse_targets(args.targets),
                    bits=parse_bits(args.bits), delta=delta, sign=sign,
                    ste_fine_grained=args.ste, skip=skip)  # fmt: skip
    ranges = None
    if delta is None:
        if not args.job:
            raise QuantizationError("--delta auto calibrates from a trained job: give --job "
                                    "JOB_DIR, or a number (--delta 0.0625)")  # fmt: skip
        ranges = _calibrate(project, network, args.job)
    result = insert_quantizers(project, network, scheme, ranges, args.name)
    save_project(project, args.output)
    count = sum(1 for layer in result.layers if layer.type == scheme.layer_type)
    units = _called(project, result)
    inside = sum(1 for u in units for layer in u.layers if layer.type == scheme.layer_type)
    called = (f" (and {inside} in its quantized unit copies {', '.join(u.name for u in units)})"
              if units else "")  # fmt: skip
    print(f'network "{result.name}": {count} {scheme.layer_type} layers{called}, {args.output}')
    return 0


def _called(project: Any, network: Any) -> list[Any]:
    """The networks ``network``'s Unit layers call, transitively, each once."""
    found: list[Any] = []
    stack = [network]
    while stack:
        for layer in stack.pop().layers:
            name = layer.properties.get("Network", "") if layer.type == "Unit" else ""
            if name and project.has_network(name) and name not in [n.name for n in found]:
                found.append(project.network(name))
                stack.append(found[-1])
    return found


def _check_output(out: Path, force: bool) -> None:
    """As ``convert``: OUT's extension picks the format, and an existing file needs --force."""
    if out.suffix.lower() not in OUT_SUFFIXES:
        raise UserError(f"{out}: unknown output format {out.suffix or '(no extension)'!r}; "
                        f"use one of {', '.join(OUT_SUFFIXES)}")  # fmt: skip
    if out.exists() and not out.is_dir() and not force:
        raise UserError(f"{out} exists; pass --force to overwrite it")


def _calibrate(project: Any, network: str, job_dir: str) -> Any:
    from engine.quantization.calibrate import calibrate
    from engine.runtime.job import Job

    return calibrate(project, network, Job.open(Path(job_dir)))


def _sweep(args: argparse.Namespace) -> int:
    from engine.core import backend
    from engine.quantization import QuantizationError, parse_bits
    from engine.quantization.sweep import Sweep, SweepOptions

    backend.set_device(args.device)
    if not Path(args.project).is_file():
        raise QuantizationError(f"{args.project}: no such project file")
    if args.budget is not None and args.sensitivity is None:
        raise QuantizationError("--budget needs --sensitivity BITS")
    if args.max_evaluations < 1:
        raise QuantizationError(
            f"--max-evaluations: expected a positive integer. Received: {args.max_evaluations}"
        )
    options = SweepOptions(
        bits=tuple(parse_bits(b) for b in args.bits.split(",") if b.strip()),
        targets=tuple(t.strip() for t in args.targets.split(",") if t.strip()),
        mode=args.mode, epochs=args.epochs, quantizer=args.quantizer, network=args.network,
        calibration_rows=args.calibration_rows, delta=_delta(args.delta),
        ste_fine_grained=args.ste,
    )  # fmt: skip
    if args.sensitivity is not None:
        parse_bits(args.sensitivity)
    job = Path(args.job)
    out = Path(args.output) if args.output else job.with_name(job.name + "_quantization")
    progress = _Progress(args.events)
    sweep = Sweep(args.project, job, out, options, on_event=progress)
    _listen_for_stop(sweep, args.events or not sys.stdin.isatty())  # as train reads it
    ranking = None
    try:
        with sweep.held():  # the sweep and its sensitivity write in one folder
            rows = sweep.run()
            if args.sensitivity is not None and not sweep.stop_event.is_set():
                from engine.quantization.sensitivity import run_sensitivity

                ranking = run_sensitivity(sweep, args.sensitivity, args.budget, progress,
                                          args.max_evaluations)  # fmt: skip
                if ranking.get("mixed", {}).get("status") == "stopped":  # after sweep's done
                    progress({"event": "done", "status": "stopped", "rows": len(rows)})
    finally:
        progress.close()
    if not args.events:
        for row in rows:
            print(
                f"{row['mode']:5} {row['target']:12} {row['bits']:2d} bits: accuracy "
                f"{100 * row['accuracy']:6.2f} %, {row['parameter_bytes']} parameter bytes"
            )
        if ranking is not None:
            _print_sensitivity(ranking, out)
        if sweep.stop_event.is_set():
            print(f"stopped with {len(rows)} points kept; the same command continues the sweep",
                  file=sys.stderr)  # fmt: skip
        if (out / "results.csv").exists():
            print(f"results: {out / 'results.csv'}, {out / 'sweep.png'}", file=sys.stderr)
    return 0


def _print_sensitivity(ranking: dict[str, Any], out: Path) -> None:
    """What --sensitivity/--budget found, so the user need not open the files to see it."""
    from engine.quantization.sensitivity import ranking_text

    lost = ranking_text(ranking["layers"])
    print(f"sensitivity at {ranking['bits']} bits (accuracy points per layer): {lost}")
    mixed = ranking.get("mixed")
    if mixed and mixed["status"] == "finished":
        bits = ", ".join(f"{layer} {b}" for layer, b in mixed["layer_bits"].items())
        print(
            f"mixed precision within {mixed['budget']} bytes ({bits} bits): accuracy "
            f"{100 * mixed['accuracy']:6.2f} %, {mixed['parameter_bytes']} parameter bytes"
        )
        print(_how_picked(mixed))
    elif mixed:
        print(f"mixed precision: stopped after {mixed['evaluations']} networks evaluated; "
              f"run the same command again to continue")  # fmt: skip
    print(f"sensitivity: {out / 'sensitivity.csv'}", file=sys.stderr)


def _how_picked(mixed: dict[str, Any]) -> str:
    """How the pick was found: networks evaluated, time, the cap, where the path is kept."""
    line = (f"  measured: {mixed['evaluations']} networks evaluated (at most "
            f"{mixed['max_evaluations']}) in {mixed['seconds']:.1f} s")  # fmt: skip
    if mixed["capped"]:
        line += "; the cap was reached, later steps used each layer's last measured loss"
    if mixed["pick"] == mixed["additive"] and mixed["candidates"][mixed["pick"]]["step"] is None:
        line += "; the additive prediction (single-layer losses summed) measured best"
    elif mixed["pick"] != mixed["greedy_end"]:
        line += "; an earlier candidate that fits is more accurate than the greedy's last step"
    if mixed["additive"] is None:
        line += "; the cap left no room to measure the additive prediction"
    elif mixed["pick"] != mixed["additive"]:
        additive = mixed["candidates"][mixed["additive"]]
        line += (f"; the additive prediction measured {100 * additive['accuracy']:.2f} % "
                 f"({additive['parameter_bytes']} bytes)")  # fmt: skip
    return line + "; every candidate: mixed_precision.json"


class _Progress:
    """Events as JSON lines (--events) or a tqdm bar over the points on stderr."""

    def __init__(self, events: bool) -> None:
        self.events, self.bar = events, None

    def __call__(self, event: dict[str, Any]) -> None:
        if self.events:
            _print_event(event)
            return
        from tqdm import tqdm

        if event["event"] == "sweep":
            self.bar = tqdm(total=event["points"], initial=event["done"], unit="point",
                            desc="quantize sweep", file=sys.stderr)  # fmt: skip
        elif event["event"] == "point_start" and self.bar is not None:
            self.bar.set_postfix_str(f"{event['target']} {event['bits']} bits {event['mode']}")
        elif event["event"] == "point" and self.bar is not None:
            self.bar.update(1)
        elif event["event"] == "mixed_candidate":
            if event["evaluation"] == 1:
                self.close()
                self.bar = tqdm(unit="network", desc="mixed precision", file=sys.stderr)
            if self.bar is not None:
                self.bar.update(1)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None


def _print_event(event: dict[str, Any]) -> None:
    print(json.dumps(event, allow_nan=False), flush=True)


def _listen_for_stop(sweep: Any, from_stdin: bool) -> None:
    """A line ``stop`` on stdin (the app's Stop) or SIGTERM/SIGINT: stop after keeping the
    finished points."""

    def handler(signum: int, frame: Any) -> None:
        sweep.request_stop()

    for signum in (signal.SIGINT, signal.SIGTERM):
        try:
            signal.signal(signum, handler)
        except ValueError:  # not the main thread (tests)
            break
    if from_stdin:
        from engine.runtime.extensions import watch_stdin

        watch_stdin(sweep.request_stop)

"""A quantization sweep: bits x target groups, PTQ or QAT, one job folder per point.

::

    from engine.quantization.sweep import Sweep, SweepOptions

    sweep = Sweep("lenet.ncproj", "lenet.files/20260101_120000", "lenet.files/q",
                  SweepOptions(bits=(16, 8, 4, 2), targets=("both",), mode="ptq"))
    rows = sweep.run()          # also SWEEP_DIR/results.csv and SWEEP_DIR/sweep.png

The first point is the float network itself (mode ``float``, 32 bits), the reference the
others are compared with. ``results.csv`` is rewritten (atomically) after every point, so an
interrupted sweep keeps its finished points, and running it again skips them (and resumes an
interrupted QAT point from its checkpoint).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from engine.formats import load_project
from engine.graph.project import Project
from engine.graph.project_inference import ProjectInference
from engine.graph.statistics import network_statistics
from engine.quantization import points
from engine.quantization.calibrate import calibrate, check_parameters, job_parameters_file
from engine.quantization.insert import (
    Ranges,
    insert_quantizers,
    quantize_network,
)
from engine.quantization.results import COLUMNS, read_results, write_plot, write_results
from engine.quantization.scheme import QuantizationError, Scheme, parse_bits, parse_targets
from engine.runtime.compiler import compile_network
from engine.runtime.folder_lock import hold_folder
from engine.runtime.job import Job, atomic_write_json
from engine.runtime.session import RunPlan

__all__ = ["Point", "Sweep", "SweepOptions", "COLUMNS"]

MODES = ("ptq", "qat")


@dataclass(frozen=True)
class Point:
    quantizer: str
    target: str  # a target group as given (``both``, ``weights``, ``weights+biases``, ``none``)
    bits: int
    mode: str  # float | ptq | qat

    @property
    def key(self) -> tuple[str, str, int, str]:
        return (self.quantizer, self.target, self.bits, self.mode)

    @property
    def label(self) -> str:
        """What the job history calls the point: ``8-bit PTQ``, ``4-bit QAT, weights``,
        ``6-bit PTQ, pow2``, ``float baseline``."""
        if self.mode == "float":
            return "float baseline"
        target = "" if self.target == "both" else self.target
        quantizer = "" if self.quantizer == "fixed-point" else self.quantizer
        extra = [t for t in (target, quantizer) if t]
        return ", ".join([f"{self.bits}-bit {self.mode.upper()}", *extra])

    @property
    def folder(self) -> str:
        if self.mode == "float":
            return "float"
        return f"{self.quantizer}_{self.target.replace('+', '-')}_{self.bits}bit_{self.mode}"


@dataclass(frozen=True)
class SweepOptions:
    bits: tuple[int, ...] = (16, 8, 6, 4, 3, 2)
    targets: tuple[str, ...] = ("both",)
    mode: str = "ptq"
    epochs: int = 2
    quantizer: str = "fixed-point"
    network: str | None = None  # default: the first optimizer's network
    calibration_rows: int = 256
    delta: float | None = None  # None: calibrated per quantizer
    ste_fine_grained: bool = True

    def __post_init__(self) -> None:
        for bits in self.bits:
            parse_bits(bits)
        for target in self.targets:
            parse_targets(target)
        if self.mode not in MODES:
            raise QuantizationError(f"mode: expected ptq or qat. Received: {self.mode!r}")
        if self.epochs < 1:
            raise QuantizationError(f"epochs: expected a positive integer. Received: {self.epochs}")
        Scheme(quantizer=self.quantizer, delta=self.delta)  # checks both
        if not self.bits or not self.targets:
            raise QuantizationError("nothing to sweep: give at least one bit width and target")


class Sweep:
    """Runs the points of one sweep (see the module docstring)."""

    def __init__(
        self,
        project_file: str | Path,
        job_dir: str | Path,
        out_dir: str | Path,
        options: SweepOptions | None = None,
        on_event: Callable[[dict[str, Any]], None] | None = None,
    ) -> None:
        self.project_file = Path(project_file)
        self.job = Job.open(Path(job_dir))
        self.out_dir = Path(out_dir)
        self.options = options or SweepOptions()
        self.on_event = on_event or (lambda event: None)
        self.stop_event = threading.Event()
        self._trainer: Any = None
        self._held = False
        self.project = load_project(self.project_file)
        self.plan = RunPlan.from_json(self.job.config()["plan"])
        self.network = self.options.network or _first_network(self.project)
        self.parameters = job_parameters_file(self.job)
        check_parameters(_float_program(self.project, self.network), self.parameters, self.job)
        self.ranges: Ranges | None = None
        for point in self.points()[1:]:  # a width or layer a point cannot take: before writing
            quantize_network(self.project, self.network, self._scheme(point, delta=1.0))

    # -- the plan ----------------------------------------------------------------------------
    def points(self) -> list[Point]:
        """The float reference first, then bits (as given) x target groups."""
        o = self.options
        grid = [Point(o.quantizer, t, b, o.mode) for b in o.bits for t in o.targets]
        return [Point("none", "none", 32, "float"), *grid]

    def request_stop(self) -> None:
        """Stop after the current point (a QAT point saves a checkpoint and stops now)."""
        self.stop_event.set()
        if self._trainer is not None:
            self._trainer.request_stop()

    # -- running -----------------------------------------------------------------------------
    @contextmanager
    def held(self) -> Iterator[None]:
        """The sweep folder belongs to this process while the block runs (another sweep in it
        stops with one line instead of renaming or replacing this one's live points)."""
        if self._held:
            yield
            return
        with hold_folder(self.out_dir, "quantization sweep"):
            self._held = True
            try:
                yield
            finally:
                self._held = False

    def run(self) -> list[dict[str, Any]]:
        with self.held():
            return self._run()

    def _run(self) -> list[dict[str, Any]]:
        rows = read_results(self.out_dir / "results.csv")
        atomic_write_json(self.out_dir / "sweep.json", {
            "project": str(self.project_file.resolve()), "job": str(self.job.root.resolve()),
            "network": self.network, "options": asdict(self.options),
        })  # fmt: skip
        done = {_key(row) for row in rows}
        todo = [p for p in self.points() if p.key not in done]
        total = len(self.points())
        self.on_event({"event": "sweep", "points": total, "done": total - len(todo),
                       "out_dir": str(self.out_dir), "rows": rows})  # fmt: skip
        status = "finished"
        for point in todo:
            if self.stop_event.is_set():
                status = "stopped"
                break
            self.on_event({"event": "point_start", **asdict(point)})
            row = self.run_point(point)
            if row is None:
                status = "stopped"
                break
            rows.append(row)
            write_results(self.out_dir / "results.csv", rows)
            self.on_event({"event": "point", **row})
        if rows:
            write_plot(self.out_dir / "sweep.png", rows)
        self.on_event({"event": "done", "status": status, "rows": len(rows)})
        return rows

    def run_point(self, point: Point) -> dict[str, Any] | None:
        """Build, train if QAT, evaluate one point; None when it was stopped."""
        project = load_project(self.project_file)
        points.absolute_datasets(project, self.project_file.parent.resolve())
        name = self.network
        info = {**asdict(point), "source_job": str(self.job.root.resolve()), "network": name}
        if point.mode != "float":
            scheme = self._scheme(point, self.options.delta)
            name = insert_quantizers(project, self.network, scheme, self._ranges()).name
            points.retarget(project, self.network, name)
        folder = self.out_dir / point.folder
        if point.mode == "qat":
            job, status = points.trained_job(folder, project, self.parameters,
                                             self.options.epochs, self.plan.seed, info,
                                             self._watch)  # fmt: skip
            self._trainer = None
            if status != "finished":
                return None
        else:
            job = points.fixed_job(
                folder,
                project,
                self.parameters,
                self.project_file.parent.resolve(),
                info,
                self.plan.seed,
            )
        label = folder / "label.json"  # the name TRAINING's job history shows
        if not label.exists():
            atomic_write_json(label, {"name": f"{self.out_dir.name}: {point.label}"})
        accuracy = points.accuracy_of(job)
        size, macs = _costs(project, name)
        return {
            "quantizer": point.quantizer, "target": point.target, "bits": point.bits,
            "mode": point.mode, "accuracy": accuracy, "error": 1.0 - accuracy,
            "parameter_bytes": size, "cost_multiply_add": macs,
            "job": folder.name,
        }  # fmt: skip

    def _scheme(self, point: Point, delta: float | None) -> Scheme:
        return Scheme(quantizer=point.quantizer, targets=parse_targets(point.target),
                      bits=point.bits, delta=delta,
                      ste_fine_grained=self.options.ste_fine_grained)  # fmt: skip

    def _watch(self, trainer: Any) -> None:
        self._trainer = trainer
        if self.stop_event.is_set():
            trainer.request_stop()

    def _ranges(self) -> Ranges | None:
        if self.options.delta is not None:
            return None
        if self.ranges is None:
            self.ranges = calibrate(self.project, self.network, self.job,
                                    self.options.calibration_rows)  # fmt: skip
        return self.ranges


def _key(row: dict[str, Any]) -> tuple[str, str, int, str]:
    return (str(row["quantizer"]), str(row["target"]), int(row["bits"]), str(row["mode"]))


def _first_network(project: Project) -> str:
    if not project.optimizers:
        raise QuantizationError("the project has no optimizer (CONFIG tab): name --network")
    return project.optimizers[0].network


def _float_program(project: Project, network: str) -> Any:
    if not project.has_network(network):
        raise QuantizationError(
            f'no network "{network}" (networks: {", ".join(project.network_names)})'
        )
    return compile_network(project, network, test_mode=True)


def _costs(project: Project, network: str) -> tuple[int, int]:
    """(parameter bytes at the quantized widths, CostMultiplyAdd) of ``network``."""
    inference = ProjectInference(project, follow=False)
    try:
        stats = network_statistics(inference.network(network))
    finally:
        inference.close()
    return stats.parameter_bytes, stats.totals["CostMultiplyAdd"]

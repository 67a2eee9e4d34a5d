"""The mixed-precision pick (beyond NNC): bits per parametric layer within a budget of
parameter bytes, chosen by measuring whole networks.

Every parametric layer starts at the widest candidate width. While the parameters exceed the
budget, each layer lowered one step is a candidate network, evaluated whole (every layer at
its current width, PTQ, on the first executor's dataset, as the sensitivity pass does); the
step that loses the least measured accuracy per byte saved is taken (steps that lose nothing
first, the one saving the most bytes first). Bytes saved beyond the budget count for nothing:
a large step past it may lose little per byte and much in all.

The prediction this replaced (single-layer losses added up, a greedy on them) is measured too,
as one more candidate: it needs the loss of each layer alone at the widths it visits. The pick
is the most accurate measured network that fits the budget (fewer bytes on a tie): the greedy's
last step, an earlier candidate that already fit and lost less, or the additive prediction.

At most ``max_evaluations`` networks are evaluated (whole or single-layer). Past the cap the
greedy goes on with each layer's last measured loss per byte and only its final network is
evaluated (``capped``); the additive prediction is left out when the cap leaves no room.

``mixed_precision.json`` lists every evaluated candidate in order and is rewritten atomically
after each evaluation. Running again on the same job and quantizer settings reuses those
accuracies (a network measured before is not evaluated again), so an interrupted pick
continues where it stopped. The pick is then evaluated as a job folder, ``mixed_precision/``.
"""

from __future__ import annotations

import hashlib
import json
import math
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engine.graph.project_inference import ProjectInference
from engine.graph.statistics import NetworkStatistics, network_statistics
from engine.quantization import points
from engine.quantization.insert import quantizable_layers
from engine.quantization.scheme import QuantizationError, Scheme
from engine.runtime.job import Job, JobError, atomic_write_json

__all__ = ["MAX_EVALUATIONS", "Candidate", "Meter", "Stopped", "additive_pick",
           "measured_greedy", "pick_mixed"]  # fmt: skip

MAX_EVALUATIONS = 200
Widths = dict[str, int]


class Stopped(Exception):
    """The user stopped the pick (the sweep's Stop, Ctrl-C)."""


class _NoRoom(Exception):
    """The evaluation cap leaves no room for what was asked."""


@dataclass
class Candidate:
    """One measured network."""

    layer_bits: Widths
    parameter_bytes: int
    accuracy: float
    step: int | None  # the greedy step that tried it (0: all at the widest; None: additive)
    lowered: str | None  # the layer lowered one step from the step's starting network
    taken: bool = False  # the greedy went on from it


@dataclass
class Meter:
    """Measures networks for the pick: counts evaluations against the cap, checks for Stop.

    ``accuracy``: of the whole network at the given bits per layer; ``single``: of the network
    with one layer alone quantized at the given bits; ``size``: parameter bytes.
    """

    accuracy: Callable[[Widths], float]
    single: Callable[[str, int], float]
    size: Callable[[Widths], int]
    max_evaluations: int = MAX_EVALUATIONS
    stopped: Callable[[], bool] = lambda: False
    on_measure: Callable[[Meter], None] = lambda meter: None
    candidates: list[Candidate] = field(default_factory=list)
    singles: dict[tuple[str, int], float] = field(default_factory=dict)
    evaluations: int = 0
    capped: bool = False

    def room(self) -> bool:
        return self.evaluations < self.max_evaluations

    def candidate(self, bits: Widths, step: int | None, lowered: str | None) -> Candidate:
        self._count()
        found = Candidate(bits, self.size(bits), self.accuracy(bits), step, lowered)
        self.candidates.append(found)
        self.on_measure(self)
        return found

    def single_accuracy(self, layer: str, bits: int) -> float:
        if (layer, bits) not in self.singles:
            if not self.room():
                raise _NoRoom
            self._count()
            self.singles[layer, bits] = self.single(layer, bits)
            self.on_measure(self)
        return self.singles[layer, bits]

    def best_fitting(self, budget: int) -> int:
        """The most accurate candidate within ``budget`` (fewer bytes, then earlier, on a tie)."""
        fitting = [(c.accuracy, -c.parameter_bytes, -k) for k, c in enumerate(self.candidates)
                   if c.parameter_bytes <= budget]  # fmt: skip
        return -max(fitting)[2]

    def _count(self) -> None:
        if self.stopped():
            raise Stopped
        self.evaluations += 1


def measured_greedy(layers: list[str], widths: list[int], budget: int, meter: Meter) -> Candidate:
    """Lower one layer one step at a time, measuring each step (see the module docstring);
    ``widths``: the candidate bits, widest first. Returns the network the greedy ends on."""
    size = meter.size
    current = {layer: widths[0] for layer in layers}
    start = meter.candidate(current, 0, None)
    start.taken = True
    reached: Candidate | None = start
    step = 0
    last_cost: dict[str, float] = {}  # layer -> loss per byte when it was last measured
    while size(current) > budget:
        step += 1
        excess = size(current) - budget
        steps = []
        for order, layer, trial in _one_step_lower(current, layers, widths):
            saved = min(size(current) - size(trial), excess)
            tried = None
            if reached is not None and meter.room():
                tried = meter.candidate(trial, step, layer)
                loss = max(reached.accuracy - tried.accuracy, 0.0)
                last_cost[layer] = loss / saved if saved > 0 else math.inf
            else:
                meter.capped = True
            steps.append((last_cost.get(layer, math.inf), -saved, order, trial, tried))
        if not steps:
            raise QuantizationError(f"--budget {budget}: no layer can be lowered further")
        *_, current, reached = min(steps, key=lambda s: s[:3])
        if reached is not None:
            reached.taken = True
    if reached is None:  # capped: the greedy's own network is still to be measured
        reached = meter.candidate(current, step, None)
        reached.taken = True
    return reached


def _one_step_lower(
    current: Widths, layers: list[str], widths: list[int]
) -> Iterator[tuple[int, str, Widths]]:
    """``(order, layer, widths)`` for each layer that can go one width lower: ``current`` with
    that layer lowered (the greedy steps both picks choose among)."""
    for order, layer in enumerate(layers):
        lower = next((b for b in widths if b < current[layer]), None)
        if lower is not None:
            yield order, layer, {**current, layer: lower}


def additive_pick(layers: list[str], widths: list[int], budget: int, meter: Meter) -> Widths:
    """The prediction the measured greedy replaced: each step lowers the layer whose loss
    alone grows the least per byte saved, as if the losses added up (nothing is measured
    whole here). Raises :class:`_NoRoom` when the cap cuts it short."""
    size = meter.size
    current = {layer: widths[0] for layer in layers}
    while size(current) > budget:
        steps = []
        for order, layer, trial in _one_step_lower(current, layers, widths):
            saved = size(current) - size(trial)
            extra = meter.single_accuracy(layer, current[layer]) - meter.single_accuracy(
                layer, trial[layer])  # fmt: skip
            steps.append((extra / saved if saved > 0 else math.inf, order, trial))
        if not steps:
            raise QuantizationError(f"--budget {budget}: no layer can be lowered further")
        current = min(steps, key=lambda s: s[:2])[2]
    return current


def pick_mixed(
    sweep: Any,
    evaluator: Any,
    base: Scheme,
    budget: int,
    on_event: Callable[[dict[str, Any]], None],
    max_evaluations: int = MAX_EVALUATIONS,
) -> dict[str, Any]:
    """Run the measured pick for ``sweep`` (an :class:`engine.quantization.sweep.Sweep`),
    write ``mixed_precision.json`` and evaluate the pick as ``mixed_precision/``."""
    if max_evaluations < 1:
        raise QuantizationError(
            f"--max-evaluations: expected a positive integer. Received: {max_evaluations}"
        )
    began = time.monotonic()
    widths = sorted({b for b in (*sweep.options.bits, base.bits) if b >= 2}, reverse=True)
    layers = _parametric_layers(evaluator, sweep.network)
    out = sweep.out_dir / "mixed_precision.json"
    settings = _settings(sweep, base, widths)
    known = _known(out, settings)
    sizes: dict[str, int] = {}

    def scheme(bits: Widths) -> Scheme:
        return Scheme(quantizer=base.quantizer, bits=widths[0], delta=base.delta,
                      layer_bits=bits)  # fmt: skip

    def measured(key: str, make: Callable[[], Scheme]) -> float:
        if key not in known:
            known[key] = evaluator.accuracy(make())
        return known[key]

    def size(bits: Widths) -> int:
        key = _key(bits)
        if key not in sizes:
            project, name = evaluator.project(scheme(bits), f"{sweep.network}_mixed")
            sizes[key] = _statistics(project, name).parameter_bytes
        return sizes[key]

    meter = Meter(
        accuracy=lambda bits: measured(_key(bits), lambda: scheme(bits)),
        single=lambda layer, bits: measured(f"only {layer}={bits}", lambda: Scheme(
            quantizer=base.quantizer, bits=bits, delta=base.delta, only=(layer,))),
        size=size, max_evaluations=max_evaluations, stopped=sweep.stop_event.is_set,
    )  # fmt: skip
    least = size({layer: widths[-1] for layer in layers})
    if least > budget:
        raise QuantizationError(f"--budget {budget}: the parameters need at least {least} "
                                f"bytes at {widths[-1]} bits")  # fmt: skip

    def record(status: str) -> dict[str, Any]:
        return {"event": "mixed_precision", "status": status, "budget": budget,
                "method": "measured greedy", "widths": widths, "settings": settings,
                "evaluations": meter.evaluations, "max_evaluations": max_evaluations,
                "capped": meter.capped, "seconds": round(time.monotonic() - began, 3),
                "candidates": [_row(c, budget) for c in meter.candidates],
                "single_layer": [{"layer": n, "bits": b, "accuracy": a}
                                 for (n, b), a in meter.singles.items()]}  # fmt: skip

    def progress(meter: Meter) -> None:
        atomic_write_json(out, record("running"))
        if meter.candidates and meter.candidates[-1] is not last[0]:
            last[0] = meter.candidates[-1]
            on_event({"event": "mixed_candidate", "evaluation": meter.evaluations,
                      **_row(last[0], budget)})  # fmt: skip

    last: list[Candidate | None] = [None]
    meter.on_measure = progress
    try:
        end = measured_greedy(layers, widths, budget, meter)
        additive = _additive(layers, widths, budget, meter)
    except Stopped:
        result = record("stopped")
        atomic_write_json(out, result)
        on_event(result)
        return result
    pick = meter.best_fitting(budget)
    chosen = meter.candidates[pick]
    project, name = evaluator.project(scheme(chosen.layer_bits), f"{sweep.network}_mixed")
    job = _job(sweep, project, {"mode": "ptq", "target": "mixed", "budget": budget,
                                "layer_bits": chosen.layer_bits, "settings": settings})  # fmt: skip
    result = record("finished") | {
        "layer_bits": chosen.layer_bits, "parameter_bytes": chosen.parameter_bytes,
        "accuracy": points.accuracy_of(job), "pick": pick,
        "greedy_end": meter.candidates.index(end), "additive": additive,
        "job": job.root.name, "network": name,
    }  # fmt: skip
    result["seconds"] = round(time.monotonic() - began, 3)
    atomic_write_json(out, result)
    on_event(result)
    return result


def _additive(layers: list[str], widths: list[int], budget: int, meter: Meter) -> int | None:
    """The candidate holding the additive prediction, measured (None: the cap left no room)."""
    try:
        predicted = additive_pick(layers, widths, budget, meter)
    except _NoRoom:
        return None
    for k, candidate in enumerate(meter.candidates):
        if candidate.layer_bits == predicted:
            return k
    if not meter.room():
        return None
    meter.candidate(predicted, None, None)
    return len(meter.candidates) - 1


def _parametric_layers(evaluator: Any, network: str) -> list[str]:
    """The quantizable layers that have parameters, in network order."""
    project, _ = evaluator.project(None, network)
    stats = _statistics(project, network)
    layers = quantizable_layers(project.network(network), Scheme(delta=1.0))
    return [n for n in layers if stats.layers.get(n, {}).get("CostParameter")]


def _settings(sweep: Any, base: Scheme, widths: list[int]) -> dict[str, Any]:
    """What the accuracies depend on: a record with other settings is not reused."""
    digest = hashlib.sha256(Path(sweep.parameters).read_bytes()).hexdigest()
    return {"job": str(sweep.job.root.resolve()), "parameters_sha256": digest,
            "network": sweep.network, "quantizer": base.quantizer, "delta": base.delta,
            "calibration_rows": sweep.options.calibration_rows,
            "widest": widths[0]}  # fmt: skip


def _known(path: Path, settings: dict[str, Any]) -> dict[str, float]:
    """The accuracies an earlier run with the same settings measured (none otherwise)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if data.get("settings") != settings:
            return {}
        known = {_key(c["layer_bits"]): float(c["accuracy"]) for c in data["candidates"]}
        for c in data.get("single_layer", []):
            known[f"only {c['layer']}={int(c['bits'])}"] = float(c["accuracy"])
        return known
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return {}  # no record, or not one this run can trust: measure again


def _key(bits: Widths) -> str:
    return ",".join(f"{k}={int(v)}" for k, v in sorted(bits.items()))


def _row(candidate: Candidate, budget: int) -> dict[str, Any]:
    return {"step": candidate.step, "lowered": candidate.lowered,
            "layer_bits": candidate.layer_bits, "parameter_bytes": candidate.parameter_bytes,
            "accuracy": candidate.accuracy, "fits": candidate.parameter_bytes <= budget,
            "taken": candidate.taken}  # fmt: skip


def _job(sweep: Any, project: Any, info: dict[str, Any]) -> Job:
    """The pick's job folder; one holding another pick (or the same widths on other settings)
    is moved aside, never deleted."""
    folder = sweep.out_dir / "mixed_precision"
    if folder.exists():
        try:
            held = Job.open(folder).config().get("quantization", {})
        except (JobError, OSError, ValueError, AttributeError):
            held = {}
        if [held.get(k) for k in ("layer_bits", "settings")] != [
            info["layer_bits"],
            info["settings"],
        ]:
            folder.rename(points.free_name(folder, "replaced"))
    base_dir = Path(sweep.project_file).parent.resolve()
    job = points.fixed_job(folder, project, sweep.parameters, base_dir, info, sweep.plan.seed)
    label = folder / "label.json"  # the name TRAINING's job history shows
    if not label.exists():
        atomic_write_json(label, {"name": f"{sweep.out_dir.name}: mixed precision"})
    return job


def _statistics(project: Any, network: str) -> NetworkStatistics:
    inference = ProjectInference(project, follow=False)
    try:
        return network_statistics(inference.network(network))
    finally:
        inference.close()

"""Per-layer sensitivity and a mixed-precision suggestion (beyond NNC).

Sensitivity: each quantizable layer alone (its output and its parameters) is quantized at low
bits and the network is evaluated post-training; layers are ranked by the accuracy lost.
Written to ``sensitivity.csv`` (``rank,layer,bits,accuracy,loss``).

Mixed precision: for the parametric layers, the loss of each layer at each candidate width is
measured the same way; starting with every layer at the widest, the step that saves bytes for
the least loss per byte is taken until the parameters fit the budget (a greedy knapsack). The
chosen widths become a network (``<network>_mixed``) evaluated as a PTQ point of its own, and
``mixed_precision.json`` records the widths, bytes and accuracy.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

import engine.nn as nn
from engine.data import open_dataset
from engine.formats import load_project
from engine.graph.infer import ProjectInference
from engine.graph.project import Project
from engine.graph.statistics import NetworkStatistics, network_statistics
from engine.quantization import points
from engine.quantization.insert import (
    insert_quantizers,
    quantizable_layers,
)
from engine.quantization.scheme import QuantizationError, Scheme
from engine.runtime import metrics
from engine.runtime.compiler import compile_network
from engine.runtime.evaluator import run_outputs
from engine.runtime.job import atomic_write_json, atomic_write_text

__all__ = ["Evaluator", "run_sensitivity", "suggest_bits"]


@dataclass
class Evaluator:
    """Accuracy of quantized variants of one network, in memory (no job folders)."""

    sweep: Any  # engine.quantization.sweep.Sweep

    def project(self, scheme: Scheme | None, name: str) -> tuple[Project, str]:
        project = load_project(self.sweep.project_file)
        net = self.sweep.network
        if scheme is None:
            return project, net
        result = insert_quantizers(project, net, scheme, self.sweep._ranges(), name)
        points.retarget(project, net, result.name)
        return project, result.name

    def accuracy(self, scheme: Scheme | None) -> float:
        project, name = self.project(scheme, f"{self.sweep.network}_probe")
        plan = self.sweep.plan
        if not plan.executors:
            raise QuantizationError("the project has no executor (CONFIG tab) to evaluate with")
        executor = plan.executors[0]
        runtime = executor["network"].replace(self.sweep.network, name, 1)
        program = compile_network(project, runtime)
        nn.clear_parameters()
        params = program.create_parameters()
        nn.load_parameters(self.sweep.parameters)
        info = plan.datasets[executor["dataset"]]
        with open_dataset(info["csv"], normalize=bool(info["normalize"]), cache=True) as data:
            name, _ = program.outputs[0]
            outputs = np.concatenate([o[name] for _, o in run_outputs(
                program, params, data, plan.batch_size, executor)])  # fmt: skip
            target = name[:-1] if name.endswith("'") else name
            if target not in data.names:
                raise QuantizationError(f'the dataset has no variable "{target}" to score on')
            targets = data.get_batch(np.arange(data.size), [target])[target]
        return metrics.classify(targets.reshape(data.size, -1), outputs).accuracy


def run_sensitivity(
    sweep: Any, bits: int, budget: int | None, on_event: Callable[[dict[str, Any]], None]
) -> dict[str, Any]:
    """Write ``sensitivity.csv`` (and with ``budget`` the mixed-precision network)."""
    evaluator = Evaluator(sweep)
    base = Scheme(quantizer=sweep.options.quantizer, bits=bits, delta=sweep.options.delta)
    reference = evaluator.accuracy(None)
    network = load_project(sweep.project_file).network(sweep.network)
    losses = []
    for layer in quantizable_layers(network, base):
        scheme = Scheme(quantizer=base.quantizer, bits=bits, delta=base.delta, only=(layer,))
        try:
            accuracy = evaluator.accuracy(scheme)
        except QuantizationError:
            continue  # e.g. a signed width this quantizer cannot take: not ranked
        losses.append((layer, accuracy, reference - accuracy))
    losses.sort(key=lambda item: -item[2])
    lines = ["rank,layer,bits,accuracy,loss"]
    lines += [f"{k},{layer},{bits},{acc!r},{loss!r}" for k, (layer, acc, loss) in
              enumerate(losses, start=1)]  # fmt: skip
    atomic_write_text(sweep.out_dir / "sensitivity.csv", "\n".join(lines) + "\n")
    result: dict[str, Any] = {"event": "sensitivity", "bits": bits, "reference": reference,
                              "layers": [{"layer": n, "accuracy": a, "loss": d}
                                         for n, a, d in losses]}  # fmt: skip
    on_event(result)
    if budget is not None:
        result["mixed"] = _mixed(sweep, evaluator, base, budget, on_event)
    return result


def _mixed(sweep: Any, evaluator: Evaluator, base: Scheme, budget: int,
           on_event: Callable[[dict[str, Any]], None]) -> dict[str, Any]:  # fmt: skip
    candidates = sorted({b for b in (*sweep.options.bits, base.bits) if b >= 2}, reverse=True)
    project, _ = evaluator.project(None, sweep.network)
    sizes = _layer_sizes(project, sweep.network)
    reference = evaluator.accuracy(None)
    loss = {}
    for layer in sizes:
        for bits in candidates:
            scheme = Scheme(quantizer=base.quantizer, bits=bits, delta=base.delta, only=(layer,))
            loss[layer, bits] = reference - evaluator.accuracy(scheme)
    chosen = suggest_bits(sizes, candidates, loss, budget)
    scheme = Scheme(quantizer=base.quantizer, bits=candidates[0], delta=base.delta,
                    layer_bits=chosen)  # fmt: skip
    project, name = evaluator.project(scheme, f"{sweep.network}_mixed")
    folder = sweep.out_dir / "mixed_precision"
    info = {"mode": "ptq", "target": "mixed", "layer_bits": chosen, "budget": budget}
    base_dir = Path(sweep.project_file).parent.resolve()
    job = points.fixed_job(folder, project, sweep.parameters, base_dir, info, sweep.plan.seed)
    accuracy = points.accuracy_of(job)
    size = _statistics(project, name).parameter_bytes
    record = {"event": "mixed_precision", "budget": budget, "layer_bits": chosen,
              "parameter_bytes": size, "accuracy": accuracy, "job": folder.name,
              "network": name}  # fmt: skip
    atomic_write_json(sweep.out_dir / "mixed_precision.json", record)
    on_event(record)
    return record


def suggest_bits(
    sizes: dict[str, int], candidates: list[int], loss: dict[tuple[str, int], float], budget: int
) -> dict[str, int]:
    """Bits per layer within ``budget`` bytes of parameters, least predicted loss (greedy)."""
    widths = {layer: candidates[0] for layer in sizes}

    def total() -> int:
        return sum(-(-sizes[n] * widths[n] // 8) for n in sizes)

    while total() > budget:
        steps = []
        for layer, bits in widths.items():
            lower = [b for b in candidates if b < bits]
            if lower:
                saved = sizes[layer] * (bits - lower[0]) / 8
                extra = loss[layer, lower[0]] - loss.get((layer, bits), 0.0)
                steps.append((extra / saved, layer, lower[0]))
        if not steps:
            raise QuantizationError(
                f"--budget {budget}: the parameters need at least {total()} bytes at "
                f"{candidates[-1]} bits"
            )
        _, layer, bits = min(steps)
        widths[layer] = bits
    return widths


def _layer_sizes(project: Project, network: str) -> dict[str, int]:
    """Quantizable parametric layer -> its parameter elements (NNC's CostParameter)."""
    stats = _statistics(project, network)
    layers = quantizable_layers(project.network(network), Scheme(delta=1.0))
    return {n: stats.layers[n]["CostParameter"] for n in layers
            if stats.layers.get(n, {}).get("CostParameter")}  # fmt: skip


def _statistics(project: Project, network: str) -> NetworkStatistics:
    inference = ProjectInference(project, follow=False)
    try:
        return network_statistics(inference.network(network))
    finally:
        inference.close()

"""Per-layer sensitivity and a mixed-precision suggestion (beyond NNC).

Sensitivity: each quantizable layer alone (its output and its parameters) is quantized at low
bits and the network is evaluated post-training; layers are ranked by the accuracy lost.
Written to ``sensitivity.csv`` (``rank,layer,bits,accuracy,loss``).

With a budget of parameter bytes, :mod:`engine.quantization.mixed` then picks bits per
parametric layer by evaluating whole networks with the same :class:`Evaluator`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

import engine.nn as nn
from engine.data import open_dataset
from engine.formats import load_project
from engine.graph.project import Project
from engine.quantization import points
from engine.quantization.insert import (
    insert_quantizers,
    quantizable_layers,
)
from engine.quantization.mixed import MAX_EVALUATIONS, pick_mixed
from engine.quantization.results import ranking_text
from engine.quantization.scheme import QuantizationError, Scheme
from engine.runtime import metrics
from engine.runtime.compiler import compile_network
from engine.runtime.evaluator import run_outputs
from engine.runtime.job import atomic_write_text

__all__ = ["Evaluator", "ranking_text", "run_sensitivity"]


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
    sweep: Any,
    bits: int,
    budget: int | None,
    on_event: Callable[[dict[str, Any]], None],
    max_evaluations: int = MAX_EVALUATIONS,
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
        result["mixed"] = pick_mixed(sweep, evaluator, base, budget, on_event, max_evaluations)
    return result

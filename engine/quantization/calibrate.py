"""Calibration: the value ranges of a trained job, from which each quantizer's Delta follows.

The float network runs in test mode with the job's parameters over the first rows of the
training dataset; the largest |value| of each layer's output and of each parameter is kept.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

import engine.nn as nn
from engine.core import backend
from engine.data import open_dataset
from engine.data.iterator import batches_once
from engine.graph.project import Project
from engine.nn.parameter_file import read_index
from engine.quantization.insert import Ranges
from engine.quantization.scheme import QuantizationError
from engine.runtime.checkpoint import job_parameters
from engine.runtime.compiler import compile_network
from engine.runtime.job import Job, JobError
from engine.runtime.program import Program
from engine.runtime.session import RunPlan

__all__ = ["job_parameters_file", "check_parameters", "calibrate", "training_csv"]


def job_parameters_file(job: Job, checkpoint: str = "best") -> Path:
    """The job's ``best`` parameters (``last`` when no epoch was monitored)."""

    try:
        return job_parameters(job, checkpoint)[0]
    except JobError as exc:
        raise QuantizationError(str(exc)) from None


def check_parameters(program: Program, path: Path, job: Job) -> None:
    """Every parameter of ``program`` exists in the job with the same shape (else one line
    naming the parameter and both shapes), checked from the file's headers (no array read)."""
    shapes = {name: header.shape for name, header in read_index(path).items()}
    for decl in program.parameters:
        have = shapes.get(decl.name)
        if have is None:
            raise QuantizationError(
                f'{job.root}: the job has no parameter "{decl.name}" that network '
                f'"{program.network}" needs (shape {decl.shape}); was it trained on this network?'
            )
        if have != tuple(decl.shape):
            raise QuantizationError(
                f'{job.root}: parameter "{decl.name}" has shape {have} in the job but '
                f'{tuple(decl.shape)} in network "{program.network}"'
            )


def training_csv(plan: RunPlan) -> tuple[Path, bool]:
    """The first optimizer's dataset CSV and its Image Normalization."""
    name = plan.optimizers[0]["dataset"]
    info = plan.datasets[name]
    return Path(info["csv"]), bool(info["normalize"])


def calibrate(project: Project, network: str, job: Job, rows: int = 256) -> Ranges:
    """Largest |value| per layer output and per parameter of ``network`` with the job's
    parameters, over the first ``rows`` training rows."""
    plan = RunPlan.from_json(job.config()["plan"])
    program = compile_network(project, network, test_mode=True)
    path = job_parameters_file(job)
    check_parameters(program, path, job)
    nn.clear_parameters()
    params = program.create_parameters()
    nn.load_parameters(path)
    ranges = Ranges(parameters={n: _max_abs(v.data) for n, v in params.items()})
    csv, normalize = training_csv(plan)
    seen = 0
    with open_dataset(csv, normalize=normalize, cache=True) as data, nn.no_grad():
        for _, batch in batches_once(data, plan.batch_size, program.variables()):
            acts = program.forward(batch, params)
            for name, value in acts.items():
                top = _max_abs(value.data)
                ranges.activations[name] = max(top, ranges.activations.get(name, 0.0))
            seen += len(next(iter(batch.values())))
            if seen >= rows:
                break
    return ranges


def _max_abs(array: Any) -> float:
    values = backend.to_numpy(array)
    return float(np.max(np.abs(values))) if values.size else 0.0

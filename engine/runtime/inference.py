"""Inference on files: ``neurocanvas forward PROJECT_OR_JOB --input FILE...``.

The source is a job folder (its executor network with the best or last trained parameters) or
a project file (its executor network, with parameters from ``params`` or freshly initialized).
Each input file is one sample for the network's dataset variable: images (normalized by 1/255 as
Image Normalization does), per-sample CSV matrices, ``.npy`` arrays. A network that reads
several variables takes ``NAME=FILE`` inputs.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

import engine.nn as nn
from engine.core import backend
from engine.data.loaders import FileLoadError, load_file, normalization_scale
from engine.formats import load_project
from engine.runtime.compiler import compile_network
from engine.runtime.evaluator import load_job_parameters
from engine.runtime.job import Job, JobError
from engine.runtime.program import Program
from engine.runtime.session import RunPlan

__all__ = ["Prediction", "forward_files"]


@dataclass(frozen=True)
class Prediction:
    """The outputs of one sample: ``{output name: float32 array}``."""

    inputs: dict[str, str]
    outputs: dict[str, np.ndarray]

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"inputs": self.inputs, "outputs": {}}
        for name, value in self.outputs.items():
            entry: dict[str, Any] = {"shape": list(value.shape),
                                     "values": value.reshape(-1).tolist()}  # fmt: skip
            if value.size > 1 and value.ndim == 1:
                entry["class"] = int(np.argmax(value))
            out["outputs"][name] = entry
        return out


def forward_files(
    source: str | Path,
    inputs: Sequence[str],
    *,
    network: str | None = None,
    checkpoint: str = "best",
    params: str | Path | None = None,
    normalize: bool = True,
) -> list[Prediction]:
    """Run the executor network (or ``network``) on each sample given by ``inputs``."""
    program, parameters = _program(Path(source), network, checkpoint, params)
    samples = _samples(program, inputs)
    predictions = []
    with nn.no_grad():
        for given in samples:
            batch = {name: _load(path, normalize)[None] for name, path in given.items()}
            acts = program.forward(batch, parameters)
            outputs = {name: backend.to_numpy(program.output(acts, name).data)[0]
                       for name, _ in program.outputs}  # fmt: skip
            predictions.append(Prediction(dict(given), outputs))
    return predictions


def _program(
    source: Path, network: str | None, checkpoint: str, params: str | Path | None
) -> tuple[Program, dict[str, Any]]:
    if source.is_dir():
        job = Job.open(source)
        plan = RunPlan.from_json(job.plan(), str(job.config_file))
        name = network or (plan.executors[0]["network"] if plan.executors else None)
        if name is None:
            raise JobError(f"{source}: the project has no executor; name a --network")
        program = compile_network(job.load_project(), name)
        return program, load_job_parameters(job, program, checkpoint)
    project = load_project(source)
    name = network or (project.executors[0].network if project.executors else None)
    if name is None:
        raise JobError(f"{source}: the project has no executor; name a --network")
    program = compile_network(project, name)
    nn.clear_parameters()
    parameters = program.create_parameters(Path(source).resolve().parent)
    if params is not None:
        nn.load_parameters(params)
    return program, parameters


def _samples(program: Program, inputs: Sequence[str]) -> list[dict[str, str]]:
    """Each input as ``{variable: file}``; ``NAME=FILE`` items of several variables group."""
    variables = list(program.feeds)
    if not variables:
        raise JobError(f'network "{program.network}" reads no dataset variable')
    named = [item.partition("=") for item in inputs]
    if all(sep == "" for _, sep, _ in named):
        if len(variables) > 1:
            raise JobError(
                f'network "{program.network}" reads {", ".join(variables)}; give inputs as '
                f"NAME=FILE"
            )
        return [{variables[0]: item} for item in inputs]
    groups: dict[str, list[str]] = {}
    for name, sep, path in named:
        if not sep or name not in variables:
            raise JobError(f"--input {name}{sep}{path}: expected NAME=FILE with NAME one of "
                           f"{', '.join(variables)}")  # fmt: skip
        groups.setdefault(name, []).append(path)
    counts = {len(v) for v in groups.values()}
    if set(groups) != set(variables) or len(counts) != 1:
        raise JobError(f"give the same number of files for each of {', '.join(variables)}")
    return [{name: groups[name][k] for name in variables} for k in range(counts.pop())]


def _load(path: str, normalize: bool) -> np.ndarray:
    try:
        raw = load_file(Path(path))
    except FileLoadError as exc:
        raise JobError(f"--input {path}: {exc}") from None
    scale = normalization_scale(raw.dtype) if normalize else None
    value = raw.astype(np.float32)
    return value * np.float32(scale) if scale else value

"""Inference on files: ``neurocanvas forward PROJECT_OR_JOB --input FILE...``.

The source is a job folder (its executors' networks with the best or last trained parameters)
or a project file (its executors' networks, with parameters from ``params`` or freshly
initialized). As nnabla's ``forward`` runs every executor on each batch of a dataset, in CONFIG
order (:func:`engine.runtime.evaluator.run_batch`: Number of Evaluations, Need Back
Propagation, buffers one executor writes for the next), each input sample here goes through
every executor (or those ``executors`` names), and each gives one :class:`Prediction`;
``network`` instead runs that one network once, plainly.

Each input file is one sample of a dataset variable: images (normalized by 1/255 as Image
Normalization does), per-sample CSV matrices, ``.npy`` arrays. When the executors read several
variables, inputs are ``NAME=FILE``; an executor gets the variables it reads.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

import engine.nn as nn
from engine.data.loaders import FileLoadError, load_file, normalization_scale
from engine.formats import load_project
from engine.graph.project import Project
from engine.runtime.compiler import compile_network
from engine.runtime.evaluator import ExecutorRun, load_parameters, run_batch
from engine.runtime.job import Job, JobError
from engine.runtime.program import FeedError
from engine.runtime.session import RunPlan, executor_plans

__all__ = ["Prediction", "forward_files"]


@dataclass(frozen=True)
class Prediction:
    """One executor's outputs for one sample: ``{output name: float32 array}``."""

    inputs: dict[str, str]  # the files this executor read, by dataset variable
    outputs: dict[str, np.ndarray]
    executor: str | None = None  # None: the network ``--network`` named
    network: str = ""

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"executor": self.executor, "network": self.network,
                               "inputs": self.inputs, "outputs": {}}  # fmt: skip
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
    executors: Sequence[str] | None = None,
    checkpoint: str = "best",
    params: str | Path | None = None,
    normalize: bool = True,
    seed: int | None = None,
    count: int = 1,
) -> list[Prediction]:
    """Every executor (or those named, or ``network``) on each sample ``inputs`` give, in turn.

    Executors that read no dataset variable (a GAN's generator) take no inputs and run
    ``count`` times instead, each a sample of its own. ``seed`` seeds generators and dropout
    (default: a job's own seed, as ``evaluate``).
    """
    if seed is not None:
        nn.seed(seed)  # a project's fresh parameters as well, so --seed repeats a run
    runs, job_seed = _runs(Path(source), network, executors, checkpoint, params)
    samples = _samples(runs, inputs, count)
    if seed is not None or job_seed is not None:
        nn.seed(seed if seed is not None else job_seed)
    predictions = []
    for given in samples:
        batch = {name: _load(path, normalize)[None] for name, path in given.items()}
        batch = batch or {"": np.zeros((1, 0), np.float32)}  # no variable: a batch of one
        try:
            results = run_batch(runs, batch)
        except FeedError as exc:  # a file that does not fit: name it, not "dataset variable"
            raise FeedError(f"--input {', '.join(given.values())}: {exc}") from None
        for run, outputs in zip(runs, results, strict=True):
            read = {name: given[name] for name in run.program.variables()}
            first = {name: value[0] for name, value in outputs.items()}  # the batch of one
            predictions.append(Prediction(read, first, run.info.get("name"), run.program.network))
    return predictions


def _runs(
    source: Path,
    network: str | None,
    executors: Sequence[str] | None,
    checkpoint: str,
    params: str | Path | None,
) -> tuple[list[ExecutorRun], int | None]:
    """The executors to run with their parameters, and the job's seed (None for a project)."""
    job = Job.open(source) if source.is_dir() else None
    if job is not None:
        plan = RunPlan.from_json(job.plan(), str(job.config_file))
        project: Project = job.load_project()
        infos = plan.executors
    else:
        project = load_project(source)
        infos = executor_plans(project)
    # A named network runs once, as an executor with the defaults (no repeats, no backward).
    infos = [{"name": None, "network": network}] if network else _pick(source, infos, executors)
    programs = [compile_network(project, info["network"]) for info in infos]
    if job is not None:
        values = load_parameters(job, programs, checkpoint)
    else:
        nn.clear_parameters()
        values = [program.create_parameters(source.resolve().parent) for program in programs]
        if params is not None:
            nn.load_parameters(params)
    runs = [ExecutorRun(*run) for run in zip(programs, values, infos, strict=True)]
    return runs, (plan.seed if job is not None else None)


def _pick(
    source: Path, infos: list[dict[str, Any]], names: Sequence[str] | None
) -> list[dict[str, Any]]:
    """The executors ``names`` picks, in CONFIG order (each may read what one before wrote)."""
    if not infos:
        raise JobError(f"{source}: the project has no executor; name a --network")
    known = [str(info.get("name", "")) for info in infos]
    for name in names or ():
        if name not in known:
            raise JobError(f"--executor {name}: no such executor; the project has "
                           f"{', '.join(known)}")  # fmt: skip
    return [info for info in infos if not names or info.get("name") in names]


def _samples(
    runs: Sequence[ExecutorRun], inputs: Sequence[str], count: int
) -> list[dict[str, str]]:
    """Each input as ``{variable: file}``; ``NAME=FILE`` items of several variables group.
    Without variables to read: ``count`` empty samples."""
    variables = list(dict.fromkeys(v for run in runs for v in run.program.variables()))
    if not variables:
        if inputs:
            raise JobError(f"{_describe(runs)} {_read(runs)} no dataset variable: give no "
                           f"--input (--count N runs it N times)")  # fmt: skip
        if count < 1:
            raise JobError(f"--count: expected a positive integer. Received: {count}")
        return [{} for _ in range(count)]
    if not inputs:
        raise JobError(f"{_describe(runs)} {_read(runs)} {', '.join(variables)}: give --input "
                       f"FILE...")  # fmt: skip
    named = [item.partition("=") for item in inputs]
    if all(sep == "" for _, sep, _ in named):
        if len(variables) > 1:
            raise JobError(f"{_describe(runs)} {_read(runs)} {', '.join(variables)}; give "
                           f"inputs as NAME=FILE")  # fmt: skip
        return [{variables[0]: item} for item in inputs]
    groups: dict[str, list[str]] = {}
    for name, sep, path in named:
        if not sep or name not in variables:
            raise JobError(f"--input {name}{sep}{path}: no executor reads it; expected "
                           f"NAME=FILE with NAME one of {', '.join(variables)}")  # fmt: skip
        groups.setdefault(name, []).append(path)
    for run in runs:
        missing = [v for v in run.program.variables() if v not in groups]
        if missing:
            raise JobError(
                f"{_describe([run])} reads {', '.join(missing)}: give {missing[0]}=FILE too, "
                f"or pick other executors with --executor"
            )
    counts = {len(v) for v in groups.values()}
    if len(counts) != 1:
        raise JobError(f"give the same number of files for each of {', '.join(variables)}")
    return [{name: groups[name][k] for name in variables} for k in range(counts.pop())]


def _describe(runs: Sequence[ExecutorRun]) -> str:
    """``executor "E" (network "N")``, ``network "N"`` or ``the executors E, F``."""
    if len(runs) > 1:
        return "the executors " + ", ".join(str(run.info["name"]) for run in runs)
    name, network = runs[0].info.get("name"), runs[0].program.network
    return f'executor "{name}" (network "{network}")' if name else f'network "{network}"'


def _read(runs: Sequence[ExecutorRun]) -> str:
    return "read" if len(runs) > 1 else "reads"


def _load(path: str, normalize: bool) -> np.ndarray:
    try:
        raw = load_file(Path(path))
    except FileLoadError as exc:
        raise JobError(f"--input {path}: {exc}") from None
    scale = normalization_scale(raw.dtype) if normalize else None
    value = raw.astype(np.float32)
    return value * np.float32(scale) if scale else value

"""One sweep point: a job folder holding the quantized project, evaluated like any job.

* ``float`` and ``ptq`` points: the job's float parameters, unchanged, become the point's
  ``checkpoints/best`` (quantizers change the values on the fly); nothing is trained.
* ``qat`` points: :func:`engine.runtime.run.train` for N epochs starting from the job's float
  parameters, quantizers in the graph (straight-through gradients); an interrupted one resumes
  from its last checkpoint.

Each folder is then evaluated (:func:`engine.runtime.evaluator.evaluate`), so it has
``output_result.csv``, the confusion matrix and ``evaluation.json`` like any job, and a
``learning_curve.csv`` the TRAINING tab's history and trade-off graph read.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import engine.nn as nn
from engine.data import DatasetError
from engine.formats import save_project
from engine.graph.project import Project
from engine.quantization.scheme import QuantizationError
from engine.runtime import run as runner
from engine.runtime.checkpoint import PARAMETERS, checkpoint_path
from engine.runtime.compiler import compile_network
from engine.runtime.datasets import open_project_dataset, resolve_uri
from engine.runtime.evaluator import evaluate, load_job_parameters
from engine.runtime.extensions import evaluate_monitor
from engine.runtime.job import Job, atomic_write_json
from engine.runtime.session import MonitorRun, RunPlan, Session, plan_run

__all__ = ["retarget", "absolute_datasets", "fixed_job", "trained_job", "accuracy_of", "free_name"]

_NETWORK_KEYS = {
    "optimizers": "Optimizer_NetworkName",
    "monitors": "Monitor_NetworkName",
    "executors": "Executor_NetworkName",
}


def retarget(project: Project, old: str, new: str) -> None:
    """Point the CONFIG's optimizers, monitors and executors at ``new`` instead of ``old``
    (``<old>Validation`` / ``<old>Runtime`` become ``<new>Validation`` / ``<new>Runtime``)."""
    for collection, key in _NETWORK_KEYS.items():
        for index, item in enumerate(getattr(project, collection)):
            value = item.values.get(key, "")
            for suffix in ("", "Validation", "Runtime"):
                if value == old + suffix:
                    values = {**item.values, key: new + suffix}
                    project.replace_section((collection, index), type(item)(values=values))


def absolute_datasets(project: Project, base: Path) -> None:
    """Dataset links given as relative CSV paths become absolute (the point's project lives
    elsewhere than the source project)."""
    for index, item in enumerate(project.datasets):
        uri = item.uri.strip()
        if not uri or uri.startswith("builtin:") or "{SDCPATH}" in uri:
            continue
        try:
            path = resolve_uri(uri, base, dataset=item.name)
        except DatasetError:
            continue  # left as it is; the run names the missing file
        values = {**item.values, "URI": str(path.resolve())}
        project.replace_section(("datasets", index), type(item)(values=values))


def _complete(folder: Path) -> bool:
    return (folder / "network.ncproj").is_file() and (folder / "config.json").is_file()


def fixed_job(
    folder: Path, project: Project, parameters: Path, base: Path, info: dict[str, Any], seed: int
) -> Job:
    """A float or PTQ point: the project and the float parameters, built in a temporary folder
    and renamed into place (an interrupted sweep leaves no half folder)."""
    if _complete(folder):
        return Job(folder)
    plan = plan_run(project, base=base, seed=seed)
    plan.max_epoch = 0
    build = Path(tempfile.mkdtemp(prefix=f".{folder.name}.", dir=folder.parent))
    try:
        job = Job.create(build, project, None)
        job.write_config({"plan": plan.to_json(), "quantization": info})
        executor = plan.executors[0]["network"] if plan.executors else plan.monitors[0]["network"]
        program = compile_network(project, executor)
        nn.clear_parameters()
        params = program.create_parameters()
        nn.load_parameters(parameters)
        best = job.checkpoint_dir("best")
        best.mkdir(parents=True)
        nn.save_parameters(best / PARAMETERS, params)
        atomic_write_json(best / "state.json", {"format": "neurocanvas-checkpoint",
                                                "version": 1, "epoch": 0})  # fmt: skip
        job.write_status(status="finished", epoch=0, max_epoch=0, best_epoch=0,
                         message=info.get("description", ""))  # fmt: skip
        os.rename(build, folder)
    except BaseException:
        shutil.rmtree(build, ignore_errors=True)
        raise
    return Job(folder)


def trained_job(
    folder: Path, project: Project, parameters: Path, epochs: int, seed: int,
    info: dict[str, Any], on_trainer: Callable[[Any], None],
) -> tuple[Job, str]:  # fmt: skip
    """A QAT point: fine-tune from the float parameters; resume an interrupted one."""

    status = _status(folder)
    if status == "finished":
        return Job(folder), status
    if folder.exists() and (folder / "checkpoints" / "last").is_dir():
        options = runner.Options(on_trainer=on_trainer, checkpoint_interval=10.0)
        result = runner.resume(folder, options=options)
        return result.job, result.status
    if folder.exists():  # stopped before its first checkpoint: kept aside, never deleted
        os.rename(folder, free_name(folder, "interrupted"))

    def start(trainer: Any) -> None:
        nn.load_parameters(parameters)  # the float job's values into the quantized graph
        on_trainer(trainer)

    with tempfile.TemporaryDirectory(prefix="neurocanvas-qat-") as tmp:
        source = Path(tmp) / f"{folder.name}.ncproj"
        save_project(project, source)
        options = runner.Options(on_trainer=start, checkpoint_interval=10.0)
        result = runner.train(source, job_dir=folder, epochs=epochs, seed=seed, options=options)
    config = result.job.config()
    result.job.write_config({k: v for k, v in config.items() if k not in ("format", "version")}
                            | {"quantization": info})  # fmt: skip
    return result.job, result.status


def _status(folder: Path) -> str:
    import json

    try:
        return str(json.loads((folder / "status.json").read_text("utf-8")).get("status", ""))
    except (OSError, ValueError):
        return ""


def free_name(folder: Path, tag: str) -> Path:
    """``folder.<tag>-K``, the first that is free (a folder kept aside instead of deleted)."""
    k = 1
    while folder.with_name(f"{folder.name}.{tag}-{k}").exists():
        k += 1
    return folder.with_name(f"{folder.name}.{tag}-{k}")


def accuracy_of(job: Job) -> float:
    """Evaluate the point's job (best parameters) and return the classification accuracy."""
    result = evaluate(job.root)
    classes = result.summary.get("classification", {})
    if not classes:
        raise QuantizationError(
            f"{job.root}: the network has no classification output to measure accuracy on"
        )
    accuracy = float(next(iter(classes.values()))["accuracy"])
    if _status(job.root) == "finished" and not (job.root / "events.jsonl").exists():
        job.write_curve([(0, None, None, validation_error(job))])  # what the history plots
    return accuracy


def validation_error(job: Job) -> float | None:
    """The ``valid_error`` monitor as the trainer computes it (so an untrained point sits
    on the trade-off graph beside trained jobs), with the job's best parameters."""

    plan = RunPlan.from_json(job.config()["plan"])
    chosen = [m for m in plan.monitors if m["name"] == "valid_error"] or plan.monitors[-1:]
    if not chosen:
        return None
    monitor, project = chosen[0], job.load_project()
    info = plan.datasets[monitor["dataset"]]
    program = compile_network(project, monitor["network"])
    params = load_job_parameters(job, program, "best")
    normalize, cache = bool(info["normalize"]), bool(info["cache"])
    data = open_project_dataset(info["csv"], None, name=monitor["dataset"], normalize=normalize,
                                cache=cache)  # fmt: skip
    session = Session(plan, project, {monitor["dataset"]: data}, [], [])
    try:
        run = MonitorRun(monitor["name"], monitor["network"], monitor["dataset"], program, params)
        return evaluate_monitor(session, run)[0]
    finally:
        session.close()


def parameters_file(job: Job) -> Path:
    """The parameters a point's evaluation uses (for tests and reports)."""
    return checkpoint_path(job.checkpoint_dir("best")) / PARAMETERS

"""Start or resume a training job: what ``neurocanvas train`` and the app's Run button do.

::

    from engine.runtime.run import train, resume

    result = train("projects/lenet_digits.ncproj", job_dir="jobs/lenet", seed=0)
    result.status            # "finished" or "stopped"
    result.state.history     # the learning curve (EpochRecord per epoch)
    resume("jobs/lenet", epochs=20)   # continue exactly where the last checkpoint left off
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from engine.core import backend
from engine.formats import load_project
from engine.runtime.checkpoint import checkpoint_path, load_checkpoint
from engine.runtime.events import EventSink
from engine.runtime.extensions import JobRecorder, standard_extensions
from engine.runtime.job import Job, JobError, default_job_dir
from engine.runtime.session import RunPlan, build_session, plan_run
from engine.runtime.trainer import Trainer, TrainingError, TrainState

__all__ = ["TrainResult", "train", "resume"]


@dataclass
class TrainResult:
    job: Job
    status: str  # finished | stopped
    state: TrainState


@dataclass
class Options:
    """How the run talks to the outside (not part of the job's configuration)."""

    events: TextIO | None = None  # stream for JSON-lines events (--events: stdout)
    progress: bool = False  # a tqdm bar on stderr
    stdin_stop: bool = False  # a line "stop" on stdin stops the run
    checkpoint_interval: float = 30.0  # seconds between "last" checkpoints (and at the end)
    prefetch: int = 2
    extensions: Sequence[Any] = ()  # extra extensions, after the standard ones
    on_trainer: Any = None  # called with the Trainer before it runs (signal handlers, tests)


def train(
    project_file: str | Path,
    *,
    job_dir: str | Path | None = None,
    epochs: int | None = None,
    seed: int | None = None,
    options: Options | None = None,
    loss_scaling: str = "dynamic",
    project: Any = None,
    numbered: bool = False,
) -> TrainResult:
    """Train ``project_file`` (any project format) into a new job folder.

    ``numbered``: ``job_dir`` is a proposal, as the default folder is: if another run took it,
    the next free ``<job_dir>_2``, ``_3``... (the app names its folder and must not fail on a
    command-line run started in the same second).

    ``loss_scaling`` (precision Half only): ``dynamic`` (nnabla's rule) or ``none`` (NNC).
    ``project``: train this in-memory project instead (structure search's candidates); relative
    dataset paths are still read from ``project_file``'s folder.
    """
    options = options or Options()
    source = Path(project_file)
    given = project is not None
    project = project if given else load_project(source)
    plan = plan_run(project, base=source.parent.resolve(), seed=seed, max_epoch=epochs,
                    progress=options.progress)  # fmt: skip
    plan.project_file = str(source.resolve())
    plan.device = backend.device()
    plan.loss_scaling = loss_scaling
    root = Path(job_dir) if job_dir else default_job_dir(source)
    numbered = numbered or not job_dir
    if not numbered:
        Job.check_new(root)  # before the (slow) session: a taken -o folder fails fast
    session = build_session(project, plan, prefetch=options.prefetch)
    try:
        job = Job.create(root, project, None if given else source, numbered=numbered)
        job.write_config({"plan": plan.to_json()})
        return _run(job, session, None, options, resumed=False)
    finally:
        session.close()


def resume(
    job_dir: str | Path, *, epochs: int | None = None, options: Options | None = None
) -> TrainResult:
    """Continue a job from its ``last`` checkpoint, exactly (same learning curve on CPU).

    ``epochs`` raises (or lowers) Max Epoch; the learning-rate schedule keeps the original one.
    """
    options = options or Options()
    job = Job.open(Path(job_dir))
    status = job.status()
    if status.get("status") == "running":
        raise JobError(f"{job.root}: the job is still running (process "
                       f"{status.get('pid')}); stop it before resuming")  # fmt: skip
    if status.get("status") == "interrupted":
        logging.getLogger("neurocanvas").info("%s: %s", job.root, status["message"])
    job.remove_strays()  # what a killed run was writing
    plan = RunPlan.from_json(job.plan(), str(job.config_file))
    if not checkpoint_path(job.checkpoint_dir("last")).is_dir():
        raise JobError(f"{job.root}: no checkpoint to resume from (checkpoints/last is missing)")
    if plan.processes > 1:  # its batches and iterations are those of K processes
        raise JobError(
            f"{job.root}: a job of {plan.processes} processes; resume it with "
            "--distributed (under mpirun -n K with any K, or alone for one process)"
        )
    if epochs is not None:
        if epochs < 1:
            raise JobError(f"--epochs: expected a positive integer. Received: {epochs}")
        plan.max_epoch = epochs
        job.write_config({"plan": plan.to_json()})
    plan.device = backend.device()
    try:
        session = build_session(job.load_project(), plan, prefetch=options.prefetch)
    except (KeyError, TypeError, AttributeError, IndexError) as exc:  # a plan edited by hand
        raise JobError(f"{job.config_file}: damaged ({type(exc).__name__}: {exc})") from None
    try:
        return _run(job, session, job.checkpoint_dir("last"), options, resumed=True)
    finally:
        session.close()


def _run(
    job: Job, session: Any, checkpoint: Path | None, options: Options, resumed: bool
) -> TrainResult:
    events = EventSink(job, options.events)
    extensions = standard_extensions(
        job, progress=options.progress, stdin_stop=options.stdin_stop,
        checkpoint_interval=options.checkpoint_interval,
        start_fields={"job": str(job.root), "project": session.plan.project_file,
                      "device": session.plan.device, "resumed": resumed},
    )  # fmt: skip
    trainer = Trainer(session, [*extensions, *options.extensions], events)
    if checkpoint is not None:
        trainer.state = load_checkpoint(trainer, checkpoint)
        if trainer.state.iteration > session.total_iterations:
            raise TrainingError(
                f"{job.root}: the checkpoint is at epoch {trainer.state.epoch}, past Max Epoch "
                f"{session.plan.max_epoch}; pass a larger --epochs"
            )
    if options.on_trainer is not None:
        try:
            options.on_trainer(trainer)  # --params: a file that does not fit the network
        except Exception as exc:
            if not resumed:  # the new job failed at its start; it is not left "running"
                JobRecorder(job).on_error(trainer, exc)
            raise
    status = trainer.run()
    return TrainResult(job, status, trainer.state)

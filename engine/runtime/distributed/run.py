"""Start or resume a data-parallel job: ``mpirun -n K neurocanvas train PROJECT --distributed``.

Every rank loads the project, plans and builds the same session; their agreement is checked
before anything is written (a hash of the project and dataset files, and any setup error of
any rank becomes one error on rank 0). CONFIG ``BatchSize`` is the batch of one process: the
global batch is K x BatchSize and an epoch has ``floor(rows / global batch)`` iterations. Rank 0
alone creates the job folder and writes events, the learning curve and checkpoints; checkpoints
have the single-process format, so a job may be resumed with another K (or without MPI).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from engine.core import backend
from engine.formats import load_project
from engine.runtime.checkpoint import checkpoint_path, load_checkpoint
from engine.runtime.distributed.collectives import DistributedError, World, fingerprint
from engine.runtime.distributed.shards import ShardedMonitors, ShardIterator, check_shards
from engine.runtime.distributed.trainer import DistributedTrainer, scale_learning_rates
from engine.runtime.events import EventSink
from engine.runtime.extensions import Monitors, standard_extensions
from engine.runtime.job import Job, JobError, default_job_dir
from engine.runtime.run import Options, TrainResult
from engine.runtime.session import (
    RunPlan,
    Session,
    SetupError,
    _optimizer_plan,
    build_session,
    plan_run,
)
from engine.runtime.trainer import TrainingError, TrainState

__all__ = ["train", "resume", "shard_plan"]

T = TypeVar("T")


def train(
    project_file: str | Path,
    w: World,
    *,
    job_dir: str | Path | None = None,
    epochs: int | None = None,
    seed: int | None = None,
    options: Options | None = None,
    loss_scaling: str = "dynamic",
    lr_scaling: str = "none",
    lr_warmup: int = 0,
    numbered: bool = False,
) -> TrainResult:
    """Train on every rank; the job folder (rank 0's) is in the result of every rank.

    ``numbered``, as in :func:`engine.runtime.run.train` (and always without ``job_dir``): the
    folder is a proposal; rank 0 claims it or the next free ``_2``, ``_3``... and tells the others.
    """
    options = options or Options()
    agree_on_options(w, {"--seed": seed, "--epochs": epochs, "-o": job_dir,
                         "--loss-scaling": loss_scaling, "--lr-scaling": lr_scaling,
                         "--lr-warmup": lr_warmup})  # fmt: skip
    seed = w.bcast(seed if seed is not None else random.SystemRandom().randrange(2**31))
    source = Path(project_file)
    root = Path(w.bcast(str(job_dir or default_job_dir(source)) if w.is_root else None))
    numbered = numbered or not job_dir

    def setup() -> tuple[Any, RunPlan, Session]:
        project = load_project(source)
        plan = plan_run(project, base=source.parent.resolve(), seed=seed, max_epoch=epochs)
        plan.project_file, plan.device = str(source.resolve()), backend.device()
        plan.loss_scaling, plan.lr_scaling, plan.lr_warmup = loss_scaling, lr_scaling, lr_warmup
        shard_plan(project, plan, w.size)
        if w.is_root and not numbered:
            Job.check_new(root)  # before the (slow) session: a taken -o folder fails fast
        return project, plan, _build(project, plan, w, options)

    def prepare() -> None:  # built-in datasets are generated once, by rank 0, not K times at once
        if w.is_root:
            plan_run(load_project(source), base=source.parent.resolve(), seed=seed,
                     max_epoch=epochs, progress=options.progress)  # fmt: skip

    agree(w, prepare)
    project, plan, session = agree(w, setup)
    try:
        _check_same_inputs(w, plan, [source])
        created = agree(w, lambda: _create_job(w, root, project, source, plan, numbered))
        return _run(w, Job(Path(w.bcast(str(created) if w.is_root else None))), session, options)
    finally:
        session.close()


def resume(
    job_dir: str | Path, w: World, *, epochs: int | None = None, options: Options | None = None
) -> TrainResult:
    """Continue a job (distributed or not) from its last checkpoint with this run's K."""
    options = options or Options()
    agree_on_options(w, {"--resume": job_dir, "--epochs": epochs})

    def setup() -> tuple[Job, RunPlan, Session, RunPlan]:
        job = Job.open(Path(job_dir))
        plan = RunPlan.from_json(job.config()["plan"])
        if not checkpoint_path(job.checkpoint_dir("last")).is_dir():
            raise JobError(
                f"{job.root}: no checkpoint to resume from (checkpoints/last is missing)"
            )
        if epochs is not None and epochs < 1:
            raise JobError(f"--epochs: expected a positive integer. Received: {epochs}")
        saved = RunPlan.from_json(plan.to_json())
        project = job.load_project()
        plan.device = backend.device()
        shard_plan(project, plan, w.size)  # the schedule keeps the original Max Epoch
        plan.max_epoch = epochs if epochs is not None else plan.max_epoch
        return job, plan, _build(project, plan, w, options), saved

    job, plan, session, saved = agree(w, setup)
    try:
        _check_same_inputs(w, plan, [job.project_file])
        if w.is_root:
            job.write_config({"plan": plan.to_json()})
        return _run(w, job, session, options, (job.checkpoint_dir("last"), saved))
    finally:
        session.close()


def shard_plan(project: Any, plan: RunPlan, processes: int) -> None:
    """Iterations per epoch and iteration-based settings for K processes of BatchSize each."""
    plan.processes = processes
    name = next((n for n, d in plan.datasets.items() if "rows" in d), None)
    rows = int(plan.datasets[name]["rows"]) if name else 0
    ipe = rows // (plan.batch_size * processes)
    if ipe < 1:
        raise SetupError(
            f'dataset "{name}" has {rows} rows, fewer than one global batch of {processes} '
            f"processes x [Config] BatchSize {plan.batch_size} = {plan.batch_size * processes}; "
            "use fewer processes or a smaller batch size"
        )
    plan.iter_per_epoch = ipe
    plan.optimizers = [_optimizer_plan(o, ipe, plan.max_epoch) for o in project.optimizers]


def agree(w: World, step: Callable[[], T]) -> T:
    """Run ``step`` on every rank; if any rank fails, every rank raises rank 0's view of it."""
    try:
        result, error = step(), None
    except (DistributedError, SetupError, JobError, TrainingError, ValueError, OSError) as exc:
        result, error = None, str(exc)
    except Exception as exc:  # a rank leaving alone would leave the others waiting forever
        result, error = None, f"{type(exc).__name__}: {exc}"
    errors = w.allgather(error)
    for rank, message in enumerate(errors):
        if message:
            raise DistributedError(message if rank == 0 else f"process {rank}: {message}")
    return result  # type: ignore[return-value]


def _build(project: Any, plan: RunPlan, w: World, options: Options) -> Session:
    session = build_session(project, plan, prefetch=options.prefetch)
    for name, iterator in list(session.iterators.items()):
        iterator.close()
        session.iterators[name] = ShardIterator(
            iterator.dataset, plan.batch_size, w, shuffle=iterator.shuffle, seed=iterator.seed,
            variables=iterator.names, prefetch=options.prefetch,
        )  # fmt: skip
    check_shards(session, w)
    scale_learning_rates(session, w.size)
    _seed_rank(w, plan.seed, 0)
    return session


def agree_on_options(w: World, given: dict[str, Any]) -> None:
    """Every rank must be given the same options: rank 0's would otherwise win silently (its
    seed and job folder are the ones used) or, for --epochs, look like different files."""
    mine = {name: None if value is None else str(value) for name, value in given.items()}
    everyone = w.allgather(mine)
    for rank, theirs in enumerate(everyone[1:], start=1):
        for name, value in theirs.items():
            if value != everyone[0][name]:
                raise DistributedError(
                    f"process {rank} was given {_shown(name, value)}, process 0 "
                    f"{_shown(name, everyone[0][name])}; give every process the same options"
                )


def _shown(name: str, value: str | None) -> str:
    return f"no {name}" if value is None else f"{name} {value}"


def _seed_rank(w: World, seed: int, iteration: int) -> None:
    """Parameters are created alike on every rank; dropout and the like then differ per rank."""
    if w.rank:
        backend.seed((seed * 1_000_003 + w.rank * 7919 + iteration) % (2**31))


def _check_same_inputs(w: World, plan: RunPlan, files: list[Path]) -> None:
    """Every rank must train the same project on the same data (hash check before writing)."""
    csvs = [Path(d["csv"]) for d in plan.datasets.values() if d.get("csv")]
    mine = agree(w, lambda: fingerprint([*files, *csvs], f"{plan.seed}/{plan.max_epoch}"))
    hashes = w.allgather(mine)
    odd = [r for r, h in enumerate(hashes) if h != hashes[0]]
    if odd:
        who = f"process {odd[0]} sees" if len(odd) == 1 else f"processes {odd} see"
        names = ", ".join(str(f) for f in [*files, *csvs])
        raise DistributedError(
            f"{who} a different project or dataset than process 0 ({names}); give every host "
            "the same files"
        )


def _create_job(
    w: World, root: Path, project: Any, source: Path, plan: RunPlan, numbered: bool
) -> Path | None:
    """Rank 0 claims the folder (maybe a numbered one) and returns where it is."""
    if not w.is_root:
        return None
    job = Job.create(root, project, source, numbered=numbered)
    job.write_config({"plan": plan.to_json()})
    return job.root


def _run(
    w: World, job: Job, session: Session, options: Options,
    resume_from: tuple[Path, RunPlan] | None = None,
) -> TrainResult:  # fmt: skip
    """Rank 0 runs the standard extensions (job files, events); every rank the monitors."""
    resumed = resume_from is not None
    if w.is_root:
        extensions = standard_extensions(
            job, progress=options.progress, stdin_stop=options.stdin_stop,
            checkpoint_interval=options.checkpoint_interval,
            start_fields={"job": str(job.root), "project": session.plan.project_file,
                          "device": session.plan.device, "resumed": resumed,
                          "processes": w.size},
        )  # fmt: skip
        extensions = [ShardedMonitors(w) if isinstance(e, Monitors) else e for e in extensions]
        events = EventSink(job, options.events)
    else:
        extensions, events = [ShardedMonitors(w)], EventSink()
    trainer = DistributedTrainer(session, w, [*extensions, *options.extensions], events)
    if resume_from is not None:
        trainer.state = _load(trainer, *resume_from, w)
    if options.on_trainer is not None:
        options.on_trainer(trainer)
    status = trainer.run()
    return TrainResult(job, status, trainer.state)


def _load(trainer: DistributedTrainer, checkpoint: Path, saved: RunPlan, w: World) -> TrainState:
    """Load the checkpoint on every rank; from another K, keep the epoch and sample position."""
    session = trainer.session
    state = agree(w, lambda: load_checkpoint(trainer, checkpoint))
    if saved.iter_per_epoch != session.plan.iter_per_epoch:
        done = state.iteration - state.epoch * saved.iter_per_epoch
        moved = done * session.plan.iter_per_epoch // saved.iter_per_epoch
        if state.cost_count:
            state.cost_sum = state.cost_sum / state.cost_count * moved
        state.cost_count = moved
        state.iteration = state.epoch * session.plan.iter_per_epoch + moved
    if state.iteration > session.total_iterations:
        raise TrainingError(
            f"{checkpoint.parent.parent}: the checkpoint is at epoch {state.epoch}, past Max "
            f"Epoch {session.plan.max_epoch}; pass a larger --epochs"
        )
    _seed_rank(w, session.plan.seed, state.iteration)
    return state

"""Everything a run needs, built from a project before the first iteration.

:func:`plan_run` reads the project's CONFIG as NNC does (docs/nnc-behaviour.md §2, docs/formats.md
§1.6-§1.10) into a JSON-able :class:`RunPlan` (stored as the job's ``config.json``, so a resumed
run uses exactly the same settings). :func:`build_session` then compiles every network that an
optimizer, monitor or executor names (so an unsupported layer stops the run before it starts),
opens the datasets, checks the variables the networks read, seeds the engine, creates the
parameters (shared by name across networks) and the solvers with their schedules and ranges.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

import engine.nn as nn
from engine.core.autograd import Variable
from engine.core.messages import QT_TRANSLATE_NOOP, text_of
from engine.core.numbers import shape_in_parens
from engine.data import DataIterator, DatasetError
from engine.data.csv_dataset import Dataset
from engine.data.table import read_table
from engine.graph.project import Project
from engine.graph.validate import config_problems, run_problems, settings_problems
from engine.nn import solvers as S
from engine.nn.lr_scheduler import create_scheduler
from engine.nn.optimizer import Optimizer
from engine.runtime import precision
from engine.runtime.compiler import CompileError, compile_network
from engine.runtime.datasets import open_project_dataset, resolve_uri
from engine.runtime.job import JobError, typed_fields
from engine.runtime.program import Program

__all__ = ["RunPlan", "OptimizerRun", "MonitorRun", "Session", "plan_run", "build_session",
           "SetupError", "solver_arguments", "executor_plans"]  # fmt: skip

# NNC's solver parameter display names (solver_component.txt) -> nnabla argument names.
_SOLVER_ARGS = {
    "Alpha": "alpha", "Beta1": "beta1", "Beta2": "beta2", "Epsilon": "eps", "LearningRate": "lr",
    "Decay": "decay", "Momentum": "momentum", "WeightDecay": "wd", "FinalLR": "final_lr",
    "Gamma": "gamma", "Coefficient": "coefficient", "AMSGrad": "amsgrad",
    "WDDecouple": "weight_decouple", "FixedDecay": "fixed_decay", "Rectify": "rectify",
}  # fmt: skip
_BOOLEAN_ARGS = {"amsgrad", "weight_decouple", "fixed_decay", "rectify"}


class SetupError(ValueError):
    """A project that cannot be trained as configured; the message names the setting."""


@dataclass
class RunPlan:
    """The resolved configuration of a run (``config.json`` of the job folder)."""

    seed: int
    max_epoch: int
    batch_size: int
    iter_per_epoch: int
    monitor_interval: int
    save_best: bool
    precision: str
    datasets: dict[str, dict[str, Any]]  # name -> {uri, csv, rows, shuffle, normalize, cache}
    optimizers: list[dict[str, Any]]
    monitors: list[dict[str, Any]]
    executors: list[dict[str, Any]]
    project_file: str = ""
    device: str = "cpu"
    loss_scaling: str = "dynamic"  # precision Half: "dynamic" (nnabla's rule) or "none" (NNC)
    # Data-parallel runs (engine.runtime.distributed): batch_size is per process.
    processes: int = 1
    lr_scaling: str = "none"  # "linear": learning rate x processes
    lr_warmup: int = 0  # epochs over which the linear scaling ramps up

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: Mapping[str, Any], where: str = "config.json") -> RunPlan:
        """The plan as :meth:`to_json` wrote it; a damaged one is a JobError naming the key."""
        try:
            return cls(**typed_fields(cls, data, where))
        except TypeError as exc:  # a missing field
            raise JobError(f"{where}: damaged ({exc})") from None


@dataclass
class OptimizerRun:
    name: str
    network: str
    dataset: str
    program: Program
    params: dict[str, Variable]
    optimizer: Optimizer


@dataclass
class MonitorRun:
    name: str
    network: str
    dataset: str
    program: Program
    params: dict[str, Variable]


@dataclass
class Session:
    plan: RunPlan
    project: Project
    datasets: dict[str, Dataset]
    optimizers: list[OptimizerRun]
    monitors: list[MonitorRun]
    iterators: dict[str, DataIterator] = field(default_factory=dict)

    @property
    def total_iterations(self) -> int:
        return self.plan.max_epoch * self.plan.iter_per_epoch

    def parameters(self) -> dict[str, Variable]:
        """Every parameter of every network, by name (shared ones once)."""
        out: dict[str, Variable] = {}
        for run in self.optimizers:
            out.update(run.params)
        for monitor in self.monitors:
            out.update(monitor.params)
        return out

    def close(self) -> None:
        for iterator in self.iterators.values():
            iterator.close()
        for dataset in self.datasets.values():
            dataset.close()


# -- planning -------------------------------------------------------------------------------


def plan_run(
    project: Project,
    *,
    base: Path | None,
    seed: int | None = None,
    max_epoch: int | None = None,
    progress: bool = False,
) -> RunPlan:
    """Resolve the project's CONFIG (datasets located, iterations per epoch counted)."""
    config = project.config
    for problem in settings_problems(project):  # before any value is used
        raise SetupError(problem.as_message())
    for problem in config_problems(project):  # named as CONFIG names it, before any download
        raise SetupError(problem.as_message())
    used = [item.network for item in [*project.optimizers, *project.monitors, *project.executors]]
    for problem in run_problems(project, used):  # a layer's error too: before any download
        raise SetupError(problem.as_message())
    if not project.optimizers:
        raise SetupError(QT_TRANSLATE_NOOP(
            "Training", "the project has no optimizer (CONFIG tab): nothing to train"
        ))  # fmt: skip
    batch = _positive(config.get("BatchSize"), "[Config] BatchSize")
    epochs = _positive(max_epoch if max_epoch is not None else config.get("MaxEpoch"),
                       "MaxEpoch (--epochs)")  # fmt: skip
    used = _used_datasets(project)
    datasets: dict[str, dict[str, Any]] = {}
    for item in project.datasets:
        if item.name not in used:
            continue
        csv = _locate(item.uri, base, item.name, progress, required=used[item.name])
        datasets[item.name] = {
            "uri": item.uri, "csv": str(csv) if csv else None, "shuffle": item.shuffle,
            "normalize": item.image_normalization, "cache": item.enable_cache,
        }  # fmt: skip
    ipe = _iter_per_epoch(project, datasets, batch)
    plan = RunPlan(
        seed=int(seed) if seed is not None else int.from_bytes(os.urandom(4), "little") >> 1,
        max_epoch=epochs, batch_size=batch, iter_per_epoch=ipe,
        monitor_interval=config.monitor_interval, save_best=config.save_best,
        precision=config.precision, datasets=datasets,
        optimizers=[_optimizer_plan(o, ipe, epochs) for o in project.optimizers],
        monitors=[{"name": m.name, "network": m.network, "dataset": m.dataset}
                  for m in project.monitors],
        executors=executor_plans(project),
    )  # fmt: skip
    return plan


def executor_plans(project: Project) -> list[dict[str, Any]]:
    """The CONFIG's executors as a run plan (and config.json) lists them, in CONFIG order."""
    return [{"name": e.name, "network": e.network, "dataset": e.dataset,
             "num_evaluations": e.num_evaluations,
             "repeat_evaluation_type": e.repeat_evaluation_type,
             "need_back_propagation": e.need_back_propagation}
            for e in project.executors]  # fmt: skip


_NOT_POSITIVE = QT_TRANSLATE_NOOP(
    "Training", "{what}: expected a positive integer. Received: {value}"
)


def _positive(value: Any, what: str) -> int:
    try:
        number = int(value)
    except (TypeError, ValueError):
        raise SetupError(_NOT_POSITIVE.format(what=what, value=repr(value))) from None
    if number < 1:
        raise SetupError(_NOT_POSITIVE.format(what=what, value=number))
    return number


def _used_datasets(project: Project) -> dict[str, bool]:
    """Dataset link name -> needed to start (optimizers, monitors) or only for evaluation."""
    used: dict[str, bool] = {}
    for name in [o.dataset for o in project.optimizers] + [m.dataset for m in project.monitors]:
        used[name] = True
    for executor in project.executors:
        used.setdefault(executor.dataset, False)
    return used


def _locate(uri: str, base: Path | None, name: str, progress: bool, required: bool) -> Path | None:
    try:
        return resolve_uri(uri, base, dataset=name, progress=progress)
    except DatasetError:
        if required:
            raise
        return None  # an executor's dataset: evaluation reports it


def _iter_per_epoch(project: Project, datasets: Mapping[str, dict[str, Any]], batch: int) -> int:
    """floor(rows of the main dataset / batch size) (docs/nnc-behaviour.md §2)."""
    main = project.main_dataset()
    name = main.name if main is not None and main.name in datasets else None
    if name is None or not datasets[name]["csv"]:
        name = project.optimizers[0].dataset
    rows = _count_rows(Path(datasets[name]["csv"]))
    datasets[name]["rows"] = rows
    ipe = rows // batch
    if ipe < 1:
        raise SetupError(QT_TRANSLATE_NOOP(
            "Training", 'dataset "{name}" has {rows} rows, fewer than the batch size {batch}: an '
            "epoch would have no iteration; lower [Config] BatchSize"
        ).format(name=name, rows=rows, batch=batch))  # fmt: skip
    return ipe


def _count_rows(csv: Path) -> int:

    return len(read_table(csv).rows)


def _optimizer_plan(opt: Any, ipe: int, max_epoch: int) -> dict[str, Any]:
    """One optimizer with NNC's iteration range and schedule in iterations (§2.2)."""
    start, end = opt.get("RangeFrom"), opt.get("RangeTo")
    if opt.get("RangeUnit") == 0:
        start = (start - 1) * ipe + 1 if start > 0 else 0
        end = end * ipe if end > 0 else 0
    return {
        "name": opt.name, "network": opt.network, "dataset": opt.dataset,
        "solver": opt.solver, "solver_parameters": opt.solver_parameters,
        "weight_decay": opt.weight_decay, "update_interval": opt.update_interval,
        "start_iter": max(0, start), "end_iter": max(0, end),
        "scheduler": {
            "scheduler": opt.lr_scheduler, "gamma": opt.get("LearningRateMultiplier"),
            "interval": opt.get("LearningRateUpdateInterval"),
            "interval_unit": opt.get("LearningRateUpdateIntervalUnit"),
            "steps": list(opt.lr_steps), "power": opt.get("LearningRatePower"),
            "warmup": opt.get("LearningRateWarmupScheduler"),
            "warmup_length": opt.get("LearningRateWarmupLength"),
            "warmup_unit": opt.get("LearningRateWarmupLengthUnit"),
            "iter_per_epoch": ipe, "max_epoch": max_epoch,
        },
    }  # fmt: skip


# -- building -------------------------------------------------------------------------------


def build_session(project: Project, plan: RunPlan, *, prefetch: int = 2) -> Session:
    """Compile, open datasets, seed, create parameters and solvers (see the module docstring)."""
    programs = _compile_all(project, plan)
    datasets = _open_datasets(plan)
    for item in [*plan.optimizers, *plan.monitors]:
        _check_variables(programs[item["network"]], datasets[item["dataset"]], item["dataset"])
    nn.clear_parameters()
    nn.seed(plan.seed)
    base = Path(plan.project_file).parent if plan.project_file else None
    params = {name: program.create_parameters(base) for name, program in programs.items()}
    optimizers = [
        OptimizerRun(o["name"], o["network"], o["dataset"], programs[o["network"]],
                     params[o["network"]], _optimizer(o, programs[o["network"]],
                                                      params[o["network"]], plan))
        for o in plan.optimizers
    ]  # fmt: skip
    monitors = [
        MonitorRun(m["name"], m["network"], m["dataset"], programs[m["network"]],
                   params[m["network"]])
        for m in plan.monitors
    ]  # fmt: skip
    session = Session(plan, project, datasets, optimizers, monitors)
    for k, name in enumerate(dict.fromkeys(o["dataset"] for o in plan.optimizers)):
        info = plan.datasets[name]
        session.iterators[name] = DataIterator(
            datasets[name], plan.batch_size, shuffle=bool(info["shuffle"]),
            seed=(plan.seed + 1 + k) % (2**31), prefetch=prefetch,
            variables=_variables(session, name),
        )  # fmt: skip
    return session


def _compile_all(project: Project, plan: RunPlan) -> dict[str, Program]:
    """Every network the plan names, optimizers' first (their parameters are created first)."""
    programs: dict[str, Program] = {}
    names = [item["network"] for item in [*plan.optimizers, *plan.monitors, *plan.executors]]
    for problem in run_problems(project, names):  # what the editor lists stops the run
        raise SetupError(problem.as_message())
    for item in [*plan.optimizers, *plan.monitors, *plan.executors]:
        name = item["network"]
        if name not in programs:
            try:
                programs[name] = replace(compile_network(project, name), precision=plan.precision)
            except CompileError as exc:
                raise SetupError(text_of(exc)) from None
    return programs


def _open_datasets(plan: RunPlan) -> dict[str, Dataset]:
    names = dict.fromkeys(item["dataset"] for item in [*plan.optimizers, *plan.monitors])
    out = {}
    for name in names:
        info = plan.datasets[name]
        out[name] = open_project_dataset(
            info["csv"], None, name=name, normalize=bool(info["normalize"]),
            cache=bool(info["cache"]),
        )  # fmt: skip
    return out


def _check_variables(program: Program, dataset: Dataset, name: str) -> None:
    """Every variable the network reads exists in the dataset with a compatible shape."""
    import math

    for variable, shape in program.feeds.items():
        if variable not in dataset.names:
            raise SetupError(
                QT_TRANSLATE_NOOP(
                    "Training", 'network "{network}" reads variable "{variable}", which dataset '
                    '"{name}" ({path}) does not have; it has {names}'
                ).format(network=program.network, variable=variable, name=name,
                         path=str(dataset.path), names=", ".join(dataset.names))
            )  # fmt: skip
        have = dataset.variable(variable).shape
        if have is not None and math.prod(have) != math.prod(shape):
            raise SetupError(
                QT_TRANSLATE_NOOP(
                    "Training", 'network "{network}" expects variable "{variable}" of shape '
                    '{shape}, dataset "{name}" gives {have}'
                ).format(network=program.network, variable=variable, shape=shape_in_parens(shape),
                         name=name, have=shape_in_parens(have))
            )  # fmt: skip
    for variable, (classes, layer) in program.class_labels().items():
        dataset.check_class_labels(variable, classes, f'layer "{layer}" of network '
                                   f'"{program.network}"')  # fmt: skip


def _variables(session: Session, dataset: str) -> tuple[str, ...]:
    names: dict[str, None] = {}
    for run in session.optimizers:
        if run.dataset == dataset:
            names.update(dict.fromkeys(run.program.variables()))
    return tuple(names)


def solver_arguments(solver: str, parameters: Mapping[str, str]) -> dict[str, Any]:
    """NNC's solver parameters (display name -> text) as keyword arguments of the solver."""
    kwargs: dict[str, Any] = {}
    for display, text in parameters.items():
        key = _SOLVER_ARGS.get(display)
        if key is None:
            raise SetupError(QT_TRANSLATE_NOOP(
                "Training", "solver {solver}: unknown parameter {display}"
            ).format(solver=solver, display=display))  # fmt: skip
        try:
            kwargs[key] = (str(text).strip() not in ("0", "False", "false", "")
                           if key in _BOOLEAN_ARGS else float(text))  # fmt: skip
        except ValueError:
            raise SetupError(QT_TRANSLATE_NOOP(
                "Training", "solver {solver}, parameter {display}: expected a number. "
                "Received: {text}"
            ).format(solver=solver, display=display, text=repr(text))) from None  # fmt: skip
    return kwargs


def _optimizer(
    item: Mapping[str, Any], program: Program, params: dict[str, Variable], plan: RunPlan
) -> Optimizer:
    where = QT_TRANSLATE_NOOP("Problems", 'optimizer "{name}"').format(name=item["name"])
    if not program.losses and not any(step.stores for step in program.steps):
        raise SetupError(
            QT_TRANSLATE_NOOP(
                "Training", '{where}: network "{network}" has no loss layer to minimize (nor a '
                "WorkingMemory to fill)"
            ).format(where=where, network=program.network)
        )  # fmt: skip
    try:
        solver = S.create_solver(
            item["solver"], **solver_arguments(item["solver"], item["solver_parameters"])
        )
        solver.set_parameters(program.trainable(params))
        schedule = dict(item["scheduler"])
        scheduler = create_scheduler(schedule.pop("scheduler"), solver.learning_rate(), **schedule)
        return Optimizer(
            solver, update_interval=item["update_interval"], weight_decay=item["weight_decay"],
            scheduler=scheduler, start_iter=item["start_iter"], end_iter=item["end_iter"],
            loss_scaler=precision.DynamicLossScaler()
            if plan.precision == "Half" and plan.loss_scaling == "dynamic" else None,
        )  # fmt: skip
    except (ValueError, TypeError) as exc:
        raise SetupError(f"{where}: {exc}") from None

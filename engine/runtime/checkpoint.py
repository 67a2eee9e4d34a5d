"""Checkpoints: everything a run needs to continue exactly, in a folder replaced atomically.

``checkpoints/last/`` holds

* ``parameters.npz``: every parameter of every network (running statistics included),
  :func:`engine.nn.save_parameters` format (no pickle);
* ``solver_<i>.npz``: the state of optimizer i's solver (moments, update counts);
* ``grads_<i>.npz``: only when optimizer i is in the middle of an update interval, the
  gradients accumulated so far;
* ``state.json``: the trainer state (iteration, epoch, partial epoch cost, best so far, the
  learning curve), the random generator's state and every data iterator's position.

A checkpoint is written into a temporary folder and swapped in by renames, so a reader (or a
crash) never sees half a checkpoint. ``checkpoints/best/`` holds ``parameters.npz`` and
``state.json`` (epoch and valid_error) of the best epoch.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

import engine.nn as nn
from engine.core import backend
from engine.core.atomic import default_mode
from engine.core.messages import QT_TRANSLATE_NOOP
from engine.nn.parameter_file import (
    ParameterFileError,
    check_parameter_file,
    load_arrays,
    save_arrays,
)
from engine.runtime.job import PARAMETERS, Job, JobError, atomic_write_json, checkpoint_path
from engine.runtime.trainer import Trainer, TrainingError, TrainState

__all__ = ["save_checkpoint", "load_checkpoint", "save_best", "PARAMETERS", "checkpoint_path",
           "job_parameters", "check_job_parameters"]  # fmt: skip

FORMAT = "neurocanvas-checkpoint"
VERSION = 1


def job_parameters(job: Job, checkpoint: str = "best") -> tuple[Path, str]:
    """The parameter file of a job's ``best`` or ``last`` checkpoint and the checkpoint it is
    from: the one place every command (evaluate, forward, export, quantize) finds it. ``best``
    falls back to ``last`` only when no epoch was monitored (no ``best`` file at all); a
    ``parameters.npz`` that is a folder, a device or a dangling link is an error, not a reason
    to read another checkpoint."""
    if checkpoint not in ("best", "last"):
        raise JobError(f"--checkpoint: expected best or last. Received: {checkpoint!r}")
    for kind in dict.fromkeys((checkpoint, "last")):
        path = checkpoint_path(job.checkpoint_dir(kind)) / PARAMETERS
        if os.path.lexists(path):
            if not path.is_file():
                raise JobError(f"{path}: not a regular file (a folder, a device or a broken "
                               f"link): the job's {kind} parameters are damaged")  # fmt: skip
            return path, kind
    raise JobError(QT_TRANSLATE_NOOP(
        "Jobs", "{job}: no trained parameters yet (checkpoints/{checkpoint})"
    ).format(job=str(job.root), checkpoint=checkpoint))  # fmt: skip


def check_job_parameters(
    job: Job, programs: list[Any], checkpoint: str = "best"
) -> tuple[Path, str]:
    """:func:`job_parameters`, checked against the parameters ``programs`` declare (present,
    same shapes, within the memory left) before anything reads its arrays."""
    path, kind = job_parameters(job, checkpoint)
    expected: dict[str, tuple[int, ...]] = {}
    for program in programs:
        for decl in program.parameters:
            expected.setdefault(decl.name, tuple(decl.shape))
    check_parameter_file(path, expected)
    return path, kind


def _swap_in(build: Path, target: Path) -> None:
    old = target.with_name(target.name + ".old")
    if old.exists():
        shutil.rmtree(old)
    if target.exists():
        os.rename(target, old)
    os.rename(build, target)
    shutil.rmtree(old, ignore_errors=True)


def _build_dir(target: Path) -> Path:
    target.parent.mkdir(parents=True, exist_ok=True)
    build = Path(tempfile.mkdtemp(prefix=f".{target.name}.", dir=target.parent))
    os.chmod(build, default_mode(directory=True))  # mkdtemp's 0700 would make the job private
    return build


def save_checkpoint(trainer: Trainer, folder: Path) -> None:
    """Write the ``last`` checkpoint of ``trainer`` to ``folder`` (see the module docstring)."""
    session = trainer.session
    build = _build_dir(folder)
    try:
        nn.save_parameters(build / PARAMETERS, session.parameters())
        pending = {}
        for k, run in enumerate(session.optimizers):
            run.optimizer.solver.save_states(build / f"solver_{k}.npz")
            interval = run.optimizer.update_interval
            if interval > 1 and trainer.state.iteration % interval != 0:
                grads = {n: v.grad for n, v in run.optimizer.solver.get_parameters().items()
                         if v.grad is not None}  # fmt: skip
                keys = {name: f"g{j}" for j, name in enumerate(grads)}
                save_arrays(build / f"grads_{k}.npz",
                            {keys[n]: g for n, g in grads.items()}, {"names": keys})  # fmt: skip
                pending[k] = True
        atomic_write_json(build / "state.json", {
            "format": FORMAT, "version": VERSION,
            "state": {**trainer.state.to_json(), "elapsed": trainer.elapsed},
            "rng": _json_rng(backend.get_rng_state()),
            "iterators": {n: it.state_dict() for n, it in session.iterators.items()},
            "pending_grads": sorted(pending),
            "loss_scalers": {str(k): run.optimizer.loss_scaler.state()
                             for k, run in enumerate(session.optimizers)
                             if run.optimizer.loss_scaler is not None},
        })  # fmt: skip
        _swap_in(build, folder)
    except BaseException:
        shutil.rmtree(build, ignore_errors=True)
        raise


def load_checkpoint(trainer: Trainer, folder: Path) -> TrainState:
    """Restore parameters, solver states, gradients, RNG and data positions; returns the state.

    Call after :func:`~engine.runtime.session.build_session` (which created the parameters
    and the solvers of the same project and plan).
    """
    folder = checkpoint_path(folder)
    session = trainer.session
    try:
        data = json.loads((folder / "state.json").read_text(encoding="utf-8"))
        if data.get("format") != FORMAT or data.get("version", 0) > VERSION:
            raise TrainingError(f"{folder}: not a checkpoint this NeuroCanvas can read")
        nn.load_parameters(folder / PARAMETERS)
        for k, run in enumerate(session.optimizers):
            run.optimizer.solver.load_states(folder / f"solver_{k}.npz")
            if k in data.get("pending_grads", []):
                _load_grads(run.optimizer.solver, folder / f"grads_{k}.npz")
            scaler = data.get("loss_scalers", {}).get(str(k))
            if scaler is not None and run.optimizer.loss_scaler is not None:
                run.optimizer.loss_scaler.load_state(scaler)
        for name, it_state in data.get("iterators", {}).items():
            if name in session.iterators:
                session.iterators[name].load_state_dict(it_state)
        backend.set_rng_state(data["rng"])
        return TrainState.from_json(data["state"])
    except FileNotFoundError as exc:
        raise TrainingError(f"{folder}: incomplete checkpoint ({exc.filename} missing)") from None
    except (ParameterFileError, ValueError, KeyError, TypeError, AttributeError) as exc:
        raise TrainingError(f"{folder}: cannot resume from this checkpoint ({exc})") from None


def save_best(trainer: Trainer, folder: Path, epoch: int, valid_error: float) -> None:
    """The parameters of the best epoch (what evaluation uses by default, as NNC)."""
    build = _build_dir(folder)
    try:
        nn.save_parameters(build / PARAMETERS, trainer.session.parameters())
        atomic_write_json(
            build / "state.json",
            {"format": FORMAT, "version": VERSION, "epoch": epoch, "valid_error": valid_error},
        )
        _swap_in(build, folder)
    except BaseException:
        shutil.rmtree(build, ignore_errors=True)
        raise


def _load_grads(solver: Any, path: Path) -> None:
    arrays, meta = load_arrays(path)
    names = (meta or {}).get("names", {})
    params = solver.get_parameters()
    for name, key in names.items():
        if name in params:
            params[name].grad = backend.asarray(arrays[key])


def _json_rng(state: dict[str, Any]) -> dict[str, Any]:
    """The generator state as JSON (NumPy's is plain ints and dicts; CuPy's may hold arrays)."""
    text = json.dumps(state, default=lambda a: backend.to_numpy(a).tolist())
    data: dict[str, Any] = json.loads(text)
    return data

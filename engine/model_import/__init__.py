"""``neurocanvas import MODEL -o PROJECT``: ONNX, NNP and nntxt models as editable projects.

Every reader yields :class:`~engine.formats.nnabla.graph.ModelGraph` networks; the layer
catalogue turns them into layers (:func:`~engine.formats.nnabla.graph.build_network`). The
parameters are checked against the shapes the compiled network declares (a mismatch names the
parameter) and saved beside the project as ``<stem>_parameters.npz``, the file
``neurocanvas forward PROJECT --params`` and training's ``--params`` read. Nothing is written
until the whole model has been converted and checked.
"""

from __future__ import annotations

import contextlib
import math
import os
import shutil
import stat
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

import engine.nn as nn
from engine.core.atomic import describe_write_error
from engine.core.autograd import Variable
from engine.formats import ProjectFileError, save_project
from engine.formats.nnabla.graph import ImportError_, ModelGraph, build_network
from engine.formats.nnabla.nnp_read import read_nnp
from engine.formats.onnx_import import OnnxGraph, read_onnx, share_parameters
from engine.graph import config as cfg
from engine.graph.project import Project
from engine.runtime import checkpoint as ckpt
from engine.runtime.compiler import compile_network
from engine.runtime.job import Job, JobError, atomic_write_json, default_job_dir
from engine.runtime.program import ProgramError
from engine.runtime.session import RunPlan

__all__ = ["ImportError_", "Imported", "import_model", "read_model", "write_imported",
           "claim_job", "write_job", "save_imported", "parameters_path",
           "model_kind", "MODEL_SUFFIXES"]  # fmt: skip

MODEL_SUFFIXES = (".onnx", ".nnp", ".nntxt", ".prototxt")


@dataclass
class Imported:
    """A converted model: the project and its parameters (NNC names)."""

    project: Project
    parameters: dict[str, np.ndarray]


def parameters_path(project_file: str | Path) -> Path:
    """Where the parameters of an imported project live: ``<stem>_parameters.npz`` beside it."""
    path = Path(project_file)
    return path.with_name(path.stem + "_parameters.npz")


def read_model(path: str | Path) -> Imported:
    """Convert the model at ``path`` (by extension, else by content) into a project.

    Raises:
        ImportError_: the message names the file and the node, layer or parameter.
    """
    path = Path(path)
    if not path.is_file():
        raise ImportError_(f"{path}: no such file")
    kind = model_kind(path)
    if kind == "onnx":
        return _single(read_onnx(path), str(path))
    project, values = read_nnp(path)
    return finish(project, values, str(path))


def model_kind(path: Path) -> str:
    """``onnx`` or ``nnabla`` (.nnp, .nntxt), by extension, else by the first bytes."""
    suffix = path.suffix.lower()
    if suffix in (".nnp", ".nntxt", ".prototxt"):
        return "nnabla"
    if suffix == ".onnx":
        return "onnx"
    head = path.read_bytes()[:4]
    return "nnabla" if head.startswith(b"PK") or head[:1].isalpha() else "onnx"


def _single(graph: ModelGraph, where: str) -> Imported:
    """One network ``Main`` with NNC's default settings; the executor runs ``Main`` itself.

    An ONNX model has no loss, so the derived ``MainRuntime`` would have no output; its terminal
    layers are the outputs of ``Main`` (training needs a loss layer added by the user).
    """
    graph.name = "Main"
    network, params = build_network(graph, where)
    if isinstance(graph, OnnxGraph):
        share_parameters(graph, network, params)
    settings = cfg.default_settings()
    settings["executors"] = [cfg.Executor.new(Executor_NetworkName="Main")]
    project = Project([network], **settings)
    return finish(project, params, where)


def finish(project: Project, params: dict[str, np.ndarray], where: str) -> Imported:
    """Compile every network, reshape each parameter to its declared shape (or fail naming it)."""

    shaped: dict[str, np.ndarray] = {}
    names = [*project.network_names] + [e.network for e in project.executors]
    for name in dict.fromkeys(names):
        try:
            program = compile_network(project, name)
        except (ProgramError, ValueError) as exc:
            raise ImportError_(f"{where}: the imported network does not compile: {exc}") from None
        for decl in program.parameters:
            if decl.name not in params or decl.name in shaped:
                continue
            value = np.asarray(params[decl.name], dtype=np.float32)
            size = math.prod(decl.shape)  # a WorkingMemory buffer: any number of sample rows
            if value.size != size and not (decl.buffer and value.size and value.size % size == 0):
                raise ImportError_(
                    f'{where}: parameter "{decl.name}" has shape {tuple(value.shape)}, layer '
                    f'"{decl.layer}" needs {tuple(decl.shape)}'
                )
            shaped[decl.name] = value.reshape((-1, *decl.shape) if decl.buffer else decl.shape)
    for name, value in params.items():
        shaped.setdefault(name, np.asarray(value, dtype=np.float32))
    return Imported(project, shaped)


def write_imported(imported: Imported, out: str | Path) -> list[Path]:
    """Save the project (format by extension) and its parameters; returns the files written."""

    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)  # -o new/folder/p.ncproj, as train's -o
    params = parameters_path(out)
    variables = {k: Variable(np.ascontiguousarray(v)) for k, v in imported.parameters.items()}
    nn.save_parameters(params, variables)
    save_project(imported.project, out)
    return [out, params]


def claim_job(imported: Imported, out: str | Path) -> Any:
    """Claim a new job folder beside the project, NNC's place ``<stem>.files/<date_time>``
    (before anything else is written: a place that cannot hold it fails the import)."""

    try:
        return Job.create(default_job_dir(Path(out).resolve()), imported.project, None,
                          numbered=True)  # fmt: skip
    except JobError as exc:
        raise ImportError_(str(exc)) from None


def write_job(job: Any, imported: Imported, out: str | Path, model: str | Path) -> Path:
    """Make ``job`` a finished job of the imported model, so ``neurocanvas evaluate JOB`` runs
    it at once.

    The parameters are its ``best`` checkpoint (``evaluate``, ``forward`` and ``export`` read
    them; ``train PROJECT --params JOB/checkpoints/best/parameters.npz`` fine-tunes from them).
    There is no ``last`` checkpoint: nothing was trained, so there is nothing to resume.
    """

    out = Path(out).resolve()
    plan = _plan(imported.project, out)
    job.write_config({"imported_from": str(Path(model).resolve()), "plan": plan})
    best = job.checkpoint_dir("best")
    best.mkdir(parents=True)
    variables = {k: Variable(np.ascontiguousarray(v)) for k, v in imported.parameters.items()}
    nn.save_parameters(best / ckpt.PARAMETERS, variables)
    atomic_write_json(best / "state.json", {"format": ckpt.FORMAT, "version": ckpt.VERSION,
                                            "epoch": 0, "valid_error": None})  # fmt: skip
    job.write_status(status="finished", epoch=0, max_epoch=0, iteration=0, total_iterations=0,
                     best_epoch=0, best_valid_error=None, elapsed=0.0,
                     message=f"imported from {Path(model).name}")  # fmt: skip
    return Path(job.root)


def _plan(project: Project, out: Path) -> dict[str, Any]:
    """The run plan of an imported model: its CONFIG as written, datasets found when
    evaluated (relative to the project), no iteration run."""

    config = project.config
    datasets = {d.name: {"uri": d.uri, "csv": None, "shuffle": d.shuffle,
                         "normalize": d.image_normalization, "cache": d.enable_cache}
                for d in project.datasets}  # fmt: skip
    executors = [{"name": e.name, "network": e.network, "dataset": e.dataset,
                  "num_evaluations": e.num_evaluations,
                  "repeat_evaluation_type": e.repeat_evaluation_type,
                  "need_back_propagation": e.need_back_propagation}
                 for e in project.executors]  # fmt: skip
    plan = RunPlan(
        seed=0, max_epoch=0, batch_size=max(1, int(config.batch_size)), iter_per_epoch=0,
        monitor_interval=config.monitor_interval, save_best=config.save_best,
        precision=config.precision, datasets=datasets, optimizers=[], monitors=[],
        executors=executors, project_file=str(out),
    )  # fmt: skip
    return plan.to_json()


def save_imported(imported: Imported, out: str | Path, model: str | Path) -> list[Path]:
    """The project, its parameters and, for a model that carries parameters (.nnp, .onnx),
    a job folder beside it (the CLI and File > Import... both save this way).

    Everything is written under temporary names (the project and its parameters in a hidden
    folder beside the project, the job in the folder it claimed) and moved into place last, so
    a failure (a full disk) removes what was started and leaves what was there before; its
    message names the file and the disk.
    """

    out = Path(out)
    made = [p for p in (out.parent, *out.parent.parents) if not p.exists()]
    jobs = default_job_dir(out.resolve()).parent
    made_jobs = not jobs.exists()
    job = stage = None
    try:
        out.parent.mkdir(parents=True, exist_ok=True)  # -o new/folder/p.ncproj, as train's -o
        stage = Path(tempfile.mkdtemp(prefix=f".{out.name}.", suffix=".import", dir=out.parent))
        job = claim_job(imported, out) if imported.parameters else None
        staged = write_imported(imported, stage / out.name)
        if job is not None:
            job_root = write_job(job, imported, out, model)
        written = []
        for path in reversed(staged):  # the parameters, then the project that names them
            target = Path(os.path.realpath(out.parent / path.name))  # a link stays a link
            if target.exists():
                os.chmod(path, stat.S_IMODE(target.stat().st_mode))
            os.replace(path, target)
            written.insert(0, out.parent / path.name)
        if job is not None:
            written.append(job_root)
    except BaseException as exc:
        if stage is not None:
            shutil.rmtree(stage, ignore_errors=True)
        if job is not None:  # the folder this call claimed a moment ago, not a user's job
            shutil.rmtree(job.root, ignore_errors=True)
        for folder in ([jobs] if made_jobs else []) + made:
            with contextlib.suppress(OSError):
                folder.rmdir()  # only when empty: what this call made
        if isinstance(exc, (OSError, ProjectFileError)):
            raise ImportError_(_write_failure(exc, stage, out.parent)) from None
        raise
    finally:
        if stage is not None:
            shutil.rmtree(stage, ignore_errors=True)
    return written


def _write_failure(exc: OSError | ValueError, stage: Path | None, folder: Path) -> str:
    """The one line of a failed write, naming the file's place (not its temporary name)."""

    def final(name: str | None) -> str | None:
        if name and stage is not None and Path(name).parent == stage:
            return str(folder / Path(name).name)
        return name

    if isinstance(exc, ProjectFileError):
        return f"{final(exc.path)}: {exc.detail}"
    assert isinstance(exc, OSError)
    return describe_write_error(exc, final(exc.filename))


def import_model(path: str | Path, out: str | Path) -> list[Path]:
    """Read ``path`` and :func:`save_imported` it to ``out``; nothing is written on error."""
    return save_imported(read_model(path), out, path)


def load_imported_parameters(values: dict[str, Any]) -> None:
    """Put ``values`` into the current parameter scope (tests and the CLI's checks)."""

    for name, value in values.items():
        nn.set_parameter(name, Variable(np.asarray(value, dtype=np.float32), need_grad=True))

"""Export a project or a trained job: Python code (``engine.nn`` or ``nnabla``) and ONNX.

* :func:`export_python` writes every network as a function (``engine.export.python_code``);
  from a job folder it also writes the trained parameters beside the file (``.npz`` for
  ``engine.nn``, nnabla's ``.h5`` for ``--target nnabla``) and appends a short ``main`` (load
  the parameters, read image/CSV/npy files as the dataset does, run the runtime network).
* :func:`export_onnx` writes the runtime network as an ONNX model (``engine.export.onnx_model``).
* :func:`export_nnp` writes nnabla's ``.nnp`` (``engine.formats.nnabla``).
* :func:`export_c` writes the runtime network as a C99 folder (``engine.export.c_source``).
* :func:`export_tflite` writes the runtime network as TensorFlow Lite (``engine.export.tflite``).

A SOURCE is a project file or a job folder (its ``network.ncproj`` and checkpoints).
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

from engine.core.atomic import atomic_output, atomic_write_bytes, atomic_write_text
from engine.core.messages import in_file
from engine.export.c_source import export_c as write_c
from engine.export.inference_code import inference_source
from engine.export.literals import ExportError
from engine.export.nnabla_parameters import nnabla_shapes, write_nnabla_h5
from engine.export.onnx_model import DEFAULT_OPSET, onnx_bytes
from engine.export.python_code import exportable_networks, python_module
from engine.export.runtime_network import compiled_runtime
from engine.export.tflite import export_tflite as write_tflite
from engine.formats import ProjectFileError, load_project
from engine.graph.derive import has_loss
from engine.nn.parameter_file import ParameterFileError
from engine.runtime.checkpoint import check_job_parameters, job_parameters
from engine.runtime.compiler import compile_network
from engine.runtime.job import Job, JobError
from engine.runtime.program import ProgramError
from engine.runtime.results import project_nnp

__all__ = [
    "ExportError",
    "Source",
    "open_source",
    "with_network",
    "export_python",
    "export_onnx",
    "export_nnp",
    "export_c",
    "export_tflite",
]


@dataclass(frozen=True)
class Source:
    """What an export reads: the project, its runtime network, and for a job its parameters."""

    project: object  # engine.graph.project.Project
    title: str
    runtime: str | None  # the first executor's network
    parameters: Path | None  # the trained parameters (job folders only)
    normalize: bool  # Image Normalization of the runtime dataset (1/255 for 8-bit images)
    base: Path | None = None  # the project's folder (relative parameter ``File`` paths)
    place: str = ""  # the project file (a job's network.ncproj) that an error in a network names


def open_source(path: str | Path, checkpoint: str = "best") -> Source:
    """A project file or a job folder as an export source.

    Raises:
        ExportError: unreadable project, job without trained parameters.
    """

    path = Path(path)
    try:
        if not path.is_dir():
            project = load_project(path)
            runtime = project.executors[0].network if project.executors else None
            dataset = project.executors[0].dataset if project.executors else None
            normalize = next((d.image_normalization for d in project.datasets
                              if d.name == dataset), True)  # fmt: skip
            return Source(project, path.stem, runtime, None, normalize, path.resolve().parent,
                          str(path))  # fmt: skip
        job = Job.open(path)
        plan = job.plan()
        executors = plan.get("executors") or []
        runtime = executors[0]["network"] if executors else None
        dataset = plan.get("datasets", {}).get(executors[0]["dataset"] if executors else "", {})
        project = job.load_project()
        return Source(project, path.name, runtime, _trained(job, project, runtime, checkpoint),
                      bool(dataset.get("normalize", True)), job.project_base(),
                      str(job.project_file))  # fmt: skip
    except (ProjectFileError, ParameterFileError, JobError, OSError, KeyError, ValueError,
            TypeError, AttributeError) as exc:  # fmt: skip
        if isinstance(exc, ExportError):
            raise
        raise ExportError(in_file(path, exc)) from None  # most name the file or folder already


def with_network(source: Source, network: str, parameters: str | Path | None = None,
                 checkpoint: str = "best") -> tuple[Source, str]:  # fmt: skip
    """``source`` exporting ``network``, and a note for the user ('' when none).

    A training network (one with a loss, such as ``quantize insert``'s ``Main_q8``) is
    exported as its runtime form ``<network>Runtime`` (derived as NNC derives ``MainRuntime``),
    so nobody needs the derived name. ``parameters``: a parameter file, or a job folder whose
    trained parameters to use (its ``best`` checkpoint, or ``checkpoint``).

    Raises:
        ExportError: no such network (the message says where a quantized one comes from), no
            such parameter file, a job without parameters.
    """
    from dataclasses import replace

    project = source.project
    names = list(project.network_names)  # type: ignore[attr-defined]
    note = ""
    runtime = network
    if network in names and network + "Runtime" not in names:
        if has_loss(project.network(network)):  # type: ignore[attr-defined]
            runtime = network + "Runtime"
            note = f'network "{network}" has a loss: exporting its runtime network {runtime}'
    else:
        base = network.removesuffix("Runtime").removesuffix("Validation")
        if base not in names and network not in names:
            hint = ""
            if "_q" in network or network.endswith("_mixed"):
                hint = ("; quantize insert writes a quantized network into a new project: "
                        f"export that project with --network {network} --params "
                        f"{source.title if source.parameters else 'JOB_DIR'}")  # fmt: skip
            raise ExportError(f'{source.title}: no network "{network}" (networks: '
                              f"{', '.join(names)}){hint}")  # fmt: skip
    source = replace(source, runtime=runtime)
    if parameters is not None:
        path = Path(parameters)
        if path.is_dir():
            try:
                path = job_parameters(Job.open(path), checkpoint)[0]
            except JobError as exc:
                raise ExportError(f"--params {parameters}: {exc}") from None
        elif not path.is_file():
            raise ExportError(f"--params {parameters}: no such file or job folder")
        source = replace(source, parameters=path)
    return source, note


def _trained(job: object, project: object, runtime: str | None, checkpoint: str) -> Path:
    """The job's parameter file (:func:`~engine.runtime.checkpoint.job_parameters`), checked
    against the runtime network's parameters before any export reads or copies it."""

    try:
        programs = [compile_network(project, runtime)] if runtime else []  # type: ignore[arg-type]
    except (ProgramError, ValueError):
        return job_parameters(job, checkpoint)[0]  # type: ignore[arg-type]  # the export names it
    return check_job_parameters(job, programs, checkpoint)[0]  # type: ignore[arg-type]


def export_python(source: Source, out: str | Path, target: str = "neurocanvas") -> list[Path]:
    """Write the Python file for ``target`` (``neurocanvas`` or ``nnabla``) and, from a job,
    ``<stem>_parameters.npz`` (nnabla: ``.h5``) beside it.

    Returns the files written. Raises ExportError before writing anything.
    """

    out = Path(out)
    extra = (source.runtime,) if source.runtime else ()
    networks = exportable_networks(source.project, extra)  # type: ignore[arg-type]
    if not networks:
        if source.runtime:
            compiled_runtime(source, "Python", lambda program: [])  # its error says why
        raise ExportError(in_file(source.place or source.title,
                                  "no network compiles; nothing to export"))  # fmt: skip
    text, names = python_module(source.project, source.title, networks, target)  # type: ignore[arg-type]
    written = []
    suffix = ".h5" if target == "nnabla" else ".npz"
    params = out.with_name(out.stem + "_parameters" + suffix)
    if source.runtime in networks:
        # A project's export gets the main too: run without parameters beside it, it says how
        # to get them instead of silently doing nothing. A job's export needs one.
        try:
            text += "\n\n" + inference_source(source, names[source.runtime], params.name, target)
        except ExportError:
            if source.parameters is not None:
                raise
    if source.parameters is not None and source.runtime in networks:
        if target == "nnabla":
            shapes = nnabla_shapes(source.project, networks)
            write_nnabla_h5(source.parameters, params, shapes)
        else:
            _atomic_copy(source.parameters, params)
        written.append(params)
    _atomic_write(out, text)
    return [out, *written]


def export_onnx(
    source: Source, out: str | Path, opset: int | None = None, quantized: bool = False
) -> Path:
    """Write the runtime network as ONNX; unsupported layers are listed before writing.
    ``quantized``: FixedPointQuantize layers as QuantizeLinear/DequantizeLinear pairs."""

    if source.runtime is None:
        raise ExportError(f"{source.title}: the project has no executor (runtime network)")
    data = onnx_bytes(source, opset or DEFAULT_OPSET, quantized)
    out = Path(out)
    _atomic_write(out, data)
    return out


def export_nnp(source: Source, out: str | Path) -> Path:
    """Write the project's networks, settings and (trained) parameters as nnabla's ``.nnp``."""

    try:
        data = project_nnp(source.project, source.parameters)
    except (ProgramError, ExportError) as exc:
        raise ExportError(in_file(source.place or source.title, exc)) from None
    out = Path(out)
    _atomic_write(out, data)
    return out


def export_c(
    source: Source, out: str | Path, force: bool = False, arithmetic: str = "auto"
) -> list[Path]:
    """Write the runtime network as C99 into the folder ``out`` (see ``engine.export.c_source``)."""

    return write_c(source, out, force, arithmetic)


def export_tflite(source: Source, out: str | Path, int8: bool = False, force: bool = False) -> Path:
    """Write the runtime network as a ``.tflite`` file (see ``engine.export.tflite``)."""

    return write_tflite(source, out, int8, force)


def _atomic_write(path: Path, data: str | bytes) -> None:
    if isinstance(data, str):
        atomic_write_text(path, data)
    else:
        atomic_write_bytes(path, data)


def _atomic_copy(src: Path, dest: Path) -> None:
    with atomic_output(dest, "wb") as out, open(src, "rb") as source:
        shutil.copyfileobj(source, out)

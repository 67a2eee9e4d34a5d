"""Evaluation: what NNC's Evaluate button does for a job (nnabla ``forward``, docs/formats.md §3).

:func:`evaluate` runs the job's executors (``MainRuntime`` unless the CONFIG says otherwise)
over every row of a dataset (the first executor's unless told) with the best (default, as NNC
for Windows) or last parameters. As nnabla's ``forward``, each batch goes through every executor
in CONFIG order, so a WorkingMemory buffer that one executor writes (VATNoise's backward) is
what the executors after it read for the same batch. The job folder receives:

* ``output_result.csv``: the dataset header and cells (file paths made absolute, as NNC's
  ``--replace_path``) followed by one column group per output of every executor in turn
  (``y'__0 .. y'__9``); 2-D outputs become one CSV per sample and 3-D outputs PNG images (x255),
  in ``<output index>_<row//1000>/``;
* ``confusion_matrix_<var>.csv`` for every output ``<var>'`` whose ``<var>`` is a dataset
  variable holding class indices or one-hot vectors (:mod:`engine.runtime.metrics`);
* ``evaluation.json``: the dataset, the checkpoint, and the metrics (classification or
  regression) per output.

Each executor's Number of Evaluations and mean/last are honoured (MC dropout). Need Back
Propagation runs the executor's forward with gradients and a backward from its losses each time
(docs/nnc-behaviour.md §2.3), as nnabla's ``backward_target``; the parameters' gradients are
dropped, nothing is trained and no checkpoint is written.
"""

from __future__ import annotations

import contextlib
import csv
import io
import os
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

import engine.nn as nn
from engine.core import atomic, backend, gpu, threads
from engine.core.autograd import backward
from engine.core.messages import QT_TRANSLATE_NOOP
from engine.data import open_dataset
from engine.data.csv_dataset import Dataset
from engine.data.float32_text import float32_rows
from engine.data.iterator import batches_once
from engine.data.writers import save_image
from engine.nn.parameter import assign_parameters
from engine.nn.parameter_file import check_extension, load_arrays, metadata_entries
from engine.runtime import inference_plan, metrics
from engine.runtime.checkpoint import job_parameters
from engine.runtime.compiler import compile_network
from engine.runtime.datasets import BUILTIN_SCHEME, resolve_uri
from engine.runtime.job import Job, JobError, atomic_write_json, atomic_write_text
from engine.runtime.program import Program
from engine.runtime.session import RunPlan

__all__ = ["EvaluationResult", "ExecutorRun", "evaluate", "run_batch", "run_executors",
           "run_outputs", "load_job_parameters", "load_parameters"]  # fmt: skip


@dataclass
class EvaluationResult:
    job: Job
    dataset: str
    csv: Path
    rows: int
    checkpoint: str
    output_file: Path
    confusion_files: list[Path] = field(default_factory=list)
    summary: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class ExecutorRun:
    """One executor ready to run: its program, its parameters and its plan entry."""

    program: Program
    params: dict[str, Any]
    info: dict[str, Any]  # RunPlan.executors item (num_evaluations, need_back_propagation...)
    # The test-mode plan (engine.runtime.inference_plan), built on the first batch without a
    # backward: the parameters stay as they are for the run's life (one evaluation, one
    # ``forward``). Empty until built; [None] where the plan does not apply.
    plan: list[Any] = field(default_factory=list, compare=False, repr=False)

    def inference(self) -> inference_plan.InferencePlan | None:
        """The program prepared for inference with these parameters (batch normalization
        folded), or None where only the generic path runs it."""
        if not self.plan:
            self.plan.append(inference_plan.build(self.program, self.params))
        plan: inference_plan.InferencePlan | None = self.plan[0]
        return plan


def evaluate(
    job_dir: str | Path,
    *,
    dataset: str | None = None,
    checkpoint: str = "best",
) -> EvaluationResult:
    """Evaluate a job; ``dataset`` is a dataset link name of the project or a CSV file."""
    job = Job.open(Path(job_dir))
    plan = RunPlan.from_json(job.plan(), str(job.config_file))
    if not plan.executors:
        raise JobError(QT_TRANSLATE_NOOP(
            "Jobs", "{job}: the project has no executor (CONFIG tab) to evaluate with"
        ).format(job=str(job.root)))  # fmt: skip
    first = plan.executors[0]
    name, csv_path, normalize = _dataset_for(plan, dataset or first["dataset"])
    project = job.load_project()
    programs = [compile_network(project, info["network"]) for info in plan.executors]
    params, checkpoint = load_checked(job, programs, checkpoint, initial_values=False)
    nn.seed(plan.seed)  # after the parameters: any initial value drawn moved the generator
    runs = [ExecutorRun(*run) for run in zip(programs, params, plan.executors, strict=True)]
    nn.seed(plan.seed)
    with open_dataset(csv_path, normalize=normalize, cache=True) as data:
        writer = _OutputWriter(job.root, [n for p in programs for n, _ in p.outputs])
        rows = _absolute_rows(data)
        # each batch a timed unit: one thread or every core, the faster (engine/core/threads.py)
        choice = threads.chooser() if backend.device() == "cpu" else None
        for start, outputs in threads.timed(choice, run_executors(runs, data, plan.batch_size)):
            values = [
                out[n] for p, out in zip(programs, outputs, strict=True) for n, _ in p.outputs
            ]
            writer.add(start, values, len(rows))
        header = list(data.header) + writer.header()
        out_file = job.root / "output_result.csv"
        _replace_results(out_file, _result_text(header, rows, writer.tails(len(rows))))
        summary, confusion = _metrics(job, data, writer)
    summary = {"network": first["network"], "dataset": name, "csv": str(csv_path),
               "rows": len(rows), "checkpoint": checkpoint,
               "executors": [{"name": e.get("name", ""), "network": e["network"]}
                             for e in plan.executors], **summary}  # fmt: skip
    atomic_write_json(job.root / "evaluation.json", summary)
    return EvaluationResult(job, name, Path(csv_path), len(rows), checkpoint, out_file,
                            confusion, summary)  # fmt: skip


def _replace_results(out_file: Path, text: str) -> None:
    """``output_result.csv`` replaced by ``text``; the previous ``evaluation.json`` removed once
    the new text is written, just before the rename. The summary, written last, marks a
    complete set: an evaluation stopped between its files (the app kills it when it closes)
    leaves no summary beside outputs it does not describe, and one that cannot write its
    output (a full disk) leaves the previous set as it was."""
    with atomic.atomic_output(out_file, "w", False, encoding="utf-8", newline="\n") as handle:
        handle.write(text)
        handle.flush()
        (out_file.parent / "evaluation.json").unlink(missing_ok=True)


def _dataset_for(plan: RunPlan, name: str) -> tuple[str, Path, bool]:
    """A dataset link of the job (its resolved CSV), a CSV file or a built-in dataset."""
    info = plan.datasets.get(name)
    if info is not None:
        if info.get("csv"):
            return name, Path(info["csv"]), bool(info["normalize"])
        if not str(info.get("uri") or "").strip():  # a job imported before any link was made
            raise JobError(f'dataset "{name}" of the job has no URI (none was linked when the '
                           f"job was made): evaluate on a dataset CSV or builtin:<name>/<split> "
                           f"instead (--dataset, the app's Dataset field)")  # fmt: skip
        base = Path(plan.project_file).parent if plan.project_file else None
        return name, resolve_uri(info["uri"], base, dataset=name), bool(info["normalize"])
    if name.startswith(BUILTIN_SCHEME):
        return name, resolve_uri(name, None, dataset=name), True
    path = Path(name)
    if path.suffix.lower() == ".csv" and path.is_file():
        return path.name, path, True
    known = ", ".join(plan.datasets) or "none"
    raise JobError(QT_TRANSLATE_NOOP(
        "Jobs", "--dataset {name}: not a dataset of the job ({known}), a CSV file nor "
        "builtin:<name>/<split>"
    ).format(name=name, known=known))  # fmt: skip


def load_job_parameters(job: Job, program: Program, checkpoint: str) -> dict[str, Any]:
    """The program's parameters with the values of the job's ``best`` or ``last`` checkpoint."""
    return load_parameters(job, [program], checkpoint)[0]


def load_parameters(job: Job, programs: Sequence[Program], checkpoint: str) -> list[dict[str, Any]]:
    """Each program's parameters (shared by name, as NNC) loaded from the checkpoint."""
    params, _kind = load_checked(job, programs, checkpoint)
    return params


def load_checked(
    job: Job, programs: Sequence[Program], checkpoint: str, *, initial_values: bool = True
) -> tuple[list[dict[str, Any]], str]:
    """:func:`load_parameters` and the checkpoint the values came from (``best`` falls back to
    ``last`` when no epoch was monitored); the file is checked before it is read.

    ``initial_values=False`` skips the initial values (random draws, ``File`` reads) of the
    parameters the file holds, which it overwrites anyway: for a caller that seeds the random
    generator afterwards (:func:`evaluate`), since the draws move it."""
    path, kind = job_parameters(job, checkpoint)
    nn.clear_parameters()
    if initial_values:
        params = [program.create_parameters(job.project_base()) for program in programs]
        nn.load_parameters(path)  # shapes and sizes checked against these before reading
        return params, kind
    name = os.fspath(path)
    check_extension(name, "read")
    expected: dict[str, tuple[int, ...]] = {}
    for program in programs:
        for decl in program.parameters:
            if not decl.buffer:  # what load_parameters checks: every parameter but buffers
                expected.setdefault(decl.name, tuple(decl.shape))
    arrays, meta = load_arrays(name, expected)  # shapes and sizes checked before reading
    in_file = {entry["name"] for entry in metadata_entries(name, arrays, meta)}
    params = [program.create_parameters(job.project_base(), in_file) for program in programs]
    assign_parameters(name, arrays, meta)
    return params, kind


def run_outputs(
    program: Program, params: dict[str, Any], data: Dataset, batch: int, executor: dict[str, Any]
) -> Iterator[tuple[int, dict[str, np.ndarray]]]:
    """``(first row, {output: float32 array})`` per batch, every row once in file order."""
    for start, (outputs,) in run_executors([ExecutorRun(program, params, executor)], data, batch):
        yield start, outputs


def run_executors(
    runs: Sequence[ExecutorRun], data: Dataset, batch: int
) -> Iterator[tuple[int, list[dict[str, np.ndarray]]]]:
    """``(first row, [{output: float32 array} per executor])`` per batch, in file order.

    As nnabla's ``forward`` (``_forward``), every executor runs on a batch before the next
    batch is read, in CONFIG order: buffers written by one are read by the next.
    """
    variables = list(dict.fromkeys(v for run in runs for v in run.program.variables()))
    for start, inputs in batches_once(data, batch, variables):
        yield start, run_batch(runs, inputs)


def run_batch(runs: Sequence[ExecutorRun], inputs: dict[str, Any]) -> list[dict[str, np.ndarray]]:
    """Every executor on one batch ``{variable: array (B, ...)}`` in turn (each reads the
    variables it needs): ``[{output: float32 array} per executor]``."""
    return [_run_executor(run, inputs) for run in runs]


def _run_executor(run: ExecutorRun, inputs: dict[str, Any]) -> dict[str, np.ndarray]:
    """One executor on one batch; ``num_evaluations`` > 1 repeats it and keeps the mean (or
    the last) output, each repeat with its backward when the executor needs one."""
    count = max(1, int(run.info.get("num_evaluations", 1)))
    last = run.info.get("repeat_evaluation_type") == "last"
    back = bool(run.info.get("need_back_propagation")) and bool(run.program.losses)
    names = [name for name, _ in run.program.outputs]
    total: dict[str, np.ndarray] = {}
    # Generators draw once per batch and every repeat reuses the draw, as nnabla's forward:
    # ``e.generator_assign`` is filled before ``for i in range(e.num_evaluations)``
    # (python/src/nnabla/utils/cli/forward.py, lines 139-148 at 2814df0d); dropout still
    # draws anew on each repeat (MC dropout).
    drawn: dict[int, Any] = {}
    for _ in range(count):
        plan = None if back else run.inference()
        if plan is not None:
            outputs = plan.run(inputs)
        else:
            with contextlib.nullcontext() if back else nn.no_grad():
                acts = run.program.forward(inputs, run.params, drawn)
                if back:
                    _back_propagate(run, acts)
            outputs = {name: run.program.output(acts, name).data for name in names}
        for name in names:
            value = backend.to_numpy(outputs[name]).astype(np.float64)
            total[name] = value if last or name not in total else total[name] + value
    return {n: (v if last else v / count).astype(np.float32) for n, v in total.items()}


def _back_propagate(run: ExecutorRun, acts: Any) -> None:
    """nnabla's ``backward_target``: ``F.sink`` of the losses, each element seeded with one.

    Only the side effects count (VATNoise writes its buffer); the parameters' gradients are
    dropped, since evaluation has no solver and must leave the trained values as they are.
    """
    try:
        backward(run.program.loss_values(acts), clear_buffer=True)
    except Exception as exc:  # out of GPU memory, CUDA errors: name the network
        if not gpu.is_device_error(exc):
            raise
        raise gpu.explain(exc, f'network "{run.program.network}" (back propagation)') from None
    finally:
        for var in run.params.values():
            var.grad = None


def _absolute_rows(data: Dataset) -> list[list[str]]:
    """The dataset's rows as nnabla's forward writes them: non-number cells made full paths.
    A cell seen before (class labels, repeated values) is converted once."""
    root = os.path.abspath(os.path.dirname(data.path))
    seen: dict[str, str] = {}

    def convert(cell: str) -> str:
        done = seen.get(cell)
        if done is None:
            done = cell if (not cell or _is_float(cell)) else _full_path(root, cell)
            seen[cell] = done
        return done

    rows = [data.row_cells(i) for i in range(data.size)]
    if not rows:
        return rows
    # Opening the dataset checked its variables' cells: a number column holds numbers only
    # (written as they are), a file column paths only (each made full); the rest cell by cell.
    kept = {c.index for v in data.variables if v.kind == "number" for c in v.columns}
    files = {c.index for v in data.variables if v.is_file for c in v.columns}
    for index in range(len(rows[0])):
        if index in kept:
            continue
        if index in files:
            paths = _full_paths(root, [row[index] for row in rows])
            for row, path in zip(rows, paths, strict=True):
                row[index] = path
        else:
            for row in rows:
                row[index] = convert(row[index])
    return rows


def _is_float(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _full_path(root: str, cell: str) -> str:
    path = os.path.join(root, cell).replace("\\", os.sep).replace("/", os.sep)
    return path.replace(os.sep + "." + os.sep, os.sep)


def _full_paths(root: str, cells: list[str]) -> list[str]:
    """:func:`_full_path` of each cell; relative one-line cells (a dataset's file column) made
    full in one pass over the column's text, the same replacements applied to every line."""
    text = "\n".join(cells)
    if (os.sep != "/" or "\n" in root or text.count("\n") != len(cells) - 1
            or text.startswith("/") or "\n/" in text):  # fmt: skip
        return [_full_path(root, cell) for cell in cells]
    lead = root if root.endswith("/") else root + "/"  # os.path.join's
    text = lead + text.replace("\n", "\n" + lead)
    return text.replace("\\", "/").replace("/./", "/").split("\n")


def _csv_text(rows: list[list[str]]) -> str:
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="\n").writerows(rows)
    return buffer.getvalue()


_QUOTED = re.compile('["\r]')  # with "," and "\n", what makes csv.writer quote a cell


def _result_text(header: list[str], rows: list[list[str]], tails: list[list[str]]) -> str:
    """``output_result.csv``: the header, then each row's dataset cells followed by its output
    cells, byte for byte what ``csv.writer`` writes for ``[header, *(row + cells)]``.

    ``tails[r]`` holds row ``r``'s output cells already joined with commas, one piece per
    output (NumPy's number text and ``./0_0000/12.csv`` paths, which csv.writer never quotes).
    When no dataset cell needs quoting and every row has output cells, each line is a plain
    join; otherwise the rows go through csv.writer, as before.
    """
    lines = [",".join(row) for row in rows]
    body = "\n".join(lines)
    # no cell holds a comma (the joins put in all there are), a quote or a line break
    plain = (all(tails) and body.count(",") == sum(len(row) - 1 for row in rows)
             and body.count("\n") == len(rows) - 1 and not _QUOTED.search(body))  # fmt: skip
    if not plain:
        return _csv_text([header, *(row + ",".join(t).split(",") if t else row
                                    for row, t in zip(rows, tails, strict=True))])  # fmt: skip
    text = [_csv_text([header])]
    text += [line + "," + ",".join(tail) + "\n" for line, tail in zip(lines, tails, strict=True)]
    return "".join(text)


class _OutputWriter:
    """The output columns of output_result.csv, by the rank of each output (nnabla forward)."""

    def __init__(self, folder: Path, names: list[str]) -> None:
        self.folder = folder
        self.names = names  # every executor's outputs in turn; two executors may share a name
        self.kinds: dict[int, tuple[str, int]] = {}  # index -> (col | .csv | .png, columns)
        self.values: dict[int, list[np.ndarray]] = {i: [] for i in range(len(names))}
        self.files: dict[int, dict[int, str]] = {}  # index -> row -> its file cells, joined

    def add(self, start: int, outputs: list[np.ndarray], count: int) -> None:
        """One batch's outputs for rows ``start..``; rows at or past ``count`` are dropped.
        Values written as columns are kept (and formatted by :meth:`tails`); 2-D and 3-D
        outputs are written to their files now."""
        for index, batch in enumerate(outputs):
            kind = self.kinds.setdefault(index, _kind(batch.shape[1:]))
            if kind[0] == "col":
                self.values[index].append(batch.reshape(len(batch), -1))
                continue
            files = self.files.setdefault(index, {})
            for k, sample in enumerate(batch):
                row = start + k
                if row < count:
                    cells = self._cells(index, row, sample, kind)
                    if cells:
                        files[row] = ",".join(cells)

    def tails(self, count: int) -> list[list[str]]:
        """Per row of ``count``: each output's cells joined with commas, in output order.

        The values of every batch are formatted in one call (each as str(np.float32(v)), the
        shortest text that reads back the same float32: engine/data/float32_text.py)."""
        tails: list[list[str]] = [[] for _ in range(count)]
        for index in range(len(self.names)):
            kind = self.kinds.get(index)
            if kind is None:
                continue
            if kind[0] != "col":
                for row, cells in self.files.get(index, {}).items():
                    tails[row].append(cells)
                continue
            values = self.numeric_at(index)
            if values is None or values.shape[1] == 0:
                continue
            for tail, cells in zip(tails, float32_rows(values[:count]), strict=False):
                tail.append(cells)
        return tails

    def _cells(self, output: int, row: int, sample: np.ndarray, kind: tuple[str, int]) -> list[str]:
        vtype, dim = kind
        cells = []
        for channel in range(dim):
            name = f"{output}_{row // 1000:04d}/" + (f"{channel}_" if dim > 1 else "") + f"{row}"
            path = self.folder / (name + vtype)
            path.parent.mkdir(parents=True, exist_ok=True)
            if vtype == ".png":
                save_image(path, picture(sample, channel))
            else:
                atomic_write_text(path, "".join(line + "\n" for line in float32_rows(sample)))
            cells.append("./" + name + vtype)
        return cells

    def header(self) -> list[str]:
        cells = []
        for index, name in enumerate(self.names):
            _, dim = self.kinds.get(index, ("col", 1))
            cells += [name] if dim == 1 else [f"{name}__{i}" for i in range(dim)]
        return cells

    def numeric(self, name: str) -> np.ndarray | None:
        """The values of the first output called ``name`` written as columns."""
        return self.numeric_at(self.names.index(name))

    def numeric_at(self, index: int) -> np.ndarray | None:
        """The values of output ``index`` written as columns, (rows, columns)."""
        parts = self.values.get(index, [])
        if len(parts) > 1:  # joined once, for the text and the metrics
            parts[:] = [np.concatenate(parts)]
        return np.asarray(parts[0]) if parts else None


def _kind(shape: tuple[int, ...]) -> tuple[str, int]:
    if len(shape) == 2:
        return ".csv", 1
    if len(shape) == 3:
        return ".png", 1 if shape[0] in (1, 3) else shape[0]
    return "col", int(np.prod(shape))


def picture(sample: np.ndarray, channel: int = 0) -> np.ndarray:
    """A (C, H, W) output as NNC pictures it: x255, clipped, uint8 (one channel of those with
    neither 1 nor 3)."""
    x = np.asarray(sample, dtype=np.float32) * 255.0
    if x.shape[0] not in (1, 3):
        x = x[channel : channel + 1]
    return np.asarray(np.clip(x, 0, 255), dtype=np.uint8)


def _metrics(job: Job, data: Dataset, writer: _OutputWriter) -> tuple[dict[str, Any], list[Path]]:
    """Confusion matrices and regression metrics for the outputs with a matching target."""
    summary: dict[str, Any] = {"classification": {}, "regression": {}}
    files = []
    for name in dict.fromkeys(writer.names):
        base = name[:-1] if name.endswith("'") else None
        outputs = writer.numeric(name)
        if base is None or base not in data.names or outputs is None:
            continue
        variable = data.variable(base)
        if variable.kind != "number":
            continue  # image targets: NNC skips non-numeric columns
        targets = data.get_batch(np.arange(data.size), [base])[base].reshape(data.size, -1)
        if metrics.is_classification(targets, outputs):
            result = metrics.classify(targets, outputs)
            rows, columns = _labels(variable, name, result.classes, outputs.shape[1])
            path = job.root / f"confusion_matrix_{base}.csv"
            atomic_write_text(path, metrics.confusion_matrix_csv(result, rows, columns), "")
            files.append(path)
            summary["classification"][name] = result.to_json()
        else:
            summary["regression"][name] = metrics.regression(targets, outputs)
    return summary, files


def _labels(variable: Any, output: str, k: int, width: int) -> tuple[list[str], list[str]]:
    """Row labels (``y:label=3`` or the one-hot headers) and column labels (``y'__3``, ``y'=3``)."""
    columns = variable.columns
    if len(columns) == 1:
        rows = [f"{columns[0].header}={i}" for i in range(k)]
    else:
        rows = [c.header for c in columns[:k]] + [
            f"{variable.name}={i}" for i in range(len(columns), k)
        ]
    cols = (
        [f"{output}__{j}" for j in range(k)] if width > 1 else [f"{output}={j}" for j in range(k)]
    )
    return rows, cols

"""The jobs of a project, read from their folders (no Qt): status, date, curve, statistics.

Jobs live where ``neurocanvas train`` puts them by default, ``<project>.files/<date_time>/``
beside the project file (NNC's place), so the history is remembered simply by the folders; an
untitled project trains into the app's data folder. A job whose status.json says ``running``
but whose trainer process is gone is shown as ``interrupted`` (killed; Resume continues it).
"""

from __future__ import annotations

import csv
import datetime as _dt
import json
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engine.formats import ProjectFileError, load_project
from engine.graph.project_inference import ProjectInference
from engine.graph.statistics import network_statistics as stats
from engine.runtime.job import Job, atomic_write_json

STATUSES = ("running", "finished", "stopped", "interrupted", "failed")
LABEL_FILE = "label.json"  # the app's rename: a display name, the folder keeps its date


@dataclass(frozen=True)
class JobInfo:
    path: Path
    name: str
    status: str
    date: str
    epoch: int = 0
    max_epoch: int = 0
    best_epoch: int = 0
    message: str = ""
    curve: list[tuple[int, float | None, float | None, float | None]] = field(default_factory=list)
    statistics: dict[str, int] = field(default_factory=dict)
    accuracy: float | None = None  # the last evaluation's (first classified output), if any

    @property
    def experiment(self) -> Path | None:
        """The quantization experiment (sweep folder) this job is a point of, else None."""
        return experiment_of(self.path)

    def last(self, column: int) -> float | None:
        """The last non-empty value of a curve column (1 cost, 2 training, 3 validation)."""
        for row in reversed(self.curve):
            if row[column] is not None:
                return row[column]
        return None

    @property
    def resumable(self) -> bool:
        """Not finished, and with a checkpoint to continue from: a run that failed before its
        first checkpoint (no dataset, a bad network) has nothing to resume; Run starts anew."""
        if self.status == "finished":
            return False
        last = self.path / "checkpoints" / "last"
        return last.is_dir() or last.with_name("last.old").is_dir()

    @property
    def best_valid_error(self) -> float | None:
        for row in self.curve:
            if row[0] == self.best_epoch:
                return row[3]
        return self.last(3)


def jobs_root(project_file: Path | None, fallback: Path) -> Path:
    if project_file is None:
        return fallback / "untitled.files"
    return project_file.with_name(project_file.stem + ".files")


def _read_json(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _number(text: str) -> float | None:
    try:
        return float(text) if text.strip() else None
    except ValueError:
        return None


def read_curve(job: Path) -> list[tuple[int, float | None, float | None, float | None]]:
    rows = []
    try:
        with open(job / "learning_curve.csv", newline="", encoding="utf-8") as f:
            for row in csv.DictReader(f):
                rows.append((int(row["epoch"]), _number(row.get("cost", "")),
                             _number(row.get("train_error", "")),
                             _number(row.get("valid_error", ""))))  # fmt: skip
    except (OSError, ValueError, KeyError, TypeError):
        pass
    return rows


_STATS_CACHE: dict[tuple[str, float], dict[str, int]] = {}


def network_statistics(job: Path) -> dict[str, int]:
    """The trained network's totals (CostParameter, CostMultiplyAdd, ...) from the snapshot.

    Cached by file and modification time: the history refreshes after every run.
    """
    try:
        key = (str(job), (job / "network.ncproj").stat().st_mtime)
    except OSError:
        return {}
    if key not in _STATS_CACHE:
        _STATS_CACHE[key] = _compute_statistics(job)
    return _STATS_CACHE[key]


def _compute_statistics(job: Path) -> dict[str, int]:

    try:
        project = load_project(job / "network.ncproj")
        name = project.optimizers[0].network if project.optimizers else project.network_names[0]
        inference = ProjectInference(project)
        try:
            return stats(inference.network(name)).summary()
        finally:
            inference.close()
    except (ProjectFileError, OSError, IndexError, KeyError, ValueError):
        return {}


def _start_time(path: Path) -> float | None:
    """When the job started: its first event ("start"), else when its snapshot was written.
    Not the folder's time, which evaluating or reporting the job changes."""
    try:
        with open(path / "events.jsonl", encoding="utf-8") as f:
            return float(json.loads(f.readline())["time"])
    except (OSError, ValueError, KeyError, TypeError):
        pass
    try:
        return (path / "network.ncproj").stat().st_mtime
    except OSError:
        return None


def experiment_of(job: Path) -> Path | None:
    """The quantization experiment folder ``job`` is a point of (it holds results.csv)."""
    return job.parent if (job.parent / "results.csv").is_file() else None


def experiment_source(experiment: Path) -> Path | None:
    """The trained job an experiment was run on: ``<job>_quantization`` beside ``<job>``
    (where TRAINING > Quantization experiment writes it); None when that job is gone."""
    name = experiment.name.removesuffix("_quantization")
    source = experiment.with_name(name)
    return source if name != experiment.name and (source / "network.ncproj").is_file() else None


def experiment_order(experiment: Path) -> list[str]:
    """The point folders of an experiment in the order it ran them (results.csv's ``job``
    column: the float baseline, then the widths given)."""
    try:
        with open(experiment / "results.csv", newline="", encoding="utf-8") as f:
            return [row.get("job") or "" for row in csv.DictReader(f)]
    except (OSError, csv.Error, UnicodeDecodeError):
        return []


def evaluated_accuracy(job: Path) -> float | None:
    """The accuracy of the job's last evaluation (evaluation.json, its first classified
    output); None when never evaluated or nothing was classified."""
    classes = _read_json(job / "evaluation.json").get("classification")
    if not isinstance(classes, dict) or not classes:
        return None
    first = next(iter(classes.values()))
    try:
        return float(first["accuracy"])
    except (TypeError, KeyError, ValueError):
        return None


def read_job(path: Path, with_statistics: bool = True) -> JobInfo:
    status = Job(path).status()  # a dead trainer's "running" reads "interrupted"
    state = str(status.get("status", "failed" if not (path / "events.jsonl").exists() else ""))
    if state not in STATUSES:
        state = "failed"
    label = _read_json(path / LABEL_FILE).get("name")
    started = _start_time(path)
    date = (
        "" if started is None else _dt.datetime.fromtimestamp(started).strftime("%Y-%m-%d %H:%M:%S")
    )
    return JobInfo(
        path=path, name=str(label or path.name), status=state, date=date,
        epoch=int(status.get("epoch") or 0), max_epoch=int(status.get("max_epoch") or 0),
        best_epoch=int(status.get("best_epoch") or 0), message=str(status.get("message") or ""),
        curve=read_curve(path),
        statistics=network_statistics(path) if with_statistics else {},
        accuracy=evaluated_accuracy(path),
    )  # fmt: skip


def list_jobs(root: Path) -> list[Path]:
    """Job folders under ``root``, oldest first (a job folder holds network.ncproj); the
    points of a quantization sweep folder (one holding results.csv) are listed too."""
    if not root.is_dir():
        return []
    found = [p for p in root.iterdir() if p.is_dir() and (p / "network.ncproj").exists()]
    for sweep in [p for p in root.iterdir() if (p / "results.csv").is_file()]:  # quantization
        found += [p for p in sweep.iterdir() if p.is_dir() and (p / "network.ncproj").exists()]
    return sorted(found, key=lambda p: p.relative_to(root).as_posix())


def rename_job(path: Path, name: str) -> None:
    atomic_write_json(path / LABEL_FILE, {"name": name})


def delete_job(path: Path) -> None:
    """Remove a job folder (the GUI asks first; never called without the user's yes)."""
    if (path / "network.ncproj").exists():
        shutil.rmtree(path)


def pareto_front(points: list[tuple[float, float]]) -> list[bool]:
    """Which (cost, error) points are Pareto-optimal by NNC's rule (docs/nnc-behaviour.md §9.1).

    Sort by (cost, error); keep a running minimum error. A point is optimal when its error is
    <= the running minimum at a new cost value, or equals its group's minimum among equal costs.
    """
    order = sorted(range(len(points)), key=lambda i: points[i])
    optimal = [False] * len(points)
    running = float("inf")
    i = 0
    while i < len(order):
        cost = points[order[i]][0]
        group = [j for j in order[i:] if points[j][0] == cost]
        group_min = min(points[j][1] for j in group)
        for j in group:
            if points[j][1] == group_min and group_min <= running:
                optimal[j] = True
        running = min(running, group_min)
        i += len(group)
    return optimal

"""The job folder: everything about one training run (docs/job-folder.md §1).

::

    JOB_DIR/
      network.ncproj         the project as trained (native snapshot; evaluate reads this)
      original/<file>        a byte copy of the file the run was started from (.sdcproj, ...)
      config.json            the resolved configuration: seed, device, epochs, batch size,
                             iterations per epoch, datasets (CSV paths, rows), optimizers with
                             their iteration ranges and schedules, monitors, executors
      status.json            running | finished | stopped | failed, epoch, best epoch, message,
                             the trainer's process id and host (:meth:`Job.status` reads a
                             "running" whose process is gone as "interrupted")
      events.jsonl           every event of the run, one JSON object per line (as --events)
      log.txt                NNC-style log lines ("epoch 3 of 10 cost=0.312 {...} time=...")
      learning_curve.csv     epoch,cost,train_error,valid_error (NNC's "Save CSV as" layout)
      monitoring_report.yml  NNC's monitoring report (key = epoch - 1)
      checkpoints/last/      parameters.npz, solver_<i>.npz, state.json: resume from here
      checkpoints/best/      parameters.npz, state.json: the best epoch (NNC's rule)
      output_result.csv      after evaluation: NNC's layout, plus confusion_matrix_<var>.csv,
      evaluation.json        and a summary of the metrics

The folder is claimed atomically by creating its ``status.json`` exclusively (several runs
started at once each get their own). Files that another process reads (the app polls status,
curve and checkpoints) are written to a temporary file and renamed. ``events.jsonl`` and
``log.txt`` are appended one whole line per write, so a reader sees complete lines only (a
partial last line means "not yet").
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
import json
import os
import shutil
import socket
import sys
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from engine.core import atomic
from engine.core.messages import QT_TRANSLATE_NOOP
from engine.core.numbers import float_text
from engine.formats import load_project, save_project

__all__ = [
    "Job",
    "trainer_alive",
    "JobError",
    "atomic_write_text",
    "atomic_write_json",
    "default_job_dir",
    "claim_job_dir",
]

FORMAT = "neurocanvas-job"
VERSION = 1


PARAMETERS = "parameters.npz"  # in each checkpoint folder


def checkpoint_path(folder: Path) -> Path:
    """An existing checkpoint folder, or its predecessor left by an interrupted swap."""
    if folder.is_dir():
        return folder
    old = folder.with_name(folder.name + ".old")
    return old if old.is_dir() else folder


class JobError(ValueError):
    """A job folder that cannot be created or read; the message names the folder."""


def atomic_write_text(path: Path, text: str, newline: str = "\n") -> None:
    """Write ``text`` to ``path`` atomically (:mod:`engine.core.atomic`), creating its folder."""
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic.atomic_write_text(path, text, newline, durable=False)  # as before: no fsync per epoch


def atomic_write_json(path: Path, data: Any) -> None:
    atomic_write_text(path, json.dumps(data, indent=2, allow_nan=False) + "\n")


_KINDS: dict[str, tuple[type, ...]] = {
    "int": (int,), "float": (int, float), "str": (str,), "bool": (bool,), "dict": (dict,),
    "list": (list,),
}  # fmt: skip


def _fits(value: Any, kind: str) -> bool:
    if kind == "None":
        return value is None
    if isinstance(value, bool) and kind in ("int", "float"):
        return False
    if kind.startswith("dict[str,float]"):  # monitor values
        return isinstance(value, dict) and all(_fits(v, "float") for v in value.values())
    return isinstance(value, _KINDS.get(kind.split("[")[0], (object,)))


def typed_fields(cls: type, data: Any, where: str) -> dict[str, Any]:
    """The fields of dataclass ``cls`` from a JSON object written by this program, checked
    against their annotations (``int``, ``float | None``, ``list[...]``...), so a damaged
    job file is a :class:`JobError` naming the file and key, not a crash deep in a run."""
    if not isinstance(data, dict):
        raise JobError(f"{where}: damaged (expected a JSON object)")
    out = {}
    for f in dataclasses.fields(cls):
        if f.name not in data:
            continue
        value, kinds = data[f.name], str(f.type).replace(" ", "").split("|")
        fits = any(_fits(value, kind) for kind in kinds)
        if not fits:
            raise JobError(f"{where}: damaged ({f.name}: expected {f.type}. Received: {value!r})")
        out[f.name] = value
    return out


def default_job_dir(project_file: Path) -> Path:
    """NNC's place for jobs: ``<project>.files/<YYYYMMDD_HHMMSS>`` beside the project file.

    The name is a proposal: :meth:`Job.create` with ``numbered=True`` claims it or the next
    free ``_2``, ``_3``... atomically (two runs started in the same second never share one).
    """
    stamp = _dt.datetime.now().strftime("%Y%m%d_%H%M%S")
    return project_file.with_name(project_file.stem + ".files") / stamp


def claim_job_dir(root: Path, numbered: bool) -> Path:
    """Create ``root`` (or, numbered, the first free ``root_k``) and claim it for this run."""
    candidate, k = root, 2
    while True:
        try:
            candidate.mkdir(parents=True, exist_ok=True)
            fd = os.open(candidate / "status.json", os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        except FileExistsError:
            fd = -1  # a file in the way, or another run's claim
        except OSError as exc:
            raise JobError(f"{candidate}: cannot create the job folder ({exc.strerror})") from None
        if fd >= 0:
            claimed = json.dumps({"status": "running", "epoch": 0, "pid": os.getpid(),
                                  "host": socket.gethostname()})  # fmt: skip
            os.write(fd, (claimed + "\n").encode("utf-8"))
            os.close(fd)
            if {p.name for p in candidate.iterdir()} == {"status.json"}:
                return candidate
            (candidate / "status.json").unlink()  # a folder holding other things: not ours
        if not numbered:
            Job.check_new(candidate)
            raise JobError(f"{candidate}: another run claimed this job folder first")
        candidate = root.with_name(f"{root.name}_{k}")
        k += 1


def trainer_alive(status: Mapping[str, Any]) -> bool:
    """Whether the process named in a status may still be running (unknown counts as alive:
    another machine's process, or a system where a process cannot be probed)."""
    pid = status.get("pid")
    host = status.get("host")
    if not isinstance(pid, int) or pid <= 0:
        return False
    if (host and host != socket.gethostname()) or sys.platform == "win32":
        return True  # os.kill(pid, 0) would end the process on Windows
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # it exists, owned by someone else
    return True


class Job:
    """Paths and writers of one job folder."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)

    # -- paths -------------------------------------------------------------------------------
    @property
    def project_file(self) -> Path:
        return self.root / "network.ncproj"

    @property
    def config_file(self) -> Path:
        return self.root / "config.json"

    @property
    def status_file(self) -> Path:
        return self.root / "status.json"

    @property
    def events_file(self) -> Path:
        return self.root / "events.jsonl"

    @property
    def log_file(self) -> Path:
        return self.root / "log.txt"

    @property
    def curve_file(self) -> Path:
        return self.root / "learning_curve.csv"

    @property
    def report_file(self) -> Path:
        return self.root / "monitoring_report.yml"

    def checkpoint_dir(self, kind: str) -> Path:
        """``checkpoints/last`` or ``checkpoints/best``."""
        return self.root / "checkpoints" / kind

    # -- creation ----------------------------------------------------------------------------
    @staticmethod
    def check_new(root: Path) -> None:
        """Refuse an existing non-empty folder: job folders are never overwritten."""
        if root.exists() and (not root.is_dir() or any(root.iterdir())):
            raise JobError(
                f"{root}: the job folder exists and is not empty; choose another -o folder "
                f"(job folders are never overwritten) or continue it with --resume {root}"
            )

    @classmethod
    def create(
        cls, root: Path, project: Any, source: Path | None, *, numbered: bool = False
    ) -> Job:
        """A new job folder, claimed atomically, with the project snapshot.

        The folder is claimed by creating its ``status.json`` exclusively, so of several runs
        started at once exactly one gets it. With ``numbered`` (the default folder) a folder
        that is taken gives way to the next free ``<name>_2``, ``<name>_3``...; otherwise a
        taken folder is a :class:`JobError` (see :meth:`check_new`).
        """

        existed = Path(root).is_dir()
        job = cls(claim_job_dir(Path(root), numbered))
        try:
            save_project(project, job.project_file)
            if source is not None and source.is_file():
                (job.root / "original").mkdir(exist_ok=True)
                shutil.copyfile(source, job.root / "original" / source.name)
        except BaseException:  # a full disk: the claim is given back, nothing half-made stays
            job.unclaim(keep_folder=existed and job.root == Path(root))
            raise
        return job

    def unclaim(self, keep_folder: bool) -> None:
        """Remove what :meth:`create` made in a folder it claimed a moment ago (the folder
        too, unless it was there before: an empty ``-o`` folder the user made)."""
        for path in (self.status_file, self.project_file):
            path.unlink(missing_ok=True)
        shutil.rmtree(self.root / "original", ignore_errors=True)
        if not keep_folder:
            try:
                self.root.rmdir()
            except OSError:
                pass  # something else is in it now: not ours to remove

    @classmethod
    def open(cls, root: Path) -> Job:
        """An existing job folder (for resume and evaluation)."""
        job = cls(Path(root))
        if not job.root.is_dir():
            raise JobError(QT_TRANSLATE_NOOP("Jobs", "{root}: no such job folder").format(
                root=str(root)))  # fmt: skip
        has_project, has_config = job.project_file.is_file(), job.config_file.is_file()
        if not has_project and not has_config:
            raise JobError(QT_TRANSLATE_NOOP(
                "Jobs", "{root}: not a NeuroCanvas job folder (no network.ncproj/config.json)"
            ).format(root=str(root)))  # fmt: skip
        if not has_config:  # train writes network.ncproj, then config.json before it starts
            raise JobError(QT_TRANSLATE_NOOP(
                "Jobs", "{root}: no config.json: its training did not start or failed before "
                "its first epoch"
            ).format(root=str(root)))  # fmt: skip
        if not has_project:
            raise JobError(QT_TRANSLATE_NOOP(
                "Jobs", "{root}: no network.ncproj (the job's copy of its project)"
            ).format(root=str(root)))  # fmt: skip
        return job

    # -- reading -----------------------------------------------------------------------------
    def read_json(self, path: Path) -> dict[str, Any]:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise JobError(f"{path}: missing") from None
        except (OSError, ValueError) as exc:
            raise JobError(f"{path}: unreadable ({exc})") from None
        if not isinstance(data, dict):
            raise JobError(f"{path}: expected a JSON object")
        return data

    def config(self) -> dict[str, Any]:
        config = self.read_json(self.config_file)
        if config.get("format") != FORMAT or not isinstance(config.get("version"), int):
            raise JobError(f"{self.config_file}: not a NeuroCanvas job configuration")
        if config["version"] > VERSION:
            raise JobError(f"{self.config_file}: written by a newer NeuroCanvas")
        return config

    def project_base(self) -> Path | None:
        """The folder of the project the job was trained from (relative ``File`` paths)."""
        try:
            source = self.config().get("plan", {}).get("project_file")
        except JobError:
            return None
        return Path(source).parent if source else None

    def plan(self) -> dict[str, Any]:
        """The run plan of ``config.json`` (a JSON object; see ``RunPlan.from_json``)."""
        plan = self.config().get("plan")
        if not isinstance(plan, dict):
            raise JobError(f"{self.config_file}: damaged (no plan object)")
        return plan

    def load_project(self) -> Any:

        return load_project(self.project_file)

    def status(self) -> dict[str, Any]:
        """``status.json`` as every reader should show it.

        A job that says ``running`` while its trainer process is gone (kill -9, a crash, a
        power cut) reads ``interrupted``; ``resumable`` tells whether a ``last`` checkpoint
        exists to continue from (``neurocanvas train --resume``, the app's Resume).
        """
        try:
            status = self.read_json(self.status_file)
        except JobError:
            status = {}
        if status.get("status") == "running" and not trainer_alive(status):
            status["status"] = "interrupted"
            status["message"] = (f"the trainer (process {status.get('pid')}) ended without "
                                 f"saving its state; the run can continue from its last "
                                 f"checkpoint")  # fmt: skip

        last = checkpoint_path(self.checkpoint_dir("last"))
        status["resumable"] = status.get("status") != "running" and (last / PARAMETERS).is_file()
        return status

    def remove_strays(self) -> list[Path]:
        """Remove what an interrupted writer left: checkpoint build folders and temporary
        files (``.<name>.<random>`` beside their target). Returns what was removed."""
        folder = self.root / "checkpoints"
        strays = [p for p in folder.glob(".*.*") if p.is_dir()] if folder.is_dir() else []
        strays += [p for p in self.root.glob(".*.tmp") if p.is_file()]
        strays += [p for p in folder.glob("*/.*.tmp") if p.is_file()] if folder.is_dir() else []
        for path in strays:
            if path.is_dir():
                shutil.rmtree(path, ignore_errors=True)
            else:
                path.unlink(missing_ok=True)
        return strays

    # -- writing -----------------------------------------------------------------------------
    def write_config(self, config: Mapping[str, Any]) -> None:
        atomic_write_json(self.config_file, {"format": FORMAT, "version": VERSION, **config})

    def write_status(self, **status: Any) -> None:
        atomic_write_json(self.status_file, status)

    def append_line(self, path: Path, line: str) -> None:
        """Append one whole line with a single write (readers never see half a line)."""
        data = (line.rstrip("\n") + "\n").encode("utf-8")
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            os.write(fd, data)
        finally:
            os.close(fd)

    def write_curve(self, rows: Iterable[Sequence[float | None]]) -> None:
        """``learning_curve.csv``: ``epoch,cost,train_error,valid_error`` (empty: unmonitored)."""
        lines = ["epoch,cost,train_error,valid_error"]
        for epoch, *values in rows:
            lines.append(",".join([str(int(epoch))] + [float_text(v) for v in values]))  # type: ignore[arg-type]
        atomic_write_text(self.curve_file, "\n".join(lines) + "\n")

    def write_report(self, records: Iterable[Mapping[str, Any]]) -> None:
        """``monitoring_report.yml`` as nnabla writes it (key = epoch - 1)."""
        lines = []
        for record in records:
            lines.append(f"{int(record['epoch']) - 1}:")
            lines.append(f"  cost: {float_text(record['cost'])}")
            for name, value in record.get("monitors", {}).items():
                lines.append(f"  {name}: {float_text(value)}")
        atomic_write_text(self.report_file, "\n".join(lines) + ("\n" if lines else ""))

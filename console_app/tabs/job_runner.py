"""Runs ``neurocanvas train`` / ``evaluate`` as a child process (QProcess) and reads its events.

The GUI never trains in its own process (DESIGN principle 4): a crash or a kill of the child
leaves the editor running. stdout carries one JSON event per line (engine/runtime/events.py);
stderr is the log. ``stop()`` writes ``stop`` to the child's stdin, which saves a checkpoint
and ends the run with status ``stopped``.

Tests replace :attr:`JobRunner.program` (the interpreter and module that start the CLI) to
make the child crash; the environment variable ``NEUROCANVAS_TRAINER`` does the same for a
manual check (``NEUROCANVAS_TRAINER="python -c 'import sys; sys.exit(3)'"``).
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import sys
from collections import deque
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, QProcess, QProcessEnvironment, Signal

from engine.core.messages import Message, from_event
from engine.runtime.distributed.collectives import DistributedError
from engine.runtime.distributed.launch import mpirun_command
from engine.runtime.job import atomic_write_json, claim_job_dir

LOG_TAIL = 200  # lines of stderr kept for the failure message
KILLED_WAIT_MS = 30000  # a killed child ends at once; a loaded machine may take seconds to say so


def default_program() -> list[str]:
    override = os.environ.get("NEUROCANVAS_TRAINER")
    if override:
        return shlex.split(override)
    return [sys.executable, "-m", "engine.cli"]


def _device(device: str) -> list[str]:
    """``auto`` leaves the choice to the trainer (NEUROCANVAS_DEVICE, else GPU when found)."""
    return [] if device in ("", "auto") else ["--device", device]


class JobRunner(QObject):
    """One child process at a time. Signals: ``event(dict)``, ``log(str)``, ``ended(str, str)``.

    ``ended(status, message)``: ``finished``/``stopped`` from the child's ``done`` event, or
    ``failed`` with the last error event or the tail of its log.
    """

    event = Signal(dict)
    log = Signal(str)
    ended = Signal(str, str)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.program: list[str] = default_program()
        self.process: QProcess | None = None
        self.job_dir: Path | None = None
        self.kind = ""
        self._out_buffer = b""
        self._log_tail: deque[str] = deque(maxlen=LOG_TAIL)
        self._done: dict[str, Any] | None = None
        self._error = ""
        self.started = False  # the trainer said "start": a failure now is the job's, not start-up's
        self.project: Path | None = None  # the project of a new run (not of a resume)
        self.shut_down = False  # :meth:`shutdown` ended the child (the app is closing)

    # -- starting ----------------------------------------------------------------------------
    def is_running(self) -> bool:
        return self.process is not None and self.process.state() != QProcess.ProcessState.NotRunning

    def train(self, project: Path, job_dir: Path, device: str = "auto",
              epochs: int | None = None, seed: int | None = None,
              processes: int = 1, params: Path | None = None) -> None:  # fmt: skip
        """``processes`` > 1: that many data-parallel trainers started through mpirun;
        ``params``: start from these parameters (``train --params``) instead of initializers."""
        project, job_dir = Path(project).absolute(), Path(job_dir).absolute()
        # --numbered: a command-line run may take the folder first; then the next free one
        # (the start event names the folder the trainer took)
        args = ["train", str(project), "-o", str(job_dir), "--numbered", "--events"]
        args += _device(device)
        if epochs is not None:
            args += ["--epochs", str(epochs)]
        if seed is not None:
            args += ["--seed", str(seed)]
        if params is not None:
            args += ["--params", str(Path(params).absolute())]
        self._start("train", job_dir, args, project, processes)

    def resume(self, job_dir: Path, device: str = "auto", epochs: int | None = None,
               processes: int = 1) -> None:  # fmt: skip
        job_dir = Path(job_dir).absolute()  # the child's working directory is not ours
        args = ["train", "--resume", str(job_dir), "--events", *_device(device)]
        if epochs is not None:
            args += ["--epochs", str(epochs)]
        self._start("train", job_dir, args, processes=processes)

    def search(self, project: Path, jobs_root: Path, args: list[str], device: str = "auto") -> None:
        """``neurocanvas search PROJECT --jobs-dir JOBS_ROOT --events ARGS`` (structure search)."""
        command = ["search", str(project), "--jobs-dir", str(jobs_root), "--events", *args]
        self._start("search", jobs_root, command + _device(device))

    def evaluate(self, job_dir: Path, dataset: str | None, checkpoint: str) -> None:
        job_dir = Path(job_dir).absolute()
        args = ["evaluate", str(job_dir), "--checkpoint", checkpoint, "--json", "--events"]
        if dataset:
            args += ["--dataset", dataset]
        self._start("evaluate", job_dir, args)

    def run_command(self, kind: str, folder: Path, args: list[str]) -> None:
        """Another ``neurocanvas`` command that prints events and a ``done`` (quantize sweep)."""
        self._start(kind, folder, args)

    def _start(
        self, kind: str, job_dir: Path, args: list[str], new_from: Path | None = None,
        processes: int = 1,
    ) -> None:  # fmt: skip
        """``new_from``: the project of a new run (its job folder does not exist yet)."""
        if self.is_running():
            raise RuntimeError("a job is already running")
        self.kind, self.job_dir = kind, Path(job_dir)
        self._out_buffer, self._done, self._error = b"", None, ""
        self.started, self.project, self.shut_down = False, new_from, False
        self._log_tail.clear()
        command, env = [*self.program, *args], {}
        if processes > 1:
            try:
                command, env = mpirun_command(processes, command)
            except DistributedError as exc:
                self._end("failed", str(exc))
                return
        process = QProcess(self)
        process.setWorkingDirectory(str(Path(__file__).resolve().parents[2]))
        process.readyReadStandardOutput.connect(self._read_stdout)
        process.readyReadStandardError.connect(self._read_stderr)
        process.finished.connect(self._finished)
        process.errorOccurred.connect(self._error_occurred)
        if env:
            environment = QProcessEnvironment.systemEnvironment()
            for key, value in env.items():
                environment.insert(key, value)
            process.setProcessEnvironment(environment)
        self.process = process
        self.log.emit("$ " + shlex.join(command))
        process.start(command[0], command[1:])

    def stop(self) -> bool:
        """Ask the trainer to save a checkpoint and end (``stop`` on its stdin)."""
        if not self.is_running() or self.process is None:
            return False
        self.process.write(b"stop\n")
        return True

    def kill(self) -> None:
        if self.is_running() and self.process is not None:
            self.process.kill()

    def shutdown(self, grace_ms: int = 5000) -> None:
        """End the child before the app quits; waits, so no QProcess outlives its child.

        A trainer (search, sweep) is asked to ``stop`` (a trainer saves a checkpoint) and
        killed if it has not ended after ``grace_ms``. An evaluation has nothing to save and
        does not read ``stop``: it is ended at once (the window froze for the whole grace,
        then reported "the trainer was killed or crashed") and reported ``stopped``."""
        if not self.is_running() or self.process is None:
            return
        self.shut_down = True
        if self.kind != "evaluate" and self.stop() and self.process.waitForFinished(grace_ms):
            return
        self.process.kill()
        self.process.waitForFinished(KILLED_WAIT_MS)

    # -- reading -----------------------------------------------------------------------------
    def _read_stdout(self) -> None:
        assert self.process is not None
        self._out_buffer += bytes(self.process.readAllStandardOutput().data())
        *lines, self._out_buffer = self._out_buffer.split(b"\n")
        for raw in lines:
            self._handle_line(raw.decode("utf-8", "replace").strip())

    def _handle_line(self, line: str) -> None:
        if not line:
            return
        try:
            record = json.loads(line)
        except ValueError:
            record = None
        if not isinstance(record, dict):  # evaluate's summary; the tab reads evaluation.json
            return
        if record.get("event") == "start":
            self.started = True
            if self.kind == "train" and record.get("job"):
                self.job_dir = Path(str(record["job"]))  # --numbered: maybe not the proposal
        elif record.get("event") == "done":
            self._done = record
        elif record.get("event") == "error":
            self._error = from_event(record)  # a Message when the child sent its template
        self.event.emit(record)

    def _read_stderr(self) -> None:
        assert self.process is not None
        text = bytes(self.process.readAllStandardError().data()).decode("utf-8", "replace")
        for line in text.splitlines():
            if not line.strip():
                continue
            self._log_tail.append(line)
            if line.startswith("WARNING") and self.kind == "train":
                # e.g. the trainer's "GPU not usable, falling back to CPU": never hidden
                message = line.partition(":")[2].strip() or line
                self.event.emit({"event": "warning", "message": message, "source": "log"})
            else:
                self.log.emit(line)

    def first_line(self, message: str) -> str:
        """A failure's first line, still the child's error :class:`Message` (shown in the
        interface's language) when it is that error's text."""
        first = message.splitlines()[0] if message else ""
        return self._error if isinstance(self._error, Message) and first == self._error else first

    def log_tail(self, lines: int = 15) -> str:
        return "\n".join(list(self._log_tail)[-lines:])

    def _error_occurred(self, error: QProcess.ProcessError) -> None:
        if error == QProcess.ProcessError.FailedToStart:
            self._end("failed", f"cannot start the trainer: {self.program[0]}")

    def _finished(self, code: int, exit_status: QProcess.ExitStatus) -> None:
        self._read_stdout()
        if self._out_buffer:
            self._handle_line(self._out_buffer.decode("utf-8", "replace").strip())
            self._out_buffer = b""
        if self.kind == "plugin" and code != 0 and not self._error and self._log_tail:
            self._error = self._log_tail[-1].strip()  # the CLI's one line
        if self.kind == "evaluate":
            if code == 0:
                self._end("finished", "")
            elif self.shut_down:
                self._end("stopped", "")  # the user's Stop and quit, not a crash
            else:
                self._end("failed", self._failure_text(code, exit_status))
            return
        if code == 0 and exit_status == QProcess.ExitStatus.NormalExit and self._done is not None:
            self._end(str(self._done.get("status", "finished")), "")
            return
        self._end("failed", self._failure_text(code, exit_status))

    def _failure_text(self, code: int, exit_status: QProcess.ExitStatus) -> str:
        crashed = exit_status == QProcess.ExitStatus.CrashExit
        head = "the trainer was killed or crashed" if crashed else f"exit status {code}"
        if not self._error and self._log_tail:  # the first line says why (history, status)
            head += ": " + self._log_tail[-1].strip()
        return (self._error or head) + ("\n" + self.log_tail() if self.log_tail() else "")

    def _end(self, status: str, message: str) -> None:
        if status == "failed" and self.kind == "train" and self.job_dir is not None:
            if self.started:
                mark_failed(self.job_dir, message)
            elif (
                self.project is not None
            ):  # a new run failed at start: leave a trace in the history
                record_start_failure(self.job_dir, self.project, message)
            # a resume that failed at start leaves the stopped job as it was
        self.ended.emit(status, message)


def record_start_failure(job_dir: Path, project: Path | None, message: str) -> None:
    """A new run that never started: its folder holds the project and the error, so the
    history shows it (the trainer may already have written both)."""
    job_dir = Path(job_dir)
    if _taken(job_dir):  # another run's folder (it claimed the name first): never touch it
        job_dir = claim_job_dir(job_dir, numbered=True)
    job_dir.mkdir(parents=True, exist_ok=True)
    target = job_dir / "network.ncproj"
    if project is not None and project.is_file() and not target.exists():
        shutil.copyfile(project, target)
    mark_failed(job_dir, message)


def _taken(job_dir: Path) -> bool:
    """Something in the way, or a folder holding more than the trainer's own start failure."""
    if not job_dir.is_dir():
        return job_dir.exists()
    if not any(job_dir.iterdir()):
        return False
    try:
        status = json.loads((job_dir / "status.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return True
    return not (isinstance(status, dict) and status.get("status") == "failed")


def mark_failed(job_dir: Path, message: str) -> None:
    """A trainer that died without saying so leaves ``running`` in status.json: fix that.

    Only called once the trainer has started this job (a start-up error is not the job's).
    """
    status_file = Path(job_dir) / "status.json"
    status: dict[str, Any] = {}
    try:
        status = json.loads(status_file.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        pass
    if status.get("status") == "failed" and status.get("message"):
        return
    status.update(status="failed", message=message.splitlines()[0] if message else "failed")
    if Path(job_dir).is_dir():
        atomic_write_json(status_file, status)

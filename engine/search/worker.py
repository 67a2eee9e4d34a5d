"""One search worker: ask the study for an attempt, build a sound candidate, train it, tell.

Any number of workers (threads of nothing: separate processes, on one machine or several) may
run the same study; Optuna's storage numbers the attempts, so no two workers train the same one.
Attempt 0 is the seed network: the ``--from-job`` job's result, or the project trained as is.
"""

from __future__ import annotations

import json
import os
import random
import socket
import threading
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import optuna
from optuna.trial import TrialState

from engine.data import DatasetError
from engine.formats import ProjectFileError, load_project, native
from engine.graph.project import Project
from engine.runtime import run as runner
from engine.runtime.evaluator import evaluate
from engine.runtime.job import Job, JobError
from engine.runtime.job_history import read_job
from engine.runtime.trainer import TrainingError
from engine.search import model
from engine.search.candidate import Candidate, CandidateError, describe, propose
from engine.search.study import (
    STORAGE_ERRORS,
    SearchError,
    Settings,
    attempts,
    done,
    front,
    grace_s,
    heartbeat_s,
    storage_errors,
)

__all__ = ["Worker", "base_job_error", "seed_attempt", "fail_lost"]

Emit = Callable[..., Any]


def _no_events(event: str, **fields: Any) -> None:
    return None


def seed_attempt(study: optuna.Study, settings: Settings) -> None:
    """Record a ``--from-job`` job as attempt 0 (once per study) without training it again: its
    network (the job's snapshot) is the seed the mutations start from."""
    if settings.base_job is None or any(t.user_attrs.get("seed") for t in attempts(study)):
        return
    error = base_job_error(settings.base_job)
    try:
        found = describe(Job.open(Path(settings.base_job)).load_project(), problems_ok=True)
    except (JobError, ValueError) as exc:  # ValueError: ProjectFileError, CandidateError
        raise SearchError(f"--from-job {settings.base_job}: {exc}") from None
    attrs = _attrs(found, settings.base_job, parent=None, seed=True)
    accuracy = _accuracy(Path(settings.base_job) / "evaluation.json")
    if accuracy is not None:  # the job was evaluated already (it is not evaluated again here)
        attrs["accuracy"] = accuracy
    trial = optuna.trial.create_trial(values=_values(settings, error, found.cost), user_attrs=attrs)
    study.add_trial(trial)


def base_job_error(job: str) -> float:
    """The ``--from-job`` job's best validation error; a folder that is not a finished job is
    refused (the search checks it before it opens or creates the study)."""
    path = Path(job)
    if not (path / "network.ncproj").is_file():
        what = "not a job folder (no network.ncproj)" if path.exists() else "no such job folder"
        raise SearchError(f"--from-job {job}: {what}")
    info = read_job(path, with_statistics=False)
    if info.status != "finished" or info.best_valid_error is None:
        raise SearchError(f"{job}: --from-job needs a finished job with a validation error "
                          f"(status {info.status})")  # fmt: skip
    return info.best_valid_error


def _values(settings: Settings, error: float, cost: float) -> list[float]:
    return [error, cost] if settings.objective == "error+cost" else [error]


def _attrs(found: Candidate, job: str, parent: int | None, seed: bool = False) -> dict[str, Any]:
    return {
        "project": native.dumps_native(found.project),
        "mutation": str(found.mutation) if found.mutation else "seed network",
        "parent": parent,
        "job": job,
        "host": socket.gethostname(),
        "pid": os.getpid(),
        "cost": found.cost,
        "features": found.features,
        "seed": seed,
    }


class Worker:
    """Runs attempts until the study has ``attempts`` of them, time is up, or stop() is called."""

    def __init__(self, study: optuna.Study, emit: Emit | None = None, deadline: float = 0.0,
                 **local: Any) -> None:  # fmt: skip
        """``local``: this machine's ``project`` file and ``jobs_root`` where they differ."""
        self.study = study
        self.settings = Settings.from_attrs(study.user_attrs)
        for key, value in local.items():
            if value is not None:
                setattr(self.settings, key, str(Path(value).resolve()))
        self.emit = emit or _no_events
        self.deadline = deadline or time.time() + self.settings.hours * 3600
        self.stop_event = threading.Event()
        self._trainer: Any = None
        self.fatal = ""  # a setup error (datasets, settings): the search cannot go on
        self.trained = 0
        self.url = str(getattr(getattr(study._storage, "_backend", study._storage), "url", ""))
        self._lost: BaseException | None = None  # the heartbeat's error once past the grace

    def stop(self) -> None:
        """End cleanly: the attempt in training stops and is recorded as failed ("stopped")."""
        self.stop_event.set()
        if self._trainer is not None:
            self._trainer.request_stop()

    def run(self) -> int:
        """Attempts until done; returns how many this worker trained. A database that stops
        answering ends it with one :class:`SearchError` line (the attempt in training stops);
        the study stays as the database last recorded it, to be resumed."""
        with storage_errors(self.url):
            return self._run()

    def _run(self) -> int:
        while not self.stop_event.is_set() and time.time() < self.deadline:
            fail_lost(self.study)
            with warnings.catch_warnings():  # heartbeats: "meant for optimize()"; ask-and-tell
                # records them itself (see _train)
                warnings.filterwarnings("ignore", "Heartbeat of storage", UserWarning)
                if len(attempts(self.study)) >= self.settings.attempts:
                    break  # done: asking would leave a refused trial, a gap in the numbers
                trial = self.study.ask()  # warns that heartbeats are meant for optimize()
            trial.set_user_attr("host", socket.gethostname())
            trial.set_user_attr("pid", os.getpid())
            if not self._within_limit(trial.number):
                self.study.tell(trial, state=TrialState.PRUNED)
                break
            try:
                self._attempt(trial)
                if self.fatal:
                    raise SearchError(f"attempt {trial.number}: {self.fatal}")
            except (SearchError, *STORAGE_ERRORS):
                raise
            except Exception as exc:  # noqa: BLE001 - a crashed attempt must not end the search
                message = f"{type(exc).__name__}: {exc}".splitlines()[0]
                self._fail(trial, message)
                self.emit("attempt_end", number=trial.number, status="failed",
                          valid_error=None, cost_multiply_add=None, message=message)  # fmt: skip
        return self.trained

    def _fail(self, trial: optuna.Trial, reason: str) -> None:
        """Record the attempt as failed unless it was already told."""
        running = self.study.get_trials(deepcopy=False, states=(TrialState.RUNNING,))
        if any(t.number == trial.number for t in running):
            trial.set_user_attr("reason", reason)
            self.study.tell(trial, state=TrialState.FAIL)

    def _within_limit(self, number: int) -> bool:
        before = [t for t in attempts(self.study) if t.number <= number]
        return len(before) <= self.settings.attempts

    def _attempt(self, trial: optuna.Trial) -> None:
        settings = self.settings
        rng = random.Random(f"{self.study.study_name}/{trial.number}")
        try:
            found, parent = self._candidate(trial.number, rng)
        except CandidateError as exc:
            trial.set_user_attr("reason", str(exc))
            self.study.tell(trial, state=TrialState.FAIL)
            self.emit("attempt_failed", number=trial.number, message=str(exc))
            return
        job = Path(settings.jobs_root) / f"{self.study.study_name}_{trial.number:04d}"
        for key, value in _attrs(found, str(job.resolve()), parent).items():
            trial.set_user_attr(key, value)
        self.emit("attempt_start", number=trial.number, job=str(job), parent=parent,
                  mutation=trial.user_attrs["mutation"], cost_multiply_add=found.cost)  # fmt: skip
        seed = settings.seed if settings.seed is not None else rng.randrange(2**31)
        status, error, message = self._train(trial, found, job, seed)
        if status == "finished" and error is not None:
            values = _values(settings, error, found.cost)
            self.study.tell(trial, values)
            self.trained += 1
        else:
            trial.set_user_attr("reason", message or status)
            self.study.tell(trial, state=TrialState.FAIL)
        self.emit("attempt_end", number=trial.number, status=status, valid_error=error,
                  cost_multiply_add=found.cost, message=message)  # fmt: skip

    def _candidate(self, number: int, rng: random.Random) -> tuple[Candidate, Any]:
        """Attempt 0 is the project itself; later ones mutate a parent from the Pareto front."""
        if number == attempts(self.study)[0].number:
            return describe(_load(self.settings.project)), None
        parents = front(self.study, self.settings) or done(self.study)
        pool = [(t.number, native.parse_native(t.user_attrs["project"])) for t in parents]
        if not pool:  # nothing finished yet (other workers still train): the project itself
            pool = [(None, _load(self.settings.project))]
        if self.settings.method == "gp":
            return model.choose(done(self.study), self.settings, pool, rng)
        parent_number, parent = rng.choice(pool)
        return propose(parent, rng, self.settings.cost_range), parent_number

    def _train(self, trial: optuna.Trial, found: Candidate, job: Path,
               seed: int) -> tuple[str, float | None, str]:  # fmt: skip

        beat = threading.Event()
        storage = self.study._storage  # the heartbeat is per trial id, Optuna's own mechanism
        trial_id = trial._trial_id
        interval, grace = heartbeat_s(), grace_s()

        def heartbeat() -> None:
            last = time.monotonic()
            while not beat.wait(interval):
                try:
                    storage.record_heartbeat(trial_id)
                    last = time.monotonic()
                except STORAGE_ERRORS as exc:  # the database is away: wait up to the grace
                    if time.monotonic() - last > grace:  # others count this attempt failed
                        self._lost = exc
                        self._request_stop()
                        return

        storage.record_heartbeat(trial_id)
        thread = threading.Thread(target=heartbeat, daemon=True)
        thread.start()
        options = runner.Options(on_trainer=self._set_trainer)
        try:
            result = runner.train(self.settings.project, job_dir=job, epochs=self.settings.epochs,
                                  seed=seed, options=options, project=found.project)  # fmt: skip
            if result.status == "finished":
                _evaluate(trial, job)
            return result.status, read_job(job, False).best_valid_error, ""
        except _setup_errors() as exc:  # the datasets or settings: every attempt would fail
            self.fatal = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            return "failed", None, self.fatal
        except (TrainingError, ValueError, ArithmeticError, RuntimeError, MemoryError) as exc:
            return "failed", None, str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        finally:
            beat.set()
            thread.join(timeout=interval)  # a heartbeat waiting on the network is left behind
            self._trainer = None
            if self._lost is not None:  # the attempt stopped for the database: end here
                raise self._lost

    def _set_trainer(self, trainer: Any) -> None:
        self._trainer = trainer
        if self.stop_event.is_set() or self._lost is not None:
            trainer.request_stop()

    def _request_stop(self) -> None:
        trainer = self._trainer
        if trainer is not None:
            trainer.request_stop()


def _setup_errors() -> tuple[type[BaseException], ...]:
    """Errors of the project's datasets or files, never of the candidate network (SetupError is
    left out: a candidate that does not compile raises it)."""

    return (DatasetError, ProjectFileError, JobError)


def _evaluate(trial: optuna.Trial, job: Path) -> None:
    """NNC's Evaluate on the attempt (best parameters, the executor's dataset): output_result.csv
    and evaluation.json in its job folder; the accuracy joins the results table. A failure here
    is noted on the attempt, which still counts (it trained)."""

    try:
        summary = evaluate(job).summary
    except Exception as exc:  # noqa: BLE001 - evaluation is an extra; the attempt trained
        trial.set_user_attr("evaluation", f"{type(exc).__name__}: {exc}".splitlines()[0])
        return
    accuracy = _accuracy(summary)
    if accuracy is not None:
        trial.set_user_attr("accuracy", accuracy)


def _accuracy(summary: dict[str, Any] | Path) -> float | None:
    """The first classification output's accuracy of an evaluation summary (or its file)."""
    if isinstance(summary, Path):
        try:
            summary = json.loads(summary.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
    classes = summary.get("classification") if isinstance(summary, dict) else None
    for value in (classes or {}).values():
        if isinstance(value, dict) and isinstance(value.get("accuracy"), float):
            return float(value["accuracy"])
    return None


def fail_lost(study: optuna.Study) -> list[int]:
    """Mark failed the running attempts whose worker is gone: on this machine its process has
    ended; elsewhere its heartbeat is older than the grace period. Their numbers."""
    running = {t._trial_id: t.number
               for t in study.get_trials(deepcopy=False, states=(TrialState.RUNNING,))}  # fmt: skip
    with warnings.catch_warnings():  # heartbeats are "experimental" since Optuna 2.9
        warnings.simplefilter("ignore", optuna.exceptions.ExperimentalWarning)
        optuna.storages.fail_stale_trials(study)
    failed = {t._trial_id for t in study.get_trials(deepcopy=False, states=(TrialState.FAIL,))}
    stale = [number for trial_id, number in running.items() if trial_id in failed]
    return sorted(set(stale) | set(fail_dead_local(study)))


def fail_dead_local(study: optuna.Study) -> list[int]:
    """Mark failed the running attempts of workers on this machine whose process is gone (at
    once; the heartbeat catches workers on other machines after its grace period)."""
    failed = []
    for trial in study.get_trials(deepcopy=False, states=(TrialState.RUNNING,)):
        attrs = trial.user_attrs
        if attrs.get("host") == socket.gethostname() and not _alive(attrs.get("pid")):
            reason = (f"its worker (process {attrs.get('pid')} on {attrs.get('host')}) ended "
                      f"while training it (killed?)")  # fmt: skip
            study._storage.set_trial_user_attr(trial._trial_id, "reason", reason)
            study.tell(trial.number, state=TrialState.FAIL)
            failed.append(trial.number)
    return failed


def _alive(pid: Any) -> bool:
    if not isinstance(pid, int) or pid <= 0:
        return True  # unknown: leave it to the heartbeat
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True
    return True


def _load(path: str) -> Project:

    return load_project(path)

"""The shared study: Optuna's bookkeeping of a structure search in an SQL database.

One Optuna trial is one attempt. Its user attributes hold the candidate project (native JSON,
so a worker on another machine can mutate it without the job folder), the mutation, the parent,
the job folder and host, CostMultiplyAdd and the network features. Values are the best
validation error, and CostMultiplyAdd for the two-objective search. The search's settings are
the study's user attributes, so ``neurocanvas search worker`` needs only the storage URL and
the study name. Workers write a heartbeat while they train; a worker that died (killed, machine
lost) is noticed by :func:`optuna.storages.fail_stale_trials` and its attempt marked failed.

The database may be SQLite (one machine) or a server (PostgreSQL: ``postgresql://user@host/db``
with the ``psycopg`` driver). A server that goes away is :class:`SearchError` too, one line, and
the study is left as it was: the same command resumes it once the server is back.
"""

from __future__ import annotations

import dataclasses
import logging
import os
import re
import time
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import optuna
import sqlalchemy

from engine.runtime.job_history import pareto_front
from engine.search.candidate import in_range

__all__ = ["SearchError", "Settings", "open_study", "default_storage", "attempts", "front",
           "check_study_name", "grace_s", "heartbeat_s", "storage_errors",
           "display_url"]  # fmt: skip

HEARTBEAT_S = 10  # seconds between heartbeats of a training worker (at most)
GRACE_S = 60  # a running attempt without heartbeat for this long is marked failed
GRACE_ENV = "NEUROCANVAS_SEARCH_GRACE_S"  # another grace period, in whole seconds

# What a lost or refused database connection raises: SQLAlchemy's errors, and Optuna's wrapper
# of them around a commit.
STORAGE_ERRORS: tuple[type[Exception], ...] = (
    sqlalchemy.exc.SQLAlchemyError, optuna.exceptions.StorageInternalError)  # fmt: skip

optuna.logging.set_verbosity(logging.WARNING)


class SearchError(ValueError):
    """Bad search input (storage, ranges, project): one line, before any training."""


@dataclass
class Settings:
    """What every worker of one study does (kept in the study's user attributes)."""

    project: str  # the project file (resolved); relative dataset paths are read from its folder
    jobs_root: str  # where attempts' job folders go (NNC's <project>.files)
    method: str = "random"  # random | gp
    objective: str = "error+cost"  # error | error+cost
    attempts: int = 100
    hours: float = 2.0
    epochs: int | None = None  # override Max Epoch for every attempt
    validation_range: tuple[float, float] = (-1, -1)
    cost_range: tuple[float, float] = (-1, -1)
    base_job: str | None = None  # --from-job: the trained seed network, attempt 0
    seed: int | None = None  # one training seed for every attempt (None: one per attempt)

    def check(self) -> None:
        if self.method not in ("random", "gp"):
            raise SearchError(f"--method: expected random or gp. Received: {self.method}")
        if self.objective not in ("error", "error+cost"):
            raise SearchError(f"--objective: expected error or error+cost. Received: "
                              f"{self.objective}")  # fmt: skip
        if self.attempts < 1:
            raise SearchError(f"--attempts: expected a positive integer. Received: "
                              f"{self.attempts}")  # fmt: skip
        if self.hours <= 0:
            raise SearchError(f"--hours: expected a positive number. Received: {self.hours}")
        for name, (low, high) in (("Validation", self.validation_range),
                                  ("CostMultiplyAdd", self.cost_range)):  # fmt: skip
            if low >= 0 and high >= 0 and low > high:
                raise SearchError(f"{name} range {low:g}..{high:g} excludes everything (min > max)")

    def to_attrs(self) -> dict[str, Any]:
        return {"settings": dataclasses.asdict(self)}

    @classmethod
    def from_attrs(cls, attrs: dict[str, Any]) -> Settings:
        raw = dict(attrs["settings"])
        for key in ("validation_range", "cost_range"):
            raw[key] = tuple(raw[key])
        return cls(**raw)


_STUDY_NAME = re.compile(r"[^\W][\w.-]{0,99}")  # letters, digits, _ . -; no leading dot


def check_study_name(name: str) -> None:
    """A study name names files in the jobs folder (``<study>_0001``, ``<study>_results.csv``):
    it is a name, not a path, so it cannot place them anywhere else."""
    if not _STUDY_NAME.fullmatch(name):
        shown = name if len(name) <= 40 else f"{name[:40]}... ({len(name)} characters)"
        raise SearchError(f"--study {shown!r}: a study name is up to 100 letters, digits, '_', "
                          f"'.' and '-', not starting with '.' or '-' (it names files beside "
                          f"the project's jobs)")  # fmt: skip


def grace_s() -> int:
    """The heartbeat grace period: :data:`GRACE_S`, or ``NEUROCANVAS_SEARCH_GRACE_S``."""
    raw = os.environ.get(GRACE_ENV, "").strip()
    if not raw:
        return GRACE_S
    try:
        value = int(raw)
    except ValueError:
        value = 0
    if value < 3:
        raise SearchError(f"{GRACE_ENV}: expected whole seconds, at least 3. Received: {raw}")
    return value


def heartbeat_s() -> int:
    """Seconds between heartbeats: a third of the grace period, at most :data:`HEARTBEAT_S`."""
    return max(1, min(HEARTBEAT_S, grace_s() // 3))


def display_url(url: str) -> str:
    """The storage URL for messages: any password replaced by ``***``."""
    try:
        return sqlalchemy.engine.make_url(url).render_as_string(hide_password=True)
    except Exception:  # noqa: BLE001 - not a URL SQLAlchemy can parse: shown as given
        return url


def _detail(exc: BaseException) -> str:
    """The first line of the driver's own message (the innermost cause), without SQLAlchemy's
    wrapping: "connection to server at "db", port 5432 failed: Connection refused"."""
    while exc.__cause__ is not None:
        exc = exc.__cause__
    if isinstance(exc, sqlalchemy.exc.DBAPIError) and exc.orig is not None:
        exc = exc.orig
    text = str(exc).strip()
    line = text.splitlines()[0].strip() if text else type(exc).__name__
    return line.removeprefix("connection failed: ")


@contextmanager
def storage_errors(url: str) -> Iterator[None]:
    """A lost database connection as one :class:`SearchError` line: the study is as the server
    last recorded it, and running the same command again resumes it."""
    try:
        yield
    except STORAGE_ERRORS as exc:
        raise SearchError(f"storage {display_url(url)}: lost the connection ({_detail(exc)}); "
                          "run the same command again when the database is back to resume "
                          "the search") from None  # fmt: skip


def default_storage(jobs_root: Path) -> str:
    """SQLite in the jobs folder (NNC's ``<project>.files``), beside the attempts."""
    folder = jobs_root.resolve()
    folder.mkdir(parents=True, exist_ok=True)
    return f"sqlite:///{folder / 'structure_search.db'}"


def _storage(url: str) -> optuna.storages.RDBStorage:
    kwargs: dict[str, Any] = {}
    if url.startswith("sqlite"):
        kwargs["connect_args"] = {"timeout": 60}  # several workers write one file
    else:  # a server: a pooled connection that a restart closed is replaced, not used
        kwargs["pool_pre_ping"] = True
        if url.startswith("postgresql") and "connect_timeout" not in url:
            kwargs["connect_args"] = {"connect_timeout": 10}  # a lost host: no endless wait
    grace, beat = grace_s(), heartbeat_s()
    for attempt in range(5):
        try:
            with warnings.catch_warnings():  # heartbeats are "experimental" since Optuna 2.9
                warnings.simplefilter("ignore", optuna.exceptions.ExperimentalWarning)
                return optuna.storages.RDBStorage(
                    url, engine_kwargs=kwargs, heartbeat_interval=beat, grace_period=grace,
                )  # fmt: skip
        except Exception as exc:  # noqa: BLE001 - SQLAlchemy/driver errors of every kind
            # Two workers starting together on a new database race to create its tables
            # (PostgreSQL says "duplicate key value violates unique constraint").
            racing = ("already exists", "UNIQUE constraint", "database is locked",
                      "duplicate key value")  # fmt: skip
            if any(r in str(exc) for r in racing) and attempt < 4:
                time.sleep(0.5 + attempt)
                continue
            detail = _detail(exc)
            if isinstance(exc, ImportError):  # e.g. postgresql:// without psycopg
                detail = f"no database driver: {detail}"
                if "psycopg" in detail:
                    detail += "; pip install 'psycopg[binary]'"
            raise SearchError(f"storage {display_url(url)}: cannot open ({detail})") from None
    raise AssertionError("unreachable")


def open_study(url: str, name: str, settings: Settings | None = None) -> optuna.Study:
    """Create the study with ``settings`` or (settings None) join an existing one."""
    check_study_name(name)
    if settings is None and url.startswith("sqlite:///"):  # joining: SQLite would create it
        if not Path(url.removeprefix("sqlite:///")).is_file():
            raise SearchError(f"storage {url}: no such database file")
    storage = _storage(url)
    with storage_errors(url):
        return _open(storage, url, name, settings)


def _open(storage: optuna.storages.RDBStorage, url: str, name: str,
          settings: Settings | None) -> optuna.Study:  # fmt: skip
    if settings is None:
        try:
            return optuna.load_study(study_name=name, storage=storage)
        except KeyError:
            raise SearchError(f"storage {display_url(url)}: no study named {name!r}") from None
    directions = ["minimize"] * (2 if settings.objective == "error+cost" else 1)
    study = optuna.create_study(storage=storage, study_name=name, directions=directions,
                                load_if_exists=True)  # fmt: skip
    if "settings" in study.user_attrs:
        old = Settings.from_attrs(study.user_attrs)
        if old.objective != settings.objective:
            raise SearchError(f"study {name!r} optimises {old.objective}; use another --study "
                              f"for {settings.objective}")  # fmt: skip
    for key, value in settings.to_attrs().items():
        study.set_user_attr(key, value)
    return study


def attempts(study: optuna.Study) -> list[optuna.trial.FrozenTrial]:
    """The attempts: every trial except those refused for being over the attempt limit."""
    return [t for t in study.get_trials(deepcopy=False)
            if t.state != optuna.trial.TrialState.PRUNED]  # fmt: skip


def done(study: optuna.Study) -> list[optuna.trial.FrozenTrial]:
    return [t for t in attempts(study) if t.state == optuna.trial.TrialState.COMPLETE]


def front(study: optuna.Study, settings: Settings) -> list[optuna.trial.FrozenTrial]:
    """Pareto-optimal finished attempts by NNC's rule (error vs CostMultiplyAdd), among those
    whose error is in the Validation range."""
    trials = [t for t in done(study) if in_range(t.values[0], settings.validation_range)]
    points = [(float(t.user_attrs.get("cost", 0.0)), float(t.values[0])) for t in trials]
    return [t for t, ok in zip(trials, pareto_front(points), strict=True) if ok]

"""A whole search: check the input, open the study, run K workers, write the results table.

::

    from engine.search.session import SearchRequest, run_search

    result = run_search(SearchRequest("projects/lenet_digits.ncproj", attempts=20, epochs=1))
    result.rows      # one dict per attempt (number, state, valid_error, cost, pareto, ...)

``parallel`` K runs this process's worker plus K-1 ``neurocanvas search worker`` processes on
the same study. Running the same request again resumes the study: the attempt count goes on
from where it stopped.
"""

from __future__ import annotations

import random
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine.formats import ProjectFileError, load_project
from engine.graph.project import Project
from engine.search.candidate import CandidateError, describe, propose
from engine.search.mutations import NothingToSearch
from engine.search.results import SearchResult, results
from engine.search.study import (
    SearchError,
    Settings,
    attempts,
    check_study_name,
    default_storage,
    open_study,
    storage_errors,
)
from engine.search.worker import Emit, Worker, base_job_error, seed_attempt

__all__ = ["SearchRequest", "SearchResult", "run_search", "settings_from_project", "results"]


@dataclass
class SearchRequest:
    project: str
    from_job: str | None = None
    method: str | None = None  # None: the project's [StructureSearch] settings
    objective: str | None = None
    attempts: int | None = None
    hours: float | None = None
    parallel: int | None = None
    epochs: int | None = None
    validation_range: tuple[float, float] | None = None
    cost_range: tuple[float, float] | None = None
    storage: str | None = None  # default: SQLite in <project>.files
    study: str = "search"
    seed: int | None = None
    jobs_dir: str | None = None  # default: <project>.files, NNC's place for jobs


def settings_from_project(project: Project, request: SearchRequest) -> tuple[Settings, int]:
    """The project's CONFIG > Global Structure Search settings, overridden by the request."""
    ss = project.structure_search
    source = Path(request.project).resolve()
    settings = Settings(
        project=str(source),
        jobs_root=str(Path(request.jobs_dir).resolve() if request.jobs_dir
                      else source.with_name(source.stem + ".files")),
        method=request.method or ("random" if ss.method == "Random" else "gp"),
        objective=request.objective or ("error" if ss.objective == "Error" else "error+cost"),
        attempts=request.attempts if request.attempts is not None else ss.get("AttemptTimes"),
        hours=request.hours if request.hours is not None else ss.get("AttemptHours"),
        epochs=request.epochs,
        validation_range=request.validation_range
        or (ss.get("Validation_Min"), ss.get("Validation_Max")),
        cost_range=request.cost_range
        or (ss.get("CostMultiplyAdd_Min"), ss.get("CostMultiplyAdd_Max")),
        base_job=str(Path(request.from_job).resolve()) if request.from_job else None,
        seed=request.seed,
    )  # fmt: skip
    parallel = request.parallel if request.parallel is not None else ss.get("NumParallel")
    if parallel < 1:
        raise SearchError(f"--parallel: expected a positive integer. Received: {parallel}")
    return settings, parallel


def check_project(project: Project, settings: Settings) -> None:
    """Bad input before any training: an unsound project, nothing searchable, empty ranges."""
    try:
        describe(project)
        propose(project, random.Random(0), settings.cost_range)
    except NothingToSearch as exc:
        raise SearchError(f"{settings.project}: {exc}") from None
    except CandidateError as exc:
        raise SearchError(f"{settings.project}: {exc}") from None


def run_search(
    request: SearchRequest, emit: Emit | None = None, on_worker: Any = None
) -> SearchResult:
    """Run (or resume) a search to its end; ``on_worker(worker)`` lets callers stop it."""
    try:
        project = load_project(request.project)
    except (ProjectFileError, OSError) as exc:
        raise SearchError(str(exc)) from None
    check_study_name(request.study)
    settings, parallel = settings_from_project(project, request)
    settings.check()
    check_project(project, settings)
    if settings.base_job is not None:  # before the study is made: bad input leaves no trace
        base_job_error(settings.base_job)
    url = request.storage or default_storage(Path(settings.jobs_root))
    study = open_study(url, request.study, settings)
    with storage_errors(url):  # the database lost at any point: one line, the study resumable
        seed_attempt(study, settings)
        deadline = time.time() + settings.hours * 3600
        worker = Worker(study, emit, deadline)
        if on_worker is not None:
            on_worker(worker)
        if emit:
            emit("search_start", storage=url, study=request.study, attempts=settings.attempts,
                 done=len(attempts(study)), method=settings.method,
                 objective=settings.objective)  # fmt: skip
        helpers = [_spawn(url, request.study, deadline, settings, k) for k in range(1, parallel)]
        ended = False
        try:
            worker.run()
            ended = True
        finally:
            for proc in helpers:
                if worker.stop_event.is_set() or not ended:  # stopped, or this worker failed
                    proc.terminate()
                proc.wait()
        return results(study, url)


def _spawn(url: str, study: str, deadline: float, settings: Settings, k: int) -> subprocess.Popen:
    log = Path(settings.jobs_root) / f"{study}_worker_{k}.log"
    log.parent.mkdir(parents=True, exist_ok=True)
    command = [sys.executable, "-m", "engine.cli", "search", "worker", "--storage", url,
               "--study", study, "--deadline", repr(deadline)]  # fmt: skip
    with open(log, "ab") as out:
        return subprocess.Popen(command, stdout=out, stderr=out, stdin=subprocess.DEVNULL)

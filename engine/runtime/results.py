"""NNC's result files in a job folder: ``result.ini`` and ``results.nnp`` (docs/formats.md §3.3),
and :func:`project_nnp`, the ``.nnp`` of a project (compiled here, written by formats.nnabla).

:class:`ResultFiles` writes both when a run ends (finished or stopped), so tools that read NNC
job folders read ours: ``result.ini`` holds the best epoch and validation error, the last
errors, the epoch counts and the executor network's eight statistics; ``results.nnp`` is the
model with the best parameters (the last ones when no epoch was monitored). A network nnabla's
format cannot express (unrolled recurrent loops) gets no ``results.nnp``; the log says why.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import numpy as np

import engine.nn as nn
from engine.core import backend
from engine.formats.nnabla.nnp_write import nnp_bytes, nnp_message, unsupported
from engine.graph.derive import counted_as
from engine.graph.project_inference import ProjectInference
from engine.graph.statistics import network_statistics
from engine.layers.errors import ExportError
from engine.runtime.checkpoint import PARAMETERS, checkpoint_path
from engine.runtime.compiler import compile_network
from engine.runtime.job import Job, atomic_write_text
from engine.runtime.program import ProgramError

__all__ = [
    "ResultFiles",
    "result_ini",
    "project_nnp",
    "project_programs",
    "RESULT_INI",
    "RESULTS_NNP",
]

RESULT_INI = "result.ini"
RESULTS_NNP = "results.nnp"
logger = logging.getLogger(__name__)


def _f32(value: float | None) -> str:
    """NNC writes errors float32-rounded and printed in full (0.4 -> 0.4000000059604645)."""
    return "" if value is None else repr(float(np.float32(value)))


def _statistics(project: Any) -> dict[str, int]:
    """The eight totals of the executor network (a derived Runtime counts as its base)."""

    names = [e.network for e in project.executors] or list(project.network_names)[:1]
    totals: dict[str, int] = {}
    inference = ProjectInference(project, follow=False)
    for name in dict.fromkeys(names):
        base = counted_as(project, name) or name
        if base not in project.network_names:
            continue
        for key, value in network_statistics(inference.network(base)).totals.items():
            totals[key] = totals.get(key, 0) + int(value)
    return totals


def result_ini(project: Any, history: list[Any], max_epoch: int) -> str:
    """The text of ``result.ini`` (the utility's key order, CRLF as NNC for Windows writes)."""
    stats = _statistics(project)
    last = history[-1] if history else None
    monitored = [r for r in history if "valid_error" in r.monitors]
    best = min(monitored, key=lambda r: r.monitors["valid_error"]) if monitored else None
    train = next((r.monitors["train_error"] for r in reversed(history)
                  if "train_error" in r.monitors), None)  # fmt: skip
    valid = monitored[-1].monitors["valid_error"] if monitored else None
    lines = [
        "[result]",
        f"cost_multiply_add={stats.get('CostMultiplyAdd', 0)}",
        f"training={_f32(train)}",
        f"validation={_f32(valid)}",
        f"epoch={last.epoch if last else 0}",
        f"max_epoch={max_epoch}",
        f"best_epoch={best.epoch if best else ''}",
        f"best_validation={_f32(best.monitors['valid_error']) if best else ''}",
        "[statistics]",
        *(f"{key}={value}" for key, value in stats.items()),
    ]
    return "\r\n".join(lines) + "\r\n"


class ResultFiles:
    """A trainer extension: ``result.ini`` and ``results.nnp`` at the end of a run."""

    def __init__(self, job: Job) -> None:
        self.job = job

    def on_end(self, trainer: Any, status: str) -> None:
        session = trainer.session
        history = trainer.state.history
        atomic_write_text(self.job.root / RESULT_INI,
                          result_ini(session.project, history, session.plan.max_epoch),
                          newline="")  # fmt: skip
        self.write_nnp(session)

    def write_nnp(self, session: Any) -> Path | None:

        best = checkpoint_path(self.job.checkpoint_dir("best")) / PARAMETERS
        if not best.is_file():
            best = checkpoint_path(self.job.checkpoint_dir("last")) / PARAMETERS
        try:
            data = project_nnp(session.project, best if best.is_file() else None)
        except (ExportError, ProgramError, ValueError) as exc:
            logger.warning("no %s: %s", RESULTS_NNP, exc)
            return None
        path = self.job.root / RESULTS_NNP
        tmp = path.with_name(f".{path.name}.tmp")
        tmp.write_bytes(data)
        tmp.replace(path)
        return path


def project_programs(project: Any, folded: bool = False) -> dict[str, Any]:
    """The compiled program of every network an optimizer, monitor or executor names
    (``folded``: loops kept in nnabla's repeat form, as the nntxt writes them)."""
    names = [o.network for o in project.optimizers] + [m.network for m in project.monitors]
    names += [e.network for e in project.executors]
    return {name: compile_network(project, name, folded=folded) for name in dict.fromkeys(names)}


def project_nnp(project: Any, parameters: str | Path | None = None) -> bytes:
    """The ``.nnp`` bytes of ``project`` with the parameters file (``.npz``) or initial values.

    Raises:
        ExportError: a network nntxt cannot express (every such layer listed), a layer whose
            arguments nnabla does not have; ProgramError/CompileError: a network that does not
            compile.
    """
    programs = project_programs(project)
    folded = project_programs(project, folded=True)
    bad = [f'network "{n}": {b}' for n, p in folded.items() for b in unsupported(p)]
    if bad:
        raise ExportError(f"cannot be written as NNP: {'; '.join(bad)}")
    with nn.parameter_scope("", {}):  # a private registry: the caller's stays untouched
        params: dict[str, Any] = {}
        for program in programs.values():
            params.update(program.create_parameters())
        if parameters is not None:
            nn.load_parameters(parameters)
        values = {k: backend.to_numpy(v.data) for k, v in params.items()}
    return nnp_bytes(nnp_message(project, folded, values, programs))

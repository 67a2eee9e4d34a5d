"""The PowerPoint report of one job: NNC 1.20's slides in its order, plus the extra ones.

Order: title (project name, description) / ``Dataset : <name>`` and its examples, for every
dataset the config uses / ``Network Architecture : <name>`` per network the config uses /
``Training Procedure : <optimizer>`` / ``Experimental Result : Learning Curve`` /
``Experimental Result : Evaluation`` (then the confusion matrix, per-class metrics and
misclassified examples) / extra slides (see :func:`write_report`) / ``References``.

The deck is written to a temporary file beside the target and renamed, so an error never leaves
a partial file.
"""

from __future__ import annotations

import contextlib
import importlib
import json
import os
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine.report import sections
from engine.report.evaluation import evaluation_slides
from engine.report.slides import Deck
from engine.runtime.job import Job, JobError
from engine.runtime.job_history import read_curve
from engine.runtime.session import RunPlan

__all__ = ["ReportError", "JobContext", "SLIDE_PROVIDERS", "write_report", "save_deck"]

Progress = Callable[[int, int, str], None]  # (step, steps, what is being drawn)
SlideHook = Callable[[Deck, "JobContext"], None]

# Modules with a function ``add_slides(deck, job)`` whose slides go before the References, in
# this order (imported when a report is written). A module listed here that does not exist is
# skipped, so a feature can be listed before it lands.
SLIDE_PROVIDERS: tuple[str, ...] = ()


class ReportError(ValueError):
    """A report that cannot be made or written; the message names the folder or the file."""


@dataclass(frozen=True)
class JobContext:
    """What the slides are made from: the job folder read once."""

    job: Job
    plan: RunPlan
    project: Any
    status: dict[str, Any]
    curve: list[tuple]
    evaluation: dict[str, Any] | None

    @property
    def root(self) -> Path:
        return self.job.root

    @property
    def title(self) -> str:
        """The project's name: its file name as trained, else the job folder's name."""
        return Path(self.plan.project_file).stem if self.plan.project_file else self.root.name

    @classmethod
    def read(cls, job_dir: str | Path) -> JobContext:
        try:
            job = Job.open(Path(job_dir))
            plan = RunPlan.from_json(job.config()["plan"])
            project = job.load_project()
        except (JobError, KeyError, TypeError) as exc:
            raise ReportError(
                str(exc)
                if isinstance(exc, JobError)
                else f"{job_dir}: not a NeuroCanvas job folder ({exc})"
            ) from None
        except Exception as exc:  # noqa: BLE001 - a broken project snapshot: one line
            raise ReportError(f"{job_dir}: cannot read the job's project ({exc})") from None
        return cls(
            job,
            plan,
            project,
            _json(job.status_file) or {},
            read_curve(job.root),
            _json(job.root / "evaluation.json"),
        )


def _json(path: Path) -> dict[str, Any] | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def write_report(
    job_dir: str | Path,
    output: str | Path | None = None,
    *,
    checkpoint: str | None = None,
    progress: Progress | None = None,
    extra: Sequence[SlideHook] = (),
) -> Path:
    """Write the report of ``job_dir`` to ``output`` (default ``<job>/report.pptx``).

    Args:
        checkpoint: ``best`` or ``last``: the evaluation slides report the evaluation made with
            those parameters, and say so when the job's evaluation used the other ones. None:
            whichever evaluation the job has.
        progress: called before each part as ``progress(step, steps, text)``.
        extra: more slide makers ``hook(deck, context)`` for this report only, run after the
            modules of :data:`SLIDE_PROVIDERS`. A maker reads whatever it needs from
            ``context.root`` (e.g. a sweep's CSV) and adds slides with the
            :class:`~engine.report.slides.Deck` helpers (``text_slide``, ``table_slides``,
            ``picture``, ``xy_chart``), which keep every slide inside its bounds.

    Raises:
        ReportError: not a job folder, or the output cannot be written (no file is left).
    """
    context = JobContext.read(job_dir)
    target = Path(output) if output is not None else context.root / "report.pptx"
    deck = Deck()
    networks = sections.used_networks(context.project, context.plan)
    datasets = sections.used_datasets(context.plan)
    hooks = [*_providers(), *extra]
    steps: list[tuple[str, Callable[[], Any]]] = [
        ("title", lambda: _title(deck, context)),
        *[
            (
                f"dataset {name}",
                lambda n=name: sections.dataset_slides(deck, n, context.plan.datasets[n]),
            )
            for name in datasets
        ],
        ("network pictures", lambda: sections.network_slides(deck, context.project, networks)),
        ("training procedure", lambda: sections.optimizer_slides(deck, context.plan)),
        ("learning curve", lambda: sections.learning_curve_slide(deck, context.curve)),
        (
            "evaluation",
            lambda: evaluation_slides(
                deck,
                context.root,
                context.plan,
                context.evaluation,
                checkpoint,
                int(context.status.get("best_epoch") or 0),
            ),
        ),
        *[("extra slides", lambda h=hook: h(deck, context)) for hook in hooks],
        (
            "references",
            lambda: sections.references_slide(deck, context.project, networks, context.plan),
        ),
    ]
    for k, (text, step) in enumerate(steps):
        if progress is not None:
            progress(k, len(steps) + 1, text)
        step()
    if progress is not None:
        progress(len(steps), len(steps) + 1, f"writing {target}")
    save_deck(deck, target)
    return target


def _title(deck: Deck, context: JobContext) -> None:
    lines = [line for line in (context.project.description or "").splitlines() if line.strip()]
    state = context.status.get("status", "")
    lines.append(f"Job {context.root.name}" + (f" ({state})" if state else ""))
    deck.title_slide(context.title, "\n".join(lines))


def _providers() -> list[SlideHook]:
    hooks = []
    for name in SLIDE_PROVIDERS:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError:
            continue
        hooks.append(module.add_slides)
    return hooks


def save_deck(deck: Deck, target: Path) -> None:
    """Save through a temporary file in the target's folder and a rename (no partial file)."""
    target = Path(target)
    if target.is_dir():
        raise ReportError(f"{target}: is a folder; give a .pptx file name")
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    except OSError as exc:
        raise ReportError(f"{target}: cannot write the report ({exc.strerror or exc})") from None
    try:
        with os.fdopen(fd, "wb") as f:
            deck.save(f)
        os.chmod(tmp, 0o644)  # a document to share, not mkstemp's private 0600
        os.replace(tmp, target)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        if isinstance(exc, OSError):
            raise ReportError(
                f"{target}: cannot write the report ({exc.strerror or exc})"
            ) from None
        raise

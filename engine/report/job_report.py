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

import importlib
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

from engine.core.atomic import atomic_output
from engine.report import sections
from engine.report.evaluation import evaluation_slides
from engine.report.i18n import in_language, translate
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
SLIDE_PROVIDERS: tuple[str, ...] = (
    "engine.quantization.report_slides",
    "engine.plugins.report_slides",
)


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
                else translate("Report", "{job_dir}: not a NeuroCanvas job folder ({exc})").format(
                    job_dir=job_dir, exc=exc
                )
            ) from None
        except Exception as exc:  # noqa: BLE001 - a broken project snapshot: one line
            raise ReportError(
                translate("Report", "{job_dir}: cannot read the job's project ({exc})").format(
                    job_dir=job_dir, exc=exc
                )
            ) from None
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


@in_language
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
        lang: ``en`` or ``ja``, the deck's language (titles, table headings, axis titles) and
            its font (one with Japanese glyphs for ``ja``); a keyword of ``in_language``.
        extra: more slide makers ``hook(deck, context)`` for this report only, run after the
            modules of :data:`SLIDE_PROVIDERS`. A maker reads whatever it needs from
            ``context.root`` (e.g. a sweep's CSV) and adds slides with the
            :class:`~engine.report.slides.Deck` helpers (``text_slide``, ``table_slides``,
            ``picture``, ``image_grid``, ``xy_chart``), which keep every slide inside its
            bounds. A maker that raises gets a slide naming the error instead.

    Raises:
        ReportError: not a job folder, or the output cannot be written (no file is left).
    """
    context = JobContext.read(job_dir)
    target = Path(output) if output is not None else context.root / "report.pptx"
    deck = Deck()
    networks = sections.used_networks(context.project, context.plan)
    datasets = sections.used_datasets(context.plan)
    plan, project, root = context.plan, context.project, context.root
    best_epoch = int(context.status.get("best_epoch") or 0)
    steps: list[tuple[str, Callable[[], Any]]] = [("title", partial(_title, deck, context))]
    steps += [(f"dataset {name}", partial(sections.dataset_slides, deck, name,
                                          plan.datasets[name])) for name in datasets]  # fmt: skip
    steps += [
        ("network pictures", partial(sections.network_slides, deck, project, networks)),
        ("training procedure", partial(sections.optimizer_slides, deck, plan)),
        ("learning curve", partial(sections.learning_curve_slide, deck, context.curve)),
        ("evaluation", partial(evaluation_slides, deck, root, plan, context.evaluation,
                               checkpoint, best_epoch)),
    ]  # fmt: skip
    steps += [("extra slides", partial(_extra, hook, deck, context))
              for hook in [*_providers(), *extra]]  # fmt: skip
    steps.append(("references", partial(sections.references_slide, deck, project, networks, plan)))
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
    lines.append(
        translate("Report", "Job {name}").format(name=context.root.name)
        + (f" ({state})" if state else "")
    )
    deck.title_slide(context.title, "\n".join(lines))


def _providers() -> list[SlideHook]:
    hooks = []
    for name in SLIDE_PROVIDERS:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name is not None and name.startswith(exc.name):
                continue  # listed before it landed
            raise
        hooks.append(module.add_slides)
    return hooks


def _extra(hook: SlideHook, deck: Deck, context: JobContext) -> None:
    """Run one slide maker; one that fails gets a slide saying so, the report still comes."""
    try:
        hook(deck, context)
    except Exception as exc:  # noqa: BLE001 - a plug-in's bug must not cost the whole report
        name = f"{getattr(hook, '__module__', '')}.{getattr(hook, '__qualname__', hook)}"
        deck.text_slide(
            translate("Report", "Extra slides"),
            [
                translate("Report", "{name} could not make its slides: {exc}").format(
                    name=name, exc=exc
                )
            ],
        )


def save_deck(deck: Deck, target: Path) -> None:
    """Save through a temporary file in the target's folder and a rename (no partial file)."""
    target = Path(target)
    if target.is_dir():
        raise ReportError(
            translate("Report", "{target}: is a folder; give a .pptx file name").format(
                target=target
            )
        )
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        with atomic_output(target, "wb") as f:
            deck.save(f)
    except OSError as exc:
        raise ReportError(
            translate("Report", "{target}: cannot write the report ({value})").format(
                target=target, value=exc.strerror or exc
            )
        ) from None

"""One deck comparing several jobs: a table of their settings and results, the trade-off graph
with the Pareto front (the TRAINING tab's, :mod:`engine.report.curves`) and their learning
curves overlaid (native charts: validation loss, then cost)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from engine.report.figures import tradeoff_picture
from engine.report.i18n import QT_TRANSLATE_NOOP, in_language, translate
from engine.report.job_report import JobContext, Progress, save_deck
from engine.report.slides import BODY_H, BODY_TOP, MARGIN, WIDTH, Deck
from engine.runtime.job_history import JobInfo, read_job

__all__ = ["write_comparison", "TRADEOFF_STATISTIC"]

TRADEOFF_STATISTIC = "CostMultiplyAdd"
HEADER = (
    QT_TRANSLATE_NOOP("Report", "Job"),
    QT_TRANSLATE_NOOP("Report", "Status"),
    QT_TRANSLATE_NOOP("Report", "Epochs"),
    QT_TRANSLATE_NOOP("Report", "Batch size"),
    QT_TRANSLATE_NOOP("Report", "Solver"),
    QT_TRANSLATE_NOOP("Report", "Learning rate"),
    QT_TRANSLATE_NOOP("Report", "Best valid error"),
    "CostMultiplyAdd",
    "CostParameter",
)


@in_language
def write_comparison(
    job_dirs: Sequence[str | Path],
    output: str | Path | None = None,
    progress: Progress | None = None,
) -> Path:
    """Write the comparison of ``job_dirs`` (default ``compare.pptx`` beside the first job).

    Raises:
        ReportError: a folder that is not a job, or an output that cannot be written.
    """
    contexts = [JobContext.read(path) for path in job_dirs]
    infos = [read_job(c.root) for c in contexts]
    target = Path(output) if output is not None else contexts[0].root.parent / "compare.pptx"
    deck = Deck()
    steps = 4
    _step(progress, 0, steps, "table")
    deck.title_slide(
        translate("Report", "Comparison of {len} jobs").format(len=len(contexts)),
        "\n".join(f"{i.name}: {c.title}" for c, i in zip(contexts, infos, strict=True)),
    )
    deck.table_slides(
        translate("Report", "Jobs"),
        [translate("Report", h) for h in HEADER],
        [_row(c, i) for c, i in zip(contexts, infos, strict=True)],
    )
    _step(progress, 1, steps, "trade-off")
    _tradeoff_slide(deck, infos)
    _step(progress, 2, steps, "learning curves")
    for title, column in (("validation loss", 3), ("cost", 1)):
        series = [
            (
                f"{i.name}",
                [(float(r[0]), float(r[column])) for r in i.curve if r[column] is not None],
            )
            for i in infos
        ]
        series = [s for s in series if s[1]]
        slide = deck.slide(translate("Report", "Learning Curves : {title}").format(title=title))
        if series:
            deck.xy_chart(
                slide,
                series,
                (MARGIN, BODY_TOP, WIDTH - 2 * MARGIN, BODY_H),
                translate("Report", "epoch"),
                title,
            )
        else:
            deck.text(
                slide,
                [translate("Report", "No job has a {title} curve.").format(title=title)],
                (MARGIN, BODY_TOP, 10, 1),
            )
    _step(progress, 3, steps, f"writing {target}")
    save_deck(deck, target)
    return target


def _step(progress: Progress | None, step: int, steps: int, text: str) -> None:
    if progress is not None:
        progress(step, steps, text)


def _row(context: JobContext, info: JobInfo) -> list[str]:
    plan = context.plan
    opt = plan.optimizers[0] if plan.optimizers else {}
    params = list(dict(opt.get("solver_parameters") or {}).items())
    error = info.best_valid_error
    return [
        info.name,
        info.status,
        f"{info.epoch}/{info.max_epoch}",
        f"{plan.batch_size:,}",
        str(opt.get("solver", "")),
        params[0][1] if params else "",
        "" if error is None else f"{error:.4f}",
        _count(info.statistics.get("CostMultiplyAdd")),
        _count(info.statistics.get("CostParameter")),
    ]


def _count(value: int | None) -> str:
    return "" if value is None else f"{value:,}"


def _tradeoff_slide(deck: Deck, infos: list[JobInfo]) -> None:
    slide = deck.slide(
        translate("Report", "Trade-off : best validation loss against {TRADEOFF_STATISTIC}").format(
            TRADEOFF_STATISTIC=TRADEOFF_STATISTIC
        )
    )
    (png, size), optimal = tradeoff_picture(infos, TRADEOFF_STATISTIC, 8.0, 5.4)
    deck.picture(slide, png, (MARGIN, BODY_TOP, 8.2, BODY_H), size)
    lines = [
        translate(
            "Report", "Pareto-optimal jobs (no other job is both cheaper and more accurate):"
        ),
        *[f"    {name}" for name in optimal],
    ]
    if not optimal:
        lines = [translate("Report", "No job has both a validation loss and statistics yet.")]
    deck.text(slide, lines, (MARGIN + 8.4, BODY_TOP, WIDTH - 2 * MARGIN - 8.4, BODY_H), largest=16)

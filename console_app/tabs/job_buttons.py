"""Which of the TRAINING tab's history buttons apply to the selected jobs, each disabled one
saying why in its tooltip (a failed job's Report used to offer an evaluation that could only
fail: it had no trained parameters)."""

from __future__ import annotations

from typing import Any

from console_app.language import translate
from console_app.tabs.job_menu import has_parameters


def update(tab: Any, running: bool) -> None:
    """The history's buttons for the selection (``running``: a run is in progress)."""
    jobs, one = tab.selected_jobs(), tab.selected_job()
    _resume(tab, running, next((j for j in tab.jobs if j.path == one), None))
    for b in (tab.rename_button, tab.open_button):
        b.setEnabled(one is not None)
    untrained = next((job for job in jobs if not has_parameters(job)), None)
    tab.report_button.setEnabled(bool(jobs) and untrained is None)
    tab.quantize_button.setEnabled(one is not None and untrained is None)
    why = "" if untrained is None else translate(
        "TrainingTab",
        "{name} has no trained parameters (no checkpoint): its training ended before its "
        "first epoch. Fix the problem and press Run.",
    ).format(name=untrained.name)  # fmt: skip
    tab.report_button.setToolTip(why or translate(
        "TrainingTab",
        "Write the selected job's PowerPoint report (several selected: a comparison deck)",
    ))  # fmt: skip
    tab.quantize_button.setToolTip(why)
    tab.delete_button.setEnabled(bool(jobs) and not running)


def _resume(tab: Any, running: bool, info: Any) -> None:
    # A finished job has nothing left to run, and one that failed before its first
    # checkpoint has nothing to continue from (Run starts it anew).
    tab.resume_button.setEnabled(not running and info is not None and info.resumable)
    tab.resume_button.setToolTip(
        translate("TrainingTab", "Continue the selected stopped job from its checkpoint")
        if info is None or info.resumable or info.status == "finished"
        else translate(
            "TrainingTab",
            "{name} has no checkpoint to continue from: it ended before its first "
            "epoch. Fix the problem and press Run.",
        ).format(name=info.name)
    )

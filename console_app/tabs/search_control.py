"""TRAINING's structure search: Run starts ``neurocanvas search`` when CONFIG enables it.

The search runs as a child process like training (:class:`JobRunner`), with the project's
Structure Search settings (CONFIG > Structure Search). Each attempt is a job folder in the
project's jobs folder, so the history and the trade-off graph (with its Pareto front) show the
attempts as they finish; Stop ends the search cleanly (the attempt in training is recorded as
failed, "stopped"). Every Run is a new study, ``search_<date_time>``.
"""

from __future__ import annotations

import datetime as _dt
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt

from console_app.language import translate
from console_app.tabs.search_results import SearchResultsDialog, newest_results
from engine.runtime.job_history import read_curve

if TYPE_CHECKING:
    from console_app.tabs.training_tab import TrainingTab

# NNC's choices for the Structure Search keys that are free text in the file.
CHOICES = {
    "Method": (("Random", "Random"),
               ("NetworkFeatureAndGaussianProcess", "Network Feature + Gaussian Process")),
    "Objective": (("ErrorAndCalculation", "Error and Calculation"), ("Error", "Error")),
}  # fmt: skip
# CONFIG > Structure Search fields: key, label, editor kind (config_tab's kinds).
FIELDS = (
    ("Enabled", "Enable structure search", "bool"), ("Method", "Method", "choice"),
    ("Objective", "Optimize for", "choice"),
    ("Validation_Min", "Validation error min (-1: none)", "float"),
    ("Validation_Max", "Validation error max (-1: none)", "float"),
    ("CostMultiplyAdd_Min", "CostMultiplyAdd min (-1: none)", "float"),
    ("CostMultiplyAdd_Max", "CostMultiplyAdd max (-1: none)", "float"),
    ("AttemptTimes", "Attempts", "int"), ("AttemptHours", "Hours", "float"),
    ("NumParallel", "Parallel jobs", "int"),
)  # fmt: skip
MINIMA = {"AttemptTimes": 1, "NumParallel": 1}


class SearchControl:
    """Starts and follows one search for a TRAINING tab (its runner, progress and history)."""

    def __init__(self, tab: TrainingTab) -> None:
        self.tab = tab
        self.study = ""
        self.done = 0
        self.total = 0
        self.jobs: dict[Any, Path] = {}  # attempt number -> job folder
        self.dialog: SearchResultsDialog | None = None
        tab.runner.event.connect(self._on_event)

    def enabled(self) -> bool:
        return self.tab.document.project.structure_search.enabled

    def start(self, epochs: int | None = None) -> Path | None:
        """Start a search on a snapshot of the document; returns the jobs folder."""
        tab = self.tab
        snapshot = tab.write_snapshot()
        if snapshot is None:
            return None
        root = tab.jobs_root()
        self.study = "search_" + _dt.datetime.now().strftime("%Y%m%d_%H%M%S")
        self.done, self.total = 0, tab.document.project.structure_search.get("AttemptTimes")
        tab._begin(root / self.study, [])  # the status line names the study
        tab.position.setText(
            translate("SearchControl", "structure search {study}: starting...").format(
                study=self.study
            )
        )
        args = ["--study", self.study]
        if epochs is not None:
            args += ["--epochs", str(epochs)]
        tab.runner.search(snapshot, root, args, tab.device.currentText())
        return root

    def _on_event(self, record: dict[str, Any]) -> None:
        kind = record.get("event")
        tab = self.tab
        if kind == "search_start":
            self.total = int(record.get("attempts", self.total))
            self.done = int(record.get("done", 0))
            tab.progress.setMaximum(max(1, self.total))
            tab.progress.setValue(self.done)
            tab.append_log(
                translate(
                    "SearchControl",
                    "Structure search {get}: {total} attempts, method {get2}, objective {get3}",
                ).format(
                    get=record.get("study"),
                    total=self.total,
                    get2=record.get("method"),
                    get3=record.get("objective"),
                )
            )
        elif kind == "attempt_start":
            tab.position.setText(
                translate("SearchControl", "attempt {get} of {total}: {get2}").format(
                    get=record.get("number"), total=self.total, get2=record.get("mutation")
                )
            )
            tab.append_log(
                translate("SearchControl", "Attempt {get}: {get2}").format(
                    get=record.get("number"), get2=record.get("mutation")
                )
            )
            self.jobs[record.get("number")] = Path(str(record.get("job")))
        elif kind in ("attempt_end", "attempt_failed"):
            self.done += 1
            tab.progress.setValue(min(self.done, tab.progress.maximum()))
            error = record.get("valid_error")
            shown = (
                translate("SearchControl", "validation error {error:.4g}").format(error=error)
                if error is not None
                else record.get("message") or record.get("status", "failed")
            )
            tab.append_log(
                translate("SearchControl", "Attempt {get}: {shown}").format(
                    get=record.get("number"), shown=shown
                )
            )
            tab.refresh_jobs()  # the new job folder joins the history and trade-off graph
            job = self.jobs.get(record.get("number"))
            if job is not None:  # the attempt's learning curve, once it is written
                tab.curve.set_curves([(job.name, read_curve(job))])
        elif kind == "search_end":
            tab.append_log(
                translate(
                    "SearchControl", "Structure search ended: {get} attempts, Pareto-optimal {get2}"
                ).format(get=record.get("attempts"), get2=record.get("pareto"))
            )
            if record.get("table"):
                self.show_results(Path(str(record["table"])))

    def show_results(self, table: Path | None = None) -> SearchResultsDialog | None:
        """The results of ``table`` (default: the newest study in the jobs folder)."""
        table = table or newest_results(self.tab.jobs_root())
        if table is None or not table.is_file():
            self.tab.show_error(
                translate(
                    "SearchControl",
                    "No structure search results yet: enable it in CONFIG > "
                    "Structure Search, then Run",
                )
            )
            return None
        self.dialog = SearchResultsDialog(table, self.tab)
        self.dialog.open_network.connect(self.tab.open_network.emit)
        self.dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.dialog.show()
        return self.dialog

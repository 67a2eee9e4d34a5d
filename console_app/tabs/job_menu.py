"""The job history's context menu, as NNC's results list has: evaluate, export, open, rename,
delete, compare.

The menu is built from :data:`ENTRIES`; a feature adds its own line with :func:`add_entry`
(e.g. ``add_entry("Report...", make_report, one_job, after="Evaluate")``). An entry's ``run``
gets the TRAINING tab and the selected job folders; ``enabled`` says whether it applies to them.
Dialogs go through the tab (``ask_save_path``, ``ask_delete``) so they stay in one place.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from PySide6.QtCore import QT_TRANSLATE_NOOP, QFile, QUrl
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import (
    QDialog,
    QMenu,
    QMessageBox,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from console_app.language import translate
from console_app.tabs import job_history as H
from engine.core import optional
from engine.core.numbers import count_text, short_float

job_exports = optional.lazy("console_app.tabs.job_exports")  # when a job is first exported


def one_job(jobs: list[Path]) -> bool:
    return len(jobs) == 1


def has_parameters(job: Path) -> bool:
    """Trained parameters (a checkpoint): a run that failed or stopped before its first epoch
    has none, so nothing to evaluate, export, report or quantize."""
    return any((job / "checkpoints" / k).is_dir() for k in ("best", "last"))


def trained_job(jobs: list[Path]) -> bool:
    """One job with trained parameters (a checkpoint) to export or evaluate."""
    return one_job(jobs) and has_parameters(jobs[0])


def several_jobs(jobs: list[Path]) -> bool:
    return len(jobs) >= 2


def some_jobs(jobs: list[Path]) -> bool:
    return bool(jobs)


@dataclass(frozen=True)
class Entry:
    text: str
    run: Callable[[Any, list[Path]], object]  # (TrainingTab, selected job folders)
    enabled: Callable[[list[Path]], bool] = one_job


def _evaluate(tab: Any, jobs: list[Path]) -> None:
    tab.evaluate_requested.emit(jobs[0])


def _export(kind: str, target: str = "neurocanvas") -> Callable[[Any, list[Path]], Path | None]:
    suffix, file_filter = {
        "python": (".py", "Python (*.py)"),
        "onnx": (".onnx", "ONNX (*.onnx)"),
        "c": ("_c", "Folder (*)"),
        "tflite": (".tflite", "TensorFlow Lite (*.tflite)"),
        "tflite int8": ("_int8.tflite", "TensorFlow Lite (*.tflite)"),
    }[kind]

    def run(tab: Any, jobs: list[Path]) -> Path | None:
        job = jobs[0]
        start = job.parent / f"{job.name}{suffix}"
        path = tab.ask_save_path(
            translate("JobMenu", "Export the trained model ({kind})").format(kind=kind),
            str(start),
            file_filter,
        )
        if not path:
            return None
        return export_job(tab, job, kind, target, path)

    return run


def export_job(tab: Any, job: Path, kind: str, target: str, path: str) -> Path | None:
    """``console_app.tabs.job_exports.export_job``: the exports (engine.export, and the
    runtime they check a model with) are loaded when a job is first exported."""
    return job_exports.export_job(tab, job, kind, target, path)


def _train_from(tab: Any, jobs: list[Path]) -> Path | None:
    """NNC's "Open in EDIT Tab with Weight", then Run: a new job of the project as it is now,
    starting from this job's parameters (its best checkpoint, else its last): fine-tuning,
    also of an imported model, whose job holds the imported weights."""
    checkpoints = jobs[0] / "checkpoints"
    kind = "best" if (checkpoints / "best" / "parameters.npz").is_file() else "last"
    params = checkpoints / kind / "parameters.npz"
    job = tab.run(params=params)
    if job is not None:
        tab.append_log(
            translate("JobMenu", "{name}: training from {name2}'s {kind} parameters").format(
                name=job.name, name2=jobs[0].name, kind=kind
            )
        )
    return job


def _open_folder(tab: Any, jobs: list[Path]) -> None:
    if not QDesktopServices.openUrl(QUrl.fromLocalFile(str(jobs[0]))):
        tab.show_error(
            translate("JobMenu", "cannot open {value}: no file manager answered").format(
                value=jobs[0]
            )
        )


def _rename(tab: Any, jobs: list[Path]) -> None:
    tab.rename_selected()


def move_to_trash(path: Path) -> bool:
    """The desktop's trash (Qt follows the freedesktop.org, Windows and macOS conventions)."""
    return QFile.moveToTrash(str(path))


def delete_jobs(tab: Any, jobs: list[Path]) -> bool:
    """Ask (trash, delete for good or cancel), then do exactly that; refuses while running."""
    if not jobs or tab.runner.is_running():
        return False
    answer = tab.ask_delete([p.name for p in jobs])
    if answer == "cancel":
        return False
    for job in jobs:
        if answer == "trash":
            if not move_to_trash(job):
                tab.show_error(
                    translate(
                        "JobMenu", "{job}: cannot move it to the trash; nothing was deleted"
                    ).format(job=job)
                )
                break
        else:
            H.delete_job(job)
    tab.refresh_jobs()
    return True


def _compare(tab: Any, jobs: list[Path]) -> None:
    tab.compare(jobs)


ENTRIES: list[Entry] = [
    Entry(translate("JobMenu", "Evaluate"), _evaluate, trained_job),
    Entry(translate("JobMenu", "Train from these parameters"), _train_from, trained_job),
    Entry(
        translate("JobMenu", "Report..."),
        lambda tab, jobs: tab.reports.start(jobs[0] if len(jobs) == 1 else jobs),
        some_jobs,
    ),  # fmt: skip
    Entry(translate("JobMenu", "Export Python code..."), _export("python"), trained_job),
    Entry(
        translate("JobMenu", "Export Python code for nnabla..."),
        _export("python", "nnabla"),
        trained_job,
    ),
    Entry(translate("JobMenu", "Export ONNX..."), _export("onnx"), trained_job),
    Entry(translate("JobMenu", "Export C source..."), _export("c"), trained_job),
    Entry(translate("JobMenu", "Export TFLite..."), _export("tflite"), trained_job),
    Entry(translate("JobMenu", "Export TFLite int8..."), _export("tflite int8"), trained_job),
    Entry(translate("JobMenu", "Open job folder"), _open_folder, one_job),
    Entry(translate("JobMenu", "Rename..."), _rename, one_job),
    Entry(translate("JobMenu", "Delete..."), lambda tab, jobs: delete_jobs(tab, jobs), some_jobs),
    Entry(translate("JobMenu", "Compare selected jobs"), _compare, several_jobs),
]


def add_entry(
    text: str,
    run: Callable[[Any, list[Path]], object],
    enabled: Callable[[list[Path]], bool] = one_job,
    after: str | None = None,
) -> None:
    """Add a line to every job menu built from now on (after ``after``, else at the end)."""
    index = next((i + 1 for i, e in enumerate(ENTRIES) if e.text == after), len(ENTRIES))
    ENTRIES.insert(index, Entry(text, run, enabled))


def build_menu(tab: Any, jobs: list[Path], parent: QWidget | None = None) -> QMenu:
    """The menu for ``jobs`` (the selection); entries that do not apply are disabled."""
    menu = QMenu(parent or tab)
    running = tab.runner.is_running()
    for entry in ENTRIES:
        action = menu.addAction(entry.text)
        action.setEnabled(entry.enabled(jobs) and not (running and entry.text == "Delete..."))
        action.triggered.connect(lambda _c=False, e=entry: e.run(tab, list(jobs)))
    return menu


def ask_delete(parent: QWidget, names: list[str]) -> str:
    """``"trash"``, ``"delete"`` or ``"cancel"``: never deletes without the user's choice."""
    box = QMessageBox(
        QMessageBox.Icon.Question,
        translate("JobMenu", "Delete jobs"),
        translate("JobMenu", "Delete the job folder(s) {join} and everything in them?").format(
            join=", ".join(names)
        ),
        parent=parent,
    )
    trash = box.addButton(translate("JobMenu", "Move to Trash"), QMessageBox.ButtonRole.AcceptRole)
    delete = box.addButton(
        translate("JobMenu", "Delete Permanently"), QMessageBox.ButtonRole.DestructiveRole
    )
    box.addButton(QMessageBox.StandardButton.Cancel)
    box.setDefaultButton(trash)
    box.exec()
    clicked = box.clickedButton()
    return "trash" if clicked is trash else "delete" if clicked is delete else "cancel"


COMPARED = ("Status", "Epoch", "Best epoch", "Best validation loss", "Training loss", "Cost",
            "CostParameter", "CostMultiplyAdd")  # fmt: skip
_COMPARED_TEXTS = (
    QT_TRANSLATE_NOOP("JobMenu", "Status"),
    QT_TRANSLATE_NOOP("JobMenu", "Epoch"),
    QT_TRANSLATE_NOOP("JobMenu", "Best epoch"),
    QT_TRANSLATE_NOOP("JobMenu", "Best validation loss"),
    QT_TRANSLATE_NOOP("JobMenu", "Training loss"),
    QT_TRANSLATE_NOOP("JobMenu", "Cost"),
)  # fmt: skip  (for pyside6-lupdate)


def comparison_dialog(parent: QWidget, jobs: list[H.JobInfo]) -> QDialog:
    """The selected jobs side by side (one column each), as NNC compares results."""
    table = QTableWidget(len(COMPARED), len(jobs))
    table.setHorizontalHeaderLabels([j.name for j in jobs])
    table.setVerticalHeaderLabels([translate("JobMenu", c) for c in COMPARED])
    for col, job in enumerate(jobs):
        values = (job.status, f"{job.epoch}/{job.max_epoch}", str(job.best_epoch),
                  short_float(job.best_valid_error), short_float(job.last(2)),
                  short_float(job.last(1)),
                  count_text(job.statistics.get("CostParameter")),
                  count_text(job.statistics.get("CostMultiplyAdd")))  # fmt: skip
        for row, text in enumerate(values):
            table.setItem(row, col, QTableWidgetItem(text))
    table.resizeColumnsToContents()
    dialog = QDialog(parent)
    dialog.setWindowTitle(translate("JobMenu", "Compare jobs"))
    QVBoxLayout(dialog).addWidget(table)
    dialog.table = table  # type: ignore[attr-defined]
    dialog.resize(min(1000, 220 + 140 * len(jobs)), 320)
    return dialog

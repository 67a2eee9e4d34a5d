"""File > Export: Python code (for NeuroCanvas or for nnabla), ONNX, NNP, C source and TFLite of
the project being edited (engine.export), and the PowerPoint report of a job (engine.report, through
:mod:`console_app.report_action`). The menu's entries are :mod:`console_app.export_menu`'s,
which loads this module when an export is first chosen.

The exports use the project as it is in the editor (unsaved edits included) with freshly
initialized parameters; a trained model is exported from its job folder with
``neurocanvas export`` (each job folder also holds NNC's ``results.nnp``). The report is of the
job selected in TRAINING, else the newest one.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtWidgets import QFileDialog

from console_app.language import error_text, translate
from console_app.report_action import ReportController
from engine.export import (
    ExportError,
    Source,
    export_c,
    export_nnp,
    export_onnx,
    export_python,
    export_tflite,
)

__all__ = ["export_python_code", "export_onnx_model", "export_nnp_model", "export_c_source",
           "export_tflite_model", "export_report"]  # fmt: skip

# What File > Export > ONNX / NNP write: said with the file's name, since a user who has a
# trained job selected expects its weights (those come from the job menu or its folder).
UNTRAINED = "the network as edited, with freshly initialized parameters"


def _source(window: Any) -> Source:
    doc = window.document
    project = doc.project
    runtime = project.executors[0].network if project.executors else None
    title = doc.path.stem if doc.path is not None else "untitled"
    return Source(project, title, runtime, None, True)


def _ask(window: Any, caption: str, suffix: str, file_filter: str) -> Path | None:
    doc = window.document
    start = doc.path.with_suffix(suffix) if doc.path is not None else Path("model" + suffix)
    path, _ = QFileDialog.getSaveFileName(window, caption, str(start), file_filter)
    return Path(path) if path else None


def export_python_code(
    window: Any, path: str | Path | None = None, target: str = "neurocanvas"
) -> Path | None:
    """Write the project's networks as Python code for ``target`` (``neurocanvas`` or
    ``nnabla``) to ``path`` (asked when None)."""
    caption = "Export Python code" + (" for nnabla" if target == "nnabla" else "")
    out = (
        Path(path)
        if path
        else _ask(
            window,
            caption,
            ".py",
            translate("ExportActions", "Python (*.py)"),
        )
    )
    if out is None:
        return None
    try:
        export_python(_source(window), out, target)
    except (ExportError, OSError) as exc:
        window.report_error(
            translate("ExportActions", "Export Python code: {exc}").format(exc=error_text(exc))
        )
        return None
    window.show_message(
        translate(
            "ExportActions",
            "Exported {out}: {UNTRAINED}; a trained model: right-click its job in "
            "TRAINING > Export Python code...",
        ).format(out=out, UNTRAINED=UNTRAINED)
    )
    return out


def export_onnx_model(window: Any, path: str | Path | None = None) -> Path | None:
    """Write the runtime network as ONNX to ``path`` (asked when None)."""
    target = (
        Path(path)
        if path
        else _ask(
            window,
            translate("ExportActions", "Export ONNX"),
            ".onnx",
            translate("ExportActions", "ONNX (*.onnx)"),
        )
    )
    if target is None:
        return None
    try:
        export_onnx(_source(window), target)
    except (ExportError, OSError) as exc:
        window.report_error(
            translate("ExportActions", "Export ONNX: {exc}").format(exc=error_text(exc))
        )
        return None
    except ImportError as exc:
        window.report_error(
            translate(
                "ExportActions",
                "Export ONNX: {exc}; install the extra: pip install 'neurocanvas[onnx]'",
            ).format(exc=error_text(exc))
        )
        return None
    window.show_message(
        translate(
            "ExportActions",
            "Exported {target}: {UNTRAINED}; a trained model: right-click its job "
            "in TRAINING > Export ONNX...",
        ).format(target=target, UNTRAINED=UNTRAINED)
    )
    return target


def export_report(window: Any, path: str | Path | None = None) -> bool:
    """Start the report of the TRAINING tab's selected (else newest) job; False if none."""
    training = window.project_tabs.training
    job = training.selected_job() or (training.jobs[-1].path if training.jobs else None)
    if job is None:
        window.report_error(
            translate(
                "ExportActions", "PowerPoint report: no job yet; train the project first (TRAINING)"
            )
        )
        return False
    if path is None:
        chosen, _ = QFileDialog.getSaveFileName(
            window,
            translate("ExportActions", "PowerPoint report"),
            str(job / "report.pptx"),
            translate("ExportActions", "PowerPoint (*.pptx)"),
        )
        if not chosen:
            return False
        path = chosen
    reports = getattr(window, "reports", None)
    if reports is None:
        reports = window.reports = ReportController(window)
    return reports.start(job, Path(path))


def export_nnp_model(window: Any, path: str | Path | None = None) -> Path | None:
    """Write the project as nnabla's ``.nnp`` to ``path`` (asked when None)."""
    target = (
        Path(path)
        if path
        else _ask(
            window,
            translate("ExportActions", "Export NNP"),
            ".nnp",
            translate("ExportActions", "NNP (*.nnp)"),
        )
    )
    if target is None:
        return None
    try:
        export_nnp(_source(window), target)
    except (ExportError, OSError, ValueError) as exc:
        window.report_error(
            translate("ExportActions", "Export NNP: {exc}").format(exc=error_text(exc))
        )
        return None
    window.show_message(
        translate(
            "ExportActions",
            "Exported {target}: {UNTRAINED}; a trained model: its job folder's results.nnp",
        ).format(target=target, UNTRAINED=UNTRAINED)
    )
    return target


def export_c_source(window: Any, path: str | Path | None = None) -> Path | None:
    """Write the runtime network as a C99 folder ``path`` (asked when None; a new folder)."""
    doc = window.document
    start = doc.path.with_name(doc.path.stem + "_c") if doc.path is not None else Path("model_c")
    if path is None:
        chosen, _ = QFileDialog.getSaveFileName(
            window,
            translate("ExportActions", "Export C source (a new folder)"),
            str(start),
            translate("ExportActions", "Folder (*)"),
        )
        if not chosen:
            return None
        path = chosen
    target = Path(path)
    try:
        export_c(_source(window), target)
    except (ExportError, OSError) as exc:
        window.report_error(
            translate("ExportActions", "Export C source: {exc}").format(exc=error_text(exc))
        )
        return None
    window.show_message(
        translate(
            "ExportActions",
            "Exported {target} (model.c, parameters.c, main.c, Makefile): "
            "{UNTRAINED}; a trained model: right-click its job in TRAINING > Export"
            " C source...",
        ).format(target=target, UNTRAINED=UNTRAINED)
    )
    return target


def export_tflite_model(window: Any, path: str | Path | None = None) -> Path | None:
    """Write the runtime network as a float32 ``.tflite`` file to ``path`` (asked when None;
    the file dialog has asked before replacing a file). int8 needs trained parameters: the
    job menu's Export TFLite int8..."""
    target = (
        Path(path)
        if path
        else _ask(
            window,
            translate("ExportActions", "Export TFLite"),
            ".tflite",
            translate("ExportActions", "TensorFlow Lite (*.tflite)"),
        )
    )
    if target is None:
        return None
    try:
        export_tflite(_source(window), target, force=path is None)
    except (ExportError, OSError) as exc:
        window.report_error(
            translate("ExportActions", "Export TFLite: {0}").format(error_text(exc))
        )
        return None
    window.show_message(
        translate(
            "ExportActions",
            "Exported {0}: {1}; a trained model: right-click its job in TRAINING > Export "
            "TFLite...",
        ).format(target, UNTRAINED)
    )
    return target

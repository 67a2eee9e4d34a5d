"""File > Import...: an ONNX, NNP or nntxt model (or an NNC project) opened for editing.

A model is converted by ``engine.model_import`` (as ``neurocanvas import`` does), saved
where the user says (the project, ``<stem>_parameters.npz`` and, for a model with
parameters, a job folder ``<stem>.files/<date_time>`` beside it) and opened; an
``.sdcproj``/``.ncproj`` simply opens. Errors are reported in one line; nothing is written then.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtGui import QAction
from PySide6.QtWidgets import QFileDialog, QMenu

from console_app.language import error_text, translate
from engine.core import optional
from engine.formats.nnabla.graph import ImportError_

# the converters, and the runtime they check a model with, when a model is first imported
model_import = optional.lazy("engine.model_import")

__all__ = ["IMPORT_FILTER", "add_to_menu", "import_file"]

IMPORT_FILTER = ";;".join((
    "Models and projects (*.onnx *.nnp *.nntxt *.sdcproj *.ncproj)", "ONNX (*.onnx)",
    "NNP (*.nnp)", "nntxt (*.nntxt)", "NNC project (*.sdcproj)", "All files (*)",
))  # fmt: skip


def add_to_menu(window: Any, menu: QMenu, before: QAction) -> QAction:
    """``Import...`` in ``menu`` before ``before``, wired to :func:`import_file`."""
    action = QAction(translate("ImportActions", "&Import..."), window)
    action.setStatusTip(
        translate("ImportActions", "Import an ONNX, NNP or nntxt model, or open an NNC project")
    )
    action.triggered.connect(lambda _checked=False: import_file(window))
    menu.insertAction(before, action)
    return action


def import_file(window: Any) -> Path | None:
    """Ask for a model, convert it, ask where to save the project, open it in EDIT."""
    opened = _import(window)
    if opened is not None:
        window.tabs.setCurrentWidget(window.edit_tab)  # what was imported, not the last tab
    return opened


def _import(window: Any) -> Path | None:
    if not window.maybe_save():
        return None
    source, _ = QFileDialog.getOpenFileName(
        window, translate("ImportActions", "Import"), "", IMPORT_FILTER
    )
    if not source:
        return None
    path = Path(source)
    if path.suffix.lower() in (".sdcproj", ".ncproj", ".ini"):
        return path if window.open_path(path, ask=False) else None
    try:
        imported = model_import.read_model(path)
    except ImportError_ as exc:
        window.report_error(translate("ImportActions", "Import: {exc}").format(exc=error_text(exc)))
        return None
    start = str(path.with_suffix(".ncproj"))
    target, _ = QFileDialog.getSaveFileName(
        window,
        translate("ImportActions", "Save the imported project"),
        start,
        translate("ImportActions", "NeuroCanvas project (*.ncproj)"),
    )
    if not target:
        return None
    try:
        model_import.save_imported(imported, target, path)
    except ImportError_ as exc:
        window.report_error(translate("ImportActions", "Import: {exc}").format(exc=error_text(exc)))
        return None
    except OSError as exc:
        window.report_error(
            translate("ImportActions", "Import: {target}: {value}").format(
                target=target, value=exc.strerror or exc
            )
        )
        return None
    return Path(target) if window.open_path(target, ask=False) else None

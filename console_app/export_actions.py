"""File > Export: Python code, ONNX and NNP of the project being edited (engine.export).

The exports use the project as it is in the editor (unsaved edits included) with freshly
initialized parameters; a trained model is exported from its job folder with
``neurocanvas export`` (each job folder also holds NNC's ``results.nnp``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from PySide6.QtWidgets import QFileDialog, QMenu

from engine.export import ExportError, Source, export_nnp, export_onnx, export_python

__all__ = ["add_to_menu", "export_python_code", "export_onnx_model", "export_nnp_model"]


def add_to_menu(window: Any, menu: QMenu, texts: Sequence[str]) -> None:
    """One action per text; those with an export here are enabled and wired to ``window``."""
    handlers: dict[str, Callable[[Any], Any]] = {
        "Python code...": export_python_code,
        "ONNX...": export_onnx_model,
        "NNP...": export_nnp_model,
    }
    for text in texts:
        action = menu.addAction(text)
        handler = handlers.get(text)
        action.setEnabled(handler is not None)
        if handler is not None:
            action.triggered.connect(lambda _checked=False, h=handler: h(window))


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


def export_python_code(window: Any, path: str | Path | None = None) -> Path | None:
    """Write the project's networks as Python code to ``path`` (asked when None)."""
    target = Path(path) if path else _ask(window, "Export Python code", ".py", "Python (*.py)")
    if target is None:
        return None
    try:
        export_python(_source(window), target)
    except (ExportError, OSError) as exc:
        window.report_error(f"Export Python code: {exc}")
        return None
    window.show_message(f"Exported {target}")
    return target


def export_onnx_model(window: Any, path: str | Path | None = None) -> Path | None:
    """Write the runtime network as ONNX to ``path`` (asked when None)."""
    target = Path(path) if path else _ask(window, "Export ONNX", ".onnx", "ONNX (*.onnx)")
    if target is None:
        return None
    try:
        export_onnx(_source(window), target)
    except (ExportError, OSError) as exc:
        window.report_error(f"Export ONNX: {exc}")
        return None
    except ImportError as exc:
        window.report_error(
            f"Export ONNX: {exc}; install the extra: pip install 'neurocanvas[onnx]'"
        )
        return None
    window.show_message(f"Exported {target}")
    return target


def export_nnp_model(window: Any, path: str | Path | None = None) -> Path | None:
    """Write the project as nnabla's ``.nnp`` to ``path`` (asked when None)."""
    target = Path(path) if path else _ask(window, "Export NNP", ".nnp", "NNP (*.nnp)")
    if target is None:
        return None
    try:
        export_nnp(_source(window), target)
    except (ExportError, OSError, ValueError) as exc:
        window.report_error(f"Export NNP: {exc}")
        return None
    window.show_message(f"Exported {target}")
    return target

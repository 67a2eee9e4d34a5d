"""File > Export's entries: one action per export, wired to :mod:`console_app.export_actions`.

The exports (``engine.export``: the code writers, ONNX, NNP, C, TFLite, and the runtime they
check a model with) are loaded when an export is first chosen, not when the window opens.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from PySide6.QtCore import QT_TRANSLATE_NOOP
from PySide6.QtWidgets import QMenu

from console_app.language import translate
from engine.core import optional

# the exports (engine.export, and the runtime they check a model with) when one is first chosen
export_actions = optional.lazy("console_app.export_actions")

__all__ = ["add_to_menu", "PYTHON_TARGETS"]

# "Python code..." opens a submenu: the library the exported code imports (engine.export).
PYTHON_TARGETS = (
    (QT_TRANSLATE_NOOP("ExportActions", "for NeuroCanvas (engine.nn)..."), "neurocanvas"),
    (QT_TRANSLATE_NOOP("ExportActions", "for nnabla..."), "nnabla"),
)

# The texts main_window.EXPORTS passes in, for pyside6-lupdate.
_EXPORT_TEXTS = (QT_TRANSLATE_NOOP("ExportActions", "Python code..."),
                 QT_TRANSLATE_NOOP("ExportActions", "ONNX..."),
                 QT_TRANSLATE_NOOP("ExportActions", "NNP..."),
                 QT_TRANSLATE_NOOP("ExportActions", "C source..."),
                 QT_TRANSLATE_NOOP("ExportActions", "TFLite..."),
                 QT_TRANSLATE_NOOP("ExportActions", "PowerPoint report..."))  # fmt: skip

# Each text's function in console_app.export_actions.
HANDLERS = {
    "ONNX...": "export_onnx_model",
    "PowerPoint report...": "export_report",
    "NNP...": "export_nnp_model",
    "C source...": "export_c_source",
    "TFLite...": "export_tflite_model",
}


def run_export(window: Any, handler: str, **options: Any) -> Any:
    """Call ``console_app.export_actions.<handler>(window, **options)``, loading it first."""
    return getattr(export_actions, handler)(window, **options)


def add_to_menu(window: Any, menu: QMenu, texts: Sequence[str]) -> None:
    """One action per text; those with an export are enabled and wired to ``window``."""
    for text in texts:
        if text == "Python code...":
            targets = menu.addMenu(translate("ExportActions", text))
            for label, target in PYTHON_TARGETS:
                act = targets.addAction(translate("ExportActions", label))
                act.triggered.connect(
                    lambda _checked=False, t=target: run_export(
                        window, "export_python_code", target=t
                    )
                )
            continue
        action = menu.addAction(translate("ExportActions", text))
        handler = HANDLERS.get(text)
        action.setEnabled(handler is not None)
        if handler is not None:
            action.triggered.connect(lambda _checked=False, h=handler: run_export(window, h))

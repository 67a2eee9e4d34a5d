"""A trained job exported from the job history's menu (TRAINING, right click > Export ...):
Python code, ONNX, C source or TFLite (float or int8) of the job's network with its trained
parameters. :mod:`console_app.tabs.job_menu` loads this module when a job is first exported.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from console_app.language import error_text, translate
from engine.export import (
    ExportError,
    export_c,
    export_onnx,
    export_python,
    export_tflite,
    open_source,
)

__all__ = ["export_job"]


def export_job(tab: Any, job: Path, kind: str, target: str, path: str) -> Path | None:
    """Write ``job``'s model as ``kind`` to ``path``; errors go to the tab, in one line."""
    try:
        source = open_source(job)
        if kind == "python":
            export_python(source, path, target=target)
        elif kind == "c":
            export_c(source, path)
        elif kind.startswith("tflite"):  # the save dialog asked before replacing a file
            export_tflite(source, path, int8=kind.endswith("int8"), force=True)
        else:
            export_onnx(source, path)
    except (ExportError, OSError) as exc:
        tab.show_error(
            translate("JobMenu", "Export {name}: {exc}").format(name=job.name, exc=error_text(exc))
        )
        return None
    except ImportError as exc:
        tab.show_error(
            translate("JobMenu", "Export {name}: {exc}; pip install 'neurocanvas[onnx]'").format(
                name=job.name, exc=exc
            )
        )
        return None
    tab.append_log(
        translate("JobMenu", "Exported {name} to {path}").format(name=job.name, path=path)
    )
    return Path(path)

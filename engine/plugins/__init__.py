"""NNC's plugin protocol and the built-in lineup (Qt-free).

:mod:`~engine.plugins.protocol` finds plugin scripts and reads their parameters from
``--help``; :mod:`~engine.plugins.runner` runs one on a job in a child process. The scripts
of the lineup live in ``scripts/_Post_Process/<group>/``; their computations are the modules
here (``xai``, ``shap``, ``tracin``, ``stats``), each testable on its own.

Names are imported on first use, so a script's ``--help`` stays quick (no engine import).
"""

from __future__ import annotations

import importlib
from typing import Any

_HOMES = {
    "JobModel": "model", "PluginError": "model", "Param": "protocol", "Plugin": "protocol",
    "discover": "protocol", "find_plugin": "protocol", "parse_help": "protocol",
    "PluginResult": "runner", "list_results": "runner", "run_plugin": "runner",
}  # fmt: skip

__all__ = sorted(_HOMES)


def __getattr__(name: str) -> Any:
    if name not in _HOMES:
        raise AttributeError(f"module 'engine.plugins' has no attribute {name!r}")
    return getattr(importlib.import_module(f"engine.plugins.{_HOMES[name]}"), name)

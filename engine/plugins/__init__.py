"""NNC's plugin protocol and the built-in lineup (Qt-free).

:mod:`~engine.plugins.protocol` finds plugin scripts and reads their parameters from
``--help``; :mod:`~engine.plugins.runner` runs one on a job in a child process. The scripts
of the lineup live in ``scripts/_Post_Process/<group>/``; their computations are the modules
here (``xai``, ``shap``, ``tracin``, ``stats``, ``fairness``), each testable on its own.
"""

from engine.plugins.model import JobModel, PluginError
from engine.plugins.protocol import Param, Plugin, discover, find_plugin, parse_help
from engine.plugins.runner import PluginResult, list_results, run_plugin

__all__ = [
    "JobModel", "Param", "Plugin", "PluginError", "PluginResult", "discover", "find_plugin",
    "list_results", "parse_help", "run_plugin",
]  # fmt: skip

"""numba, when installed: compiled CPU loops are optional extras beside the ``xp`` kernels (the
CPU counterpart of a fused CuPy kernel, see DESIGN.md "Write kernels once"). Imported on first
use only: it takes a good fraction of a second.
"""

from __future__ import annotations

from types import ModuleType

_state: dict[str, ModuleType | None] = {}
ENABLED = True  # tests switch the compiled paths off to compare them with the xp kernels


def numba() -> ModuleType | None:
    """The numba module, or None when it is missing or the compiled paths are switched off."""
    if not ENABLED:
        return None
    if "numba" not in _state:
        try:
            import numba as module  # noqa: PLC0415
        except ImportError:
            module = None
        _state["numba"] = module
    return _state["numba"]

"""numba, when installed: compiled CPU loops are optional extras beside the ``xp`` kernels (the
CPU counterpart of a fused CuPy kernel, see docs/architecture.md §5.1). Imported on first
use only: it takes a good fraction of a second.
"""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType
from typing import Any

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


def njit(
    numba: ModuleType, cache: bool = True, **options: Any
) -> Callable[[Callable[..., Any]], Any]:
    """``numba.njit`` with the machine code cached on disk (unless ``cache`` is false), so the
    compilation (about a second per kernel) is paid once per machine, not per process. numba
    keeps the cache beside the source or, when that folder is read-only, under
    ``NUMBA_CACHE_DIR`` or the user's cache folder; where none of those can be written, the
    kernel is compiled in memory instead."""

    def decorate(fn: Callable[..., Any]) -> Any:
        if cache:
            try:
                return numba.njit(cache=True, nogil=True, **options)(fn)
            except RuntimeError:  # "cannot cache function ...: no locator available"
                pass
        return numba.njit(nogil=True, **options)(fn)

    return decorate


def kernels(
    build: Callable[[ModuleType], dict[str, Any]],
) -> Callable[[], dict[str, Any] | None]:
    """``build(numba)``, run on first use, gives a module's compiled kernels by name; the
    returned getter gives them (None without numba or with the compiled paths off)."""
    built: dict[str, Any] = {}

    def get() -> dict[str, Any] | None:
        module = numba()
        if module is None:
            return None
        if not built:
            built.update(build(module))
        return built

    return get

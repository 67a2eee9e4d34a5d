"""numba, when installed: compiled CPU loops are optional extras beside the ``xp`` kernels (the
CPU counterpart of a fused CuPy kernel, see docs/architecture.md §5.1). Imported on first
use only: it takes a good fraction of a second.
"""

from __future__ import annotations

import contextlib
import importlib.abc
import sys
import threading
from collections.abc import Callable, Iterator
from types import ModuleType
from typing import Any

from engine.core import optional

_state: dict[str, ModuleType | None] = {}
_lock = threading.Lock()  # one set-up, also when :func:`preload` runs it on a thread
ENABLED = True  # tests switch the compiled paths off to compare them with the xp kernels
# Called with a kernel's Python function when its machine code is not in numba's cache, before
# it is compiled: True when it waited for the code to arrive there (another process compiling
# it, engine/warmup), and the cache is then read again. Set by engine.warmup.ahead.
AWAIT_CACHED: list[Callable[[Any], bool]] = []
# Called with a kernel's Python function: True while another process is still compiling it
# into numba's cache (engine/warmup), when a caller with an exact NumPy stand-in runs that
# instead (:func:`usable`). Set by engine.warmup.ahead.
PENDING: list[Callable[[Any], bool]] = []


def numba() -> ModuleType | None:
    """The numba module, or None when it is missing or the compiled paths are switched off."""
    if not ENABLED:
        return None
    if "numba" not in _state:
        with _lock:
            if "numba" not in _state:
                _state["numba"] = _import_without_scipy()
    return _state["numba"]


def preload() -> None:
    """Set numba up on a background thread while the caller reads its project and data.

    numba's set-up (0.3-0.4 s) is Python code that mostly holds the GIL, but a training
    process spends its first half second reading files and building its session, and the
    first kernel then finds numba ready sooner. Nothing changes in what runs: the first
    kernel waits for the set-up to finish, as it would have run it itself.
    """
    if ENABLED and "numba" not in _state:
        threading.Thread(target=numba, name="numba set-up", daemon=True).start()


class _NoSciPy(importlib.abc.MetaPathFinder):
    """Refuses SciPy to the thread that made it (see :func:`_without_scipy`); any other thread,
    such as the main one reading a dataset with scikit-learn, imports it."""

    def __init__(self) -> None:
        self.thread = threading.get_ident()

    def find_spec(self, name: str, path: Any, target: Any = None) -> None:
        if threading.get_ident() == self.thread and (name == "scipy" or name.startswith("scipy.")):
            raise ImportError("SciPy is left out of numba's registries (engine.core.ops._jit)")


@contextlib.contextmanager
def _without_scipy() -> Iterator[None]:
    """SciPy refused to this thread meanwhile, unless the process has it already.

    numba imports ``scipy.linalg.cython_blas`` when it loads its array functions' registries,
    only to offer ``np.dot``/``np.linalg`` inside compiled code, which the engine's loops never
    use. That costs 0.3-0.5 s (SciPy's linear algebra, its own OpenBLAS and numpy.f2py) and
    starts a second OpenBLAS thread pool. Without SciPy at that moment numba notes "no BLAS"
    and goes on. Only this thread is refused SciPy: the others (a dataset built with
    scikit-learn, the structure search) import it as usual, also meanwhile.
    """
    blocker = None if "scipy" in sys.modules else _NoSciPy()
    if blocker is not None:
        sys.meta_path.insert(0, blocker)
    try:
        yield
    finally:
        if blocker is not None:
            sys.meta_path.remove(blocker)


def _import_without_scipy() -> ModuleType | None:
    """numba, imported without SciPy (:func:`_without_scipy`) and set to load cached kernels
    without its registries (:func:`_load_cached_kernels_lightly`)."""
    with _without_scipy():
        try:
            module = optional.require("numba")
        except ImportError:
            return None
    _load_cached_kernels_lightly()
    return module


def _load_cached_kernels_lightly() -> None:
    """Let numba load a kernel's cached machine code without first loading every typing and
    lowering registry it has (252 of them: 0.3-0.4 s of every process's first kernel).

    numba's ``Cache.load_overload`` refreshes the whole target context "to ensure it is
    initialized", although rebuilding cached code needs only the runtime (NRT) it links
    against; the registries serve compilation, and numba's compiler refreshes them itself
    before it compiles (a cache miss, a new signature): that refresh is made without SciPy
    too. The loaded code is the same bytes either way. numba's internals may change: when
    these names are missing, numba's own loading stays in place.
    """
    try:
        caching = optional.require("numba.core.caching")
        cpu_target = optional.require("numba.core.registry").cpu_target
        rtsys = optional.require("numba.core.runtime").rtsys

        caching.Cache._load_overload  # noqa: B018 - the method the replacement calls
        context = cpu_target.target_context
        refresh = context.refresh
    except (ImportError, AttributeError):
        return

    def load_overload(self: Any, sig: Any, target_context: Any) -> Any:
        rtsys.initialize(target_context)  # what the refresh was for
        with self._guard_against_spurious_io_errors():
            loaded = self._load_overload(sig, target_context)
            if loaded is None and any(wait(self._py_func) for wait in AWAIT_CACHED):
                loaded = self._load_overload(sig, target_context)
            return loaded
        return None  # Windows: an access error swallowed, the kernel is compiled instead

    def refresh_without_scipy() -> None:
        with _without_scipy():
            refresh()

    caching.Cache.load_overload = load_overload
    context.refresh = refresh_without_scipy


def usable(kernel: Any, stand_in: Callable[..., Any]) -> Any:
    """``kernel``, or while another process is still compiling it into numba's cache (a fresh
    machine's first run, engine/warmup/ahead.py) ``stand_in``, a NumPy function that takes the
    same arguments and writes the same bytes (engine/core/ops/_standins.py). Once the cache
    holds the kernel, ``kernel`` (numba loads it on this call)."""
    for pending in PENDING:  # empty unless a second process compiles kernels
        py_func = getattr(kernel, "py_func", None)  # None: not numba's (a test's double)
        if py_func is not None and pending(py_func):
            return stand_in
    return kernel


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
    returned getter gives them (None without numba or with the compiled paths off). Built once
    also when two threads ask at once (engine/warmup looks kernels up on a thread): two builds
    would give two dispatchers, each loading or compiling its kernels again."""
    built: dict[str, Any] = {}
    building = threading.Lock()

    def get() -> dict[str, Any] | None:
        module = numba()
        if module is None:
            return None
        if not built:
            with building:
                if not built:
                    built.update(build(module))
        return built

    return get

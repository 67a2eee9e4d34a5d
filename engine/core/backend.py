"""Array backend: one switch between NumPy (CPU) and CuPy (NVIDIA GPU).

Kernels never import numpy or cupy directly for computation; they call :func:`xp` (or
:func:`get_array_module` on an array) so the same body runs on both. The few calls that differ
between the two libraries (scatter-add, moving arrays to the host) live here and nowhere else.

The device is chosen once per process, in this order: :func:`set_device`, the environment variable
``NEUROCANVAS_DEVICE`` (``cpu``, ``gpu`` or ``auto``), then ``auto``: the GPU when CuPy sees one,
else the CPU. An explicit GPU request on a machine without one raises :class:`DeviceError`; an
automatic choice that falls back to the CPU although CuPy is installed says so through the
``neurocanvas`` logger and :func:`device_notice`, never silently.
"""

from __future__ import annotations

import contextlib
import logging
import os
from collections.abc import Iterator
from types import ModuleType
from typing import Any

import numpy as np

from engine.core import optional, products
from engine.core.messages import QT_TRANSLATE_NOOP

logger = logging.getLogger("neurocanvas")

ENV_DEVICE = "NEUROCANVAS_DEVICE"
_VALID = ("cpu", "gpu", "auto", "guard")  # guard: the CI's CuPy-like CPU backend (engine.guard)


class DeviceError(RuntimeError):
    """The requested device cannot be used (for example ``gpu`` without CuPy or a GPU)."""


_state: dict[str, Any] = {"device": None, "xp": None, "notice": "", "rng": None, "seed": None}


def _probe_cupy() -> tuple[ModuleType | None, str]:
    """Return (cupy module, '') when a CUDA device is usable, else (None, reason)."""
    try:
        cupy = optional.require("cupy")
    except ImportError:
        return None, "CuPy is not installed (pip install 'neurocanvas[gpu]')"
    except Exception as exc:  # a broken CUDA install raises all sorts of errors at import
        return None, f"CuPy failed to import: {exc}"
    try:
        count = cupy.cuda.runtime.getDeviceCount()
    except Exception as exc:
        return None, f"CuPy sees no CUDA device: {exc}"
    if count < 1:
        return None, "CuPy sees no CUDA device"
    return cupy, ""


def tune_host_allocator() -> bool:
    """Let glibc keep freed large buffers for reuse instead of unmapping them (Linux only).

    NumPy takes every array from ``malloc``; glibc serves large blocks with ``mmap`` and unmaps
    them on ``free``, so every activation and gradient of each training step page-faults again
    (about 2,900 faults and a third of the time of a LeNet step at batch 64). PyTorch avoids this
    with its caching allocator; raising ``M_MMAP_THRESHOLD`` (to glibc's 32 MiB maximum) and
    ``M_TRIM_THRESHOLD`` does the same for NumPy. Runs once; returns whether it applied.
    """
    if _state.get("malloc_tuned") is not None:
        return _state["malloc_tuned"]
    tuned = False
    try:
        import ctypes
        import platform

        if platform.system() == "Linux" and platform.libc_ver()[0] == "glibc":
            libc = ctypes.CDLL(None)
            m_trim_threshold, m_mmap_threshold = -1, -3  # from <malloc.h>
            tuned = bool(libc.mallopt(m_mmap_threshold, 32 * 1024 * 1024))
            tuned = bool(libc.mallopt(m_trim_threshold, 256 * 1024 * 1024)) and tuned
    except (OSError, AttributeError, ValueError):
        tuned = False
    _state["malloc_tuned"] = tuned
    return tuned


def set_device(name: str | None = None) -> str:
    """Select the array backend for this process and return ``'cpu'`` or ``'gpu'``.

    Args:
        name: ``'cpu'``, ``'gpu'``, ``'auto'`` or None (read ``NEUROCANVAS_DEVICE``, else auto).

    Raises:
        DeviceError: ``'gpu'`` was asked for and no CUDA device is usable, or the name is unknown.
    """
    requested = (name or os.environ.get(ENV_DEVICE) or "auto").strip().lower()
    if requested not in _VALID:
        source = "--device" if name else ENV_DEVICE
        raise DeviceError(f"{source}: expected one of cpu, gpu, auto. Received: {requested!r}")
    notice = ""
    if requested == "cpu":
        device, module = "cpu", np
    elif requested == "guard":
        device, module = "gpu", optional.load("engine.guard").MODULE  # a test backend
    else:
        cupy, reason = _probe_cupy()
        if cupy is not None:
            device, module = "gpu", cupy
        elif requested == "gpu":
            raise DeviceError(f"GPU requested but not available: {reason}. Use --device cpu.")
        else:
            device, module = "cpu", np
            # A missing optional package is the normal CPU case; anything else is a fallback
            # the user must hear about.
            if "not installed" not in reason:
                notice = QT_TRANSLATE_NOOP(
                    "Training", "GPU not usable, falling back to CPU: {reason}"
                ).format(reason=reason)
                logger.warning(notice)
    _state.update(device=device, xp=module, notice=notice)
    tune_host_allocator()  # host arrays (all of them on the CPU, batches on the GPU)
    if _state["seed"] is not None:
        seed(_state["seed"])
    else:
        _state["rng"] = None
    return device


@contextlib.contextmanager
def using(name: str) -> Iterator[ModuleType]:
    """Run the block on another device (``cpu``, ``gpu``, ``guard``) and restore the previous
    one after, generators included (for tests comparing devices)."""
    saved = dict(_state)
    saved_seeded = dict(_seeded)
    try:
        set_device(name)
        yield _state["xp"]
    finally:
        _state.clear()
        _state.update(saved)
        _seeded.clear()
        _seeded.update(saved_seeded)


def device() -> str:
    """The selected device, ``'cpu'`` or ``'gpu'`` (selecting it on first use)."""
    if _state["device"] is None:
        set_device()
    return _state["device"]


def device_notice() -> str:
    """A message about an automatic CPU fallback, or '' when there was none."""
    device()
    return _state["notice"]


def xp() -> ModuleType:
    """The array module of the selected device: ``numpy`` or ``cupy``."""
    if _state["xp"] is None:
        set_device()
    return _state["xp"]


def get_array_module(*arrays: Any) -> ModuleType:
    """The array module an array belongs to (``cupy.get_array_module`` without importing CuPy)."""
    for a in arrays:
        if isinstance(a, np.ndarray):
            continue
        if type(a).__module__.startswith("cupy"):
            return optional.require("cupy")
        if type(a).__name__ == "GuardArray":
            return optional.load("engine.guard").MODULE
    return np


def is_array(a: Any) -> bool:
    """Whether ``a`` is an array of either backend (NumPy, CuPy or the CI guard)."""
    return isinstance(a, np.ndarray) or get_array_module(a) is not np


# The engine's generators are NumPy's on every device and their draws are copied to the device:
# the same seed then gives the same numbers on the CPU and the GPU, and checkpoints can save the
# generators' state (CuPy's Generator has no serialisable state and lacks normal, permutation...).


def seed(value: int) -> None:
    """Seed the engine's random generator (initializers, dropout, augmentation)."""
    _state["seed"] = int(value)
    _state["rng"] = np.random.default_rng(int(value))
    _seeded.clear()  # layers with a fixed Seed start their sequences again


def rng() -> Any:
    """The engine's random ``numpy.random.Generator`` (seeded by :func:`seed`); draws from it are
    host arrays: move them with :func:`asarray`."""
    if _state["rng"] is None:
        _state["rng"] = np.random.default_rng(_state["seed"])
    return _state["rng"]


# Generators of random layers with a fixed Seed property: seeded once and kept, as the generator
# an nnabla function instance owns, so a fixed seed gives a reproducible *sequence* of draws.
_seeded: dict[int, Any] = {}


def seeded_rng(seed: int) -> Any:
    """The generator of random layers whose Seed property is ``seed`` (not -1)."""
    gen = _seeded.get(int(seed))
    if gen is None:
        gen = _seeded[int(seed)] = np.random.default_rng(int(seed))
    return gen


def get_rng_state() -> dict:
    """The state of every random generator of the engine, as plain data (for checkpoints)."""
    return {
        "seed": _state["seed"],
        "bit_generator": rng().bit_generator.state,
        "seeded": {str(k): g.bit_generator.state for k, g in _seeded.items()},
    }


def set_rng_state(state: dict) -> None:
    """Restore a state saved by :func:`get_rng_state`."""
    _state["seed"] = state.get("seed")
    rng().bit_generator.state = state["bit_generator"]
    _seeded.clear()
    for key, gen_state in state.get("seeded", {}).items():
        seeded_rng(int(key)).bit_generator.state = gen_state


# Checks on device data (a label out of range) are not read back where they are made: that
# would stop the GPU once per training step. They wait here until the next read-back.
_pending_checks: list[tuple[Any, Any]] = []


def check_later(bad: Any, error: Any) -> None:
    """Raise ``error()`` if the 0-d boolean ``bad`` holds: now on the CPU, at the next
    :func:`to_numpy` / :func:`run_checks` on a device (no host synchronisation here)."""
    if get_array_module(bad) is np:
        if bool(bad):
            raise error()
    else:
        _pending_checks.append((bad, error))


def run_checks() -> None:
    """Evaluate the checks :func:`check_later` deferred (one host synchronisation)."""
    if not _pending_checks:
        return
    checks = list(_pending_checks)
    _pending_checks.clear()
    module = get_array_module(checks[0][0])
    flags = module.stack([bad.reshape(()) for bad, _ in checks]).get()
    for flag, (_, error) in zip(flags, checks, strict=True):
        if flag:
            raise error()


def to_numpy(a: Any) -> np.ndarray:
    """A NumPy copy (or view) of an array of either backend (a device read-back also runs the
    deferred checks)."""
    if hasattr(a, "get"):
        run_checks()
        return a.get()
    return np.asarray(a)


def asarray(a: Any, dtype: Any = None) -> Any:
    """``a`` as an array of the selected device."""
    module = xp()
    if module is not np and isinstance(a, np.ndarray):
        return module.asarray(a, dtype=dtype)
    return module.asarray(a, dtype=dtype)


def matmul(a: Any, b: Any) -> Any:
    """``a @ b``; on the CPU summed in an order no thread count changes (:mod:`products`).
    Half-precision operands on the CPU are multiplied in float32 and the product rounded to
    float16 once, as GPU tensor cores accumulate half products in float32 (NumPy has no
    half-precision BLAS: its float16 ``@`` is 5-10x slower than float32's)."""
    if not isinstance(a, np.ndarray):
        return a @ b
    if a.dtype == np.float16:
        return products.matmul(a.astype(np.float32), b.astype(np.float32)).astype(np.float16)
    return products.matmul(a, np.asarray(b))


_ATOMIC_ADD = ("float32", "int32", "uint32", "uint64")  # what cupyx.scatter_add supports


def scatter_add(target: Any, indices: Any, values: Any) -> None:
    """``target[indices] += values`` with repeated indices accumulated (``np.add.at``).

    ``indices`` is an integer array selecting along the first axis of ``target`` and ``values``
    has shape ``indices.shape + target.shape[1:]``. On the device ``cupyx.scatter_add`` serves the
    dtypes CUDA's atomicAdd has; float64 and float16 are summed by ``bincount`` in float64.
    """
    module = get_array_module(target)
    if module is np:
        np.add.at(target, indices, values)
    elif target.dtype.name not in _ATOMIC_ADD:
        rows = target.reshape(target.shape[0], -1)
        cols = rows.shape[1]
        linear = (indices.reshape(-1, 1) * cols + module.arange(cols)).reshape(-1)
        weights = values.reshape(-1).astype(module.float64)
        sums = module.bincount(linear, weights=weights, minlength=rows.size)
        target += sums.reshape(target.shape).astype(target.dtype)
    elif type(target).__name__ == "GuardArray":
        optional.load("engine.guard").scatter_add(target, indices, values)
    else:
        optional.require("cupyx").scatter_add(target, indices, values)


def available_memory() -> int | None:
    """Bytes the arrays of the current device may still take (None when unknown)."""
    if device() == "gpu":  # free on the device plus what CuPy's pool holds for reuse
        try:
            cupy = xp()
            free, _total = cupy.cuda.runtime.memGetInfo()
            return int(free) + int(cupy.get_default_memory_pool().free_bytes())
        except Exception:  # noqa: BLE001 - no answer means no check, never a failed run
            return None
    return host_memory()


def host_memory() -> int | None:
    """Bytes of host memory still available (None when unknown)."""
    try:
        with open("/proc/meminfo", encoding="ascii") as handle:
            for line in handle:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, ValueError, OSError):
        return None

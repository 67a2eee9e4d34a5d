"""The GPU as users meet it: what ``neurocanvas doctor`` reports, its self-test, and messages for
out-of-memory and CUDA errors that say where and what to do.

Works on CuPy and on the CI's stand-in (:mod:`engine.guard`), which raises look-alike errors.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np

from engine.core import backend

# Exception classes by name, so that nothing here imports CuPy (or the guard) to classify.
_OUT_OF_MEMORY = {"OutOfMemoryError", "GuardOutOfMemoryError"}
_CUDA = {"CUDARuntimeError", "CUDADriverError", "CUBLASError", "CURANDError", "NVRTCError",
         "CompileException", "GuardCUDAError"}  # fmt: skip


class DeviceFailure(RuntimeError):
    """A GPU error with its place named (see :func:`explain`)."""

    def __init__(self, message: str, out_of_memory: bool) -> None:
        super().__init__(message)
        self.out_of_memory = out_of_memory


def is_device_error(exc: BaseException) -> bool:
    """Whether ``exc`` is an out-of-memory or CUDA error of the array backend."""
    return any(t.__name__ in _OUT_OF_MEMORY | _CUDA for t in type(exc).__mro__)


def _is_oom(exc: BaseException) -> bool:
    return any(t.__name__ in _OUT_OF_MEMORY for t in type(exc).__mro__)


def _bytes(n: int) -> str:
    for unit, size in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if n >= size:
            return f"{n / size:.1f} {unit}"
    return f"{n} bytes"


def explain(exc: BaseException, where: str) -> DeviceFailure:
    """A :class:`DeviceFailure` naming ``where`` (a layer, a network) and, for out of memory,
    how much was asked for and how much was in use (read from CuPy's message)."""
    text = str(exc)
    if not _is_oom(exc):
        return DeviceFailure(f"CUDA error in {where}: {text}", out_of_memory=False)
    asked = re.search(r"allocating ([\d,]+) bytes", text)
    used = re.search(r"allocated so far: ([\d,]+) bytes", text)
    detail = ""
    if asked:
        detail = f": it asked for {_bytes(int(asked.group(1).replace(',', '')))}"
        if used and int(used.group(1).replace(",", "")):
            detail += f" with {_bytes(int(used.group(1).replace(',', '')))} already in use"
    return DeviceFailure(f"out of GPU memory in {where}{detail}", out_of_memory=True)


# ------------------------------------------------------------------------------ the report
def describe() -> dict[str, Any]:
    """Name, memory and versions of the selected device (``{}`` on the CPU)."""
    module = backend.xp()
    if module is np:
        return {}
    if module.__class__.__name__ == "GuardModule":
        return {"name": "engine.guard: the CuPy-like CPU backend of the CI (no GPU)"}
    cuda = module.cuda
    props = cuda.runtime.getDeviceProperties(cuda.Device().id)
    free, total = cuda.runtime.memGetInfo()
    name = props["name"]
    return {
        "name": name.decode() if isinstance(name, bytes) else str(name),
        "memory": f"{_bytes(total)} ({_bytes(free)} free)",
        "driver": _cuda_version(cuda.runtime.driverGetVersion()),
        "cuda runtime": _cuda_version(cuda.runtime.runtimeGetVersion()),
        "cupy": module.__version__,
    }


def _cuda_version(v: int) -> str:
    return f"{v // 1000}.{v % 1000 // 10}"

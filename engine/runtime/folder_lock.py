"""A folder that belongs to one process at a time (a quantization sweep's folder).

A job folder is claimed once, by creating its ``status.json`` exclusively; a sweep folder is
used again and again (running the same sweep continues it), so it is held while a process works
in it instead: an operating-system lock on the folder itself (``fcntl.flock`` on the folder;
on Windows, which cannot open a folder, ``msvcrt.locking`` on ``FOLDER/.lock``). The system
releases it when the holder ends, even killed with SIGKILL, so a stale lock never needs
cleaning up, and on Linux and macOS nothing is written for it.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from engine.runtime.job import JobError

__all__ = ["FolderBusy", "hold_folder"]


class FolderBusy(JobError):
    """Another process holds the folder; the message names the folder."""


def _open_and_lock(folder: Path) -> tuple[int, bool]:
    if sys.platform == "win32":
        import msvcrt

        fd = os.open(folder / ".lock", os.O_RDWR | os.O_CREAT, 0o666)
        try:
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
        except OSError:
            return fd, False
        return fd, True
    import fcntl

    fd = os.open(folder, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return fd, False
    return fd, True


@contextmanager
def hold_folder(folder: Path, what: str) -> Iterator[None]:
    """Create ``folder`` if needed and hold it while the block runs; :class:`FolderBusy` (one
    line naming the folder and ``what`` uses it) when another process holds it."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        fd, locked = _open_and_lock(folder)
    except OSError as exc:
        raise JobError(f"{folder}: cannot use the {what} folder ({exc.strerror})") from None
    try:
        if not locked:
            raise FolderBusy(f"{folder}: another {what} is running in this folder; wait for "
                             f"it to end, or give another folder")  # fmt: skip
        yield
    finally:
        os.close(fd)  # releases the lock

"""Atomic file writes: the one writer behind every project, job, checkpoint and export file.

:func:`atomic_output` writes into a temporary file beside the target, flushes it to disk and
renames it over the target, so a reader (or a crash) sees the old file or the new one, never
half of one. Saving keeps what the user set up around the file:

* the file's permission bits (a new file gets ``0666`` less the umask, as ``open`` would,
  not ``mkstemp``'s private ``0600``);
* symbolic links: the link's target is replaced and the link stays a link.

The temporary file is removed when writing fails or is interrupted.
"""

from __future__ import annotations

import contextlib
import errno
import os
import shutil
import stat
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

__all__ = [
    "atomic_output",
    "atomic_write_bytes",
    "atomic_write_text",
    "default_mode",
    "DISK_FULL",
    "describe_write_error",
    "write_error_detail",
]

# A write that failed for want of room: a full disk, a quota, the process's file-size limit.
DISK_FULL = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG})

_umask_lock = threading.Lock()
_umask: int | None = None


def _current_umask() -> int:
    """The process umask (read once: ``os.umask`` can only be read by setting it)."""
    global _umask
    with _umask_lock:
        if _umask is None:
            _umask = os.umask(0o022)
            os.umask(_umask)
        return _umask


def default_mode(directory: bool = False) -> int:
    """The mode ``open``/``mkdir`` would give a new file or folder under the current umask."""
    return (0o777 if directory else 0o666) & ~_current_umask()


@contextlib.contextmanager
def atomic_output(
    path: str | os.PathLike[str], mode: str = "wb", durable: bool = True, **open_args: Any
) -> Iterator[IO[Any]]:
    """A file object whose content replaces ``path`` atomically when the block ends normally.

    ``durable`` also flushes the data to the disk before the rename (a power cut leaves the old
    file or the new one); files rewritten every epoch (status, curve) skip that cost: for them a
    crash of the process is what matters, and the rename alone covers it.
    """
    target = Path(os.path.realpath(path))  # through symlinks: the link itself stays
    try:
        keep = stat.S_IMODE(target.stat().st_mode)
    except FileNotFoundError:
        keep = default_mode()
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, mode, **open_args) as handle:
            yield handle
            handle.flush()
            if durable:
                os.fsync(handle.fileno())
        os.chmod(tmp, keep)
        os.replace(tmp, target)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        if isinstance(exc, OSError) and exc.filename is None:  # numpy, zipfile: no file named
            raise OSError(exc.errno, exc.strerror, os.fspath(path)) from None
        raise


def atomic_write_bytes(path: str | os.PathLike[str], data: bytes) -> None:
    with atomic_output(path, "wb") as handle:
        handle.write(data)


def atomic_write_text(
    path: str | os.PathLike[str], text: str, newline: str = "\n", durable: bool = True
) -> None:
    with atomic_output(path, "w", durable, encoding="utf-8", newline=newline) as handle:
        handle.write(text)


def _mount_point(path: Path) -> Path:
    path = path.absolute()
    while not path.exists() and path != path.parent:
        path = path.parent
    while not os.path.ismount(path) and path != path.parent:
        path = path.parent
    return path


def _size(n: float) -> str:
    for unit in ("bytes", "KB", "MB", "GB"):
        if n < 1000 or unit == "GB":
            return f"{n:.0f} {unit}" if unit == "bytes" else f"{n:.1f} {unit}"
        n /= 1000
    raise AssertionError("unreachable")


def write_error_detail(exc: OSError, path: str | os.PathLike[str] | None = None) -> str:
    """Why a write failed, for a message that names the file: the reason and, when the disk is
    full (or a quota or the file-size limit is reached), the disk (its mount point) and the
    room left on it."""
    name = os.fspath(path) if path is not None else exc.filename
    text = f"cannot write: {exc.strerror or exc}"
    if exc.errno == errno.EFBIG:
        return text + " (the file-size limit of this process, ulimit -f)"
    if exc.errno in DISK_FULL and name:
        disk = _mount_point(Path(name))
        try:
            free = f" has {_size(shutil.disk_usage(disk).free)} free"
        except OSError:
            free = ""
        text += f" (the disk mounted at {disk}{free}; make room there and run it again)"
    return text


def describe_write_error(exc: OSError, path: str | os.PathLike[str] | None = None) -> str:
    """One line for a write that failed: the file and :func:`write_error_detail`."""
    name = os.fspath(path) if path is not None else exc.filename
    detail = write_error_detail(exc, name)
    return f"{name}: {detail}" if name else detail

"""Whether numba's cache lacks the training step's kernels, told from file names alone, before
numba is imported (about half a second), so that a fresh machine's compile-ahead child starts
with the training process instead of after its numba set-up (engine/warmup/ahead.py).

numba keeps a kernel's cache index in a file named after the source file, the function's
qualified name, its first line and the Python version (``_direct_conv_cpu.conv-54.py311.nbi``),
in the folder given by ``NUMBA_CACHE_DIR``, else in ``__pycache__`` beside the source, else in
the user's cache folder (numba.core.caching's locators). A missing index means a cold cache.
This is a guess that only decides when the child starts: once numba is set up, ahead.py reads
each index through numba itself (:func:`engine.warmup.ahead._cached`) and stops a child that
finds the kernels cached after all (tests check these names against numba's own).
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import sys
from pathlib import Path

ENGINE = Path(__file__).resolve().parents[1]

# (source file under engine/, numba's name for the kernel's cache files before "-<line>"): the
# kernels of the default project's first step (engine/warmup/ahead.py's and the convolution).
INDEXES: tuple[tuple[str, str], ...] = (
    ("core/ops/_direct_conv_cpu.py", "_direct_conv_cpu.conv"),
    ("core/ops/_direct_conv_cpu.py", "_direct_conv_cpu.wgrad"),
    ("nn/_adam_cpu.py", "_adam_cpu._build.locals.adam"),
    ("core/ops/_pooling_cpu.py", "_pooling_cpu._build.locals.forward"),
    ("core/ops/_pooling_cpu.py", "_pooling_cpu._build.locals.backward"),
    ("core/ops/_elementwise_cpu.py", "_elementwise_cpu._build.locals.relu"),
    ("core/ops/_elementwise_cpu.py", "_elementwise_cpu._build.locals.relu_grad"),
    ("core/ops/_direct_conv_cpu.py", "_direct_conv_cpu.pad"),
    ("core/ops/_direct_conv_cpu.py", "_direct_conv_cpu.pack"),
)


def _subpath(source: Path) -> str:
    """numba's folder name for a source file's folder inside a cache root."""
    folder = os.path.dirname(os.path.abspath(source))
    return "_".join([os.path.split(folder)[-1], hashlib.sha1(folder.encode()).hexdigest()])


def _user_cache() -> Path | None:
    """numba's user-wide cache root (appdirs' user cache folder of "numba")."""
    if sys.platform.startswith("linux"):
        return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "numba"
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Caches" / "numba"
    return None


def folders(source: Path) -> list[Path]:
    """Where numba may keep the cache files of kernels defined in ``source``."""
    chosen = os.environ.get("NUMBA_CACHE_DIR")
    if chosen:
        return [Path(chosen) / _subpath(source)]
    found = [source.parent / "__pycache__"]
    user = _user_cache()
    if user is not None:
        found.append(user / _subpath(source))
    return found


def index_pattern(base: str) -> str:
    """The glob of a kernel's index file name (any first line)."""
    major, minor = sys.version_info[:2]
    return f"{base}-*.py{major}{minor}{getattr(sys, 'abiflags', '')}.nbi"


def looks_cold() -> bool:
    """Whether numba is installed and any of :data:`INDEXES` has no index file where numba
    would look."""
    if importlib.util.find_spec("numba") is None:
        return False
    try:
        for relative, base in INDEXES:
            source = ENGINE / relative
            pattern = index_pattern(base)
            if not any(next(folder.glob(pattern), None) for folder in folders(source)):
                return True
    except OSError:  # an unreadable folder: left to numba's own reading
        return False
    return False

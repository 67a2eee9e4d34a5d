"""A training step's kernels compiled in a second process on a fresh machine.

On a machine whose numba cache is empty, ``neurocanvas train`` used to compile every kernel of
its first step one after the other (ten compilations, 5 s of CPU for the default project)
before its first iteration. Now, when numba's cache folders lack the step's kernels' index
files (:mod:`.cache_files`, read without numba), a child process (``python -m
engine.warmup.ahead``) starts with the training process and compiles into numba's cache, on
the other core, the weight gradient and Adam (the first step's backward pass and update need
them) and then the kernels that only move data (:data:`KERNELS`). Meanwhile the training
process compiles only the convolution, on this module's thread while its main thread reads
the project and data, and runs exact NumPy stand-ins of the data-movement kernels
(engine/core/ops/_standins.py: padding, weight packing, ReLU both ways, max pooling) until the
child has written each (``_jit.PENDING``, :func:`_pending`); then numba loads it. When this
process reaches the weight gradient or Adam before the child has written it, numba's cache
loader waits for it (``_jit.AWAIT_CACHED``, :func:`_await_cached`): the same machine code as a
compilation here (numba compiles the same source with the same signature and options; it is
what every later run loads anyway), and the stand-ins write the kernels' bytes, so a fresh
machine's run trains to the numbers of a warm one.

Once numba is set up (``_jit.preload``'s thread) each kernel's cache index is read through
numba itself: the kernels found cached are not waited for, and a child started on a wrong
guess (every kernel cached after all) is stopped; a cold cache the file names missed starts
the child then. Nothing starts when the cache holds the kernels (a warm machine: a few file
names listed, then one index read per kernel), when kernels cannot be cached (no writable
cache folder), when numba is missing or the compiled paths are off, on one CPU, or with
``NEUROCANVAS_COMPILE_AHEAD=0`` (then this process compiles every kernel itself, as before).
The machine's load does not matter any more: with the stand-ins the child takes eight of the
nine compilations off the first step's path, which also pays on a busy machine
(docs/benchmarks.md section 2). A child that fails or compiles a signature this process does
not use costs time, never results: numba then compiles here as before.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from collections.abc import Callable
from typing import IO, Any

from engine.core import optional
from engine.core.ops import _jit
from engine.warmup import cache_files

# (module, kernel) in the order the child compiles them: first the weight gradient and Adam,
# which the first step's backward pass and update need (arithmetic: only the kernel gives its
# bytes), then the kernels that only move data, which this process runs meanwhile as NumPy
# stand-ins (engine/core/ops/_standins.py) and loads once they are cached. This process
# compiles the convolution itself: its first step needs it first, before the child could
# have set numba up (signatures in :func:`_signatures`).
KERNELS: tuple[tuple[str, str], ...] = (
    ("engine.core.ops._direct_conv", "wgrad"),
    ("engine.nn._adam_cpu", "adam"),
    ("engine.core.ops._pooling_cpu", "forward"),
    ("engine.core.ops._pooling_cpu", "backward"),
    ("engine.core.ops._elementwise_cpu", "relu"),
    ("engine.core.ops._elementwise_cpu", "relu_grad"),
    ("engine.core.ops._direct_conv", "pad"),
    ("engine.core.ops._direct_conv", "pack"),
)
OWN = (("engine.core.ops._direct_conv", "conv"),)  # compiled by this process, on the thread
SWITCH = "NEUROCANVAS_COMPILE_AHEAD"  # "0": never (this process compiles every kernel)

WAIT_LIMIT = 120.0  # seconds without the awaited kernel before this process compiles it itself

_child: dict[str, Any] = {}  # "started", "process", "expected" (names), "done" (names written)
_lock = threading.Lock()
_written = threading.Condition(_lock)  # a name written by the child, or its output's end


def start() -> None:
    """Start, on a thread, the check for a cold cache and then the child process (see the
    module's docstring); returns at once."""
    with _lock:
        if "started" in _child:  # once per process
            return
        _child["started"] = True
    if os.environ.get(SWITCH, "") != "0" and _jit.ENABLED and _cpus() > 1:
        threading.Thread(target=_ahead, name="compile ahead", daemon=True).start()


def _cpus() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # macOS, Windows
        return os.cpu_count() or 1


def dispatchers() -> dict[str, Any] | None:
    """The :data:`KERNELS` by ``module.qualname`` of their Python function, None without
    numba (importing the kernels' modules compiles nothing)."""
    found = {}
    for module, name in KERNELS:
        kernels = optional.load(module)._compile()
        if kernels is None:
            return None
        kernel = kernels[name]
        found[_name(kernel.py_func)] = kernel
    return found


def _name(py_func: Callable[..., Any]) -> str:
    return f"{py_func.__module__}.{py_func.__qualname__}"


def _cached(kernel: Any) -> bool | None:
    """Whether numba's cache index of ``kernel`` lists any machine code; None when the kernel
    is not cached on disk at all (or numba's internals have changed)."""
    try:
        index = kernel._cache._cache_file._load_index
    except AttributeError:
        return None
    return bool(index())


def _ahead() -> None:
    """The compile-ahead thread: start the child at once when numba's cache folders lack the
    step's kernels' index files (:func:`cache_files.looks_cold`, no numba needed), then, numba
    set up, read each kernel's index through numba: the kernels not cached are the ones the
    child is waited for (none: a child started on the guess is stopped; a cold cache the guess
    missed: the child starts now). Then compile this process's own kernel (the convolution)
    here, while the main thread reads its project and data."""
    early = cache_files.looks_cold() and _spawn(None)
    cold: set[str] = set()
    try:
        kernels = dispatchers()
        state = {} if kernels is None else {name: _cached(k) for name, k in kernels.items()}
        if None not in state.values():
            cold = {name for name, cached in state.items() if not cached}
    finally:  # whatever happened, the callers waiting for the check are told
        if early:
            _settle(cold)
    if cold and not early:
        _spawn(cold)
    if cold:
        _compile_own()


def _spawn(names: set[str] | None) -> bool:
    """Start the child and :func:`watch` it; ``names`` None: told later (:func:`_settle`)."""
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1")
    try:
        process = subprocess.Popen(
            [sys.executable, "-m", "engine.warmup.ahead"],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            stdin=subprocess.DEVNULL,
            text=True,
            env=env,
        )
    except OSError:
        return False
    watch(process, names)
    return True


def _settle(names: set[str]) -> None:
    """The kernels a child started on the guess is waited for; none: it is stopped."""
    with _written:
        _child["expected"] = set(names)
        _child["checked"].set()
        _written.notify_all()
    if not names:
        _child["process"].kill()


def _compile_own() -> None:
    """Compile (or load) this process's share of a fresh cache's kernels (:data:`OWN`)."""
    numba = _jit.numba()
    if numba is None:
        return
    signatures = _signatures(numba)
    for module, short in OWN:
        kernels = optional.load(module)._compile()
        try:
            for signature in signatures[short]:
                kernels[short].compile(signature)
        except Exception:  # noqa: BLE001 - the main thread's own call compiles it and says why
            return


def watch(process: subprocess.Popen, names: set[str] | None) -> None:
    """Read the names ``process`` writes (on a thread), let numba's cache loader wait for
    ``names`` (:func:`_await_cached`) and the callers with NumPy stand-ins use those while the
    child compiles them (:func:`_pending`); ``names`` None: told by :func:`_settle`, waited
    for until then."""
    checked = threading.Event()
    if names is not None:
        checked.set()
    with _lock:
        _child.update(process=process, expected=set(names or ()), done=set(), ended=False)
        _child["checked"] = checked
    threading.Thread(
        target=_read, args=(process.stdout,), name="compiled ahead", daemon=True
    ).start()
    if _await_cached not in _jit.AWAIT_CACHED:
        _jit.AWAIT_CACHED.append(_await_cached)
    if _pending not in _jit.PENDING:
        _jit.PENDING.append(_pending)


def _read(out: IO[str]) -> None:
    for line in out:
        with _written:
            _child["done"].add(line.strip())
            _written.notify_all()
    with _written:
        _child["ended"] = True
        _written.notify_all()
        if _pending in _jit.PENDING:  # nothing is pending any more: no check per call
            _jit.PENDING.remove(_pending)


def _pending(py_func: Callable[..., Any]) -> bool:
    """Whether the child is still compiling ``py_func`` (it will write it into the cache):
    the caller runs its NumPy stand-in meanwhile (``_jit.usable``)."""
    _child["checked"].wait(WAIT_LIMIT)
    name = _name(py_func)
    return name in _child["expected"] and name not in _child["done"] and not _child["ended"]


def _await_cached(py_func: Callable[..., Any]) -> bool:
    """Wait until the child has compiled ``py_func`` (it writes each kernel's name when its
    code is in the cache), True; False at once for a kernel it does not compile, and when the
    child ends without it or takes longer than :data:`WAIT_LIMIT` (then no longer waited for:
    numba compiles here)."""
    if "checked" in _child:
        _child["checked"].wait(WAIT_LIMIT)
    name = _name(py_func)
    with _written:
        if name not in _child.get("expected", ()):
            return False
        _written.wait_for(lambda: name in _child["done"] or _child["ended"], WAIT_LIMIT)
        if name in _child["done"]:
            return True
        _child["expected"] = set()
        return False


def _signatures(numba: Any) -> dict[str, list[tuple[Any, ...]]]:
    """The argument types the training step calls each of :data:`KERNELS` with (float32)."""
    types = numba.types
    f1 = types.Array(types.float32, 1, "C")
    f4 = types.Array(types.float32, 4, "C")
    image = types.Array(types.float32, 4, "A")  # the input batch: a transposed NCHW view
    i4 = types.Array(types.int32, 4, "C")
    taps = types.Array(types.int64, 1, "C", readonly=True)  # cached offset tables
    i, f = types.int64, types.float32
    return {
        "forward": [(f4, i, i, i, i, i, i, f4, i4)],
        "backward": [(f4, i4, i, i, i, i, i, i, f4)],
        "wgrad": [(f1, f1, taps, taps, i, i, i, f1, i, i)],
        "adam": [(f1, f1, f1, f1, f, f, f, f, f, f)],
        "relu": [(f1, f1, i, i)],
        "relu_grad": [(f1, f1, f1, i, i)],
        "pad": [(image, f4, i, i, i, i), (f4, f4, i, i, i, i)],
        "pack": [(f1, taps, i, i, f1)],
        "conv": [(f1, f1, taps, taps, i, i, i, f1, taps, i, i)],
    }


def main() -> None:
    """The child: compile (or find cached) each kernel, writing its name when done. Anything
    else printed (numba's NUMBA_DEBUG_CACHE reports) goes nowhere: once the training process
    has ended, a print to its pipe would fail inside numba and end the child."""
    out, sys.stdout = sys.stdout, open(os.devnull, "w")  # noqa: SIM115 - the child's lifetime
    numba = _jit.numba()
    kernels = dispatchers()
    if numba is None or kernels is None:
        return
    signatures = _signatures(numba)
    for (_, short), (name, kernel) in zip(KERNELS, kernels.items(), strict=True):
        for signature in signatures[short]:
            kernel.compile(signature)
        try:
            print(name, file=out, flush=True)
        except OSError:  # the training process has ended: fill the cache for the next one
            pass


if __name__ == "__main__":
    main()

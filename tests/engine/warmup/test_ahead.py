"""A fresh machine's first training run compiles the step's kernels in a second process
(engine/warmup/ahead.py, issue 33's cold start): this process compiles only the convolution,
runs NumPy stand-ins for the data-movement kernels meanwhile and loads the rest from numba's
cache once the child has written them, with the same results as a run on a warm cache."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
import zipfile
from fnmatch import fnmatch
from pathlib import Path

import numpy as np
import pytest

from engine.core import optional
from engine.core.ops import _jit
from engine.warmup import ahead, cache_files

ahead_module = ahead  # _train's argument of that name hides it

ROOT = Path(__file__).resolve().parents[3]
PROJECT = ROOT / "projects" / "lenet_digits.ncproj"
CHILD_KERNELS = {"forward", "backward", "wgrad", "adam", "relu", "relu_grad", "pad", "pack"}


def _train(
    tmp_path: Path, name: str, *, ahead: bool, seed: str = "3", cache: str = ""
) -> tuple[str, Path]:
    """``neurocanvas train`` of the default project for one epoch with an empty numba cache
    (or run ``cache``'s; numba reporting its cache's loads and saves on stdout): the stdout
    and the job folder."""
    job, cache = tmp_path / f"job-{name}", tmp_path / f"cache-{cache or name}"
    env = dict(os.environ, PYTHONPATH=str(ROOT), NUMBA_CACHE_DIR=str(cache),
               NUMBA_DEBUG_CACHE="1", NEUROCANVAS_COMPILE_AHEAD="0")  # fmt: skip
    if ahead:  # the default, whatever the machine's load
        del env[ahead_module.SWITCH]
    done = subprocess.run(
        [sys.executable, "-m", "engine.cli", "train", str(PROJECT), "-o", str(job),
         "--epochs", "1", "--seed", seed, "--events"],
        capture_output=True, text=True, env=env, timeout=900, cwd=ROOT,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout, job


def _kernels(stdout: str, action: str) -> list[str]:
    """The kernels whose machine code this process wrote to numba's cache (``action`` "saved")
    or read from it ("loaded"), by name (``..._pooling_cpu._build.locals.forward-33.py311.1.nbc``
    -> ``forward``), in order."""
    pattern = rf"\[cache\] data {action} (?:to|from) '[^']*?([A-Za-z_]+)-\d+\.py\d+\.\d+\.nbc'"
    return re.findall(pattern, stdout)


def _results(job: Path) -> dict[str, bytes]:
    """What a run leaves that its numbers decide: the exported parameters, the last
    checkpoint's parameters and solver state (read with NumPy), the learning curve."""
    found = {"learning_curve.csv": (job / "learning_curve.csv").read_bytes()}
    with zipfile.ZipFile(job / "results.nnp") as nnp:
        found["parameter.protobuf"] = nnp.read("parameter.protobuf")
    for name in ("parameters.npz", "solver_0.npz"):
        with np.load(job / "checkpoints" / "last" / name) as arrays:
            for key in arrays.files:
                found[f"{name}:{key}"] = arrays[key].tobytes()
    return found


def test_a_fresh_run_compiles_only_the_convolution_with_a_warm_runs_results(tmp_path):
    """With the second process this one compiles only the convolution: it runs the NumPy
    stand-ins of padding, packing, ReLU and max pooling until the child has compiled them,
    and loads the weight gradient and Adam from the child (before: it compiled pad, pack,
    conv and ReLU both ways itself). Without the child (NEUROCANVAS_COMPILE_AHEAD=0) it
    compiles all nine itself and loads none, as before. Both fresh runs end with the
    parameters, solver state and learning curve of a run on a warm cache, byte for byte."""
    pytest.importorskip("numba", reason="numba not installed")
    if len(os.sched_getaffinity(0)) < 2:
        pytest.skip("one CPU: no second process")
    ahead_out, ahead_job = _train(tmp_path, "ahead", ahead=True)
    alone_out, alone_job = _train(tmp_path, "alone", ahead=False)
    warm_out, warm_job = _train(tmp_path, "warm", ahead=True, cache="alone")
    assert set(_kernels(alone_out, "saved")) == CHILD_KERNELS | {"conv"}
    assert _kernels(alone_out, "loaded") == []
    assert _kernels(ahead_out, "saved") == ["conv"]
    assert {"wgrad", "adam"} <= set(_kernels(ahead_out, "loaded"))
    assert _kernels(warm_out, "saved") == []  # a warm cache: no compilation, no child
    events = [json.loads(line) for line in ahead_out.splitlines() if line.startswith("{")]
    assert any(e.get("event") == "iteration" for e in events)
    warm = _results(warm_job)
    assert len(warm) > 10
    assert _results(ahead_job) == warm
    assert _results(alone_job) == warm
    # The child's cache files hold one signature per kernel (pad: the input image's layout
    # and the contiguous one): the ones this process called.
    files = {k: [] for k in CHILD_KERNELS}
    for _ in range(600):  # the child goes on after this process has ended: wait for it
        files = {k: sorted((tmp_path / "cache-ahead").rglob(f"*.{k}-*.nbc")) for k in files}
        if all(len(f) == (2 if k == "pad" else 1) for k, f in files.items()):
            break
        time.sleep(0.5)
    assert all(len(f) == (2 if k == "pad" else 1) for k, f in files.items()), files


STARTS = """
import sys, threading
from engine.warmup import ahead, cache_files

ahead_module = ahead  # _train's argument of that name hides it
if sys.argv[1:] == ["guess cold"]:  # index files numba would not read (another CPU's, say)
    cache_files.looks_cold = lambda: True
ahead.start()
for thread in threading.enumerate():
    if thread.name == "compile ahead":
        thread.join()
child = ahead._child.get("process")
print("none" if child is None else child.wait(), sorted(ahead._child.get("expected", ())))
"""


def test_a_second_process_starts_only_while_the_cache_lacks_its_kernels(tmp_path, monkeypatch):
    """An empty cache: the child starts at once, told by the missing index files (and
    compiles its eight kernels while this process compiles the convolution); then, the cache
    filled, none starts (a warm machine pays one index read per kernel, and the folder's
    file names before numba is set up). A child started on a wrong guess of a cold cache is
    stopped once numba's own reading finds every kernel cached, and nothing is waited for."""
    pytest.importorskip("numba", reason="numba not installed")
    if len(os.sched_getaffinity(0)) < 2:
        pytest.skip("one CPU: no second process")
    env = dict(os.environ, PYTHONPATH=str(ROOT), NUMBA_CACHE_DIR=str(tmp_path))
    env.pop(ahead.SWITCH, None)
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    assert cache_files.looks_cold()
    runs = [subprocess.run([sys.executable, "-c", STARTS, *guess], capture_output=True,
                           text=True, env=env, timeout=600)
            for guess in ([], [], ["guess cold"])]  # fmt: skip
    assert [r.returncode for r in runs] == [0, 0, 0], "".join(r.stderr for r in runs)
    first, *later = (r.stdout.strip().split(" ", 1) for r in runs)
    assert first[0] == "0" and len(eval(first[1])) == len(CHILD_KERNELS)  # noqa: S307
    assert later == [["none", "[]"], [str(-signal.SIGKILL), "[]"]]  # no child; one stopped
    names = sorted(p.name.split(".")[-3].split("-")[0] for p in tmp_path.rglob("*.nbi"))
    assert names == sorted(CHILD_KERNELS | {"conv"}), names
    assert not cache_files.looks_cold()


def test_the_file_name_guess_names_numbas_own_index_files():
    """engine/warmup/cache_files.py finds the kernels' index files without numba: its names
    and folders are those numba's cache uses for each of the step's kernels."""
    pytest.importorskip("numba", reason="numba not installed")
    kernels = list(ahead.dispatchers().values())
    kernels.append(optional.load("engine.core.ops._direct_conv")._compile()["conv"])
    assert len(kernels) == len(cache_files.INDEXES) == 9
    for relative, base in cache_files.INDEXES:
        pattern = cache_files.index_pattern(base)
        (kernel,) = [k for k in kernels if fnmatch(k._cache._cache_file._index_name, pattern)]
        impl = kernel._cache._cache_file
        source = cache_files.ENGINE / relative
        assert Path(kernel.py_func.__code__.co_filename).resolve() == source
        assert Path(impl._cache_path) in cache_files.folders(source)


@pytest.mark.parametrize("switch, cpus", [("0", 4), ("", 1)])
def test_nothing_starts_when_switched_off_or_on_one_cpu(monkeypatch, switch, cpus):
    """NEUROCANVAS_COMPILE_AHEAD=0, or one CPU: no thread, no child, no stand-ins (the
    process compiles every kernel itself). The machine's load no longer matters (with the
    stand-ins the child paid at load 5-6 too: docs/benchmarks.md section 2)."""
    monkeypatch.setattr(ahead, "_child", {})
    monkeypatch.setattr(ahead, "_cpus", lambda: cpus)
    monkeypatch.setattr(_jit, "PENDING", [])
    monkeypatch.setenv(ahead.SWITCH, switch)
    started = []
    monkeypatch.setattr(threading, "Thread", lambda *a, **k: started.append(k) or None)
    ahead.start()
    assert started == [] and _jit.PENDING == [] and "process" not in ahead._child
    monkeypatch.setattr(ahead, "_cpus", lambda: 2)
    monkeypatch.setattr(ahead, "_child", {})
    monkeypatch.setenv(ahead.SWITCH, "")
    with pytest.raises(AttributeError):  # the thread would start: None.start()
        ahead.start()
    assert [k["name"] for k in started] == ["compile ahead"]


def _kernel() -> None:
    """Stands for a kernel the child compiles (only its name counts)."""


def test_the_child_is_waited_for_until_it_writes_the_kernel_ends_or_the_limit(monkeypatch):
    """A child that writes the kernel's name: waited for (True). One that ends without it, or
    says nothing for WAIT_LIMIT (a hung child: the wait used to block until it ended): not
    (False), and not waited for again; numba then compiles in the training process."""
    monkeypatch.setattr(ahead, "_child", {})
    monkeypatch.setattr(ahead, "WAIT_LIMIT", 0.5)
    monkeypatch.setattr(_jit, "AWAIT_CACHED", [])
    name = f"{_kernel.__module__}.{_kernel.__qualname__}"

    def child(code: str) -> subprocess.Popen:
        return subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)

    talks = child(f"import time; time.sleep(0.2); print('other'); print({name!r})")
    ahead.watch(talks, {name})
    assert _jit.AWAIT_CACHED == [ahead._await_cached]
    assert ahead._await_cached(_kernel) is True
    assert ahead._await_cached(test_nothing_starts_when_switched_off_or_on_one_cpu) is False
    talks.wait()
    for code in ("print('other')", "import time; time.sleep(600)"):
        silent = child(code)
        try:
            ahead.watch(silent, {name})
            assert ahead._await_cached(_kernel) is False
            assert ahead._child["expected"] == set()  # no longer waited for
        finally:
            silent.kill()
            silent.wait()


def test_kernels_are_built_once_when_two_threads_ask_at_once():
    """The compile-ahead thread looks the kernels up while the training thread may: one build,
    the same dispatchers for both (two builds gave two, each loading or compiling again)."""
    pytest.importorskip("numba", reason="numba not installed")
    builds = []

    def build(numba):
        builds.append(numba)
        time.sleep(0.2)  # the other thread asks meanwhile
        return {"kernel": object()}

    get = _jit.kernels(build)
    seen = []
    threads = [threading.Thread(target=lambda: seen.append(get()["kernel"])) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(builds) == 1
    assert seen[0] is seen[1]


def test_stand_ins_run_from_the_check_until_the_child_has_written_the_kernel(monkeypatch):
    """A child started on the file-name guess: a caller asking whether to use its NumPy
    stand-in waits for numba's own check (_settle), then uses it until the child writes the
    kernel's name; once the child has ended nothing is asked any more (no cost per call)."""
    monkeypatch.setattr(ahead, "_child", {})
    monkeypatch.setattr(_jit, "PENDING", [])
    monkeypatch.setattr(_jit, "AWAIT_CACHED", [])
    name = f"{_kernel.__module__}.{_kernel.__qualname__}"
    code = f"import sys; sys.stdin.readline(); print({name!r}, flush=True); sys.stdin.readline()"
    child = subprocess.Popen(
        [sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    try:
        ahead.watch(child, None)
        assert _jit.PENDING == [ahead._pending]
        answers = []
        asking = threading.Thread(target=lambda: answers.append(ahead._pending(_kernel)))
        asking.start()
        asking.join(0.5)
        assert asking.is_alive() and answers == []  # waits for the check
        ahead._settle({name})
        asking.join(10)
        assert answers == [True]
        child.stdin.write("compiled\n")
        child.stdin.flush()
        for _ in range(200):
            if not ahead._pending(_kernel):
                break
            time.sleep(0.05)
        assert ahead._pending(_kernel) is False
        assert _jit.PENDING == [ahead._pending]
        child.stdin.write("end\n")
        child.stdin.flush()
        child.wait(10)
        for _ in range(200):
            if not _jit.PENDING:
                break
            time.sleep(0.05)
        assert _jit.PENDING == []
    finally:
        child.kill()
        child.wait()

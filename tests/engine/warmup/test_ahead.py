"""A fresh machine's first training run compiles the step's later kernels in a second process
(engine/warmup/ahead.py, issue 33's cold start): this process compiles only its first kernels
and loads the rest from numba's cache once the child has written them, with the same results."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import threading
import time
import zipfile
from pathlib import Path

import pytest

from engine.core.ops import _jit
from engine.warmup import ahead

ROOT = Path(__file__).resolve().parents[3]
PROJECT = ROOT / "projects" / "lenet_digits.ncproj"
CHILD_KERNELS = {"forward", "backward", "wgrad", "adam"}  # engine.warmup.ahead


def _train(tmp_path: Path, name: str, *, ahead: bool, seed: str = "3") -> tuple[str, Path]:
    """``neurocanvas train`` of the default project for one epoch with an empty numba cache
    (numba reporting its cache's loads and saves on stdout): the stdout and the job folder."""
    job, cache = tmp_path / f"job-{name}", tmp_path / f"cache-{name}"
    env = dict(os.environ, PYTHONPATH=str(ROOT), NUMBA_CACHE_DIR=str(cache),
               NUMBA_DEBUG_CACHE="1", NEUROCANVAS_COMPILE_AHEAD="1" if ahead else "0")  # fmt: skip
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


def _parameters(job: Path) -> bytes:
    with zipfile.ZipFile(job / "results.nnp") as nnp:
        return nnp.read("parameter.protobuf")


def test_a_fresh_run_leaves_the_later_kernels_to_a_second_process_with_the_same_parameters(
    tmp_path,
):
    """With the second process this one compiles only the kernels of the forward pass's start
    and the ReLU gradient, and loads the other four from the cache (before: it compiled all of
    them itself); both ways train to the same parameters, byte for byte."""
    pytest.importorskip("numba", reason="numba not installed")
    if len(os.sched_getaffinity(0)) < 2:
        pytest.skip("one CPU: no second process")
    ahead_out, ahead_job = _train(tmp_path, "ahead", ahead=True)
    alone_out, alone_job = _train(tmp_path, "alone", ahead=False)
    assert CHILD_KERNELS <= set(_kernels(alone_out, "saved"))  # without it: all compiled here
    saved, loaded = set(_kernels(ahead_out, "saved")), set(_kernels(ahead_out, "loaded"))
    assert saved == {"pad", "pack", "conv", "relu", "relu_grad"}, saved
    assert CHILD_KERNELS <= loaded, loaded
    events = [json.loads(line) for line in ahead_out.splitlines() if line.startswith("{")]
    assert any(e.get("event") == "iteration" for e in events)
    assert _parameters(ahead_job) == _parameters(alone_job)
    # The child's cache files hold one signature per kernel: the ones this process called.
    for kernel in CHILD_KERNELS:
        files = sorted(p.name for p in (tmp_path / "cache-ahead").rglob(f"*.{kernel}-*.nbc"))
        assert len(files) == 1, files


STARTS = """
import threading
from engine.warmup import ahead
ahead.start()
for thread in threading.enumerate():
    if thread.name == "compile ahead":
        thread.join()
child = ahead._child.get("process")
print(child is not None and child.wait() == 0)
"""


def test_a_second_process_starts_only_while_the_cache_lacks_its_kernels(tmp_path):
    """An empty cache: the child starts (and compiles its four kernels); then, the cache
    filled, none starts (a warm machine pays one index read per kernel)."""
    pytest.importorskip("numba", reason="numba not installed")
    if len(os.sched_getaffinity(0)) < 2:
        pytest.skip("one CPU: no second process")
    env = dict(os.environ, PYTHONPATH=str(ROOT), NUMBA_CACHE_DIR=str(tmp_path),
               NEUROCANVAS_COMPILE_AHEAD="1")  # fmt: skip
    runs = [subprocess.run([sys.executable, "-c", STARTS], capture_output=True, text=True,
                           env=env, timeout=600) for _ in range(2)]  # fmt: skip
    assert [r.returncode for r in runs] == [0, 0], runs[0].stderr + runs[1].stderr
    assert [r.stdout.strip() for r in runs] == ["True", "False"]
    names = sorted(p.name.split(".")[-4].split("-")[0] for p in tmp_path.rglob("*.nbc"))
    assert names == sorted(CHILD_KERNELS), names


def test_the_second_process_starts_only_with_a_core_to_spare():
    """At load 7-10 on two cores the child made the first iteration later (1.3x): it starts
    when the last minute's load average is under the CPU count or half a core is idle now (a
    benchmark's own runs raise the load average), or when forced; never on one CPU."""
    assert ahead.spare_core(1.2, 0.0, 2) and ahead.spare_core(None, None, 2)
    assert ahead.spare_core(2.6, 0.9, 2)  # this program's earlier runs in the load average
    assert not ahead.spare_core(2.0, 0.3, 2) and not ahead.spare_core(7.4, 0.0, 2)
    assert ahead.spare_core(7.4, 0.0, 2, forced=True)
    assert not ahead.spare_core(0.0, 2.0, 1) and not ahead.spare_core(0.0, 1.0, 1, forced=True)
    idle = ahead._idle_cores(0.05)
    assert idle is None or 0.0 <= idle <= (os.cpu_count() or 1)


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
    assert ahead._await_cached(test_the_second_process_starts_only_with_a_core_to_spare) is False
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

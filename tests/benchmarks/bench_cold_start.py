"""Benchmark: how long ``neurocanvas train`` of the default project takes to its first iteration.

Each run is a fresh process: ``python -m engine.cli train projects/lenet_digits.ncproj
--epochs 1 --events``, timed from just before the process is started to the line of its first
``iteration`` event (written after the first training step). Runs alternate between the
source trees given (``--tree``, default this one), so a before/after pair shares the
machine's moments. Bytecode is written and read as a user's install does
(PYTHONDONTWRITEBYTECODE is removed from the children's environment).

* warm (default): numba's cache of compiled kernels and the built-in dataset exist; one
  unmeasured run per tree first fills them.
* ``--fresh``: every run gets an empty numba cache folder (NUMBA_CACHE_DIR): the first run on
  a fresh machine, which compiles the kernels it uses.

With each time the CPU seconds the process and the processes it started (numba's second
process on a fresh machine, ``engine/warmup/ahead.py``) had used by then (Linux ``/proc``),
figures that a loaded machine changes less than the time.

    python tests/benchmarks/bench_cold_start.py [--runs 7] [--fresh] [--tree DIR ...]

Times are reported, never asserted.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def cpu_seconds(pid: int) -> tuple[float, float]:
    """CPU seconds (user + system) of process ``pid`` and of its children alive now; NaN where
    ``/proc`` does not tell."""
    tick = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100

    def used(p: int) -> float:
        fields = Path(f"/proc/{p}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / tick  # utime, stime

    try:
        children = [
            int(c)
            for task in Path(f"/proc/{pid}/task").iterdir()
            for c in (task / "children").read_text().split()
        ]
        return used(pid), sum(used(c) for c in children)
    except (OSError, ValueError, IndexError):
        return float("nan"), float("nan")


def first_iteration(
    tree: Path, folder: Path, cache: Path | None, extra: dict[str, str] | None = None
) -> tuple[float, float, float]:
    """Seconds from process start to the first iteration event (the run is then stopped), and
    the CPU seconds of the process and of its children then; ``extra``: environment variables
    for the run."""
    env = dict(os.environ, PYTHONPATH=str(tree), **(extra or {}))
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    if cache is not None:
        env["NUMBA_CACHE_DIR"] = str(cache)
    command = [sys.executable, "-m", "engine.cli", "train",
               str(tree / "projects" / "lenet_digits.ncproj"), "-o", str(folder), "--epochs",
               "1", "--seed", "0", "--events"]  # fmt: skip
    start = time.perf_counter()
    child = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                             text=True, env=env, cwd=tree)  # fmt: skip
    try:
        for line in child.stdout:
            if line.startswith("{") and json.loads(line).get("event") == "iteration":
                return time.perf_counter() - start, *cpu_seconds(child.pid)
        raise RuntimeError(f"{tree}: no iteration event (exit {child.wait()})")
    finally:
        child.kill()
        child.wait()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--fresh", action="store_true", help="an empty numba cache every run")
    parser.add_argument(
        "--tree",
        action="append",
        help="source tree (repeatable), optionally with environment variables for its runs: "
        "DIR,NAME=VALUE,... (the same tree twice: NEUROCANVAS_COMPILE_AHEAD=0 against =1)",
    )
    args = parser.parse_args()
    trees = args.tree or [str(ROOT)]
    times: dict[str, list[tuple[float, float, float]]] = {t: [] for t in trees}
    where = {t: Path(t.split(",")[0]).resolve() for t in trees}
    extra = {t: dict(v.split("=", 1) for v in t.split(",")[1:]) for t in trees}
    with tempfile.TemporaryDirectory(prefix="bench-cold-") as tmp:
        work = Path(tmp)
        for tree in trees:  # fill bytecode, numba's cache and the dataset once
            first_iteration(where[tree], work / f"warm-{trees.index(tree)}", None, extra[tree])
        for run in range(args.runs):
            for k, tree in enumerate(trees):
                cache = Path(tempfile.mkdtemp(dir=work)) if args.fresh else None
                folder = work / f"job-{run}-{k}"
                times[tree].append(first_iteration(where[tree], folder, cache, extra[tree]))
    load = os.getloadavg()[0]
    mode = "fresh numba cache" if args.fresh else "warm"
    for tree, runs in times.items():
        values = [run[0] for run in runs]
        print(
            f"{tree}: {mode}, process start -> first iteration: median "
            f"{statistics.median(values):.3f} s (runs {', '.join(f'{v:.2f}' for v in values)}); "
            f"CPU s then, process + its children: "
            f"{', '.join(f'{run[1]:.2f} + {run[2]:.2f}' for run in runs)}"
        )
    print(f"load average at the end {load:.2f}")


if __name__ == "__main__":
    main()

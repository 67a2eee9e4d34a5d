"""Benchmark: the default thread count against one and two threads (issue 33: "the default
never loses"), on a quiet machine and beside a busy process.

For each condition (``quiet``; ``busy``: beside a CPU burner this script starts, a child process
spinning on one core for at most ``--burn-s`` seconds, killed at the end and on any error), in
alternating rounds (the order of the three rotates every round), each of

* ``neurocanvas train`` of the default project (projects/lenet_digits.ncproj, ``--epochs``,
  seed 0) with the default settings, ``--threads 1`` and ``--threads 2``;
* ``neurocanvas evaluate`` of a job of that project (its validation set, 297 PNG images) the same
  three ways.

Reported per condition: the median seconds of each, and the median over rounds of
default / min(one thread, two threads) for the training time (the job's ``elapsed``: epochs and
monitors, no process start), the whole ``train`` process and the whole ``evaluate`` process
(``default/best``), and the same of the medians (``medians``). On a loaded machine the first
is biased upwards (the smaller of two noisy times against one noisy time): read both. Goal: at
most 1.05 everywhere, on a quiet machine. The "2 threads" column is the default before issue
33's choice (NumPy's OpenBLAS on every core).

    python tests/benchmarks/bench_threads.py [--rounds 5] [--epochs 1] [--only quiet|busy]
    python tests/benchmarks/bench_threads.py --parts [--rounds 5] [--epochs 1] [--only ...]

``--parts`` says what each part of the choice buys, in one process (``train()``, the job's
``elapsed``): the default (timing, and no two-thread unit while the other processes keep the
cores busy), timing alone (the idle-core look switched off), one thread, two threads.

Run it from the repository root (PYTHONPATH is set for the children). Timings are reported,
never asserted; ``uptime`` is printed before and after (the load the figures were taken at).
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
PROJECT = ROOT / "projects" / "lenet_digits.ncproj"
# The plain default is the timed choice (engine/core/threads.py; session 12, once products
# summed alike on any count); "2 threads" is the default before it on two cores.
CONFIGS = {"default": [], "1 thread": ["--threads", "1"], "2 threads": ["--threads", "2"]}
BURNER = "import time\nend = time.monotonic() + {s}\nwhile time.monotonic() < end:\n    pass\n"


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("OMP_NUM_THREADS",
           "OPENBLAS_NUM_THREADS", "NEUROCANVAS_THREADS")}  # fmt: skip
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    return env


def _cli(*args: str) -> float:
    """Seconds for ``neurocanvas ARGS`` (a new process, as a user runs it)."""
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "engine.cli", *args], env=_env(), check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
    return time.perf_counter() - start


def train(job: Path, epochs: int, extra: list[str]) -> tuple[float, float]:
    """(training seconds as the job records them, process seconds)."""
    wall = _cli("train", str(PROJECT), "-o", str(job), "--epochs", str(epochs), "--seed", "0",
                *extra)  # fmt: skip
    return json.loads((job / "status.json").read_text())["elapsed"], wall


def _uptime() -> str:
    load = os.getloadavg() if hasattr(os, "getloadavg") else ()
    return "load average " + ", ".join(f"{x:.2f}" for x in load)


def condition(name: str, rounds: int, epochs: int, tmp: Path, evaluated: Path) -> dict:
    times: dict[str, dict[str, list[float]]] = {
        what: {c: [] for c in CONFIGS} for what in ("epoch", "train", "evaluate")
    }
    names = list(CONFIGS)
    for r in range(rounds):
        order = names[r % 3 :] + names[: r % 3]
        for config in order:
            job = tmp / f"{name}_{r}_{names.index(config)}"
            epoch_s, wall = train(job, epochs, CONFIGS[config])
            times["epoch"][config].append(epoch_s)
            times["train"][config].append(wall)
        for config in order:
            times["evaluate"][config].append(_cli("evaluate", str(evaluated), *CONFIGS[config]))
    result: dict = {"condition": name}
    for what, per in times.items():
        ratios = [
            d / min(a, b)
            for d, a, b in zip(per["default"], per["1 thread"], per["2 threads"], strict=True)
        ]
        medians = {c: statistics.median(v) for c, v in per.items()}
        result[what] = {
            **{c: round(v, 3) for c, v in medians.items()},
            "default/best": round(statistics.median(ratios), 3),
            "medians": round(
                medians["default"] / min(medians["1 thread"], medians["2 threads"]), 3
            ),
            "rounds": [round(x, 2) for x in ratios],
        }
    return result


def parts(name: str, rounds: int, epochs: int, tmp: Path) -> dict:
    """In one process: the job's ``elapsed`` for each way of choosing (see the docstring)."""
    import io  # only for --parts

    from engine.core import threads
    from engine.core.ops import _threads
    from engine.runtime.run import Options
    from engine.runtime.run import train as train_in_process

    most, real = _threads.count(), threads.chooser
    ways = {
        "default": real,
        "timing alone": lambda: threads.ThreadChooser(most, spare=lambda: None),
        "1 thread": lambda: (_threads.set_count(1), None)[1],
        "2 threads": lambda: (_threads.set_count(2), None)[1],
    }
    times: dict[str, list[float]] = {w: [] for w in ways}
    names = list(ways)
    try:
        for r in range(rounds + 1):  # round 0 warms up
            for way in names[r % 4 :] + names[: r % 4]:
                _threads.set_count(most)
                threads.chooser = ways[way]
                job = tmp / f"parts_{name}_{r}_{names.index(way)}"
                result = train_in_process(PROJECT, job_dir=job, epochs=epochs, seed=0,
                                          options=Options(events=io.StringIO()))  # fmt: skip
                if r:
                    times[way].append(result.state.elapsed)
    finally:
        threads.chooser = real
        _threads.set_count(most)
    best = [min(a, b) for a, b in zip(times["1 thread"], times["2 threads"], strict=True)]
    return {
        "condition": name,
        **{w: round(statistics.median(v), 3) for w, v in times.items()},
        **{
            f"{w}/best": round(statistics.median([t / b for t, b in zip(v, best, strict=True)]), 3)
            for w, v in times.items()
            if w in ("default", "timing alone")
        },
    }


def main(argv=None) -> list[dict]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--epochs", type=int, default=1)
    parser.add_argument("--only", choices=("quiet", "busy"))
    parser.add_argument("--burn-s", type=float, default=1800.0, help="the burner's limit")
    parser.add_argument("--parts", action="store_true", help="what each part buys, in-process")
    args = parser.parse_args(argv)
    print(f"cpus {os.cpu_count()}; {_uptime()}", flush=True)
    results = []
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        evaluated = tmp / "evaluated"
        if not args.parts:
            train(evaluated, 1, ["--threads", "1"])  # the job evaluate reads; warms the caches
        for name in ("quiet", "busy"):
            if args.only not in (None, name):
                continue
            burner = None
            try:
                if name == "busy":
                    code = BURNER.format(s=args.burn_s)
                    burner = subprocess.Popen([sys.executable, "-c", code])
                    time.sleep(0.5)
                if args.parts:
                    results.append(parts(name, args.rounds, args.epochs, tmp))
                else:
                    results.append(condition(name, args.rounds, args.epochs, tmp, evaluated))
            finally:
                if burner is not None:
                    burner.kill()
                    burner.wait()
            print(json.dumps(results[-1]), flush=True)
    print(_uptime(), flush=True)
    return results


if __name__ == "__main__":
    main()

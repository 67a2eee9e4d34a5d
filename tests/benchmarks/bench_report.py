"""Benchmark: the PowerPoint report of a LeNet digits job (target: under 3 s).

    python tests/benchmarks/bench_report.py [JOB_DIR] [--rounds 5]

Without JOB_DIR it trains projects/lenet_digits.ncproj for 3 epochs on the full built-in digits
dataset (1,500 training and 297 validation images) and evaluates it, in a temporary folder.
Times, as medians over the rounds:
- report: ``write_report`` in this process (read the job, datasets and examples, network
  picture, figures, native charts and tables, write the file);
- cli: ``neurocanvas report JOB -o FILE`` as a user runs it (interpreter start and imports
  included);
- startup: ``neurocanvas report --help`` in the same run, the reference: what the CLI costs
  before it does anything.
The CLI figures come as wall time and CPU time (user + system) of the child process: on a shared
machine the CPU time is the comparable one.
Timings are printed, never asserted.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _median_run(command: list[str], rounds: int) -> tuple[float, float]:
    """Median wall time and median CPU time (user + system) of the child, in seconds.

    CPU time is the figure to compare on a shared, loaded machine: waiting for a core does not
    count in it.
    """
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    walls, cpus = [], []
    for _ in range(rounds):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        subprocess.run(command, check=True, capture_output=True, env=env, cwd=ROOT)
        walls.append(time.perf_counter() - start)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return statistics.median(walls), statistics.median(cpus)


def _train(folder: Path) -> Path:
    from engine.runtime.evaluator import evaluate
    from engine.runtime.run import train

    job = folder / "job"
    train(ROOT / "projects" / "lenet_digits.ncproj", job_dir=job, epochs=3, seed=0)
    evaluate(job)
    return job


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="report timings")
    parser.add_argument("job", nargs="?", type=Path)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args(argv)
    sys.path.insert(0, str(ROOT))
    from engine.report.job_report import write_report

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        job = args.job or _train(folder)
        out = folder / "report.pptx"
        times = []
        for _ in range(args.rounds):
            start = time.perf_counter()
            write_report(job, out)
            times.append(time.perf_counter() - start)
        cli = [sys.executable, "-m", "engine.cli", "report"]
        cli_time = _median_run([*cli, str(job), "-o", str(out)], args.rounds)
        startup = _median_run([*cli, "--help"], args.rounds)
        from pptx import Presentation

        slides, size = len(Presentation(str(out)).slides), out.stat().st_size
    print(f"job {job.name}: {slides} slides, {size / 1e6:.2f} MB")
    print(f"report (in process): median {statistics.median(times):.2f} s, "
          f"min {min(times):.2f} s over {args.rounds} rounds")  # fmt: skip
    print(
        f"neurocanvas report:  median {cli_time[0]:.2f} s wall, {cli_time[1]:.2f} s CPU "
        "(target < 3 s)"
    )
    print(f"startup reference:   median {startup[0]:.2f} s wall, {startup[1]:.2f} s CPU "
          f"(neurocanvas report --help); the report costs {cli_time[1] / startup[1]:.1f}x the "
          "startup in CPU time")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())

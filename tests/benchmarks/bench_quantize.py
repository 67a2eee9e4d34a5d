"""Benchmark: a 6-point PTQ sweep of LeNet on digits (16, 8, 6, 4, 3, 2 bits, weights and
activations), as ``neurocanvas quantize sweep`` runs it.

Times (wall clock, median of rounds, seconds):

* evaluate   ``neurocanvas evaluate`` of the float job (the reference the sweep is divided
             by: one sweep point is an evaluation plus building its job folder)
* sweep      the whole sweep into a fresh folder: calibration, the float reference point and
             six quantized points, each a job folder with its quantized project, parameters,
             output_result.csv, confusion matrix and valid_error monitor, then results.csv
             and sweep.png

``--clock cpu`` measures process CPU time (all threads) instead of wall time, steadier when
other processes share the machine. Without ``--job`` it first trains
``projects/lenet_digits.ncproj`` (seed 0, 20 epochs) into a temporary folder.

    python tests/benchmarks/bench_quantize.py [--job JOB_DIR] [--rounds 3] [--clock cpu]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from engine.quantization.sweep import Sweep, SweepOptions
from engine.runtime.evaluator import evaluate
from engine.runtime.run import train

LENET = Path(__file__).resolve().parents[2] / "projects" / "lenet_digits.ncproj"


_clock = time.perf_counter


def timed(fn) -> float:  # noqa: ANN001
    start = _clock()
    fn()
    return _clock() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--job", type=Path, default=None, help="a trained LeNet digits job")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--clock", choices=("wall", "cpu"), default="wall")
    args = parser.parse_args()
    global _clock
    _clock = time.process_time if args.clock == "cpu" else time.perf_counter
    with tempfile.TemporaryDirectory(prefix="bench-quantize-") as tmp:
        job = args.job
        if job is None:
            job = Path(tmp) / "job"
            train(LENET, job_dir=job, seed=0)
        options = SweepOptions(bits=(16, 8, 6, 4, 3, 2), targets=("both",), mode="ptq")
        sweeps, evaluations, rows = [], [], []
        for k in range(args.rounds):
            evaluations.append(timed(lambda: evaluate(job)))
            sweep = Sweep(LENET, job, Path(tmp) / f"sweep{k}", options)
            sweeps.append(timed(lambda s=sweep: rows.append(s.run())))
        reference, total = statistics.median(evaluations), statistics.median(sweeps)
        print(f"evaluate (reference): {reference:.2f} s   (rounds: "
              f"{', '.join(f'{t:.2f}' for t in evaluations)})")  # fmt: skip
        print(f"6-point PTQ sweep:    {total:.2f} s = {total / reference:.1f} x evaluate   "
              f"(rounds: {', '.join(f'{t:.2f}' for t in sweeps)})")  # fmt: skip
        for row in rows[-1]:
            print(f"  {row['mode']:5} {row['bits']:2d} bits: {100 * row['accuracy']:.2f} %")


if __name__ == "__main__":
    main()

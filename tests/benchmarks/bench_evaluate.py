"""Benchmark: ``evaluate`` of the default project's validation set against the sum of its
forward passes, with where the rest of the time goes.

A job of the default project (``projects/lenet_digits.ncproj``, LeNet on the bundled digits) is
trained for one epoch into a temporary folder; then rounds alternate:

* ``evaluate``: :func:`engine.runtime.evaluator.evaluate` of the job as ``neurocanvas evaluate
  JOB`` runs it in-process (the 297 validation images, from their PNG files through the dataset
  cache, batch 64; ``output_result.csv``, the confusion matrix and ``evaluation.json`` written),
  split into its parts: compiling the networks, loading the parameters, opening the dataset
  (reading the CSV, checking the image files, the cache), reading the batches, the forward
  passes, the dataset cells made full paths, the output values as text, the text of
  ``output_result.csv``, writing the files (the confusion matrix counted in the metrics too),
  the metrics, and the rest (reading the job and its project, ...);
* ``forward``: the same executors on the same batches, already in memory, through the same
  runtime path (:func:`engine.runtime.evaluator.run_batch`), nothing else.

The ratio is evaluate / forward per round (median reported). ``--cold`` deletes the dataset's
array cache before every evaluate, so the images are decoded from PNG each time (a first
evaluation on a fresh machine).

    python tests/benchmarks/bench_evaluate.py [--rounds 7] [--threads N] [--cold] [--clock cpu]

``--clock cpu`` measures the process's CPU time instead of wall time (steadier on a shared
machine; the dataset's loader threads count too).

Timings are reported, never asserted.
"""

from __future__ import annotations

import argparse
import io
import os
import shutil
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from contextlib import contextmanager
from pathlib import Path

# isort: split
import engine  # noqa: F401 - before NumPy: it sets OpenBLAS's thread timeout (engine/__init__)

# isort: split
from engine.core import threads
from engine.data import open_dataset
from engine.data.cache import ENV_CACHE
from engine.data.iterator import batches_once
from engine.runtime import evaluator
from engine.runtime.job import Job
from engine.runtime.run import Options, train
from engine.runtime.session import RunPlan

CLOCK = {"wall": time.perf_counter, "cpu": time.process_time}
now = time.perf_counter
PROJECT = Path(__file__).resolve().parents[2] / "projects" / "lenet_digits.ncproj"
# evaluator's collaborators timed as the parts of one evaluate (name: attribute of evaluator)
PARTS = {
    "compile": "compile_network",
    "parameters": "load_checked",
    "open dataset": "open_dataset",
    "forward": "run_batch",
    "metrics": "_metrics",
    "output csv": "_result_text",
    "full paths": "_absolute_rows",
}
# the result files written (output_result.csv, evaluation.json; the confusion matrix is
# written inside the metrics: its time counts in both, and once in "other")
WRITERS = ("atomic_write_text", "atomic_write_json")


class _Clock:
    """Seconds spent in each part of the evaluator during one ``evaluate``."""

    def __init__(self) -> None:
        self.spent: dict[str, float] = defaultdict(float)
        self.active: list[str] = []  # the parts running now (a write inside the metrics)

    def wrap(self, name: str, fn):
        def timed(*args, **kwargs):
            inside = list(self.active)
            self.active.append(name)
            start = now()
            try:
                return fn(*args, **kwargs)
            finally:
                seconds = now() - start
                self.active.pop()
                self.spent[name] += seconds
                if inside:  # counted in the enclosing part too: once in the total of parts
                    self.spent["counted twice"] += seconds

        return timed

    def wrap_iter(self, name: str, fn):
        """A generator function whose own time (between the items it yields) counts."""

        def timed(*args, **kwargs):
            it = fn(*args, **kwargs)
            while True:
                start = now()
                try:
                    item = next(it)
                except StopIteration:
                    self.spent[name] += now() - start
                    return
                self.spent[name] += now() - start
                yield item

        return timed


@contextmanager
def _timed_parts(clock: _Clock):
    # an older tree may lack a part (run this file with PYTHONPATH=<that tree> to pair them)
    parts = {name: attr for name, attr in PARTS.items() if hasattr(evaluator, attr)}
    saved = {attr: getattr(evaluator, attr) for attr in (*parts.values(), *WRITERS,
                                                         "batches_once")}  # fmt: skip
    try:
        for name, attr in parts.items():
            setattr(evaluator, attr, clock.wrap(name, saved[attr]))
        for attr in WRITERS:
            setattr(evaluator, attr, clock.wrap("write files", saved[attr]))
        writer_add = evaluator._OutputWriter.add
        evaluator._OutputWriter.add = clock.wrap("output rows", writer_add)
        writer_tails = getattr(evaluator._OutputWriter, "tails", None)
        if callable(writer_tails):  # the values are formatted at the end (an older tree: in add)
            evaluator._OutputWriter.tails = clock.wrap("output rows", writer_tails)
        evaluator.batches_once = clock.wrap_iter("read batches", saved["batches_once"])
        yield
    finally:
        for attr, fn in saved.items():
            setattr(evaluator, attr, fn)
        evaluator._OutputWriter.add = writer_add
        if callable(writer_tails):
            evaluator._OutputWriter.tails = writer_tails


def _forward_only(job: Path):
    """A callable running the job's executors on the validation batches held in memory."""
    job_ = Job.open(job)
    plan = RunPlan.from_json(job_.plan(), str(job_.config_file))
    project = job_.load_project()
    programs = [evaluator.compile_network(project, e["network"]) for e in plan.executors]
    params, _ = evaluator.load_checked(job_, programs, "best")
    runs = [evaluator.ExecutorRun(*r) for r in zip(programs, params, plan.executors, strict=True)]
    _, csv_path, normalize = evaluator._dataset_for(plan, plan.executors[0]["dataset"])
    variables = list(dict.fromkeys(v for p in programs for v in p.variables()))
    with open_dataset(csv_path, normalize=normalize, cache=True) as data:
        batches = [inputs for _, inputs in batches_once(data, plan.batch_size, variables)]
    rows = sum(len(next(iter(b.values()))) for b in batches)

    def run() -> None:
        for inputs in batches:
            evaluator.run_batch(runs, inputs)

    return run, rows, len(batches)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument(
        "--threads", type=int, help="BLAS and engine kernel threads (default: the engine's)"
    )
    parser.add_argument(
        "--cold", action="store_true", help="delete the array cache before each evaluate"
    )
    parser.add_argument("--clock", choices=tuple(CLOCK), default="wall")
    args = parser.parse_args(argv)
    global now  # noqa: PLW0603 - one clock for the whole run
    now = CLOCK[args.clock]
    if args.threads:
        from threadpoolctl import threadpool_limits

        limits = threadpool_limits(args.threads)  # noqa: F841 - kept for the whole run
        threads.force(args.threads)  # the engine's own kernels too, not only BLAS
    with tempfile.TemporaryDirectory() as tmp:
        cache = Path(tmp) / "cache"  # the benchmark's own dataset cache (--cold deletes it)
        os.environ[ENV_CACHE] = str(cache)
        job = Path(tmp) / "job"
        train(PROJECT, job_dir=job, epochs=1, options=Options(events=io.StringIO()))
        forward, rows, count = _forward_only(job)
        evaluator.evaluate(job)  # the first use of every kernel is not timed
        forward()
        totals, forwards, parts = [], [], defaultdict(list)
        for _ in range(args.rounds):
            if args.cold:
                _drop_cache(cache)
            clock = _Clock()
            with _timed_parts(clock):
                start = now()
                evaluator.evaluate(job)
                totals.append(now() - start)
            for name, seconds in clock.spent.items():
                parts[name].append(seconds)
            start = now()
            forward()
            forwards.append(now() - start)
    ratios = sorted(t / f for t, f in zip(totals, forwards, strict=True))
    total, fwd = statistics.median(totals), statistics.median(forwards)
    print(f"evaluate of {rows} rows ({count} batches): {total * 1e3:.1f} ms; "
          f"sum of its forward passes {fwd * 1e3:.1f} ms; ratio {statistics.median(ratios):.2f}x "
          f"(rounds {ratios[0]:.2f}-{ratios[-1]:.2f})")  # fmt: skip
    named = 0.0
    for name in ("compile", "parameters", "open dataset", "read batches", "forward",
                 "full paths", "output rows", "output csv", "write files", "metrics"):  # fmt: skip
        value = statistics.median(parts[name]) if parts.get(name) else 0.0
        named += value
        print(f"  {name:<13} {value * 1e3:7.2f} ms")
    twice = statistics.median(parts["counted twice"]) if parts.get("counted twice") else 0.0
    print(f"  {'other':<13} {(total - named + twice) * 1e3:7.2f} ms")
    return 0


def _drop_cache(root: Path) -> None:
    """Delete the benchmark's own array cache so the next evaluate decodes the image files
    (the built-in digits themselves stay: they live beside it, under ``datasets``)."""
    shutil.rmtree(root / "arrays", ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())

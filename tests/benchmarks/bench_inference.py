"""Benchmark: a batch's forward pass through the runtime against onnxruntime on the same model.

The runtime path is the one ``evaluate``, ``forward``, the structure search's attempts and the
quantization sweeps use: the project's runtime network compiled to a program and run through its
test-mode plan (:mod:`engine.runtime.inference_plan`: batch normalization folded, no gradients).
``generic`` is the same program through ``Program.forward`` under ``no_grad`` (the path before
the plan, kept as the reference), timed in the same rounds. The reference is onnxruntime on
that network's ONNX export with the same parameters (``neurocanvas export onnx``), on the same
number of threads. All three see the same batch; their outputs must agree (1e-4 relative to the
largest) before anything is timed. Rounds alternate them so a shared machine's drift hits all
alike; the ratio ours / onnxruntime of each round's pair is reported, with the median.

    python tests/benchmarks/bench_inference.py [--rounds 7] [--iters 50] [--batch 64]
        [--threads N] [--only WORD...] [--device cpu|gpu|guard] [--clock wall|cpu]
        [--before generic|round2|whole|one] [--round2]

With two threads or more each line also says how free the second core was just after the
rounds ("second core 1.0x": two threads running a compiled convolution at once take as long as
one; 2.0x: another process holds the core, and the two-thread figures say more about it than
about the code).

Timings are reported, never asserted (tests never assert wall-clock times).
"""

from __future__ import annotations

import argparse
import contextlib
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

# isort: split
import engine  # noqa: F401 - before NumPy: it sets OpenBLAS's thread timeout (engine/__init__)

# isort: split
import numpy as np

import engine.nn as nn
from engine.core import backend
from engine.core.ops import _direct_conv, _inference_cpu, _threads
from engine.export import Source, export_onnx
from engine.formats import load_project
from engine.runtime import inference_plan
from engine.runtime.compiler import compile_network
from engine.runtime.evaluator import ExecutorRun

PROJECTS = Path(__file__).resolve().parents[2] / "projects"
NETWORKS = {  # name: sample project (its first executor's network)
    "LeNet": "lenet_digits.ncproj",
    "ResNet-style": "residual_digits.ncproj",
    "MobileNet-style": "mobilenet_digits.ncproj",
    "SqueezeNet-style": "squeezenet_digits.ncproj",
}


def _pair(project_file: Path, batch: int, threads: int | None, folder: Path):
    """(ours, theirs, generic) callables running one batch, after checking they agree."""
    import onnxruntime as ort  # the reference, an optional extra

    project = load_project(project_file)
    network = project.executors[0].network
    nn.clear_parameters()
    nn.seed(0)
    program = compile_network(project, network)
    params = program.create_parameters(project_file.parent)
    parameters = folder / f"{project_file.stem}.npz"
    nn.save_parameters(parameters)
    onnx_file = folder / f"{project_file.stem}.onnx"
    export_onnx(Source(project, project_file.stem, network, parameters, True), onnx_file)
    options = ort.SessionOptions()
    if threads:
        options.intra_op_num_threads = threads
    session = ort.InferenceSession(str(onnx_file), options, providers=_providers(ort))
    feed = session.get_inputs()[0]
    (variable,) = program.variables()
    x = np.random.default_rng(0).random((batch, *feed.shape[1:]), dtype=np.float32)
    output = program.outputs[0][0]

    plan = ExecutorRun(program, params, {}).inference()
    assert plan is not None, "no test-mode plan for this network"

    def ours() -> np.ndarray:
        return backend.to_numpy(plan.run({variable: x})[output])

    def generic() -> np.ndarray:
        with nn.no_grad():
            acts = program.forward({variable: x}, params, {})
            return backend.to_numpy(program.output(acts, output).data)

    def theirs() -> np.ndarray:
        return session.run(None, {feed.name: x})[0]

    a, b, c = ours(), theirs(), generic()
    scale = max(float(np.abs(b).max()), 1e-30)
    assert np.abs(a.reshape(b.shape) - b).max() <= 1e-4 * scale, "outputs differ"
    assert np.abs(c.reshape(b.shape) - b).max() <= 1e-4 * scale, "outputs differ"
    with _residual_fold_off():  # round 2's plan had no residual Add2 in the bias pass
        plan2 = inference_plan.build(program, params)

    def round2() -> np.ndarray:
        return backend.to_numpy(plan2.run({variable: x})[output])

    ours.round2 = _round2(round2)
    ours.whole = _whole(ours)
    ours.one = _alone(ours)
    return ours, theirs, generic


def _providers(ort) -> list[str]:
    """onnxruntime on CUDA when ours runs on the GPU and this onnxruntime has CUDA, else CPU."""
    if backend.device() == "gpu" and "CUDAExecutionProvider" in ort.get_available_providers():
        return ["CUDAExecutionProvider", "CPUExecutionProvider"]
    return ["CPUExecutionProvider"]


CLOCKS = {"wall": time.perf_counter, "cpu": time.thread_time}
_clock = CLOCKS["wall"]


def _median_ms(fn, iters: int) -> float:
    fn()
    times = []
    for _ in range(iters):
        start = _clock()
        fn()
        times.append(_clock() - start)
    return statistics.median(times) * 1e3


# ``--round2``: the plan as it was before issue 33's inference loops, timed in the same rounds
# (the loops switched off: the depthwise and 1x1 loops, the fused Add2 + ReLU, the pooled means
# loop and the threads' split, and a plan built without residual Add2s in the bias pass; what
# remains is round 2's plan with its ReLU6 in the bias pass).
_ROUND3 = ("depthwise", "pointwise", "add_act", "channel_mean", "_split")
_ROUND3_OFF = {
    "depthwise": lambda *a, **k: None,
    "pointwise": lambda *a, **k: None,
    "add_act": lambda *a, **k: False,
    "channel_mean": lambda *a, **k: None,
    "_split": lambda kernel, args, total, cost, align=1: kernel(*args, 0, total),
}


@contextlib.contextmanager
def _residual_fold_off():
    kept = inference_plan._residual_add
    inference_plan._residual_add = lambda *args, **kwargs: None
    try:
        yield
    finally:
        inference_plan._residual_add = kept


def _round2(fn):
    """``fn`` run with this round's inference loops switched off."""
    kept = {name: getattr(_inference_cpu, name) for name in _ROUND3}

    def run_round2():
        for name in _ROUND3:
            setattr(_inference_cpu, name, _ROUND3_OFF[name])
        try:
            return fn()
        finally:
            for name, value in kept.items():
                setattr(_inference_cpu, name, value)

    return run_round2


def _whole(fn):
    """``fn`` with the plan's batch split off: every op on the whole batch, its loops shared
    between the threads one by one (the plan before issue 33's round 4)."""
    kept = inference_plan.InferencePlan._parts

    def run_whole():
        inference_plan.InferencePlan._parts = lambda self, size: (1, [])
        try:
            return fn()
        finally:
            inference_plan.InferencePlan._parts = kept

    return run_whole


def _alone(fn):
    """``fn`` with BLAS and the kernels on one thread (the plan's "one" mode, forced)."""

    def run_alone():
        before = _threads.count()
        _threads.set_count(1)
        try:
            return fn()
        finally:
            _threads.set_count(before)

    return run_alone


def second_core() -> float:
    """How much longer two threads running the same compiled convolution at once take than one
    (each on one thread; the kernel releases the GIL): about 1.0 when a second core is free,
    about 2.0 when another process holds it. Printed beside two-thread figures."""
    x = np.random.default_rng(1).random((64, 16, 11, 11), dtype=np.float32)
    w = np.random.default_rng(2).random((30, 16, 3, 3), dtype=np.float32)

    def conv() -> None:
        for _ in range(30):
            _direct_conv.forward(_direct_conv.padded(x.transpose(1, 2, 3, 0), (0, 0)), w,
                                 (1, 1), (1, 1), (9, 9))  # fmt: skip

    before = _threads.count()
    _threads.set_count(1)
    try:
        conv()
        start = time.perf_counter()
        conv()
        one = time.perf_counter() - start
        other = threading.Thread(target=conv)
        start = time.perf_counter()
        other.start()
        conv()
        other.join()
        return (time.perf_counter() - start) / one
    finally:
        _threads.set_count(before)


def run(name: str, args, folder: Path) -> dict:
    ours, theirs, generic = _pair(PROJECTS / NETWORKS[name], args.batch, args.threads, folder)
    if args.before == "round2":
        generic = ours.round2  # the "before" column: the plan of round 2
    elif args.before == "whole":
        generic = ours.whole  # the plan without the batch split
    elif args.before == "one":
        generic = ours.one  # the plan on one thread
    times: dict[str, list[float]] = {"ours": [], "ort": [], "generic": []}
    for _ in range(args.rounds):
        times["ours"].append(_median_ms(ours, args.iters))
        times["ort"].append(_median_ms(theirs, args.iters))
        times["generic"].append(_median_ms(generic, args.iters))
    ratios = sorted(o / t for o, t in zip(times["ours"], times["ort"], strict=True))
    before = sorted(o / t for o, t in zip(times["generic"], times["ort"], strict=True))
    result = {
        "name": name,
        "ours_ms": statistics.median(times["ours"]),
        "ort_ms": statistics.median(times["ort"]),
        "generic_ms": statistics.median(times["generic"]),
        "ratio": statistics.median(ratios),
        "generic_ratio": statistics.median(before),
    }
    free = f"; second core {second_core():.2f}x" if (args.threads or 0) > 1 else ""
    print(f"{name:<18} batch {args.batch} ({args.device}{free}): "
          f"NeuroCanvas {result['ours_ms']:7.3f} ms   "
          f"onnxruntime {result['ort_ms']:7.3f} ms   ratio {result['ratio']:.2f}x "
          f"(rounds {ratios[0]:.2f}-{ratios[-1]:.2f});   {args.before_name} "
          f"{result['generic_ms']:7.3f} ms, {result['generic_ratio']:.2f}x",
          flush=True)  # fmt: skip
    return result


def main(argv=None) -> list[dict]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--iters", type=int, default=50)
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--threads", type=int, help="threads of both (default: each its own)")
    parser.add_argument("--only", nargs="+", metavar="WORD")
    parser.add_argument("--device", choices=("cpu", "gpu", "guard"), default="cpu",
                        help="ours on the GPU (onnxruntime on CUDA where it has it)")  # fmt: skip
    parser.add_argument("--clock", choices=tuple(CLOCKS), default="wall",
                        help="cpu: this thread's CPU time (with --threads 1 only: steadier than "
                        "wall time on a machine other processes load)")  # fmt: skip
    parser.add_argument("--before", choices=("generic", "round2", "whole", "one"),
                        default="generic",
                        help="the 'before' column: the generic path, the plan without issue "
                        "33's inference loops (round2), the plan without the batch split "
                        "(whole: each loop shared between the threads instead), or the plan "
                        "on one thread (one)")  # fmt: skip
    parser.add_argument("--round2", action="store_const", const="round2", dest="before",
                        help="the same as --before round2")  # fmt: skip
    args = parser.parse_args(argv)
    args.before_name = {"generic": "generic path", "round2": "round-2 plan",
                        "whole": "plan, whole batch", "one": "plan, one thread"}[
                            args.before]  # fmt: skip
    if args.clock == "cpu" and args.threads != 1:
        parser.error("--clock cpu measures one thread: use it with --threads 1")
    global _clock
    _clock = CLOCKS[args.clock]
    nn.set_device(args.device)
    if args.threads:
        from threadpoolctl import threadpool_limits

        limits = threadpool_limits(args.threads)  # noqa: F841 - kept for the whole run
    names = [n for n in NETWORKS if not args.only or any(w in n for w in args.only)]
    with tempfile.TemporaryDirectory() as tmp:
        return [run(name, args, Path(tmp)) for name in names]


if __name__ == "__main__":
    sys.exit(0 if main() else 1)

"""Benchmark: the memory-bound training kernels (batch normalization forward and backward, ReLU
and its gradient, the direct convolution's zero padding) on one thread and shared between two
(``engine.core.ops._threads.run_rows``), at the ResNet-style network's activation sizes
(batch 32: 16 maps of 32x32 down to 128 of 4x4, float32, the batch-innermost layout), and a
larger one (32 maps of 64x64, 16 MB).

    python tests/benchmarks/bench_kernel_split.py [--rounds 7] [--reps 50] [--threshold N]
    python tests/benchmarks/bench_kernel_split.py --step WORD [--old N] [--rounds 10]

Each cell is the median over rounds of the best of ``--reps`` calls, the thread counts
alternating call batch by call batch in one process. ``--threshold`` sets the elements per
thread below which a loop stays on one thread (default: the engine's,
``_threads.MIN_ELEMENTS_PER_THREAD``; 1 splits every size). Timings are printed, never asserted.

``--step WORD`` times a whole training step of the network of ``bench_train_step.py`` whose name
holds WORD (NeuroCanvas only, 10 steps a round, the median) with the engine's threshold (or
``--threshold``) against ``--old`` (default 16M: no loop splits), alternating round by round
in one process, at BLAS's thread count (``OPENBLAS_NUM_THREADS`` sets it); prints the median of
the per-round ratios (new / old) and their range.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

# isort: split
import engine  # noqa: F401 - before NumPy: it sets OpenBLAS's thread timeout (engine/__init__)

# isort: split
import numpy as np

from engine.core.ops import _batchnorm_cpu, _depthwise, _direct_conv, _elementwise_cpu, _threads

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_train_step  # noqa: E402 - beside this file

# (maps, height = width) at batch 32: the ResNet-style step's, then a 16 MB activation
SIZES = [(16, 32), (32, 16), (64, 8), (128, 4), (32, 64)]
# The MobileNet-style step's depthwise 3x3 layers at batch 32 (channels, input side, stride)
DEPTHWISE = [(16, 32, 2), (32, 16, 1), (32, 16, 2), (64, 8, 1), (64, 8, 2), (128, 4, 1)]
DEPTHWISE += [(32, 64, 1)]  # and a 16 MB one


def depthwise_cases(rng) -> list[tuple[str, object]]:
    """Forward, input gradient and weight gradient of each DEPTHWISE layer (vector kernels)."""
    found = []
    for c, side, stride in DEPTHWISE:
        x = rng.standard_normal((c, side, side, 32)).astype(np.float32)
        w = rng.standard_normal((c, 3, 3)).astype(np.float32)
        out = (-(-side // stride),) * 2
        geo = ((1, 1), (stride, stride), (1, 1))
        gy = rng.standard_normal((c, *out, 32)).astype(np.float32)
        label = f"{c}x{side}x{side}/{stride}"
        found += [
            (
                f"depthwise fwd {label}",
                lambda x=x, w=w, g=geo, o=out: _depthwise.forward(x, w, *g, o),
            ),
            (
                f"depthwise bwd {label}",
                lambda x=x, w=w, gy=gy, g=geo: _depthwise.backward(x, w, gy, *g, True, True),
            ),
        ]
    return found


def cases() -> list[tuple[str, object]]:
    rng = np.random.default_rng(0)
    found = []
    for maps, hw in SIZES:
        x4 = rng.standard_normal((maps, hw, hw, 32)).astype(np.float32)
        x2 = x4.reshape(maps, -1)
        g4 = rng.standard_normal(x4.shape).astype(np.float32)
        gamma, beta = np.ones((maps, 1), np.float32), np.zeros((maps, 1), np.float32)
        stats = _batchnorm_cpu.forward(x2, gamma, beta, 1e-5)[4]
        label = f"{maps}x{hw}x{hw}"
        g2 = g4.reshape(x2.shape)

        def bn_forward(x2=x2, g=gamma, b=beta):
            _batchnorm_cpu.forward(x2, g, b, 1e-5)

        def bn_backward(x2=x2, g2=g2, s=stats, g=gamma):
            _batchnorm_cpu.backward(x2, g2, s, g, True)

        found += [
            (f"BN forward {label}", bn_forward),
            (f"BN backward {label}", bn_backward),
            (f"ReLU {label}", lambda x4=x4: _elementwise_cpu.relu(x4)),
            (f"ReLU gradient {label}", lambda x4=x4, g4=g4: _elementwise_cpu.relu_grad(x4, g4)),
            (f"padding {label}", lambda x4=x4: _direct_conv.padded(x4, (1, 1))),
        ]
    return found + depthwise_cases(rng)


def best_us(fn, reps: int) -> float:
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times) * 1e6


def step_pair(word: str, new: int, old: int, rounds: int) -> None:
    """The paired step rounds of ``--step`` (see the module's docstring)."""
    name = next(n for n in bench_train_step.NETWORKS if word in n)
    ours, _ = bench_train_step.make_steps(name, None)
    times: dict[int, list[float]] = {new: [], old: []}
    for r in range(rounds):
        for threshold in (new, old) if r % 2 == 0 else (old, new):
            _threads.MIN_ELEMENTS_PER_THREAD = threshold
            times[threshold].append(bench_train_step.time_steps(ours, 10))
    ratios = sorted(a / b for a, b in zip(times[new], times[old], strict=True))
    print(
        f"{name}: {_threads.count()} threads, threshold {new}: {statistics.median(times[new]):.2f}"
        f" ms, {old}: {statistics.median(times[old]):.2f} ms, ratio {statistics.median(ratios):.3f}"
        f" (rounds {ratios[0]:.2f}-{ratios[-1]:.2f}), load {os.getloadavg()[0]:.1f}"
    )


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--reps", type=int, default=50)
    parser.add_argument("--threshold", type=int, help="elements per thread to split a loop")
    parser.add_argument("--step", metavar="WORD", help="a paired training-step comparison")
    parser.add_argument("--old", type=int, default=1 << 24, help="--step's other threshold")
    args = parser.parse_args(argv)
    if args.step:
        new = args.threshold or _threads.MIN_ELEMENTS_PER_THREAD
        step_pair(args.step, new, args.old, args.rounds)
        return
    if args.threshold:
        _threads.MIN_ELEMENTS_PER_THREAD = args.threshold
    before = _threads.count()
    found = cases()
    times: dict[tuple[str, int], list[float]] = {}
    try:
        for _ in range(args.rounds):
            for name, fn in found:
                for threads in (1, 2):
                    _threads.set_count(threads)
                    fn()
                    times.setdefault((name, threads), []).append(best_us(fn, args.reps))
    finally:
        _threads.set_count(before)
    for name, _ in found:
        one, two = (statistics.median(times[(name, t)]) for t in (1, 2))
        print(f"{name:<28} 1 thread {one:8.1f} us   2 threads {two:8.1f} us   {two / one:.2f}x")


if __name__ == "__main__":
    main()

"""Benchmark: ``relu(batch_normalization(x))`` forward + backward through autograd, with a ReLU's
gradient folded into batch normalization's backward passes (``autograd.DeferredGrad``) against
the separate ReLU gradient pass, in one process, alternating round by round.

    python tests/benchmarks/bench_bn_relu.py [--rounds 9] [--reps 30] [--threads 1]

The sizes are the activations of the ResNet- and MobileNet-style training steps (batch 32,
channels-major as a convolution hands them out). Prints per size the CPU time per call
(``time.thread_time``, which the load of other processes barely touches) of each path, the
median of the per-round ratios fused / separate and their range. Timings are never asserted.
"""

from __future__ import annotations

import argparse
import statistics
import time

# isort: split
import engine  # noqa: F401 - before NumPy: it sets OpenBLAS's thread timeout (engine/__init__)

# isort: split
import numpy as np

from engine.core.autograd import Function, Variable
from engine.core.ops import _threads
from engine.core.ops import activation as A
from engine.core.ops import normalization as N

SIZES = [(16, 32), (32, 16), (64, 8), (128, 4)]  # (maps, side) at batch 32


class _Source(Function):
    """x as it is, standing for the convolution before (whose own backward is not timed): the
    batch normalization's input gradient is computed, and nothing copies it into a leaf."""

    def forward(self, x):
        return x

    def backward(self, gy):
        return None


def _case(maps: int, side: int, batch: int = 32):
    rng = np.random.default_rng(0)
    # channels-major (C, H, W, N) memory seen as NCHW, as the convolutions hand it out
    x = rng.standard_normal((maps, side, side, batch)).astype(np.float32).transpose(3, 0, 1, 2)
    pshape = (1, maps, 1, 1)
    beta = Variable(rng.standard_normal(pshape).astype(np.float32), need_grad=True)
    gamma = Variable(rng.uniform(0.5, 1.5, pshape).astype(np.float32), need_grad=True)
    mean, var = np.zeros(pshape, np.float32), np.zeros(pshape, np.float32)
    gz = rng.standard_normal((maps, side, side, batch)).astype(np.float32).transpose(3, 0, 1, 2)

    def step():
        xv = _Source()(Variable(x, need_grad=True))
        y = A.relu(N.batch_normalization(xv, beta, gamma, mean, var))
        beta.grad = gamma.grad = None
        y.backward(gz, clear_buffer=True)

    return step


def _time(step, reps: int) -> float:
    start = time.thread_time()
    for _ in range(reps):
        step()
    return (time.thread_time() - start) / reps * 1e6


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--reps", type=int, default=30)
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args(argv)
    _threads.set_count(args.threads)
    for maps, side in SIZES:
        step = _case(maps, side)
        times: dict[bool, list[float]] = {True: [], False: []}
        for _ in range(args.rounds):
            for fused in (True, False):
                N.BatchNormalization.takes_deferred = fused
                step()  # warm-up (and the first call's compilation)
                times[fused].append(_time(step, args.reps))
        N.BatchNormalization.takes_deferred = True
        ratios = sorted(f / s for f, s in zip(times[True], times[False], strict=True))
        print(
            f"{maps:4d} maps {side:2d}x{side:<2d} batch 32: fused "
            f"{statistics.median(times[True]):7.0f} us, separate "
            f"{statistics.median(times[False]):7.0f} us, ratio {statistics.median(ratios):.2f}x "
            f"(rounds {ratios[0]:.2f}-{ratios[-1]:.2f})",
            flush=True,
        )


if __name__ == "__main__":
    main()

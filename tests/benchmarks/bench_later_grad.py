"""Benchmark: the training step on two threads with the convolutions' weight gradients computed
by the pool thread while the backward walk goes on (``autograd.LaterGrad``, the default)
against the same gradients split between the threads in place (``_later.LATER = False``,
the code before), alternating round by round in one process.

Networks: the ResNet- and MobileNet-style networks of ``_cnn_nets.py`` (batch 32 of 3x32x32),
Adam. Both ways give the same bytes (tests/engine/core/test_later_grad.py); the ratio
later / split of the median step time is printed, with every round.

    python tests/benchmarks/bench_later_grad.py [--steps 10] [--rounds 11] [--threads 2]

Timings are reported, never asserted.
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
import engine.nn as nn
import engine.nn.functions as F
import engine.nn.solvers as S
from engine.core.ops import _later, _threads

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _cnn_nets  # noqa: E402 - beside this file


def stepper(net):
    """A function running one Adam step of ``net`` on a fixed batch."""
    nn.clear_parameters()
    nn.seed(0)
    x_np, t_np = _cnn_nets.batch((3, 32, 32), 32, seed=1)
    x, t = nn.Variable(x_np), nn.Variable(t_np)
    with nn.parameter_scope(net.__name__):
        net(_cnn_nets.OursOps(), x)
        params = nn.get_parameters()
    solver = S.Adam(alpha=0.01)
    solver.set_parameters(params)

    def step():
        with nn.parameter_scope(net.__name__):
            y = net(_cnn_nets.OursOps(), x)
        loss = F.mean(F.softmax_cross_entropy(y, t))
        solver.zero_grad()
        loss.backward(clear_buffer=True)
        solver.update()

    return step


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=10)
    parser.add_argument("--rounds", type=int, default=11)
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()
    _threads.set_count(args.threads)
    print(f"load {os.getloadavg()[0]:.2f}, {args.threads} threads")
    for net in (_cnn_nets.resnet, _cnn_nets.mobilenet):
        step = stepper(net)
        for _ in range(3):
            step()
        times: dict[bool, list[float]] = {True: [], False: []}
        for r in range(args.rounds):
            for later in (True, False) if r % 2 else (False, True):
                _later.LATER = later
                step()
                start = time.perf_counter()
                for _ in range(args.steps):
                    step()
                times[later].append((time.perf_counter() - start) / args.steps * 1e3)
        _later.LATER = True
        split, later = statistics.median(times[False]), statistics.median(times[True])
        print(
            f"{net.__name__:10s} split {split:6.2f} ms, later {later:6.2f} ms: "
            f"{later / split:.2f}x (rounds split {' '.join(f'{v:.1f}' for v in times[False])}; "
            f"later {' '.join(f'{v:.1f}' for v in times[True])})"
        )
    print(f"load {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()

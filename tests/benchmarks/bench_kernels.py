"""Micro-benchmark: forward + backward of the conv/pool/affine layers of NNC's LeNet sample
(batch 64) and of a 784-1000-1000-10 MLP's affine layers, NeuroCanvas kernels against PyTorch
(CPU, default threads) in the same process. Prints best-of-rounds milliseconds and the ratio.

    python tests/benchmarks/bench_kernels.py [--rounds 7] [--iters 30]

Run on demand; timings are never asserted by tests.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import engine.nn.functions as F
from engine.core.autograd import Variable


def _params(rng, shapes):
    return [
        Variable(rng.standard_normal(s).astype(np.float32) * 0.1, need_grad=True) for s in shapes
    ]


def lenet_layers(batch: int):
    """conv 16@7x7 -> maxpool 2 -> conv 30@3x3 -> maxpool 2 -> affine 150 -> affine 10 (no tanh:
    only this module's kernels are timed)."""
    rng = np.random.default_rng(0)
    x = Variable(rng.standard_normal((batch, 1, 28, 28)).astype(np.float32))
    w1, b1, w2, b2, w3, b3, w4, b4 = _params(
        rng, [(16, 1, 7, 7), (16,), (30, 16, 3, 3), (30,), (480, 150), (150,), (150, 10), (10,)]
    )
    params = [w1, b1, w2, b2, w3, b3, w4, b4]

    def ours():
        h = F.max_pooling(F.convolution(x, w1, b1), (2, 2))
        h = F.max_pooling(F.convolution(h, w2, b2), (2, 2))
        y = F.affine(F.affine(h, w3, b3), w4, b4)
        y.backward(np.ones(y.shape, np.float32))
        for p in params:
            p.grad = None

    import torch  # the reference, only for the benchmark

    tf = torch.nn.functional
    xt = torch.from_numpy(x.d)
    pt = [torch.from_numpy(p.d.copy()).requires_grad_() for p in params]

    def theirs():
        w1, b1, w2, b2, w3, b3, w4, b4 = pt
        h = tf.max_pool2d(tf.conv2d(xt, w1, b1), 2)
        h = tf.max_pool2d(tf.conv2d(h, w2, b2), 2)
        y = (h.reshape(batch, -1) @ w3 + b3) @ w4 + b4
        y.backward(torch.ones_like(y))
        for p in pt:
            p.grad = None

    return ours, theirs


def mlp_layers(batch: int):
    """784-1000-1000-10 affine layers (forward + backward)."""
    rng = np.random.default_rng(0)
    x = Variable(rng.standard_normal((batch, 784)).astype(np.float32))
    params = _params(rng, [(784, 1000), (1000,), (1000, 1000), (1000,), (1000, 10), (10,)])

    def ours():
        h = x
        for w, b in zip(params[::2], params[1::2], strict=True):
            h = F.affine(h, w, b)
        h.backward(np.ones(h.shape, np.float32))
        for p in params:
            p.grad = None

    import torch

    xt = torch.from_numpy(x.d)
    pt = [torch.from_numpy(p.d.copy()).requires_grad_() for p in params]

    def theirs():
        h = xt
        for w, b in zip(pt[::2], pt[1::2], strict=True):
            h = h @ w + b
        h.backward(torch.ones_like(h))
        for p in pt:
            p.grad = None

    return ours, theirs


def compare(ours, theirs, rounds: int, iters: int) -> tuple[float, float]:
    """Best-of-rounds time per call (ms), the two interleaved so load changes hit both."""
    for f in (ours, theirs):
        for _ in range(3):
            f()
    best = [float("inf"), float("inf")]
    for _ in range(rounds):
        for i, f in enumerate((ours, theirs)):
            t = time.perf_counter()
            for _ in range(iters):
                f()
            best[i] = min(best[i], (time.perf_counter() - t) / iters * 1e3)
    return best[0], best[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--iters", type=int, default=30)
    parser.add_argument("--batch", type=int, default=64)
    args = parser.parse_args()
    for name, make in (
        ("LeNet conv/pool/affine", lenet_layers),
        ("MLP 784-1000-1000-10 affine", mlp_layers),
    ):
        ours, theirs = compare(*make(args.batch), args.rounds, args.iters)
        print(
            f"{name:30s} ours {ours:7.3f} ms  torch {theirs:7.3f} ms  ratio {ours / theirs:5.2f}x"
        )


if __name__ == "__main__":
    main()

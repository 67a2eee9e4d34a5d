"""Benchmark: one training step (forward, backward, Adam update) on the CPU against PyTorch.

Networks: NNC's LeNet sample (image_recognition/MNIST/LeNet.sdcproj: conv 16@7x7, max-pool 2,
tanh, conv 30@3x3, max-pool 2, tanh, affine 150, tanh, affine 10, softmax cross-entropy) and a
784-1000-1000-10 MLP (ReLU), batch 64; the ResNet- and MobileNet-style networks of issue 14
and issue 33's wide ResNet-style network (``_cnn_nets.py``), batch 32 of 3x32x32. Each is timed
in NeuroCanvas and, when PyTorch is installed, in PyTorch in the same process with the same
initial weights; the losses of the first steps must agree; the ratio ours / PyTorch is printed.

    python tests/benchmarks/bench_train_step.py [--steps 30] [--rounds 7] [--only WORD...]
        [--threads N] [--separate | --memory] [--device cpu|gpu|guard]

``--separate`` times each framework in its own process instead (alternating), which removes the
interference of one framework's idle-spinning threads with the other's. ``--threads 1`` runs
both frameworks on one thread (see :func:`_limit_threads`). ``--memory`` reports the peak RSS
of a few steps of each framework alone in a fresh process.

Timings are reported, never asserted (tests never assert wall-clock times).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

# isort: split
import engine  # noqa: F401 - before NumPy: it sets OpenBLAS's thread timeout (engine/__init__)

# isort: split
import numpy as np

import engine.nn as nn
import engine.nn.functions as F
import engine.nn.parametric as PF
import engine.nn.solvers as S
from engine.core import backend

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _cnn_nets  # noqa: E402 - beside this file

BATCH = 64
# PyTorch's device: "cuda" with --device gpu (set in main); each step ends in a read-back of the
# loss (float()), which waits for the device in both frameworks, so host timers measure the step.
TORCH_DEVICE = ["cpu"]


def lenet(x):
    with nn.parameter_scope("Convolution"):
        h = PF.convolution(x, 16, (7, 7))
    h = F.tanh(F.max_pooling(h, (2, 2)))
    with nn.parameter_scope("Convolution_2"):
        h = PF.convolution(h, 30, (3, 3))
    h = F.tanh(F.max_pooling(h, (2, 2)))
    with nn.parameter_scope("Affine"):
        h = F.tanh(PF.affine(h, 150))
    with nn.parameter_scope("Affine_2"):
        return PF.affine(h, 10)


def mlp(x):
    h = x
    for i, width in enumerate((1000, 1000)):
        with nn.parameter_scope(f"Affine_{i + 1}"):
            h = F.relu(PF.affine(h, width))
    with nn.parameter_scope("Affine_3"):
        return PF.affine(h, 10)


def torch_lenet(torch):
    m = torch.nn.Sequential(
        torch.nn.Conv2d(1, 16, 7), torch.nn.MaxPool2d(2), torch.nn.Tanh(),
        torch.nn.Conv2d(16, 30, 3), torch.nn.MaxPool2d(2), torch.nn.Tanh(),
        torch.nn.Flatten(), torch.nn.Linear(480, 150), torch.nn.Tanh(), torch.nn.Linear(150, 10),
    )  # fmt: skip
    return m


def torch_mlp(torch):
    return torch.nn.Sequential(
        torch.nn.Flatten(), torch.nn.Linear(784, 1000), torch.nn.ReLU(),
        torch.nn.Linear(1000, 1000), torch.nn.ReLU(), torch.nn.Linear(1000, 10),
    )  # fmt: skip


def copy_weights_to_torch(torch, params: dict, module) -> None:
    """Ours: W (in, out), b (out,) per layer in creation order; torch: weight (out, in...)."""
    ours = [backend.to_numpy(p.d) for p in params.values()]
    theirs = [p for p in module.parameters()]
    with torch.no_grad():
        for o, t in zip(ours, theirs, strict=True):
            if t.ndim == 2 and o.ndim == 2:
                t.copy_(torch.from_numpy(np.ascontiguousarray(o.T)))
            else:
                t.copy_(torch.from_numpy(o.reshape(t.shape)))
    module.to(TORCH_DEVICE[0])


def ours_step_fn(build, x_np, t_np):
    nn.clear_parameters()
    x = nn.Variable(x_np)
    t = nn.Variable(t_np)
    with nn.parameter_scope("bench"):
        build(x)  # create the parameters
        params = nn.get_parameters()
    solver = S.Adam(alpha=0.001)
    solver.set_parameters(params)

    def step():
        with nn.parameter_scope("bench"):
            y = build(x)
        loss = F.mean(F.softmax_cross_entropy(y, t))
        solver.zero_grad()
        loss.backward(clear_buffer=True)
        solver.update()
        return float(loss.d)

    return step, params


def torch_step_fn(torch, module, x_np, t_np):
    opt = torch.optim.Adam(module.parameters(), lr=0.001)
    x = torch.from_numpy(x_np).to(TORCH_DEVICE[0])
    t = torch.from_numpy(t_np.reshape(-1).astype(np.int64)).to(TORCH_DEVICE[0])
    lossf = torch.nn.CrossEntropyLoss()

    def step():
        opt.zero_grad(set_to_none=True)
        loss = lossf(module(x), t)
        loss.backward()
        opt.step()
        return float(loss.detach())

    return step


def time_steps(step, steps: int) -> float:
    """Median milliseconds per step over ``steps`` steps (after a warm-up step)."""
    step()
    times = []
    for _ in range(steps):
        start = time.perf_counter()
        step()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1e3


def _torch():
    try:
        import torch  # optional reference
    except ImportError:
        return None
    return torch


def make_mlp_like(build, torch_build, torch, x_np, t_np):
    """``(ours, theirs)`` step functions of a network given as an ``nn`` builder and a torch
    ``Sequential`` with the same layers (weights copied from ours)."""
    nn.seed(0)
    ours, params = ours_step_fn(build, x_np, t_np)
    if torch is None:
        return ours, None
    module = torch_build(torch)
    copy_weights_to_torch(torch, params, module)
    return ours, torch_step_fn(torch, module, x_np, t_np)


def make_steps(name: str, torch):
    """The two step functions of the network called ``name`` on its benchmark batch."""
    in_shape, batch, *spec = NETWORKS[name]
    rng = np.random.default_rng(0)
    x_np = rng.standard_normal((batch, *in_shape)).astype(np.float32)
    t_np = rng.integers(0, 10, (batch, 1))
    if len(spec) == 2:
        return make_mlp_like(*spec, torch, x_np, t_np)
    nn.seed(0)
    return _cnn_nets.ours_and_torch(
        spec[0], torch, x_np, t_np, ours_step_fn, torch_step_fn, TORCH_DEVICE[0]
    )


def run(name, steps, rounds) -> dict:
    ours, theirs = make_steps(name, _torch())
    if theirs is not None:
        # Same weights, same batch: the losses of the first steps must agree, which checks the
        # forward pass and (from the second step on) the gradients and the Adam update.
        for _ in range(3):
            l_ours, l_theirs = ours(), theirs()
            assert abs(l_ours - l_theirs) < 1e-3 * (1.0 + abs(l_theirs)), (l_ours, l_theirs)
    best_ours, best_theirs = [], []
    for _ in range(rounds):  # interleave so drift of a shared machine hits both alike
        best_ours.append(time_steps(ours, steps))
        if theirs is not None:
            best_theirs.append(time_steps(theirs, steps))
    result = {"name": name, "ours_ms": statistics.median(best_ours)}
    line = f"{name:<28} NeuroCanvas {result['ours_ms']:7.2f} ms"
    if theirs is not None:
        # The machine's speed drifts between rounds (a shared host): the ratio of each round's
        # pair, measured back to back, is steadier than the ratio of two separate minima.
        ratios = sorted(o / t for o, t in zip(best_ours, best_theirs, strict=True))
        result["torch_ms"] = statistics.median(best_theirs)
        result["ratio"] = statistics.median(ratios)
        result["ratios"] = ratios
        line += (
            f"   PyTorch {result['torch_ms']:7.2f} ms   ratio {result['ratio']:.2f}x"
            f" (rounds {ratios[0]:.2f}-{ratios[-1]:.2f})"
        )
    print(line, flush=True)
    return result


# name: (input shape, batch, ours builder + torch Sequential | a network of _cnn_nets)
NETWORKS = {
    "LeNet (batch 64)": ((1, 28, 28), BATCH, lenet, torch_lenet),
    "MLP 784-1000-1000-10": ((1, 28, 28), BATCH, mlp, torch_mlp),
    "ResNet-style (batch 32)": ((3, 32, 32), 32, _cnn_nets.resnet),
    "MobileNet-style (batch 32)": ((3, 32, 32), 32, _cnn_nets.mobilenet),
    "ResNet-style wide (batch 32)": ((3, 32, 32), 32, _cnn_nets.resnet_wide),
}


def _alone(framework: str, name: str, steps: int) -> float:
    """One framework's median step time in this process (used by ``--separate``)."""
    ours, theirs = make_steps(name, _torch() if framework == "torch" else None)
    return time_steps(ours if framework == "ours" else theirs, steps)


def _rss_mib() -> tuple[float, float]:
    """(current, peak) resident memory of this process in MiB (Linux)."""
    import resource  # POSIX only

    with open("/proc/self/statm") as f:
        current = int(f.read().split()[1]) * resource.getpagesize() / 2**20
    return current, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _alone_memory(framework: str, name: str, steps: int) -> str:
    """``peak-MiB growth-MiB``: this process's peak RSS after ``steps`` steps, and its growth
    over the RSS once the libraries were imported (parameters, batch, activations, gradients,
    optimizer state and allocator caches: what the training itself costs)."""
    torch = _torch() if framework == "torch" else None
    before, _ = _rss_mib()
    ours, theirs = make_steps(name, torch)
    step = ours if framework == "ours" else theirs
    for _ in range(steps):
        step()
    _, peak = _rss_mib()
    return f"{peak:.1f} {peak - before:.1f}"


def run_memory(name: str) -> dict:
    """Peak RSS of a few training steps, each framework alone in a fresh process."""
    out = {}
    for framework in ("ours", "torch"):
        proc = subprocess.run(
            [sys.executable, __file__, "--alone", framework, name, "--steps", "3", "--memory"],
            capture_output=True, text=True, check=True,
        )  # fmt: skip
        out[framework] = [float(v) for v in proc.stdout.split()[-2:]]
    print(f"{name:<28} peak RSS NeuroCanvas {out['ours'][0]:6.0f} MiB (+{out['ours'][1]:.0f} for "
          f"training)   PyTorch {out['torch'][0]:6.0f} MiB (+{out['torch'][1]:.0f} for training)",
          flush=True)  # fmt: skip
    return {"name": name, "ours_mib": out["ours"], "torch_mib": out["torch"]}


def run_separate(name: str, steps: int, rounds: int, threads: int | None) -> dict:
    """Each framework in its own process, alternately: no thread pool of one spins on the cores
    while the other computes (both keep two threads busy for a while after their last call)."""
    times: dict[str, list[float]] = {"ours": [], "torch": []}
    for _ in range(rounds):
        for framework in times:
            out = subprocess.run(
                [sys.executable, __file__, "--alone", framework, name, "--steps", str(steps)]
                + (["--threads", str(threads)] if threads else []),
                capture_output=True, text=True, check=True,
            )  # fmt: skip
            times[framework].append(float(out.stdout.split()[-1]))
    ratios = sorted(o / t for o, t in zip(times["ours"], times["torch"], strict=True))
    result = {
        "name": name,
        "ours_ms": statistics.median(times["ours"]),
        "torch_ms": statistics.median(times["torch"]),
        "ratio": statistics.median(ratios),
    }
    print(f"{name:<28} NeuroCanvas {result['ours_ms']:7.2f} ms   PyTorch {result['torch_ms']:7.2f}"
          f" ms   ratio {result['ratio']:.2f}x (rounds {ratios[0]:.2f}-{ratios[-1]:.2f}),"
          " separate processes", flush=True)  # fmt: skip
    return result


def _limit_threads(n: int) -> None:
    """Both frameworks on ``n`` threads: NumPy's BLAS via threadpoolctl, PyTorch's intra-op
    pool (NeuroCanvas's compiled loops are single-threaded and never run beside a GEMM, so BLAS's
    threads are all there is to tune). On a loaded host a two-thread GEMM often waits for a
    descheduled partner thread (up to 10x slower than one thread), so one thread each compares
    the kernels, not the scheduler."""
    from threadpoolctl import threadpool_limits

    _state["limits"] = threadpool_limits(n)
    torch = _torch()
    if torch is not None:
        torch.set_num_threads(n)


_state: dict = {}


def main(argv=None) -> list[dict]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=30)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--separate", action="store_true",
                        help="time each framework in its own process (alternating)")  # fmt: skip
    parser.add_argument(
        "--alone", nargs=2, metavar=("FRAMEWORK", "NETWORK"), help=argparse.SUPPRESS
    )
    parser.add_argument(
        "--only", nargs="+", metavar="WORD", help="only the networks whose names hold a WORD"
    )
    parser.add_argument(
        "--threads", type=int, help="BLAS/OpenMP threads of both frameworks (default: theirs)"
    )
    parser.add_argument(
        "--memory", action="store_true", help="peak RSS of each framework in its own process"
    )
    parser.add_argument("--device", choices=("cpu", "gpu", "guard"), default="cpu",
                        help="ours on the GPU (CuPy) and PyTorch on CUDA; guard: ours on the "
                        "CuPy-like guard, PyTorch on the CPU (checks the data flow)")  # fmt: skip
    args = parser.parse_args(argv)
    names = [n for n in NETWORKS if not args.only or any(w in n for w in args.only)]
    nn.set_device(args.device)
    TORCH_DEVICE[0] = "cuda" if args.device == "gpu" else "cpu"
    if args.threads:
        _limit_threads(args.threads)
    if args.alone and args.memory:
        print(_alone_memory(args.alone[0], args.alone[1], args.steps))
        return []
    if args.alone:
        print(f"{_alone(args.alone[0], args.alone[1], args.steps):.4f}")
        return []
    if args.memory:
        return [run_memory(name) for name in names]
    if args.separate:
        return [run_separate(name, args.steps, args.rounds, args.threads) for name in names]
    return [run(name, args.steps, args.rounds) for name in names]


if __name__ == "__main__":
    main()

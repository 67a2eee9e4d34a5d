"""Benchmark: one whole epoch of the default project (projects/lenet_digits.ncproj) against a plain
PyTorch loop over the same arrays.

NeuroCanvas: ``engine.runtime.run.train(project, epochs=1)`` as ``neurocanvas train --events`` runs
it: the project read and checked, the datasets opened (cached), a job folder with its snapshot,
config, event log, learning curve and checkpoints, one epoch of training (1,500 digits, batch 64,
Adam) and the two monitors (training and validation error, a forward pass over each set).

PyTorch (CPU, same process): the same network (conv 16@7x7, ReLU, max-pool, conv 30@3x3,
max-pool, tanh, affine 150, ReLU, affine 10, softmax cross-entropy) trained for one epoch over the
same arrays already in memory (shuffled, batch 64, Adam), then the same two error passes; no
files. Rounds alternate between the two; the ratio is the median of the per-round ratios.

    python tests/benchmarks/bench_epoch.py [--rounds 5] [--threads N]

Timings are reported, never asserted.
"""

from __future__ import annotations

import argparse
import io
import statistics
import tempfile
import time
from pathlib import Path

# isort: split
import engine  # noqa: F401 - before NumPy: it sets OpenBLAS's thread timeout (engine/__init__)

# isort: split
import numpy as np

from engine.core import backend
from engine.data import builtin
from engine.data.csv_dataset import open_dataset
from engine.runtime.run import Options, train

PROJECT = Path(__file__).resolve().parents[2] / "projects" / "lenet_digits.ncproj"
BATCH = 64


def ours_epoch(workdir: Path, round_: int) -> float:
    """Seconds for ``train(PROJECT, epochs=1)`` into a new job folder."""
    start = time.perf_counter()
    train(
        PROJECT, job_dir=workdir / f"job{round_}", epochs=1, options=Options(events=io.StringIO())
    )
    return time.perf_counter() - start


def digits_arrays() -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """The default project's datasets as float32 images (0..1, as ImageNormalization) + labels."""
    out = {}
    for split, path in builtin.ensure("digits").items():
        with open_dataset(path) as ds:
            batch = ds.get_batch(np.arange(ds.size))
        out[split] = (batch["x"], batch["y"].reshape(-1).astype(np.int64))
    return out


def torch_lenet(torch):
    nn = torch.nn
    return nn.Sequential(
        nn.Conv2d(1, 16, 7), nn.ReLU(), nn.MaxPool2d(2), nn.Conv2d(16, 30, 3), nn.MaxPool2d(2),
        nn.Tanh(), nn.Flatten(), nn.Linear(480, 150), nn.ReLU(), nn.Linear(150, 10),
    )  # fmt: skip


def torch_epoch(torch, arrays, seed: int) -> float:
    """Seconds for one plain PyTorch epoch + the training and validation error passes."""
    start = time.perf_counter()
    torch.manual_seed(seed)
    model = torch_lenet(torch)
    opt = torch.optim.Adam(model.parameters(), lr=0.001)
    lossf = torch.nn.CrossEntropyLoss()
    x, t = (torch.from_numpy(a) for a in arrays["training"])
    order = torch.randperm(len(x))
    for s in range(0, len(x), BATCH):
        idx = order[s : s + BATCH]
        opt.zero_grad(set_to_none=True)
        lossf(model(x[idx]), t[idx]).backward()
        opt.step()
    with torch.no_grad():
        for split in ("training", "validation"):
            xs, ts = (torch.from_numpy(a) for a in arrays[split])
            wrong = sum(
                int((model(xs[s : s + BATCH]).argmax(1) != ts[s : s + BATCH]).sum())
                for s in range(0, len(xs), BATCH)
            )
            assert 0 <= wrong <= len(xs)
    return time.perf_counter() - start


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--threads", type=int, help="BLAS/OpenMP threads of both frameworks")
    args = parser.parse_args(argv)
    backend.set_device("cpu")
    import torch  # the reference

    if args.threads:
        from threadpoolctl import threadpool_limits

        limits = threadpool_limits(args.threads)  # noqa: F841 - kept for the whole run
        torch.set_num_threads(args.threads)
    arrays = digits_arrays()
    ours, theirs = [], []
    with tempfile.TemporaryDirectory() as tmp:
        ours_epoch(Path(tmp), -1)  # warm-up: dataset cache, imports
        torch_epoch(torch, arrays, 0)
        for r in range(args.rounds):
            ours.append(ours_epoch(Path(tmp), r))
            theirs.append(torch_epoch(torch, arrays, r))
    ratios = sorted(o / t for o, t in zip(ours, theirs, strict=True))
    result = {
        "ours_s": statistics.median(ours),
        "torch_s": statistics.median(theirs),
        "ratio": statistics.median(ratios),
        "ratios": ratios,
    }
    print(
        f"LeNet digits epoch  NeuroCanvas {result['ours_s'] * 1e3:7.1f} ms   PyTorch "
        f"{result['torch_s'] * 1e3:7.1f} ms   ratio {result['ratio']:.2f}x "
        f"(rounds {ratios[0]:.2f}-{ratios[-1]:.2f})",
        flush=True,
    )
    return result


if __name__ == "__main__":
    main()

"""``neurocanvas doctor``: what this machine offers NeuroCanvas (Python, packages, device)."""

from __future__ import annotations

import argparse
import importlib
import platform
import time
from dataclasses import dataclass

import numpy as np

from engine.core import backend, gpu, products, threads
from engine.core.ops import _threads


def add_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    parser = sub.add_parser("doctor", help="report Python, packages and the compute device")
    parser.add_argument("--device", choices=("cpu", "gpu", "auto"), default=None)
    return parser


def _version(module: str) -> str:
    try:
        return getattr(importlib.import_module(module), "__version__", "installed")
    except Exception as exc:  # an optional package may be missing or broken
        return f"not available ({type(exc).__name__})"


def _threads_line() -> str:
    """How many threads train and evaluate use, and whether that can change a number."""
    most, forced, found = _threads.count(), threads.forced(), products.blocking()
    if forced is not None:
        return f"{forced} (forced)"
    if most < 2:
        return "1"
    if found is None:
        return (f"{most} (every core: NumPy's BLAS is not OpenBLAS or its blocking was not "
                "found, so one and two threads may differ in the last digits; --threads auto "
                "chooses by timing anyway)")  # fmt: skip
    return (f"1 or {most}, whichever the steps find faster (OpenBLAS blocks K by {found.q}: "
            "products are cut so that the numbers are the same on any count)")  # fmt: skip


def run(args: argparse.Namespace) -> int:
    print(f"Python      {platform.python_version()} on {platform.platform()}")
    for name in (
        "numpy",
        "cupy",
        "PySide6",
        "matplotlib",
        "pptx",
        "networkx",
        "PIL",
        "onnx",
        "onnxruntime",
    ):
        print(f"{name:<11} {_version(name)}")
    try:
        device = backend.set_device(args.device)
    except backend.DeviceError as exc:
        print(f"device      unavailable: {exc}")
        return 1
    notice = backend.device_notice()
    print(f"device      {device}" + (f" ({notice})" if notice else ""))
    if device == "cpu":
        print(f"threads     {_threads_line()}")
        return 0
    for key, value in gpu.describe().items():
        print(f"{key:<11} {value}")
    try:
        checks = self_test()
    except Exception as exc:  # a broken driver fails here: say so instead of a traceback
        if not gpu.is_device_error(exc):
            raise
        print(f"self-test   FAILED: {gpu.explain(exc, 'the self-test')}")
        return 1
    for check in checks:
        verdict = "ok" if check.ok else "WRONG"
        print(f"self-test   {check.name}: {verdict} (max relative error {check.max_error:.1e}, "
              f"{check.seconds * 1000:.2f} ms)")  # fmt: skip
    return 0 if all(c.ok for c in checks) else 1


# ------------------------------------------------------------------------------ the self-test
@dataclass
class Check:
    name: str
    max_error: float
    seconds: float
    ok: bool


def self_test(seconds: float = 1.0) -> list[Check]:
    """A small matmul and convolution on the device compared with NumPy (about ``seconds``)."""
    import engine.nn.functions as F  # the CLI imports its engine parts on use
    from engine.core.autograd import Variable, no_grad

    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((256, 256), np.float32), rng.standard_normal((256, 256), np.float32)
    x = rng.standard_normal((8, 3, 32, 32), np.float32)
    w = rng.standard_normal((16, 3, 3, 3), np.float32)
    cases = {
        "matmul 256x256": (lambda m, n: m @ n, (a, b)),
        "convolution 8x3x32x32, 16 3x3 filters": (
            lambda xs, ws: F.convolution(xs, ws, pad=(1, 1)),
            (x, w),
        ),
    }
    module = backend.xp()
    with no_grad():
        with backend.using("cpu"):
            expected = {k: fn(*map(Variable, args)).data for k, (fn, args) in cases.items()}
        checks = []
        for name, (fn, args) in cases.items():
            device_args = [Variable(module.asarray(v)) for v in args]
            start, runs = time.perf_counter(), 0
            while True:
                got = backend.to_numpy(fn(*device_args).data)  # the read-back waits for it
                runs += 1
                if time.perf_counter() - start > seconds / len(cases) or runs >= 100:
                    break
            scale = max(1.0, float(np.max(np.abs(expected[name]))))
            err = float(np.max(np.abs(got - expected[name]))) / scale
            elapsed = (time.perf_counter() - start) / runs
            checks.append(Check(name, err, elapsed, bool(np.isfinite(err) and err < 1e-3)))
    return checks

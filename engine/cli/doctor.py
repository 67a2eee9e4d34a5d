"""``neurocanvas doctor``: what this machine offers NeuroCanvas (Python, packages, device)."""

from __future__ import annotations

import argparse
import importlib
import platform


def add_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    parser = sub.add_parser("doctor", help="report Python, packages and the compute device")
    parser.add_argument("--device", choices=("cpu", "gpu", "auto"), default=None)
    return parser


def _version(module: str) -> str:
    try:
        return getattr(importlib.import_module(module), "__version__", "installed")
    except Exception as exc:  # an optional package may be missing or broken
        return f"not available ({type(exc).__name__})"


def run(args: argparse.Namespace) -> int:
    from engine.core import backend

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
        return 0
    from engine.core import gpu  # noqa: PLC0415

    for key, value in gpu.describe().items():
        print(f"{key:<11} {value}")
    try:
        checks = gpu.self_test()
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

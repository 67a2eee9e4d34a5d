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
    return 0

"""Benchmark: the default project (LeNet on digits) deployed as C, against the engine and ONNX.

Trains ``projects/lenet_digits.ncproj`` (``--epochs``, default 20 as the project says), inserts
8-bit FixedPointQuantize layers (``quantize insert --bits 8 --delta 0.0625``, post-training),
exports the float network and the quantized one as C (``neurocanvas export c``) and the float
one as ONNX, then on every validation image reports:

* file sizes (parameters.c, the built program, the .onnx), flash and RAM (arena) bytes
* accuracy of the engine (``neurocanvas forward``'s program) and of the C program, classes
  that differ, the largest output difference
* time per image: the engine's forward pass one image at a time, onnxruntime one image at a
  time, and the C program (one process over all images, its start included), as ratios to
  the engine measured in the same run

    python tests/benchmarks/bench_deploy.py [--epochs 20]
"""

from __future__ import annotations

import argparse
import csv
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]


def _cli(*args: str) -> str:
    done = subprocess.run([sys.executable, "-m", "engine.cli", *args], capture_output=True,
                          text=True, cwd=ROOT, check=True)  # fmt: skip
    return done.stdout


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=20)
    args = parser.parse_args()
    import engine.nn as nn  # noqa: PLC0415
    from engine.data import builtin  # noqa: PLC0415
    from engine.export import open_source  # noqa: PLC0415
    from engine.runtime.compiler import compile_network  # noqa: PLC0415
    from engine.runtime.inference import _load  # noqa: PLC0415

    tmp = Path(tempfile.mkdtemp(prefix="bench-deploy-"))
    _cli("train", "projects/lenet_digits.ncproj", "-o", str(tmp / "job"), "--epochs",
         str(args.epochs), "--seed", "0")  # fmt: skip
    _cli("quantize", "insert", str(tmp / "job" / "network.ncproj"), "-o", str(tmp / "q8.ncproj"),
         "--bits", "8", "--delta", "0.0625")  # fmt: skip
    valid = builtin.ensure("digits")["validation"]
    with open(valid, newline="", encoding="utf-8") as f:
        rows = list(csv.reader(f))[1:]
    images = [str(valid.parent / r[0]) for r in rows]
    labels = np.array([int(r[1]) for r in rows])
    x = np.stack([_load(p, True) for p in images]).astype(np.float32)
    raw = []
    for i, row in enumerate(x):
        path = tmp / f"in{i}.bin"
        row.astype("<f4").tofile(path)
        raw.append(str(path))
    params = str(sorted((tmp / "job").rglob("parameters.*"))[0])
    results = {}
    for label, network, project in (("float", None, None), ("fixed-point 8", "Main_q8Runtime",
                                                          tmp / "q8.ncproj")):  # fmt: skip
        folder = tmp / f"c_{label.split()[0]}"
        if project is None:
            _cli("export", "c", str(tmp / "job"), "-o", str(folder))
        else:  # the quantized network with the job's parameters
            _cli("export", "c", str(project), "-o", str(folder), "--network", str(network),
                 "--params", params)  # fmt: skip
        subprocess.run(["make", "CFLAGS=-std=c99 -O2 -Wall -Wextra -Werror"], cwd=folder,
                       check=True, capture_output=True)  # fmt: skip
        start = time.perf_counter()
        out = subprocess.run([str(folder / "model"), *raw], capture_output=True, text=True,
                             check=True).stdout  # fmt: skip
        c_time = (time.perf_counter() - start) / len(raw)
        got = np.array([[float(v) for v in line.split()] for line in out.splitlines()])
        source = open_source(project or tmp / "job")
        program = compile_network(source.project, network or source.runtime)
        with nn.parameter_scope("", {}):
            p = program.create_parameters()
            nn.load_parameters(params)
            with nn.no_grad():
                expected = np.concatenate([
                    np.asarray(program.output(program.forward({"x": x[i : i + 64]}, p),
                                              "y'").data)
                    for i in range(0, len(x), 64)])  # fmt: skip
                start = time.perf_counter()
                for i in range(len(x)):
                    program.forward({"x": x[i : i + 1]}, p)
                engine_time = (time.perf_counter() - start) / len(x)
        summary = json.loads((folder / "export_summary.json").read_text())
        results[label] = {
            "parameters.c bytes": (folder / "parameters.c").stat().st_size,
            "program bytes": (folder / "model").stat().st_size,
            "flash bytes": summary["flash_bytes"],
            "arena bytes": summary["ram_bytes"],
            "engine accuracy": float((expected.argmax(1) == labels).mean()),
            "C accuracy": float((got.argmax(1) == labels).mean()),
            "classes differing": int((got.argmax(1) != expected.argmax(1)).sum()),
            "max |C - engine|": float(np.abs(got - expected).max()),
            "engine ms/image": 1e3 * engine_time,
            "C ms/image": 1e3 * c_time,
            "C / engine": c_time / engine_time,
        }
    try:
        import onnxruntime as ort  # noqa: PLC0415

        _cli("export", "onnx", str(tmp / "job"), "-o", str(tmp / "lenet.onnx"))
        session = ort.InferenceSession(str(tmp / "lenet.onnx"),
                                       providers=["CPUExecutionProvider"])  # fmt: skip
        session.run(None, {"x": x[:1]})
        start = time.perf_counter()
        for i in range(len(x)):
            session.run(None, {"x": x[i : i + 1]})
        ort_time = (time.perf_counter() - start) / len(x)
        results["float"]["onnx bytes"] = (tmp / "lenet.onnx").stat().st_size
        results["float"]["onnxruntime ms/image"] = 1e3 * ort_time
        results["float"]["C / onnxruntime"] = results["float"]["C ms/image"] / (1e3 * ort_time)
    except ImportError:
        print("onnxruntime not installed: no ONNX timing")
    print(f"{len(x)} validation images, {args.epochs} epochs; folder {tmp}")
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()

"""Benchmark: the default project (LeNet on digits) deployed every way, in one table.

Trains ``projects/lenet_digits.ncproj`` (``--epochs``, default 20 as the project says) and
derives two quantized networks from the job: the 8-bit one (``quantize insert --bits 8
--delta 0.0625``, post-training) and a mixed-precision pick (``quantize sweep --bits 16,8
--delta 0.0625 --sensitivity 8 --budget 110000``: layers at 16 or 8 bits). Each is exported
as C (integer arithmetic for the quantized ones), ONNX (``--quantized``: int8/int16 QDQ) and
TFLite (float32, int8 calibrated on the training set, int8 from the 8-bit network's Deltas),
and run on every validation image (297), one image at a time. For each row:

* file bytes, flash (parameter) and RAM (arena) bytes where the format says them, and
  TensorFlow Lite Micro's arena for the int8 TFLite files (``tflite-micro`` package)
* accuracy against the engine's on the same network, classes that differ, the largest output
  difference, outputs within one output quantization step
* time per image and its ratio to the engine's forward pass (``neurocanvas forward``'s
  program) and to onnxruntime's float model measured in the same run; the C program's time
  includes starting the process and reading each image's file

    python tests/benchmarks/bench_deploy.py [--epochs 20]

Optional pieces (onnxruntime, LiteRT, tflite-micro, a C compiler) are skipped when missing.
"""

from __future__ import annotations

import argparse
import csv
import json
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

import engine.nn as nn
from engine.data import builtin
from engine.export import open_source
from engine.runtime.compiler import compile_network
from engine.runtime.inference import _load

ROOT = Path(__file__).resolve().parents[2]


def _cli(*args: str) -> str:
    done = subprocess.run([sys.executable, "-m", "engine.cli", *args], capture_output=True,
                          text=True, cwd=ROOT, check=True)  # fmt: skip
    return done.stdout


def _per_image(run, x: np.ndarray) -> tuple[np.ndarray, float]:
    """(outputs, seconds per image) of ``run`` called on one image at a time."""
    run(x[:1])  # warm up
    start = time.perf_counter()
    out = [np.asarray(run(x[i : i + 1]), dtype=np.float64).reshape(-1) for i in range(len(x))]
    return np.array(out), (time.perf_counter() - start) / len(x)


def _engine(source: Path, network: str, params: str):
    program = compile_network(open_source(source).project, network)
    scope = nn.parameter_scope("", {})
    scope.__enter__()
    p = program.create_parameters()
    nn.load_parameters(params)

    def run(x):
        with nn.no_grad():
            return program.output(program.forward({"x": x}, p), "y'").data

    return run


def _onnx(path: Path):
    import onnxruntime as ort  # optional

    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    name = session.get_inputs()[0].name
    return lambda x: session.run(None, {name: x})[0]


def _tflite(path: Path):
    from ai_edge_litert.interpreter import Interpreter  # optional

    interpreter = Interpreter(model_path=str(path))
    interpreter.allocate_tensors()
    inp, out = interpreter.get_input_details()[0], interpreter.get_output_details()[0]

    def run(x):
        value = x.transpose(0, 2, 3, 1)
        if inp["dtype"] == np.int8:
            scale, zero = inp["quantization"]
            value = np.clip(np.round(value / scale) + zero, -128, 127).astype(np.int8)
        interpreter.set_tensor(inp["index"], value)
        interpreter.invoke()
        y = interpreter.get_tensor(out["index"]).astype(np.float64)
        if out["dtype"] == np.int8:
            scale, zero = out["quantization"]
            y = (y - zero) * scale
        return y

    step = out["quantization"][0] if out["dtype"] == np.int8 else 0.0
    return run, step


def _c(folder: Path, raw: list[str]) -> tuple[np.ndarray, float]:
    subprocess.run(["make", "CFLAGS=-std=c99 -O2 -Wall -Wextra -Werror"], cwd=folder, check=True,
                   capture_output=True)  # fmt: skip
    start = time.perf_counter()
    out = subprocess.run([str(folder / "model"), *raw], capture_output=True, text=True,
                         check=True).stdout  # fmt: skip
    elapsed = (time.perf_counter() - start) / len(raw)
    return np.array([[float(v) for v in line.split()] for line in out.splitlines()]), elapsed


def _tflm_arena(model: Path) -> str:
    """TFLite Micro's arena for ``model``: total (activations + persistent) bytes."""
    code = ("import numpy as np\nfrom tflite_micro.python.tflite_micro import runtime\n"
            f"m = runtime.Interpreter.from_file({str(model)!r})\nd = m.get_input_details(0)\n"
            "m.set_input(np.zeros(d['shape'], d['dtype']), 0)\nm.invoke()\n"
            "m.print_allocations()\n")  # fmt: skip
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    found = dict(re.findall(r"Arena allocation (total|head|tail) (\d+) bytes",
                            done.stdout + done.stderr))  # fmt: skip
    if not found:
        return ""
    return f"TFLM {found['total']} ({found['head']} + {found['tail']})"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=20)
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="bench-deploy-"))
    job, q8 = tmp / "job", tmp / "q8.ncproj"
    _cli("train", "projects/lenet_digits.ncproj", "-o", str(job), "--epochs", str(args.epochs),
         "--seed", "0")  # fmt: skip
    _cli("quantize", "insert", str(job / "network.ncproj"), "-o", str(q8), "--bits", "8",
         "--delta", "0.0625")  # fmt: skip
    _cli("quantize", "sweep", "projects/lenet_digits.ncproj", "--job", str(job), "-o",
         str(tmp / "sweep"), "--bits", "16,8", "--delta", "0.0625", "--sensitivity", "8",
         "--budget", "110000")  # fmt: skip
    mixed = tmp / "sweep" / "mixed_precision"
    params = str(sorted(job.rglob("parameters.npz"))[0])
    mixed_params = str(sorted(mixed.rglob("parameters.npz"))[0])
    valid = builtin.ensure("digits")["validation"]
    with open(valid, newline="", encoding="utf-8") as f:
        rows = list(csv.reader(f))[1:]
    labels = np.array([int(r[1]) for r in rows])
    x = np.stack([_load(str(valid.parent / r[0]), True) for r in rows]).astype(np.float32)
    raw = []
    for i, row in enumerate(x):
        raw.append(str(tmp / f"in{i}.bin"))
        row.astype("<f4").tofile(raw[-1])

    mixed_network = open_source(mixed).runtime
    engines = {"float": _per_image(_engine(job, "MainRuntime", params), x),
               "8-bit": _per_image(_engine(q8, "Main_q8Runtime", params), x),
               "mixed": _per_image(_engine(mixed, mixed_network, mixed_params), x)}  # fmt: skip
    table = []

    def row(fmt, network, out, seconds, size="", flash="", arena="", step=0.0):
        expected, engine_time = engines[network]
        table.append({
            "format": fmt, "network": network, "file bytes": size, "flash bytes": flash,
            "arena bytes": arena, "accuracy %": 100 * float((out.argmax(1) == labels).mean()),
            "engine accuracy %": 100 * float((expected.argmax(1) == labels).mean()),
            "classes differing": int((out.argmax(1) != expected.argmax(1)).sum()),
            "max diff": float(np.abs(out - expected).max()),
            "within one step %": (100 * float((np.abs(out - expected) <= step * 1.0001).mean())
                                  if step else ""),
            "ms/image": 1e3 * seconds, "vs engine": seconds / engine_time,
        })  # fmt: skip

    for network in engines:
        out, seconds = engines[network]
        row("engine (forward)", network, out, seconds)
    try:
        for network, source, extra in (("float", job, []), ("8-bit", q8, [
                "--network", "Main_q8Runtime", "--params", params, "--quantized"]),
                ("mixed", mixed, ["--quantized"])):  # fmt: skip
            path = tmp / f"{network}.onnx"
            _cli("export", "onnx", str(source), "-o", str(path), *extra)
            out, seconds = _per_image(_onnx(path), x)
            row("ONNX (onnxruntime)", network, out, seconds, path.stat().st_size)
    except ImportError:
        print("onnxruntime not installed: no ONNX rows")
    if shutil.which("cc") or shutil.which("gcc"):
        q8_args = ["--network", "Main_q8Runtime", "--params", params]
        for network, source, extra in (("float", job, []), ("8-bit", q8, q8_args),
                                       ("mixed", mixed, [])):  # fmt: skip
            folder = tmp / f"c_{network}"
            _cli("export", "c", str(source), "-o", str(folder), *extra)
            summary = json.loads((folder / "export_summary.json").read_text())
            out, seconds = _c(folder, raw)
            size = (folder / "model").stat().st_size
            row(
                f"C ({summary['arithmetic']})",
                network,
                out,
                seconds,
                size,
                summary["flash_bytes"],
                summary["ram_bytes"],
            )
    try:
        for label, network, path, command in (
            ("TFLite float32", "float", tmp / "f.tflite", ["export", "tflite", str(job)]),
            ("TFLite int8, calibrated", "float", tmp / "c.tflite",
             ["export", "tflite", str(job), "--int8"]),
            ("TFLite int8, the network's Deltas", "8-bit", tmp / "q.tflite",
             ["export", "tflite", str(q8), "--network", "Main_q8Runtime", "--params", params,
              "--int8"]),
        ):  # fmt: skip
            _cli(*command, "-o", str(path))
            run, step = _tflite(path)
            out, seconds = _per_image(run, x)
            row(label, network, out, seconds, path.stat().st_size,
                arena=_tflm_arena(path) if step else "", step=step)  # fmt: skip
    except ImportError:
        print("ai-edge-litert not installed: no TFLite rows")
    onnx_float = next((r for r in table if r["format"].startswith("ONNX")
                       and r["network"] == "float"), None)  # fmt: skip
    for r in table:
        r["vs onnxruntime float"] = r["ms/image"] / onnx_float["ms/image"] if onnx_float else ""
    print(f"{len(x)} validation images, {args.epochs} epochs; folder {tmp}")
    keys = list(table[0])
    print("| " + " | ".join(keys) + " |")
    print("|" + "---|" * len(keys))
    for r in table:
        print("| " + " | ".join(f"{v:.3g}" if isinstance(v, float) else str(v)
                                for v in r.values()) + " |")  # fmt: skip


if __name__ == "__main__":
    main()

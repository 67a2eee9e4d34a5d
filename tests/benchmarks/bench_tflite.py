"""Benchmark: the default project (LeNet on digits) as TFLite, against the engine, onnxruntime,
the C export and TensorFlow Lite for Microcontrollers.

Trains ``projects/lenet_digits.ncproj`` (``--epochs``, default 20 as the project says), inserts
8-bit FixedPointQuantize layers (``quantize insert --bits 8 --delta 0.0625``) and exports:

* float32 TFLite of the job, int8 TFLite of the job (ranges calibrated on the training set),
  int8 TFLite of the 8-bit network (its quantizers' Deltas), the float ONNX, and the 8-bit
  network as C (integer arithmetic; its ``export_summary.json`` gives parameter and arena bytes)

then on every validation image reports file size, accuracy, outputs within one output step of
the engine's, and time per image (LiteRT's interpreter, the engine's forward pass and
onnxruntime one image at a time) as ratios to the engine measured in the same run; and the
arena TensorFlow Lite Micro allocates for each int8 file (the ``tflite-micro`` package's
recording allocator) beside the C export's.

    python tests/benchmarks/bench_tflite.py [--epochs 20]
"""

from __future__ import annotations

import argparse
import csv
import json
import re
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


def _tflm_arena(model: Path) -> dict[str, int] | None:
    """TFLite Micro's arena (total, head: activations, tail: persistent) for ``model``."""
    code = (
        "import numpy as np\n"
        "from tflite_micro.python.tflite_micro import runtime\n"
        f"m = runtime.Interpreter.from_file({str(model)!r})\n"
        "d = m.get_input_details(0)\n"
        "m.set_input(np.zeros(d['shape'], d['dtype']), 0)\n"
        "m.invoke()\n"
        "m.print_allocations()\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    text = done.stdout + done.stderr
    found = dict(re.findall(r"Arena allocation (total|head|tail) (\d+) bytes", text))
    return {k: int(v) for k, v in found.items()} or None


def _run_tflite(path: Path, x: np.ndarray) -> tuple[np.ndarray, float, float]:
    from ai_edge_litert.interpreter import Interpreter  # noqa: PLC0415

    interpreter = Interpreter(model_path=str(path))
    interpreter.allocate_tensors()
    inp, out = interpreter.get_input_details()[0], interpreter.get_output_details()[0]
    rows = []
    start = time.perf_counter()
    for row in x:
        value = row.transpose(1, 2, 0)[None]
        if inp["dtype"] == np.int8:
            scale, zero = inp["quantization"]
            value = np.clip(np.round(value / scale) + zero, -128, 127).astype(np.int8)
        interpreter.set_tensor(inp["index"], value)
        interpreter.invoke()
        y = interpreter.get_tensor(out["index"]).reshape(-1).astype(np.float64)
        if out["dtype"] == np.int8:
            scale, zero = out["quantization"]
            y = (y - zero) * scale
        rows.append(y)
    elapsed = (time.perf_counter() - start) / len(x)
    step = out["quantization"][0] if out["dtype"] == np.int8 else 0.0
    return np.array(rows), elapsed, step


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=20)
    args = parser.parse_args()
    import engine.nn as nn  # noqa: PLC0415
    from engine.data import builtin  # noqa: PLC0415
    from engine.export import open_source  # noqa: PLC0415
    from engine.runtime.compiler import compile_network  # noqa: PLC0415
    from engine.runtime.inference import _load  # noqa: PLC0415

    tmp = Path(tempfile.mkdtemp(prefix="bench-tflite-"))
    job = tmp / "job"
    _cli("train", "projects/lenet_digits.ncproj", "-o", str(job), "--epochs", str(args.epochs),
         "--seed", "0")  # fmt: skip
    q8 = tmp / "q8.ncproj"
    _cli("quantize", "insert", str(job / "network.ncproj"), "-o", str(q8), "--bits", "8",
         "--delta", "0.0625")  # fmt: skip
    params = str(sorted(job.rglob("parameters.npz"))[0])
    valid = builtin.ensure("digits")["validation"]
    with open(valid, newline="", encoding="utf-8") as f:
        rows = list(csv.reader(f))[1:]
    labels = np.array([int(r[1]) for r in rows])
    x = np.stack([_load(str(valid.parent / r[0]), True) for r in rows]).astype(np.float32)

    def engine(source: Path, network: str) -> tuple[np.ndarray, float]:
        program = compile_network(open_source(source).project, network)
        with nn.parameter_scope("", {}):
            p = program.create_parameters()
            nn.load_parameters(params)
            with nn.no_grad():
                out = np.concatenate([
                    np.asarray(program.output(program.forward({"x": x[i : i + 64]}, p),
                                              "y'").data)
                    for i in range(0, len(x), 64)])  # fmt: skip
                start = time.perf_counter()
                for i in range(len(x)):
                    program.forward({"x": x[i : i + 1]}, p)
        return out, (time.perf_counter() - start) / len(x)

    float_out, float_time = engine(job, "MainRuntime")
    q8_out, q8_time = engine(q8, "Main_q8Runtime")
    files = {
        "float32": (tmp / "lenet.tflite", ["export", "tflite", str(job)]),
        "int8 (calibrated)": (tmp / "lenet_int8.tflite", ["export", "tflite", str(job), "--int8"]),
        "int8 (8-bit network)": (tmp / "lenet_q8.tflite", ["export", "tflite", str(q8),
                                 "--network", "Main_q8Runtime", "--params", params, "--int8"]),
    }  # fmt: skip
    results: dict[str, dict] = {}
    for label, (path, command) in files.items():
        _cli(*command, "-o", str(path))
        got, elapsed, step = _run_tflite(path, x)
        expected, engine_time = (q8_out, q8_time) if "8-bit" in label else (float_out, float_time)
        row = {
            "file bytes": path.stat().st_size,
            "engine accuracy": float((expected.argmax(1) == labels).mean()),
            "TFLite accuracy": float((got.argmax(1) == labels).mean()),
            "classes differing": int((got.argmax(1) != expected.argmax(1)).sum()),
            "max |TFLite - engine|": float(np.abs(got - expected).max()),
            "LiteRT ms/image": 1e3 * elapsed,
            "engine ms/image": 1e3 * engine_time,
            "LiteRT / engine": elapsed / engine_time,
        }
        if step:
            row["within one step"] = float((np.abs(got - expected) <= step * 1.0001).mean())
            row["TFLite Micro arena"] = _tflm_arena(path)
        results[label] = row
    c_dir = tmp / "c_q8"
    _cli("export", "c", str(q8), "--network", "Main_q8Runtime", "--params", params, "-o",
         str(c_dir))  # fmt: skip
    summary = json.loads((c_dir / "export_summary.json").read_text())
    results["C (8-bit network, integer)"] = {
        "arithmetic": summary["arithmetic"], "arena bytes": summary["ram_bytes"],
        "parameter bytes": summary["flash_bytes"],
    }  # fmt: skip
    try:
        import onnxruntime as ort  # noqa: PLC0415

        _cli("export", "onnx", str(job), "-o", str(tmp / "lenet.onnx"))
        session = ort.InferenceSession(str(tmp / "lenet.onnx"),
                                       providers=["CPUExecutionProvider"])  # fmt: skip
        session.run(None, {"x": x[:1]})
        start = time.perf_counter()
        for i in range(len(x)):
            session.run(None, {"x": x[i : i + 1]})
        ort_time = (time.perf_counter() - start) / len(x)
        results["onnxruntime (float)"] = {"file bytes": (tmp / "lenet.onnx").stat().st_size,
                                          "ms/image": 1e3 * ort_time,
                                          "/ engine": ort_time / float_time}  # fmt: skip
        for label in files:
            results[label]["LiteRT / onnxruntime"] = results[label]["LiteRT ms/image"] / (
                1e3 * ort_time
            )
    except ImportError:
        print("onnxruntime not installed: no ONNX timing")
    print(f"{len(x)} validation images, {args.epochs} epochs; folder {tmp}")
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()

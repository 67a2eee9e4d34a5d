"""The engine stands alone: importing it (and every F function) never imports Qt."""

import os
import subprocess
import sys


def test_engine_never_imports_qt():
    code = (
        "import sys, pkgutil, importlib, engine\n"
        "for m in pkgutil.walk_packages(engine.__path__, 'engine.'):\n"
        "    importlib.import_module(m.name)\n"
        "bad = [m for m in sys.modules if m.startswith(('PySide6', 'shiboken6', 'console_app'))]\n"
        "assert not bad, bad\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


def test_cli_doctor_runs():
    result = subprocess.run(
        [sys.executable, "-m", "engine.cli", "doctor", "--device", "cpu"],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr
    assert "device      cpu" in result.stdout
    threads_line = next(line for line in result.stdout.splitlines() if line.startswith("threads"))
    forcing = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "NEUROCANVAS_THREADS")
    if (os.cpu_count() or 1) > 1 and not any(os.environ.get(name) for name in forcing):
        # NumPy's wheels bring OpenBLAS, whose blocking engine/core/products.py finds
        assert "whichever the steps find faster (OpenBLAS blocks K by" in threads_line


def test_cli_gpu_request_without_gpu_is_a_clear_error():
    code = (
        "from engine.core import backend\n"
        "try:\n"
        "    backend.set_device('gpu')\n"
        "except backend.DeviceError as e:\n"
        "    print('ERR', e)\n"
        "else:\n"
        "    print('GPU')\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True).stdout
    assert out.startswith("GPU") or ("GPU requested but not available" in out), out


def test_a_training_process_loads_no_heavy_library_it_does_not_use():
    """The train and evaluate commands' modules pull in neither networkx, SciPy, matplotlib,
    python-pptx, onnx nor numba at import (issue 33's cold start: each costs 0.1-0.5 s; numba
    is set up on first use or by ``_jit.preload``)."""
    code = (
        "import sys\n"
        "import engine.cli.train, engine.cli.evaluate\n"
        "import engine.runtime.run, engine.runtime.evaluator\n"
        "heavy = ('networkx', 'scipy', 'matplotlib', 'pptx', 'onnx', 'numba')\n"
        "print(sorted(m for m in heavy if m in sys.modules))\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"

"""The engine stands alone: importing it (and every F function) never imports Qt."""

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

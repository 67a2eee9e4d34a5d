"""File > Export writes the edited project as Python code and ONNX (engine.export)."""

from __future__ import annotations

import ast
import shutil
from pathlib import Path

import pytest

from console_app import export_actions

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def lenet_window(make_window, tmp_path):
    target = tmp_path / "lenet_digits.ncproj"
    shutil.copyfile(ROOT / "projects" / "lenet_digits.ncproj", target)
    return make_window(str(target))


def test_export_python_code_from_the_menu(lenet_window, tmp_path):
    out = export_actions.export_python_code(lenet_window, tmp_path / "lenet.py")
    assert out == tmp_path / "lenet.py"
    names = [n.name for n in ast.parse(out.read_text()).body if isinstance(n, ast.FunctionDef)]
    assert "network_main" in names and "network_mainruntime" in names


def test_export_onnx_from_the_menu_and_errors_are_reported(lenet_window, tmp_path):
    pytest.importorskip("onnx", reason="onnxruntime not installed")
    out = export_actions.export_onnx_model(lenet_window, tmp_path / "lenet.onnx")
    assert out is not None and out.stat().st_size > 1000
    assert export_actions.export_python_code(lenet_window, tmp_path / "missing" / "x.py") is None
    assert lenet_window.last_error.startswith("Export Python code:")

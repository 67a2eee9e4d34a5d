"""File > Export writes the edited project as Python code, ONNX and C source (engine.export)."""

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


@pytest.mark.parametrize(("label", "module"), [("for NeuroCanvas (engine.nn)...", "engine.nn"),
                                               ("for nnabla...", "nnabla")])  # fmt: skip
def test_file_export_python_code_offers_both_targets(lenet_window, tmp_path, monkeypatch,
                                                     label, module):  # fmt: skip
    """File > Export > Python code > <target>: the submenu action asks for a file and writes
    code importing that target's library."""
    out = tmp_path / "lenet.py"
    monkeypatch.setattr(export_actions.QFileDialog, "getSaveFileName",
                        lambda *a, **k: (str(out), "Python (*.py)"))  # fmt: skip
    python = next(a for a in lenet_window.export_menu.actions() if a.text() == "Python code...")
    action = next(a for a in python.menu().actions() if a.text() == label)
    action.trigger()
    assert f"import {module} as nn" in out.read_text()
    assert ast.parse(out.read_text())
    # The file has no trained parameters: the status bar says so and where they come from, and
    # the file itself, when run, says the same in one line (tests/engine/cli/test_export.py).
    assert lenet_window.statusBar().currentMessage() == (
        f"Exported {out}: the network as edited, with freshly initialized parameters; a trained "
        "model: right-click its job in TRAINING > Export Python code..."
    )
    assert "def parameters_file():" in out.read_text()


def test_export_onnx_from_the_menu_and_errors_are_reported(lenet_window, tmp_path):
    pytest.importorskip("onnx", reason="onnxruntime not installed")
    out = export_actions.export_onnx_model(lenet_window, tmp_path / "lenet.onnx")
    assert out is not None and out.stat().st_size > 1000
    assert export_actions.export_python_code(lenet_window, tmp_path / "missing" / "x.py") is None
    assert lenet_window.last_error.startswith("Export Python code:")


def test_a_network_with_generator_inputs_exports_from_the_menu(make_window, tmp_path, monkeypatch):
    """NNC's DCGAN (its noise a Normal generator input): File > Export > Python code writes
    every network, the image generator taking batch_size, and reports no error."""
    sample = (
        ROOT / "tests" / "fixtures" / "nnc-samples" / "image_generation" / "mnist_dcgan.sdcproj"
    )
    target = tmp_path / "mnist_dcgan.sdcproj"
    shutil.copyfile(sample, target)
    window = make_window(str(target))
    out = tmp_path / "dcgan.py"
    monkeypatch.setattr(export_actions.QFileDialog, "getSaveFileName",
                        lambda *a, **k: (str(out), "Python (*.py)"))  # fmt: skip
    python = next(a for a in window.export_menu.actions() if a.text() == "Python code...")
    next(a for a in python.menu().actions() if a.text().startswith("for NeuroCanvas")).trigger()
    text = out.read_text()
    names = [n.name for n in ast.parse(text).body if isinstance(n, ast.FunctionDef)]
    assert "network_traingenerator" in names and "network_traindiscriminator" in names
    assert "def network_runtime(batch_size=64, test=False):" in text
    assert "z = nn.Variable.from_numpy_array(I.NormalInitializer(1.0)((batch_size, 100)))" in text
    assert not getattr(window, "last_error", "")


def test_file_export_c_source_writes_a_folder_that_builds(lenet_window, tmp_path, monkeypatch):
    """File > Export > C source...: the action asks for a new folder and writes the C files;
    the same folder again is refused with the error shown, nothing overwritten."""
    import json
    import subprocess

    out = tmp_path / "lenet_c"
    monkeypatch.setattr(export_actions.QFileDialog, "getSaveFileName",
                        lambda *a, **k: (str(out), "Folder (*)"))  # fmt: skip
    action = next(a for a in lenet_window.export_menu.actions() if a.text() == "C source...")
    assert action.isEnabled()
    action.trigger()
    assert sorted(p.name for p in out.iterdir()) == sorted(
        ["model.h", "model.c", "parameters.c", "main.c", "Makefile", "export_summary.json"]
    )
    assert json.loads((out / "export_summary.json").read_text())["ram_bytes"] == 38720
    assert not getattr(lenet_window, "last_error", "")
    if shutil.which("cc"):
        done = subprocess.run(["cc", "-std=c99", "-O2", "-Wall", "-Wextra", "-Werror", "-o",
                               "model", "main.c", "model.c", "parameters.c", "-lm"], cwd=out,
                              capture_output=True, text=True)  # fmt: skip
        assert done.returncode == 0, done.stderr[-2000:]
    before = (out / "model.c").stat().st_mtime_ns
    action.trigger()
    assert lenet_window.last_error.startswith("Export C source:") and "new folder" in (
        lenet_window.last_error
    )
    assert (out / "model.c").stat().st_mtime_ns == before


def test_file_export_tflite_writes_a_model_litert_runs(lenet_window, tmp_path, monkeypatch):
    """File > Export > TFLite...: the action asks for a file and writes the edited network as
    float32 TFLite; LiteRT runs it (NHWC input, the 10 Softmax probabilities out). A network
    the writer cannot express is named in the error shown, nothing written."""
    import numpy as np

    litert = pytest.importorskip(
        "ai_edge_litert.interpreter", reason="ai-edge-litert (the tflite extra) is not installed"
    )
    out = tmp_path / "lenet.tflite"
    monkeypatch.setattr(export_actions.QFileDialog, "getSaveFileName",
                        lambda *a, **k: (str(out), "TensorFlow Lite (*.tflite)"))  # fmt: skip
    action = next(a for a in lenet_window.export_menu.actions() if a.text() == "TFLite...")
    assert action.isEnabled()
    action.trigger()
    assert not getattr(lenet_window, "last_error", "")
    interpreter = litert.Interpreter(model_path=str(out))
    interpreter.allocate_tensors()
    inp, output = interpreter.get_input_details()[0], interpreter.get_output_details()[0]
    assert inp["shape"].tolist() == [1, 28, 28, 1] and inp["dtype"] == np.float32
    interpreter.set_tensor(inp["index"], np.full((1, 28, 28, 1), 0.5, np.float32))
    interpreter.invoke()
    probabilities = interpreter.get_tensor(output["index"])
    assert probabilities.shape == (1, 10) and abs(float(probabilities.sum()) - 1) < 1e-5


def test_file_export_tflite_names_the_layers_it_cannot_write(make_window, tmp_path, monkeypatch):
    lstm = tmp_path / "lstm.ncproj"
    shutil.copyfile(ROOT / "projects" / "lstm_4or9.ncproj", lstm)
    window = make_window(str(lstm))
    out = tmp_path / "lstm.tflite"
    monkeypatch.setattr(export_actions.QFileDialog, "getSaveFileName",
                        lambda *a, **k: (str(out), "TensorFlow Lite (*.tflite)"))  # fmt: skip
    next(a for a in window.export_menu.actions() if a.text() == "TFLite...").trigger()
    assert window.last_error.startswith("Export TFLite:")
    assert '"RecurrentInput" (RecurrentInput)' in window.last_error
    assert not out.exists()

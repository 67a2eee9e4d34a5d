"""Edit > Quantize Network...: the dialog inserts quantizers and the canvas shows them."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QDialogButtonBox

pytestmark = pytest.mark.gui


def _open(window):
    (action,) = [a for a in window.findChildren(QAction) if a.objectName() == "quantize_network"]
    edit_menu = next(m for m in window.menuBar().actions() if m.text() == "&Edit").menu()
    assert action in edit_menu.actions()
    action.trigger()
    return window.quantize_dialog


def _type(qtbot, widget, text):
    widget.selectAll() if hasattr(widget, "selectAll") else widget.lineEdit().selectAll()
    qtbot.keyClick(widget, Qt.Key.Key_Delete)
    qtbot.keyClicks(widget, text)


def test_the_dialog_inserts_quantizers_and_the_canvas_shows_them(lenet_window, qtbot):
    window = lenet_window
    doc, tab = window.document, window.edit_tab
    dialog = _open(window)
    assert dialog.isVisible() and dialog.name.text() == "Main_q8"
    _type(qtbot, dialog.bits, "4")
    assert dialog.name.text() == "Main_q4"
    qtbot.mouseClick(dialog.targets["biases"], Qt.MouseButton.LeftButton)
    _type(qtbot, dialog.delta, "0.125")
    qtbot.mouseClick(dialog.buttons.button(QDialogButtonBox.StandardButton.Ok),
                     Qt.MouseButton.LeftButton)  # fmt: skip
    assert not dialog.isVisible()
    assert doc.project.network_names == ("Main", "Main_q4")
    assert tab.current_network() == "Main_q4"
    scene = tab.current_scene()
    quantizers = {n: i for n, i in scene.layer_items.items()
                  if i.layer.type == "FixedPointQuantize"}  # fmt: skip
    weights = {"Convolution_W_Quantize", "Convolution_2_W_Quantize", "Affine_W_Quantize",
               "Affine_2_W_Quantize"}  # fmt: skip
    assert weights < set(quantizers) and not any("_b_" in n for n in quantizers)
    assert {i.layer.properties["N"] for i in quantizers.values()} == {"4"}
    assert {i.layer.properties["Delta"] for i in quantizers.values()} == {"0.125"}
    assert scene.layer_items["Convolution/conv/W"].layer.type == "Parameter"
    # Shapes flow through the quantizers: the canvas shows them, with no problem.
    assert scene.layer_items["Convolution/conv/W"].stat_text == "16,1,7,7"
    assert scene.layer_items["Affine_2"].stat_text == "10"
    assert not any(i.error for i in scene.layer_items.values())
    # The statistics pane counts the 4-bit weights at 4 bits (the biases stay float32).
    assert tab.statistics.value("CostParameter") == "78,810"
    assert tab.statistics.value("ParameterBytes") == f"{78_604 // 2 + 4 * 206:,}"
    assert doc.stack.undo_text() == "Quantize network Main"
    window.undo()
    assert doc.project.network_names == ("Main",)


def test_the_dialog_refuses_a_bad_delta_and_adds_nothing(lenet_window, qtbot):
    dialog = _open(lenet_window)
    _type(qtbot, dialog.delta, "-2")
    qtbot.mouseClick(dialog.buttons.button(QDialogButtonBox.StandardButton.Ok),
                     Qt.MouseButton.LeftButton)  # fmt: skip
    assert dialog.isVisible()
    assert dialog.error.text() == "delta: expected a number > 0. Received: -2.0"
    assert lenet_window.document.project.network_names == ("Main",)
    qtbot.mouseClick(dialog.buttons.button(QDialogButtonBox.StandardButton.Cancel),
                     Qt.MouseButton.LeftButton)  # fmt: skip
    assert not dialog.isVisible() and lenet_window.document.project.network_names == ("Main",)


def test_calibrating_from_a_finished_job_runs_in_a_child_and_sets_each_delta(
    make_window, tmp_path, monkeypatch, qtbot
):
    import shutil
    from pathlib import Path

    from engine.formats import load_project
    from engine.quantization.calibrate import calibrate
    from engine.quantization.scheme import power_of_two_delta
    from engine.runtime.job import Job
    from engine.runtime.run import train

    monkeypatch.setenv("NEUROCANVAS_CACHE", str(tmp_path / "cache"))
    project_file = tmp_path / "iris.ncproj"
    shutil.copyfile(Path(__file__).parents[3] / "projects" / "iris.ncproj", project_file)
    job = tmp_path / "iris.files" / "20260101_000000"
    train(project_file, job_dir=job, epochs=3, seed=0)
    window = make_window(project_file)
    dialog = _open(window)
    assert dialog.delta_mode.currentText() == "Calibrate from a trained job"
    assert dialog.job.currentText() == job.name and not dialog.delta.isEnabled()
    qtbot.mouseClick(dialog.buttons.button(QDialogButtonBox.StandardButton.Ok),
                     Qt.MouseButton.LeftButton)  # fmt: skip
    network = window.document.project.network("Main_q8")
    assert window.edit_tab.current_network() == "Main_q8"
    ranges = calibrate(load_project(project_file), "Main", Job(job))  # in this process
    for layer in network.layers:
        if layer.type != "FixedPointQuantize":
            continue
        source = network.inputs_of(layer.name)[0].source
        sign = layer.properties["Sign"] == "True"
        seen = ranges.parameters.get(source, ranges.activations.get(source))
        assert float(layer.properties["Delta"]) == power_of_two_delta(seen, 8, sign), layer.name

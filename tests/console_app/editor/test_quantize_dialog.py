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

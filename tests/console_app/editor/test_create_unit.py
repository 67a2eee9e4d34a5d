"""Create Unit moves a selection into a unit network; arguments show on the Unit layer."""

from __future__ import annotations

import pytest

from console_app.editor.create_unit import create_unit
from engine.graph import commands as C
from engine.graph.project import Layer, Link, ModelError

pytestmark = pytest.mark.gui

BLOCK = ["Convolution_2", "MaxPooling_2", "Tanh_2"]


def test_create_unit_and_edit_its_argument(lenet_window):
    window = lenet_window
    doc, tab = window.document, window.edit_tab
    project = doc.project
    before = [n.name for n in project.networks], list(project.network("Main").layers)
    main_scene = tab.current_scene()
    main_scene.select_layers(BLOCK)
    unit_net, unit_layer = window.create_unit()
    assert (unit_net, unit_layer) == ("Unit", "Unit")
    main = project.network("Main")
    unit = project.network("Unit")
    assert not any(main.has_layer(n) for n in BLOCK)
    assert unit.layer_names == ("Input", *BLOCK)
    assert unit.layer("Input").properties["Size"] == "16,11,11"
    assert [(k.source, k.destination) for k in unit.links] == [
        ("Input", "Convolution_2"), ("Convolution_2", "MaxPooling_2"), ("MaxPooling_2", "Tanh_2"),
    ]  # fmt: skip
    assert [(k.source, k.destination) for k in main.inputs_of("Unit")] == [("MaxPooling", "Unit")]
    assert [k.destination for k in main.outputs_of("Unit")] == ["Affine"]
    # Shapes and statistics go on through the unit.
    assert main_scene.layer_items["Unit"].stat_text == "30,4,4"
    assert main_scene.layer_items["Affine"].stat_text == "150"
    assert tab.statistics.value("CostParameter") == "78,810"
    assert tab.networks.tabText(1) == "Unit"
    assert doc.stack.undo_text() == "Create Unit Unit"

    # Give the unit an argument and use it inside; the caller's Unit layer offers it.
    doc.push(C.AddLayer(unit, Layer("Maps", "Argument", {"Value": "30", "Type": "PInt"},
                                    position=(300, 24))))  # fmt: skip
    doc.push(C.SetProperty(unit, "Convolution_2", "OutMaps", "Maps"))
    main_scene.select_layers(["Unit"])
    pane = tab.property_pane
    assert pane.rows["Maps"].argument and pane.text_of("Maps") == "30"
    assert pane.set_text("Maps", "12")
    assert main.layer("Unit").properties["Maps"] == "12"
    assert main_scene.layer_items["Unit"].stat_text == "12,4,4"
    assert not pane.set_text("Maps", "-1")  # PInt argument: refused
    assert "Maps" in pane.error.text()
    assert pane.set_text("Maps", "")  # cleared: back to the Argument's default
    assert "Maps" not in main.layer("Unit").properties
    assert main_scene.layer_items["Unit"].stat_text == "30,4,4"

    tab.current_scene().open_unit.emit("Unit")
    assert tab.current_scene().network is unit
    assert tab.current_scene().layer_items["Tanh_2"].stat_text == "30,4,4"

    for _ in range(4):
        window.undo()
    assert [n.name for n in project.networks] == before[0]
    assert list(main.layers) == before[1]
    assert tab.networks.count() == 1
    window.redo()
    assert project.has_network("Unit") and main.has_layer("Unit")


def test_create_unit_refuses_selections_a_unit_cannot_hold(lenet_window):
    doc = lenet_window.document
    main = doc.project.network("Main")
    with pytest.raises(ModelError, match="2 inputs"):
        create_unit(doc, main, ["ReLU", "Affine"])
    with pytest.raises(ModelError, match="select the layers"):
        create_unit(doc, main, [])
    doc.push(C.Connect(main, Link("ReLU", "Softmax")))
    lenet_window.edit_tab.current_scene().select_layers(["ReLU", "MaxPooling"])
    assert lenet_window.create_unit() is None  # both feed layers outside the selection
    assert "one output" in lenet_window.statusBar().currentMessage()
    assert len(doc.stack) == 1 and doc.project.network_names == ("Main",)

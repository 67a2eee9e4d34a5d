"""Create Unit moves a selection into a unit network; arguments show on the Unit layer."""

from __future__ import annotations

import pytest

from console_app.editor.create_unit import argument_choices, create_unit
from console_app.editor.create_unit_dialog import CreateUnitDialog
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
    window.ask_create_unit = lambda choices, name: (name, [])
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
    lenet_window.ask_create_unit = lambda choices, name: pytest.fail("asked for a bad selection")
    assert lenet_window.create_unit() is None  # both feed layers outside the selection
    assert "one output" in lenet_window.statusBar().currentMessage()
    assert len(doc.stack) == 1 and doc.project.network_names == ("Main",)


def test_create_unit_with_an_argument_then_change_it_on_the_unit_layer(lenet_window, qtbot):
    window = lenet_window
    doc, tab = window.document, window.edit_tab
    main = doc.project.network("Main")
    scene = tab.current_scene()
    scene.select_layers(["Convolution", "ReLU"])
    asked = {}

    def answer(choices, name):
        dialog = CreateUnitDialog(choices, name, doc.project.network_names, window)
        qtbot.addWidget(dialog)
        dialog.check("Convolution.OutMaps")
        asked["labels"] = [c.label for c in choices]
        return dialog.unit_name(), dialog.chosen()

    window.ask_create_unit = answer
    steps = len(doc.stack)
    assert window.create_unit() == ("Unit", "Unit")
    assert "Convolution.OutMaps = 16 (PInt)" in asked["labels"]
    assert "Convolution.KernelShape = 7,7 (PIntArray)" in asked["labels"]
    assert "Convolution.BorderMode = valid (Text)" in asked["labels"]  # an Option: Text
    assert not any(label.startswith("ReLU.") for label in asked["labels"])  # only a macro
    assert len(doc.stack) == steps + 1 and doc.stack.undo_text() == "Create Unit Unit"

    unit = doc.project.network("Unit")
    assert unit.layer_names == ("Input", "Convolution", "ReLU", "OutMaps")
    argument = unit.layer("OutMaps")
    assert argument.type == "Argument"
    assert argument.properties == {"Value": "16", "Type": "PInt", "Search": "False"}
    assert unit.layer("Convolution").properties["OutMaps"] == "*OutMaps"
    caller = main.layer("Unit")
    assert caller.properties == {"Network": "Unit", "ParameterScope": "*Name", "OutMaps": "16"}
    assert scene.layer_items["Unit"].stat_text == "16,22,22"
    assert tab.statistics.value("CostParameter") == "78,810"  # unchanged by the move

    # The Unit layer passes another value: the shapes and statistics downstream follow.
    scene.select_layers(["Unit"])
    pane = tab.property_pane
    assert pane.rows["OutMaps"].argument and pane.text_of("OutMaps") == "16"
    assert pane.set_text("OutMaps", "20")
    assert main.layer("Unit").properties["OutMaps"] == "20"
    assert scene.layer_items["Unit"].stat_text == "20,22,22"
    assert scene.layer_items["MaxPooling"].stat_text == "20,11,11"
    assert scene.layer_items["Convolution_2"].stat_text == "30,9,9"
    # Convolution 16->20 maps: W and b grow by 4*49+4; Convolution_2's W grows by 30*4*9.
    assert tab.statistics.value("CostParameter") == f"{78_810 + 4 * 49 + 4 + 30 * 4 * 9:,}"
    assert not pane.set_text("OutMaps", "0")  # a PInt argument
    assert "positive" in pane.error.text()

    window.undo()  # the argument edit
    assert scene.layer_items["MaxPooling"].stat_text == "16,11,11"
    window.undo()  # the whole Create Unit
    assert doc.project.network_names == ("Main",)
    assert main.layer("Convolution").properties["OutMaps"] == "16"
    assert [k.destination for k in main.outputs_of("Convolution")] == ["ReLU"]


def test_argument_choices_and_names(lenet_window):
    doc = lenet_window.document
    main = doc.project.network("Main")
    choices = {
        c.label.split(" = ")[0]: c for c in argument_choices(main, ["Convolution_2", "Affine"])
    }
    assert choices["Affine.OutShape"].type == "PIntArray"
    assert choices["Convolution_2.WithBias"].type == "Boolean"
    assert choices["Affine.W.InitializerMultiplier"].type == "Float"
    assert "Affine.W.File" not in choices and "Convolution_2.Padding" in choices  # 0,0 here
    picked = [choices["Convolution_2.OutMaps"], choices["Affine.W.InitializerMultiplier"]]
    create_unit(doc, main, ["MaxPooling_2", "Tanh_2", "Convolution_2", "Affine"], picked, "Block")
    unit = doc.project.network("Block")
    assert unit.layer("Affine").properties["W.InitializerMultiplier"] == "*W_InitializerMultiplier"
    assert unit.layer("W_InitializerMultiplier").properties["Type"] == "Float"
    assert main.layer("Block").properties["OutMaps"] == "30"
    assert lenet_window.edit_tab.current_scene().layer_items["Block"].stat_text == "150"
    with pytest.raises(ModelError, match="already exists"):
        create_unit(doc, main, ["Affine_2"], (), "Block")


def test_the_dialog_checks_the_unit_name(lenet_window, qtbot):
    main = lenet_window.document.project.network("Main")
    dialog = CreateUnitDialog(argument_choices(main, ["Convolution"]), "Unit", ["Main"])
    qtbot.addWidget(dialog)
    assert dialog.chosen() == []
    dialog.name_edit.setText("Main")
    dialog.accept()
    assert "already exists" in dialog.error.text() and dialog.result() == 0
    dialog.name_edit.setText("Conv[1]")
    dialog.accept()
    assert "[ ]" in dialog.error.text()
    dialog.name_edit.setText("Stem")
    dialog.check("Convolution.KernelShape")
    dialog.accept()
    assert dialog.result() == CreateUnitDialog.DialogCode.Accepted
    assert [c.prop for c in dialog.chosen()] == ["KernelShape"]


def test_making_a_unit_lowers_output_only_as_the_tooltip_explains(lenet_window):
    """Issue 35, item 6: NNC counts a Unit layer's own output only (not the outputs of the
    layers inside it) while every cost counts the inside; the statistics pane says so."""
    window = lenet_window
    tab = window.edit_tab
    before = {s: tab.statistics.value(s) for s in ("Output", "CostParameter", "CostMultiplyAdd",
                                                   "CostIf", "CostExp")}  # fmt: skip
    inner = 30 * 9 * 9 + 30 * 4 * 4  # Convolution_2 (30,9,9) and MaxPooling_2 (30,4,4)
    tab.current_scene().select_layers(BLOCK)
    window.ask_create_unit = lambda choices, name: (name, [])
    window.actions_by_name["create_unit"].trigger()
    assert window.document.project.has_network("Unit")
    after = {s: tab.statistics.value(s) for s in before}
    assert {s: v for s, v in after.items() if s != "Output"} == {
        s: v for s, v in before.items() if s != "Output"
    }
    as_int = {k: int(v.replace(",", "")) for k, v in (("b", before["Output"]),
                                                        ("a", after["Output"]))}  # fmt: skip
    assert as_int["b"] - as_int["a"] == inner  # Tanh_2's output is now the Unit's own
    tip = tab.statistics.item(0, 0).toolTip()
    assert tab.statistics.item(0, 0).text() == "Output"
    assert "a Unit layer counts only its own output" in tip and "costs" in tip


def test_a_unit_box_shows_its_argument_values(make_window, tmp_path, qtbot):
    """Issue 35, item 5: Unit boxes showed only "Net : ResidualBlock"; they show the values of
    the unit's arguments too, as set on the layer or else the unit's default, and follow edits."""
    import shutil
    from pathlib import Path

    target = tmp_path / "residual.ncproj"
    shutil.copyfile(Path(__file__).resolve().parents[3] / "projects" / "residual_digits.ncproj",
                    target)  # fmt: skip
    window = make_window(str(target))
    tab, doc = window.edit_tab, window.document
    scene = tab.current_scene()
    assert scene.layer_items["Res1"].subtitle.endswith("   Maps : 16")
    scene.select_layers(["Res1"])
    assert tab.property_pane.set_text("Maps", "32")
    assert scene.layer_items["Res1"].subtitle.endswith("   Maps : 32")
    assert tab.property_pane.set_text("Maps", "")  # cleared: the unit's default shows
    unit = doc.project.network("ResidualBlock")
    doc.push(C.SetProperty(unit, "Maps", "Value", "24"))  # the default, edited in the unit
    qtbot.waitUntil(lambda: scene.layer_items["Res1"].subtitle.endswith("   Maps : 24"))

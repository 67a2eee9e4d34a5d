"""Argument layers in the property pane: Name (references follow), Type, Value, Search."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QComboBox

from console_app.editor.arguments import check_argument_name, rename_argument
from console_app.editor.create_unit import argument_choices, create_unit
from engine.graph import commands as C
from engine.graph.project import Layer, ModelError

pytestmark = pytest.mark.gui


@pytest.fixture
def unit_window(lenet_window):
    """LeNet with Convolution+ReLU in unit network "Unit" and OutMaps as its argument."""
    doc = lenet_window.document
    main = doc.project.network("Main")
    picked = [c for c in argument_choices(main, ["Convolution"]) if c.prop == "OutMaps"]
    create_unit(doc, main, ["Convolution", "ReLU"], picked)
    return lenet_window


def _pane(window, network, layer):
    tab = window.edit_tab
    tab.show_network(network)
    tab.current_scene().select_layers([layer])
    assert tab.property_pane.layer_name == layer
    return tab.property_pane


def test_argument_value_is_checked_against_its_type(unit_window):
    doc = unit_window.document
    unit = doc.project.network("Unit")
    pane = _pane(unit_window, "Unit", "OutMaps")
    assert set(pane.rows) == {"Value", "Type", "Search"}
    kinds = pane.rows["Type"].widget
    assert isinstance(kinds, QComboBox) and not kinds.isEditable()
    assert kinds.findText("PIntArrays") >= 0 and kinds.currentText() == "PInt"
    assert not pane.set_text("Value", "-4")
    assert "property Value" in pane.error.text() and "positive" in pane.error.text()
    assert not pane.set_text("Value", "2.5")
    assert unit.layer("OutMaps").properties["Value"] == "16"
    assert pane.set_text("Value", "8")
    # The unit's own canvas shows the default; the caller passes its own value until cleared.
    tab = unit_window.edit_tab
    assert tab.current_scene().layer_items["Convolution"].stat_text == "8,22,22"
    assert tab.view_of("Main").network_scene.layer_items["Unit"].stat_text == "16,22,22"
    doc.push(C.SetProperty(doc.project.network("Main"), "Unit", "OutMaps", None))
    tab.show_network("Main")
    assert tab.current_scene().layer_items["Unit"].stat_text == "8,22,22"
    pane = _pane(unit_window, "Unit", "OutMaps")

    # Type: refused while the Value does not fit; the list shows the stored Type again.
    assert pane.set_text("Type", "Float") and pane.set_text("Value", "2.5")
    assert not pane.set_text("Type", "PInt")
    assert "the Value 2.5 is not a PInt" in pane.error.text()
    assert pane.text_of("Type") == "Float" and unit.layer("OutMaps").properties["Type"] == "Float"
    assert pane.set_text("Type", "Text") and pane.set_text("Value", "anything")
    assert pane.set_text("Search", "True")
    assert unit.layer("OutMaps").properties == {
        "Value": "anything",
        "Type": "Text",
        "Search": "True",
    }


def test_renaming_an_argument_renames_its_references_in_one_step(unit_window):
    doc = unit_window.document
    project = doc.project
    unit, main = project.network("Unit"), project.network("Main")
    doc.push(C.SetProperty(unit, "Convolution", "KernelShape", "OutMaps-9,OutMaps-9"))
    doc.push(C.AddLayer(unit, Layer("Twice", "Argument", {"Value": "OutMaps*2", "Type": "PInt"})))
    pane = _pane(unit_window, "Unit", "OutMaps")
    steps = len(doc.stack)
    pane.name_edit.setText("Maps")
    pane._rename()
    assert pane.layer_name == "Maps" and len(doc.stack) == steps + 1
    assert unit.layer("Convolution").properties["OutMaps"] == "*Maps"
    # A bare OutMaps in a Convolution is its own OutMaps property: left alone.
    assert unit.layer("Convolution").properties["KernelShape"] == "OutMaps-9,OutMaps-9"
    assert unit.layer("Twice").properties["Value"] == "Maps*2"
    assert (
        main.layer("Unit").properties["Maps"] == "16"
        and "OutMaps" not in main.layer("Unit").properties
    )
    assert doc.stack.undo_text() == "Rename argument OutMaps to Maps"
    unit_window.edit_tab.show_network("Main")
    assert unit_window.edit_tab.current_scene().layer_items["Unit"].stat_text == "16,22,22"
    assert unit_window.edit_tab.problems.count() == 0
    unit_window.undo()
    assert unit.layer("Convolution").properties["OutMaps"] == "*OutMaps"
    assert main.layer("Unit").properties["OutMaps"] == "16"

    pane = _pane(unit_window, "Unit", "OutMaps")
    for bad, why in (("2x", "a letter or _"), ("Network", "property of every Unit layer"),
                     ("Convolution", "already exists"), ("Out Maps", "a letter or _")):  # fmt: skip
        pane.name_edit.setText(bad)
        pane._rename()
        assert why in pane.error.text() and pane.layer_name == "OutMaps"
    assert check_argument_name(unit, "OutMaps", "OutMaps") is None
    with pytest.raises(ModelError, match="a letter"):
        rename_argument(project, unit, "OutMaps", "*x")


def test_unit_layer_arguments_follow_their_declared_type(unit_window):
    doc = unit_window.document
    unit = doc.project.network("Unit")
    doc.push(C.AddLayer(unit, Layer("Kernel", "Argument", {"Value": "7,7", "Type": "PIntArray"})))
    doc.push(C.AddLayer(unit, Layer("Bias", "Argument", {"Value": "True", "Type": "Boolean"})))
    doc.push(C.SetProperty(unit, "Convolution", "KernelShape", "*Kernel"))
    doc.push(C.SetProperty(unit, "Convolution", "WithBias", "*Bias"))
    pane = _pane(unit_window, "Main", "Unit")
    assert [k for k, r in pane.rows.items() if r.argument] == ["OutMaps", "Kernel", "Bias"]
    assert isinstance(pane.rows["Bias"].widget, QComboBox)
    assert not pane.set_text("Kernel", "3,x")
    assert "unknown name x" in pane.error.text()
    assert not pane.set_text("Kernel", "0,3")
    assert "Kernel" in pane.error.text()
    assert pane.set_text("Kernel", "3,3") and pane.set_text("Bias", "False")
    scene = unit_window.edit_tab.current_scene()
    assert scene.layer_items["Unit"].stat_text == "16,26,26"
    # Convolution: 16*49 + 16 -> 16*9 parameters; its 26x26 output makes Tanh_2 30x5x5, so
    # Affine reads 750 values instead of 480: 150 * 270 more weights.
    stats = unit_window.edit_tab.statistics
    assert stats.value("CostParameter") == f"{78_810 - 16 * 49 - 16 + 16 * 9 + 150 * 270:,}"
    assert not pane.set_text("Bias", "maybe")
    assert not pane.set_text("OutMaps", "*NoArgument")  # Main declares no such argument...
    assert '*NoArgument is neither an argument of network "Main"' in pane.error.text()
    assert pane.set_text("OutMaps", "Input[0]*4")  # ...but the Unit's input shape is known
    assert scene.layer_items["Unit"].stat_text == "4,26,26"


def test_star_references_inside_the_unit_are_checked(unit_window):
    doc = unit_window.document
    unit = doc.project.network("Unit")
    pane = _pane(unit_window, "Unit", "Convolution")
    steps = len(doc.stack)
    assert not pane.set_text("OutMaps", "*Maps")
    assert pane.error.text() == (
        'property OutMaps: *Maps is neither an argument of network "Unit" (arguments: OutMaps) '
        "nor an NNC macro of OutMaps. Received: OutMaps=*Maps"
    )
    assert not pane.set_text("ParameterScope", "*Scope")
    assert len(doc.stack) == steps and unit.layer("Convolution").properties["OutMaps"] == "*OutMaps"
    assert pane.set_text("Padding", "*ConvolutionPaddingSize")
    assert pane.set_text("Strides", "*KernelShape")  # its own KernelShape: 7,7
    assert unit_window.edit_tab.current_scene().layer_items["Convolution"].stat_text == "16,4,4"
    assert pane.set_text("ParameterScope", "*Name")
    pane = _pane(unit_window, "Unit", "ReLU")
    assert pane.set_text("InPlace", "False") and pane.set_text("InPlace", "*AutoInPlaceOnce")
    assert not pane.set_text("InPlace", "*OutMap")
    assert "*OutMap is neither" in pane.error.text()
    # An argument declared afterwards makes the same text valid.
    doc.push(C.AddLayer(unit, Layer("Maps", "Argument", {"Value": "6", "Type": "PInt"})))
    pane = _pane(unit_window, "Unit", "Convolution")
    assert pane.set_text("OutMaps", "*Maps")
    assert unit_window.edit_tab.current_scene().layer_items["Convolution"].stat_text == "6,4,4"

"""Networks from the GUI: add, rename, duplicate and delete, each one undo step."""

from __future__ import annotations

import pytest
from gui_driver import answer_next_dialog
from PySide6.QtCore import QPoint, Qt
from PySide6.QtWidgets import QInputDialog

from console_app.editor import networks
from engine.graph.project import ModelError

pytestmark = pytest.mark.gui


def _tabs(window):
    tabs = window.edit_tab.networks
    return [tabs.tabText(i) for i in range(tabs.count())]


def _menu_action(window, network, text):
    menu = window.network_menu(network)
    return next(a for a in menu.actions() if a.text() == text)


def _make_unit(window):
    """LeNet with Convolution_2..Tanh_2 moved into unit network "Unit"."""
    window.edit_tab.current_scene().select_layers(["Convolution_2", "MaxPooling_2", "Tanh_2"])
    window.ask_create_unit = lambda choices, name: (name, [])
    assert window.create_unit() == ("Unit", "Unit")


def test_add_network_from_the_edit_menu_and_undo(lenet_window):
    window = lenet_window
    project = window.document.project
    window.actions_by_name["add_network"].trigger()
    assert project.network_names == ("Main", "Network") and _tabs(window) == ["Main", "Network"]
    assert window.edit_tab.current_network() == "Network"
    assert window.document.stack.undo_text() == "Add network Network"
    _menu_action(window, "", "Add Network").trigger()  # off the tabs: only Add is offered
    assert project.network_names == ("Main", "Network", "Network_2")
    assert [a.isEnabled() for a in window.network_menu("").actions()] == [True, False, False, False]
    window.undo()
    window.undo()
    assert project.network_names == ("Main",) and _tabs(window) == ["Main"]
    window.redo()
    assert _tabs(window) == ["Main", "Network"]


def test_rename_network_updates_settings_and_unit_layers_in_one_step(lenet_window):
    window = lenet_window
    project = window.document.project
    _make_unit(window)
    window.ask_text = lambda title, label, text: "Block"
    _menu_action(window, "Unit", "Rename Network...").trigger()
    assert project.network_names == ("Main", "Block") and _tabs(window) == ["Main", "Block"]
    assert project.network("Main").layer("Unit").properties["Network"] == "Block"
    assert window.edit_tab.current_scene().layer_items["Unit"].stat_text == "30,4,4"

    window.edit_tab.show_network("Main")
    window.ask_text = lambda title, label, text: "Model"
    steps = len(window.document.stack)
    assert window.rename_network()  # the Edit menu's action renames the current network
    assert len(window.document.stack) == steps + 1
    assert [o.network for o in project.optimizers] == ["Model"]
    assert [m.network for m in project.monitors] == ["ModelValidation", "ModelValidation"]
    assert [e.network for e in project.executors] == ["ModelRuntime"]
    assert window.edit_tab.breadcrumb.text() == "Model"
    assert window.edit_tab.problems.count() == 0  # the derived networks still resolve

    window.undo()
    assert project.network_names == ("Main", "Block") and _tabs(window) == ["Main", "Block"]
    assert [m.network for m in project.monitors] == ["MainValidation", "MainValidation"]
    window.undo()
    assert project.network("Main").layer("Unit").properties["Network"] == "Unit"
    assert _tabs(window) == ["Main", "Unit"]

    window.ask_text = lambda title, label, text: "Unit"
    assert not window.rename_network("Main")
    assert 'a network named "Unit" already exists' in window.statusBar().currentMessage()
    window.ask_text = lambda title, label, text: "A[1]"
    assert not window.rename_network("Main")
    assert "without [ ]" in window.statusBar().currentMessage()
    window.ask_text = lambda title, label, text: None  # cancelled
    assert not window.rename_network("Main")
    assert project.network_names == ("Main", "Unit")


def test_duplicate_network_is_an_independent_copy(lenet_window):
    window = lenet_window
    project = window.document.project
    stats = window.edit_tab.statistics
    window.add_network()
    window.edit_tab.show_network("Main")
    _menu_action(window, "Main", "Duplicate Network").trigger()
    assert project.network_names == ("Main", "Main_2", "Network")
    assert _tabs(window) == ["Main", "Main_2", "Network"]
    assert window.edit_tab.current_network() == "Main_2"
    copy, main = project.network("Main_2"), project.network("Main")
    assert copy.layers == main.layers and copy.links == main.links
    assert stats.value("CostParameter") == "78,810"
    window.edit_tab.current_scene().select_layers(["Convolution"])
    assert window.edit_tab.property_pane.set_text("OutMaps", "4")
    assert main.layer("Convolution").properties["OutMaps"] == "16"
    assert stats.value("CostParameter") != "78,810"
    window.undo()
    window.undo()
    assert project.network_names == ("Main", "Network")
    assert window.document.stack.redo_text() == "Duplicate network Main"


def test_delete_network_asks_when_it_is_referenced(lenet_window):
    window = lenet_window
    project = window.document.project
    _make_unit(window)
    asked = []
    window.ask_confirm = lambda text: asked.append(text) or False
    assert not window.delete_network("Unit")
    assert asked == ['Network "Unit" is used by Unit layer "Unit" in network "Main". '
                     "Delete it anyway?"]  # fmt: skip
    assert project.network_names == ("Main", "Unit")
    window.ask_confirm = lambda text: asked.append(text) or True
    _menu_action(window, "Unit", "Delete Network...").trigger()
    assert project.network_names == ("Main",) and _tabs(window) == ["Main"]
    assert any("Unit" in p.message for p in window.edit_tab.all_problems())  # now dangling
    window.undo()
    assert project.network_names == ("Main", "Unit") and _tabs(window) == ["Main", "Unit"]
    assert window.edit_tab.current_scene().layer_items["Unit"].stat_text == "30,4,4"

    asked.clear()
    window.add_network()
    assert window.delete_network("Network") and asked == []  # nothing names it: no question
    assert window.delete_network("Main")  # confirmed (the settings named it)
    assert project.network_names == ("Unit",)
    assert "optimizer" in asked[0] and "monitor" in asked[0] and "executor" in asked[0]
    assert not window.delete_network("Unit")  # the last network stays
    assert "only network" in window.statusBar().currentMessage()


def test_references_and_the_tab_bar_menu(lenet_window, qtbot):
    window = lenet_window
    project = window.document.project
    assert networks.references_to(project, "Main") == [
        'optimizer "Optimizer" (network Main)',
        'monitor "train_error" (network MainValidation)',
        'monitor "valid_error" (network MainValidation)',
        'executor "Executor" (network MainRuntime)',
    ]
    with pytest.raises(ModelError, match="only network"):
        networks.delete_network(project, "Main")
    bar = window.edit_tab.networks.tabBar()
    with qtbot.waitSignal(window.edit_tab.tab_menu_requested) as signal:
        window.edit_tab._tab_menu(bar.tabRect(0).center())
    assert signal.args[0] == "Main"
    assert [a.text() for a in window.network_menu_shown.actions()] == [
        "Add Network", "Rename Network...", "Duplicate Network", "Delete Network...",
    ]  # fmt: skip
    window.network_menu_shown.close()
    window.edit_tab._tab_menu(QPoint(-50, -50))
    assert not window.network_menu_shown.actions()[1].isEnabled()
    window.network_menu_shown.close()


def test_an_underscore_in_a_network_name_is_visible_on_its_tab(lenet_window, qtbot):
    """Issue 35, item 16: "Main_q8" rendered as "Main q8" (Fusion clipped the underscore)."""
    window = lenet_window
    window.show()
    window.actions_by_name["add_network"].trigger()
    bar = window.edit_tab.networks.tabBar()
    index = _tabs(window).index("Network")

    qtbot.mouseClick(bar, Qt.MouseButton.LeftButton, pos=bar.tabRect(0).center())
    assert bar.currentIndex() == 0  # an inactive tab is drawn lower: there it was clipped
    bar.setTabText(index, "____")  # only underscores: clipped, the tab showed no text at all
    qtbot.wait(10)
    image = bar.grab(bar.tabRect(index)).toImage()
    dark = sum(
        image.pixelColor(x, y).lightness() < 110
        for x in range(image.width())
        for y in range(image.height())
    )
    assert dark >= 8  # the underscores' pixels


def test_the_rename_dialog_is_wide_enough_for_its_title(lenet_window, qtbot):
    """Issue 35, item 16: the Rename Network dialog was as narrow as its label, so window
    managers cut its title. The real dialog, answered by typing and clicking OK."""
    window = lenet_window
    window.show()
    seen = {}

    def measure(dialog):
        assert isinstance(dialog, QInputDialog)
        seen["title"], seen["width"] = dialog.windowTitle(), dialog.width()
        seen["needed"] = dialog.fontMetrics().horizontalAdvance(dialog.windowTitle()) + 120

    # typed once the dialog is shown and active, not after a fixed 200 ms
    asked = answer_next_dialog(qtbot, "OK", text="Model", before=measure)
    _menu_action(window, "Main", "Rename Network...").trigger()
    assert asked.done, asked.problem
    assert seen["title"] == "Rename network" and seen["width"] >= seen["needed"]
    assert window.document.project.network_names == ("Model",)

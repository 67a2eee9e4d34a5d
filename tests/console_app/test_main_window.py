"""The main window: tabs, menus, files, unsaved changes, settings, recovery, every NNC sample."""

from __future__ import annotations

import logging

import pytest
from nnc_samples import SAMPLES_DIR
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QStatusBar, QToolBar

from console_app.document import default_project_path
from console_app.main_window import TABS, MainWindow
from engine.formats import load_project
from engine.graph import commands as C

pytestmark = pytest.mark.gui

SAMPLES = SAMPLES_DIR


def test_main_window_has_nnc_tabs(qtbot, settings):
    window = MainWindow(settings=settings)
    qtbot.addWidget(window)
    assert [window.tabs.tabText(i) for i in range(window.tabs.count())] == list(TABS)
    assert window.tabs.widget(0) is window.edit_tab


def test_no_argument_opens_the_default_project(make_window, settings):
    window = make_window()
    expected = default_project_path()
    if expected is not None:  # the user's copy of it (tests/console_app/test_newcomer.py)
        expected = settings.projects_dir() / expected.name
    assert window.document.path == expected
    if expected is None:  # projects/ has no LeNet yet: an empty project
        assert window.document.project.network_names == ("Main",)
    assert not window.isWindowModified()


def test_menus_hold_the_editor_actions_and_export_waits(make_window):
    window = make_window()
    texts = {
        a.text().replace("&", "") for a in window.findChildren(type(window.actions_by_name["new"]))
    }
    for name in ("New", "Open...", "Save", "Save As...", "Cut", "Copy", "Paste", "Delete",
                 "Select All", "Arrange Layers", "Zoom In", "Zoom Out", "Zoom to Fit",
                 "Create Unit"):  # fmt: skip
        assert name in texts
    enabled = {a.text(): a.isEnabled() for a in window.export_menu.actions()}
    assert enabled == {"Python code...": True, "ONNX...": True, "NNP...": True,
                       "C source...": True, "TFLite...": True,
                       "PowerPoint report...": True}  # fmt: skip


def test_title_shows_unsaved_changes_and_save_reopen_gives_the_same_project(
    lenet_window, tmp_path, make_window
):
    window = lenet_window
    assert window.windowTitle() == "LeNet.sdcproj[*] - NeuroCanvas"
    assert not window.isWindowModified()
    net = window.document.project.network("Main")
    window.document.push(C.SetProperty(net, "Affine", "OutShape", "120"))
    assert window.isWindowModified()
    assert window.actions_by_name["undo"].text() == "&Undo Set Affine.OutShape"
    target = tmp_path / "lenet.ncproj"
    assert window.save_as(target)
    assert not window.isWindowModified() and window.document.path == target
    assert window.windowTitle() == "lenet.ncproj[*] - NeuroCanvas"
    assert load_project(target) == window.document.project
    other = make_window(target)
    assert other.document.project == window.document.project
    assert other.edit_tab.current_scene().layer_items["Affine"].stat_text == "120"
    assert str(target.resolve()) == window.settings.recent_files()[0]
    # Saving back to .sdcproj keeps NNC's format.
    sdc = tmp_path / "again.sdcproj"
    assert window.save_as(sdc) and sdc.read_bytes().startswith(b"[")
    assert load_project(sdc) == window.document.project


def test_closing_with_unsaved_changes_asks(lenet_window):
    window = lenet_window
    window.show()
    net = window.document.project.network("Main")
    window.document.push(C.MoveLayers(net, {"Input": (48, 24)}))
    asked = []
    window.ask_save_changes = lambda: asked.append(1) or "cancel"
    assert not window.close() and window.isVisible() and asked == [1]
    window.ask_save_changes = lambda: "save"
    assert window.close()
    assert load_project(window.document.path).network("Main").layer("Input").position == (48, 24)


def test_geometry_and_recent_files_are_remembered(make_window, settings, lenet_copy):
    window = make_window()
    window.show()
    window.resize(760, 560)  # the offscreen screen is 800 x 600
    assert window.open_path(lenet_copy)
    window.close()
    again = make_window()
    assert (again.size().width(), again.size().height()) == (760, 560)
    assert again.settings.recent_files() == [str(lenet_copy.resolve())]
    assert again.settings.last_project == str(lenet_copy.resolve())
    again._fill_recent()
    assert [a.text() for a in again.recent_menu.actions()] == [str(lenet_copy.resolve())]


def test_open_error_is_reported_not_raised(make_window, tmp_path):
    window = make_window()
    bad = tmp_path / "bad.sdcproj"
    bad.write_text("[Layer_0]\nType=Input\nPosition_0=x\n", encoding="utf-8")
    assert not window.open_path(bad)
    assert "bad.sdcproj" in window.last_error
    assert window.document.path != bad


def test_autosave_is_offered_after_a_crash(make_window, settings, lenet_copy):
    window = make_window(lenet_copy)
    net = window.document.project.network("Main")
    window.document.push(C.SetProperty(net, "Affine", "OutShape", "99"))
    assert window.autosave()
    autosaved = window.autosaver.written
    assert autosaved.is_file()
    edited = window.document.project
    # The process dies here: no close, no discard. The next start offers the work back.
    later = make_window()
    offered = []
    later.ask_recover = lambda original: offered.append(original) or True
    assert later.offer_recovery()
    assert offered == [str(lenet_copy)]
    assert later.document.project == edited
    assert later.document.path == lenet_copy and later.isWindowModified()
    assert later.save()
    assert not autosaved.exists()
    assert not later.offer_recovery()


def test_declining_recovery_discards_it(make_window, lenet_copy):
    window = make_window(lenet_copy)
    net = window.document.project.network("Main")
    window.document.push(C.SetProperty(net, "Affine", "OutShape", "99"))
    window.autosave()
    autosaved = window.autosaver.written
    later = make_window()
    later.ask_recover = lambda original: False
    assert not later.offer_recovery()
    assert not autosaved.exists()


def test_recovery_is_offered_for_the_file_opened_never_in_its_place(make_window, lenet_copy):
    """Defect 3: an autosave of LeNet pending, `neurocanvas other.sdcproj` must open other."""
    other = lenet_copy.with_name("Other.sdcproj")
    other.write_bytes(lenet_copy.read_bytes())
    window = make_window(lenet_copy)
    net = window.document.project.network("Main")
    window.document.push(C.SetProperty(net, "Affine", "OutShape", "99"))
    assert window.autosave()  # then the session dies
    later = make_window(other)
    offered = []
    later.ask_recover = lambda original: offered.append(original) or True
    assert not later.offer_recovery()
    assert offered == [] and later.document.path == other.absolute()
    later.document.push(C.SetProperty(later.document.project.network("Main"), "Affine",
                                      "OutShape", "7"))  # fmt: skip
    assert later.autosave()  # the edits to Other do not overwrite LeNet's autosave
    later.ask_save_changes = lambda: "save"
    assert later.open_path(lenet_copy)  # now LeNet is opened: its work is offered
    assert offered == [str(lenet_copy)]
    assert later.document.path == lenet_copy and later.isWindowModified()
    assert later.document.project.network("Main").layer("Affine").properties["OutShape"] == "99"


def test_unit_networks_open_from_their_unit_layer(make_window):
    window = make_window(
        SAMPLES / "image_recognition" / "ILSVRC2012" / "densenet" / "densenet-161.sdcproj"
    )
    tab = window.edit_tab
    assert [tab.networks.tabText(i) for i in range(tab.networks.count())] == [
        "DenseNet", "ConvUnit", "Train", "Top5Error", "Top1Error", "Runtime",
    ]  # fmt: skip
    tab.current_scene().open_unit.emit("ConvUnit")
    assert tab.current_scene().network.name == "ConvUnit"
    assert tab.breadcrumb.text() == "DenseNet \u203a ConvUnit" and tab.back.isEnabled()
    assert tab.current_scene().layer_items["Concatenate"].stat_text == "144,56,56"
    tab.go_back()
    assert tab.current_scene().network.name == "DenseNet"
    # The Unit layer shows the argument of the network it calls as a property.
    tab.current_scene().select_layers(["ConvUnit"])
    pane = tab.property_pane
    assert pane.rows["BS"].argument and pane.text_of("BS") == "*ConvBS"
    assert "Convolution_2.W.LRateMultiplier" in pane.rows


def test_sample_projects_are_offered_and_open_without_problems(make_window):
    from console_app.document import sample_projects

    window = make_window()
    entries = [a.text() for a in window.samples_menu.actions()]
    samples = sample_projects()
    assert entries == ([p.stem for p in samples] or ["(no sample projects)"])
    for path in samples:
        assert window.open_path(path, ask=False)
        assert window.document.path == path and not window.isWindowModified()
        networks = window.document.project.networks
        for view, network in zip(window.edit_tab.views, networks, strict=True):
            assert set(view.network_scene.layer_items) == set(network.layer_names)


def test_every_nnc_sample_opens_without_errors_in_the_log(make_window, caplog):
    samples = sorted(SAMPLES.rglob("*.sdcproj"))
    assert len(samples) == 63
    window = make_window()
    caplog.set_level(logging.WARNING)
    shown = 0
    for path in samples:
        assert window.open_path(path, ask=False), path
        tab = window.edit_tab
        assert tab.networks.count() == len(window.document.project.networks)
        for view in tab.views:  # every canvas, not only the first
            view.network_scene.refresh()
            shown += len(view.network_scene.layer_items)
    assert shown > 2000
    bad = [
        r
        for r in caplog.records
        if r.levelno >= logging.WARNING and "propagateSizeHints" not in r.getMessage()
    ]
    assert bad == []


def test_ctrl_y_redoes_as_on_windows(lenet_window, qtbot):
    """Defect 7: only Ctrl+Shift+Z redid."""
    window = lenet_window
    window.show()
    qtbot.waitExposed(window)
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow)  # shortcuts reach the active window only
    net = window.document.project.network("Main")
    window.document.push(C.SetProperty(net, "Affine", "OutShape", "99"))
    view = window.edit_tab.current_view()
    qtbot.mouseClick(
        view.viewport(), Qt.MouseButton.LeftButton, pos=view.viewport().rect().topLeft()
    )
    qtbot.keyClick(view, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert net.layer("Affine").properties["OutShape"] != "99"
    qtbot.keyClick(view, Qt.Key.Key_Y, Qt.KeyboardModifier.ControlModifier)
    assert net.layer("Affine").properties["OutShape"] == "99"


def test_edit_tools_are_disabled_on_the_other_tabs(lenet_window, qtbot):
    window = lenet_window
    window.show()
    bar = window.tabs.tabBar()
    toolbar = window.findChild(QToolBar, "main_toolbar")
    zoom = toolbar.widgetForAction(window.actions_by_name["zoom_in"])
    qtbot.mouseClick(bar, Qt.MouseButton.LeftButton, pos=bar.tabRect(3).center())
    assert window.tabs.currentIndex() == 3
    assert not zoom.isEnabled() and not window.actions_by_name["create_unit"].isEnabled()
    assert window.actions_by_name["undo"].isEnabled() == window.document.stack.can_undo()
    qtbot.mouseClick(bar, Qt.MouseButton.LeftButton, pos=bar.tabRect(0).center())
    assert zoom.isEnabled() and window.actions_by_name["arrange"].isEnabled()


def _shown(window, qtbot):
    window.show()
    qtbot.waitExposed(window)
    return window.findChild(QToolBar, "main_toolbar")


def test_the_toolbar_stays_put_while_undo_names_the_command(lenet_window, qtbot):
    """Seen on a real X server: the toolbar's "Undo Connect ReLU_2 to Sigmoid" pushed Zoom In,
    Zoom Out... 170 pixels sideways after each edit."""
    window = lenet_window
    toolbar = _shown(window, qtbot)
    undo = toolbar.widgetForAction(window.actions_by_name["undo"])
    zoom = toolbar.widgetForAction(window.actions_by_name["zoom_in"])
    before = zoom.geometry()
    net = window.document.project.network("Main")
    window.document.push(C.SetProperty(net, "Affine", "OutShape", "120"))
    qtbot.wait(50)  # the toolbar lays itself out again on the next event loop pass
    assert zoom.geometry() == before
    assert undo.text() == "Undo" and undo.toolTip() == "Undo Set Affine.OutShape"
    qtbot.mouseClick(undo, Qt.MouseButton.LeftButton)
    assert net.layer("Affine").properties["OutShape"] != "120"


def test_the_status_bar_is_there_from_the_start(lenet_window, qtbot):
    """Seen on a real X server: the status bar appeared with the first message (so the menus'
    status tips showed nowhere before) and shrank every tab by its height."""
    window = lenet_window
    toolbar = _shown(window, qtbot)
    bar = window.findChild(QStatusBar)
    assert bar is not None and bar.isVisible()
    height = window.tabs.height()
    qtbot.mouseClick(toolbar.widgetForAction(window.actions_by_name["save"]),
                     Qt.MouseButton.LeftButton)  # fmt: skip
    qtbot.wait(50)
    assert bar.currentMessage() == f"Saved {window.document.path}"
    assert window.tabs.height() == height


def test_the_first_window_fits_a_small_screen(make_window, qtbot):
    """Seen on a 1366 x 768 X server: the 1400 x 860 window ran off the screen (its close
    button, the statistics' Total column and the status bar unreachable). The offscreen
    screen is 800 x 600."""
    window = make_window()
    _shown(window, qtbot)
    free = window.screen().availableGeometry()
    assert window.frameGeometry().width() <= free.width()
    assert window.frameGeometry().height() <= free.height()
    assert window.width() >= 0.85 * free.width()  # shrunk to the screen, not to nothing


def test_opening_another_project_clears_the_last_projects_curve_and_evaluation(
    make_window, tmp_path, qtbot, monkeypatch
):
    """A job's curve (TRAINING) and evaluation (EVALUATION), and EVALUATION's log with its
    evaluate command, must not stay on screen as the next project's."""
    import shutil

    from gui_driver import choose
    from PySide6.QtWidgets import QFileDialog

    from engine.cli import main

    iris = default_project_path().parent / "iris.ncproj"
    first, second = tmp_path / "a" / "iris.ncproj", tmp_path / "b" / "iris.ncproj"
    for target in (first, second):
        target.parent.mkdir()
        shutil.copyfile(iris, target)
    job = tmp_path / "a" / "iris.files" / "job"
    assert main(["train", str(first), "-o", str(job), "--epochs", "20"]) == 0
    window = make_window(first)
    window.show()
    tab = window.project_tabs.training
    window.tabs.setCurrentWidget(tab)
    rect = tab.table.visualItemRect(tab.table.item(0, 0))
    qtbot.mouseClick(tab.table.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    assert tab.curve.lines_drawn == 3  # the job's cost and two errors
    evaluation = window.project_tabs.evaluation
    window.tabs.setCurrentWidget(evaluation)
    with qtbot.waitSignal(evaluation.evaluated, timeout=300000) as done:
        qtbot.mouseClick(evaluation.evaluate_button, Qt.MouseButton.LeftButton)
    assert done.args == ["finished"] and evaluation.output_view.model().rowCount() == 30
    assert f"engine.cli evaluate {job}" in evaluation.log.toPlainText()
    monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *a, **k: (str(second), ""))
    choose(next(a.menu() for a in window.menuBar().actions() if a.text() == "&File"), "Open...")
    assert window.document.path == second and tab.jobs == []
    assert tab.curve.lines_drawn == 0 and tab.curve.hint
    assert tab.position.text() == "No run"
    assert evaluation.output_view.model() is None and evaluation.matrix.rowCount() == 0
    assert evaluation.summary_label.text() == "No job yet: train the project in TRAINING"
    assert evaluation.log.toPlainText() == ""  # the last project's evaluate command went too

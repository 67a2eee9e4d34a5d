"""What a newcomer met in the app (issue 35), each driven as a user does: menus, dialogs answered
with keys and clicks, the TRAINING and EDIT tabs."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest
from gui_driver import answer_next_dialog
from PySide6.QtCore import QPointF, Qt
from PySide6.QtWidgets import QComboBox

from engine.formats import load_project

pytestmark = pytest.mark.gui
ROOT = Path(__file__).resolve().parents[2]
LEFT = Qt.MouseButton.LeftButton


def shown(qtbot, window):
    window.show()
    qtbot.waitExposed(window)
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow)
    return window


def _nnc_filter(qtbot):
    """In the file dialog: pick "NNC project (*.sdcproj)" in the file type list with the keys."""

    def pick(dialog):
        combo = dialog.findChild(QComboBox, "fileTypeCombo")
        combo.setFocus()
        while not combo.currentText().startswith("NNC project"):
            qtbot.keyClick(combo, Qt.Key.Key_Down)

    return pick


def test_save_as_adds_the_chosen_filters_extension(qtbot, make_window, lenet_copy, tmp_path):
    window = shown(qtbot, make_window(lenet_copy))
    asked = answer_next_dialog(qtbot, "Save", text=str(tmp_path / "mycnn"))
    window.actions_by_name["save_as"].trigger()
    assert asked.done, asked.problem
    assert not (tmp_path / "mycnn").exists()
    saved = tmp_path / "mycnn.ncproj"
    assert load_project(saved).network_names == ("Main",)
    assert saved.read_text(encoding="utf-8").lstrip().startswith("{")  # the native JSON
    assert window.document.path == saved
    assert window.settings.recent_files()[0] == str(saved)
    asked = answer_next_dialog(qtbot, "Save", text=str(tmp_path / "mycnn_nnc"),
                               before=_nnc_filter(qtbot))  # fmt: skip
    window.actions_by_name["save_as"].trigger()
    assert asked.done, asked.problem
    nnc = tmp_path / "mycnn_nnc.sdcproj"
    assert nnc.read_text(encoding="utf-8").startswith("[")  # NNC's ini layout
    assert load_project(nnc).network_names == ("Main",)
    assert window.settings.recent_files()[:2] == [str(nnc), str(saved)]


def test_the_first_start_and_open_sample_edit_a_copy_never_the_installed_sample(
    qtbot, make_window, settings
):
    from engine.formats.samples import samples_folder

    PROJECTS_DIR = samples_folder()  # noqa: N806 - where the installed samples are
    installed = PROJECTS_DIR / "lenet_digits.ncproj"
    before = installed.read_bytes()
    window = shown(qtbot, make_window())  # neurocanvas with no argument
    assert window.document.path.name == "lenet_digits.ncproj"
    assert window.document.path.parent != PROJECTS_DIR  # not the installed file
    mine = settings.projects_dir() / "lenet_digits.ncproj"
    assert window.document.path == mine and mine.read_bytes() == before
    assert PROJECTS_DIR not in window.project_tabs.training.jobs_root().parents
    # Select everything, delete it, save: the copy changes, the installed sample does not.
    view, ctrl = window.edit_tab.current_view(), Qt.KeyboardModifier.ControlModifier
    view.setFocus()
    qtbot.keyClick(view, Qt.Key.Key_A, ctrl)
    qtbot.keyClick(view, Qt.Key.Key_Delete)
    qtbot.keyClick(view, Qt.Key.Key_S, ctrl)
    assert load_project(mine).network("Main").layers == ()
    assert installed.read_bytes() == before
    # File > Open Sample > iris: a copy beside it; opening it again keeps the user's edits.
    (iris,) = [a for a in window.samples_menu.actions() if a.text() == "iris"]
    iris.trigger()
    assert window.document.path == settings.projects_dir() / "iris.ncproj"
    again = make_window()  # a second start opens the user's copy as they left it
    assert again.document.path == mine and again.document.project.network("Main").layers == ()


def _show_tab(qtbot, window, name):
    bar = window.tabs.tabBar()
    index = next(i for i in range(window.tabs.count()) if window.tabs.tabText(i) == name)
    qtbot.mouseClick(bar, LEFT, pos=bar.tabRect(index).center())
    assert window.tabs.currentIndex() == index


def _type_into(qtbot, field, text):
    qtbot.mouseClick(field, LEFT)
    field.selectAll()
    qtbot.keyClicks(field, text)
    qtbot.keyClick(field, Qt.Key.Key_Return)


def test_a_run_failing_before_it_starts_offers_no_resume_and_open_import_start_clean(
    qtbot, make_window, tmp_path, monkeypatch
):
    monkeypatch.setenv("NEUROCANVAS_CACHE", str(tmp_path / "cache"))
    project = tmp_path / "iris.ncproj"
    shutil.copyfile(ROOT / "projects" / "iris.ncproj", project)
    window = shown(qtbot, make_window(project))
    _show_tab(qtbot, window, "DATASET")
    _type_into(qtbot, window.project_tabs.dataset.uri, str(tmp_path / "missing.csv"))
    _show_tab(qtbot, window, "TRAINING")
    training = window.project_tabs.training
    with qtbot.waitSignal(training.run_ended, timeout=300000) as ended:
        qtbot.mouseClick(training.run_button, LEFT)
    assert ended.args == ["failed"]
    failed = training.current_job
    assert training.selected_job() == failed
    (info,) = [j for j in training.jobs if j.path == failed]
    assert (info.status, info.epoch) == ("failed", 0)
    assert not training.resume_button.isEnabled()  # nothing to continue from
    assert "no checkpoint to continue from" in training.resume_button.toolTip()
    assert "missing.csv" in training.log.toPlainText()
    # File > Open another project: the TRAINING log starts empty.
    other = tmp_path / "lenet.ncproj"
    shutil.copyfile(ROOT / "projects" / "lenet_digits.ncproj", other)
    asked = answer_next_dialog(qtbot, "Open", text=str(other))
    window.actions_by_name["open"].trigger()
    assert asked.done and window.document.path == other, (asked.problem, asked.typed)
    assert training.log.toPlainText() == ""
    # File > Import from the TRAINING tab: the imported project is shown in EDIT.
    nnc = ROOT / "tests" / "fixtures" / "nnc-samples" / "classification" / "iris" / "iris.sdcproj"
    file_menu = next(a.menu() for a in window.menuBar().actions() if a.text() == "&File")
    (action,) = [a for a in file_menu.actions() if a.text().replace("&", "") == "Import..."]
    asked = answer_next_dialog(qtbot, "Open", text=str(nnc))
    action.trigger()
    assert asked.done and window.document.path == nnc, (asked.problem, asked.typed)
    assert window.tabs.currentWidget() is window.edit_tab


def test_input_size_keeps_the_last_valid_value_while_the_text_is_refused(lenet_window, qtbot):
    window = shown(qtbot, lenet_window)
    scene = window.edit_tab.current_scene()
    scene.select_layers(["Input"])
    pane = window.edit_tab.property_pane
    field = getattr(pane.rows["Size"].widget, "line", pane.rows["Size"].widget)
    net = window.document.project.network("Main")
    steps = len(window.document.stack)
    qtbot.mouseClick(field, LEFT)
    field.selectAll()
    qtbot.keyClicks(field, "1,28,x")  # "1" and "1,28" are valid on the way
    assert field.text() == "1,28,x" and "x" in pane.error.text()
    assert net.layer("Input").properties["Size"] == "1,28,28"  # nothing applied
    assert not any(item.error for item in scene.layer_items.values())
    assert scene.layer_items["Input"].stat_text == "1,28,28"
    qtbot.keyClick(field, Qt.Key.Key_Backspace)
    qtbot.keyClicks(field, "32")  # valid again: applied
    assert net.layer("Input").properties["Size"] == "1,28,32"
    assert len(window.document.stack) == steps + 1  # the typing is one undo step
    window.undo()
    assert net.layer("Input").properties["Size"] == "1,28,28"


def _click_layer(qtbot, window, name):
    view, scene = window.edit_tab.current_view(), window.edit_tab.current_scene()
    pos = view.mapFromScene(scene.layer_items[name].mapToScene(QPointF(150, 15)))
    qtbot.mouseClick(view.viewport(), LEFT, pos=pos)


def _search(qtbot, palette, text):
    qtbot.mouseClick(palette.search, LEFT)
    palette.search.selectAll()
    qtbot.keyClicks(palette.search, text)


def _double_click(qtbot, palette, type_):
    rect = palette.tree.visualItemRect(palette.items[type_])
    assert rect.isValid(), f"{type_} is not shown"
    # A double-click as the window system sends it: press and release, then the second press.
    qtbot.mouseClick(palette.tree.viewport(), LEFT, pos=rect.center())
    qtbot.mouseDClick(palette.tree.viewport(), LEFT, pos=rect.center())


def test_palette_search_double_click_inserts_after_the_selection_and_links(lenet_window, qtbot):
    window = shown(qtbot, lenet_window)
    net = window.document.project.network("Main")
    scene, palette = window.edit_tab.current_scene(), window.edit_tab.palette
    before = {layer.name: layer.position for layer in net.layers}
    links = sorted((k.source, k.destination) for k in net.links)
    # Search: the exact name first, then the names starting with it.
    _search(qtbot, palette, "Softmax")
    shown_types = palette.visible_types()
    assert shown_types[0] == "Softmax" and "SoftmaxCrossEntropy" in shown_types
    tree = palette.tree
    assert (tree.visualItemRect(palette.items["Softmax"]).top()
            < tree.visualItemRect(palette.items["SoftmaxCrossEntropy"]).top())  # fmt: skip
    assert tree.currentItem() is palette.items["Softmax"]
    # Double-click with Convolution selected: inserted after it, linked in between.
    _click_layer(qtbot, window, "Convolution")
    _search(qtbot, palette, "BatchNormalization")
    assert scene.selected_layers() == ["Convolution"]
    _double_click(qtbot, palette, "BatchNormalization")
    assert [k.source for k in net.inputs_of("BatchNormalization")] == ["Convolution"]
    assert [k.destination for k in net.outputs_of("BatchNormalization")] == ["ReLU"]
    assert [k.destination for k in net.outputs_of("Convolution")] == ["BatchNormalization"]
    assert net.layer("BatchNormalization").position == (24, 72 + 48)
    assert net.layer("ReLU").position == (24, 120 + 48)  # the layers below moved a row
    assert net.layer("Input").position == (24, 24)
    assert not any(item.error for item in scene.layer_items.values())
    assert scene.layer_items["BatchNormalization"].stat_text == "16,22,22"
    window.undo()  # one step
    assert {layer.name: layer.position for layer in net.layers} == before
    assert sorted((k.source, k.destination) for k in net.links) == links
    # With nothing selected it goes below the others, unlinked, and says so in plain words.
    view = window.edit_tab.current_view()
    qtbot.mouseClick(view.viewport(), LEFT, pos=view.mapFromScene(QPointF(900, 40)))
    assert scene.selected_layers() == []
    _search(qtbot, palette, "Tanh")
    _double_click(qtbot, palette, "Tanh")
    error = scene.layer_items["Tanh"].error
    assert "nothing is linked into its input" in error
    assert "Received" not in error and "GraphInput" not in error and "property" not in error


# An evaluation that does not end by itself (as ``evaluate``, it does not read ``stop``): the
# real one could end while the question is open (a race under load: the second close then
# asked nothing).
HELD_EVALUATION = "import time\nwhile True:\n    time.sleep(1)"


def test_closing_while_an_evaluation_runs_asks_then_stops_it(qtbot, make_window, tmp_path,
                                                             monkeypatch):  # fmt: skip
    from PySide6.QtCore import QProcess

    from engine.runtime.run import train

    monkeypatch.setenv("NEUROCANVAS_CACHE", str(tmp_path / "cache"))
    project = tmp_path / "iris.ncproj"
    shutil.copyfile(ROOT / "projects" / "iris.ncproj", project)
    train(project, job_dir=tmp_path / "iris.files" / "20260101_000000", epochs=2, seed=0)
    window = shown(qtbot, make_window(project))
    del window.ask_stop_children  # the app's own question, answered below
    _show_tab(qtbot, window, "EVALUATION")
    evaluation = window.project_tabs.evaluation
    runner = evaluation.runner
    runner.program = [sys.executable, "-c", HELD_EVALUATION]  # given evaluate's arguments
    qtbot.mouseClick(evaluation.evaluate_button, LEFT)
    assert runner.is_running() and " evaluate " in evaluation.log.toPlainText()
    asked = answer_next_dialog(qtbot, "No")
    window.close()
    assert asked.done and "Evaluation is still running" in asked.message, asked.problem
    assert window.isVisible() and runner.is_running()  # No: nothing closed, nothing stopped
    asked = answer_next_dialog(qtbot, "Yes")
    with qtbot.waitSignal(evaluation.evaluated, timeout=300000) as ended:
        window.close()
    assert asked.done and not window.isVisible(), asked.problem
    assert runner.process.state() == QProcess.ProcessState.NotRunning  # ended, not orphaned
    # Ended at once (it has nothing to save), and told as the user's stop, not as a crash.
    assert ended.args == ["stopped"]
    assert "failed" not in evaluation.summary_label.text()

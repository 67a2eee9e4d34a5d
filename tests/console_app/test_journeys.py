"""The app as a user drives it, with clicks and keys only, on a project opened by a relative
path (``cd work; neurocanvas projects/iris.ncproj``): edit, train, evaluate, export, units.

Each journey ends by checking that nothing was written to stderr and nothing was logged as a
warning: a traceback in a slot, a Qt warning or a failed child process would show there.
"""

from __future__ import annotations

import csv
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from gui_driver import answer_next_dialog, choose, click, drop, right_click
from PySide6.QtCore import QPoint, QPointF, QRectF, Qt
from PySide6.QtWidgets import QApplication, QLineEdit

from console_app.editor import geometry as g

pytestmark = pytest.mark.gui

ROOT = Path(__file__).resolve().parents[2]
IRIS = ROOT / "projects" / "iris.ncproj"
# The offscreen platform (tests only) says this when a window is shown; a real display does not.
PLATFORM_NOISE = {"This plugin does not support propagateSizeHints()"}


@pytest.fixture
def relative_project(tmp_path, monkeypatch):
    """iris (3 epochs) in tmp/work/projects, the working directory tmp/work."""
    work = tmp_path / "work"
    (work / "projects").mkdir(parents=True)
    data = json.loads(IRIS.read_text(encoding="utf-8"))
    data["settings"]["config"]["MaxEpoch"] = "3"
    (work / "projects" / "iris.ncproj").write_text(json.dumps(data, indent=1), encoding="utf-8")
    monkeypatch.chdir(work)
    return Path("projects/iris.ncproj")


@pytest.fixture
def quiet(capfd, caplog):
    """Call at the end of a journey: stderr stayed empty, nothing logged as a warning."""

    def check() -> None:
        err = [line for line in capfd.readouterr().err.splitlines() if line not in PLATFORM_NOISE]
        assert err == [], "\n".join(err)
        warnings = [r.getMessage() for r in caplog.records if r.levelname in ("WARNING", "ERROR")]
        assert warnings == []

    return check


@pytest.fixture
def app_window(make_window, relative_project, qtbot):
    window = make_window(relative_project)
    window.show()
    qtbot.waitExposed(window)
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow)  # shortcuts reach the active window only
    yield window
    window.project_tabs.training.runner.kill()
    window.project_tabs.evaluation.runner.kill()


# -- small user gestures -------------------------------------------------------------------------
def show_tab(qtbot, window, name: str) -> None:
    bar = window.tabs.tabBar()
    index = next(i for i in range(window.tabs.count()) if window.tabs.tabText(i) == name)
    qtbot.mouseClick(bar, Qt.MouseButton.LeftButton, pos=bar.tabRect(index).center())
    assert window.tabs.currentIndex() == index


def keys(qtbot, window, sequence: str) -> None:
    """A shortcut typed with the canvas focused (``"Ctrl+Z"``, ``"Ctrl+Shift+U"``)."""
    *mods, key = sequence.split("+")
    modifier = Qt.KeyboardModifier.NoModifier
    for m in mods:
        modifier |= {"Ctrl": Qt.KeyboardModifier.ControlModifier,
                     "Shift": Qt.KeyboardModifier.ShiftModifier}[m]  # fmt: skip
    target = QApplication.focusWidget() or window
    qtbot.keyClick(target, getattr(Qt.Key, f"Key_{key}"), modifier)


def drop_from_palette(qtbot, window, type_: str, viewport_pos: QPoint) -> None:
    """Find ``type_`` with the palette's search box, press on it and drop it on the canvas.

    The drag runs as the window system delivers it: the palette's own drag data, then the
    enter, move and drop events on the canvas.
    """
    palette = window.edit_tab.palette
    qtbot.mouseClick(palette.search, Qt.MouseButton.LeftButton)
    palette.search.selectAll()
    qtbot.keyClicks(palette.search, type_)
    tree = palette.tree
    rect = tree.visualItemRect(palette.items[type_])
    qtbot.mouseClick(tree.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    viewport = window.edit_tab.current_view().viewport()
    drop(viewport, viewport_pos, tree.mimeData(tree.selectedItems()))
    qtbot.wait(50)


def drag(qtbot, viewport, start: QPoint, end: QPoint) -> None:
    qtbot.mousePress(viewport, Qt.MouseButton.LeftButton, pos=start)
    qtbot.mouseMove(viewport, (start + end) / 2)
    qtbot.mouseMove(viewport, end)
    qtbot.mouseRelease(viewport, Qt.MouseButton.LeftButton, pos=end)


def box_point(view, item) -> QPoint:
    """A point on a layer's box, clear of its pins and name."""
    return view.mapFromScene(item.mapToScene(QPointF(150, 15)))


def type_into(qtbot, field: QLineEdit, text: str) -> None:
    qtbot.mouseClick(field, Qt.MouseButton.LeftButton)
    field.selectAll()
    qtbot.keyClicks(field, text)
    qtbot.keyClick(field, Qt.Key.Key_Return)


def run_training(qtbot, window) -> Path:
    training = window.project_tabs.training
    show_tab(qtbot, window, "TRAINING")
    with qtbot.waitSignal(training.run_ended, timeout=300000) as ended:
        click(qtbot, training.run_button)
    assert ended.args == ["finished"], training.log.toPlainText()[-3000:]
    return training.current_job


# -- the journeys ------------------------------------------------------------------------------
def test_a_edit_drop_link_property_undo_redo_save_reopen(qtbot, app_window, quiet):
    window = app_window
    path = window.document.path
    assert path.is_absolute() and path == Path.cwd() / "projects" / "iris.ncproj"
    view, scene = window.edit_tab.current_view(), window.edit_tab.current_scene()
    affine = scene.layer_items["Affine"]
    where = view.mapFromScene(affine.mapToScene(QPointF(260, 0)))
    source = view.mapFromScene(affine.pin_pos("out"))  # where the user sees Affine's output
    drop_from_palette(qtbot, window, "Tanh", where)
    network = window.document.project.network("Main")
    assert "Tanh" in network.layer_names
    dest = view.mapFromScene(scene.layer_items["Tanh"].pin_pos("in", 0))
    window.show_message("the status bar appears")  # as after any save or refused gesture
    qtbot.wait(100)
    # The user drags between the pins as drawn: the view must not have moved meanwhile.
    drag(qtbot, view.viewport(), source, dest)
    assert ("Affine", "Tanh", 0) in [(k.source, k.destination, k.dest_pin) for k in network.links]
    assert scene.layer_items["Tanh"].stat_text == "32"

    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=box_point(view, affine))
    pane = window.edit_tab.property_pane
    assert pane.layer_name == "Affine"
    type_into(qtbot, pane.rows["OutShape"].widget, "16")
    assert network.layer("Affine").properties["OutShape"] == "16"
    assert scene.layer_items["Tanh"].stat_text == "16"
    view.setFocus()
    keys(qtbot, window, "Ctrl+Z")
    assert network.layer("Affine").properties["OutShape"] == "32"
    keys(qtbot, window, "Ctrl+Y")  # Windows users' redo
    assert network.layer("Affine").properties["OutShape"] == "16"
    keys(qtbot, window, "Ctrl+Z")
    keys(qtbot, window, "Ctrl+Shift+Z")
    assert network.layer("Affine").properties["OutShape"] == "16"
    keys(qtbot, window, "Ctrl+S")
    assert not window.isWindowModified()
    saved = json.loads(path.read_text(encoding="utf-8"))  # read back independently
    layers = {la["name"]: la for la in saved["networks"][0]["layers"]}
    assert layers["Affine"]["properties"]["OutShape"] == "16" and "Tanh" in layers
    assert {"source": "Affine", "destination": "Tanh"}.items() <= next(
        k for k in saved["networks"][0]["links"] if k["destination"] == "Tanh").items()  # fmt: skip

    window.actions_by_name["new"].trigger()
    assert window.document.path is None
    asked = answer_next_dialog(qtbot, "Open", text=str(path))
    keys(qtbot, window, "Ctrl+O")
    assert asked.done
    reopened = window.document.project.network("Main")
    assert window.document.path == path
    assert reopened.layer("Affine").properties["OutShape"] == "16"
    assert ("Affine", "Tanh") in [(k.source, k.destination) for k in reopened.links]
    quiet()


def test_b_training_run_stop_resume_by_clicks(qtbot, app_window, quiet):
    window = app_window
    training = window.project_tabs.training
    job = run_training(qtbot, window)
    assert job.parent == Path.cwd() / "projects" / "iris.files"
    assert [r[0] for r in training.live_curve] == [1, 2, 3]
    assert training.curve.lines_drawn == 3  # cost, training and validation error
    assert training.table.item(0, 1).text() == "finished"

    show_tab(qtbot, window, "CONFIG")
    type_into(qtbot, window.project_tabs.config.editors["MaxEpoch"], "5000")
    assert window.document.project.config.max_epoch == 5000
    show_tab(qtbot, window, "TRAINING")
    with qtbot.waitSignal(training.run_ended, timeout=300000) as ended:
        click(qtbot, training.run_button)
        qtbot.waitUntil(lambda: len(training.live_curve) >= 2, timeout=120000)
        click(qtbot, training.stop_button)
    assert ended.args == ["stopped"], training.log.toPlainText()[-3000:]
    second = training.current_job
    stopped_at = json.loads((second / "status.json").read_text(encoding="utf-8"))["epoch"]
    assert 2 <= stopped_at < 5000
    assert training.table.item(1, 1).text() == "stopped"

    rect = training.table.visualItemRect(training.table.item(1, 0))
    qtbot.mouseClick(training.table.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    with qtbot.waitSignal(training.run_ended, timeout=300000) as ended:
        click(qtbot, training.resume_button)  # goes on from the checkpoint...
        qtbot.waitUntil(lambda: training.live_curve[-1][0] >= stopped_at + 2, timeout=120000)
        click(qtbot, training.stop_button)  # ...until stopped again
    assert ended.args == ["stopped"], training.log.toPlainText()[-3000:]
    epochs = [r[0] for r in training.live_curve]
    assert epochs == list(range(1, len(epochs) + 1)) and len(epochs) >= stopped_at + 2
    status = json.loads((second / "status.json").read_text(encoding="utf-8"))
    assert status["status"] == "stopped" and status["epoch"] >= stopped_at + 2
    assert len(training.jobs) == 2  # resumed in its own folder, no new job
    quiet()


def test_c_evaluation_by_clicks(qtbot, app_window, quiet):
    window = app_window
    job = run_training(qtbot, window)
    evaluation = window.project_tabs.evaluation
    show_tab(qtbot, window, "EVALUATION")
    assert evaluation.current_job() == job
    with qtbot.waitSignal(evaluation.evaluated, timeout=300000) as done:
        click(qtbot, evaluation.evaluate_button)
    assert done.args == ["finished"], evaluation.last_message
    assert evaluation.output_view.model().rowCount() == 30  # iris validation rows
    summary = json.loads((job / "evaluation.json").read_text(encoding="utf-8"))
    matrix = summary["classification"]["y'"]["confusion_matrix"]
    bar = evaluation.views.tabBar()
    qtbot.mouseClick(bar, Qt.MouseButton.LeftButton, pos=bar.tabRect(1).center())
    shown = [[int(evaluation.matrix.item(i, j).text()) for j in range(3)] for i in range(3)]
    assert shown == matrix and sum(map(sum, shown)) == 30
    accuracy = summary["classification"]["y'"]["accuracy"]
    assert f"accuracy {accuracy:.4f}" in evaluation.summary_label.text()
    quiet()


def test_d_job_menu_exports_python_that_predicts_as_the_job(qtbot, app_window, quiet, tmp_path):
    window = app_window
    job = run_training(qtbot, window)
    training = window.project_tabs.training
    rect = training.table.visualItemRect(training.table.item(0, 0))
    right_click(qtbot, training.table.viewport(), rect.center())
    menu = training.job_menu_shown
    assert menu is not None and menu.isVisible()
    with qtbot.waitSignal(window.project_tabs.evaluation.evaluated, timeout=300000):
        choose(menu, "Evaluate")  # the menu's Evaluate: EVALUATION shows the result
    assert window.tabs.currentWidget() is window.project_tabs.evaluation
    with open(job / "output_result.csv", newline="", encoding="utf-8") as f:
        first = next(csv.DictReader(f))

    show_tab(qtbot, window, "TRAINING")
    right_click(qtbot, training.table.viewport(), rect.center())
    target = tmp_path / "exported" / "iris_model.py"
    target.parent.mkdir()
    asked = answer_next_dialog(qtbot, "Save", text=str(target))
    choose(training.job_menu_shown, "Export Python code...")
    assert asked.done and target.is_file()
    sample = tmp_path / "sample.csv"
    x = [first[k] for k in first if k.startswith("x__")]
    sample.write_text(",".join(x) + "\n", encoding="utf-8")
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    done = subprocess.run([sys.executable, str(target), str(sample)], capture_output=True,
                          text=True, env=env, cwd=tmp_path, timeout=600)  # fmt: skip
    assert done.returncode == 0, done.stderr
    _path, name, values = done.stdout.strip().split("\t")
    predicted = [float(v) for v in values.split()]
    expected = [float(first[k]) for k in first if k.startswith("y'__")]
    assert name.startswith("y'") and predicted == pytest.approx(expected, abs=1e-5)

    import numpy as np
    import onnxruntime  # the test extra installs it

    right_click(qtbot, training.table.viewport(), rect.center())
    model = tmp_path / "exported" / "iris_model.onnx"
    asked = answer_next_dialog(qtbot, "Save", text=str(model))
    choose(training.job_menu_shown, "Export ONNX...")
    assert asked.done and model.is_file()
    session = onnxruntime.InferenceSession(str(model))
    feed = {session.get_inputs()[0].name: np.array([[float(v) for v in x]], dtype=np.float32)}
    assert session.run(None, feed)[0][0].tolist() == pytest.approx(expected, abs=1e-5)

    if shutil.which("cc"):  # the job menu's C export builds and predicts as the job too
        right_click(qtbot, training.table.viewport(), rect.center())
        folder = tmp_path / "exported" / "iris_c"
        asked = answer_next_dialog(qtbot, "Save", text=str(folder))
        choose(training.job_menu_shown, "Export C source...")
        assert asked.done and (folder / "model.c").is_file()
        done = subprocess.run(["cc", "-std=c99", "-O2", "-Wall", "-Wextra", "-Werror", "-o",
                               "model", "main.c", "model.c", "parameters.c", "-lm"], cwd=folder,
                              capture_output=True, text=True, timeout=600)  # fmt: skip
        assert done.returncode == 0, done.stderr[-2000:]
        done = subprocess.run([str(folder / "model"), str(sample)], capture_output=True,
                              text=True, timeout=600)  # fmt: skip
        assert done.returncode == 0, done.stderr
        got = [float(v) for v in done.stdout.split()]
        assert got == pytest.approx(expected, abs=1e-5)
    quiet()


def test_e_create_unit_from_a_selection_and_open_it(qtbot, app_window, quiet):
    window = app_window
    view, scene = window.edit_tab.current_view(), window.edit_tab.current_scene()
    viewport = view.viewport()
    qtbot.mouseClick(viewport, Qt.MouseButton.LeftButton,
                     pos=box_point(view, scene.layer_items["Affine"]))  # fmt: skip
    qtbot.mouseClick(viewport, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.ControlModifier,
                     pos=box_point(view, scene.layer_items["ReLU"]))  # fmt: skip
    assert scene.selected_layers() == ["Affine", "ReLU"]
    cut = []

    def tick_out_shape(dialog) -> None:
        """Every line shows whole; tick Affine.OutShape with a click and the space bar."""
        listing = dialog.arguments
        width = listing.viewport().width()
        for i in range(listing.count()):
            item = listing.item(i)
            if listing.fontMetrics().horizontalAdvance(item.text()) + 30 > width:
                cut.append(item.text())
            if item.text().startswith("Affine.OutShape "):
                rect = listing.visualItemRect(item)
                qtbot.mouseClick(listing.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
                qtbot.keyClick(listing, Qt.Key.Key_Space)

    asked = answer_next_dialog(qtbot, "OK", before=tick_out_shape)
    view.setFocus()
    keys(qtbot, window, "Ctrl+Shift+U")
    assert asked.done and cut == []
    project = window.document.project
    assert project.network_names == ("Main", "Unit")
    unit = project.network("Unit")
    assert unit.layer_names[1:] == ("Affine", "ReLU", "OutShape")
    assert unit.layer("Affine").properties["OutShape"] == "*OutShape"
    unit_item = scene.layer_items["Unit"]
    assert unit_item.stat_text == "32"
    qtbot.mouseDClick(viewport, Qt.MouseButton.LeftButton, pos=box_point(view, unit_item))
    unit_scene = window.edit_tab.current_scene()
    assert unit_scene.network.name == "Unit"
    assert set(unit_scene.layer_items) >= {"Affine", "ReLU", "OutShape"}
    # The Argument box does not cover the shape written beside any box.
    argument = unit_scene.layer_items["OutShape"].sceneBoundingRect()
    for name, item in unit_scene.layer_items.items():
        label = item.mapRectToScene(QRectF(g.STAT_X, 0, g.STAT_BAR_W + 60, g.BOX_H))
        assert name == "OutShape" or not label.intersects(argument), name
    quiet()

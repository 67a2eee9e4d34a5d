"""What a newcomer met in the app (issue 35), each driven as a user does: menus, dialogs answered
with keys and clicks, the TRAINING and EDIT tabs."""

from __future__ import annotations

from pathlib import Path

import pytest
from gui_driver import answer_next_dialog
from PySide6.QtCore import Qt
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
    assert asked.done
    assert not (tmp_path / "mycnn").exists()
    saved = tmp_path / "mycnn.ncproj"
    assert load_project(saved).network_names == ("Main",)
    assert saved.read_text(encoding="utf-8").lstrip().startswith("{")  # the native JSON
    assert window.document.path == saved
    assert window.settings.recent_files()[0] == str(saved)
    asked = answer_next_dialog(qtbot, "Save", text=str(tmp_path / "mycnn_nnc"),
                               before=_nnc_filter(qtbot))  # fmt: skip
    window.actions_by_name["save_as"].trigger()
    assert asked.done
    nnc = tmp_path / "mycnn_nnc.sdcproj"
    assert nnc.read_text(encoding="utf-8").startswith("[")  # NNC's ini layout
    assert load_project(nnc).network_names == ("Main",)
    assert window.settings.recent_files()[:2] == [str(nnc), str(saved)]


def test_the_first_start_and_open_sample_edit_a_copy_never_the_installed_sample(
    qtbot, make_window, settings
):
    from console_app.document import PROJECTS_DIR

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

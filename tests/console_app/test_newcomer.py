"""What a newcomer met in the app (issue 35), each driven as a user does: menus, dialogs answered
with keys and clicks, the TRAINING and EDIT tabs."""

from __future__ import annotations

import shutil
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

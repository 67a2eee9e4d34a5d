"""What the editor leaves until it is used (issue 33, the editor's start): the tabs beside EDIT
are built when first shown, File > Export and Help load their modules when first chosen, the
statistics and problems come just after the first paint. Each still works when it is used, and
the start does not load them."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from gui_driver import choose, finished_job
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFileDialog

from console_app.editor.edit_tab import PANES_WAIT_MS
from console_app.main_window import MainWindow
from console_app.tabs import NAMES

pytestmark = pytest.mark.gui
ROOT = Path(__file__).resolve().parents[2]
IRIS = ROOT / "projects" / "iris.ncproj"
TAB = {name: index for index, name in enumerate(("EDIT", *NAMES))}

# Started as `neurocanvas PROJECT` starts (neurocanvas.main): once the event loop runs, wait
# until the statistics show, then report what the app had loaded and shown.
SCRIPT = r"""
import gc, json, os, sys
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication

out = {}

def report(tab):
    out["collecting"] = gc.isenabled()
    out["statistic"] = tab.statistics.value("CostParameter")
    out["problems"] = [tab.problems.item(i).text() for i in range(tab.problems.count())]
    out["modules"] = sorted(m for m in sys.modules if m.startswith(("engine", "console_app"))
                            or m in ("importlib.metadata", "matplotlib", "networkx"))
    print("RESULT " + json.dumps(out), flush=True)
    os._exit(0)

_exec = QApplication.exec
def exec_(*args):
    window = next(w for w in QApplication.topLevelWidgets() if hasattr(w, "open_path"))
    tab = window.edit_tab
    out["at_exec"] = tab.statistics.value("CostParameter")
    def poll(left=30000):  # every 10 ms, up to 5 min (a loaded machine is slow)
        if tab.statistics.value("CostParameter") or not left:
            report(tab)
        else:
            QTimer.singleShot(10, lambda: poll(left - 1))
    QTimer.singleShot(0, poll)
    return _exec()
QApplication.exec = exec_

import neurocanvas
sys.exit(neurocanvas.main([sys.argv[1]]))
"""

# Loaded when used, not by the start: the exports (and the runtime they check models with),
# the four tabs beside EDIT with the trainer's and the quantization experiment's modules, Help's
# pages (importlib.metadata), the plots and Edit > Arrange Layers.
NOT_AT_START = (
    "engine.export", "engine.runtime", "engine.runtime.trainer", "engine.runtime.session",
    "engine.runtime.compiler", "engine.runtime.distributed.run", "console_app.export_actions",
    "console_app.help_pages", "console_app.tabs.training_tab", "console_app.tabs.dataset_tab",
    "console_app.tabs.config_tab", "console_app.tabs.evaluation_tab",
    "console_app.tabs.quantization_experiment", "importlib.metadata", "matplotlib", "networkx",
)  # fmt: skip


def test_the_start_loads_only_the_editor_and_fills_the_panes_after_the_first_paint(
    tmp_path, lenet_copy
):
    """LeNet with one refused value (W.LRateMultiplier=-7 on Affine): the statistics and the
    problem appear once the window is up, garbage collection is on again, and the start loaded
    none of what waits for its first use."""
    raw = lenet_copy.read_text(encoding="utf-8")
    at = raw.index("Property_0_Value=Affine\n")  # the first Affine; its W.LRateMultiplier:
    bad = raw[at:].replace("Property_7_Value=1.0\n", "Property_7_Value=-7\n", 1)
    lenet_copy.write_text(raw[:at] + bad, encoding="utf-8")
    env = dict(os.environ, PYTHONPATH=str(ROOT), QT_QPA_PLATFORM="offscreen", LANGUAGE="en",
               XDG_CONFIG_HOME=str(tmp_path), XDG_DATA_HOME=str(tmp_path))  # fmt: skip
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(lenet_copy)],
        env=env, capture_output=True, text=True, timeout=600, cwd=tmp_path,
    )  # fmt: skip
    line = next((l for l in done.stdout.splitlines() if l.startswith("RESULT ")), None)
    assert line is not None, done.stderr[-3000:]
    out = json.loads(line[7:])
    assert out["at_exec"] == ""  # not computed before the window is painted
    assert out["statistic"] == "78,810"  # LeNet's parameters
    assert len(out["problems"]) == 1 and "W.LRateMultiplier" in out["problems"][0]
    assert "Affine" in out["problems"][0] and "-7" in out["problems"][0]
    assert out["collecting"] is True
    assert [m for m in NOT_AT_START if m in out["modules"]] == []
    assert "console_app.editor.edit_tab" in out["modules"]  # the check itself sees modules


def _menu(parent, text: str):
    """The menu bar's (or a menu's) submenu labelled ``text``."""
    owner = parent.menuBar() if hasattr(parent, "menuBar") else parent
    return next(a.menu() for a in owner.actions() if a.text() == text)


def _click_tab(qtbot, window, name: str):
    bar = window.tabs.tabBar()
    qtbot.mouseClick(bar, Qt.MouseButton.LeftButton, pos=bar.tabRect(TAB[name]).center())
    shown = window.tabs.currentWidget()
    assert window.tabs.tabText(window.tabs.currentIndex()) == name
    assert shown is window.project_tabs.built(name) and shown.isVisible()
    return shown


def test_each_tab_is_built_when_first_clicked_and_shows_the_project(
    qtbot, make_window, tmp_path, lenet_copy, monkeypatch
):
    project = tmp_path / "iris.ncproj"
    shutil.copyfile(IRIS, project)
    old = finished_job(tmp_path / "iris.files", "20260101_000001", 0.25, IRIS)
    new = finished_job(tmp_path / "iris.files", "20260101_000002", 0.125, IRIS)
    window = make_window(project)
    window.resize(1200, 800)
    window.show()
    qtbot.waitExposed(window)
    tabs = window.project_tabs
    assert [window.tabs.tabText(i) for i in range(5)] == list(TAB)
    assert [tabs.built(name) for name in NAMES] == [None] * 4

    config = _click_tab(qtbot, window, "CONFIG")
    assert config.objectName() == "tab_config"
    assert config.editors["MaxEpoch"].text() == "500"  # iris's
    assert [tabs.built(name) is None for name in NAMES] == [True, False, True, True]

    dataset = _click_tab(qtbot, window, "DATASET")
    links = [dataset.list.item(i).text() for i in range(dataset.list.count())]
    assert links == [
        "Training (main)  builtin:iris/training",
        "Validation  builtin:iris/validation",
    ]

    evaluation = _click_tab(qtbot, window, "EVALUATION")  # the history comes from TRAINING
    jobs = [evaluation.job_combo.itemData(i) for i in range(evaluation.job_combo.count())]
    assert jobs == [str(new), str(old)]  # newest first
    training = _click_tab(qtbot, window, "TRAINING")
    assert training.table.rowCount() == 2
    assert _click_tab(qtbot, window, "CONFIG") is config  # built once

    # File > Open: the tabs built follow the new project.
    monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *a, **k: (str(lenet_copy), ""))
    choose(_menu(window, "&File"), "Open...")
    assert window.document.path == lenet_copy
    assert config.editors["MaxEpoch"].text() == "10"  # LeNet's
    assert training.table.rowCount() == 0 and evaluation.job_combo.count() == 0


def test_a_tab_first_shown_after_file_open_shows_the_new_project(
    qtbot, make_window, tmp_path, lenet_copy, monkeypatch
):
    project = tmp_path / "iris.ncproj"
    shutil.copyfile(IRIS, project)
    window = make_window(project)
    window.resize(1200, 800)
    window.show()
    qtbot.waitExposed(window)
    monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *a, **k: (str(lenet_copy), ""))
    choose(_menu(window, "&File"), "Open...")
    assert window.document.path == lenet_copy
    assert window.project_tabs.built("CONFIG") is None
    config = _click_tab(qtbot, window, "CONFIG")
    assert config.editors["MaxEpoch"].text() == "10"
    assert config.project is window.document.project


def test_closing_does_not_build_the_tabs_never_shown(make_window, tmp_path):
    project = tmp_path / "iris.ncproj"
    shutil.copyfile(IRIS, project)
    window = make_window(project)
    window.show()
    assert window.running_children() == []
    assert window.close()
    assert [window.project_tabs.built(name) for name in NAMES] == [None] * 4


def test_file_export_loads_the_exports_when_chosen_and_writes_the_file(
    qtbot, lenet_window, tmp_path, monkeypatch
):
    target = tmp_path / "lenet.nnp"
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(target), ""))
    lenet_window.show()
    qtbot.waitExposed(lenet_window)
    choose(_menu(_menu(lenet_window, "&File"), "&Export"), "NNP...")
    with zipfile.ZipFile(target) as nnp:  # read back as nnabla's .nnp: a zip with the nntxt
        assert sorted(nnp.namelist()) == ["network.nntxt", "nnp_version.txt", "parameter.protobuf"]
        nntxt = nnp.read("network.nntxt").decode("utf-8")
    networks = re.findall(r'^network \{\n  name: "(\w+)"', nntxt, re.MULTILINE)
    assert networks == ["Main", "MainValidation", "MainRuntime"]  # LeNet's three
    assert nntxt.count('type: "Affine"') == 6 and nntxt.count('type: "Convolution"') == 6


def test_the_panes_wait_for_the_first_paint_at_most_half_a_second_of_the_event_loop(
    qtbot, settings, lenet_copy
):
    """A window built as the app starts it but never shown (so never painted): the statistics
    and problems still come, once the event loop has run PANES_WAIT_MS."""
    window = MainWindow(str(lenet_copy), settings=settings, starting=True)
    qtbot.addWidget(window)
    tab = window.edit_tab
    assert tab.statistics.value("CostParameter") == "" and tab.problems.count() == 0
    qtbot.waitUntil(lambda: tab.statistics.value("CostParameter") == "78,810")


def test_file_open_before_the_first_paint_fills_the_panes_at_once(
    qtbot, settings, lenet_copy, tmp_path
):
    """Another project opened while the first one's panes wait: the new project's statistics
    show at once, and the first one's never replace them."""
    window = MainWindow(str(lenet_copy), settings=settings, starting=True)
    qtbot.addWidget(window)
    window.ask_save_changes = lambda: "discard"
    project = tmp_path / "iris.ncproj"
    shutil.copyfile(IRIS, project)
    assert window.open_path(project, ask=False)
    tab = window.edit_tab
    assert tab.statistics.value("CostParameter") == f"{4 * 32 + 32 + 32 * 3 + 3:,}"  # 259
    qtbot.wait(3 * PANES_WAIT_MS)
    assert tab.statistics.value("CostParameter") == "259"

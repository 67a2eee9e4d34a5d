"""Start-up: what the window leaves until it is used still works when it is used.

The plots (matplotlib) are built when first shown or read, and Edit > Arrange Layers loads
networkx when first chosen, so neither is imported before the window is up.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from gui_driver import finished_job
from matplotlib.backends.backend_qtagg import FigureCanvasQTAgg
from PySide6.QtCore import Qt

from console_app.tabs.plots import TRADEOFF_HINT

pytestmark = pytest.mark.gui
ROOT = Path(__file__).resolve().parents[2]
IRIS = ROOT / "projects" / "iris.ncproj"

# A fresh process, as `neurocanvas PROJECT` starts: the window shown, two layers moved out of
# line, then Edit > Arrange Layers chosen and the TRAINING tab clicked.
SCRIPT = r"""
import json, sys
from PySide6.QtCore import QSettings, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication
from console_app.main_window import MainWindow
from console_app.settings import AppSettings

app = QApplication([])
settings = AppSettings(QSettings(sys.argv[2], QSettings.Format.IniFormat))
window = MainWindow(sys.argv[1], settings=settings)
window.resize(1200, 800)
window.show()
app.processEvents()
out = {"shown": {m: m in sys.modules for m in ("matplotlib", "networkx")}}
from engine.graph import commands as C
network = window.document.project.network("Main")
window.document.push(C.MoveLayers(network, {"ReLU": (500, 500), "Affine": (0, 900)}))
before = {l.name: l.position for l in network.layers}
action = next(a for a in window.menuBar().actions() if a.text() == "&Edit").menu()
arrange = next(a for a in action.actions() if a.text() == "A&rrange Layers")
arrange.trigger()
app.processEvents()
out["arranged"] = {"networkx": "networkx" in sys.modules,
                   "moved": sum(before[l.name] != l.position for l in network.layers),
                   "undo": window.document.stack.undo_text()}
out["before_training"] = "matplotlib" in sys.modules
bar = window.tabs.tabBar()
QTest.mouseClick(bar, Qt.MouseButton.LeftButton, pos=bar.tabRect(3).center())
app.processEvents()
curve = window.project_tabs.training.curve
canvases = [c for c in curve.children() if type(c).__name__ == "LearningCurveCanvas"]
out["training"] = {"tab": window.tabs.tabText(window.tabs.currentIndex()),
                   "matplotlib": "matplotlib" in sys.modules,
                   "canvas_visible": bool(canvases) and canvases[0].isVisible(),
                   "hint": canvases[0].hint if canvases else None}
print("RESULT " + json.dumps(out))
"""


def test_window_up_without_matplotlib_or_networkx_which_load_when_used(tmp_path, lenet_copy):
    project = lenet_copy
    env = dict(os.environ, PYTHONPATH=str(ROOT), QT_QPA_PLATFORM="offscreen", LANGUAGE="en")
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(project), str(tmp_path / "s.ini")],
        env=env, capture_output=True, text=True, timeout=600, cwd=tmp_path,
    )  # fmt: skip
    line = next((l for l in done.stdout.splitlines() if l.startswith("RESULT ")), None)
    assert line is not None, done.stderr[-3000:]
    out = json.loads(line[7:])
    assert out["shown"] == {"matplotlib": False, "networkx": False}
    arranged = out["arranged"]
    assert arranged["networkx"] and arranged["moved"] == 2, arranged  # both back in line
    assert arranged["undo"] == "Arrange Layers"
    assert out["before_training"] is False  # the EDIT tab's work needs no plot
    assert out["training"] == {
        "tab": "TRAINING", "matplotlib": True, "canvas_visible": True,
        "hint": "No curve yet: click Run to train, or select jobs in the history",
    }  # fmt: skip


def test_plots_drawn_before_first_display_show_the_jobs_once_clicked(qtbot, make_window, tmp_path):
    """The history's jobs reach the trade-off graph while TRAINING is hidden; the graph built
    when the tab is first clicked shows them, and selecting jobs draws their curves."""
    project = tmp_path / "iris.ncproj"
    shutil.copyfile(IRIS, project)
    root = tmp_path / "iris.files"
    finished_job(root, "20260101_000001", 0.25, IRIS)
    finished_job(root, "20260101_000002", 0.125, IRIS)
    window = make_window(project)
    window.resize(1200, 800)
    window.show()
    qtbot.waitExposed(window)
    training = window.project_tabs.training
    assert window.tabs.currentIndex() == 0
    assert not training.tradeoff.findChildren(FigureCanvasQTAgg)  # nothing built yet
    assert not training.curve.findChildren(FigureCanvasQTAgg)

    bar = window.tabs.tabBar()
    qtbot.mouseClick(bar, Qt.MouseButton.LeftButton, pos=bar.tabRect(3).center())
    assert window.tabs.currentWidget() is training
    (graph,) = training.tradeoff.findChildren(FigureCanvasQTAgg)
    assert graph.isVisible()
    assert graph.optimal == ["20260101_000002"]  # the better validation error, same cost
    assert graph.hint == "" and TRADEOFF_HINT not in [t.get_text() for t in graph.axes.texts]
    (curve,) = training.curve.findChildren(FigureCanvasQTAgg)
    assert curve.isVisible() and curve.lines_drawn == 0 and curve.hint

    table = training.table
    qtbot.mouseClick(table.viewport(), Qt.MouseButton.LeftButton,
                     pos=table.visualItemRect(table.item(0, 0)).center())  # fmt: skip
    qtbot.mouseClick(table.viewport(), Qt.MouseButton.LeftButton,
                     Qt.KeyboardModifier.ControlModifier,
                     pos=table.visualItemRect(table.item(1, 0)).center())  # fmt: skip
    assert len(training.selected_jobs()) == 2
    assert curve.lines_drawn == 6 and training.curve.lines_drawn == 6  # 3 series x 2 jobs
    assert curve.hint == ""

"""The main window holds the four tabs; a run feeds EVALUATION and opens in EDIT."""

from __future__ import annotations

import shutil
from pathlib import Path

IRIS = Path(__file__).resolve().parents[3] / "projects" / "iris.ncproj"


def test_tabs_train_evaluate_and_open_the_job_network(qtbot, make_window, tmp_path):
    project = tmp_path / "iris.ncproj"
    shutil.copyfile(IRIS, project)
    window = make_window(project)
    names = [window.tabs.tabText(i) for i in range(window.tabs.count())]
    assert names == ["EDIT", "DATASET", "CONFIG", "TRAINING", "EVALUATION"]
    tabs = window.project_tabs
    assert window.tabs.widget(3) is tabs.training
    tabs.config.set_value("MaxEpoch", "2")
    assert window.isWindowModified()
    with qtbot.waitSignal(tabs.training.run_ended, timeout=15000) as blocker:
        job = tabs.training.run()
    assert blocker.args == ["finished"]
    assert tabs.evaluation.current_job() == job
    with qtbot.waitSignal(tabs.evaluation.evaluated, timeout=15000):
        tabs.evaluation.evaluate()
    assert tabs.evaluation.output_view.model().rowCount() == 30
    tabs.training.select_jobs([job])
    tabs.training.open_selected()  # the unsaved edit: ask_save_changes answers "discard"
    assert window.document.path == job / "network.ncproj"
    assert window.document.project.config.max_epoch == 2
    assert tabs.config.project is window.document.project

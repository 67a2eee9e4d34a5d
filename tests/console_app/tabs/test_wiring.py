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
    with qtbot.waitSignal(tabs.training.run_ended, timeout=120000) as blocker:
        job = tabs.training.run()
    assert blocker.args == ["finished"]
    assert tabs.evaluation.current_job() == job
    with qtbot.waitSignal(tabs.evaluation.evaluated, timeout=120000):
        tabs.evaluation.evaluate()
    assert tabs.evaluation.output_view.model().rowCount() == 30
    tabs.training.select_jobs([job])
    tabs.training.open_selected()  # the unsaved edit: ask_save_changes answers "discard"
    assert window.document.path == job / "network.ncproj"
    assert window.document.project.config.max_epoch == 2
    assert tabs.config.project is window.document.project


def test_closing_during_a_run_asks_then_stops_it_with_a_checkpoint(qtbot, make_window, tmp_path):
    import json

    project = tmp_path / "iris.ncproj"
    shutil.copyfile(IRIS, project)
    window = make_window(project)
    training = window.project_tabs.training
    training.run(epochs=400)
    qtbot.waitUntil(lambda: len(training.live_curve) >= 1, timeout=120000)
    training.ask_confirm = lambda text: False
    assert not window.close()
    assert training.runner.is_running()
    training.ask_confirm = lambda text: True
    assert window.close()
    status = json.loads((training.current_job / "status.json").read_text())
    assert status["status"] == "stopped"
    assert (training.current_job / "checkpoints" / "last").is_dir()

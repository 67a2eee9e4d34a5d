"""Structure search from the GUI: CONFIG > Structure Search enables it, TRAINING's Run starts
it, the attempts join the history and the trade-off graph, Stop ends it cleanly."""

from __future__ import annotations

import csv
import json

import pytest
from PySide6.QtCore import QPoint, Qt

from engine.graph import commands as C


@pytest.fixture
def tabs(qtbot, iris_document, tmp_path):
    from console_app.tabs.config_tab import ConfigTab
    from console_app.tabs.training_tab import TrainingTab

    config = ConfigTab(iris_document)
    training = TrainingTab(iris_document, tmp_path / "jobs")
    for widget in (config, training):
        qtbot.addWidget(widget)
        widget.show()
    yield config, training
    training.runner.kill()


def _open_structure_search(qtbot, config):
    row = [config.sections.item(i).text() for i in range(config.sections.count())].index(
        "Structure Search"
    )
    rect = config.sections.visualItemRect(config.sections.item(row))
    qtbot.mouseClick(config.sections.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    assert config.where == "structure_search"


def _type(qtbot, line, text):
    line.selectAll()
    qtbot.keyClicks(line, text)
    qtbot.keyClick(line, Qt.Key.Key_Return)


def test_run_with_structure_search_enabled_trains_the_attempts(qtbot, tabs, iris_document):
    config, training = tabs
    _open_structure_search(qtbot, config)
    enabled = config.editors["Enabled"]
    indicator = QPoint(enabled.height() // 2, enabled.height() // 2)  # the box has no label
    qtbot.mouseClick(enabled, Qt.MouseButton.LeftButton, pos=indicator)
    _type(qtbot, config.editors["AttemptTimes"], "4")
    search = iris_document.project.structure_search
    assert search.enabled and search.get("AttemptTimes") == 4
    assert iris_document.stack.undo_text() == "Set AttemptTimes"
    with qtbot.waitSignal(training.run_ended, timeout=300000) as blocker:
        qtbot.mouseClick(training.run_button, Qt.MouseButton.LeftButton)
    assert blocker.args[0] == "finished", training.last_message
    attempts = [j for j in training.jobs if j.path.name.startswith(training.search.study)]
    assert len(attempts) == 4 and all(j.status == "finished" for j in attempts)
    assert training.progress.value() == 4
    assert training.curve.lines_drawn == 3  # the last attempt's curve (cost, two errors)
    assert training.position.text() == f"{training.search.study}: finished"
    table = training.jobs_root() / f"{training.search.study}_results.csv"
    rows = list(csv.DictReader(table.open()))
    assert [r["state"] for r in rows] == ["complete"] * 4
    pareto = sorted(r["job"].rsplit("/", 1)[-1] for r in rows if r["pareto"] == "True")
    assert sorted(training.tradeoff.optimal) == pareto  # the graph marks the same front


def test_stop_ends_the_search_cleanly(qtbot, tabs, iris_document):
    config, training = tabs
    project = iris_document.project
    iris_document.push(C.SetSectionValue(project, "config", "MaxEpoch", "100000"))
    iris_document.push(C.SetSectionValue(project, "structure_search", "Enabled", "1"))
    started = []
    training.runner.event.connect(
        lambda r: started.append(r) if r.get("event") == "attempt_start" else None
    )
    with qtbot.waitSignal(training.run_ended, timeout=120000) as blocker:
        qtbot.mouseClick(training.run_button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: bool(started), timeout=60000)
        qtbot.wait(1500)  # into the training loop
        qtbot.mouseClick(training.stop_button, Qt.MouseButton.LeftButton)
    assert blocker.args[0] == "stopped", training.last_message
    job = started[0]["job"]
    status = json.loads((training.jobs_root() / job.rsplit("/", 1)[-1] / "status.json").read_text())
    assert status["status"] == "stopped"
    table = training.jobs_root() / f"{training.search.study}_results.csv"
    rows = list(csv.DictReader(table.open()))
    assert len(rows) == 1 and rows[0]["state"] == "fail" and rows[0]["reason"] == "stopped"

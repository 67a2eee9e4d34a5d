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

    # Issue 35, item 11: the results table opens when the search ends (it was a CSV path in the
    # log): sortable, the Pareto attempts marked, an attempt's network opens in EDIT.
    dialog = training.search.dialog
    qtbot.waitUntil(lambda: dialog.isVisible())
    table = dialog.table
    assert table.rowCount() == 4
    marked = [table.item(r, 1).text() for r in range(4)]
    optimal = {r["number"] for r in rows if r["pareto"] == "True"}
    shown = {table.item(r, 0).text() for r in range(4) if marked[r]}
    assert shown == optimal and all(m in ("", "\u2605 optimal") for m in marked)
    header = table.horizontalHeader()
    column = [table.horizontalHeaderItem(c).text() for c in range(table.columnCount())]
    loss = column.index("Validation loss")
    qtbot.mouseClick(header.viewport(), Qt.MouseButton.LeftButton,
                     pos=QPoint(header.sectionViewportPosition(loss) + 5, 5))  # fmt: skip
    values = [float(table.item(r, loss).text()) for r in range(4)]
    assert values == sorted(values) or values == sorted(values, reverse=True)
    assert not dialog.open_button.isEnabled()
    rect = table.visualRect(table.model().index(0, 0))
    qtbot.mouseClick(table.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    number = table.item(0, 0).text()
    job = next(r["job"] for r in rows if r["number"] == number)
    with qtbot.waitSignal(training.open_network, timeout=120000) as opened:
        qtbot.mouseClick(dialog.open_button, Qt.MouseButton.LeftButton)
    assert opened.args[0].parent.name == job.rsplit("/", 1)[-1]
    assert opened.args[0].name == "network.ncproj" and opened.args[0].is_file()
    dialog.close()
    # ...and again from TRAINING's button.
    qtbot.mouseClick(training.search_results_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(
        lambda: training.search.dialog is not dialog and training.search.dialog.isVisible()
    )
    assert training.search.dialog.table.rowCount() == 4
    training.search.dialog.close()


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
        qtbot.waitUntil(lambda: bool(started), timeout=300000)
        # into the training loop: the attempt's first epoch is written (a fixed 1.5 s wait
        # could end, on a loaded machine, before its trainer had started)
        attempt = training.jobs_root() / started[0]["job"].rsplit("/", 1)[-1]
        qtbot.waitUntil(lambda: (attempt / "learning_curve.csv").is_file(), timeout=120000)
        qtbot.mouseClick(training.stop_button, Qt.MouseButton.LeftButton)
    assert blocker.args[0] == "stopped", training.last_message
    job = started[0]["job"]
    status = json.loads((training.jobs_root() / job.rsplit("/", 1)[-1] / "status.json").read_text())
    assert status["status"] == "stopped"
    table = training.jobs_root() / f"{training.search.study}_results.csv"
    rows = list(csv.DictReader(table.open()))
    assert len(rows) == 1 and rows[0]["state"] == "fail" and rows[0]["reason"] == "stopped"

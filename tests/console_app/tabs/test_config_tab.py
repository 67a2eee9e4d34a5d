"""CONFIG tab: undoable edits, refused values with the reason, solvers with NNC's defaults."""

from __future__ import annotations

import json

import pytest
from PySide6.QtCore import Qt

from engine.graph import config as cfg


@pytest.fixture
def config_tab(qtbot, iris_document):
    from console_app.tabs.config_tab import ConfigTab

    tab = ConfigTab(iris_document)
    qtbot.addWidget(tab)
    return tab


def test_global_config_edits_are_undoable(config_tab, iris_document):
    project = iris_document.project
    line = config_tab.editors["BatchSize"]
    line.setText("16")
    line.editingFinished.emit()
    assert project.config.batch_size == 16
    assert iris_document.stack.undo_text() == "Set BatchSize"
    iris_document.stack.undo()
    assert project.config.batch_size == 10
    assert config_tab.editors["BatchSize"].text() == "10"  # the form follows undo
    config_tab.editors["SaveBest"].setChecked(False)
    assert project.config.save_best is False
    config_tab.editors["TypeConfig"].setCurrentText("Half")
    assert project.config.precision == "Half"


@pytest.mark.parametrize(("key", "text", "reason"), [
    ("MaxEpoch", "ten", "expected an integer. Received: MaxEpoch=ten"),
    ("BatchSize", "0", "expected a value >= 1. Received: BatchSize=0"),
    ("MonitorInterval", "-3", "expected a value >= 1"),
])  # fmt: skip
def test_invalid_values_are_refused_with_the_reason(config_tab, iris_document, key, text, reason):
    before = iris_document.project.config
    assert not config_tab.set_value(key, text)
    assert reason in config_tab.error.text()
    assert iris_document.project.config == before
    assert iris_document.stack.is_clean()  # nothing was pushed
    assert config_tab.editors[key].text() == before.raw(key)


def test_optimizer_solver_parameters_and_scheduler(config_tab, iris_document):
    project = iris_document.project
    config_tab.select(("optimizers", 0))
    config_tab.editors["SolverName"].setCurrentText("Momentum")
    opt = project.optimizers[0]
    assert opt.solver == "Momentum"
    assert opt.solver_parameters == dict(cfg.SOLVERS["Momentum"])  # NNC's defaults
    assert "SolverParameter_1" in config_tab.editors  # the form shows the new parameters
    assert config_tab.set_solver_parameter(0, "LearningRate", "0.05")
    assert project.optimizers[0].solver_parameters["LearningRate"] == "0.05"
    assert not config_tab.set_solver_parameter(0, "LearningRate", "fast")
    assert "LearningRate" in config_tab.error.text()
    assert not config_tab.set_value("LearningRateSteps", "10,x")
    assert "comma-separated integers" in config_tab.error.text()
    assert config_tab.set_value("LearningRateSteps", "10,20")
    assert project.optimizers[0].lr_steps == (10, 20)
    assert not config_tab.set_value("WeightDecay", "-1")
    iris_document.stack.undo()
    iris_document.stack.undo()
    iris_document.stack.undo()
    assert project.optimizers[0].solver == "Adam"


def test_add_and_delete_monitor_and_description(config_tab, iris_document):
    project = iris_document.project
    config_tab.add_item("monitors")
    assert len(project.monitors) == 3
    assert config_tab.where == ("monitors", 2)
    assert config_tab.remove_current()
    assert len(project.monitors) == 2
    iris_document.stack.undo()
    assert len(project.monitors) == 3
    config_tab.select("config")
    config_tab.description.setPlainText("iris, small")
    assert project.description == "iris, small"


def test_config_edits_reach_the_trained_job(qtbot, config_tab, training_tab):
    config_tab.set_value("MaxEpoch", "2")
    config_tab.set_value("BatchSize", "40")
    config_tab.select(("optimizers", 0))
    config_tab.editors["SolverName"].setCurrentText("Sgd")
    with qtbot.waitSignal(training_tab.run_ended, timeout=120000) as blocker:
        job = training_tab.run()
    assert blocker.args == ["finished"]
    plan = json.loads((job / "config.json").read_text())["plan"]
    assert (plan["max_epoch"], plan["batch_size"], plan["iter_per_epoch"]) == (2, 40, 3)
    assert plan["optimizers"][0]["solver"] == "Sgd"
    assert plan["optimizers"][0]["solver_parameters"] == {"LearningRate": "0.01"}


def test_learning_rate_fields_the_scheduler_ignores_are_disabled(qtbot, config_tab):
    config_tab.show()
    optimizer = config_tab._entries().index(("optimizers", 0))
    row = config_tab.sections.visualItemRect(config_tab.sections.item(optimizer))
    qtbot.mouseClick(config_tab.sections.viewport(), Qt.MouseButton.LeftButton, pos=row.center())
    editors = config_tab.editors
    assert editors["LearningRateScheduler"].currentText() == "Exponential"
    assert not editors["LearningRatePower"].isEnabled()
    assert not editors["LearningRateSteps"].isEnabled()
    assert editors["LearningRateMultiplier"].isEnabled()
    combo = editors["LearningRateScheduler"]
    qtbot.mouseClick(combo, Qt.MouseButton.LeftButton)  # focus; then the keys pick "Step"
    combo.hidePopup()
    for _ in range(combo.count()):
        if combo.currentText() == "Step":
            break
        qtbot.keyClick(combo, Qt.Key.Key_Down)
    assert config_tab.project.optimizers[0].raw("LearningRateScheduler") == "Step"
    assert config_tab.editors["LearningRateSteps"].isEnabled()
    assert not config_tab.editors["LearningRatePower"].isEnabled()
    assert not config_tab.editors["LearningRateUpdateInterval"].isEnabled()


def test_global_config_rows_stay_together_in_a_tall_window(config_tab, qtbot):
    """Issue 35, item 16: in a tall window the six Global Config fields spread over the whole
    height (Max Epoch and Batch Size 76 px apart at 1366x768); they now sit row under row."""
    config_tab.resize(1200, 900)
    config_tab.show()
    qtbot.waitExposed(config_tab)
    epoch, batch = config_tab.editors["MaxEpoch"], config_tab.editors["BatchSize"]
    gap = batch.mapTo(config_tab, batch.rect().topLeft()).y() - epoch.mapTo(
        config_tab, epoch.rect().topLeft()).y()  # fmt: skip
    assert 0 < gap <= 2 * epoch.height(), gap

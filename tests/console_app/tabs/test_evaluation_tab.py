"""EVALUATION tab: evaluate a trained job; the table and the confusion matrix hold its counts."""

from __future__ import annotations

import csv

import numpy as np
import pytest
from PySide6.QtCore import Qt


@pytest.fixture
def trained_job(qtbot, training_tab):
    with qtbot.waitSignal(training_tab.run_ended, timeout=120000) as blocker:
        job = training_tab.run(epochs=5)
    assert blocker.args == ["finished"]
    return job


@pytest.fixture
def evaluation_tab(qtbot, training_tab, trained_job):
    from console_app.tabs.evaluation_tab import EvaluationTab

    tab = EvaluationTab()
    qtbot.addWidget(tab)
    training_tab.jobs_changed.connect(tab.set_jobs)
    training_tab.refresh_jobs()
    yield tab
    tab.runner.kill()


def _evaluate(qtbot, tab, **kw):
    with qtbot.waitSignal(tab.evaluated, timeout=120000) as blocker:
        assert tab.evaluate(**kw)
    return blocker.args[0]


def test_evaluation_fills_output_table_and_confusion_matrix(qtbot, evaluation_tab, trained_job):
    tab = evaluation_tab
    assert tab.current_job() == trained_job
    assert [tab.dataset_combo.itemText(i) for i in range(tab.dataset_combo.count())] == [
        "Validation", "Training"]  # fmt: skip
    assert _evaluate(qtbot, tab) == "finished", tab.last_message
    model = tab.output_view.model()
    assert model.rowCount() == 30  # iris validation split
    header = [model.headerData(c, Qt.Orientation.Horizontal) for c in range(model.columnCount())]
    assert header[-4:] == ["y'__0", "y'__1", "y'__2", "y': predicted class"]
    # The counts shown equal those recomputed from the output table itself.
    with open(trained_job / "output_result.csv", newline="") as f:
        rows = list(csv.reader(f))[1:]
    truth = [int(r[4]) for r in rows]
    guess = [int(np.argmax([float(v) for v in r[5:8]])) for r in rows]
    expected = np.zeros((3, 3), int)
    for t, g in zip(truth, guess, strict=True):
        expected[t, g] += 1
    shown = [[int(tab.matrix.item(i, j).text()) for j in range(3)] for i in range(3)]
    assert shown == expected.tolist()
    assert expected.sum() == 30
    accuracy = np.trace(expected) / 30
    assert tab.matrix.item(6, 0).text() == f"{accuracy:.4f}"
    assert f"accuracy {accuracy:.4f}" in tab.summary_label.text()


def test_evaluate_on_another_dataset_with_last_checkpoint_and_save(qtbot, evaluation_tab, tmp_path):
    tab = evaluation_tab
    assert _evaluate(qtbot, tab, dataset="Training", checkpoint="last") == "finished"
    assert tab.output_view.model().rowCount() == 120
    assert tab.summary["checkpoint"] == "last" and tab.summary["dataset"] == "Training"
    assert tab.save_output(str(tmp_path / "out.csv"))
    assert len((tmp_path / "out.csv").read_text().splitlines()) == 121
    assert tab.save_matrix(str(tmp_path / "cm.csv"))
    assert (tmp_path / "cm.csv").read_text().startswith(",y'__0")


def test_a_bad_dataset_fails_cleanly(qtbot, evaluation_tab):
    assert _evaluate(qtbot, evaluation_tab, dataset="NoSuchSet") == "failed"
    assert "NoSuchSet" in evaluation_tab.last_message
    assert evaluation_tab.evaluate_button.isEnabled()


def test_choosing_a_job_not_evaluated_clears_the_last_results(
    qtbot, evaluation_tab, training_tab, trained_job
):
    """The table of another job's evaluation must not stay on screen under a job without one."""
    from gui_driver import click

    with qtbot.waitSignal(training_tab.run_ended, timeout=120000):
        other = training_tab.run(epochs=1)
    tab = evaluation_tab
    tab.show()
    assert tab.current_job() == trained_job  # kept when the newer job appeared above it
    with qtbot.waitSignal(tab.evaluated, timeout=120000) as blocker:
        click(qtbot, tab.evaluate_button)
    assert blocker.args == ["finished"], tab.last_message
    assert tab.output_view.model().rowCount() == 30 and tab.matrix.rowCount() > 0
    tab.job_combo.setFocus()
    qtbot.keyClick(tab.job_combo, Qt.Key.Key_Up)
    assert tab.current_job() == other and not (other / "evaluation.json").exists()
    assert tab.output_view.model() is None or tab.output_view.model().rowCount() == 0
    assert tab.matrix.rowCount() == 0
    assert tab.summary_label.text() == f"{other.name}: not evaluated yet (click Evaluate)"
    assert not tab.save_matrix_button.isEnabled()


def test_numbers_show_four_decimals_however_the_csv_writes_them(qtbot, evaluation_tab, trained_job):
    """An exact 1 (NumPy writes "1.0") showed as "1.0" among cells like "0.9731"; every number
    with a decimal point now shows 4 decimals, labels stay integers, and the CSV keeps its text."""
    tab = evaluation_tab
    assert _evaluate(qtbot, tab) == "finished", tab.last_message
    path = trained_job / "output_result.csv"
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    column = rows[0].index("y'__0")
    rows[1][column], rows[2][column] = "1.0", "0.0"  # as NumPy writes an exact 1 and 0
    with open(path, "w", newline="") as f:
        csv.writer(f, lineterminator="\n").writerows(rows)
    written = path.read_bytes()
    tab.show_results(trained_job)  # as choosing the job in the list shows it
    model = tab.output_view.model()
    shown = [[model.data(model.index(r, c)) for c in range(len(rows[0]))] for r in (0, 1)]
    assert [shown[0][column], shown[1][column]] == ["1.0000", "0.0000"]
    assert shown[0][column - 1] == rows[1][column - 1]  # the label, an integer, as written
    assert all(len(text.partition(".")[2]) == 4 for text in shown[0][column:])
    assert model.data(model.index(0, column), Qt.ItemDataRole.ToolTipRole) == "1.0"
    assert path.read_bytes() == written

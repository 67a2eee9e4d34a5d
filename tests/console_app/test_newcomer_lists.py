"""Issue 35, items 7 and 17: the job history and EVALUATION as a newcomer meets them after a
quantization experiment, on LeNet digits (1 epoch), at 1366x768, driven by clicks."""

from __future__ import annotations

import csv
import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import Qt

pytestmark = pytest.mark.gui
ROOT = Path(__file__).resolve().parents[2]
LEFT = Qt.MouseButton.LeftButton


@pytest.fixture
def lenet_jobs(tmp_path, monkeypatch):
    """(project, evaluated job, its sweep at 8 and 4 bits, a newer job nobody evaluated)."""
    from engine.data import builtin
    from engine.quantization.sweep import Sweep, SweepOptions
    from engine.runtime.evaluator import evaluate
    from engine.runtime.run import train

    monkeypatch.setenv("NEUROCANVAS_CACHE", str(tmp_path / "cache"))
    builtin.ensure("digits", root=tmp_path / "cache")
    project = tmp_path / "lenet.ncproj"
    shutil.copyfile(ROOT / "projects" / "lenet_digits.ncproj", project)
    job = tmp_path / "lenet.files" / "20260101_000000"
    train(project, job_dir=job, epochs=1, seed=0)
    evaluate(job)
    sweep = job.with_name(job.name + "_quantization")
    Sweep(job / "network.ncproj", job, sweep, SweepOptions(bits=(8, 4))).run()
    newer = tmp_path / "lenet.files" / "20260101_010000"  # e.g. a search attempt
    train(project, job_dir=newer, epochs=1, seed=1)
    return project, job, sweep, newer


def _show_tab(qtbot, window, name):
    bar = window.tabs.tabBar()
    index = next(i for i in range(window.tabs.count()) if window.tabs.tabText(i) == name)
    qtbot.mouseClick(bar, LEFT, pos=bar.tabRect(index).center())
    assert window.tabs.currentIndex() == index


def _click_row(qtbot, table, row):
    rect = table.visualRect(table.model().index(row, 0))
    qtbot.mouseClick(table.viewport(), LEFT, pos=rect.center())


def _results(sweep: Path) -> list[dict[str, str]]:
    with open(sweep / "results.csv", newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def test_experiment_points_are_grouped_collapsible_and_show_their_accuracy(
    qtbot, make_window, lenet_jobs
):
    project, job, sweep, newer = lenet_jobs
    window = make_window(project)
    window.resize(1366, 768)
    window.show()
    qtbot.waitExposed(window)
    _show_tab(qtbot, window, "TRAINING")
    tab = window.project_tabs.training
    table = tab.table
    header = [table.horizontalHeaderItem(c).text() for c in range(table.columnCount())]
    texts = [table.item(r, 0).text() for r in range(table.rowCount())]
    # The trained job, its experiment's row (collapsed), its three points, the newer job.
    assert texts[0] == job.name and texts[-1] == newer.name
    assert texts[1] == f"▸ Quantization experiment {sweep.name} of {job.name}: 3 points"
    assert texts[2:5] == ["    float baseline", "    8-bit PTQ", "    4-bit PTQ"]
    assert [table.isRowHidden(r) for r in range(6)] == [False, False, True, True, True, False]
    # The job's own row shows its evaluation's accuracy.
    accuracy = header.index("Accuracy")
    evaluation = json.loads((job / "evaluation.json").read_text(encoding="utf-8"))
    measured = evaluation["classification"]["y'"]["accuracy"]
    assert table.item(0, accuracy).text() == f"{100 * measured:.2f} %"
    assert table.item(5, accuracy).text() == ""  # the newer job was never evaluated
    _click_row(qtbot, table, 1)  # a click opens the experiment
    assert not any(table.isRowHidden(r) for r in range(6))
    assert table.item(1, 0).text().startswith("▾ ")
    rows = _results(sweep)
    for r, point in zip((2, 3, 4), rows, strict=True):
        assert table.item(r, header.index("Status")).text() == "finished"
        assert table.item(r, header.index("Epoch")).text() == ""  # not "0/0"
        assert table.item(r, accuracy).text() == f"{100 * float(point['accuracy']):.2f} %"
    assert float(rows[1]["accuracy"]) > 0.5  # a trained LeNet, not a chance number
    # Selecting a point selects that job; the experiment's row is not a job.
    _click_row(qtbot, table, 3)
    assert tab.selected_jobs() == [sweep / rows[1]["job"]]
    _click_row(qtbot, table, 1)  # closes it again
    assert [table.isRowHidden(r) for r in range(6)] == [False, False, True, True, True, False]
    assert tab.selected_jobs() == [] and not tab.open_button.isEnabled()  # it is not a job
    # EVALUATION: trained jobs first, then the experiment's heading (not choosable) and points.
    _show_tab(qtbot, window, "EVALUATION")
    combo = window.project_tabs.evaluation.job_combo
    items = [combo.itemText(i) for i in range(combo.count())]
    assert items == [newer.name, job.name, f"Quantization experiment {sweep.name}",
                     f"    {sweep.name}: float baseline", f"    {sweep.name}: 8-bit PTQ",
                     f"    {sweep.name}: 4-bit PTQ"]  # fmt: skip
    heading = combo.model().item(2)
    assert not heading.isEnabled() and combo.itemData(2) is None


def test_evaluation_opens_on_the_evaluated_job_with_a_readable_table(
    qtbot, make_window, lenet_jobs
):
    project, job, sweep, newer = lenet_jobs
    window = make_window(project)
    window.resize(1366, 768)
    window.show()
    qtbot.waitExposed(window)
    _show_tab(qtbot, window, "EVALUATION")
    tab = window.project_tabs.evaluation
    # Not the newest job (never evaluated), but the newest evaluated trained job.
    assert tab.current_job() == job and tab.job_combo.currentText() == job.name
    combo = tab.job_combo
    metrics = combo.fontMetrics()
    longest = max(metrics.horizontalAdvance(combo.itemText(i)) for i in range(combo.count()))
    assert combo.width() >= longest  # no name cut
    assert combo.itemData(1, Qt.ItemDataRole.ToolTipRole) == f"{job.name}\n{job}"
    model = tab.output_view.model()
    header = [model.headerData(c, Qt.Orientation.Horizontal) for c in range(model.columnCount())]
    with open(job / "output_result.csv", newline="", encoding="utf-8") as f:
        written = list(csv.reader(f))
    assert header == written[0] + ["y': predicted class"]
    probabilities = np.array([[float(v) for v in row[2:12]] for row in written[1:]])
    for r in (0, 1, len(written) - 2):
        shown = [model.data(model.index(r, c)) for c in range(len(header))]
        # The image's path inside the dataset's folder (not /tmp/.../digits/validation/...).
        dataset = Path(written[1 + r][0]).relative_to(tmp_dataset_root(written))
        assert shown[0] == dataset.as_posix() and shown[0].startswith("validation/")
        assert shown[1] == written[1 + r][1]
        assert shown[2:12] == [f"{p:.4f}" for p in probabilities[r]]  # rounded, 4 decimals
        assert model.data(model.index(r, 2), Qt.ItemDataRole.ToolTipRole) == written[1 + r][2]
        assert shown[12] == str(int(np.argmax(probabilities[r])))
    # The predicted classes are those the confusion matrix counted.
    predicted = [int(model.data(model.index(r, 12))) for r in range(model.rowCount())]
    truth = [int(row[1]) for row in written[1:]]
    correct = sum(p == t for p, t in zip(predicted, truth, strict=True))
    assert f"accuracy {correct / len(truth):.4f}" in tab.summary_label.text()
    # Choosing the newer job by mouse: nothing shown until it is evaluated.
    combo.showPopup()
    view = combo.view()
    qtbot.mouseClick(view.viewport(), LEFT, pos=view.visualRect(view.model().index(0, 0)).center())
    assert tab.current_job() == newer and tab.output_view.model() is None


def tmp_dataset_root(written: list[list[str]]) -> Path:
    """The digits dataset's folder: where its validation CSV's images are."""
    first = Path(written[1][0])
    return next(p for p in first.parents if p.name == "validation").parent


def test_the_history_shows_every_column_and_ten_jobs_at_1366x768(qtbot, make_window, lenet_jobs):
    project, _job, _sweep, _newer = lenet_jobs
    window = make_window(project)
    window.resize(1366, 768)
    window.show()
    qtbot.waitExposed(window)
    _show_tab(qtbot, window, "TRAINING")
    table = window.project_tabs.training.table
    header = table.horizontalHeader()
    last = table.columnCount() - 1
    assert header.sectionViewportPosition(last) + header.sectionSize(last) <= (
        table.viewport().width())  # fmt: skip
    assert table.viewport().height() // table.rowHeight(0) >= 10

"""TRAINING > Quantization experiment...: a sweep in a child process, live table, Stop."""

from __future__ import annotations

import csv
import json

import pytest
from pptx import Presentation
from pptx_kit import titles
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox

pytestmark = pytest.mark.gui
LEFT = Qt.MouseButton.LeftButton


def _finished_job(qtbot, tab):
    with qtbot.waitSignal(tab.run_ended, timeout=300000) as blocker:
        qtbot.mouseClick(tab.run_button, LEFT)
    assert blocker.args[0] == "finished", tab.last_message
    tab.table.selectRow(0)
    assert tab.quantize_button.isEnabled()
    qtbot.mouseClick(tab.quantize_button, LEFT)
    return tab.quantization_dialog


def _set(qtbot, field, text):
    field.selectAll()
    qtbot.keyClicks(field, text)


def _results(dialog):
    with open(dialog.out_dir / "results.csv", newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def test_a_sweep_fills_the_table_and_plot_and_its_points_join_the_history(qtbot, training_tab):
    dialog = _finished_job(qtbot, training_tab)
    assert dialog.isVisible() and dialog.out_dir.name == dialog.job.name + "_quantization"
    _set(qtbot, dialog.bits, "8,2")
    with qtbot.waitSignal(dialog.runner.ended, timeout=120000) as blocker:
        qtbot.mouseClick(dialog.run_button, LEFT)
    assert blocker.args[0] == "finished", blocker.args[1]
    rows = _results(dialog)
    assert dialog.table.rowCount() == len(rows) == 3
    for r, row in enumerate(rows):
        assert dialog.table.item(r, 1).text() == row["target"]
        assert dialog.table.item(r, 2).text() == row["bits"]
        assert dialog.table.item(r, 4).text() == f"{100 * float(row['accuracy']):.2f} %"
    assert dialog.plot.lines_drawn == 1
    header = dialog.table.horizontalHeader()
    for c in range(dialog.table.columnCount()):  # no header or value cut off
        wanted = max([header.sectionSizeFromContents(c).width()]
                     + [dialog.table.sizeHintForColumn(c)])  # fmt: skip
        assert dialog.table.columnWidth(c) >= wanted, c
    names = [job.name for job in training_tab.jobs]
    sweep = dialog.out_dir.name
    assert {f"{sweep}: float baseline", f"{sweep}: 8-bit PTQ", f"{sweep}: 2-bit PTQ"} <= set(names)


def test_after_a_sweep_the_jobs_report_ends_with_the_quantization_slides(qtbot, training_tab):
    dialog = _finished_job(qtbot, training_tab)
    _set(qtbot, dialog.bits, "8")
    with qtbot.waitSignal(dialog.runner.ended, timeout=120000) as blocker:
        qtbot.mouseClick(dialog.run_button, LEFT)
    assert blocker.args[0] == "finished", blocker.args[1]
    job, rows = dialog.job, _results(dialog)
    dialog.close()
    tab = training_tab  # the float job, not one of the sweep's points, is selected and reported
    rect = tab.table.visualRect(tab.table.model().index([j.path for j in tab.jobs].index(job), 0))
    qtbot.mouseClick(tab.table.viewport(), LEFT, pos=rect.center())
    with qtbot.waitSignal(tab.reports.finished, timeout=120000) as blocker:
        qtbot.mouseClick(tab.report_button, LEFT)
        qtbot.waitUntil(lambda: tab.reports.question is not None
                        and tab.reports.question.isVisible())  # fmt: skip
        # never evaluated: the report asks first (test_report_buttons.py); report without
        qtbot.mouseClick(tab.reports.question.button(QMessageBox.StandardButton.No), LEFT)
    assert blocker.args == [str(job / "report.pptx")]
    prs = Presentation(blocker.args[0])
    assert titles(prs)[-3:] == ["Quantization : Results",
                                "Quantization : Accuracy against Bits and Model Size",
                                "References"]  # fmt: skip
    results = next(s for s in prs.slides if s.shapes.title.text == "Quantization : Results")
    table = next(shape for shape in results.shapes if shape.has_table).table
    assert [[row.cells[2].text, row.cells[3].text] for row in list(table.rows)[1:]] == [
        [row["bits"], row["mode"]] for row in rows]  # fmt: skip
    box = tab.reports.question
    qtbot.mouseClick(box.button(QMessageBox.StandardButton.Close), LEFT)


@pytest.mark.slow
def test_stop_keeps_the_finished_points_and_run_continues(qtbot, training_tab):
    dialog = _finished_job(qtbot, training_tab)
    _set(qtbot, dialog.bits, "4")
    dialog.mode.setCurrentText("qat")
    _set(qtbot, dialog.epochs.lineEdit(), "400")
    with qtbot.waitSignal(dialog.runner.ended, timeout=120000) as blocker:
        qtbot.mouseClick(dialog.run_button, LEFT)
        qtbot.waitUntil(lambda: "(QAT)" in dialog.message.text(), timeout=300000)
        qtbot.mouseClick(dialog.stop_button, LEFT)
    assert blocker.args[0] == "stopped"
    assert [r["mode"] for r in _results(dialog)] == ["float"] and dialog.table.rowCount() == 1
    assert (dialog.out_dir / "fixed-point_both_4bit_qat" / "checkpoints" / "last").is_dir()
    with qtbot.waitSignal(dialog.runner.ended, timeout=180000) as blocker:
        qtbot.mouseClick(dialog.run_button, LEFT)
    assert blocker.args[0] == "finished", blocker.args[1]
    assert [r["mode"] for r in _results(dialog)] == ["float", "qat"]
    assert dialog.table.rowCount() == 2


def test_a_budget_shows_the_measured_mixed_precision_pick(qtbot, training_tab):
    dialog = _finished_job(qtbot, training_tab)
    _set(qtbot, dialog.bits, "8,4")
    assert not dialog.budget.isEnabled()  # a budget needs the ranking
    _set(qtbot, dialog.sensitivity.lineEdit(), "4")
    assert dialog.budget.isEnabled()
    _set(qtbot, dialog.budget.lineEdit(), "200")  # iris: 259 parameters, 259 bytes at 8 bits
    with qtbot.waitSignal(dialog.runner.ended, timeout=120000) as blocker:
        qtbot.mouseClick(dialog.run_button, LEFT)
    assert blocker.args[0] == "finished", blocker.args[1]
    mixed = json.loads((dialog.out_dir / "mixed_precision.json").read_text(encoding="utf-8"))
    assert mixed["status"] == "finished" and mixed["parameter_bytes"] <= 200
    assert len(mixed["candidates"]) > 1  # 8 bits everywhere did not fit
    bits = ", ".join(f"{layer} {b}" for layer, b in mixed["layer_bits"].items())
    assert dialog.mixed.text() == (
        f"Mixed precision within 200 bytes ({bits} bits): accuracy "
        f"{100 * mixed['accuracy']:.2f} %, {mixed['parameter_bytes']:,} parameter bytes; the "
        f"most accurate that fits of {len(mixed['candidates'])} networks evaluated "
        f"(mixed_precision.json, job mixed_precision)")  # fmt: skip
    rows = (dialog.out_dir / "sensitivity.csv").read_text(encoding="utf-8").splitlines()
    header = rows[0].split(",")
    ranked = [dict(zip(header, row.split(","), strict=True)) for row in rows[1:]]
    assert ranked and dialog.ranking.isVisible()
    assert dialog.ranking.text().startswith(
        "Layer sensitivity at 4 bits (accuracy points, one layer at a time): "
    )
    assert [part.rsplit(" ", 1)[0] for part in dialog.ranking.text().split(": ", 1)[1]
            .split(", ")] == [r["layer"] for r in ranked]  # fmt: skip
    assert f"{dialog.out_dir.name}: mixed precision" in [job.name for job in training_tab.jobs]


def test_the_dialog_reads_whole_headers_a_real_plot_and_targets_as_check_boxes(qtbot, training_tab):
    """Issue 35, item 16: headers cut before any result, an 80 px plot, and a free-text
    Targets field with its own syntax ("both", "+" joins)."""
    dialog = _finished_job(qtbot, training_tab)
    qtbot.waitExposed(dialog)
    header = dialog.table.horizontalHeader()
    for c in range(dialog.table.columnCount()):  # whole before the first result
        assert dialog.table.columnWidth(c) >= header.sectionSizeFromContents(c).width(), c
    assert dialog.plot.height() >= 240
    assert [box.text() for box in dialog.targets.values()] == ["weights", "biases", "activations"]
    assert all(box.isChecked() for box in dialog.targets.values())
    for box in dialog.targets.values():  # nothing to quantize: nothing to run
        qtbot.mouseClick(box, LEFT)
    assert not dialog.run_button.isEnabled()
    qtbot.mouseClick(dialog.targets["weights"], LEFT)
    qtbot.mouseClick(dialog.targets["activations"], LEFT)
    qtbot.mouseClick(dialog.separately, LEFT)
    assert dialog.run_button.isEnabled()
    _set(qtbot, dialog.bits, "8")
    with qtbot.waitSignal(dialog.runner.ended, timeout=120000) as blocker:
        qtbot.mouseClick(dialog.run_button, LEFT)
    assert blocker.args[0] == "finished", blocker.args[1]
    rows = _results(dialog)
    assert [(r["target"], r["bits"], r["mode"]) for r in rows] == [
        ("none", "32", "float"), ("weights+activations", "8", "ptq"), ("weights", "8", "ptq"),
        ("activations", "8", "ptq")]  # fmt: skip
    shown = [[dialog.table.item(r, c).text() for c in (1, 4)] for r in range(len(rows))]
    assert shown == [[r["target"], f"{100 * float(r['accuracy']):.2f} %"] for r in rows]
    assert dialog.plot.lines_drawn == 3
    assert [t.get_text() for t in dialog.plot.axes.get_xticklabels()] == ["8"]
    dialog.close()
    # Opened again, the dialog shows the sweep it ran (Run continues it).
    qtbot.mouseClick(training_tab.quantize_button, LEFT)
    again = training_tab.quantization_dialog
    assert again is not dialog and again.table.rowCount() == len(rows)
    assert again.table.item(1, 1).text() == "weights+activations"
    assert again.message.text() == (
        f"4 points of an earlier sweep in {again.out_dir}; Run continues it")  # fmt: skip
    again.close()

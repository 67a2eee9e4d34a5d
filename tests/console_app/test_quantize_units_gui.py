"""Quantization in the app on a network built from Units (projects/residual_digits: a residual
block Unit called twice): Edit > Quantize Network with "Calibrate from a trained job", then
TRAINING > Quantization experiment at 16, 8 and 4 bits, driven by clicks and keys."""

from __future__ import annotations

import csv
import shutil
from pathlib import Path

import numpy as np
import pytest
from gui_driver import click, click_menu, replaced_window
from PySide6.QtCore import Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QApplication, QDialogButtonBox

from engine.nn.parameter_file import load_arrays
from engine.quantization.scheme import power_of_two_delta

pytestmark = pytest.mark.gui
ROOT = Path(__file__).resolve().parents[2]
LEFT = Qt.MouseButton.LeftButton


@pytest.fixture
def residual(tmp_path, monkeypatch):
    """(project, job): a copy of residual_digits and a job of it trained 1 epoch (seed 0)."""
    from engine.data import builtin
    from engine.runtime.run import train

    monkeypatch.setenv("NEUROCANVAS_CACHE", str(tmp_path / "cache"))
    builtin.ensure("digits", root=tmp_path / "cache")
    project = tmp_path / "residual.ncproj"
    shutil.copyfile(ROOT / "projects" / "residual_digits.ncproj", project)
    job = tmp_path / "residual.files" / "20260101_000000"
    train(project, job_dir=job, epochs=1, seed=0)
    return project, job


def _show_tab(qtbot, window, name):
    bar = window.tabs.tabBar()
    index = next(i for i in range(window.tabs.count()) if window.tabs.tabText(i) == name)
    qtbot.mouseClick(bar, LEFT, pos=bar.tabRect(index).center())
    assert window.tabs.currentIndex() == index


def _max_abs(job: Path, name: str) -> float:
    arrays, meta = load_arrays(job / "checkpoints" / "best" / "parameters.npz")
    key = next(p["key"] for p in meta["parameters"] if p["name"] == name)
    return float(np.max(np.abs(arrays[key])))


def test_quantize_network_and_the_experiment_reach_inside_units(qtbot, make_window, residual):
    project_file, job = residual
    window = make_window(project_file)
    window.show()
    qtbot.waitExposed(window)
    assert window.project_tabs.training.jobs_root() == job.parent
    # Edit > Quantize Network..., Delta calibrated from the trained job.
    (action,) = [a for a in window.findChildren(QAction) if a.objectName() == "quantize_network"]
    action.trigger()
    dialog = window.quantize_dialog
    assert dialog.delta_mode.currentText() == "Calibrate from a trained job"
    assert dialog.job.currentText() == job.name
    note = dialog.findChild(type(dialog.error), "quantize_units_note")
    note_shown = note is not None and note.isVisible()
    click(qtbot, dialog.buttons.button(QDialogButtonBox.StandardButton.Ok))
    errors = getattr(window, "last_error", "")
    project = window.document.project
    assert project.network_names == ("Main", "Main_q8", "Main_q8_Res1", "Main_q8_Res2",
                                     "ResidualBlock"), errors  # fmt: skip
    assert window.edit_tab.current_network() == "Main_q8"
    message = window.statusBar().currentMessage()
    assert "in its quantized unit copies Main_q8_Res1, Main_q8_Res2" in message
    assert note_shown and note.text().startswith("Units: they are quantized per call")
    for call in ("Res1", "Res2"):
        unit = project.network(f"Main_q8_{call}")
        delta = float(unit.layer("Convolution_2_W_Quantize").properties["Delta"])
        top = _max_abs(job, f"{call}/Convolution_2/conv/W")  # this call's own weights
        assert delta == power_of_two_delta(top, 8, True)
        assert [k.source for k in unit.inputs_of("Convolution_2") if k.dest_pin == 1] == [
            "Convolution_2_W_Quantize"]  # fmt: skip
    assert project.network("Main_q8").layer("Res1").properties["Network"] == "Main_q8_Res1"
    window.undo()  # one undo step takes the network and its unit copies away
    assert project.network_names == ("Main", "ResidualBlock")

    # TRAINING > Quantization experiment on the trained job: 16, 8 and 4 bits.
    _show_tab(qtbot, window, "TRAINING")
    tab = window.project_tabs.training
    row = [j.path for j in tab.jobs].index(job)
    rect = tab.table.visualRect(tab.table.model().index(row, 0))
    qtbot.mouseClick(tab.table.viewport(), LEFT, pos=rect.center())
    click(qtbot, tab.quantize_button)
    experiment = tab.quantization_dialog
    experiment.bits.selectAll()
    qtbot.keyClicks(experiment.bits, "16,8,4")
    with qtbot.waitSignal(experiment.runner.ended, timeout=300000) as blocker:
        click(qtbot, experiment.run_button)
    assert blocker.args[0] == "finished", blocker.args[1]
    with open(experiment.out_dir / "results.csv", newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    assert [r["bits"] for r in rows] == ["32", "16", "8", "4"]
    assert experiment.table.rowCount() == 4
    shown = [experiment.table.item(r, 4).text() for r in range(4)]
    assert shown == [f"{100 * float(r['accuracy']):.2f} %" for r in rows]
    accuracy = [float(r["accuracy"]) for r in rows]
    assert abs(accuracy[1] - accuracy[0]) <= 0.01 and accuracy[3] < accuracy[0] - 0.1
    # The four block Convolutions count at the point's width (BatchNormalization stays float).
    assert [int(r["parameter_bytes"]) for r in rows] == [70_440, 35_860, 18_570, 9_925]
    experiment.close()


def test_quantize_network_offers_the_trained_job_not_the_sweeps_points(
    qtbot, make_window, residual
):
    """After a sweep, its float baseline was the newest "job" and the default to calibrate from."""
    project_file, job = residual
    sweep = job.with_name(job.name + "_quantization")
    from engine.quantization.sweep import Sweep, SweepOptions

    Sweep(project_file, job, sweep, SweepOptions(bits=(8,))).run()
    window = make_window(project_file)
    names = [j.name for j in window.project_tabs.training.jobs]
    assert f"{sweep.name}: float baseline" in names  # the history lists the points
    assert f"{sweep.name}: 8-bit PTQ" in names
    # The trade-off graph draws the job once: the baseline (the job evaluated again) is left out.
    from engine.report.curves import tradeoff_points

    tradeoff = window.project_tabs.training.tradeoff
    drawn = [line for line in tradeoff.axes.lines if line.get_marker() == "o"]
    _points, plotted, _best = tradeoff_points(window.project_tabs.training.jobs, "CostMultiplyAdd")
    assert f"{sweep.name}: float baseline" in plotted  # it has a point of its own to leave out
    assert len(drawn) == len(plotted) - 1
    (action,) = [a for a in window.findChildren(QAction) if a.objectName() == "quantize_network"]
    action.trigger()
    dialog = window.quantize_dialog
    offered = [dialog.job.itemText(i) for i in range(dialog.job.count())]
    assert offered == [job.name]
    dialog.close()
    # EVALUATION offers the trained job first (and chooses it), then the points by name under
    # their experiment's heading.
    _show_tab(qtbot, window, "EVALUATION")
    combo = window.project_tabs.evaluation.job_combo
    assert window.project_tabs.evaluation.current_job() == job
    items = [combo.itemText(i) for i in range(combo.count())]
    assert items[:2] == [job.name, f"Quantization experiment {sweep.name}"]
    assert set(items[2:]) == {f"    {sweep.name}: float baseline", f"    {sweep.name}: 8-bit PTQ"}


def test_the_delta_choice_reads_in_japanese_and_still_calibrates(qtbot, make_window, residual):
    """The Delta entries are translated; the dialog reads its choice from the entry's data, so
    choosing the Japanese "calibrate" entry by keys still calibrates from the job."""
    from console_app import language

    project_file, job = residual
    window = make_window(project_file)
    window.show()
    qtbot.waitExposed(window)
    try:
        click_menu(qtbot, window, "&View", "&Language", "Japanese (日本語)")
        ja = replaced_window(qtbot, window)
        (action,) = [a for a in ja.findChildren(QAction) if a.objectName() == "quantize_network"]
        action.trigger()
        dialog = ja.quantize_dialog
        combo = dialog.delta_mode
        texts = [combo.itemText(i) for i in range(combo.count())]
        assert texts == ["学習済みジョブからキャリブレーション", "固定の Delta"]
        combo.setFocus()
        for key, index, enabled in ((Qt.Key.Key_Down, 1, False), (Qt.Key.Key_Up, 0, True)):
            qtbot.keyClick(combo, key)  # Fixed, then Calibrate, by the arrow keys
            assert combo.currentIndex() == index
            assert dialog.job.isEnabled() is enabled and dialog.delta.isEnabled() is not enabled
        assert dialog.calibrate_job == job
        click(qtbot, dialog.buttons.button(QDialogButtonBox.StandardButton.Ok))
        unit = ja.document.project.network("Main_q8_Res1")
        delta = float(unit.layer("Convolution_2_W_Quantize").properties["Delta"])
        assert delta == power_of_two_delta(_max_abs(job, "Res1/Convolution_2/conv/W"), 8, True)
    finally:
        language.install(QApplication.instance(), "en")

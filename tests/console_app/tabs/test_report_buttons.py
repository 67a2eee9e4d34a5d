"""Report on TRAINING and EVALUATION and File > Export > PowerPoint report: clicking writes the
deck in the background, then a non-modal question offers to open it."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from pptx import Presentation
from pptx_kit import texts, titles
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox

IRIS = Path(__file__).resolve().parents[3] / "projects" / "iris.ncproj"


@pytest.fixture
def trained(qtbot, training_tab):
    with qtbot.waitSignal(training_tab.run_ended, timeout=120000) as blocker:
        job = training_tab.run(epochs=2)
    assert blocker.args == ["finished"]
    return job


def _answer_evaluation(qtbot, reports, evaluate: bool):
    """The job was never evaluated: the app first asks whether to evaluate it; click."""
    qtbot.waitUntil(lambda: reports.question is not None and reports.question.isVisible())
    box = reports.question
    assert "has not been evaluated yet" in box.text() and not box.isModal()
    button = QMessageBox.StandardButton.Yes if evaluate else QMessageBox.StandardButton.No
    assert box.button(button).text() == ("Evaluate, then report" if evaluate else "Report without")
    qtbot.mouseClick(box.button(button), Qt.MouseButton.LeftButton)


def _close_question(qtbot, reports):
    box = reports.question
    assert box is not None and box.isVisible() and not box.isModal()
    assert str(reports.last_path) in box.text()
    qtbot.mouseClick(box.button(QMessageBox.StandardButton.Close), Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not box.isVisible())


def test_training_report_button_writes_the_selected_jobs_deck(qtbot, training_tab, trained):
    tab = training_tab
    assert not tab.report_button.isEnabled()  # nothing selected yet
    row = [j.path for j in tab.jobs].index(trained)
    rect = tab.table.visualRect(tab.table.model().index(row, 0))
    qtbot.mouseClick(tab.table.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    assert tab.report_button.isEnabled()
    with qtbot.waitSignal(tab.reports.finished, timeout=120000) as blocker:
        qtbot.mouseClick(tab.report_button, Qt.MouseButton.LeftButton)
        _answer_evaluation(qtbot, tab.reports, evaluate=False)
    assert blocker.args == [str(trained / "report.pptx")]
    prs = Presentation(str(trained / "report.pptx"))
    assert titles(prs)[:2] == ["iris", "Dataset : Training"]
    assert "Experimental Result : Learning Curve" in titles(prs)
    _close_question(qtbot, tab.reports)


def test_evaluation_report_button_reports_the_chosen_job(qtbot, training_tab, trained):
    from console_app.tabs.evaluation_tab import EvaluationTab

    tab = EvaluationTab()
    qtbot.addWidget(tab)
    training_tab.jobs_changed.connect(tab.set_jobs)
    training_tab.refresh_jobs()
    assert tab.current_job() == trained
    with qtbot.waitSignal(tab.reports.finished, timeout=120000):
        qtbot.mouseClick(tab.report_button, Qt.MouseButton.LeftButton)
        _answer_evaluation(qtbot, tab.reports, evaluate=False)
    prs = Presentation(str(trained / "report.pptx"))
    evaluation = next(s for s in prs.slides
                      if s.shapes.title.text == "Experimental Result : Evaluation")  # fmt: skip
    assert texts(evaluation)[0] == "This job has not been evaluated yet."
    _close_question(qtbot, tab.reports)


def test_report_of_a_job_not_evaluated_offers_to_evaluate_first(qtbot, training_tab, trained):
    """Issue 35, item 10: the deck used to tell its reader to run a command. Now Report asks
    first; "Evaluate, then report" evaluates in the background and the deck has the results."""
    from console_app.tabs.evaluation_tab import EvaluationTab

    tab = EvaluationTab()
    qtbot.addWidget(tab)
    training_tab.jobs_changed.connect(tab.set_jobs)
    training_tab.refresh_jobs()
    assert not (trained / "evaluation.json").exists()
    with qtbot.waitSignal(tab.reports.finished, timeout=120000):
        qtbot.mouseClick(tab.report_button, Qt.MouseButton.LeftButton)
        _answer_evaluation(qtbot, tab.reports, evaluate=True)
    assert (trained / "evaluation.json").is_file()
    prs = Presentation(str(trained / "report.pptx"))
    lines = texts(next(s for s in prs.slides
                       if s.shapes.title.text == "Experimental Result : Evaluation"))  # fmt: skip
    accuracy = next(line for line in lines if line.strip().startswith("Accuracy"))
    assert 0.0 < float(accuracy.split(":")[1]) <= 1.0
    assert not any("neurocanvas" in t for sld in prs.slides for t in texts(sld))
    _close_question(qtbot, tab.reports)


def test_cancel_writes_no_report(qtbot, training_tab, trained):
    tab = training_tab
    row = [j.path for j in tab.jobs].index(trained)
    rect = tab.table.visualRect(tab.table.model().index(row, 0))
    qtbot.mouseClick(tab.table.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    with qtbot.waitSignal(tab.reports.failed, timeout=120000) as blocker:
        qtbot.mouseClick(tab.report_button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: tab.reports.question is not None
                        and tab.reports.question.isVisible())  # fmt: skip
        box = tab.reports.question
        qtbot.mouseClick(box.button(QMessageBox.StandardButton.Cancel), Qt.MouseButton.LeftButton)
    assert blocker.args == ["cancelled"]
    assert not (trained / "report.pptx").exists() and not (trained / "evaluation.json").exists()


def test_file_export_powerpoint_report_asks_where_and_writes_there(qtbot, make_window, tmp_path,
                                                                   monkeypatch):  # fmt: skip
    from engine.runtime.run import train

    project = tmp_path / "iris.ncproj"
    shutil.copyfile(IRIS, project)
    train(project, job_dir=tmp_path / "iris.files" / "20260101_000000", epochs=1, seed=0)
    window = make_window(project)
    target = tmp_path / "out" / "iris-report.pptx"
    monkeypatch.setattr("PySide6.QtWidgets.QFileDialog.getSaveFileName",
                        lambda *a, **k: (str(target), "PowerPoint (*.pptx)"))  # fmt: skip
    action = next(a for a in window.export_menu.actions() if a.text() == "PowerPoint report...")
    action.trigger()
    _answer_evaluation(qtbot, window.reports, evaluate=False)
    qtbot.waitUntil(lambda: window.reports.last_path == target, timeout=120000)
    assert titles(Presentation(str(target)))[0] == "iris"
    _close_question(qtbot, window.reports)


def test_several_selected_jobs_give_one_comparison_deck(qtbot, training_tab, trained):
    tab = training_tab
    second = trained.with_name(trained.name + "_copy")
    shutil.copytree(trained, second)
    tab.refresh_jobs()
    for k, modifier in enumerate((Qt.KeyboardModifier.NoModifier,
                                  Qt.KeyboardModifier.ControlModifier)):  # fmt: skip
        rect = tab.table.visualRect(tab.table.model().index(k, 0))
        qtbot.mouseClick(tab.table.viewport(), Qt.MouseButton.LeftButton, modifier, rect.center())
    assert len(tab.selected_jobs()) == 2 and tab.report_button.isEnabled()
    with qtbot.waitSignal(tab.reports.finished, timeout=120000) as blocker:
        qtbot.mouseClick(tab.report_button, Qt.MouseButton.LeftButton)
    assert blocker.args == [str(trained.parent / "compare.pptx")]
    prs = Presentation(blocker.args[0])
    table = next(s for s in prs.slides[1].shapes if s.has_table).table
    assert [r.cells[0].text for r in list(table.rows)[1:]] == [trained.name, second.name]
    _close_question(qtbot, tab.reports)


def test_the_job_menu_writes_the_report(qtbot, training_tab, trained):
    """Right click on the job, Report...: the deck is written in the job folder."""
    from gui_driver import choose, right_click

    tab = training_tab
    tab.show()
    row = [j.path for j in tab.jobs].index(trained)
    right_click(
        qtbot, tab.table.viewport(), tab.table.visualRect(tab.table.model().index(row, 0)).center()
    )
    with qtbot.waitSignal(tab.reports.finished, timeout=120000) as blocker:
        choose(tab.job_menu_shown, "Report...")
        _answer_evaluation(qtbot, tab.reports, evaluate=False)
    assert blocker.args == [str(trained / "report.pptx")]
    assert "Experimental Result : Learning Curve" in titles(Presentation(blocker.args[0]))
    _close_question(qtbot, tab.reports)


def test_open_says_so_when_no_application_opens_the_deck(qtbot, make_window, tmp_path,
                                                         monkeypatch):  # fmt: skip
    """Seen on a real X server without LibreOffice: Open did nothing and said nothing."""
    from engine.runtime.run import train

    project = tmp_path / "iris.ncproj"
    shutil.copyfile(IRIS, project)
    job = tmp_path / "iris.files" / "20260101_000000"
    train(project, job_dir=job, epochs=1, seed=0)
    window = make_window(project)
    target = job / "report.pptx"
    monkeypatch.setattr("PySide6.QtWidgets.QFileDialog.getSaveFileName",
                        lambda *a, **k: (str(target), "PowerPoint (*.pptx)"))  # fmt: skip
    asked: list[str] = []
    monkeypatch.setattr("console_app.report_action.QDesktopServices.openUrl",
                        lambda url: asked.append(url.toLocalFile()) or False)  # fmt: skip
    action = next(a for a in window.export_menu.actions() if a.text() == "PowerPoint report...")
    action.trigger()
    _answer_evaluation(qtbot, window.reports, evaluate=False)
    qtbot.waitUntil(lambda: window.reports.last_path == target, timeout=120000)
    offer = window.reports.question
    qtbot.mouseClick(offer.button(QMessageBox.StandardButton.Open), Qt.MouseButton.LeftButton)
    assert asked == [str(target)]
    qtbot.waitUntil(lambda: window.reports.question is not offer)
    told = window.reports.question
    assert told.isVisible() and "No application" in told.text() and str(target) in told.text()
    qtbot.mouseClick(told.button(QMessageBox.StandardButton.Close), Qt.MouseButton.LeftButton)

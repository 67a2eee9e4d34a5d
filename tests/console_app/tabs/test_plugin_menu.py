"""EVALUATION > output table > right click > a plugin: the dialog built from its parameters,
the run in a child process, the result shown (picture or sortable table) and listed again
after reopening; on the default project's trained LeNet, by real clicks."""

from __future__ import annotations

import csv

import numpy as np
import pytest
from gui_driver import answer_next_dialog, choose, menu_action, right_click
from plugin_kit import lenet_job  # noqa: F401 - the trained default project
from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QLineEdit, QSpinBox


@pytest.fixture
def tab(qtbot, lenet_job):  # noqa: F811
    from console_app.tabs.evaluation_tab import EvaluationTab

    tab = EvaluationTab()
    qtbot.addWidget(tab)
    tab.show()
    tab.set_jobs([lenet_job])
    assert tab.output_view.model().rowCount() == 297
    qtbot.waitUntil(lambda: tab.catalogue.plugins is not None, timeout=600000)
    yield tab
    tab.plugins.runner.kill()


def _mistake(job):
    rows = list(csv.reader(open(job / "output_result.csv")))[1:]
    for k, r in enumerate(rows):
        guess = int(np.argmax([float(v) for v in r[2:12]]))
        if guess != int(r[1]):
            return k, r[0], guess
    raise AssertionError("no misclassified digit")


def _run_from_menu(qtbot, tab, row, group, title, before=None):
    view = tab.output_view
    view.scrollTo(view.model().index(row, 0))
    right_click(qtbot, view.viewport(), view.visualRect(view.model().index(row, 0)).center())
    menu = tab.plugin_menu_shown
    answer = answer_next_dialog(qtbot, "OK", before=before)
    with qtbot.waitSignal(tab.plugins.finished, timeout=180000) as blocker:
        choose(menu_action(menu, group).menu(), title)
    assert answer.done and answer.title == f"Plugin: {group}/{title}"
    return blocker.args


def test_grad_cam_of_a_misclassified_digit_from_the_context_menu(qtbot, tab, lenet_job):  # noqa: F811
    row, image, guess = _mistake(lenet_job)
    seen = {}

    def check(dialog):
        seen["image"] = dialog.findChild(QLineEdit, "image").text()
        seen["class"] = dialog.findChild(QSpinBox, "class_index").value()

    status = _run_from_menu(qtbot, tab, row, "XAI", "Grad-CAM", check)
    assert status == ["finished", ""], tab.plugins.last_message
    assert seen == {"image": image, "class": guess}  # filled from the clicked row
    assert tab.views.currentWidget() is tab.plugins
    panel = tab.plugins
    assert panel.results.currentItem().text().startswith("XAI/Grad-CAM  (gradcam_")
    assert panel.current_file().name == "grad_cam.png"
    assert QImage(str(panel.current_file())).size().toTuple() == (112, 112)
    pixmap = panel.picture.pixmap()
    assert not pixmap.isNull() and (pixmap.width(), pixmap.height()) == (224, 224)  # shown x2


def test_cross_tabulation_shows_a_sortable_table_and_stays_after_reopening(qtbot, tab, lenet_job):  # noqa: F811
    status = _run_from_menu(qtbot, tab, 0, "Utils", "Cross Tabulation")
    assert status == ["finished", ""], tab.plugins.last_message
    table = tab.plugins.table
    model = table.model()
    assert model.rowCount() == 10 and model.columnCount() == 11
    rows = list(csv.reader(open(lenet_job / "output_result.csv")))[1:]
    truth_zero = sum(1 for r in rows if r[1] == "0")
    first = [model.index(0, c).data() for c in range(11)]
    assert first[0] == "y = 0" and sum(float(v) for v in first[1:]) == truth_zero
    # a click on the "y' = 0" header sorts by that column's numbers (twice: descending)
    header = table.horizontalHeader()
    x = header.sectionViewportPosition(1) + 5
    for _ in range(2):
        qtbot.mouseClick(header.viewport(), Qt.MouseButton.LeftButton, pos=QPoint(x, 5))
    column = [float(model.index(r, 1).data()) for r in range(10)]
    assert column == sorted(column, reverse=True) and column[0] == float(first[1])

    from console_app.tabs.evaluation_tab import EvaluationTab

    reopened = EvaluationTab()
    qtbot.addWidget(reopened)
    reopened.set_jobs([lenet_job])
    listed = [reopened.plugins.results.item(i).text()
              for i in range(reopened.plugins.results.count())]  # fmt: skip
    assert any(text.startswith("Utils/Cross Tabulation  (cross_tabulation_") for text in listed)


def test_a_plugin_that_fails_says_why_in_one_line(qtbot, tab, lenet_job):  # noqa: F811
    def wrong_variable(dialog):
        field = dialog.findChild(QLineEdit, "output_variable")
        field.selectAll()
        qtbot.keyClicks(field, "z'")

    def results():
        folder = lenet_job / "plugin_results"
        return sorted(p.name for p in folder.iterdir()) if folder.exists() else []

    before = results()
    status = _run_from_menu(qtbot, tab, 0, "XAI", "SmoothGrad", wrong_variable)
    assert status[0] == "failed"
    assert "--output_variable \"z'\": the network 'MainRuntime' has no such" in status[1]
    assert tab.plugins.status.text().startswith("Plugin failed: ")
    assert results() == before


def test_stop_ends_a_running_plugin(qtbot, lenet_job, monkeypatch):  # noqa: F811
    from gui_driver import click
    from plugin_kit import FIXTURES

    from console_app.tabs.evaluation_tab import EvaluationTab

    monkeypatch.setenv("NEUROCANVAS_PLUGINS", str(FIXTURES))  # a user's folder of plugins
    tab = EvaluationTab()
    qtbot.addWidget(tab)
    tab.show()
    tab.set_jobs([lenet_job])
    qtbot.waitUntil(lambda: tab.catalogue.plugins is not None, timeout=600000)
    view = tab.output_view
    right_click(qtbot, view.viewport(), view.visualRect(view.model().index(0, 0)).center())
    broken = menu_action(tab.plugin_menu_shown, "Broken").menu()
    bad = next(a for a in broken.actions() if a.text() == "bad_help")
    assert not bad.isEnabled() and "ModuleNotFoundError" in bad.toolTip()
    answer = answer_next_dialog(qtbot, "OK")
    choose(broken, "Hang")
    qtbot.waitUntil(lambda: answer.done, timeout=120000)
    assert answer.title == "Plugin: Broken/Hang"
    panel = tab.plugins
    tab.views.setCurrentWidget(panel)  # where the progress and Stop are
    qtbot.waitUntil(lambda: panel.progress.isVisibleTo(panel) and panel.progress.value() == 1,
                    timeout=300000)  # fmt: skip
    with qtbot.waitSignal(panel.finished, timeout=300000) as blocker:
        click(qtbot, panel.stop_button)
    assert blocker.args == ["stopped", ""]
    assert not list((lenet_job / "plugin_results").glob("hang_*"))
    assert not panel.stop_button.isEnabled() and panel.status.text() == "Plugin stopped"


def test_a_plugins_folder_added_in_the_app_is_remembered(qtbot, lenet_job, tmp_path, monkeypatch):  # noqa: F811
    from gui_driver import click
    from plugin_kit import FIXTURES
    from PySide6.QtCore import QSettings

    from console_app.settings import AppSettings
    from console_app.tabs.evaluation_tab import EvaluationTab

    monkeypatch.delenv("NEUROCANVAS_PLUGINS", raising=False)
    ini = str(tmp_path / "settings.ini")
    settings = AppSettings(QSettings(ini, QSettings.Format.IniFormat))
    tab = EvaluationTab(settings)
    qtbot.addWidget(tab)
    tab.show()
    tab.set_jobs([lenet_job])
    tab.views.setCurrentWidget(tab.plugins)
    monkeypatch.setattr("console_app.tabs.plugin_panel.QFileDialog.getExistingDirectory",
                        lambda *a, **k: str(FIXTURES))  # fmt: skip
    click(qtbot, tab.plugins.folders_button)
    qtbot.waitUntil(lambda: tab.catalogue.plugins is not None, timeout=600000)
    assert "Test/Row Stats" in [p.name for p in tab.catalogue.plugins]
    reread = AppSettings(QSettings(ini, QSettings.Format.IniFormat))
    assert reread.plugin_folders() == [str(FIXTURES)]
    again = EvaluationTab(reread)  # the next session reads them too
    qtbot.addWidget(again)
    assert again.catalogue.folders == [str(FIXTURES)]


def test_a_table_plugin_on_a_selection_of_rows(qtbot, tab, lenet_job):  # noqa: F811
    view = tab.output_view
    rows_header = view.verticalHeader()
    qtbot.mouseClick(rows_header.viewport(), Qt.MouseButton.LeftButton,
                     pos=QPoint(5, rows_header.sectionViewportPosition(0) + 5))  # fmt: skip
    qtbot.mouseClick(rows_header.viewport(), Qt.MouseButton.LeftButton,
                     Qt.KeyboardModifier.ShiftModifier,
                     QPoint(5, rows_header.sectionViewportPosition(4) + 5))  # fmt: skip
    right_click(qtbot, view.viewport(), view.visualRect(view.model().index(2, 3)).center())
    menu = tab.plugin_menu_shown
    answer = answer_next_dialog(qtbot, "OK")
    with qtbot.waitSignal(tab.plugins.finished, timeout=180000) as blocker:
        choose(menu_action(menu, "Utils").menu(), "Cross Tabulation")
    assert blocker.args == ["finished", ""], tab.plugins.last_message
    assert answer.title == "Plugin: Utils/Cross Tabulation (5 selected rows)"
    model = tab.plugins.table.model()
    total = sum(float(model.index(r, c).data()) for r in range(model.rowCount())
                for c in range(1, model.columnCount()))  # fmt: skip
    assert total == 5


def test_sgd_influence_of_a_row_lists_training_images_as_thumbnails(qtbot, tab, lenet_job):  # noqa: F811
    seen = {}

    def fewer(dialog):
        seen["index"] = dialog.findChild(QSpinBox, "index").value()
        box = dialog.findChild(QSpinBox, "num_samples")
        box.lineEdit().selectAll()
        qtbot.keyClicks(box.lineEdit(), "60")

    status = _run_from_menu(qtbot, tab, 7, "XAI", "SGD Influence", fewer)
    assert status == ["finished", ""], tab.plugins.last_message
    assert seen["index"] == 7  # the clicked row is the one traced
    model = tab.plugins.table.model()
    header = [model.headerData(c, Qt.Orientation.Horizontal) for c in range(model.columnCount())]
    assert model.rowCount() == 60 and "influence" in header and "datasource_index" in header
    values = [float(model.index(r, header.index("influence")).data()) for r in range(60)]
    assert values == sorted(values)  # the most harmful first, as NNC lists them
    picture = model.index(0, 0).data(Qt.ItemDataRole.DecorationRole)
    assert picture is not None and not picture.isNull()  # the training image's thumbnail


def test_feature_visualization_of_a_clicked_digit(qtbot, tab, lenet_job):  # noqa: F811
    seen = {}

    def check(dialog):
        seen["image"] = dialog.findChild(QLineEdit, "image").text()

    status = _run_from_menu(qtbot, tab, 12, "Utils", "Feature Visualization", check)
    assert status == ["finished", ""], tab.plugins.last_message
    rows = list(csv.reader(open(lenet_job / "output_result.csv")))[1:]
    assert seen["image"] == rows[12][0]
    model = tab.plugins.table.model()  # 16 maps: the table, each map a thumbnail
    assert model.rowCount() == 16
    header = [model.headerData(c, Qt.Orientation.Horizontal) for c in range(model.columnCount())]
    column = next(c for c, h in enumerate(header) if h.startswith("map"))
    picture = model.index(3, column).data(Qt.ItemDataRole.DecorationRole)
    assert picture is not None and (picture.width(), picture.height()) != (0, 0)

"""DATASET > Create Dataset by real clicks: the button's menu of pre-process plugins, the dialog
built from the plugin's parameters, the run in a child process (progress, Stop), and the
created dataset linked (one undo step) and shown in the tab."""

from __future__ import annotations

import csv

import pytest
from gui_driver import answer_next_dialog, choose, click, menu_action
from PySide6.QtWidgets import QLineEdit

HANG = """import argparse, time
parser = argparse.ArgumentParser(description="Slow Dataset")
parser.add_argument("-o", "--output-dir", required=True, help="output directory (dir)")
parser.add_argument("-f1", "--output_file1", help="output (csv) default=train.csv")
args = parser.parse_args()
open("partial.csv", "w").write("x\\n")
for k in range(600):
    print(f"progress: {k}/600", flush=True)
    time.sleep(0.1)
"""


@pytest.fixture
def tab(qtbot, iris_document):
    from console_app.tabs.dataset_tab import DatasetTab

    tab = DatasetTab(iris_document)
    qtbot.addWidget(tab)
    tab.show()
    yield tab
    tab.create.runner.kill()


def _people(path, n=60):
    rows = [["Name", "Address", "Age", "Gender", "Buys"]]
    for k in range(n):
        age, gender = 18 + (k * 7) % 60, ["Male", "Female", "Others"][k % 3]
        buys = "yes" if age > 45 or gender == "Female" else "no"
        rows.append([f"p{k}", ["Tokyo", "Osaka", "Kanagawa"][k % 3], str(age), gender, buys])
    with open(path, "w", newline="", encoding="utf-8") as f:
        csv.writer(f, lineterminator="\n").writerows(rows)


def _menu(qtbot, tab):
    create = tab.create
    click(qtbot, create.button)  # the first click starts reading the plugins
    qtbot.waitUntil(lambda: create.catalogue.plugins is not None, timeout=600000)
    create.menu_shown.close()
    click(qtbot, create.button)
    return create.menu_shown


def _fill(qtbot, values, seen):
    def fill(dialog):
        for name, text in values.items():
            edit = dialog.findChild(QLineEdit, name)
            edit.selectAll()
            qtbot.keyClicks(edit, text)
        seen["output-dir"] = dialog.findChild(QLineEdit, "output-dir").text()

    return fill


def test_a_table_becomes_a_dataset_linked_in_the_tab(qtbot, tab, iris_document, tmp_path):
    _people(tmp_path / "people.csv")  # beside the project: a relative name finds it
    menu = _menu(qtbot, tab)
    group = menu_action(menu, "Create Dataset").menu()
    titles = [a.text() for a in group.actions()]
    assert titles == ["Simple Tabular Dataset", "Split Image", "String Classification"]
    seen = {}
    values = {"input": "people.csv", "objective-variables": "Buys", "comment-cols": "Name"}
    answer = answer_next_dialog(qtbot, "OK", before=_fill(qtbot, values, seen))
    with qtbot.waitSignal(tab.create.finished, timeout=180000) as blocker:
        choose(group, "Simple Tabular Dataset")
    assert answer.done and answer.title == "Plugin: Create_Dataset/Simple Tabular Dataset"
    assert blocker.args == ["finished", ""], tab.create.last_message
    out = tmp_path / "simple_tabular_data_dataset"
    assert seen["output-dir"] == str(out)
    project = iris_document.project
    assert [d.uri for d in project.datasets] == [
        str(out / "train.csv"),
        str(out / "validation.csv"),
    ]
    assert tab.dataset_info["rows"] == 48
    shapes = [(n, s) for n, _k, s, _h in tab.dataset_info["variables"]]
    assert shapes == [("x", (7,)), ("y", (1,))]
    assert tab.preview.model().rowCount() == 48
    assert tab.create.status.text().startswith("Created train.csv, validation.csv in ")
    iris_document.stack.undo()  # the link was one step
    assert [d.uri for d in project.datasets] == ["builtin:iris/training", "builtin:iris/validation"]


def test_bad_input_says_why_in_one_line_and_links_nothing(qtbot, tab, iris_document, tmp_path):
    _people(tmp_path / "people.csv")
    menu = _menu(qtbot, tab)
    values = {"input": "people.csv", "objective-variables": "Bought"}
    answer_next_dialog(qtbot, "OK", before=_fill(qtbot, values, {}))
    with qtbot.waitSignal(tab.create.finished, timeout=180000) as blocker:
        choose(menu_action(menu, "Create Dataset").menu(), "Simple Tabular Dataset")
    assert blocker.args[0] == "failed"
    text = tab.create.status.text()
    assert (
        text.startswith("Create Dataset failed: ")
        and "--objective-variables 'Bought': no such column" in text
        and "people.csv" in text
    )
    assert not (tmp_path / "simple_tabular_data_dataset").exists()
    assert [d.uri for d in iris_document.project.datasets] == [
        "builtin:iris/training",
        "builtin:iris/validation",
    ]


def test_stop_ends_a_running_plugin_and_leaves_no_folder(
    qtbot, iris_document, tmp_path, monkeypatch
):
    plugins = tmp_path / "plugins" / "_Pre_Process" / "_Test"
    plugins.mkdir(parents=True)
    (plugins / "slow.py").write_text(HANG)
    monkeypatch.setenv("NEUROCANVAS_PLUGINS", str(tmp_path / "plugins"))
    from console_app.tabs.dataset_tab import DatasetTab

    tab = DatasetTab(iris_document)
    qtbot.addWidget(tab)
    tab.show()
    try:
        menu = _menu(qtbot, tab)
        answer_next_dialog(qtbot, "OK")
        choose(menu_action(menu, "Test").menu(), "Slow Dataset")
        create = tab.create
        qtbot.waitUntil(
            lambda: create.progress.isVisible() and create.progress.value() >= 3, timeout=120000
        )
        with qtbot.waitSignal(create.finished, timeout=300000) as blocker:
            click(qtbot, create.stop_button)
        assert blocker.args[0] == "stopped"
        assert create.status.text() == "Create Dataset stopped"
        assert not (tmp_path / "slow_dataset").exists()
        assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []
    finally:
        tab.create.runner.kill()

"""DATASET tab: dataset links, what their CSV holds, NNC's options, undoable edits."""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image
from PySide6.QtCore import QModelIndex, Qt


@pytest.fixture
def dataset_tab(qtbot, iris_document):
    from console_app.tabs.dataset_tab import DatasetTab

    tab = DatasetTab(iris_document)
    qtbot.addWidget(tab)
    return tab


def test_shows_rows_variables_and_preview(dataset_tab):
    assert dataset_tab.list.count() == 2
    info = dataset_tab.dataset_info
    assert info["rows"] == 120
    names = [(n, k, s) for n, k, s, _h in info["variables"]]
    assert names == [("x", "number", (4,)), ("y", "number", (1,))]
    assert dataset_tab.preview.model().rowCount() == 120
    assert dataset_tab.variables.item(0, 2).text() == "4"


def test_options_and_link_csv_are_undoable(dataset_tab, iris_document, tmp_path):
    project = iris_document.project
    dataset_tab.options["Shuffle"].setChecked(False)
    assert project.datasets[0].shuffle is False
    iris_document.stack.undo()
    assert project.datasets[0].shuffle is True
    assert dataset_tab.options["Shuffle"].isChecked()
    csv = tmp_path / "small.csv"
    csv.write_text("x__0,x__1,y\n0.1,0.2,0\n0.3,0.4,1\n0.5,0.6,1\n")
    assert dataset_tab.link_csv(str(csv))
    assert project.datasets[0].uri == str(csv)
    assert dataset_tab.dataset_info["rows"] == 3
    iris_document.stack.undo()
    assert project.datasets[0].uri == "builtin:iris/training"


def test_builtin_sets_both_splits_in_one_step(dataset_tab, iris_document):
    project = iris_document.project
    assert dataset_tab.use_builtin("digits")
    assert [d.uri for d in project.datasets] == ["builtin:digits/training",
                                                 "builtin:digits/validation"]  # fmt: skip
    iris_document.stack.undo()
    assert [d.uri for d in project.datasets] == ["builtin:iris/training", "builtin:iris/validation"]


def test_create_from_class_folders_with_thumbnails(dataset_tab, iris_document, tmp_path):
    source = tmp_path / "pictures"
    for label, value in (("cat", 40), ("dog", 200)):
        (source / label).mkdir(parents=True)
        for i in range(5):
            Image.fromarray(np.full((8, 8), value + i, np.uint8)).save(source / label / f"{i}.png")
    assert dataset_tab.create_from_folders(str(source), str(tmp_path / "out"))
    info = dataset_tab.dataset_info
    assert info["rows"] == 8  # 80 % of each class
    assert [(n, k, s) for n, k, s, _h in info["variables"]] == [("x", "image", (3, 8, 8)),
                                                                 ("y", "number", (1,))]  # fmt: skip
    model = dataset_tab.preview.model()
    thumb = model.data(model.index(0, 0, QModelIndex()), Qt.ItemDataRole.DecorationRole)
    assert thumb is not None and thumb.width() == 32
    assert iris_document.project.datasets[1].uri.endswith("validation.csv")


def test_rename_refuses_duplicates(dataset_tab, iris_document):
    assert not dataset_tab.set_value("Name", "Validation")
    assert iris_document.project.datasets[0].name == "Training"
    assert dataset_tab.set_value("Name", "Train")
    assert dataset_tab.list.item(0).text().startswith("Train (main)")


def test_set_main_dataset(dataset_tab, iris_document):
    dataset_tab.list.setCurrentRow(1)
    assert dataset_tab.dataset_info["rows"] == 30
    assert dataset_tab.set_main()
    assert iris_document.project.dataset_index.main_index == 1
    assert dataset_tab.list.item(1).text().startswith("Validation (main)")
    iris_document.stack.undo()
    assert iris_document.project.dataset_index.main_index == 0

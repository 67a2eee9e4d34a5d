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


def _class_folders(root):
    source = root / "pictures"
    for label, value in (("cat", 40), ("dog", 200)):
        (source / label).mkdir(parents=True)
        for i in range(5):
            Image.fromarray(np.full((8, 8), value + i, np.uint8)).save(source / label / f"{i}.png")
    return source


def test_create_from_class_folders_with_thumbnails(dataset_tab, iris_document, tmp_path):
    from console_app.tabs.folder_dataset_dialog import FolderDatasetOptions

    options = FolderDatasetOptions(str(_class_folders(tmp_path)), str(tmp_path / "out"))
    assert dataset_tab.create_from_folders(options)
    info = dataset_tab.dataset_info
    assert info["rows"] == 8  # 80 % of each class
    assert [(n, k, s) for n, k, s, _h in info["variables"]] == [("x", "image", (3, 8, 8)),
                                                                 ("y", "number", (1,))]  # fmt: skip
    model = dataset_tab.preview.model()
    thumb = model.data(model.index(0, 0, QModelIndex()), Qt.ItemDataRole.DecorationRole)
    assert thumb is not None and thumb.width() == 32
    assert iris_document.project.datasets[1].uri.endswith("validation.csv")


def test_create_from_folders_dialog_options_one_undo_step(dataset_tab, iris_document, tmp_path):
    from console_app.tabs.folder_dataset_dialog import FolderDatasetDialog

    project = iris_document.project
    source = tmp_path / "big"
    for label in ("a", "b"):
        (source / label).mkdir(parents=True)
        for i in range(4):
            Image.fromarray(np.full((12, 10, 3), 30 * i, np.uint8)).save(
                source / label / f"{i}.png"
            )
    dialog = FolderDatasetDialog(dataset_tab)
    dialog.source.setText(str(source))
    dialog.out.setText(str(tmp_path / "out"))
    dialog.size.setText("8")
    dialog.channel.setCurrentIndex(dialog.channel.findData("gray"))
    dialog.percent.setText("50")
    dialog.seed.setText("3")
    asked = []
    dataset_tab.ask_folder_dataset = lambda: asked.append(1) or dialog.options()
    assert dataset_tab.create_from_folders()
    assert asked == [1]
    assert dataset_tab.dataset_info["rows"] == 4  # 50 % of 4 images in each of 2 classes
    variables = [(n, k, s) for n, k, s, _h in dataset_tab.dataset_info["variables"]]
    assert variables == [("x", "image", (1, 8, 8)), ("y", "number", (1,))]
    dataset_tab.list.setCurrentRow(1)
    assert dataset_tab.dataset_info["rows"] == 4
    out = tmp_path / "out"
    assert [d.uri for d in project.datasets] == [str(out / "training.csv"),
                                                 str(out / "validation.csv")]  # fmt: skip
    iris_document.stack.undo()
    assert [d.uri for d in project.datasets] == ["builtin:iris/training", "builtin:iris/validation"]


def test_create_from_folders_cancel_and_engine_errors(dataset_tab, iris_document, tmp_path):
    from console_app.tabs.folder_dataset_dialog import FolderDatasetOptions

    dataset_tab.ask_folder_dataset = lambda: None  # cancelled
    assert not dataset_tab.create_from_folders()
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "x.txt").write_text("x")
    options = FolderDatasetOptions(str(_class_folders(tmp_path)), str(tmp_path / "full"))
    assert not dataset_tab.create_from_folders(options)
    assert "is not empty" in dataset_tab.info.text()
    assert iris_document.project.datasets[0].uri == "builtin:iris/training"


@pytest.mark.parametrize(
    ("field", "text", "reason"),
    [
        ("source", "", "Class folders: choose"),
        ("out", " ", "Output folder: choose"),
        ("size", "0", "Image size: empty, N or WIDTHxHEIGHT"),
        ("size", "8x", "Image size"),
        ("size", "8x8x8", "Image size"),
        ("percent", "0", "Training %: a number in (0, 100]. Received: '0'"),
        ("percent", "101", "Training %"),
        ("percent", "abc", "Training %"),
        ("seed", "1.5", "Split seed: an integer. Received: '1.5'"),
        ("seed", "-1", "Split seed: a non-negative integer"),
    ],
)
def test_dialog_refuses_invalid_values_with_reason(qtbot, field, text, reason):
    from console_app.tabs.folder_dataset_dialog import FolderDatasetDialog

    dialog = FolderDatasetDialog()
    qtbot.addWidget(dialog)
    dialog.source.setText("/in")
    dialog.out.setText("/out")
    getattr(dialog, field).setText(text)
    assert dialog.options() is None
    dialog.accept()
    assert reason in dialog.error.text()
    assert dialog.result() != FolderDatasetDialog.DialogCode.Accepted


def test_dialog_shows_a_whole_folder_path(qtbot):
    """Seen on a real X server: the folder fields showed ~15 characters of a path."""
    from console_app.tabs.folder_dataset_dialog import FolderDatasetDialog

    dialog = FolderDatasetDialog()
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitExposed(dialog)
    path = "/home/someone/datasets/flowers/training_images"
    qtbot.keyClicks(dialog.source, path)
    assert dialog.source.text() == path
    assert dialog.source.width() > dialog.source.fontMetrics().horizontalAdvance(path)


def test_dialog_reads_sizes_and_defaults(qtbot):
    from console_app.tabs.folder_dataset_dialog import FolderDatasetDialog, FolderDatasetOptions

    dialog = FolderDatasetDialog()
    qtbot.addWidget(dialog)
    dialog.source.setText("/in")
    dialog.out.setText("/out")
    assert dialog.options() == FolderDatasetOptions("/in", "/out", None, "rgb", 80.0, 0)
    dialog.size.setText("32X24")
    assert dialog.options().size == (32, 24)
    dialog.size.setText(" 28 ")
    assert dialog.options().size == (28, 28)
    dialog.accept()
    assert dialog.error.text() == ""
    assert dialog.result() == FolderDatasetDialog.DialogCode.Accepted


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


def test_builtin_dataset_generated_and_previewed_by_a_button(qtbot, iris_document, tmp_path,
                                                             monkeypatch):  # fmt: skip
    from gui_driver import click

    from console_app.tabs.dataset_tab import DatasetTab

    monkeypatch.setenv("NEUROCANVAS_CACHE", str(tmp_path / "cache"))  # nothing generated yet
    dataset_tab = DatasetTab(iris_document)
    qtbot.addWidget(dataset_tab)
    dataset_tab.show()
    assert dataset_tab.dataset_info is None and "Generate now" in dataset_tab.info.text()
    click(qtbot, dataset_tab.generate)
    assert dataset_tab.dataset_info["rows"] == 120
    assert dataset_tab.preview.model().rowCount() == 120
    assert not dataset_tab.generate.isEnabled()  # on disk now
    assert list((tmp_path / "cache").rglob("*.csv"))

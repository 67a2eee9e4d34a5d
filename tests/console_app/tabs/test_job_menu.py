"""The job history's context menu, opened with a right click and used as a user does."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from gui_driver import answer_next_dialog, choose, right_click
from PySide6.QtCore import QObject, Qt, Slot
from PySide6.QtGui import QDesktopServices

from console_app.tabs import job_menu

pytestmark = pytest.mark.gui
IRIS = Path(__file__).resolve().parents[3] / "projects" / "iris.ncproj"


def _job(root: Path, name: str, valid: float, status: str = "finished") -> Path:
    job = root / name
    job.mkdir(parents=True)
    (job / "network.ncproj").write_text(IRIS.read_text(encoding="utf-8"), encoding="utf-8")
    (job / "status.json").write_text(json.dumps({"status": status, "epoch": 2, "max_epoch": 2,
                                                 "best_epoch": 2}))  # fmt: skip
    (job / "learning_curve.csv").write_text(
        f"epoch,cost,train_error,valid_error\n1,1.0,0.9,0.8\n2,0.5,0.4,{valid}\n"
    )
    return job


@pytest.fixture
def two_jobs(training_tab):
    root = training_tab.jobs_root()
    jobs = [_job(root, "20260101_000001", 0.25), _job(root, "20260101_000002", 0.125)]
    training_tab.refresh_jobs()
    training_tab.show()
    return jobs


def _menu_on(qtbot, tab, row: int):
    rect = tab.table.visualItemRect(tab.table.item(row, 0))
    right_click(qtbot, tab.table.viewport(), rect.center())
    menu = tab.job_menu_shown
    assert menu is not None and menu.isVisible()
    return menu


def _enabled(menu) -> dict[str, bool]:
    return {a.text(): a.isEnabled() for a in menu.actions()}


def test_entries_follow_the_selection(qtbot, training_tab, two_jobs):
    menu = _menu_on(qtbot, training_tab, 0)
    assert training_tab.selected_jobs() == [two_jobs[0]]  # the right click selected the row
    assert _enabled(menu) == {
        "Evaluate": False, "Train from these parameters": False,  # untrained
        "Report...": True, "Export Python code...": False,
        "Export Python code for nnabla...": False, "Export ONNX...": False,
        "Export C source...": False, "Export TFLite...": False,
        "Export TFLite int8...": False, "Open job folder": True, "Rename...": True,
        "Delete...": True,
        "Compare selected jobs": False,
    }  # fmt: skip
    menu.close()
    second = training_tab.table.visualItemRect(training_tab.table.item(1, 0)).center()
    qtbot.mouseClick(training_tab.table.viewport(), Qt.MouseButton.LeftButton,
                     Qt.KeyboardModifier.ControlModifier, pos=second)  # fmt: skip
    menu = _menu_on(qtbot, training_tab, 1)
    assert _enabled(menu)["Compare selected jobs"] and not _enabled(menu)["Rename..."]
    choose(menu, "Compare selected jobs")
    table = training_tab.comparison.table
    assert [table.horizontalHeaderItem(c).text() for c in range(2)] == [p.name for p in two_jobs]
    row = job_menu.COMPARED.index("Best validation loss")
    assert [table.item(row, c).text() for c in range(2)] == ["0.25", "0.125"]
    assert training_tab.curve.lines_drawn == 6  # both curves overlaid


def test_open_rename_and_delete_with_trash_or_for_good(qtbot, training_tab, two_jobs, tmp_path,
                                                        monkeypatch):  # fmt: skip
    class Catcher(QObject):
        urls: list = []

        @Slot("QUrl")
        def open(self, url) -> None:  # noqa: A003 - Qt calls it by this name
            self.urls.append(url.toLocalFile())

    catcher = Catcher()
    QDesktopServices.setUrlHandler("file", catcher, "open")
    try:
        choose(_menu_on(qtbot, training_tab, 0), "Open job folder")
    finally:
        QDesktopServices.unsetUrlHandler("file")
    assert catcher.urls == [str(two_jobs[0])]

    asked = answer_next_dialog(qtbot, "OK", text="baseline")
    choose(_menu_on(qtbot, training_tab, 0), "Rename...")
    assert asked.done and training_tab.jobs[0].name == "baseline"

    asked = answer_next_dialog(qtbot, "Cancel")
    choose(_menu_on(qtbot, training_tab, 1), "Delete...")
    assert asked.done and two_jobs[1].is_dir() and len(training_tab.jobs) == 2

    # The desktop's trash stands in for a folder here (Qt's own would be the user's, and it
    # caches its location per process); a trash that refuses deletes nothing.
    trash = tmp_path / "trash"
    monkeypatch.setattr(job_menu, "move_to_trash", lambda path: False)
    asked = answer_next_dialog(qtbot, "Move to Trash")
    choose(_menu_on(qtbot, training_tab, 1), "Delete...")
    assert asked.done and two_jobs[1].is_dir() and "nothing was deleted" in training_tab.last_error
    monkeypatch.setattr(job_menu, "move_to_trash",
                        lambda path: bool(shutil.move(path, trash / path.name)))  # fmt: skip
    trash.mkdir()
    asked = answer_next_dialog(qtbot, "Move to Trash")
    choose(_menu_on(qtbot, training_tab, 1), "Delete...")
    assert asked.done and not two_jobs[1].exists()
    assert (trash / two_jobs[1].name / "learning_curve.csv").is_file()  # recoverable
    assert [j.name for j in training_tab.jobs] == ["baseline"]

    asked = answer_next_dialog(qtbot, "Delete Permanently")
    choose(_menu_on(qtbot, training_tab, 0), "Delete...")
    assert asked.done and not two_jobs[0].exists() and training_tab.jobs == []


def test_a_feature_adds_its_entry(qtbot, training_tab, two_jobs, monkeypatch):
    seen = []
    monkeypatch.setattr(job_menu, "ENTRIES", list(job_menu.ENTRIES))
    job_menu.add_entry("Something new...", lambda tab, jobs: seen.append(jobs), after="Evaluate")
    menu = _menu_on(qtbot, training_tab, 0)
    assert [a.text() for a in menu.actions()][:2] == ["Evaluate", "Something new..."]
    choose(menu, "Something new...")
    assert seen == [[two_jobs[0]]]


def _costs(job: Path) -> list[float]:
    lines = (job / "learning_curve.csv").read_text().splitlines()[1:]
    return [float(line.split(",")[1]) for line in lines]


def test_training_from_a_jobs_parameters_starts_where_it_ended(qtbot, training_tab):
    """NNC's "Open in EDIT Tab with Weight" + Run (seen missing on X: an imported model could
    only be trained from fresh parameters in the app): the new job's first epoch starts from
    the trained parameters, far below a fresh start, and the log says which job's."""
    tab = training_tab
    tab.show()
    with qtbot.waitSignal(tab.run_ended, timeout=300000) as blocker:
        source = tab.run(epochs=30, seed=0)
    assert blocker.args == ["finished"]
    fresh = _costs(source)
    assert len(fresh) == 30 and fresh[-1] < 0.6 * fresh[0]
    row = [j.path for j in tab.jobs].index(source)
    menu = _menu_on(qtbot, tab, row)
    assert _enabled(menu)["Train from these parameters"]
    with qtbot.waitSignal(tab.run_ended, timeout=300000) as blocker:
        choose(menu, "Train from these parameters")
    assert blocker.args == ["finished"]
    (tuned,) = [j.path for j in tab.jobs if j.path not in (source,)]
    costs = _costs(tuned)
    assert len(costs) == 3  # the project's Max Epoch
    assert costs[0] < (fresh[0] + fresh[-1]) / 2, (costs, fresh)
    assert f"{tuned.name}: training from {source.name}'s best parameters" in tab.log.toPlainText()


def test_export_tflite_float_and_int8_from_a_trained_job(qtbot, training_tab, tmp_path):
    """The job menu's Export TFLite... and Export TFLite int8... write the trained iris network;
    LiteRT runs both: float32 as the engine computes (1e-4), int8 with int8 input and output
    whose probabilities are the engine's within a few output steps."""
    import numpy as np
    from gui_driver import answer_next_dialog, choose

    import engine.nn as nn
    from engine.cli import main
    from engine.export import open_source
    from engine.runtime.compiler import compile_network

    litert = pytest.importorskip(
        "ai_edge_litert.interpreter", reason="ai-edge-litert (the tflite extra) is not installed"
    )
    job = training_tab.jobs_root() / "20260101_000003"
    assert main(["train", str(IRIS), "-o", str(job), "--epochs", "3", "--seed", "0"]) == 0
    training_tab.refresh_jobs()
    training_tab.show()
    x = np.random.default_rng(0).uniform(0, 1, (20, 4))  # the dataset's features span [0, 1]
    source = open_source(job)
    program = compile_network(source.project, source.runtime)
    with nn.parameter_scope("", {}):
        params = program.create_parameters()
        nn.load_parameters(source.parameters)
        with nn.no_grad():
            out = program.forward({next(iter(program.feeds)): x.astype(np.float32)}, params)
            expected = np.asarray(program.output(out, program.outputs[0][0]).data)
    nn.clear_parameters()
    for entry, name in (("Export TFLite...", "iris.tflite"),
                        ("Export TFLite int8...", "iris_int8.tflite")):  # fmt: skip
        model = tmp_path / name
        asked = answer_next_dialog(qtbot, "Save", text=str(model))
        choose(_menu_on(qtbot, training_tab, 0), entry)
        assert asked.done and model.is_file(), training_tab.last_error
        interpreter = litert.Interpreter(model_path=str(model))
        interpreter.allocate_tensors()
        inp, output = interpreter.get_input_details()[0], interpreter.get_output_details()[0]
        got = []
        for row in x:
            value = row[None].astype(np.float32)
            if inp["dtype"] == np.int8:
                scale, zero = inp["quantization"]
                value = np.clip(np.round(value / scale) + zero, -128, 127).astype(np.int8)
            interpreter.set_tensor(inp["index"], value)
            interpreter.invoke()
            y = interpreter.get_tensor(output["index"]).astype(np.float64)[0]
            if output["dtype"] == np.int8:
                scale, zero = output["quantization"]
                y = (y - zero) * scale
            got.append(y)
        error = np.abs(np.array(got) - expected).max()
        if entry == "Export TFLite...":
            assert inp["dtype"] == np.float32 and error <= 1e-4
        else:
            assert inp["dtype"] == output["dtype"] == np.int8 and error <= 8 / 256

"""File > Import... and File > Export > NNP..., driven through the menu actions.

The file dialogs are the only thing replaced (they would block); the actions are triggered as
a click on the menu item does.
"""

from __future__ import annotations

import json
import zipfile

import numpy as np
import onnx_builders
import pytest
from PySide6.QtWidgets import QFileDialog

from console_app.import_actions import IMPORT_FILTER
from engine.model_import import parameters_path

onnx = pytest.importorskip("onnx", reason="onnx not installed")


def _action(menu, text):
    return next(a for a in menu.actions() if a.text().replace("&", "") == text)


def _file_menu(window):
    return next(a.menu() for a in window.menuBar().actions() if a.text() == "&File")


def test_import_an_onnx_model_from_the_file_menu(make_window, tmp_path, monkeypatch):
    model = tmp_path / "resnet.onnx"
    onnx.save(onnx_builders.resnet_block(), model)
    target = tmp_path / "resnet.ncproj"
    monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *a, **k: (str(model), ""))
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(target), ""))
    window = make_window()
    action = _action(_file_menu(window), "Import...")
    for suffix in ("*.onnx", "*.nnp", "*.nntxt", "*.sdcproj"):
        assert suffix in IMPORT_FILTER
    action.trigger()
    assert window.document.path == target
    assert target.is_file() and parameters_path(target).is_file()
    jobs = list((tmp_path / "resnet.files").iterdir())  # evaluate runs it (as the CLI's)
    assert len(jobs) == 1 and (jobs[0] / "checkpoints" / "best" / "parameters.npz").is_file()
    assert json.loads((jobs[0] / "status.json").read_text())["status"] == "finished"
    names = [layer.name for layer in window.document.project.network("Main").layers]
    assert names[0] == "x" and "skip" in names and "bn1" in names


def test_a_bad_model_is_reported_and_nothing_is_written(make_window, tmp_path, monkeypatch):
    model = tmp_path / "bad.nnp"
    model.write_bytes(b"PK\x03\x04 not really a zip")
    monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *a, **k: (str(model), ""))
    window = make_window()
    before = window.document.path
    _action(_file_menu(window), "Import...").trigger()
    assert window.last_error.startswith("Import: ") and "not an NNP archive" in window.last_error
    assert window.document.path == before
    assert sorted(p.name for p in tmp_path.iterdir() if p.suffix == ".ncproj") == []


def test_export_nnp_from_the_menu(make_window, tmp_path, monkeypatch):
    out = tmp_path / "lenet.nnp"
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(out), ""))
    window = make_window(str(onnx_builders.ROOT / "projects" / "lenet_digits.ncproj"))
    _action(window.export_menu, "NNP...").trigger()
    assert zipfile.ZipFile(out).namelist() == ["nnp_version.txt", "network.nntxt",
                                               "parameter.protobuf"]  # fmt: skip
    assert window.statusBar().currentMessage() == (
        f"Exported {out}: the network as edited, with freshly initialized parameters; a trained "
        "model: its job folder's results.nnp"
    )


def test_an_imported_nnp_evaluates_by_clicks_like_its_job(make_window, tmp_path, monkeypatch,
                                                          qtbot):  # fmt: skip
    """Train iris, import its results.nnp from the menu, click Evaluate on the imported job."""
    from PySide6.QtCore import Qt

    from engine.cli import main

    data = json.loads((onnx_builders.ROOT / "projects" / "iris.ncproj").read_text())
    data["settings"]["config"]["MaxEpoch"] = "2"
    (tmp_path / "iris.ncproj").write_text(json.dumps(data))
    job = tmp_path / "job"
    assert main(["train", str(tmp_path / "iris.ncproj"), "-o", str(job), "--seed", "0"]) == 0
    assert main(["evaluate", str(job)]) == 0
    target = tmp_path / "imported" / "iris.ncproj"
    monkeypatch.setattr(QFileDialog, "getOpenFileName",
                        lambda *a, **k: (str(job / "results.nnp"), ""))  # fmt: skip
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(target), ""))
    window = make_window()
    window.show()
    qtbot.waitExposed(window)
    _action(_file_menu(window), "Import...").trigger()
    assert window.document.path == target
    evaluation = window.project_tabs.evaluation
    imported_job = evaluation.current_job()
    assert imported_job is not None and imported_job.parent == tmp_path / "imported/iris.files"
    with qtbot.waitSignal(evaluation.evaluated, timeout=300000) as done:
        qtbot.mouseClick(evaluation.evaluate_button, Qt.MouseButton.LeftButton)
    assert done.args == ["finished"], evaluation.last_message
    assert evaluation.output_view.model().rowCount() == 30  # iris validation rows
    got = json.loads((imported_job / "evaluation.json").read_text())["classification"]
    want = json.loads((job / "evaluation.json").read_text())["classification"]
    assert got == want and "y'" in got
    evaluation.runner.kill()


def test_an_unrolled_recurrent_onnx_imports_from_the_menu_and_exports_back(
    make_window, tmp_path, monkeypatch
):
    """Our ONNX of a recurrent sample (a Gather per time step) opens in the editor as the
    unrolled network and File > Export > ONNX... writes it again."""
    from engine.export import Source, export_onnx
    from engine.formats import load_project

    ort = pytest.importorskip("onnxruntime", reason="onnxruntime not installed")
    project = load_project(onnx_builders.ROOT / "projects" / "elman_bit_majority.ncproj")
    model = export_onnx(Source(project, "elman", "MainRuntime", None, False),
                        tmp_path / "elman.onnx")  # fmt: skip
    target, back = tmp_path / "elman.ncproj", tmp_path / "back.onnx"
    monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *a, **k: (str(model), ""))
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(target), ""))
    window = make_window()
    _action(_file_menu(window), "Import...").trigger()
    assert window.document.path == target
    layers = window.document.project.network("Main").layers
    types = [layer.type for layer in layers]
    assert types.count("Slice") == 16 and types.count("Affine") == 16 and "Stack" in types
    assert any(x.properties.get("Generator") == "Constant" for x in layers if x.type == "Input")
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(back), ""))
    _action(window.export_menu, "ONNX...").trigger()
    x = np.random.default_rng(0).random((2, 15, 1), dtype=np.float32)
    assert ort.InferenceSession(str(back)).run(None, {"x": x})[0].shape == (2, 1)


def test_a_recurrent_network_goes_out_and_back_in_through_the_menus(make_window, tmp_path,
                                                                    monkeypatch):  # fmt: skip
    """Export > NNP... writes elman's loop folded (nnabla's repeat_info), Import... brings it
    back as the loop layers, not one copy per time step."""
    out = tmp_path / "elman.nnp"
    target = tmp_path / "elman.ncproj"
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(out), ""))
    window = make_window(str(onnx_builders.ROOT / "projects" / "elman_4or9.ncproj"))
    _action(window.export_menu, "NNP...").trigger()
    assert b"repeat_info" in zipfile.ZipFile(out).read("network.nntxt")
    monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *a, **k: (str(out), ""))
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(target), ""))
    _action(_file_menu(window), "Import...").trigger()
    assert window.document.path == target
    types = [layer.type for layer in window.document.project.network("Main").layers]
    assert types.count("RecurrentInput") == types.count("Delay") == 1
    assert types.count("Tanh") == 1  # the loop body once


def test_an_onnx_import_evaluates_on_a_builtin_dataset_typed_in(make_window, tmp_path,
                                                                monkeypatch, qtbot):  # fmt: skip
    """An ONNX model links no dataset: Evaluate says so in one line, and the built-in dataset
    typed into EVALUATION's Dataset field evaluates it."""
    from gui_driver import click
    from PySide6.QtCore import Qt

    monkeypatch.setenv("NEUROCANVAS_CACHE", str(tmp_path / "cache"))
    model, target = tmp_path / "iris.onnx", tmp_path / "imported" / "iris.ncproj"
    target.parent.mkdir()
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(model), ""))
    window = make_window(onnx_builders.ROOT / "projects" / "iris.ncproj")
    window.show()
    qtbot.waitExposed(window)
    _action(window.export_menu, "ONNX...").trigger()
    assert window.statusBar().currentMessage() == (
        f"Exported {model}: the network as edited, with freshly initialized parameters; a "
        "trained model: right-click its job in TRAINING > Export ONNX..."
    )
    monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *a, **k: (str(model), ""))
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(target), ""))
    _action(_file_menu(window), "Import...").trigger()
    assert window.document.path == target
    evaluation = window.project_tabs.evaluation
    window.tabs.setCurrentWidget(evaluation)
    with qtbot.waitSignal(evaluation.evaluated, timeout=300000) as done:
        click(qtbot, evaluation.evaluate_button)
    assert done.args == ["failed"]
    assert evaluation.summary_label.text() == (
        'Evaluation failed: dataset "Validation" of '  # the error event's line (evaluate --events)
        "the job has no URI (none was linked when the job was made): evaluate on a dataset CSV or "
        "builtin:<name>/<split> instead (--dataset, the app's Dataset field)"
    )
    field = evaluation.dataset_combo.lineEdit()
    field.selectAll()
    qtbot.keyClicks(field, "builtin:iris/validation")
    with qtbot.waitSignal(evaluation.evaluated, timeout=300000) as done:
        qtbot.mouseClick(evaluation.evaluate_button, Qt.MouseButton.LeftButton)
    assert done.args == ["finished"], evaluation.last_message
    assert evaluation.output_view.model().rowCount() == 30  # iris validation rows
    evaluation.runner.kill()

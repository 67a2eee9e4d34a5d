"""The engine's messages in a Japanese interface: a shape mismatch typed in the property pane
reads in Japanese in the problems list, and so does the error of a run that fails on its
dataset in TRAINING; the engine's own text (the CLI's, the job folder's) stays English."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from gui_driver import click, click_menu, type_property
from gui_driver import replaced_window as _replaced
from nnc_samples import SAMPLES_DIR
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

pytestmark = pytest.mark.gui

ROOT = Path(__file__).resolve().parents[2]
RESIDUAL = SAMPLES_DIR / "tutorial" / "basics" / "12_residual_learning.sdcproj"


@pytest.fixture(autouse=True)
def _english_afterwards():
    yield
    from console_app import language

    language.install(QApplication.instance(), "en")  # the next tests read English


def _japanese(qtbot, window):
    window.show()
    qtbot.waitExposed(window)
    click_menu(qtbot, window, "&View", "&Language", "Japanese (日本語)")
    return _replaced(qtbot, window)


def test_a_shape_mismatch_typed_in_the_pane_reads_in_japanese(qtbot, make_window, tmp_path):
    """Convolution_4 feeds Add2 beside the block's input (64 maps of 32x32): typing OutMaps 32 makes
    their shapes differ, which the problems list says in Japanese, shapes as they are."""
    project = tmp_path / RESIDUAL.name
    shutil.copyfile(RESIDUAL, project)
    ja = _japanese(qtbot, make_window(project))
    scene = ja.edit_tab.current_scene()
    pane = ja.edit_tab.property_pane
    scene.select_layers(["Convolution_4"])
    type_property(qtbot, pane, "OutMaps", "32", enter=True)
    problems = ja.edit_tab.problems
    qtbot.waitUntil(lambda: any('"Add2"' in problems.item(i).text()
                                for i in range(problems.count())))  # fmt: skip
    texts = [problems.item(i).text() for i in range(problems.count())]
    add2 = next(t for t in texts if 'レイヤー "Add2",' in t)
    assert add2 == (
        'ネットワーク "Main", レイヤー "Add2", プロパティ Output: 入力のサイズがブロードキャスト'
        "できません: (32,32,32) と (64,32,32)。入力値: Output=*BasicMathOutputSizewBC"
    ), texts
    english = next(str(p) for p in problems.problems if p.layer == "Add2")
    assert english == (
        'network "Main", layer "Add2", property Output: input shapes do not broadcast: '
        "(32,32,32) and (64,32,32). Received: Output=*BasicMathOutputSizewBC"
    )


def _iris_without_its_data(tmp_path: Path) -> Path:
    """The iris sample whose Training link names a CSV that is not there (a project moved
    without its data), three epochs."""
    data = json.loads((ROOT / "projects" / "iris.ncproj").read_text(encoding="utf-8"))
    data["settings"]["datasets"][0]["URI"] = "missing.csv"
    data["settings"]["config"]["MaxEpoch"] = "3"
    project = tmp_path / "iris.ncproj"
    project.write_text(json.dumps(data, indent=1), encoding="utf-8")
    return project


def english_text(missing: Path) -> str:
    return f'dataset "Training": the dataset CSV {missing} does not exist (URI {missing})'


def test_a_run_failing_on_its_dataset_says_why_in_japanese(qtbot, make_window, tmp_path):
    project = _iris_without_its_data(tmp_path)
    ja = _japanese(qtbot, make_window(project))
    bar = ja.tabs.tabBar()
    index = next(i for i in range(ja.tabs.count()) if ja.tabs.tabText(i) == "学習")
    qtbot.mouseClick(bar, Qt.MouseButton.LeftButton, pos=bar.tabRect(index).center())
    training = ja.project_tabs.training
    qtbot.waitUntil(training.run_button.isVisible)
    with qtbot.waitSignal(training.run_ended, timeout=120000) as ended:
        click(qtbot, training.run_button)
    assert ended.args == ["failed"]
    missing = tmp_path / "missing.csv"
    # (the run's snapshot of the project names its datasets by absolute paths)
    japanese = (
        f'データセット "Training": データセットの CSV {missing} がありません（URI {missing}）'
    )
    log = training.log.toPlainText().splitlines()
    assert f"エラー: {japanese}" in log, "\n".join(log)
    # English only on the trainer's own console line (its stderr, shown as it is)
    assert [line for line in log if "does not exist" in line] == [
        f"neurocanvas train: error: {english_text(missing)}"
    ]
    assert training.warning_label.text() == f"学習に失敗しました: {japanese}"
    # the job folder keeps the engine's English text
    job = training.current_job
    status = json.loads((job / "status.json").read_text(encoding="utf-8"))
    assert status["message"].splitlines()[0] == english_text(missing)


def test_the_command_line_keeps_the_english_text(tmp_path):
    """The same failure from the CLI: one English line on stderr, and the --events error
    event's message in English with its template beside it (what the app translates)."""
    project = _iris_without_its_data(tmp_path)
    missing = tmp_path / "missing.csv"
    english = f'dataset "Training": the dataset CSV {missing} does not exist (URI missing.csv)'
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    plain = subprocess.run([sys.executable, "-m", "engine.cli", "train", str(project), "-o",
                            str(tmp_path / "job")], capture_output=True, text=True, env=env,
                           timeout=300)  # fmt: skip
    assert plain.returncode == 2
    assert plain.stderr.strip().splitlines()[-1] == f"neurocanvas train: error: {english}"
    events = subprocess.run([sys.executable, "-m", "engine.cli", "train", str(project), "-o",
                             str(tmp_path / "job2"), "--events"], capture_output=True, text=True,
                            env=env, timeout=300, stdin=subprocess.DEVNULL)  # fmt: skip
    error = next(json.loads(line) for line in events.stdout.splitlines()
                 if json.loads(line).get("event") == "error")  # fmt: skip
    assert error["message"] == english
    template = error["texts"]["message"]
    assert template["template"] == "{where}: the dataset CSV {path} does not exist (URI {uri})"
    assert template["values"]["where"]["values"] == {"name": "Training"}


def test_a_warning_logged_and_sent_shows_once_in_japanese(qtbot, make_window, tmp_path):
    """The trainer logs its CPU fallback (a WARNING line) and sends it as an event with its
    template: TRAINING shows it once, in Japanese, whichever arrives first."""
    from engine.core.messages import QT_TRANSLATE_NOOP, json_texts

    notice = QT_TRANSLATE_NOOP("Training", "GPU not usable, falling back to CPU: {reason}").format(
        reason="no driver"
    )
    event = json.dumps({"event": "warning", "message": str(notice),
                        **json_texts({"message": notice})})  # fmt: skip
    fake = (f"import sys, time; print({('WARNING: ' + notice)!r}, file=sys.stderr, flush=True); "
            f"time.sleep(0.5); print({event!r}, flush=True); sys.exit(1)")  # fmt: skip
    project = tmp_path / "iris.ncproj"
    shutil.copyfile(ROOT / "projects" / "iris.ncproj", project)
    ja = _japanese(qtbot, make_window(project))
    training = ja.project_tabs.training
    training.runner.program = [sys.executable, "-c", fake, "--"]
    ja.tabs.setCurrentWidget(training)
    with qtbot.waitSignal(training.run_ended, timeout=120000):
        click(qtbot, training.run_button)
    japanese = "GPU が使えないため CPU で学習します: no driver"
    assert training.warnings == [japanese]
    assert training.warning_label.text().endswith(f"警告: {japanese}")


def _show_tab(qtbot, window, text: str) -> None:
    bar = window.tabs.tabBar()
    index = next(i for i in range(window.tabs.count()) if window.tabs.tabText(i) == text)
    qtbot.mouseClick(bar, Qt.MouseButton.LeftButton, pos=bar.tabRect(index).center())


def test_an_evaluation_failing_on_its_dataset_says_why_in_japanese(qtbot, make_window, tmp_path):
    """A trained job evaluated on a dataset typed by hand that is neither a link of the job nor
    a CSV file: EVALUATION's failure line is the engine's reason in Japanese."""
    project = tmp_path / "iris.ncproj"
    shutil.copyfile(ROOT / "projects" / "iris.ncproj", project)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    trained = subprocess.run([sys.executable, "-m", "engine.cli", "train", str(project), "-o",
                              str(tmp_path / "iris.files" / "20260101_000000"), "--epochs", "1"],
                             capture_output=True, text=True, env=env, timeout=300)  # fmt: skip
    assert trained.returncode == 0, trained.stderr
    ja = _japanese(qtbot, make_window(project))
    _show_tab(qtbot, ja, "評価")
    evaluation = ja.project_tabs.evaluation
    qtbot.waitUntil(evaluation.evaluate_button.isEnabled)
    field = evaluation.dataset_combo.lineEdit()
    qtbot.mouseClick(field, Qt.MouseButton.LeftButton)
    field.selectAll()
    qtbot.keyClicks(field, "nope.csv")
    with qtbot.waitSignal(evaluation.evaluated, timeout=120000) as ended:
        click(qtbot, evaluation.evaluate_button)
    assert ended.args == ["failed"]
    assert evaluation.summary_label.text() == (
        "評価に失敗しました: --dataset nope.csv: ジョブのデータセット（Training, Validation）でも、"
        "CSV ファイルでも、builtin:<name>/<split> でもありません"
    )
    assert evaluation.last_message.splitlines()[0] == (
        "--dataset nope.csv: not a dataset of the job (Training, Validation), a CSV file nor "
        "builtin:<name>/<split>"
    )

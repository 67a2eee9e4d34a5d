"""TRAINING tab: Run trains in a child process; Stop, Resume, a crashing trainer, history.

Every run starts with a click on the Run button, as a user starts it (the button was once
wired to ``run(epochs=False)`` and never trained while the tests called ``run()``).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

from gui_driver import answer_next_dialog, click
from PySide6.QtCore import Qt

from engine.graph import commands as C
from engine.runtime import job_history as H
from engine.runtime.job import atomic_write_json

ROOT = Path(__file__).resolve().parents[3]
IRIS = ROOT / "projects" / "iris.ncproj"


def _run(qtbot, tab):
    tab.show()
    before = {j.path for j in tab.jobs}
    with qtbot.waitSignal(tab.run_ended, timeout=120000) as blocker:
        click(qtbot, tab.run_button)
    new = [j.path for j in tab.jobs if j.path not in before]
    assert len(new) == 1, tab.log.toPlainText()[-2000:]
    return new[0], blocker.args[0]


def test_run_trains_and_fills_the_curve_and_history(qtbot, training_tab):
    job, status = _run(qtbot, training_tab)
    assert status == "finished", training_tab.last_message
    assert [r[0] for r in training_tab.live_curve] == [1, 2, 3]
    assert all(r[1] is not None and r[3] is not None for r in training_tab.live_curve)
    assert training_tab.curve.lines_drawn == 3
    assert training_tab.curve.hint == "" and len(training_tab.curve.axes.texts) == 0
    training_tab.log_scale.setChecked(True)
    assert training_tab.curve.axes.get_yscale() == "log"
    assert training_tab.progress.value() == training_tab.progress.maximum() == 36  # 3 x 12
    assert job.parent.name == "iris.files"  # beside the project, as NNC
    assert json.loads((job / "status.json").read_text())["status"] == "finished"
    assert [j.status for j in training_tab.jobs] == ["finished"]
    assert training_tab.table.item(0, 1).text() == "finished"
    assert training_tab.jobs[0].statistics["CostParameter"] > 0


def test_config_edits_reach_the_jobs_resolved_config(qtbot, training_tab, iris_document):
    project = iris_document.project
    iris_document.push(C.SetSectionValue(project, "config", "BatchSize", "20"))
    iris_document.push(C.SetSectionValue(project, "config", "MaxEpoch", "2"))  # unsaved edits
    job, status = _run(qtbot, training_tab)
    assert status == "finished"
    config = json.loads((job / "config.json").read_text())["plan"]
    assert config["batch_size"] == 20 and config["max_epoch"] == 2
    assert config["iter_per_epoch"] == 120 // 20
    assert len(training_tab.live_curve) == 2


def test_stop_then_resume(qtbot, training_tab, iris_document):
    project = iris_document.project
    iris_document.push(C.SetSectionValue(project, "config", "MaxEpoch", "400"))
    training_tab.show()
    with qtbot.waitSignal(training_tab.run_ended, timeout=120000) as blocker:
        click(qtbot, training_tab.run_button)
        qtbot.waitUntil(lambda: len(training_tab.live_curve) >= 2, timeout=120000)
        click(qtbot, training_tab.stop_button)
    assert blocker.args == ["stopped"]
    job = training_tab.current_job
    stopped_at = len(training_tab.live_curve)
    assert stopped_at < 400
    assert H.read_job(job).status == "stopped"
    training_tab.select_jobs([job])
    with qtbot.waitSignal(training_tab.run_ended, timeout=120000) as blocker:
        assert training_tab.resume(epochs=stopped_at + 2)  # Resume's button: the journeys
    assert blocker.args == ["finished"], training_tab.last_message
    epochs = [r[0] for r in training_tab.live_curve]
    assert epochs == list(range(1, stopped_at + 3))


def test_a_crashing_trainer_marks_the_job_failed_and_shows_its_log(qtbot, training_tab):
    crash = "import sys; print('boom: the trainer broke', file=sys.stderr); sys.exit(3)"
    training_tab.runner.program = [sys.executable, "-c", crash, "--"]
    job, status = _run(qtbot, training_tab)
    assert status == "failed"
    assert "boom: the trainer broke" in training_tab.last_message
    assert "exit status 3" in training_tab.last_message
    assert "boom" in training_tab.log.toPlainText()
    assert training_tab.run_button.isEnabled()
    assert training_tab.warning_label.text().startswith("Training failed")


def test_a_killed_trainer_marks_the_job_failed(qtbot, training_tab, iris_document):
    iris_document.push(C.SetSectionValue(iris_document.project, "config", "MaxEpoch", "400"))
    training_tab.show()
    with qtbot.waitSignal(training_tab.run_ended, timeout=120000) as blocker:
        click(qtbot, training_tab.run_button)
        qtbot.waitUntil(lambda: len(training_tab.live_curve) >= 1, timeout=120000)
        training_tab.runner.kill()
    assert blocker.args == ["failed"]
    job = training_tab.current_job
    info = H.read_job(job)
    assert info.status == "failed" and info.message
    assert [j.status for j in training_tab.jobs] == ["failed"]


def test_history_rename_delete_overlay_and_pareto(qtbot, training_tab):
    first, _ = _run(qtbot, training_tab)
    second, _ = _run(qtbot, training_tab)
    assert len(training_tab.jobs) == 2
    training_tab.select_jobs([first, second])
    assert training_tab.curve.lines_drawn == 6  # 3 series x 2 jobs
    training_tab.select_jobs([first])
    asked = answer_next_dialog(qtbot, "OK", text="baseline")
    click(qtbot, training_tab.rename_button)
    assert asked.done
    assert training_tab.jobs[0].name == "baseline"
    training_tab.select_jobs([second])
    asked = answer_next_dialog(qtbot, "Cancel")
    click(qtbot, training_tab.delete_button)
    assert asked.done and second.name in asked.message and second.exists()
    assert asked.buttons[:2] == ["Move to Trash", "Delete Permanently"]
    asked = answer_next_dialog(qtbot, "Delete Permanently")
    click(qtbot, training_tab.delete_button)
    assert asked.done and not second.exists()
    assert [j.name for j in training_tab.jobs] == ["baseline"]
    assert training_tab.tradeoff.optimal == ["baseline"]


def test_pareto_front_follows_nnc_rule():
    points = [(10, 0.5), (20, 0.3), (20, 0.4), (30, 0.35), (5, 0.9), (40, 0.1)]
    assert H.pareto_front(points) == [True, True, False, False, True, True]


def test_warnings_are_shown(qtbot, training_tab, iris_document):
    iris_document.push(C.SetSectionValue(iris_document.project, "config", "TypeConfig", "Half"))
    job, status = _run(qtbot, training_tab)
    assert status == "finished"
    assert "Precision Half" in training_tab.warning_label.text()


def test_a_cpu_fallback_logged_by_the_trainer_is_shown(qtbot, training_tab):
    fake = ("import sys; print('WARNING: GPU not usable, falling back to CPU: no driver', "
            "file=sys.stderr); sys.exit(1)")  # fmt: skip
    training_tab.runner.program = [sys.executable, "-c", fake, "--"]
    _job, status = _run(qtbot, training_tab)
    assert status == "failed"
    assert training_tab.warnings == ["GPU not usable, falling back to CPU: no driver"]
    assert "falling back to CPU" in training_tab.log.toPlainText()


def test_run_trains_a_recurrent_project(qtbot, tmp_path, monkeypatch):
    """The Elman sample (a RecurrentInput ... RecurrentOutput loop with a Delay) from the Run
    button: the child trainer unrolls the loop and the curve fills."""
    from pathlib import Path

    from PySide6.QtCore import Qt

    from console_app.document import Document
    from console_app.tabs.training_tab import TrainingTab

    monkeypatch.setenv("NEUROCANVAS_CACHE", str(tmp_path / "cache"))  # the trainer inherits it
    target = tmp_path / "elman_bit_majority.ncproj"
    target.write_bytes((Path(__file__).parents[3] / "projects" / target.name).read_bytes())
    document = Document.open(target)
    document.push(C.SetSectionValue(document.project, "config", "MaxEpoch", "2"))
    tab = TrainingTab(document, tmp_path / "jobs")
    qtbot.addWidget(tab)
    try:
        with qtbot.waitSignal(tab.run_ended, timeout=300000) as blocker:
            qtbot.mouseClick(tab.run_button, Qt.MouseButton.LeftButton)
        assert blocker.args[0] == "finished", tab.last_message
        assert [r[0] for r in tab.live_curve] == [1, 2]
        assert tab.live_curve[-1][1] < tab.live_curve[0][1]  # the cost went down
    finally:
        tab.runner.kill()
        document.close()


def _stopped_job(root, name="20260101_000000"):
    job = root / name
    (job / "checkpoints" / "last").mkdir(parents=True)
    (job / "network.ncproj").write_text((IRIS).read_text(encoding="utf-8"), encoding="utf-8")
    status = {"status": "stopped", "epoch": 2, "max_epoch": 9}
    (job / "status.json").write_text(json.dumps(status), encoding="utf-8")
    return job


def test_a_resume_that_fails_at_start_leaves_the_stopped_job_as_it_was(qtbot, training_tab):
    """Defect 2: a start-up error rewrote the intact stopped job's status to failed."""
    job = _stopped_job(training_tab.jobs_root())
    training_tab.refresh_jobs()
    training_tab.show()
    training_tab.runner.program = [sys.executable, "-c", "import sys; sys.exit(2)", "--"]
    rect = training_tab.table.visualItemRect(training_tab.table.item(0, 0))
    qtbot.mouseClick(training_tab.table.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    with qtbot.waitSignal(training_tab.run_ended, timeout=120000) as ended:
        click(qtbot, training_tab.resume_button)
    assert ended.args == ["failed"]
    assert json.loads((job / "status.json").read_text(encoding="utf-8"))["status"] == "stopped"
    assert [j.status for j in training_tab.jobs] == ["stopped"]


def test_resume_is_offered_for_a_stopped_job_not_a_finished_one(qtbot, training_tab):
    finished, _ = _run(qtbot, training_tab)
    stopped = _stopped_job(training_tab.jobs_root())
    training_tab.refresh_jobs()
    for job, offered in ((stopped, True), (finished, False)):
        row = [j.path for j in training_tab.jobs].index(job)
        rect = training_tab.table.visualItemRect(training_tab.table.item(row, 0))
        qtbot.mouseClick(training_tab.table.viewport(), Qt.MouseButton.LeftButton,
                         pos=rect.center())  # fmt: skip
        assert training_tab.selected_job() == job
        assert training_tab.resume_button.isEnabled() is offered, job.name


def test_the_trainer_gets_absolute_paths(qtbot, training_tab, tmp_path, monkeypatch):
    """Defect 2: a project opened by a relative path handed relative paths to the child."""
    monkeypatch.chdir(tmp_path)
    job = _stopped_job(training_tab.jobs_root())
    seen = tmp_path / "argv.json"
    record = f"import json, sys; json.dump(sys.argv[1:], open({str(seen)!r}, 'w')); sys.exit(1)"
    training_tab.runner.program = [sys.executable, "-c", record]
    with qtbot.waitSignal(training_tab.run_ended, timeout=120000):
        training_tab.runner.resume(job.relative_to(tmp_path))
    args = json.loads(seen.read_text(encoding="utf-8"))
    assert args[:2] == ["train", "--resume"] and Path(args[2]).is_absolute()
    assert Path(args[2]) == job


def test_jobs_made_outside_the_app_appear_without_a_restart(qtbot, training_tab):
    """Defect 6: the history watches the jobs folder."""
    training_tab.show()
    assert training_tab.jobs == []
    root = training_tab.jobs_root()
    done = subprocess.run(
        [sys.executable, "-m", "engine.cli", "train", str(training_tab.document.path),
         "-o", str(root / "from_cli"), "--epochs", "1"],
        capture_output=True, text=True, cwd=ROOT, timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    qtbot.waitUntil(
        lambda: [j.path.name for j in training_tab.jobs] == ["from_cli"], timeout=120000
    )
    assert training_tab.table.item(0, 1).text() == "finished"
    atomic_write_json(root / "from_cli" / "status.json", {"status": "stopped"})  # as trainers do
    qtbot.waitUntil(lambda: training_tab.table.item(0, 1).text() == "stopped", timeout=120000)


def test_a_job_folder_made_before_its_files_still_appears(qtbot, training_tab):
    """A run makes its folder, then writes network.ncproj into it: a refresh in between does
    not list the folder as a job, and only the folder itself changes after. The history
    watches it anyway, so the job appears (it missed it under load: the test above failed once)."""
    training_tab.show()
    finished = training_tab.jobs_root() / "done"
    done = subprocess.run(
        [sys.executable, "-m", "engine.cli", "train", str(training_tab.document.path),
         "-o", str(finished), "--epochs", "1"],
        capture_output=True, text=True, cwd=ROOT, timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    qtbot.waitUntil(lambda: [j.path.name for j in training_tab.jobs] == ["done"], timeout=120000)
    late = training_tab.jobs_root() / "late"
    with qtbot.waitSignal(training_tab.watcher.changed, timeout=120000):
        late.mkdir()  # the root changes: a refresh that finds no job in it yet
    assert [j.path.name for j in training_tab.jobs] == ["done"]
    for name in ("network.ncproj", "config.json", "status.json", "history.csv"):
        if (finished / name).is_file():  # what a trainer writes into its folder
            shutil.copy(finished / name, late / name)
    qtbot.waitUntil(
        lambda: sorted(j.path.name for j in training_tab.jobs) == ["done", "late"], timeout=120000
    )


def test_a_run_that_fails_at_start_shows_in_the_history_with_its_error(qtbot, training_tab):
    """Defect 6: a Run that failed at start left no trace."""
    training_tab.runner.program = [sys.executable, "-c",
                                   "import sys; print('no such thing', file=sys.stderr); "
                                   "sys.exit(2)", "--"]  # fmt: skip
    job, status = _run(qtbot, training_tab)
    assert status == "failed"
    (info,) = training_tab.jobs
    assert info.status == "failed" and "no such thing" in info.message
    assert training_tab.table.item(0, 1).toolTip() == info.message
    assert (job / "network.ncproj").is_file()  # what was to be trained, kept with the error


def test_empty_plots_have_axes_and_a_hint(training_tab):
    for plot in (training_tab.curve, training_tab.tradeoff):
        assert plot.hint and plot.axes.get_xlabel() and plot.axes.get_ylabel()
        assert [t.get_text() for t in plot.axes.texts] == [plot.hint]


def test_a_folder_taken_by_a_command_line_run_gives_way_to_the_next(qtbot, training_tab):
    """Issue 13: the app names its job folder; a CLI run that claimed the same name in the
    same second made the app's run fail (and its failure record overwrote that run's status).
    The name the app picks is forced to the taken folder here, as in that race."""
    taken = _stopped_job(training_tab.jobs_root(), "20260101_000000")
    training_tab.refresh_jobs()
    training_tab.new_job_dir = lambda: taken
    job, status = _run(qtbot, training_tab)
    assert status == "finished", training_tab.last_message
    assert job == taken.with_name("20260101_000000_2") == training_tab.current_job
    assert json.loads((job / "status.json").read_text())["status"] == "finished"
    assert json.loads((taken / "status.json").read_text())["status"] == "stopped"
    assert not (taken / "events.jsonl").exists()


def test_a_start_failure_never_writes_into_another_runs_folder(qtbot, training_tab):
    taken = _stopped_job(training_tab.jobs_root(), "20260101_000000")
    training_tab.refresh_jobs()
    training_tab.new_job_dir = lambda: taken
    training_tab.runner.program = [sys.executable, "-c", "import sys; sys.exit(2)", "--"]
    job, status = _run(qtbot, training_tab)
    assert status == "failed" and job == taken.with_name("20260101_000000_2")
    assert json.loads((job / "status.json").read_text())["status"] == "failed"
    assert json.loads((taken / "status.json").read_text())["status"] == "stopped"


def test_a_job_without_trained_parameters_offers_no_report_or_quantization(qtbot, training_tab):
    """A failed run (no checkpoint) kept Report... and Quantization experiment... enabled, and
    the report then offered an evaluation that could only fail; a trained job keeps both."""
    finished, _ = _run(qtbot, training_tab)
    training_tab.runner.program = [sys.executable, "-c",
                                   "import sys; print('no dataset', file=sys.stderr); "
                                   "sys.exit(2)", "--"]  # fmt: skip
    failed, status = _run(qtbot, training_tab)
    assert status == "failed" and not (failed / "checkpoints").exists()
    buttons = (training_tab.report_button, training_tab.quantize_button)

    def select(*jobs):
        for k, job in enumerate(jobs):
            row = [j.path for j in training_tab.jobs].index(job)
            rect = training_tab.table.visualItemRect(training_tab.table.item(row, 0))
            modifier = Qt.KeyboardModifier.ControlModifier if k else Qt.KeyboardModifier.NoModifier
            qtbot.mouseClick(training_tab.table.viewport(), Qt.MouseButton.LeftButton, modifier,
                             rect.center())  # fmt: skip
        assert training_tab.selected_jobs() == list(jobs)

    select(failed)
    assert [b.isEnabled() for b in buttons] == [False, False]
    why = (f"{failed.name} has no trained parameters (no checkpoint): its training ended before "
           "its first epoch. Fix the problem and press Run.")  # fmt: skip
    assert [b.toolTip() for b in buttons] == [why, why]
    select(finished)
    assert [b.isEnabled() for b in buttons] == [True, True]
    assert "PowerPoint report" in training_tab.report_button.toolTip()
    select(finished, failed)  # a comparison deck would hold the failed one too
    assert not training_tab.report_button.isEnabled()

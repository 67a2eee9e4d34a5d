"""TRAINING tab, Processes: K data-parallel trainers through mpirun; a clear error without it."""

from __future__ import annotations

import importlib.util
import json

import pytest
from PySide6.QtCore import Qt

from engine.runtime.distributed import launch


def _set_processes(qtbot, tab, k):
    tab.processes.selectAll()
    qtbot.keyClicks(tab.processes.lineEdit(), str(k))
    assert tab.processes.value() == k


def _click_run(qtbot, tab, timeout):
    with qtbot.waitSignal(tab.run_ended, timeout=timeout) as blocker:
        qtbot.mouseClick(tab.run_button, Qt.MouseButton.LeftButton)
    return blocker.args[0]


@pytest.mark.slow
def test_two_processes_train_one_job(qtbot, training_tab, monkeypatch):
    if importlib.util.find_spec("mpi4py") is None or launch.find_mpirun() is None:
        pytest.skip('MPI not installed (pip install -e ".[mpi]" gives mpi4py and mpirun)')
    monkeypatch.setenv("OMP_NUM_THREADS", "1")  # two ranks share the cores
    # Issue 13: a command-line run took the name the app picks (forced here, as in that race):
    # the data-parallel run gives way to the next free folder instead of failing.
    taken = training_tab.jobs_root() / "20260101_000000"
    taken.mkdir(parents=True)
    (taken / "status.json").write_text('{"status": "running"}', encoding="utf-8")
    training_tab.new_job_dir = lambda: taken
    _set_processes(qtbot, training_tab, 2)
    status = _click_run(qtbot, training_tab, timeout=120000)
    assert status == "finished", training_tab.last_message
    job = training_tab.current_job
    assert job == taken.with_name("20260101_000000_2")
    assert json.loads((taken / "status.json").read_text()) == {"status": "running"}
    assert json.loads((job / "config.json").read_text())["plan"]["processes"] == 2
    starts = [json.loads(line) for line in (job / "events.jsonl").read_text().splitlines()]
    starts = [e for e in starts if e["event"] == "start"]
    assert len(starts) == 1 and starts[0]["processes"] == 2
    assert [r[0] for r in training_tab.live_curve] == [1, 2, 3]
    assert "x 2 processes" in training_tab.log.toPlainText()
    assert [j.status for j in training_tab.jobs] == ["finished"]


def test_without_mpirun_processes_fail_with_the_reason(qtbot, training_tab, monkeypatch):
    monkeypatch.setattr(launch, "find_mpirun", lambda: None)
    _set_processes(qtbot, training_tab, 3)
    assert _click_run(qtbot, training_tab, timeout=120000) == "failed"
    assert training_tab.last_message == (
        '3 processes need mpirun, which is not installed: pip install "neurocanvas[mpi]" '
        "(or a system MPI), or set Processes to 1"
    )
    assert not training_tab.runner.is_running()

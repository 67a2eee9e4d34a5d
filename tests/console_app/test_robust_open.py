"""The editor on a hostile file (issue 13, defect 2): units that fan out a million times open
at once, with the problem listed instead of the expansion."""

from __future__ import annotations

import signal

import pytest
import runtime_kit

pytestmark = pytest.mark.gui


def test_units_that_fan_out_open_and_list_the_problem(make_window, tmp_path):
    path = runtime_kit.fan_out_project(
        tmp_path, 20, 2
    )  # 2^20 expanded layers: minutes and gigabytes
    window = make_window()

    def hang(signum, frame):  # noqa: ANN001
        raise TimeoutError("the editor did not open the file within 60 s")

    previous = signal.signal(signal.SIGALRM, hang)
    signal.alarm(60)
    try:
        assert window.open_path(path, ask=False)
        for view in window.edit_tab.views:
            view.network_scene.refresh()
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    problems = [str(p) for p in window.edit_tab.problems.problems]
    assert any("the units expand to more than 100,000 layers" in p and "U0 -> U1 x2" in p
               for p in problems), problems  # fmt: skip
    assert window.edit_tab.networks.count() == 22  # Main, U0..U20: every tab is there

"""``neurocanvas ARG``: a project file opens the app; anything else is one line before Qt starts."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]


def _launch(arg: str, cwd: Path) -> subprocess.CompletedProcess:
    # offscreen: were the app started by mistake, it would run until the timeout, not abort
    env = {**os.environ, "PYTHONPATH": str(ROOT), "QT_QPA_PLATFORM": "offscreen"}
    return subprocess.run([sys.executable, "-m", "neurocanvas", arg], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=60)  # fmt: skip


@pytest.mark.parametrize(
    ("arg", "message"),
    [
        ("trian", "neurocanvas: error: argument COMMAND: invalid choice: 'trian'"),
        ("nothere.ncproj", "neurocanvas: error: nothere.ncproj: no such file"),
        ("folder.sdcproj", "neurocanvas: error: folder.sdcproj: a folder, not a project file"),
    ],
)
def test_a_mistyped_command_or_a_missing_project_is_one_line_without_the_app(
    tmp_path, arg, message
):
    (tmp_path / "folder.sdcproj").mkdir()
    done = _launch(arg, tmp_path)
    assert done.returncode == 2, done.stderr
    assert done.stderr.strip().splitlines()[-1].startswith(message), done.stderr
    assert "qt." not in done.stderr.lower() and "Traceback" not in done.stderr


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="only X11/Wayland can lack one")
def test_no_display_is_one_line_instead_of_a_qt_abort(tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    env.update(PYTHONPATH=str(ROOT), QT_QPA_PLATFORM="")
    project = ROOT / "projects" / "iris.ncproj"
    for argv in ([], [str(project)]):
        done = subprocess.run([sys.executable, "-m", "neurocanvas", *argv], cwd=tmp_path, env=env,
                              capture_output=True, text=True, timeout=60)  # fmt: skip
        assert done.returncode == 2, done.stderr
        assert done.stderr.strip() == (
            "neurocanvas: error: no display to open the app on (DISPLAY and WAYLAND_DISPLAY "
            "are unset); run a command instead (neurocanvas --help)"
        )

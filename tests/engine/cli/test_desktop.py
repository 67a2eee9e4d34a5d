"""``neurocanvas desktop``: the launcher entry and icon for Linux desktops (issue 35, item 19)."""

from __future__ import annotations

import configparser
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"),
                                reason="launcher entries are freedesktop.org (Linux)")  # fmt: skip


def _cli(*args: str, home: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "XDG_DATA_HOME": str(home)}
    return subprocess.run([sys.executable, "-m", "engine.cli", *args], capture_output=True,
                          text=True, env=env, timeout=120)  # fmt: skip


def test_desktop_installs_an_entry_that_starts_this_installation(tmp_path):
    done = _cli("desktop", home=tmp_path)
    assert done.returncode == 0, done.stderr
    entry = tmp_path / "applications" / "neurocanvas.desktop"
    icon = tmp_path / "icons" / "hicolor" / "scalable" / "apps" / "neurocanvas.svg"
    assert done.stdout.splitlines() == [f"wrote {entry}", f"wrote {icon}"]
    parser = configparser.ConfigParser(interpolation=None)
    parser.optionxform = str  # keys are case-sensitive in desktop entries
    parser.read(entry, encoding="utf-8")
    section = parser["Desktop Entry"]
    assert section["Type"] == "Application" and section["Name"] == "NeuroCanvas"
    assert section["Icon"] == "neurocanvas" and icon.read_bytes().startswith(b"<svg")
    # Exec runs this interpreter's NeuroCanvas: with --help in place of the file it answers.
    command = [a for a in shlex.split(section["Exec"]) if a != "%f"]
    assert command[0] == sys.executable
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    ran = subprocess.run([*command, "--help"], capture_output=True, text=True, env=env,
                         timeout=60)  # fmt: skip
    assert ran.returncode == 0 and "usage: neurocanvas" in ran.stdout
    assert _cli("desktop", "--remove", home=tmp_path).returncode == 0
    assert not entry.exists() and not icon.exists()


@pytest.mark.skipif(
    shutil.which("desktop-file-validate") is None,
    reason="desktop-file-validate not installed (Debian: desktop-file-utils)",
)
def test_the_entry_passes_the_freedesktop_validator(tmp_path):
    assert _cli("desktop", home=tmp_path).returncode == 0
    checked = subprocess.run(
        ["desktop-file-validate", str(tmp_path / "applications" / "neurocanvas.desktop")],
        capture_output=True, text=True,
    )  # fmt: skip
    assert checked.returncode == 0 and not checked.stdout.strip(), checked.stdout

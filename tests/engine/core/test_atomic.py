"""Atomic saves keep the file's mode and write through symbolic links (issue 13, defect 5)."""

from __future__ import annotations

import os
import stat

import pytest

from engine.core.atomic import atomic_output, atomic_write_text, default_mode
from engine.formats import load_project, save_project
from engine.graph.project import Project


def _mode(path):
    return stat.S_IMODE(os.stat(path).st_mode)


def test_a_new_file_gets_the_umask_mode_not_0600(tmp_path):
    old = os.umask(0o022)
    try:
        atomic_write_text(tmp_path / "new.txt", "x")
        assert _mode(tmp_path / "new.txt") == 0o644
    finally:
        os.umask(old)
    assert default_mode() == 0o666 & ~old


@pytest.mark.parametrize("mode", [0o644, 0o600, 0o664, 0o640])
def test_saving_a_project_keeps_its_mode(tmp_path, mode):
    path = tmp_path / "p.ncproj"
    save_project(Project.new(), path)
    os.chmod(path, mode)
    save_project(Project.new(), path)
    assert _mode(path) == mode
    sdc = tmp_path / "p.sdcproj"
    save_project(Project.new(), sdc)
    os.chmod(sdc, mode)
    save_project(load_project(sdc), sdc)
    assert _mode(sdc) == mode


def test_saving_through_a_symlink_replaces_the_target_and_keeps_the_link(tmp_path):
    real = tmp_path / "real" / "p.ncproj"
    real.parent.mkdir()
    save_project(Project.new(), real)
    link = tmp_path / "link.ncproj"
    link.symlink_to(real)
    save_project(Project.new("ChangedThroughTheLink"), link)
    assert link.is_symlink() and os.readlink(link) == str(real)
    assert load_project(real).network_names == ("ChangedThroughTheLink",)
    assert sorted(p.name for p in real.parent.iterdir()) == ["p.ncproj"]


def test_a_failed_write_leaves_the_old_file_and_no_temporary(tmp_path):
    path = tmp_path / "f.txt"
    atomic_write_text(path, "old")
    with pytest.raises(RuntimeError), atomic_output(path, "w") as handle:
        handle.write("half")
        raise RuntimeError("interrupted")
    assert path.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["f.txt"]

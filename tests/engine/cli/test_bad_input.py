"""Bad input through the CLI: one line naming the place, exit 2, nothing written (issue 13)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import runtime_kit as kit

from engine.cli import main
from engine.formats import save_project


@pytest.fixture
def project(tmp_path, monkeypatch):
    """The MLP project on the blobs dataset, as an .sdcproj (the text a user would edit)."""
    monkeypatch.setenv("NEUROCANVAS_CACHE", str(tmp_path / "cache"))
    train_csv, valid_csv = kit.blobs(tmp_path, rows=24)
    path = tmp_path / "p.sdcproj"
    save_project(kit.mlp_project(train_csv, valid_csv, batch=8), path)
    return path


def edit(path: Path, old: str, new: str) -> Path:
    """Replace the first line matching ``old`` (a regular expression) in the file."""
    text = path.read_text()
    assert re.search(old, text, re.M), old
    path.write_text(re.sub(old, new, text, count=1, flags=re.M))
    return path


def one_line_error(capsys, *argv: str) -> str:
    """Run the CLI; it must exit 2 with exactly one line on stderr, which is returned."""
    code = main(list(argv))
    err = capsys.readouterr().err.strip()
    assert code == 2, err
    assert len(err.splitlines()) == 1 and "Traceback" not in err, err
    return err


# -- defect 9 and the export parts of defect 4 ------------------------------------------------


def test_export_refuses_to_overwrite_without_force(project, tmp_path, capsys):
    out = tmp_path / "net.py"
    out.write_text("# mine\n")
    err = one_line_error(capsys, "export", "python", str(project), "-o", str(out))
    assert f"{out} exists; pass --force" in err
    assert out.read_text() == "# mine\n"
    assert main(["export", "python", str(project), "-o", str(out), "--force"]) == 0
    compile(out.read_text(), str(out), "exec")
    assert "# mine" not in out.read_text()


def test_export_to_a_folder_or_a_missing_folder(project, tmp_path, capsys):
    folder = tmp_path / "existing"
    folder.mkdir()
    assert "is a folder" in one_line_error(capsys, "export", "python", str(project), "-o",
                                           str(folder))  # fmt: skip
    missing = tmp_path / "missing" / "x.py"
    err = one_line_error(capsys, "export", "python", str(project), "-o", str(missing))
    assert "does not exist" in err and str(missing.parent) in err
    assert sorted(p.name for p in folder.iterdir()) == []
    assert not any(p.name.endswith(".tmp") for p in tmp_path.rglob("*"))

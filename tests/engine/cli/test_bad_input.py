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


# -- defects 4 and 7: settings and properties NNC's editor would refuse --------------------------
# (old line of the .sdcproj, new text, words the one-line error must hold)
AFFINE = r"^Property_1_Value=8\nNumProperty=2"
LOSS = r"^Property_1_Value=y\nNumProperty=2"


def _extra(anchor: str, value: str, name: str, text: str) -> tuple[str, str]:
    """A third property on the layer whose second property is ``value``."""
    return (
        anchor,
        f"Property_1_Value={value}\nNumProperty=3\nProperty_2_Name={name}\nProperty_2_Value={text}",
    )


BAD_SETTINGS = [
    ("SolverName=nan", r"^SolverName=Adam", "SolverName=nan", ["[Optimizer_0]", "SolverName"]),
    ("TypeConfig=Double", r"^TypeConfig=Float", "TypeConfig=Double", ["[Config] TypeConfig"]),
    ("Beta2=1e9", r"^SolverParameter_2=0.999", "SolverParameter_2=1e9", ["Beta2", "below 1"]),
    ("MonitorInterval=0", r"^MonitorInterval=10", "MonitorInterval=0",
     ["MonitorInterval", "at least 1"]),
    ("MonitorInterval=-10", r"^MonitorInterval=10", "MonitorInterval=-10", ["MonitorInterval"]),
    ("SaveBest=x", r"^SaveBest=1", "SaveBest=x", ["[Config] SaveBest", "1 or 0"]),
    ("Shuffle=nan", r"^Shuffle=1", "Shuffle=nan", ['[Dataset_0] "Training" Shuffle']),
    ("NumData=-5", r"^NumData=0", "NumData=-5", ["NumData", "at least 0"]),
    ("ImageNormalization=2", r"^ImageNormalization=1", "ImageNormalization=2",
     ["ImageNormalization"]),
    ("LearningRateMultiplier=-1", r"^LearningRateMultiplier=1", "LearningRateMultiplier=-1",
     ["LearningRateMultiplier", "at least 0"]),
    ("MaxEpoch=1_000", r"^MaxEpoch=2", "MaxEpoch=1_000", ["MaxEpoch", "an integer"]),
    ("W.LRateMultiplier=-7", *_extra(AFFINE, "8", "W.LRateMultiplier", "-7"),
     ['layer "Affine"', "W.LRateMultiplier"]),
    ("W.LRateMultiplier=1e309", *_extra(AFFINE, "8", "W.LRateMultiplier", "1e309"),
     ["W.LRateMultiplier", "finite"]),
    ("ParameterScope=**Nope", *_extra(AFFINE, "8", "ParameterScope", "*Calc +*Input:**Nope"),
     ['layer "Affine"', "ParameterScope"]),
    ("T.Generator=Bogus", *_extra(LOSS, "y", "T.Generator", "Bogus"), ["T.Generator"]),
    ("T.GeneratorMultiplier=1_000", *_extra(LOSS, "y", "T.GeneratorMultiplier", "1_000"),
     ["T.GeneratorMultiplier"]),
    ("OutShape of 5000 digits", r"^Property_1_Value=8$", "Property_1_Value=" + "9" * 5000,
     ['layer "Affine"', "OutShape", "5000"]),
    ("OutShape=1e21", r"^Property_1_Value=8$", "Property_1_Value=1e21", ["OutShape", "at most"]),
    ("OutShape=1e300", r"^Property_1_Value=8$", "Property_1_Value=1e300", ["OutShape", "at most"]),
]  # fmt: skip


@pytest.mark.parametrize(("old", "new", "words"), [c[1:] for c in BAD_SETTINGS],
                         ids=[c[0] for c in BAD_SETTINGS])  # fmt: skip
def test_train_refuses_bad_settings_in_one_line(project, tmp_path, capsys, old, new, words):
    edit(project, old, new)
    err = one_line_error(capsys, "train", str(project), "-o", str(tmp_path / "job"))
    assert all(w in err for w in words), err
    assert len(err) < 400, err
    assert not (tmp_path / "job").exists()  # refused before the job folder is made

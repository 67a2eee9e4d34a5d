"""``neurocanvas convert IN OUT``: sdcproj <-> ncproj round trip and one-line errors."""

from pathlib import Path

import pytest
from nnc_samples import SAMPLES_DIR

from engine.cli import main
from engine.formats import load_project

SAMPLE = SAMPLES_DIR / "image_recognition/ILSVRC2012/residual networks/resnet-18.sdcproj"


def test_round_trip_through_native(tmp_path, capsys):
    native, back = tmp_path / "resnet-18.ncproj", tmp_path / "back.sdcproj"
    assert main(["convert", str(SAMPLE), str(native)]) == 0
    out = capsys.readouterr().out
    project = load_project(SAMPLE)
    layers = sum(len(n.layers) for n in project.networks)
    assert out.strip() == f"wrote {native} ({len(project.networks)} networks, {layers} layers)"
    assert load_project(native) == project
    assert main(["convert", str(native), str(back)]) == 0
    assert back.read_bytes() == SAMPLE.read_bytes()


def test_job_folder_network_ini_converts(tmp_path):
    ini = tmp_path / "network.ini"
    ini.write_bytes(SAMPLE.read_bytes().replace(b"\n", b"\r\n"))
    assert main(["convert", str(ini), str(tmp_path / "p.ncproj")]) == 0
    assert main(["convert", str(tmp_path / "p.ncproj"), str(tmp_path / "again.ini")]) == 0
    assert (tmp_path / "again.ini").read_bytes() == ini.read_bytes()  # CRLF kept


@pytest.mark.parametrize(
    ("setup", "args", "message"),
    [
        (None, ["missing.sdcproj", "out.ncproj"], "missing.sdcproj: cannot read"),
        (
            "garbage",
            ["in.sdcproj", "out.ncproj"],
            "in.sdcproj, line 1: expected a [Section] header",
        ),
        (None, [str(SAMPLE), "out.txt"], "unknown output format '.txt'"),
        ("exists", [str(SAMPLE), "out.ncproj"], "exists; pass --force to overwrite it"),
        ("same", ["in.sdcproj", "in.sdcproj", "--force"], "input and output are the same file"),
    ],
)
def test_errors_are_one_line_with_status_2(tmp_path, monkeypatch, capsys, setup, args, message):
    monkeypatch.chdir(tmp_path)
    if setup == "garbage":
        Path("in.sdcproj").write_text("not an ini\n")
    elif setup == "exists":
        Path("out.ncproj").write_text("{}")
    elif setup == "same":
        Path("in.sdcproj").write_bytes(SAMPLE.read_bytes())
    assert main(["convert", *args]) == 2
    err = capsys.readouterr().err
    assert err.startswith("neurocanvas convert: error: ") and message in err
    assert err.count("\n") == 1 and "Traceback" not in err
    if setup == "exists":
        assert Path("out.ncproj").read_text() == "{}"


def test_force_overwrites(tmp_path):
    out = tmp_path / "o.ncproj"
    out.write_text("{}")
    assert main(["convert", str(SAMPLE), str(out), "--force"]) == 0
    assert load_project(out) == load_project(SAMPLE)

"""Open by content (job folders call the sdcproj network.ini); save by extension."""

import shutil

import pytest
from nnc_samples import LENET

from engine.formats import ProjectFileError, load_project, save_project
from engine.formats.sdcproj import read_sdcproj


def test_sdcproj_under_any_name_and_native_under_any_name(tmp_path):
    job = tmp_path / "LeNet.files" / "20240101_120000"
    job.mkdir(parents=True)
    shutil.copy(LENET, job / "network.ini")
    project = load_project(job / "network.ini")
    assert project == read_sdcproj(LENET)
    save_project(project, tmp_path / "copy.json")  # not .sdcproj/.ini: native
    assert (tmp_path / "copy.json").read_text().startswith('{\n  "format": "neurocanvas-project"')
    assert load_project(tmp_path / "copy.json") == project
    save_project(project, tmp_path / "back.SDCPROJ")
    assert (tmp_path / "back.SDCPROJ").read_bytes() == LENET.read_bytes()


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"", "the file is empty"),
        (b"   \n", "the file is empty"),
        (
            b"PK\x03\x04zipdata",
            r"not a NeuroCanvas project \(.ncproj JSON\) or an NNC project \(.sdcproj INI\)",
        ),
        (b"\xef\xbb\xbf\n[Engine\n", "line 2: bad section header"),
        (b'{"format": "neurocanvas-project", "version": 9, "networks": []}', "format version 9"),
    ],
)
def test_unknown_content_is_a_clean_error(tmp_path, content, message):
    path = tmp_path / "thing.project"
    path.write_bytes(content)
    with pytest.raises(ProjectFileError, match=message) as info:
        load_project(path)
    assert str(info.value).startswith(str(path))


def test_unknown_content_uses_the_extension_for_a_precise_message(tmp_path):
    ini, ncproj = tmp_path / "network.ini", tmp_path / "p.ncproj"
    ini.write_text("Engine=1\n")
    ncproj.write_text("format: yaml\n")
    with pytest.raises(
        ProjectFileError, match=r"network.ini, line 1: expected a \[Section\] header"
    ):
        load_project(ini)
    with pytest.raises(ProjectFileError, match="p.ncproj, line 1, column 1: invalid JSON"):
        load_project(ncproj)


def test_folders_and_missing_files(tmp_path):
    with pytest.raises(ProjectFileError, match="is a folder"):
        load_project(tmp_path)
    with pytest.raises(ProjectFileError, match="nope.ncproj: cannot read: No such file"):
        load_project(tmp_path / "nope.ncproj")

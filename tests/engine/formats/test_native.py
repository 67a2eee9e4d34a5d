"""Native ``.ncproj``: versioned pretty JSON, stable key order, atomic save, clear errors."""

import json
import os

import pytest
from nnc_samples import SAMPLES_DIR

from engine.formats import ProjectFileError, native
from engine.formats.native import dumps_native, parse_native, read_native, write_native
from engine.formats.sdcproj import read_sdcproj
from engine.graph.project import Layer, Link, Project

LENET = SAMPLES_DIR / "image_recognition/MNIST/LeNet.sdcproj"


@pytest.fixture()
def project():
    return read_sdcproj(LENET)


def test_layout_and_key_order(project):
    text = dumps_native(project)
    doc = json.loads(text)
    assert list(doc) == [
        "format",
        "version",
        "description",
        "networks",
        "settings",
        "extra_sections",
        "sdcproj",
    ]
    assert (doc["format"], doc["version"]) == ("neurocanvas-project", 1)
    layer = doc["networks"][0]["layers"][1]
    assert list(layer) == ["name", "type", "id", "position", "properties"]  # size 240x48 left out
    assert list(layer["properties"])[:3] == ["OutMaps", "KernelShape", "WithBias"]  # NNC's order
    assert list(doc["settings"]) == [
        "engine", "dataset_index", "config", "structure_search",
        "datasets", "optimizers", "monitors", "executors",
    ]  # fmt: skip
    lines = text.splitlines()
    assert '          "position": [24, 72],' in lines  # short lists on one line
    assert (
        '        {"source": "Input", "destination": "Convolution", "dest_pin": 0, "id": 0},'
        in lines
    )
    assert text.endswith("}\n")
    assert dumps_native(parse_native(text)) == text  # stable


def test_exact_round_trip_of_odd_values(tmp_path):
    project = Project.new()
    net = project.network("Main")
    net.add_layer(
        Layer(
            "入力",
            "Input",
            {"Size": "1,28,28", "Empty": ""},
            position=(12.5, -24),
            size=(100, 48),
            extra={"RepeatTimes": "3"},
        )
    )
    net.add_layer(Layer("w", "Mystery", id=77))
    net.connect(Link("入力", "w", dest_pin=2, source_pin=1, extra={"Note": "x"}))
    project.set_description('quotes " and \\ and\nnewline')
    path = tmp_path / "odd.ncproj"
    write_native(project, path)
    again = read_native(path)
    assert again == project
    assert again.network("Main").layer("入力").position == (12.5, -24)
    assert again.hints == project.hints
    assert "入力" in path.read_text(encoding="utf-8")  # readable, not \u escapes


def test_atomic_save_keeps_the_old_file_on_failure(tmp_path, project, monkeypatch):
    path = tmp_path / "p.ncproj"
    write_native(project, path)
    before = path.read_bytes()

    def broken_replace(src, dst):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(native.os, "replace", broken_replace)
    project.set_description("changed")
    with pytest.raises(ProjectFileError, match="p.ncproj: cannot write: No space left on device"):
        write_native(project, path)
    assert path.read_bytes() == before
    assert os.listdir(tmp_path) == ["p.ncproj"]  # no temporary file left behind


def test_save_into_missing_folder_is_a_clean_error(tmp_path, project):
    with pytest.raises(ProjectFileError, match="cannot write"):
        write_native(project, tmp_path / "no" / "p.ncproj")


HEAD = '{"format": "neurocanvas-project", "version": 1, '


def doc(*layers, links=(), **top):
    """A project file with one network "M" holding ``layers`` and ``links``."""
    network = {"name": "M", "layers": list(layers), "links": list(links)}
    return json.dumps({"format": "neurocanvas-project", "version": 1, "networks": [network], **top})


RELU = {"name": "a", "type": "ReLU"}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (HEAD + '\n "networks": [,]}', r"line 2, column 15: invalid JSON: Expecting value"),
        ("[1, 2]", "not a NeuroCanvas project"),
        ('{"format": "other"}', "not a NeuroCanvas project"),
        (
            '{"format": "neurocanvas-project", "version": 2, "networks": []}',
            r"newer NeuroCanvas \(format version 2\); this version reads up to 1",
        ),
        ('{"format": "neurocanvas-project", "version": "1"}', "expected a positive integer"),
        (HEAD[:-2] + "}", r"\$: key 'networks' is missing"),
        (
            doc({**RELU, "properties": {"K": 3}}),
            r"networks\[0\].layers\[0\].properties.K: expected a string. Received: 3",
        ),
        (doc({**RELU, "position": [float("nan"), 0]}), "NaN is not a valid number"),
        (doc(RELU, RELU), r'networks\[0\].layers\[1\]: network "M": duplicate layer name "a"'),
        (
            doc(links=[{"source": "a", "destination": "b"}]),
            r'networks\[0\].links\[0\]: network "M": link a -> b names a missing layer "a"',
        ),
        (HEAD + '"networks": [{"name": "M", "name": "N"}]}', "key 'name' appears twice"),
        (doc(sdcproj={"newline": "x"}), "sdcproj.newline"),
        (
            doc(settings={"datasets": [{"URI": 1}]}),
            r"settings.datasets\[0\].URI: expected a string",
        ),
    ],
)
def test_bad_files_name_file_and_place(tmp_path, text, message):
    path = tmp_path / "bad.ncproj"
    path.write_text(text)
    with pytest.raises(ProjectFileError, match=message) as info:
        read_native(path)
    assert str(info.value).startswith(str(path))


def test_binary_and_deep_garbage():
    with pytest.raises(ProjectFileError, match="not UTF-8 text"):
        parse_native(b"{\xff\xfe", "x.ncproj")
    with pytest.raises(ProjectFileError, match="x.ncproj"):
        parse_native("[" * 100000, "x.ncproj")

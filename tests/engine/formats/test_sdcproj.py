"""``.sdcproj`` import/export: every NNC sample round-trips byte for byte; bad files fail clean."""

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from nnc_samples import SAMPLES_DIR

from engine.formats import ProjectFileError
from engine.formats.native import dumps_native, parse_native
from engine.formats.sdcproj import (
    dump_sdcproj,
    dumps_sdcproj,
    parse_sdcproj,
    read_sdcproj,
    write_sdcproj,
)
from engine.graph import config as cfg
from engine.graph.project import Layer, Link, Network, Project

SAMPLES = sorted(SAMPLES_DIR.rglob("*.sdcproj"))
LENET = SAMPLES_DIR / "image_recognition/MNIST/LeNet.sdcproj"
IRIS = SAMPLES_DIR / "classification/iris/iris.sdcproj"


def test_all_samples_are_found():
    assert len(SAMPLES) == 63


@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: str(p.relative_to(SAMPLES_DIR)))
def test_sample_round_trips(path):
    raw = path.read_bytes()
    project = parse_sdcproj(raw, path)
    assert dump_sdcproj(project) == raw  # byte for byte
    assert parse_sdcproj(dump_sdcproj(project)) == project
    via_native = parse_native(dumps_native(project))
    assert via_native == project
    assert dump_sdcproj(via_native) == raw
    assert sum(len(n.layers) for n in project.networks) == raw.count(b"\nType=")


def test_lenet_content():
    project = read_sdcproj(LENET)
    net = project.network("Main")
    assert project.network_names == ("Main",)
    assert len(net.layers) == 12 and len(net.links) == 11
    first = net.layers[0]
    assert (first.name, first.type, first.position, first.size, first.id) == (
        "Input",
        "Input",
        (24, 24),
        (240, 48),
        0,
    )
    assert first.properties == {
        "Size": "1,28,28",
        "Dataset": "x",
        "Generator": "None",
        "GeneratorMultiplier": "1.0",
    }
    conv = net.layer("Convolution")
    assert list(conv.properties)[:3] == ["OutMaps", "KernelShape", "WithBias"]
    assert conv.properties["KernelShape"] == "7,7"
    assert [k.source for k in net.inputs_of("CategoricalCrossEntropy")] == ["Softmax"]
    assert project.description == "dataset-require=MNIST"
    assert (project.config.max_epoch, project.config.batch_size) == (10, 64)
    assert project.datasets[0].uri == "{SDCPATH}samples\\sample_dataset\\mnist\\mnist_training.csv"
    assert project.optimizers[0].solver_parameters["Alpha"] == "0.001"
    assert project.optimizers[0].get("LearningRateUpdateIntervalUnit") == 1  # missing: iterations
    assert [(s.name, s.after) for s in project.extra_sections] == [("Script", "Executor_0")]
    assert project.hints.newline == "\n" and project.hints.global_section is False


def test_unit_file_keeps_ids_and_absent_sections():
    project = read_sdcproj(SAMPLES_DIR / "units/LSTM.sdcproj")
    net = project.network("Main")
    assert [la.id for la in net.layers][:4] == [4, 7, 9, 11]
    assert net.links[19].id == 87
    assert project.hints.absent == ("Dataset", "Description", "Config", "StructureSearch")
    assert project.datasets == () and project.config.max_epoch == 100  # defaults apply
    assert "RNNTrainingMode" not in project.engine.values


def test_multi_network_prefixes_and_description_newlines():
    project = read_sdcproj(SAMPLES_DIR / "tutorial/recurrent_neural_networks/stacked_GRU.sdcproj")
    assert project.network_names[:2] == ("Main_", "Runtime")
    assert len(project.network("Main_").layers) == 35
    senet = read_sdcproj(SAMPLES_DIR / "image_recognition/ILSVRC2012/senet-154.sdcproj")
    assert senet.description.startswith("SENet\nSqueeze-and-Excitation Networks\n")


def test_malformed_value_is_kept_raw():
    project = read_sdcproj(SAMPLES_DIR / "image_recognition/ILSVRC2012/alexnet.sdcproj")
    pooling = project.network("LRN").layer("SumPooling")
    assert pooling.properties["Padding"] == "0,r"
    assert pooling.properties["KernelShape"] == "1,r*2+1"


def test_layer_keys_it_does_not_read_are_kept_verbatim_and_written_back():
    """A key NNC's layer sections do not have, and a property beyond NumProperty (which NNC
    ignores), stay in the layer's extra keys; the properties are the first NumProperty."""
    raw = LENET.read_bytes()
    anchor = b"Property_4_Value=1.0\nNumProperty=5\n"
    assert raw.count(anchor) == 2  # the Input layer first
    odd = (b"Property_4_Value=1.0\nNumProperty=4\nComment=drawn by hand\n"
           b"Property_12_Value=x\nPosition_7=3\nIDs=1\n")  # fmt: skip
    project = parse_sdcproj(raw.replace(anchor, odd, 1))
    first = project.network("Main").layers[0]
    assert first.properties == {"Size": "1,28,28", "Dataset": "x", "Generator": "None"}
    assert first.extra == {
        "Property_4_Name": "GeneratorMultiplier", "Property_4_Value": "1.0",
        "Comment": "drawn by hand", "Property_12_Value": "x", "Position_7": "3", "IDs": "1",
    }  # fmt: skip
    assert parse_sdcproj(dump_sdcproj(project)).network("Main").layers[0] == first


def test_crlf_bom_and_no_final_newline_round_trip():
    raw = LENET.read_bytes()
    crlf = b"\xef\xbb\xbf" + raw.replace(b"\n", b"\r\n").rstrip(b"\r\n")
    project = parse_sdcproj(crlf)
    assert project == parse_sdcproj(raw)
    assert (project.hints.newline, project.hints.bom, project.hints.final_newline) == (
        "\r\n",
        True,
        False,
    )
    assert dump_sdcproj(project) == crlf


def test_cp932_text_is_decoded_and_written_back():
    raw = IRIS.read_bytes().replace(b"Text=", "Text=アヤメの分類\\n".encode("cp932"))
    project = parse_sdcproj(raw)
    assert project.description.startswith("アヤメの分類\n")
    assert project.hints.encoding == "cp932"
    assert dump_sdcproj(project) == raw


def test_utf8_names_round_trip(tmp_path):
    project = read_sdcproj(IRIS)
    project.networks[0].rename_layer("Input", "入力")
    write_sdcproj(project, tmp_path / "u.sdcproj")
    again = read_sdcproj(tmp_path / "u.sdcproj")
    assert again == project and again.networks[0].layers[0].name == "入力"


def test_new_project_writes_nnc_layout():
    project = Project.new()
    net = project.network("Main")
    net.add_layer(Layer("Input", "Input", {"Size": "1,28,28"}, position=(24, 24)))
    net.add_layer(Layer("Affine", "Affine", {"OutShape": "10"}, position=(24, 72)))
    net.connect(Link("Input", "Affine"))
    text = dumps_sdcproj(project)
    assert "\r\n" in text and "\n[Global]" not in text  # CRLF, one network "Main": no prefix
    lines = text.split("\r\n")
    start = lines.index("[Layer_1]")
    assert lines[start : start + 10] == [
        "[Layer_1]", "ID=1", "Type=Affine", "Position_0=24", "Position_1=72",
        "Position_2=240", "Position_3=48", "Property_0_Name=Name", "Property_0_Value=Affine",
        "Property_1_Name=OutShape",
    ]  # fmt: skip
    assert (
        "[Link_0]\r\nID=0\r\nSourceLayerID=0\r\nSourcePinIndex=0\r\nDestLayerID=1\r\nDestPinIndex=0"
        in text
    )
    assert (
        "[Config]\r\nMaxEpoch=100\r\nSaveBest=1\r\nBatchSize=64\r\nTypeConfig=Float\r\nMonitorInterval=10\r\nNumOptimizer=1"
        in text
    )
    assert parse_sdcproj(text) == project


def test_edits_are_written_consistently():
    project = read_sdcproj(LENET)
    net = project.network("Main")
    net.rename_layer("Input", "x")
    net.remove_layer("ReLU_2")
    project.add_network(Network("Unit", [Layer("Arg", "Argument", {"Value": "4"})]))
    project.insert_item("executors", None, cfg.Executor.new(Executor_Name="Two"))
    text = dumps_sdcproj(project)
    assert "[Global]\nNumNetwork=2\nNetwork_0=Main\nNetwork_1=Unit\n" in text
    assert "[Main_Layer_0]" in text and "[Unit_Layer_0]" in text and "\n[Layer_0]" not in text
    assert "NumExecutor=2" in text
    # the unknown [Script] section stays after the last executor
    assert text.index("[Executor_1]") < text.index("[Script]") < text.index("[StructureSearch]")
    again = parse_sdcproj(text)
    assert again == project
    assert [k.source for k in again.network("Main").outputs_of("x")] == ["x"]


def test_windows_newlines_in_description_and_unwritable_values(tmp_path):
    project = read_sdcproj(IRIS)
    project.set_description("one\r\ntwo\rthree")
    assert parse_sdcproj(dumps_sdcproj(project)).description == "one\ntwo\nthree"
    project.replace_section("config", project.config.with_value("Bad", "a\nb"))
    with pytest.raises(ProjectFileError, match=r"p.sdcproj, \[Config\]: cannot write key 'Bad'"):
        write_sdcproj(project, tmp_path / "p.sdcproj")
    assert not (tmp_path / "p.sdcproj").exists()


# -- broken files --------------------------------------------------------------------------
def broken(tmp_path, old, new, source=IRIS):
    text = source.read_text()
    assert old in text
    path = tmp_path / "broken.sdcproj"
    path.write_text(text.replace(old, new, 1))
    return path


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        ("[Layer_1]", "[Layer_1", r"line 25: bad section header '\[Layer_1'"),
        (
            "[Layer_1]\n",
            "[Layer_1]\nfoo\n",
            r"line 26, \[Layer_1\]: expected Key=Value. Received: 'foo'",
        ),
        (
            "[Layer_2]",
            "[Layer_1]",
            r"line \d+: section \[Layer_1\] appears twice \(first on line 25\)",
        ),
        ("Type=Affine", "Type=Affine\nType=ReLU", r"\[Layer_1\]: key Type appears twice"),
        (
            "Property_0_Value=Affine",
            "Property_0_Value=Input",
            r'\[Layer_1\]: network "Main": duplicate layer name "Input"',
        ),
        (
            "ID=1\nType",
            "ID=0\nType",
            r'line 26, \[Layer_1\]: network "Main": layer ID 0 is also used by "Input"',
        ),
        (
            "DestLayerID=1",
            "DestLayerID=99",
            r"line \d+, \[Link_0\]: network \"Main\": DestLayerID=99 names no layer",
        ),
        (
            "SourcePinIndex=0",
            "SourcePinIndex=x",
            r"\[Link_0\]: SourcePinIndex: expected an integer. Received: SourcePinIndex=x",
        ),
        ("Position_0=24", "Position_0=left", r"\[Layer_0\]: Position_0: expected a number"),
        (
            "Position_1=24",
            "Position_1=1e400",
            r"Position_1: expected a number. Received: Position_1=1e400",
        ),
        ("NumLayer=6", "NumLayer=9", r"\[Layer_6\]: section is missing"),
        ("[Network_Global]", "[Networks]", r"\[Network_Global\]: section is missing"),
        (
            "Property_0_Name=Name",
            "Property_0_Name=Title",
            r"\[Layer_0\]: the layer has no Name property",
        ),
        ("Type=Input", "Type=", r'\[Layer_0\]: layer "Input": key Type is missing'),
        ("[Engine]", "Engine=1\n[Engine]", r"line 1: expected a \[Section\] header"),
        ("Text=", "Other=1\nText=", r"\[Description\]: unknown key Other"),
    ],
)
def test_broken_file_errors_name_file_line_and_section(tmp_path, old, new, message):
    path = broken(tmp_path, old, new)
    with pytest.raises(ProjectFileError, match=message) as info:
        read_sdcproj(path)
    assert str(info.value).startswith(str(path))


def test_global_listing_errors(tmp_path):
    path = tmp_path / "g.sdcproj"
    path.write_text("[Global]\nNumNetwork=2\nNetwork_0=A\n")
    with pytest.raises(
        ProjectFileError, match=r"\[Global\]: key Network_1 is missing \(NumNetwork=2\)"
    ):
        read_sdcproj(path)
    path.write_text(
        "[Global]\nNumNetwork=2\nNetwork_0=A\nNetwork_1=A\n[A_Network_Global]\nNumLayer=0\nNumLink=0\n"
    )
    with pytest.raises(ProjectFileError, match='network "A" is listed twice'):
        read_sdcproj(path)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"", "empty file"),
        (b"\x00\x01\x02binary\xff", "not a text file"),
        (bytes(range(128, 256)) * 4, "not a text file"),
        (b"just words", r"line 1: expected a \[Section\] header"),
    ],
)
def test_garbage_gives_clean_errors(data, message):
    with pytest.raises(ProjectFileError, match=message):
        parse_sdcproj(data, "garbage.sdcproj")


def test_missing_file():
    with pytest.raises(ProjectFileError, match="no_such.sdcproj: cannot read"):
        read_sdcproj("no_such.sdcproj")


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cut=st.integers(0, len(IRIS.read_bytes())))
def test_truncated_files_load_or_fail_cleanly(cut):
    raw = IRIS.read_bytes()[:cut]
    try:
        project = parse_sdcproj(raw, "t.sdcproj")
    except ProjectFileError as exc:
        assert str(exc).startswith("t.sdcproj")
        return
    assert parse_sdcproj(dump_sdcproj(project)) == project


@settings(max_examples=80, deadline=None)
@given(
    edits=st.lists(
        st.tuples(st.integers(0, 4700), st.integers(0, 4), st.binary(min_size=0, max_size=3)),
        max_size=4,
    )
)
def test_mutated_files_load_or_fail_cleanly(edits):
    raw = bytearray(IRIS.read_bytes())
    for at, drop, insert in edits:
        at = min(at, len(raw))
        raw[at : at + drop] = insert
    try:
        project = parse_sdcproj(bytes(raw), "m.sdcproj")
    except ProjectFileError as exc:
        assert str(exc).startswith("m.sdcproj")
        return
    assert parse_sdcproj(dump_sdcproj(project)) == project
    assert parse_native(dumps_native(project)) == project

"""``neurocanvas cost``: NNC's statistics as text and JSON, per network and per layer."""

import json
import shutil

import pytest
from nnc_samples import SAMPLES_DIR

from engine.cli import main
from engine.formats import save_project
from engine.graph.project import Layer, Link, Project

SAMPLES = str(SAMPLES_DIR)

WORKED = (
    ("Input", "Input", {"Size": "1,28,28"}),
    ("Convolution", "Convolution", {"OutMaps": "32", "KernelShape": "3,3", "BorderMode": "same"}),
    ("ReLU", "ReLU", {}),
    ("MaxPooling", "MaxPooling", {"KernelShape": "2,2"}),
    ("Convolution_2", "Convolution", {"OutMaps": "64", "KernelShape": "3,3"}),
    ("ReLU_2", "ReLU", {}),
    ("MaxPooling_2", "MaxPooling", {}),
    ("Affine", "Affine", {"OutShape": "10"}),
    ("Softmax", "Softmax", {}),
    ("CategoricalCrossEntropy", "CategoricalCrossEntropy", {}),
)


@pytest.fixture()
def worked(tmp_path):
    """docs/layers.md §2 as an .sdcproj saved under another extension (a job's network.ini)."""
    project = Project.new()
    net = project.network("Main")
    for name, type_, props in WORKED:
        net.add_layer(Layer(name, type_, props))
    for (a, *_), (b, *_) in zip(WORKED, WORKED[1:], strict=False):
        net.connect(Link(a, b))
    path = tmp_path / "network.sdcproj"
    save_project(project, path)
    ini = tmp_path / "network.ini"
    shutil.move(path, ini)
    return ini


def run(capsys, *argv):
    code = main(["cost", *map(str, argv)])
    out, err = capsys.readouterr()
    return code, out, err


def test_json_matches_the_worked_example(capsys, worked):
    code, out, _ = run(capsys, worked, "--json")
    assert code == 0
    report = json.loads(out)
    assert report["networks"]["Main"] == {
        "Output": 85477, "CostParameter": 50186, "CostAdd": 37652, "CostMultiply": 0,
        "CostMultiplyAdd": 3869824, "CostDivision": 10, "CostExp": 10, "CostIf": 75264,
        "UniqueParameters": 50186, "FLOPs": 7739648, "ParameterBytes": 200744,
    }  # fmt: skip
    assert "layers" not in report and "errors" not in report


def test_layers_and_derived_network(capsys, worked):
    code, out, _ = run(capsys, worked, "--json", "--layers", "--network", "MainRuntime")
    report = json.loads(out)
    assert code == 0 and list(report["networks"]) == ["MainRuntime"]
    assert report["networks"]["MainRuntime"]["Output"] == 85477  # counted as the drawn Main
    affine = report["layers"]["MainRuntime"]["Affine"]
    assert affine["type"] == "Affine" and affine["shape"] == [10]
    assert affine["CostParameter"] == 31370 and affine["CostMultiplyAdd"] == 31360


def test_text_output(capsys, worked):
    code, out, _ = run(capsys, worked, "--layers")
    assert code == 0
    assert 'Network "Main"' in out
    lines = [line.split() for line in out.splitlines()]
    assert ["Output", "85,477"] in lines and ["CostMultiplyAdd", "3,869,824"] in lines
    assert ["FLOPs", "7,739,648"] in lines
    row = next(line for line in out.splitlines() if line.strip().startswith("Convolution_2"))
    assert row.split()[:4] == ["Convolution_2", "Convolution", "64,14,14", "12,544"]


def test_errors(capsys, worked, tmp_path):
    code, _, err = run(capsys, worked, "--network", "Nope")
    assert code == 2 and 'no network "Nope"' in err and "(networks: Main)" in err
    code, _, err = run(capsys, tmp_path / "missing.sdcproj")
    assert code == 2 and "cannot read" in err
    bad = tmp_path / "bad.sdcproj"
    bad.write_text("[Layer_0]\nType=ReLU\n")
    code, _, err = run(capsys, bad)
    assert code == 2 and str(bad) in err


def test_layer_errors_give_status_1_and_still_print(capsys):
    code, out, err = run(capsys, f"{SAMPLES}/units/LSTM.sdcproj", "--json")
    assert code == 1
    report = json.loads(out)
    assert report["networks"]["Main"]["Output"] > 0
    assert report["networks"]["Main"]["Output"] == 5600  # NNC's number (its Axis reads 0)
    assert any("*UnitProperty(Size) is empty here" in e for e in report["errors"])
    assert (
        "neurocanvas cost: error: " in err and 'LSTM.sdcproj: network "Main", layer "Affine"' in err
    )


def test_sony_sample_with_units(capsys):
    path = f"{SAMPLES}/image_recognition/ILSVRC2012/densenet/densenet-161.sdcproj"
    code, out, _ = run(capsys, path, "--json", "--network", "Runtime")
    assert code == 0
    stats = json.loads(out)["networks"]["Runtime"]
    assert stats["CostParameter"] == 28894024  # DenseNet-161 (BN statistics included)
    assert stats["CostMultiplyAdd"] == 7641202688  # NNC's float32 sum
    assert stats["FLOPs"] == 2 * 7641202944  # the exact multiply-adds
    assert json.loads(out)["exact"]["Runtime"]["CostMultiplyAdd"] == 7641202944


def test_float32_totals_with_the_exact_count_beside_and_exact_on_request(capsys):
    path = f"{SAMPLES}/image_recognition/ILSVRC2012/alexnet.sdcproj"
    code, out, _ = run(capsys, path, "--network", "Training")
    assert code == 0
    rows = {line.split()[0]: line for line in out.splitlines()[1:] if line.strip()}
    assert rows["CostMultiplyAdd"].split() == [
        "CostMultiplyAdd", "691,487,232", "(float32", "as", "NNC;", "exact", "691,487,264)",
    ]  # fmt: skip
    assert rows["CostParameter"].split() == [
        "CostParameter",
        "60,667,176",
    ]  # a float32 already
    code, out, _ = run(capsys, path, "--network", "Training", "--exact", "--json")
    assert json.loads(out)["networks"]["Training"]["CostMultiplyAdd"] == 691487264
    code, out, _ = run(capsys, path, "--network", "Training", "--exact")
    assert "691,487,264" in out and "691,487,232" not in out


def test_pooling_nnc_shows_differently_is_warned_with_both_shapes(capsys, tmp_path):
    project = Project.new()
    net = project.network("Main")
    pool = {"KernelShape": "3,3", "Strides": "2,2", "Padding": "1,1", "IgnoreBorder": "False"}
    for name, type_, props in (("x", "Input", {"Size": "1,7,7"}), ("P", "MaxPooling", pool)):
        net.add_layer(Layer(name, type_, props))
    net.connect(Link("x", "P"))
    save_project(project, tmp_path / "p.sdcproj")
    code, out, err = run(capsys, tmp_path / "p.sdcproj", "--json", "--layers")
    assert code == 0
    report = json.loads(out)
    assert report["layers"]["Main"]["P"]["shape"] == [1, 4, 4]  # what runs (nnabla)
    assert report["networks"]["Main"]["Output"] == 49 + 25  # NNC's count, on 1,5,5
    assert err.strip() == (
        'neurocanvas cost: warning: network "Main", layer "P": with IgnoreBorder=False and '
        "Padding, nnabla (and this engine) pools to 1,4,4 where NNC's editor shows 1,5,5: the "
        "network runs 1,4,4; the statistics are NNC's, counted on 1,5,5"
    )


def test_layers_say_how_often_they_count(capsys):
    path = f"{SAMPLES}/tutorial/recurrent_neural_networks/elman_net.sdcproj"
    code, out, _ = run(capsys, path, "--json", "--layers")
    assert code == 0
    report = json.loads(out)
    rows = report["layers"]["Main"]
    assert rows["Affine_2"]["times"] == 28 and rows["Affine_2"]["CostParameter"] == 1596
    assert rows["RecurrentInput"]["times"] == 28 and rows["RecurrentOutput"]["times"] == 1
    total = sum(r["times"] * r.get("CostParameter", 0) for r in rows.values())
    assert total == report["networks"]["Main"]["CostParameter"] == 44717  # NNC's number

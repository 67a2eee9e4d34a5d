"""Every mutation rule on a network where it fits: the result infers, validates and saves as an
NNC ``.sdcproj`` that an INI reader (configparser) reads back with the changed layers."""

from __future__ import annotations

import configparser
import random
from pathlib import Path

import pytest

from engine.formats import load_project, save_project
from engine.graph.network import Layer, Link, Network
from engine.search import edit
from engine.search.candidate import CandidateError, copy_project, describe
from engine.search.mutations import RULES, NothingToSearch, mutate

ROOT = Path(__file__).resolve().parents[3]


def _layer(name, type_, **props):
    return Layer(name, type_, {k: str(v) for k, v in props.items()})


def rich_project():
    """LeNet digits' settings around a network where every rule has a place:
    Conv -> BN -> ReLU -> Dropout -> MaxPool -> Conv_2 (+ skip, Add2) -> Tanh -> Affine -> ELU
    -> Affine_2 -> Softmax -> CategoricalCrossEntropy."""
    project = load_project(ROOT / "projects" / "lenet_digits.ncproj")
    layers = [
        _layer("Input", "Input", Size="1,28,28", Dataset="x"),
        _layer("Convolution", "Convolution", OutMaps=4, KernelShape="3,3"),
        _layer("BatchNormalization", "BatchNormalization"),
        _layer("ReLU", "ReLU"),
        _layer("Dropout", "Dropout", P=0.5),
        _layer("MaxPooling", "MaxPooling", KernelShape="2,2"),
        _layer("Convolution_2", "Convolution", OutMaps=4, KernelShape="3,3", Padding="1,1"),
        _layer("Add2", "Add2"),
        _layer("Tanh", "Tanh"),
        _layer("Affine", "Affine", OutShape=20),
        _layer("ELU", "ELU"),
        _layer("Affine_2", "Affine", OutShape=10),
        _layer("Softmax", "Softmax"),
        _layer("CategoricalCrossEntropy", "CategoricalCrossEntropy", T="y"),
    ]
    names = [x.name for x in layers]
    links = [Link(a, b) for a, b in zip(names[:7], names[1:8], strict=True)]
    links += [Link("MaxPooling", "Add2")]  # NNC links both inputs of Add2 to pin 0
    links += [Link(a, b) for a, b in zip(names[7:-1], names[8:], strict=True)]
    full = {**_defaults(layers)}
    project.remove_network("Main")
    project.add_network(Network("Main", [full[n] for n in names], links), 0)
    return project


def _defaults(layers):
    scratch = Network("scratch")
    out = {}
    for x in layers:
        fresh = scratch.new_layer(x.type)
        out[x.name] = Layer(x.name, x.type, {**fresh.properties, **x.properties})
    return out


def _apply(rule_name, project, seeds=range(40)):
    """The rule applied with the first seed that gives a sound network for the same task (the
    candidate builder's test: the loss layers' inputs keep their shapes)."""
    reasons = []
    task = describe(project).signature
    for seed in seeds:
        child = copy_project(project)
        done = RULES[rule_name](child, child.network("Main"), random.Random(seed))
        if done is None:
            pytest.fail(f"{rule_name} found no place in the test network")
        try:
            found = describe(child)
        except CandidateError as exc:
            reasons.append(str(exc))
            continue
        if found.signature == task:
            return child, done, found
        reasons.append(f"{done}: changes the task")
    pytest.fail(f"{rule_name}: no sound result in {len(seeds)} seeds: {reasons[:3]}")


def _sdcproj_types(path):
    ini = configparser.ConfigParser(interpolation=None, strict=False)
    ini.optionxform = str
    ini.read(path, encoding="utf-8")
    return [ini[s]["Type"] for s in ini.sections() if s.startswith("Layer_")]


@pytest.mark.parametrize("rule", sorted(RULES))
def test_rule_gives_a_sound_network_that_saves_as_sdcproj(rule, tmp_path):
    project = rich_project()
    base = describe(project)
    before = [x.type for x in project.network("Main").layers]
    child, done, found = _apply(rule, project)
    after = [x.type for x in child.network("Main").layers]
    props_before = {x.name: x.properties for x in project.network("Main").layers}
    props_after = {x.name: x.properties for x in child.network("Main").layers}
    assert done.rule == rule
    assert after != before or props_after != props_before, f"{done} changed nothing"
    assert found.signature == base.signature  # the loss still sees 10 classes
    path = tmp_path / "candidate.sdcproj"
    save_project(child, path)
    types = _sdcproj_types(path)
    # The .sdcproj holds every network's layers; the main one is first in file order.
    assert types[: len(after)] == after
    assert [x.type for x in load_project(path).network("Main").layers] == after


def test_removal_rules_remove_and_insertion_rules_insert():
    project = rich_project()
    n = len(project.network("Main").layers)
    expected = {"RemoveActivation": -1, "RemoveDropout": -1, "RemoveBatchNormalization": -1,
                "RemovePooling": -1, "InsertDropout": 1, "InsertBatchNormalization": 1,
                "InsertActivation": 1, "InsertAffine": 2, "InsertConvolution": 3,
                "Branch": 2}  # fmt: skip
    for rule, delta in expected.items():
        child, done, _ = _apply(rule, project)
        assert len(child.network("Main").layers) == n + delta, done


def test_remove_branch_drops_the_skip_and_the_join():
    child, done, _ = _apply("RemoveBranch", rich_project())
    net = child.network("Main")
    assert "Add2" not in net.layer_names  # one input left: the join is wired through
    assert len(net.links) == len(net.layers) - 1  # a plain chain again


def test_property_rule_changes_a_searchable_argument_of_a_unit(tmp_path):
    project = rich_project()
    unit = Network("Block", [
        _layer("Input", "Input", Size="4,14,14"),
        _layer("Maps", "Argument", Value="4", Type="PInt", Search="True"),
        Layer("Conv", "Convolution", {**Network("s").new_layer("Convolution").properties,
                                      "OutMaps": "*Maps", "KernelShape": "3,3",
                                      "Padding": "1,1"}),
    ], [Link("Input", "Conv")])  # fmt: skip
    project.add_network(unit)
    main = project.network("Main")
    main.remove_layer("Convolution_2")
    main.add_layer(_layer("Block", "Unit", Network="Block", ParameterScope="*Name"))
    main.connect(Link("MaxPooling", "Block"))
    main.connect(Link("Block", "Add2"))
    skip = next(k for k in main.inputs_of("Add2") if k.source == "MaxPooling")
    main.disconnect(skip)  # no skip connection: Maps may change the width
    assert edit.remove_through(main, "Add2")
    describe(project)
    values = set()
    for seed in range(30):
        child = copy_project(project)
        done = RULES["Property"](child, child.network("Main"), random.Random(seed))
        if done and done.layer == "Maps":
            values.add(child.network("Block").layer("Maps").properties["Value"])
            describe(child)
    assert values and "4" not in values


def test_search_false_leaves_the_network_alone():
    project = rich_project()
    project.network("Main").add_layer(_layer("StructureSearch", "StructureSearch", Search="False"))
    with pytest.raises(NothingToSearch, match="Search=False"):
        mutate(project, random.Random(0))

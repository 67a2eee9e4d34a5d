"""Derived <Net>Validation / <Net>Runtime networks and the TestNetwork setting (§3)."""

import pytest

from engine.graph import config as cfg
from engine.graph.derive import (
    counted_as,
    derive,
    derived_names,
    modifies_for_testing,
    network_for,
    runtime_outputs,
    test_rewrite,
)
from engine.graph.infer import NetworkInference
from engine.graph.project import Layer, Link, Network, Project


def chain(name, *layers, links=()):
    net = Network(name, [Layer(n, t, dict(p)) for n, t, p in layers])
    for (a, *_), (b, *_) in zip(layers, layers[1:], strict=False):
        net.connect(Link(a, b))
    for link in links:
        net.connect(link)
    return net


def main_network():
    net = chain(
        "Main",
        ("x", "Input", {"Size": "3,8,8"}),
        ("Aug", "ImageAugmentation", {}),
        ("Flip", "RandomFlip", {"SkipAtTest": "False"}),
        ("Crop", "RandomCrop", {"Shape": "3,6,6"}),
        ("BN", "BatchNormalization", {}),
        ("Drop", "Dropout", {"SkipAtInspection": "True"}),  # the legacy name
        ("Aff", "Affine", {"OutShape": "10"}),
        ("Soft", "Softmax", {}),
        ("CCE", "CategoricalCrossEntropy", {}),
    )
    net.add_layer(Layer("Err", "TopNError", {"T.Dataset": "label"}))
    net.add_layer(Layer("y", "Input", {"Size": "1", "Dataset": "y"}))
    net.connect(Link("Soft", "Err"))
    net.connect(Link("y", "CCE", dest_pin=1))
    return net


def project():
    return Project(
        [main_network()],
        monitors=[
            cfg.Monitor.new(
                Monitor_Name="valid_error",
                Monitor_NetworkName="MainValidation",
                Monitor_DatasetName="Validation",
            )
        ],  # fmt: skip
        executors=[
            cfg.Executor.new(
                Executor_Name="Executor",
                Executor_NetworkName="MainRuntime",
                Executor_DatasetName="Validation",
            )
        ],  # fmt: skip
    )


def test_derived_names_come_from_the_config():
    p = project()
    assert derived_names(p) == ["MainValidation", "MainRuntime"]
    assert counted_as(p, "MainRuntime") == "Main" and counted_as(p, "Main") == "Main"
    assert counted_as(p, "OtherRuntime") is None
    assert derive(p, "Main") is None


def test_validation_skips_layers_and_forces_test_values():
    validation = derive(project(), "MainValidation")
    net = validation.network
    assert validation.derived and validation.test_mode and validation.base == "Main"
    assert net.name == "MainValidation"
    names = net.layer_names
    assert "Aug" not in names and "Drop" not in names
    assert "Flip" in names and "Crop" in names  # SkipAtTest=False; RandomCrop has none
    assert {(k.source, k.destination) for k in net.links if k.dest_pin == 0} >= {
        ("x", "Flip"), ("BN", "Aff"),
    }  # fmt: skip
    assert net.layer("BN").properties["BatchStat"] == "False"
    assert NetworkInference(net).shape("Aff") == (10,)


def test_runtime_drops_losses_and_names_outputs():
    runtime = derive(project(), "MainRuntime")
    names = runtime.network.layer_names
    assert "CCE" not in names and "Err" not in names and "y" not in names  # label input too
    assert runtime.outputs == (("y'", "Soft"), ("label'", "Soft"))
    inference = NetworkInference(runtime.network)
    assert inference.errors() == []


def test_drawn_networks_and_the_test_network_layer():
    p = project()
    drawn = network_for(p, "Main")
    assert not drawn.derived and not drawn.test_mode
    assert drawn.outputs == (("CCE", "CCE"), ("Err", "Err"))
    net = main_network()
    net.add_layer(Layer("Test", "TestNetwork"))
    assert modifies_for_testing(net)
    assert "Drop" not in test_rewrite(net).layer_names
    net.set_property("Test", "ModifyForTesting", "False")
    assert not modifies_for_testing(net)
    with pytest.raises(KeyError, match='no network "Nope"'):
        network_for(p, "Nope")
    assert runtime_outputs(Network("Empty")) == ()


def test_spectral_norm_and_mean_subtraction_are_forced_too():
    net = chain("N", ("x", "Input", {}), ("SN", "SpectralNorm", {}), ("MS", "MeanSubtraction", {}))
    rewritten = test_rewrite(net, "NValidation")
    assert rewritten.layer("SN").properties["Test"] == "True"
    assert rewritten.layer("MS").properties["UpdateRunningMean"] == "False"

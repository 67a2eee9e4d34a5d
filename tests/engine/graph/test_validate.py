"""Validation problems name network, layer and property."""

import csv

from engine.graph import config as cfg
from engine.graph.infer import NetworkInference
from engine.graph.project import Layer, Link, Network, Project
from engine.graph.validate import Problem, dataset_variables, validate_network, validate_project


def chain(name, *layers, links=()):
    net = Network(name, [Layer(n, t, dict(p)) for n, t, p in layers])
    for (a, *_), (b, *_) in zip(layers, layers[1:], strict=False):
        net.connect(Link(a, b))
    for link in links:
        net.connect(link)
    return net


def messages(net):
    return [str(p) for p in validate_network(NetworkInference(net))]


def test_a_clean_network_has_no_problem():
    net = chain("Main", ("x", "Input", {}), ("A", "Affine", {"OutShape": "10"}),
                ("S", "Softmax", {}), ("L", "CategoricalCrossEntropy", {}))  # fmt: skip
    assert messages(net) == []


def test_problem_text_names_the_place():
    problem = Problem("expected 2 positive integers", "Main", "Convolution_2", "KernelShape")
    assert str(problem) == (
        'network "Main", layer "Convolution_2", property KernelShape: expected 2 positive integers'
    )
    assert str(Problem("duplicate")) == "duplicate"


def test_unconnected_and_overconnected_inputs():
    net = chain("Main", ("x", "Input", {}), ("y", "Input", {}), ("R", "ReLU", {}),
                ("Add", "Add2", {}), ("T", "Tanh", {}))  # fmt: skip
    net.connect(Link("x", "R"))
    found = messages(net)
    assert 'network "Main", layer "R", ReLU takes one main input but 2 are linked' in found
    assert 'network "Main", layer "Add", Add2 takes 2 inputs but 1 are linked' in found
    assert any(m.startswith('network "Main", layer "y", Input takes no input') for m in found)
    lonely = Network("N", [Layer("S", "Softmax")])
    assert messages(lonely) == [
        'network "N", layer "S", nothing is linked into its input: draw a link into it from '
        "the layer above"
    ]


def test_pins_and_side_inputs():
    net = chain("Main", ("x", "Input", {"Size": "8"}), ("A", "Affine", {"OutShape": "4"}),
                ("P", "Parameter", {"Size": "7,4"}),  # fmt: skip
                links=(Link("P", "A", dest_pin=1), Link("x", "A", dest_pin=5)))  # fmt: skip
    net.disconnect(
        next(k for k in net.links if (k.source, k.destination, k.dest_pin) == ("A", "P", 0))
    )
    found = messages(net)
    assert 'network "Main", layer "A", Affine has no input pin 5' in found
    assert (
        'network "Main", layer "A", side input W needs shape 8,4, the linked layer gives 7,4'
        in found
    )


def test_bad_property_values_and_cycles():
    net = chain("Main", ("x", "Input", {"Size": "3,8,8"}), ("D", "Dropout", {"P": "half"}),
                ("C", "Convolution", {"BorderMode": "half"}))  # fmt: skip
    found = messages(net)
    assert 'network "Main", layer "D", property P: expected a number. Received: P=half' in found
    assert (
        'network "Main", layer "C", property BorderMode: expected one of valid, full, same. '
        "Received: BorderMode=half"
    ) in found
    looped = chain("Main", ("x", "Input", {}), ("a", "Add2", {}), ("b", "ReLU", {}),
                   ("c", "Tanh", {}), links=(Link("c", "a"),))  # fmt: skip
    assert messages(looped) == [
        'network "Main", layer "a", the links form a cycle: a -> b -> c -> a'
    ]


def test_delay_size_must_match_its_recurrent_input():
    net = chain("Main", ("x", "Input", {"Size": "5,3"}), ("RI", "RecurrentInput", {}),
                ("Cat", "Concatenate", {}), ("Aff", "Affine", {"OutShape": "4"}),
                ("RO", "RecurrentOutput", {}), ("D", "Delay", {"Size": "3"}),  # fmt: skip
                links=(Link("D", "Cat"), Link("Aff", "D")))  # fmt: skip
    net.disconnect(next(k for k in net.links if (k.source, k.destination) == ("RO", "D")))
    found = messages(net)
    assert (
        'network "Main", layer "D", property Size: the recurrent input has shape 4 but Size is 3'
        in found
    )


def test_project_level_problems(tmp_path):
    unit_a = chain("A", ("Input", "Input", {}), ("U", "Unit", {"Network": "B"}))
    unit_b = chain("B", ("Input", "Input", {}), ("U", "Unit", {"Network": "A"}))
    main = chain("Main", ("x", "Input", {"Size": "4"}), ("Aff", "Affine", {"OutShape": "2"}),
                 ("L", "SquaredError", {"T.Dataset": "z"}),
                 ("Arg", "Argument", {"Value": "0.5", "Type": "PInt"}))  # fmt: skip
    main.disconnect(next(k for k in main.links if k.destination == "Arg"))
    data = tmp_path / "train.csv"
    with data.open("w", newline="") as handle:
        csv.writer(handle).writerows([["x__0", "x__1", "y:label"], [1, 2, 3]])
    project = Project(
        [main, unit_a, unit_b],
        datasets=[cfg.Dataset.new(Name="Training", URI=str(data))],
        optimizers=[
            cfg.Optimizer.new(
                Optimizer_Name="Opt", Optimizer_NetworkName="Main", Optimizer_DatasetName="Training"
            )
        ],  # fmt: skip
        monitors=[
            cfg.Monitor.new(
                Monitor_Name="m", Monitor_NetworkName="Nope", Monitor_DatasetName="Missing"
            ),
            cfg.Monitor.new(
                Monitor_Name="m",
                Monitor_NetworkName="MainValidation",
                Monitor_DatasetName="Training",
            ),
        ],  # fmt: skip
    )
    problems = validate_project(project)
    found = [str(p) for p in problems]
    assert any(m.startswith('network "A", unit recursion: A -> B -> A') for m in found)
    assert (
        'monitor "m": no network "Nope"' in found and 'monitor "m": no dataset "Missing"' in found
    )
    assert "monitors: duplicate name 'm'" in found
    assert 'network "Main", layer "L", dataset "Training" has no variable \'z\'' in found
    assert 'network "MainValidation", layer "L", dataset "Training" has no variable \'z\'' in found
    argument = next(p for p in problems if p.layer == "Arg")
    assert argument.severity == "warning" and "expected a positive integer" in argument.message
    assert dataset_variables(str(data)) == {"x", "y"}
    assert dataset_variables("{SDCPATH}samples/x.csv") is None


def test_pooling_that_nnc_shows_differently_is_a_warning_with_both_shapes():
    pool = {"KernelShape": "3,3", "Strides": "2,2", "Padding": "1,1", "IgnoreBorder": "False"}
    unit = chain("Block", ("Input", "Input", {"Size": "2,6,6"}), ("Q", "AveragePooling", pool))
    main = chain(
        "Main",
        ("x", "Input", {"Size": "2,7,7"}),
        ("P", "MaxPooling", pool),
        ("U", "Unit", {"Network": "Block"}),
        ("V", "Unit", {"Network": "Block"}),
    )
    main.disconnect(next(k for k in main.links if k.destination == "V"))
    main.connect(Link("x", "V"))
    problems = [str(p) for p in validate_project(Project([main, unit]), variables={})
                if p.severity == "warning"]  # fmt: skip
    # P: 7 pools to 4 (nnabla), NNC shows 5. U gets 4 (4 and 3: NNC's ceil(6/2) = 3 too).
    # V gets the 7 of x: its Q differs as P does. Block alone (6: 4 and 4) is fine.
    assert problems == [
        'network "Main", layer "P", property Padding: with IgnoreBorder=False and Padding, '
        "nnabla (and this engine) pools to 2,4,4 where NNC's editor shows 2,5,5: the network "
        "runs 2,4,4; the statistics are NNC's, counted on 2,5,5",
        'network "Main", layer "V", its layer "Q", property Padding: with IgnoreBorder=False '
        "and Padding, nnabla (and this engine) pools to 2,4,4 where NNC's editor shows 2,5,5: "
        "the network runs 2,4,4; the statistics are NNC's, counted on 2,5,5",
    ]
    main.set_property("P", "IgnoreBorder", "True")
    unit.set_property("Q", "Padding", "0,0")
    assert not [
        p for p in validate_project(Project([main, unit]), variables={}) if p.severity == "warning"
    ]

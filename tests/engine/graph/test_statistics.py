"""Network statistics: NNC totals and maxima, unique parameters, FLOPs and bytes."""

import numpy as np

from engine.graph.infer import NetworkInference
from engine.graph.project import Layer, Link, Network, Project
from engine.graph.project_inference import ProjectInference
from engine.graph.statistics import as_float32, network_statistics, pooling_disagreements


def chain(name, *layers, links=()):
    net = Network(name, [Layer(n, t, dict(p)) for n, t, p in layers])
    for (a, *_), (b, *_) in zip(layers, layers[1:], strict=False):
        net.connect(Link(a, b))
    for link in links:
        net.connect(link)
    return net


def unlink(net, source, destination):
    net.disconnect(next(k for k in net.links if (k.source, k.destination) == (source, destination)))


WORKED = chain(
    "Main",
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


def test_worked_example_to_the_digit():
    stats = network_statistics(NetworkInference(WORKED))
    assert stats.totals == {
        "Output": 85477, "CostParameter": 50186, "CostAdd": 37652, "CostMultiply": 0,
        "CostMultiplyAdd": 3869824, "CostDivision": 10, "CostExp": 10, "CostIf": 75264,
    }  # fmt: skip
    assert stats.maxima["Output"] == 25088 and stats.maxima["CostMultiplyAdd"] == 3612672
    assert stats.layers["Convolution_2"]["CostParameter"] == 18496
    assert stats.layers["MaxPooling"]["CostIf"] == 25088
    assert stats.shapes["Affine"] == (10,)
    assert stats.unique_parameters == 50186
    assert stats.flops == 7739648
    assert stats.parameter_bytes == 200744
    assert list(stats.summary())[-3:] == ["UniqueParameters", "FLOPs", "ParameterBytes"]
    assert set(stats.parameters) == {
        "Convolution/conv/W", "Convolution/conv/b", "Convolution_2/conv/W", "Convolution_2/conv/b",
        "Affine/affine/W", "Affine/affine/b",
    }  # fmt: skip


def test_shared_parameters_count_at_every_layer_but_once_as_unique():
    net = chain(
        "N",
        ("x", "Input", {"Size": "8"}),
        ("A", "Affine", {"OutShape": "8", "ParameterScope": "Shared"}),
        ("B", "Affine", {"OutShape": "8", "ParameterScope": "Shared"}),
    )
    stats = network_statistics(NetworkInference(net))
    assert stats.totals["CostParameter"] == 2 * (64 + 8)
    assert stats.unique_parameters == 64 + 8
    assert stats.parameters == {"Shared/affine/W": 64, "Shared/affine/b": 8}


def test_unit_scopes_decide_sharing():
    unit = chain("Block", ("Input", "Input", {}), ("Conv", "Convolution", {"OutMaps": "4"}))
    main = chain(
        "Main",
        ("x", "Input", {"Size": "4,6,6"}),
        ("B1", "Unit", {"Network": "Block"}),
        ("B2", "Unit", {"Network": "Block"}),
        ("B3", "Unit", {"Network": "Block", "ParameterScope": "B1"}),
        ("B4", "Unit", {"Network": "Block", "ParameterScope": ""}),
    )
    pi = ProjectInference(Project([main, unit]))
    stats = network_statistics(pi.network("Main"))
    per_conv = 4 * 4 * 9 + 4
    assert stats.totals["CostParameter"] == 4 * per_conv  # every Unit layer counts its own
    assert sorted(stats.parameters) == [
        "B1/Conv/conv/W", "B1/Conv/conv/b", "B2/Conv/conv/W", "B2/Conv/conv/b",
        "Conv/conv/W", "Conv/conv/b",
    ]  # fmt: skip
    assert stats.unique_parameters == 3 * per_conv


def test_repeat_blocks_have_one_parameter_set_per_iteration():
    net = chain(
        "N",
        ("x", "Input", {"Size": "4,6,6"}),
        ("RepeatStart", "RepeatStart", {"Times": "3"}),
        ("Conv", "Convolution", {"OutMaps": "4"}),
        ("RepeatEnd", "RepeatEnd", {}),
    )
    stats = network_statistics(NetworkInference(net))
    per_conv = 4 * 4 * 9 + 4
    # NNC counts the block's layers once per iteration, its RepeatStart too, its RepeatEnd once.
    assert stats.totals["CostParameter"] == 3 * per_conv
    assert stats.totals["Output"] == 144 + 3 * 144 + 3 * 144 + 144
    assert stats.layers["Conv"]["CostParameter"] == per_conv  # a layer shows one iteration
    assert stats.parameters == {
        "Conv{RepeatStart}/conv/W": 3 * 4 * 4 * 9, "Conv{RepeatStart}/conv/b": 3 * 4,
    }  # fmt: skip
    assert stats.unique_parameters == 3 * per_conv


def test_nested_repeat_blocks_multiply():
    net = chain(
        "N",
        ("x", "Input", {"Size": "5"}),
        ("Outer", "RepeatStart", {"Times": "3"}),
        ("A", "Affine", {"OutShape": "5"}),
        ("Inner", "RepeatStart", {"Times": "4"}),
        ("B", "Affine", {"OutShape": "5"}),
        ("InnerEnd", "RepeatEnd", {}),
        ("OuterEnd", "RepeatEnd", {}),
    )
    stats = network_statistics(NetworkInference(net))
    # x once, Outer and A 3 times, Inner and B 12 times, InnerEnd 3 times, OuterEnd once.
    assert stats.totals["Output"] == 5 * (1 + 3 + 3 + 12 + 12 + 3 + 1)
    assert stats.totals["CostMultiplyAdd"] == 25 * (3 + 12)
    assert stats.unique_parameters == 30 * (3 + 12)


def test_recurrent_loops_count_every_time_step():
    net = chain(
        "N",
        ("x", "Input", {"Size": "7,3"}),
        ("In", "RecurrentInput", {}),
        ("Cat", "Concatenate", {"Axis": "0"}),
        ("A", "Affine", {"OutShape": "4"}),
        ("Out", "RecurrentOutput", {}),
    )
    net.add_layer(Layer("Delay", "Delay", {"Size": "4"}))
    net.connect(Link("A", "Delay"))
    net.connect(Link("Delay", "Cat"))
    stats = network_statistics(NetworkInference(net))
    assert stats.shapes["Out"] == (7, 4) and stats.shapes["Cat"] == (7,)
    per_step = 3 + 7 + 4 + 4  # In, Cat, A, Delay (elman_net: 28 steps, NNC's 6,303)
    assert stats.totals["Output"] == 21 + 7 * per_step + 28
    assert stats.totals["CostParameter"] == 7 * (7 * 4 + 4)  # as NNC: once per time step
    assert stats.unique_parameters == 7 * 4 + 4  # shared by the steps


def test_network_totals_are_shown_as_float32_and_kept_exact():
    net = chain(
        "N",
        ("x", "Input", {"Size": "8193"}),
        ("A", "Affine", {"OutShape": "2049", "WithBias": "False"}),
    )
    stats = network_statistics(NetworkInference(net))
    exact = 8193 * 2049  # 16,787,457: above 2**24 float32 keeps even numbers only
    assert stats.exact["CostMultiplyAdd"] == stats.exact["CostParameter"] == exact
    # A tie between 16,787,456 and 16,787,458: float32 rounds to the even significand.
    assert stats.totals["CostMultiplyAdd"] == stats.totals["CostParameter"] == 16787456
    assert stats.totals["Output"] == stats.exact["Output"] == 8193 + 2049
    assert stats.layers["A"]["CostMultiplyAdd"] == exact
    assert stats.flops == 2 * exact
    assert stats.summary()["CostParameter"] == 16787456
    assert stats.summary(exact=True)["CostParameter"] == exact


def test_float32_rounding_matches_numpy():
    # NNC's published pairs (exact, shown), then numpy's float32 as the independent reference.
    assert as_float32(691487264) == 691487232 and as_float32(138357544) == 138357536
    assert as_float32(21299660087) == 21299660800 and as_float32(33625877) == 33625876
    for count in (0, 1, 2**24 - 1, 2**24 + 1, 2**24 + 3, 3 * 2**40 + 2**16 + 1, 10**15 + 7):
        assert as_float32(count) == int(np.float32(count)), count


def test_parameter_layer_and_binary_weights():
    net = chain(
        "N",
        ("x", "Input", {"Size": "16"}),
        ("A", "Affine", {"OutShape": "4"}),
        ("W", "Parameter", {}),
        ("Bin", "BinaryConnectAffine", {"OutShape": "64"}),
        links=(Link("W", "A", dest_pin=1),),
    )
    unlink(net, "A", "W")
    unlink(net, "W", "Bin")
    net.connect(Link("A", "Bin"))
    stats = network_statistics(NetworkInference(net))
    assert stats.parameters["W"] == 64 and "A/affine/W" not in stats.parameters
    assert stats.layers["W"]["CostParameter"] == 64 and stats.layers["A"]["CostParameter"] == 4
    # 1-bit weights: NNC counts ceil(4*64/32) + 64; the unique count has W, Wb and b in full.
    assert stats.layers["Bin"]["CostParameter"] == 8 + 64
    assert stats.parameters["Bin/bicon_affine/Wb"] == 256
    assert stats.unique_parameters == 64 + 4 + 256 + 256 + 64


def test_failed_layers_contribute_nothing():
    net = chain(
        "N",
        ("x", "Input", {"Size": "3,4,4"}),
        ("C", "Convolution", {"KernelShape": "9,9", "BorderMode": "valid"}),
    )
    stats = network_statistics(NetworkInference(net))
    assert stats.totals["Output"] == 48 and "C" not in stats.layers
    assert stats.shapes["C"] is None


def test_pooling_that_nnc_shows_differently_counts_nncs_shapes():
    # 7x9, kernel 3, stride 2, pad (1, 2), IgnoreBorder False: nnabla runs 4x6, NNC shows 5x7.
    pool = {"KernelShape": "3,3", "Strides": "2,2", "Padding": "1,2", "IgnoreBorder": "False"}
    net = chain(
        "N",
        ("x", "Input", {"Size": "1,7,9"}),
        ("P", "MaxPooling", pool),
        ("A", "Affine", {"OutShape": "2"}),
    )
    stats = network_statistics(NetworkInference(net))
    assert stats.shapes["P"] == (1, 4, 6)  # what runs
    assert stats.layers["P"]["Output"] == 35 and stats.layers["P"]["CostIf"] == 35 * 9
    assert stats.totals["Output"] == 63 + 35 + 2
    assert stats.totals["CostParameter"] == 35 * 2 + 2  # NNC's count
    assert stats.unique_parameters == 24 * 2 + 2  # the parameters that exist
    pi = ProjectInference(Project([net]))
    assert pooling_disagreements(pi.network("N")) == [("P", (1, 4, 6), (1, 5, 7))]
    net.set_property("P", "Padding", "0,0")
    assert pooling_disagreements(pi.network("N")) == []
    assert network_statistics(pi.network("N")).totals["Output"] == 63 + 20 + 2  # 4x5 both


def test_loop_counts_follow_edits():
    unit = chain(
        "Block",
        ("Input", "Input", {"Size": "3"}),
        ("Start", "RepeatStart", {"Times": "2"}),
        ("A", "Affine", {"OutShape": "3"}),
        ("End", "RepeatEnd", {}),
    )
    main = chain("Main", ("x", "Input", {"Size": "3"}), ("U", "Unit", {"Network": "Block"}))
    pi = ProjectInference(Project([main, unit]))
    assert network_statistics(pi.network("Main")).totals["CostParameter"] == 2 * 12
    unit.set_property("Start", "Times", "5")  # the unit's block repeats 5 times now
    assert network_statistics(pi.network("Main")).totals["CostParameter"] == 5 * 12
    assert network_statistics(pi.network("Block")).totals["Output"] == 3 + 5 * 3 + 5 * 3 + 3
    unlink(unit, "A", "End")  # A leaves the block: End reads Start directly
    unit.connect(Link("Start", "End"))
    assert network_statistics(pi.network("Block")).totals["CostParameter"] == 12

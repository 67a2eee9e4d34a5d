"""Network statistics: NNC totals and maxima, unique parameters, FLOPs and bytes."""

from engine.graph.infer import NetworkInference, ProjectInference
from engine.graph.project import Layer, Link, Network, Project
from engine.graph.statistics import network_statistics


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
    assert stats.totals["CostParameter"] == per_conv  # NNC's value: each layer once
    assert stats.parameters == {
        "Conv{RepeatStart}/conv/W": 3 * 4 * 4 * 9, "Conv{RepeatStart}/conv/b": 3 * 4,
    }  # fmt: skip
    assert stats.unique_parameters == 3 * per_conv


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

"""The quantizer insertion: structure, files, forward pass and straight-through gradients."""

from __future__ import annotations

import configparser
import json
from pathlib import Path

import numpy as np
import pytest

import engine.nn as nn
import engine.nn.functions as F
from engine.formats import load_project, save_project
from engine.graph.project_inference import ProjectInference
from engine.graph.statistics import network_statistics, stored_bits
from engine.quantization import (
    QuantizationError,
    Ranges,
    Scheme,
    insert_quantizers,
    strip_quantizers,
)
from engine.quantization.scheme import power_of_two_delta
from engine.runtime.compiler import compile_network

LENET = Path(__file__).parents[3] / "projects" / "lenet_digits.ncproj"
PARAMETRIC = ("Convolution", "Convolution_2", "Affine", "Affine_2")


def _shape(network) -> list:
    """What a user sees of a network: layers (name, type, properties, place) and links."""
    return [
        [(x.name, x.type, x.properties, x.position) for x in network.layers],
        [(k.source, k.destination, k.dest_pin) for k in network.links],
    ]


def test_lenet_gets_a_quantizer_on_each_data_path_and_parameter():
    project = load_project(LENET)
    q = insert_quantizers(project, "Main", Scheme(bits=8, delta=0.0625))
    assert project.network_names == ("Main", "Main_q8")
    # Activation quantizers: every layer between the input and the last parametric layer;
    # the logits (into Softmax and the loss) stay float.
    activations = {k.source for k in q.links if k.destination.endswith("_Quantize")
                   and k.dest_pin == 0 and q.layer(k.source).type != "Parameter"}  # fmt: skip
    assert activations == {"Convolution", "ReLU", "MaxPooling", "Convolution_2", "MaxPooling_2",
                           "Tanh_2", "Affine", "ReLU_2"}  # fmt: skip
    assert [k.source for k in q.inputs_of("Softmax")] == ["Affine_2"]
    # Parameter chains keep the float network's parameter names.
    for layer in PARAMETRIC:
        scope = "conv" if layer.startswith("Conv") else "affine"
        for pin, p in ((1, "W"), (2, "b")):
            (link,) = [k for k in q.inputs_of(layer) if k.dest_pin == pin]
            assert link.source == f"{layer}_{p}_Quantize"
            assert q.inputs_of(link.source)[0].source == f"{layer}/{scope}/{p}"
    # Unsigned after ReLU and after max-pooling of a ReLU, signed elsewhere.
    signs = {n: q.layer(n + "_Quantize").properties["Sign"] for n in activations}
    assert {n for n, s in signs.items() if s == "False"} == {"ReLU", "MaxPooling", "ReLU_2"}
    program = compile_network(project, "Main_q8Runtime")
    names = [d.name for d in program.parameters]
    assert names == [d.name for d in compile_network(project, "MainRuntime").parameters]


def test_inserting_twice_does_not_stack_and_stripping_gives_back_the_network():
    project = load_project(LENET)
    once = _shape(insert_quantizers(project, "Main", Scheme(bits=8, delta=0.0625)))
    again = insert_quantizers(project, "Main_q8", Scheme(bits=8, delta=0.0625))
    assert project.network_names == ("Main", "Main_q8")
    assert _shape(again) == once
    assert strip_quantizers(again, "Main") == project.network("Main")
    other = insert_quantizers(project, "Main_q8", Scheme(bits=4, delta=0.125))
    assert other.name == "Main_q4" and len(other.layers) == len(again.layers)
    assert {x.properties["N"] for x in other.layers if x.type == "FixedPointQuantize"} == {"4"}


@pytest.mark.parametrize("suffix", [".sdcproj", ".ncproj"])
def test_the_quantized_network_round_trips_through_both_formats(tmp_path, suffix):
    project = load_project(LENET)
    insert_quantizers(project, "Main", Scheme(bits=6, delta=0.03125))
    path = tmp_path / f"q{suffix}"
    save_project(project, path)
    back = load_project(path)
    assert _shape(back.network("Main_q6")) == _shape(project.network("Main_q6"))
    # An independent reader sees the layers NNC reads.
    if suffix == ".sdcproj":
        ini = configparser.ConfigParser(interpolation=None, strict=False)
        ini.optionxform = str
        ini.read(path, encoding="utf-8-sig")
        layers = {}  # name -> (type, properties) of each [Main_q6_Layer_<i>]
        for name, section in ini.items():
            if name.startswith("Main_q6_Layer_"):
                props = {section[f"Property_{i}_Name"]: section[f"Property_{i}_Value"]
                         for i in range(int(section["NumProperty"]))}  # fmt: skip
                layers[props.pop("Name")] = (section["Type"], props)
        assert layers["Affine/affine/W"] == ("Parameter", {
            "Size": "480,150", "File": "", "Initializer": "NormalAffineGlorot",
            "InitializerMultiplier": "1", "LRateMultiplier": "1.0"})  # fmt: skip
        assert layers["ReLU_Quantize"] == ("FixedPointQuantize", {
            "Sign": "False", "N": "6", "Delta": "0.03125", "STEFineGrained": "True"})  # fmt: skip
        assert sum(t == "FixedPointQuantize" for t, _ in layers.values()) == 16
    else:
        data = json.loads(path.read_text(encoding="utf-8"))
        (net,) = [n for n in data["networks"] if n["name"] == "Main_q6"]
        fixed = [x for x in net["layers"] if x["type"] == "FixedPointQuantize"]
        assert len(fixed) == 16 and {x["properties"]["N"] for x in fixed} == {"6"}
    inference = ProjectInference(back)
    assert not inference.network("Main_q6").errors()
    assert inference.network("Main_q6").shape("Affine_2") == (10,)


def test_calibrated_delta_is_the_smallest_power_of_two_covering_the_range():
    assert power_of_two_delta(5.3, 8, True) == 2.0**-4  # 127 x 1/16 = 7.9 >= 5.3 > 127/32
    assert power_of_two_delta(5.3, 8, False) == 2.0**-5  # 255 x 1/32 = 7.97 >= 5.3
    assert power_of_two_delta(0.3, 2, True) == 0.5  # one level each side
    project = load_project(LENET)
    ranges = Ranges(activations={"ReLU": 3.0}, parameters={"Affine/affine/W": 0.2})
    q = insert_quantizers(project, "Main", Scheme(bits=4, delta=1.0), ranges)
    assert q.layer("ReLU_Quantize").properties["Delta"] == "0.25"  # 15 x 0.25 >= 3 > 15/8
    assert q.layer("Affine_W_Quantize").properties["Delta"] == "0.03125"  # 7 x 1/32 >= 0.2
    assert q.layer("Affine_b_Quantize").properties["Delta"] == "1.0"  # no range: the given one


def test_parameter_bytes_count_each_quantized_parameter_at_its_width():
    project = load_project(LENET)
    scheme = Scheme(bits=4, delta=0.1, targets=frozenset({"weights"}))
    q = insert_quantizers(project, "Main", scheme)
    assert stored_bits(q) == {"Convolution/conv/W": 4, "Convolution_2/conv/W": 4,
                              "Affine/affine/W": 4, "Affine_2/affine/W": 4}  # fmt: skip
    weights = 16 * 49 + 30 * 16 * 9 + 480 * 150 + 150 * 10  # 78,604 at 4 bits
    biases = 16 + 30 + 150 + 10  # float32
    inference = ProjectInference(project)
    assert network_statistics(inference.network("Main_q4")).summary()["ParameterBytes"] == (
        weights // 2 + 4 * biases)  # 40,126  # fmt: skip
    assert network_statistics(inference.network("Main")).parameter_bytes == 4 * (weights + biases)
    inference.close()


@pytest.mark.parametrize(
    ("scheme", "message"),
    [
        (dict(bits=0), "bits: expected an integer in 1..32. Received: 0"),
        (dict(bits=33), "bits: expected an integer in 1..32. Received: 33"),
        (dict(delta=0.0), "delta: expected a number > 0. Received: 0.0"),
        (dict(targets=frozenset({"weights", "kernels"})), "unknown target 'kernels'"),
        (dict(skip=("Conv",)), 'skip: network "Main" has no layer "Conv"'),
        (dict(bits=1, delta=0.5), 'layer "Convolution", output: a signed FixedPointQuantize'),
    ],
)
def test_bad_schemes_are_one_line_errors_and_change_nothing(scheme, message):
    project = load_project(LENET)
    with pytest.raises(QuantizationError) as info:
        insert_quantizers(project, "Main", Scheme(**scheme))
    assert message in str(info.value) and "\n" not in str(info.value)
    assert project.network_names == ("Main",)


def test_no_delta_and_no_calibration_is_refused():
    with pytest.raises(QuantizationError, match="no Delta"):
        insert_quantizers(load_project(LENET), "Main", Scheme())


# -- numbers ----------------------------------------------------------------------------------


def _q(x, n, delta, sign=True):
    return F.fixed_point_quantize(x, sign=sign, n=n, delta=delta)


def test_quantized_forward_equals_quantizing_each_activation_and_parameter_by_hand():
    project = load_project(LENET)
    n, delta = 5, 0.0625
    insert_quantizers(project, "Main", Scheme(bits=n, delta=delta))
    program = compile_network(project, "Main_q5Runtime")
    rng = np.random.default_rng(0)
    nn.clear_parameters()
    params = program.create_parameters()
    for var in params.values():  # values that span the quantizer's range and beyond
        var.data[...] = rng.normal(0, 0.5, var.shape).astype(np.float32)
    x = rng.random((3, 1, 28, 28)).astype(np.float32)
    with nn.no_grad():
        got = program.output(program.forward({"x": x}, params), "y'").data

        def p(name):
            return _q(params[name], n, delta)

        h = _q(F.convolution(x, p("Convolution/conv/W"), p("Convolution/conv/b")), n, delta)
        h = _q(F.relu(h), n, delta, sign=False)
        h = _q(F.max_pooling(h, (2, 2)), n, delta, sign=False)
        h = F.convolution(h, p("Convolution_2/conv/W"), p("Convolution_2/conv/b"))
        h = _q(F.max_pooling(_q(h, n, delta), (2, 2)), n, delta)
        h = _q(F.tanh(h), n, delta)
        h = _q(F.affine(h, p("Affine/affine/W"), p("Affine/affine/b")), n, delta)
        h = _q(F.relu(h), n, delta, sign=False)
        h = F.softmax(F.affine(h, p("Affine_2/affine/W"), p("Affine_2/affine/b")))
    np.testing.assert_array_equal(got, h.data)
    float_program = compile_network(project, "MainRuntime")
    with nn.no_grad():
        plain = float_program.output(float_program.forward({"x": x}, params), "y'").data
    assert np.abs(plain - got).max() > 1e-3  # the quantizers do change the result


@pytest.mark.parametrize("fine", [True, False])
def test_straight_through_gradient_follows_nnabla(fine):
    """nnabla's fixed_point_quantize backward: with STEFineGrained the gradient is 1 inside
    [min, max] (the bounds included) and 0 outside; without it, 1 everywhere."""
    n, delta = 3, 0.25  # signed: max = (2^2 - 1) x 0.25 = 0.75
    x = nn.Variable(np.array([-2.0, -0.75, -0.3, 0.0, 0.4, 0.75, 0.76, 3.0], np.float32),
                    need_grad=True)  # fmt: skip
    y = F.fixed_point_quantize(x, sign=True, n=n, delta=delta, ste_fine_grained=fine)
    np.testing.assert_array_equal(y.data, [-0.75, -0.75, -0.25, 0, 0.5, 0.75, 0.75, 0.75])
    y.backward(np.arange(1, 9, dtype=np.float32))
    expected = np.arange(1, 9) * (np.array([0, 1, 1, 1, 1, 1, 0, 0]) if fine else 1)
    np.testing.assert_array_equal(x.grad, expected)


def test_training_gradient_reaches_the_float_parameter_through_its_quantizer():
    """The compiled parameter chain gives W the float network's gradient at the quantized
    weights where |W| is within range, and 0 where the quantizer clipped it."""
    project = load_project(LENET)
    n, delta = 4, 0.05
    scheme = Scheme(bits=n, delta=delta, targets=frozenset({"weights"}))
    insert_quantizers(project, "Main", scheme)
    rng = np.random.default_rng(1)
    batch = {"x": rng.random((4, 1, 28, 28), dtype=np.float32),
             "y": rng.integers(0, 10, (4, 1))}  # fmt: skip
    nn.clear_parameters()
    program = compile_network(project, "Main_q4")
    params = program.create_parameters()
    for var in params.values():
        var.data[...] = rng.normal(0, 0.3, var.shape).astype(np.float32)
    values = {k: v.data.copy() for k, v in params.items()}
    F.mean(program.loss_values(program.forward(batch, params))[0]).backward()
    got = {k: v.grad.copy() for k, v in params.items()}
    nn.clear_parameters()  # the float network at the quantized weights
    plain = compile_network(project, "Main")
    float_params = plain.create_parameters()
    for k, var in float_params.items():
        w = nn.Variable(values[k])
        var.data[...] = _q(w, n, delta).data if k.endswith("/W") else values[k]
    F.mean(plain.loss_values(plain.forward(batch, float_params))[0]).backward()
    for k, var in float_params.items():
        inside = np.abs(values[k]) <= (2 ** (n - 1) - 1) * delta
        expected = var.grad * inside if k.endswith("/W") else var.grad
        np.testing.assert_allclose(got[k], expected, rtol=1e-5, atol=1e-7, err_msg=k)
        if k.endswith("/W"):
            assert (~inside).any() and inside.any()


@pytest.mark.parametrize("quantizer", ["pow2", "min-max"])
def test_pow2_and_min_max_quantizers_take_their_range_from_calibration_and_run(quantizer):
    project = load_project(LENET)
    ranges = Ranges(activations={"Affine": 8.3, "ReLU_2": 8.3},
                    parameters={"Affine/affine/W": 0.2})  # fmt: skip
    scheme = Scheme(quantizer=quantizer, bits=5, delta=0.5, only=("Affine", "ReLU_2"))
    q = insert_quantizers(project, "Main", scheme, ranges)
    props = {n: q.layer(n).properties for n in ("Affine_Quantize", "ReLU_2_Quantize",
                                                  "Affine_W_Quantize")}  # fmt: skip
    if quantizer == "pow2":  # M: the largest exponent, ceil(log2 range), never below 0 (UInt)
        assert [props[n]["M"] for n in props] == ["4", "4", "0"]
        assert props["ReLU_2_Quantize"]["Sign"] == "False"
    else:  # the range [-r, R] (0 below after ReLU) over 2^N - 1 levels
        assert [(props[n]["r.InitializerMultiplier"], props[n]["R.InitializerMultiplier"])
                for n in props] == [("-8.3", "8.3"), ("0.0", "8.3"), ("-0.2", "0.2")]  # fmt: skip
        assert {p["L.InitializerMultiplier"] for p in props.values()} == {"31.0"}
    assert stored_bits(q) == {"Affine/affine/W": 5, "Affine/affine/b": 5}
    program = compile_network(project, "Main_q5Runtime")
    nn.clear_parameters()
    params = program.create_parameters()
    x = np.random.default_rng(0).random((2, 1, 28, 28), dtype=np.float32)
    with nn.no_grad():
        acts = program.forward({"x": x}, params)
    relu = acts["ReLU_2_Quantize"].data
    assert np.isfinite(relu).all() and len(np.unique(relu)) <= 2**5


def test_one_layer_at_a_time_quantizes_its_output_and_its_parameters_only():
    project = load_project(LENET)
    relu = insert_quantizers(project, "Main", Scheme(delta=0.5, only=("ReLU",)), name="R")
    assert [x.name for x in relu.layers if x.type == "FixedPointQuantize"] == ["ReLU_Quantize"]
    conv = insert_quantizers(project, "Main", Scheme(delta=0.5, only=("Convolution_2",)))
    assert sorted(x.name for x in conv.layers if x.type == "FixedPointQuantize") == [
        "Convolution_2_Quantize",
        "Convolution_2_W_Quantize",
        "Convolution_2_b_Quantize",
    ]


@pytest.mark.parametrize("targets", ["weights,biases,activations", "weights,biases", "weights"])
def test_layout_puts_quantizers_below_and_chains_above_their_layer_without_overlaps(targets):
    from engine.quantization import parse_targets

    project = load_project(LENET)
    q = insert_quantizers(project, "Main", Scheme(delta=0.5, targets=parse_targets(targets)))
    boxes = [(x.name, *x.position) for x in q.layers]
    for i, (a, ax, ay) in enumerate(boxes):
        for b, bx, by in boxes[i + 1 :]:
            assert abs(ax - bx) >= 240 or abs(ay - by) >= 48, (a, b)
    for layer in q.layers:
        x, y = layer.position
        if q.has_layer(layer.name + "_Quantize"):
            assert q.layer(layer.name + "_Quantize").position == (x, y + 48)
        if q.has_layer(layer.name + "_W_Quantize"):  # its Parameter over it: wires run down
            assert q.layer(layer.name + "_W_Quantize").position == (x + 336, y - 48)
            (w,) = [k.source for k in q.inputs_of(layer.name + "_W_Quantize")]
            assert q.layer(w).type == "Parameter" and q.layer(w).position == (x + 336, y - 96)
        if q.has_layer(layer.name + "_b_Quantize"):
            assert q.layer(layer.name + "_b_Quantize").position == (x + 672, y - 48)
    # The float layers keep their order from top to bottom.
    main = project.network("Main")
    order = sorted(main.layer_names, key=lambda n: main.layer(n).position[1])
    assert sorted(order, key=lambda n: q.layer(n).position[1]) == order


def test_a_shared_parameter_gets_one_chain_feeding_every_layer_that_shares_it():
    from engine.graph.project import Layer, Link, Network, Project

    layers = [Layer("Input", "Input", {"Size": "4", "Dataset": "x"}, (0, 0)),
              Layer("A", "Affine", {"OutShape": "4", "ParameterScope": "Shared"}, (0, 48)),
              Layer("B", "Affine", {"OutShape": "4", "ParameterScope": "Shared"}, (0, 96)),
              Layer("S", "SquaredError", {"T.Dataset": "y"}, (0, 144))]  # fmt: skip
    links = [Link("Input", "A"), Link("A", "B"), Link("B", "S")]
    project = Project([Network("Main", layers, links)])
    q = insert_quantizers(project, "Main", Scheme(delta=0.25))
    assert [x.name for x in q.layers if x.type == "Parameter"] == ["Shared/affine/W",
                                                                    "Shared/affine/b"]  # fmt: skip
    feeds = [(k.destination, k.dest_pin) for k in q.outputs_of("A_W_Quantize")]
    assert feeds == [("A", 1), ("B", 1)]
    program = compile_network(project, q.name)
    assert [d.name for d in program.parameters] == ["Shared/affine/W", "Shared/affine/b"]
    assert strip_quantizers(q, "Main") == project.network("Main")
    assert stored_bits(q) == {"Shared/affine/W": 8, "Shared/affine/b": 8}


@pytest.mark.slow
def test_every_nnc_sample_is_quantized_without_new_problems_or_refused_with_the_reason():
    samples = sorted((Path(__file__).parents[2] / "fixtures" / "nnc-samples").rglob("*.sdcproj"))
    assert len(samples) >= 60
    refused = []
    for path in samples:
        project = load_project(path)
        trained = [o.network for o in project.optimizers if project.has_network(o.network)]
        name = (trained or list(project.network_names))[0]  # a unit file has no optimizer
        inference = ProjectInference(project, follow=False)
        before = len(inference.network(name).errors())
        inference.close()
        try:
            q = insert_quantizers(project, name, Scheme(delta=0.125))
        except QuantizationError as exc:
            refused.append((path.name, str(exc)))
            continue
        inference = ProjectInference(project, follow=False)
        assert len(inference.network(q.name).errors()) <= before, path.name
        inference.close()
        assert strip_quantizers(q, name) == project.network(name), path.name
    # Only the LSTM sample, whose network has shape problems already (the built-in unit's
    # *UnitProperty outside the unit), is refused.
    assert [(n, "its shape is unknown" in m) for n, m in refused] == [("LSTM.sdcproj", True)]


def test_units_get_a_quantized_copy_per_call_and_quantizing_again_replaces_them():
    project = load_project(Path(__file__).parents[3] / "projects" / "residual_digits.ncproj")
    q = insert_quantizers(project, "Main", Scheme(bits=8, delta=0.0625))
    assert project.network_names == ("Main", "Main_q8", "Main_q8_Res1", "Main_q8_Res2",
                                     "ResidualBlock")  # fmt: skip
    calls = [q.layer(n).properties["Network"] for n in ("Res1", "Res2")]
    assert calls == ["Main_q8_Res1", "Main_q8_Res2"]
    program = compile_network(project, "Main_q8")
    inside = [s.name for s in program.steps if s.name.startswith("Res1/") and "Quantize" in s.name]
    assert inside == ["Res1/Convolution_W_Quantize", "Res1/Convolution_b_Quantize",
                      "Res1/Convolution_Quantize", "Res1/BatchNormalization_Quantize",
                      "Res1/ReLU_Quantize", "Res1/Convolution_2_W_Quantize",
                      "Res1/Convolution_2_b_Quantize", "Res1/Convolution_2_Quantize",
                      "Res1/BatchNormalization_2_Quantize", "Res1/Add2_Quantize"]  # fmt: skip
    # The float parameter names are kept (each call its own), so a trained job loads as it is.
    float_names = [d.name for d in compile_network(project, "Main").parameters]
    assert sorted(d.name for d in program.parameters) == sorted(float_names)
    once = [_shape(project.network(n)) for n in project.network_names]
    again = insert_quantizers(project, "Main_q8", Scheme(bits=8, delta=0.0625))
    assert [_shape(project.network(n)) for n in project.network_names] == once
    assert strip_quantizers(again, "Main") == project.network("Main")
    inference = ProjectInference(project, follow=False)
    stats = network_statistics(inference.network("Main_q8"))
    inference.close()
    assert stats.bits["Res2/Convolution_2/conv/W"] == 8  # the statistics count them quantized

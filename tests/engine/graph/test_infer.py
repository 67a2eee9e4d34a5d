"""Shape inference: per-layer shapes and statistics, graph macros, units, incremental edits."""

import glob
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from nnc_samples import SAMPLES_DIR

from engine.formats import load_project
from engine.graph.infer import NetworkInference
from engine.graph.inference_context import SharedLayers
from engine.graph.project import Layer, Link, Network, Project
from engine.graph.project_inference import ProjectInference

ROOT = str(Path(__file__).resolve().parents[3])

SAMPLES = str(SAMPLES_DIR)


def chain(name, *layers, links=()):
    """A network of ``(name, type, props)`` layers linked one after the other (plus ``links``)."""
    net = Network(name, [Layer(n, t, dict(p)) for n, t, p in layers])
    for (a, *_), (b, *_) in zip(layers, layers[1:], strict=False):
        if a is not None and b is not None:
            net.connect(Link(a, b))
    for link in links:
        net.connect(link)
    return net


def unlink(net, source, destination):
    net.disconnect(next(k for k in net.links if (k.source, k.destination) == (source, destination)))


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


def worked_project():
    project = Project.new()
    project.remove_network("Main")
    project.add_network(chain("Main", *WORKED))
    return project


def test_worked_example_shapes_and_totals():
    inference = NetworkInference(chain("Main", *WORKED))
    results = inference.results()
    assert results["MaxPooling_2"].shape == (64, 7, 7)
    assert results["Affine"].stats == (10, 31370, 10, 0, 31360, 0, 0, 0)
    assert results["CategoricalCrossEntropy"].shape == (1,)
    assert inference.totals() == (85477, 50186, 37652, 0, 3869824, 10, 10, 75264)
    assert inference.errors() == []


def test_incremental_edit_recomputes_only_downstream():
    project = worked_project()
    inference = ProjectInference(project).network("Main")
    inference.results()
    computed = []
    original = inference._compute
    inference._compute = lambda name: computed.append(name) or original(name)
    project.network("Main").set_property("Affine", "OutShape", "20")
    assert inference.result("Softmax").shape == (20,)
    inference.results()
    assert sorted(computed) == ["Affine", "CategoricalCrossEntropy", "Softmax"]
    computed.clear()
    project.network("Main").set_property("Affine", "OutShape", "20")  # no change: no event
    inference.results()
    assert computed == []


def test_links_and_layers_edits_follow_events():
    project = worked_project()
    pi = ProjectInference(project)
    net = project.network("Main")
    assert pi.network("Main").shape("Affine") == (10,)
    unlink(net, "MaxPooling_2", "Affine")
    error = pi.network("Main").result("Affine").error
    assert error == "nothing is linked into its input: draw a link into it from the layer above"
    assert pi.network("Main").result("Softmax").upstream
    net.connect(Link("ReLU_2", "Affine"))
    assert pi.network("Main").result("Affine").stats[1] == 64 * 14 * 14 * 10 + 10
    net.rename_layer("ReLU_2", "Act")
    assert pi.network("Main").shape("Act") == (64, 14, 14)
    net.remove_layer("Act")
    assert pi.network("Main").result("Affine").error
    pi.close()
    net.set_property("Input", "Size", "3,28,28")  # no longer followed
    assert pi.network("Main").shape("Input") == (1, 28, 28)


def test_parameter_layer_takes_its_shape_from_the_consumer():
    net = chain(
        "N",
        ("x", "Input", {"Size": "3,8,8"}),
        ("A", "Affine", {"OutShape": "5"}),
        ("P", "Parameter", {}),
        ("Q", "FixedPointQuantize", {}),
        links=(Link("P", "Q"), Link("Q", "A", dest_pin=1)),
    )
    unlink(net, "A", "P")
    inference = NetworkInference(net)
    assert inference.shape("P") == (192, 5)  # *GraphOutput through FixedPointQuantize's *GraphIO
    assert inference.shape("Q") == (192, 5)
    assert inference.result("P").stat("CostParameter") == 960
    assert inference.result("A").stat("CostParameter") == 5  # W comes from the Parameter layer


def test_cycle_and_unknown_type_are_errors_of_their_own():
    net = chain("N", ("x", "Input", {}), ("a", "ReLU", {}), ("b", "Tanh", {}), ("u", "Bogus", {}))
    net.connect(Link("b", "a"))
    inference = NetworkInference(net)
    errors = {r.name: r.error for r in inference.errors()}
    assert "the links form a cycle" in (errors.get("a") or errors.get("b"))
    assert errors["u"] == "unknown layer type 'Bogus'"


def test_recurrent_block_with_delay():
    net = chain(
        "N",
        ("x", "Input", {"Size": "5,3"}),
        ("RecurrentInput", "RecurrentInput", {}),
        ("Concatenate", "Concatenate", {}),
        ("Affine", "Affine", {"OutShape": "4"}),
        ("Tanh", "Tanh", {}),
        ("RecurrentOutput", "RecurrentOutput", {}),
        ("Delay", "Delay", {"Size": "4"}),
        links=(Link("Delay", "Concatenate"), Link("Tanh", "Delay")),
    )
    unlink(net, "RecurrentOutput", "Delay")
    inference = NetworkInference(net)
    assert inference.errors() == []
    assert inference.shape("Concatenate") == (7,)
    assert inference.eval("RecurrentOutput").value("Length") == 5
    assert inference.shape("RecurrentOutput") == (5, 4)


def test_repeat_times_and_auto_in_place():
    net = chain(
        "N",
        ("x", "Input", {"Size": "4,8,8"}),
        ("C", "Convolution", {"OutMaps": "4"}),
        ("R1", "ReLU", {}),
        ("R2", "ReLU", {}),
        ("R3", "ReLU", {}),
        ("S", "RepeatStart", {"Times": "n-1"}),
        ("E", "RepeatEnd", {}),
        ("Arg", "Argument", {"Value": "6", "Type": "PInt"}),
    )
    unlink(net, "E", "Arg")
    net.rename_layer("Arg", "n")
    inference = NetworkInference(net)
    assert inference.eval("E").value("Times") == 5
    assert inference.eval("E").value("ID") == "RepeatStart"  # the definition default
    # Conv -> ReLU -> ReLU -> ReLU gives True, False, True (observed, docs/layers.md §1.5).
    assert [inference.eval(r).value("InPlace") for r in ("R1", "R2", "R3")] == [True, False, True]


def test_units_with_arguments_and_nesting():
    se = chain(
        "SE",
        ("Input", "Input", {"Size": "256,56,56"}),  # a placeholder: the caller's input is used
        ("GAP", "GlobalAveragePooling", {}),
        ("Squeeze", "Convolution", {"OutMaps": "Input[0]/SqueezeRatio", "KernelShape": "1,1"}),
        ("Expand", "Convolution", {"OutMaps": "*Maps", "KernelShape": "1,1"}),
        ("SqueezeRatio", "Argument", {"Value": "4", "Type": "PInt"}),
        ("Maps", "Argument", {"Value": "8", "Type": "PInt"}),
    )
    unlink(se, "Expand", "SqueezeRatio")
    unlink(se, "SqueezeRatio", "Maps")
    block = chain(
        "Block",
        ("Input", "Input", {}),
        ("SE1", "Unit", {"Network": "SE", "Maps": "Input[0]*BlockMaps"}),
        ("BlockMaps", "Argument", {"Value": "1", "Type": "PInt"}),
    )
    unlink(block, "SE1", "BlockMaps")
    main = chain(
        "Main",
        ("x", "Input", {"Size": "16,8,8"}),
        ("B", "Unit", {"Network": "Block", "BlockMaps": "2"}),
        ("Affine", "Affine", {"OutShape": "3"}),
    )
    project = Project([main, block, se])
    pi = ProjectInference(project)
    result = pi.network("Main").result("B")
    assert result.shape == (32, 1, 1)  # Maps = 16 * 2
    # Costs of the expansion: Squeeze 16->4 and Expand 4->32 (1x1 convolutions on 1x1).
    assert result.stat("CostParameter") == (16 * 4 + 4) + (4 * 32 + 32)
    assert result.stat("Output") == 32  # a Unit layer counts only its own output
    assert pi.network("Main").shape("Affine") == (3,)
    project.network("SE").set_property("SqueezeRatio", "Value", "8")
    assert pi.network("Main").result("B").stat("CostParameter") == (16 * 2 + 2) + (2 * 32 + 32)
    project.network("Main").set_property("B", "BlockMaps", "3")
    assert pi.network("Main").shape("B") == (48, 1, 1)


def test_unit_errors_name_the_problem():
    loop_a = chain("A", ("Input", "Input", {}), ("U", "Unit", {"Network": "B"}))
    loop_b = chain("B", ("Input", "Input", {}), ("U", "Unit", {"Network": "A"}))
    main = chain("Main", ("x", "Input", {}), ("U", "Unit", {"Network": "A"}), ("V", "Unit", {}))
    pi = ProjectInference(Project([main, loop_a, loop_b]))
    errors = {r.name: r.error for r in pi.network("Main").errors()}
    assert "unit recursion: Main -> A -> B -> A" in errors["U"]
    assert 'unit network "" does not exist' in errors["V"]


def test_boolean_or_macro_argument_reaches_batch_normalization():
    model = chain(
        "Model",
        ("Input", "Input", {}),
        ("BN", "BatchNormalization", {"BatchStat": "*BS"}),
        ("BS", "Argument", {"Value": "True", "Type": "BooleanOrMacro"}),
    )
    unlink(model, "BN", "BS")
    main = chain(
        "Main",
        ("x", "Input", {"Size": "3,4,4"}),
        ("M", "Unit", {"Network": "Model", "BS": "False"}),
    )
    pi = ProjectInference(Project([main, model]))
    sub = pi.network("Main").expansion("M")
    assert sub.eval("BN").value("BatchStat") is False
    assert pi.network("Model").eval("BN").value("BatchStat") is True


def test_lenet_sample():
    project = load_project(os.path.join(SAMPLES, "image_recognition/MNIST/LeNet.sdcproj"))
    inference = ProjectInference(project).network("Main")
    assert inference.errors() == []
    assert inference.shape("MaxPooling_2") == (30, 4, 4)
    assert inference.totals()[4] == 802876


# Sony's samples that give a precise, expected error: the LSTM unit network on its own.
EXPECTED_ERRORS = {"units/LSTM.sdcproj": "*UnitProperty(Size) is empty here"}


def test_every_sample_infers_shapes():
    files = sorted(glob.glob(os.path.join(SAMPLES, "**/*.sdcproj"), recursive=True))
    assert len(files) == 63
    for path in files:
        relative = os.path.relpath(path, SAMPLES)
        pi = ProjectInference(load_project(path), follow=False)
        errors = [r for inf in pi.all().values() for r in inf.errors()]
        if relative in EXPECTED_ERRORS:
            assert errors and all(EXPECTED_ERRORS[relative] in r.error for r in errors), relative
        else:
            assert errors == [], (relative, errors[:3])


@pytest.mark.parametrize("size", ["3,0", "abc", ""])
def test_bad_input_size_is_an_error_not_a_crash(size):
    inference = NetworkInference(chain("N", ("x", "Input", {"Size": size}), ("r", "ReLU", {})))
    assert inference.result("x").error.startswith("property Size:")
    assert inference.result("r").upstream


# -- random graphs: inference, statistics and validation never crash ---------------------------

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from engine.graph.statistics import network_statistics  # noqa: E402
from engine.graph.validate import validate_network  # noqa: E402
from engine.layers import all_specs  # noqa: E402

TYPES = [s.type for s in all_specs()] + ["Bogus"]
VALUES = [
    "3,3", "0", "-1", "2", "1,1,1", "*Input", "*KernelShape", "Input[0]", "Input[9]/0", "abc", "",
    "1e9", "(", "*Calc +*Input", "True", "same", "*Nope", "0,r", "4,4,4,4",
]  # fmt: skip


@st.composite
def graphs(draw):
    n = draw(st.integers(1, 7))
    layers = []
    for i in range(n):
        type_ = draw(st.sampled_from(TYPES))
        spec = next((s for s in all_specs() if s.type == type_), None)
        names = [p.name for p in spec.properties] if spec else ["Size"]
        props = draw(st.dictionaries(st.sampled_from(names), st.sampled_from(VALUES), max_size=3))
        layers.append(Layer(f"L{i}", type_, props))
    net = Network("N", layers)
    for _ in range(draw(st.integers(0, 2 * n))):
        a, b = draw(st.integers(0, n - 1)), draw(st.integers(0, n - 1))
        net.connect(Link(f"L{a}", f"L{b}", draw(st.integers(0, 3))))
    return net


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(graphs())
def test_random_graphs_never_crash(net):
    inference = NetworkInference(net, Project([net]))
    for result in inference.results().values():
        assert (result.shape is None) == (result.stats is None) or result.error is None
        assert result.error is None or isinstance(result.error, str)
    stats = network_statistics(inference)
    assert all(v >= 0 for v in stats.totals.values())
    for problem in validate_network(inference):
        assert str(problem).startswith('network "N"')


def test_a_cycle_through_a_repeat_end_is_bounded():
    """A randomly seeded run of the test above found this: a RepeatEnd on a cycle made the
    search for its RepeatStart deepen forever (inference grew to 12 GB). Run in a child capped
    at 1 GB, so the old behaviour fails this test instead of the machine."""
    code = textwrap.dedent("""
        import resource
        resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))
        from engine.graph.infer import NetworkInference
        from engine.graph.project import Layer, Link, Network, Project
        from engine.graph.statistics import network_statistics
        from engine.graph.validate import validate_network
        net = Network("N", [Layer("x", "Input", {"Size": "1,4"}), Layer("e", "RepeatEnd", {}),
                            Layer("r", "ReLU", {})])
        for a, b in (("x", "e"), ("e", "r"), ("r", "e")):
            net.connect(Link(a, b, 0))
        inference = NetworkInference(net, Project([net]))
        network_statistics(inference)
        print(sorted(str(p) for p in validate_network(inference))[:1])
    """)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120, env={**os.environ, "PYTHONPATH": ROOT})  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.startswith("['network")  # the validation problems came out


# -- incremental edits give what a fresh inference gives ---------------------------------------

EDITED_SAMPLES = (
    "image_recognition/ILSVRC2012/densenet/densenet-161.sdcproj",
    "image_recognition/CIFAR10/resnet/resnet-110-cutout.sdcproj",
    "image_recognition/ILSVRC2012/shufflenet/shufflenet-0.5x.sdcproj",
    "tutorial/semantic_segmentation/unetlike_125px.sdcproj",
    "tutorial/recurrent_neural_networks/LSTM_auto_encoder.sdcproj",
    "tutorial/recurrent_neural_networks/elman_net.sdcproj",
    "tutorial/basics/12_residual_learning.sdcproj",
)


def everything_of(pi):
    """Every result a reader can see: layers, statistics, problems, and inside every expansion."""
    from engine.graph.statistics import network_statistics

    def walk(inf, path, out):
        results = inf.results()
        out[path] = (results, inf.totals(), network_statistics(inf))
        out[path + ("problems",)] = {
            k: [str(p) for p in v] for k, v in inf.unit_argument_problems().items()
        }
        for name, result in results.items():
            sub = inf.expansion(name) if result.type == "Unit" else None
            if sub is not None:
                walk(sub, (*path, name), out)
        return out

    return {n: walk(inf, (n,), {}) for n, inf in pi.all().items()}


def sample_edits(project):
    """(network, layer, property, values) for the first sized layer of every network."""
    edits = []
    for net in project.networks:
        for layer in net.layers:
            key = next((k for k in ("OutMaps", "OutShape", "Size") if k in layer.properties), None)
            if key and layer.type != "Input":
                value = layer.properties[key]
                edits.append((net.name, layer.name, key, ("7", "0", "x", value)))
                break
    return edits


@pytest.mark.parametrize("relative", EDITED_SAMPLES)
def test_incremental_edits_equal_a_fresh_inference(relative):
    project = load_project(os.path.join(SAMPLES, relative))
    pi = ProjectInference(project)
    everything_of(pi)
    edits = sample_edits(project)
    assert edits
    for network, layer, key, values in edits:
        for value in values:
            project.network(network).set_property(layer, key, value)
            fresh = everything_of(ProjectInference(project, follow=False))
            assert everything_of(pi) == fresh, (network, layer, key, value)
    net = next(n for n in project.networks if n.links)
    link = net.links[len(net.links) // 2]
    net.disconnect(link)
    assert everything_of(pi) == everything_of(ProjectInference(project, follow=False))
    net.connect(link)
    assert everything_of(pi) == everything_of(ProjectInference(project, follow=False))
    pi.close()


def test_unit_edit_that_changes_the_unit_output_reaches_the_callers():
    path = "image_recognition/ILSVRC2012/densenet/densenet-161.sdcproj"
    project = load_project(os.path.join(SAMPLES, path))
    pi = ProjectInference(project)
    before = pi.network("DenseNet").shape("ConvUnit_6")
    project.network("ConvUnit").set_property("Convolution_3", "OutMaps", "50")
    assert pi.network("DenseNet").shape("ConvUnit_6") == (before[0] + 6 * 2, *before[1:])
    assert everything_of(pi) == everything_of(ProjectInference(project, follow=False))


def test_expansions_share_layers_fed_alike_and_keep_their_own_evaluators():
    unit = chain(
        "U",
        ("Input", "Input", {"Size": "1"}),
        ("Affine", "Affine", {"OutShape": "4"}),
        ("Tanh", "Tanh", {}),
        ("Scale", "MulScalar", {"Value": "*K"}),
        ("K", "Argument", {"Value": "2", "Type": "Float"}),
    )
    unlink(unit, "Scale", "K")
    main = chain(
        "Main",
        ("x", "Input", {"Size": "3"}),
        ("U1", "Unit", {"Network": "U"}),  # input 3: Affine differs, Tanh is fed (4,) as in U2
        ("U2", "Unit", {"Network": "U"}),
        ("U3", "Unit", {"Network": "U", "K": "1"}),  # the same inputs, another argument
    )
    project = Project([main, unit])
    pi = ProjectInference(project)
    main_inf = pi.network("Main")
    subs = [main_inf.expansion(n) for n in ("U1", "U2", "U3")]
    assert [s.shape("Tanh") for s in subs] == [(4,), (4,), (4,)]
    assert subs[0].result("Tanh") is subs[1].result("Tanh")  # computed once
    assert subs[1].eval("Tanh").context.inference is subs[1]
    assert subs[1].eval("Scale").value("Value") == 2.0
    assert subs[2].eval("Scale").value("Value") == 1.0
    project.network("U").set_property("Affine", "OutShape", "5")
    assert [s.shape("Scale") for s in subs[:2]] == [(5,), (5,)]
    assert main_inf.shape("U3") == (5,)
    assert everything_of(pi) == everything_of(ProjectInference(project, follow=False))


def test_sharing_layers_between_expansions_changes_no_result(monkeypatch):
    """Every sample with units: the same results, statistics and parameters as without."""
    paths = [p for p in sorted(glob.glob(os.path.join(SAMPLES, "**/*.sdcproj"), recursive=True))
             if "Type=Unit" in open(p, encoding="utf-8", errors="replace").read()]  # fmt: skip
    assert len(paths) >= 15
    shared = {p: everything_of(ProjectInference(load_project(p), follow=False)) for p in paths}
    monkeypatch.setattr(SharedLayers, "get", lambda self, key, arguments: None)
    for path in paths:
        alone = everything_of(ProjectInference(load_project(path), follow=False))
        assert shared[path] == alone, os.path.relpath(path, SAMPLES)


def test_parameter_names_follow_each_expansions_arguments():
    from engine.graph.statistics import network_statistics

    unit = chain(
        "U",
        ("Input", "Input", {"Size": "1"}),
        ("Affine", "Affine", {"OutShape": "4", "ParameterScope": "*Scope"}),
        ("Scope", "Argument", {"Value": "a", "Type": "Text"}),
    )
    unlink(unit, "Affine", "Scope")
    main = chain(
        "Main",
        ("x", "Input", {"Size": "3"}),
        ("U1", "Unit", {"Network": "U", "ParameterScope": "", "Scope": "s1"}),
        ("U2", "Unit", {"Network": "U", "ParameterScope": "", "Scope": "s2"}),
        links=[Link("x", "U2")],
    )
    unlink(main, "U1", "U2")
    pi = ProjectInference(Project([main, unit]))
    stats = network_statistics(pi.network("Main"))
    assert sorted(stats.parameters) == ["s1/affine/W", "s1/affine/b", "s2/affine/W", "s2/affine/b"]
    assert stats.unique_parameters == 2 * (3 * 4 + 4)


def test_unit_edits_with_expansions_evicted_from_a_small_cache():
    path = "image_recognition/ILSVRC2012/densenet/densenet-161.sdcproj"
    project = load_project(os.path.join(SAMPLES, path))
    pi = ProjectInference(project)
    pi.units.limit = 3  # callers keep expansions that the cache no longer follows
    everything_of(pi)
    for value in ("40", "x", "48"):
        project.network("ConvUnit").set_property("Convolution_2", "OutMaps", value)
        assert everything_of(pi) == everything_of(ProjectInference(project, follow=False)), value

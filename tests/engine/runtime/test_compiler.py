"""The compiler against hand-written F code, NNC's parameter names, units, test mode, errors."""

from __future__ import annotations

import numpy as np
import pytest
from nnc_samples import LENET, SAMPLES_DIR

import engine.nn as nn
import engine.nn.functions as F
from engine.formats import load_project
from engine.graph.project import Link
from engine.runtime.compiler import CompileError, compile_network


def _run(program, batch):
    params = program.create_parameters()
    return program.forward(batch, params), params


def test_mlp_matches_hand_written_f_code(kit):
    program = compile_network(kit.mlp_project("", ""), "Main")
    assert [s.name for s in program.steps] == [
        "Affine", "ReLU", "Affine_2", "Softmax", "CategoricalCrossEntropy"]  # fmt: skip
    assert [(p.name, p.shape, p.initializer, p.multiplier) for p in program.parameters] == [
        ("Affine/affine/W", (4, 8), "NormalAffineGlorot", 1.0),
        ("Affine/affine/b", (8,), "Constant", 0.0),
        ("Affine_2/affine/W", (8, 3), "NormalAffineGlorot", 1.0),
        ("Affine_2/affine/b", (3,), "Constant", 0.0),
    ]
    assert program.losses == ("CategoricalCrossEntropy",)
    x = np.random.default_rng(1).random((5, 4), dtype=np.float32)
    y = np.array([[0], [1], [2], [1], [0]], np.float32)
    acts, p = _run(program, {"x": x, "y": y})
    h = F.relu(F.affine(nn.Variable(x), p["Affine/affine/W"], p["Affine/affine/b"]))
    prob = F.softmax(F.affine(h, p["Affine_2/affine/W"], p["Affine_2/affine/b"]), axis=1)
    loss = F.categorical_cross_entropy(prob, nn.Variable(y), axis=1)
    np.testing.assert_array_equal(acts["Softmax"].data, prob.data)
    np.testing.assert_array_equal(acts["CategoricalCrossEntropy"].data, loss.data)
    assert np.all(p["Affine/affine/b"].data == 0) and p["Affine/affine/W"].data.std() > 0


def test_convolution_padding_macro_and_axis_shift(kit):
    layers = [
        kit.layer("Input", "Input", Size=(2, 5, 5), Dataset="x"),
        kit.layer("Convolution", "Convolution", OutMaps=3, KernelShape=(3, 3), BorderMode="same"),
        kit.layer("MaxPooling", "MaxPooling", KernelShape=(2, 2)),
        kit.layer("Softmax", "Softmax", Axis=0),
    ]
    project = kit.make_project([kit.network("Main", layers, kit.chain(*[x.name for x in layers]))])
    program = compile_network(project, "Main")
    conv, pool, softmax = program.steps
    assert conv.kwargs["pad"] == (1, 1) and conv.kwargs["base_axis"] == 1
    assert pool.kwargs["kernel"] == (2, 2) and pool.kwargs["stride"] == (2, 2)
    assert softmax.kwargs == {"axis": 1}  # NNC's axis 0 is the first axis after the batch
    x = np.random.default_rng(2).random((2, 2, 5, 5), dtype=np.float32)
    acts, p = _run(program, {"x": x})
    ref = F.convolution(nn.Variable(x), p["Convolution/conv/W"], p["Convolution/conv/b"],
                        pad=(1, 1))  # fmt: skip
    ref = F.softmax(F.max_pooling(ref, (2, 2), (2, 2)), axis=1)
    assert acts["Softmax"].shape == (2, 3, 2, 2) == (2, *softmax.shape)
    np.testing.assert_array_equal(acts["Softmax"].data, ref.data)


def _block(kit, name="Block", maps="*Maps"):
    """A unit: Input -> Convolution(OutMaps=*Maps, 3x3 same) -> ReLU, argument Maps (PInt)."""
    layers = [
        kit.layer("Maps", "Argument", Value=4, Type="PInt"),
        kit.layer("Input", "Input", Size=(4, 6, 6)),
        kit.layer(
            "Convolution", "Convolution", OutMaps=maps, KernelShape=(3, 3), BorderMode="same"
        ),  # fmt: skip
        kit.layer("ReLU", "ReLU"),
    ]
    return kit.network(name, layers, kit.chain("Input", "Convolution", "ReLU"))


def test_units_arguments_names_and_sharing(kit):
    main = kit.network("Main", [
        kit.layer("Input", "Input", Size=(3, 6, 6), Dataset="x"),
        kit.layer("B1", "Unit", Network="Block", Maps=3),
        kit.layer("B2", "Unit", Network="Block", Maps=3, ParameterScope="B1"),  # shares B1's
        kit.layer("B3", "Unit", Network="Block", Maps=5),
        kit.layer("Plain", "Unit", Network="Block", Maps=2, ParameterScope=""),
    ], kit.chain("Input", "B1", "B2", "B3", "Plain"))  # fmt: skip
    project = kit.make_project([main, _block(kit)])
    program = compile_network(project, "Main")
    names = [p.name for p in program.parameters]
    assert names == [
        "B1/Convolution/conv/W", "B1/Convolution/conv/b", "B3/Convolution/conv/W",
        "B3/Convolution/conv/b", "Convolution/conv/W", "Convolution/conv/b",
    ]  # fmt: skip
    shapes = {p.name: p.shape for p in program.parameters}
    assert shapes["B1/Convolution/conv/W"] == (3, 3, 3, 3)  # OutMaps=*Maps bound to 3
    assert shapes["B3/Convolution/conv/W"] == (5, 3, 3, 3)
    assert shapes["Convolution/conv/W"] == (2, 5, 3, 3)  # empty ParameterScope adds nothing
    steps = {s.name: s for s in program.steps}
    assert ("param", "B1/Convolution/conv/W") in steps["B2/Convolution"].inputs
    x = np.random.default_rng(3).random((2, 3, 6, 6), dtype=np.float32)
    acts, p = _run(program, {"x": x})

    def block(h, scope):
        w, b = p[f"{scope}/conv/W"], p[f"{scope}/conv/b"]
        return F.relu(F.convolution(h, w, b, pad=(1, 1)))

    h = block(block(nn.Variable(x), "B1/Convolution"), "B1/Convolution")
    h = block(block(h, "B3/Convolution"), "Convolution")
    np.testing.assert_array_equal(acts["Plain/ReLU"].data, h.data)


def test_nested_units_name_by_call_path(kit):
    outer = kit.network("Outer", [
        kit.layer("Input", "Input", Size=(2, 6, 6)),
        kit.layer("Inner", "Unit", Network="Block", Maps=2),
    ], kit.chain("Input", "Inner"))  # fmt: skip
    main = kit.network("Main", [
        kit.layer("Input", "Input", Size=(2, 6, 6), Dataset="x"),
        kit.layer("M", "Unit", Network="Outer", ParameterScope=""),
        kit.layer("N", "Unit", Network="Outer"),
    ], kit.chain("Input", "M", "N"))  # fmt: skip
    program = compile_network(kit.make_project([main, outer, _block(kit)]), "Main")
    assert [s.name for s in program.steps] == [
        "M/Inner/Convolution", "M/Inner/ReLU", "N/Inner/Convolution", "N/Inner/ReLU"]  # fmt: skip
    assert [p.name for p in program.parameters][::2] == [
        "Inner/Convolution/conv/W", "N/Inner/Convolution/conv/W"]  # fmt: skip


def test_unit_parameter_overrides_and_frozen_parameters(kit):
    main = kit.network("Main", [
        kit.layer("Input", "Input", Size=(2, 6, 6), Dataset="x"),
        kit.layer("B1", "Unit", Network="Block", Maps=3,
                  **{"Convolution.W.LRateMultiplier": 0, "Convolution.W.InitializerMultiplier": 2}),
        kit.layer("Affine", "Affine", OutShape=2, W__LRateMultiplier=0),
    ], kit.chain("Input", "B1", "Affine"))  # fmt: skip
    program = compile_network(kit.make_project([main, _block(kit)]), "Main")
    decls = {p.name: p for p in program.parameters}
    assert decls["B1/Convolution/conv/W"].lr_multiplier == 0.0
    assert decls["B1/Convolution/conv/W"].multiplier == 2.0
    params = program.create_parameters()
    assert not params["Affine/affine/W"].need_grad and params["Affine/affine/b"].need_grad
    assert set(program.trainable(params)) == {"B1/Convolution/conv/b", "Affine/affine/b"}


def _bn_dropout_project(kit):
    layers = [
        kit.layer("Input", "Input", Size=(4,), Dataset="x"),
        kit.layer("Affine", "Affine", OutShape=6),
        kit.layer("BatchNormalization", "BatchNormalization", Axes=0),
        kit.layer("Dropout", "Dropout", P=0.5),
        kit.layer("Affine_2", "Affine", OutShape=3),
        kit.layer("Softmax", "Softmax"),
        kit.layer("CategoricalCrossEntropy", "CategoricalCrossEntropy"),
    ]
    return kit.make_project([kit.network("Main", layers, kit.chain(*[x.name for x in layers]))])


def test_validation_and_runtime_are_test_mode(kit):
    project = _bn_dropout_project(kit)
    train = compile_network(project, "Main")
    valid = compile_network(project, "MainValidation")
    runtime = compile_network(project, "MainRuntime")
    assert "Dropout" in [s.type for s in train.steps]
    assert "Dropout" not in [s.type for s in valid.steps]
    train_bn = next(s for s in train.steps if s.type == "BatchNormalization")
    valid_bn = next(s for s in valid.steps if s.type == "BatchNormalization")
    assert train_bn.kwargs["batch_stat"] is True and valid_bn.kwargs["batch_stat"] is False
    assert train_bn.kwargs["axes"] == (1,)
    assert valid.losses == ("CategoricalCrossEntropy",) and runtime.losses == ()
    assert [name for name, _ in runtime.outputs] == ["y'"] and runtime.feeds == {"x": (4,)}
    names = [p.name for p in train.parameters]
    assert names == [p.name for p in runtime.parameters]  # the same parameters, by name
    assert "BatchNormalization/bn/mean" in names
    x = np.random.default_rng(4).random((3, 4), dtype=np.float32)
    params = train.create_parameters()
    with nn.no_grad():
        acts = runtime.forward({"x": x}, params)
    probs = runtime.output(acts, "y'").data
    np.testing.assert_allclose(probs.sum(axis=1), 1.0, rtol=1e-6)


def test_dropout_inside_a_unit_is_bypassed_in_validation(kit):
    unit = kit.network("Drop", [
        kit.layer("Input", "Input", Size=(4,)),
        kit.layer("Dropout", "Dropout"),
        kit.layer("Affine", "Affine", OutShape=4),
    ], kit.chain("Input", "Dropout", "Affine"))  # fmt: skip
    main = kit.network("Main", [
        kit.layer("Input", "Input", Size=(4,), Dataset="x"),
        kit.layer("U", "Unit", Network="Drop"),
        kit.layer("SquaredError", "SquaredError", T__Dataset="x"),
    ], kit.chain("Input", "U", "SquaredError"))  # fmt: skip
    project = kit.make_project([main, unit])
    assert [s.name for s in compile_network(project, "Main").steps] == [
        "U/Dropout", "U/Affine", "SquaredError"]  # fmt: skip
    assert [s.name for s in compile_network(project, "MainValidation").steps] == [
        "U/Affine", "SquaredError"]  # fmt: skip


def test_lenet_sample_forward_shapes():
    project = load_project(LENET)
    program = compile_network(project, "MainRuntime")
    assert [p.name for p in program.parameters] == [
        "Convolution/conv/W", "Convolution/conv/b", "Convolution_2/conv/W",
        "Convolution_2/conv/b", "Affine/affine/W", "Affine/affine/b", "Affine_2/affine/W",
        "Affine_2/affine/b",
    ]  # fmt: skip
    x = np.random.default_rng(5).random((2, 1, 28, 28), dtype=np.float32)
    acts, _ = _run(program, {"x": x})
    for step in program.steps:
        assert acts[step.name].shape == (2, *step.shape), step.name
    assert [(s.name, s.shape) for s in program.steps][:3] == [
        ("Convolution", (16, 22, 22)),
        ("ReLU", (16, 22, 22)),
        ("MaxPooling", (16, 11, 11)),
    ]
    assert program.output(acts, "y'").shape == (2, 10)


def test_hidden_alpha_of_binary_weight_layers(kit):
    layers = [
        kit.layer("Input", "Input", Size=(6,), Dataset="x"),
        kit.layer("BinaryWeightAffine", "BinaryWeightAffine", OutShape=3),
    ]
    program = compile_network(
        kit.make_project([kit.network("Main", layers, kit.chain("Input", "BinaryWeightAffine"))]),
        "Main",
    )
    decls = {p.name: p for p in program.parameters}
    assert list(decls) == ["BinaryWeightAffine/bwn_affine/W", "BinaryWeightAffine/bwn_affine/Wb",
                           "BinaryWeightAffine/bwn_affine/alpha",
                           "BinaryWeightAffine/bwn_affine/b"]  # fmt: skip
    assert decls["BinaryWeightAffine/bwn_affine/alpha"].shape == (3,)
    x = np.random.default_rng(6).random((2, 6), dtype=np.float32)
    acts, p = _run(program, {"x": x})
    w = p["BinaryWeightAffine/bwn_affine/W"].data
    expected = x @ (np.where(w >= 0, 1, -1) * np.abs(w).mean(axis=0))
    np.testing.assert_allclose(acts["BinaryWeightAffine"].data, expected, rtol=1e-5)


def test_batch_shaped_arguments_and_generators(kit):
    layers = [
        kit.layer("Input", "Input", Size=(6,), Dataset="x"),
        kit.layer("Reshape", "Reshape", OutShape=(2, 3)),
        kit.layer(
            "SquaredError",
            "SquaredError",
            T__Dataset="",
            T__Generator="Constant",
            T__GeneratorMultiplier=0.5,
        ),  # fmt: skip
    ]
    program = compile_network(
        kit.make_project(
            [kit.network("Main", layers, kit.chain("Input", "Reshape", "SquaredError"))]
        ),
        "Main",
    )
    assert program.steps[0].batch_kwargs == ("shape",)
    x = np.arange(18, dtype=np.float32).reshape(3, 6)
    acts, _ = _run(program, {"x": x})
    assert acts["Reshape"].shape == (3, 2, 3)
    np.testing.assert_array_equal(acts["SquaredError"].data, (x.reshape(3, 2, 3) - 0.5) ** 2)


def test_a_side_inputs_generator_wins_over_its_dataset_variable(kit):
    """docs/layers.md §1.8, as for an Input layer: NNC's GAN samples keep T.Dataset = y beside
    T.Generator = Constant, and the target is the constant, not the dataset's labels."""
    layers = [
        kit.layer("Input", "Input", Size=(3,), Dataset="x"),
        kit.layer("SquaredError", "SquaredError", T__Dataset="y", T__Generator="Constant",
                  T__GeneratorMultiplier=0.25),
        kit.layer("Input_2", "Input", Size=(3,), Dataset="x"),
        kit.layer("SquaredError_2", "SquaredError", T__Dataset="y", T__Generator="None"),
    ]  # fmt: skip
    links = kit.chain("Input", "SquaredError") + kit.chain("Input_2", "SquaredError_2")
    program = compile_network(kit.make_project([kit.network("Main", layers, links)]), "Main")
    assert program.variables() == ("x", "y")  # y: only the second loss reads it
    x, y = np.ones((2, 3), np.float32), np.full((2, 3), 3.0, np.float32)
    acts, _ = _run(program, {"x": x, "y": y})
    np.testing.assert_array_equal(acts["SquaredError"].data, np.full((2, 3), 0.75**2))
    np.testing.assert_array_equal(acts["SquaredError_2"].data, np.full((2, 3), 4.0))


@pytest.mark.parametrize("kind", ["Flatten"])
def test_unsupported_layer_names_network_layer_and_type(kit, kind):
    layers = [kit.layer("Input", "Input", Size=(4, 3), Dataset="x"), kit.layer(kind, kind)]
    project = kit.make_project([kit.network("Main", layers, kit.chain("Input", kind))])
    with pytest.raises(CompileError) as info:
        compile_network(project, "MainValidation")
    assert str(info.value) == (
        f'network "MainValidation", layer "{kind}": layer type {kind} is not supported by the '
        f"engine yet"
    )


def test_unsupported_layer_inside_a_unit_names_the_call_path(kit):
    unit = kit.network("Rec", [kit.layer("Input", "Input", Size=(4, 3)),
                               kit.layer("Nms", "Flatten")],
                       kit.chain("Input", "Nms"))  # fmt: skip
    main = kit.network("Main", [kit.layer("Input", "Input", Size=(4, 3), Dataset="x"),
                                kit.layer("U", "Unit", Network="Rec")],
                       kit.chain("Input", "U"))  # fmt: skip
    with pytest.raises(CompileError, match=r'layer "U/Nms" \(in unit network "Rec"\): layer '
                                           r"type Flatten is not supported"):  # fmt: skip
        compile_network(kit.make_project([main, unit]), "Main")


def test_shape_errors_and_unknown_networks(kit):
    layers = [kit.layer("Input", "Input", Size=(4,), Dataset="x"),
              kit.layer("Convolution", "Convolution")]  # fmt: skip
    project = kit.make_project([kit.network("Main", layers, kit.chain("Input", "Convolution"))])
    with pytest.raises(CompileError, match=r'network "Main", layer "Convolution": '):
        compile_network(project, "Main")
    with pytest.raises(CompileError, match=r'no network "Other" \(networks: Main\)'):
        compile_network(project, "Other")


def test_shared_parameter_with_another_shape_is_an_error(kit):
    layers = [
        kit.layer("Input", "Input", Size=(4,), Dataset="x"),
        kit.layer("A", "Affine", OutShape=3, ParameterScope="shared"),
        kit.layer("B", "Affine", OutShape=5, ParameterScope="shared"),
    ]
    project = kit.make_project([kit.network("Main", layers, kit.chain("Input", "A", "B"))])
    with pytest.raises(CompileError, match=r'layer "B": parameter shared/affine/W is shared'):
        compile_network(project, "Main")


def test_wired_parameter_layer_feeds_a_side_connector(kit):
    layers = [
        kit.layer("Input", "Input", Size=(4,), Dataset="x"),
        kit.layer(
            "Weights", "Parameter", Size=(4, 2), Initializer="Constant", InitializerMultiplier=0.25
        ),  # fmt: skip
        kit.layer("Affine", "Affine", OutShape=2, WithBias=False),
    ]
    links = [Link("Input", "Affine"), Link("Weights", "Affine", dest_pin=1)]
    program = compile_network(kit.make_project([kit.network("Main", layers, links)]), "Main")
    assert [p.name for p in program.parameters] == ["Weights"]
    acts, _ = _run(program, {"x": np.ones((2, 4), np.float32)})
    np.testing.assert_array_equal(acts["Affine"].data, np.full((2, 2), 1.0, np.float32))


def test_repeat_block_is_unrolled_with_own_parameters(kit):
    layers = [
        kit.layer("Input", "Input", Size=(4,), Dataset="x"),
        kit.layer("RepeatStart", "RepeatStart", Times=3),
        kit.layer("Affine", "Affine", OutShape=4),
        kit.layer("ReLU", "ReLU"),
        kit.layer("RepeatEnd", "RepeatEnd"),
        kit.layer("SquaredError", "SquaredError", T__Dataset="x"),
    ]
    project = kit.make_project([kit.network("Main", layers, kit.chain(*[x.name for x in layers]))])
    program = compile_network(project, "Main")
    assert [s.name for s in program.steps] == [
        "Affine[0]",
        "ReLU[0]",
        "Affine[1]",
        "ReLU[1]",
        "Affine[2]",
        "ReLU[2]",
        "SquaredError",
    ]
    assert [p.name for p in program.parameters][::2] == [
        "Affine[0]/affine/W", "Affine[1]/affine/W", "Affine[2]/affine/W"]  # fmt: skip
    x = np.random.default_rng(7).random((2, 4), dtype=np.float32)
    acts, p = _run(program, {"x": x})
    h = nn.Variable(x)
    for i in range(3):
        h = F.relu(F.affine(h, p[f"Affine[{i}]/affine/W"], p[f"Affine[{i}]/affine/b"]))
    np.testing.assert_array_equal(acts["ReLU[2]"].data, h.data)
    np.testing.assert_array_equal(acts["SquaredError"].data, (h.data - x) ** 2)


def test_nested_repeat_blocks_and_the_nnc_sample(kit):
    layers = [
        kit.layer("Input", "Input", Size=(3,), Dataset="x"),
        kit.layer("Outer", "RepeatStart", Times=2),
        kit.layer("Inner", "RepeatStart", Times=2),
        kit.layer("Affine", "Affine", OutShape=3),
        kit.layer("InnerEnd", "RepeatEnd"),
        kit.layer("Tanh", "Tanh"),
        kit.layer("OuterEnd", "RepeatEnd"),
    ]
    project = kit.make_project([kit.network("Main", layers, kit.chain(*[x.name for x in layers]))])
    program = compile_network(project, "Main")
    assert [s.name for s in program.steps] == [
        "Affine[0][0]",
        "Affine[0][1]",
        "Tanh[0]",
        "Affine[1][0]",
        "Affine[1][1]",
        "Tanh[1]",
    ]
    assert program.parameters[-1].name == "Affine[1][1]/affine/b"
    sample = load_project(SAMPLES_DIR / "tutorial/basics/12_residual_learning.sdcproj")
    runtime = compile_network(sample, "MainRuntime")
    names = [p.name for p in runtime.parameters]
    assert "Convolution_5[1]/conv/W" in names and "Convolution_8[1]/conv/W" in names
    acts, _ = _run(runtime, {"x": np.zeros((1, 1, 28, 28), np.float32)})
    assert runtime.output(acts, "y'").shape == (1, 10)


def test_repeat_block_must_keep_its_shape(kit):
    layers = [
        kit.layer("Input", "Input", Size=(4,), Dataset="x"),
        kit.layer("RepeatStart", "RepeatStart", Times=2),
        kit.layer("Affine", "Affine", OutShape=5),
        kit.layer("RepeatEnd", "RepeatEnd"),
    ]
    project = kit.make_project([kit.network("Main", layers, kit.chain(*[x.name for x in layers]))])
    with pytest.raises(CompileError, match=r'layer "RepeatStart": the repeated block must keep'):
        compile_network(project, "Main")


@pytest.mark.parametrize("kind", ["LayerNormalization", "InstanceNormalization",
                                  "GroupNormalization"])  # fmt: skip
def test_normalizations_default_batch_axis_is_the_batch(kit, kind):
    """NNC's BatchAxis -1 is the batch axis itself (nnabla batch_axis 0, docs/layers.md 1.2);
    it ran as the last axis (a LayerNormalization of (2, 4, 3, 3) asked for beta (2, 4, 3, 1))."""
    props = {"NumGroups": 2} if kind == "GroupNormalization" else {}
    layers = [kit.layer("x", "Input", Size=(4, 3, 3), Dataset="x"), kit.layer("N", kind, **props)]
    project = kit.make_project([kit.network("Main", layers, kit.chain("x", "N"))])
    program = compile_network(project, "Main")
    x = np.random.default_rng(2).normal(size=(2, 4, 3, 3)).astype(np.float32) * 3 + 1
    acts, _ = _run(program, {"x": x})
    y = acts["N"].data
    groups = {"LayerNormalization": (2, -1), "InstanceNormalization": (2, 4, -1),
              "GroupNormalization": (2, 2, -1)}[kind]  # fmt: skip
    v = x.reshape(groups)
    expected = (v - v.mean(-1, keepdims=True)) / np.sqrt(v.var(-1, keepdims=True) + 1e-5)
    np.testing.assert_allclose(y, expected.reshape(x.shape), atol=1e-5)

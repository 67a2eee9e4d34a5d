"""The test-mode plan (engine/runtime/inference_plan.py) against the generic Program.forward.

Every sample project's runtime network, and odd cases built here (BatchNormalization not after
a convolution, a convolution read by two layers, batch 1, channels last, depthwise + ReLU6,
Affine + BatchNormalization, a residual Add2), must give the generic path's outputs within
float32 tolerance, and neither building nor running a plan may change the parameters.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import engine.nn as nn
import engine.nn.functions as F
from engine.core import threads
from engine.core.ops import _inference_cpu, _threads
from engine.formats import load_project
from engine.graph.project import Link
from engine.runtime import inference_plan, inference_threads
from engine.runtime.compiler import compile_network
from engine.runtime.evaluator import ExecutorRun, run_batch
from engine.runtime.inference_threads import MODES

PROJECTS = Path(__file__).resolve().parents[3] / "projects"
SAMPLES = sorted(p.name for p in PROJECTS.glob("*.ncproj"))


def _randomize_statistics(params, seed=1):
    """Running statistics and affine terms far from 0/1, so a wrong fold shows."""
    rng = np.random.default_rng(seed)
    for name, var in params.items():
        if name.endswith("/mean"):
            var.data[...] = rng.normal(0, 0.5, var.shape)
        elif name.endswith("/var"):
            var.data[...] = rng.uniform(0.3, 3.0, var.shape)
        elif name.endswith("/gamma"):
            var.data[...] = rng.uniform(0.5, 2.0, var.shape) * rng.choice([-1, 1], var.shape)
        elif name.endswith("/beta"):
            var.data[...] = rng.normal(0, 0.5, var.shape)
        elif name.endswith("/b"):
            var.data[...] = rng.normal(0, 0.3, var.shape)


def _compare(program, params, batch):
    """Plan outputs against the generic path's; returns the plan. The parameters must be as
    the generic pass leaves them (a BinaryConnect layer writes its binarized weights itself)."""
    with nn.no_grad():
        acts = program.forward(batch, params, {})
    before = {name: var.data.copy() for name, var in params.items()}
    plan = inference_plan.build(program, params)
    assert plan is not None and program.outputs
    got = plan.run(batch)
    for name, _ in program.outputs:
        want = program.output(acts, name).data
        assert got[name].shape == want.shape
        scale = max(float(np.abs(want).max()), 1e-6)
        np.testing.assert_allclose(got[name], want, rtol=0, atol=2e-5 * scale)
    got_again = plan.run(batch)  # a second call: nothing left over from the first
    for name in got:
        np.testing.assert_allclose(got_again[name], got[name], rtol=0, atol=0)
    for name, var in params.items():  # the folded weights are the plan's own copies
        np.testing.assert_array_equal(var.data, before[name], err_msg=name)
    return plan


@pytest.mark.parametrize("sample", SAMPLES)
def test_every_sample_runtime_network_matches_the_generic_path(sample):
    project = load_project(PROJECTS / sample)
    network = project.executors[0].network
    nn.clear_parameters()
    nn.seed(0)
    program = compile_network(project, network)
    params = program.create_parameters(PROJECTS)
    _randomize_statistics(params)
    plan = inference_plan.build(program, params)
    if plan is None:  # recurrent splits, generators, WorkingMemory: the generic path only
        assert (
            program.generators
            or any(s.item is not None or s.stores for s in program.steps)
            or any(d.buffer for d in program.parameters)
        ), sample
        return
    rng = np.random.default_rng(2)
    batch = {v: rng.random((5, *shape), dtype=np.float32) for v, shape in program.feeds.items()}
    _compare(program, params, batch)
    has_bn = any(s.type == "BatchNormalization" for s in program.steps)
    assert bool(plan.folded) or not has_bn


def test_the_cnn_samples_fold_every_batch_normalization():
    expected = {"residual_digits.ncproj": 5, "mobilenet_digits.ncproj": 7,
                "squeezenet_digits.ncproj": 0, "lenet_digits.ncproj": 0}  # fmt: skip
    for sample, count in expected.items():
        project = load_project(PROJECTS / sample)
        nn.clear_parameters()
        program = compile_network(project, project.executors[0].network)
        params = program.create_parameters(PROJECTS)
        plan = inference_plan.build(program, params)
        folded = [n for names in plan.folded.values() for n in names]
        bns = [s.name for s in program.steps if s.type == "BatchNormalization"]
        assert len(bns) == count
        assert set(bns) <= set(folded), sample
        remaining = {s.type for s in program.steps if s.name not in folded}
        assert "BatchNormalization" not in remaining


def _runtime(kit, layers, links=None):
    """MainRuntime of a network whose last layer feeds a SquaredError (its output, y')."""
    names = [x.name for x in layers]
    links = (links or kit.chain(*names)) + [Link(names[-1], "SquaredError")]
    layers = [*layers, kit.layer("SquaredError", "SquaredError")]
    project = kit.make_project([kit.network("Main", layers, links)])
    nn.clear_parameters()
    nn.seed(3)
    program = compile_network(project, "MainRuntime")
    params = program.create_parameters()
    _randomize_statistics(params)
    return program, params


def _x(shape, batch=4, seed=5):
    return {"x": np.random.default_rng(seed).normal(0, 1, (batch, *shape)).astype(np.float32)}


def test_conv_bn_relu_folds_and_batch_of_one(kit):
    layers = [kit.layer("Input", "Input", Size=(3, 9, 9), Dataset="x"),
              kit.layer("Convolution", "Convolution", OutMaps=5, KernelShape=(3, 3),
                        BorderMode="same"),
              kit.layer("BatchNormalization", "BatchNormalization", Axes=0),
              kit.layer("ReLU", "ReLU"), kit.layer("Affine", "Affine", OutShape=4),
              kit.layer("Softmax", "Softmax")]  # fmt: skip
    program, params = _runtime(kit, layers)
    for batch in (1, 4, 64):
        plan = _compare(program, params, _x((3, 9, 9), batch))
    assert plan.folded == {"Convolution": ("BatchNormalization", "ReLU")}
    assert [op.name for op in plan.ops] == ["Convolution", "Affine", "Softmax"]
    # the convolution's output is let go once the Affine has read it; the output is kept
    assert plan._drop == [[plan.ops[0].inputs[0]], [plan.ops[0].out], [plan.ops[1].out]]


def test_batch_normalization_not_after_a_convolution_runs_as_itself(kit):
    layers = [kit.layer("Input", "Input", Size=(6,), Dataset="x"),
              kit.layer("BatchNormalization", "BatchNormalization", Axes=0),
              kit.layer("Tanh", "Tanh"), kit.layer("Affine", "Affine", OutShape=3)]  # fmt: skip
    program, params = _runtime(kit, layers)
    plan = _compare(program, params, _x((6,)))
    assert plan.folded == {}
    assert [op.name for op in plan.ops] == ["BatchNormalization", "Tanh", "Affine"]


def test_a_convolution_read_by_two_layers_is_not_folded(kit):
    layers = [kit.layer("Input", "Input", Size=(2, 6, 6), Dataset="x"),
              kit.layer("Convolution", "Convolution", OutMaps=2, KernelShape=(3, 3),
                        BorderMode="same"),
              kit.layer("BatchNormalization", "BatchNormalization", Axes=0),
              kit.layer("ReLU", "ReLU"), kit.layer("Add2", "Add2"),
              kit.layer("ReLU_2", "ReLU")]  # fmt: skip
    links = [Link("Input", "Convolution"), Link("Convolution", "BatchNormalization"),
             Link("BatchNormalization", "ReLU"), Link("ReLU", "Add2"),
             Link("Convolution", "Add2"), Link("Add2", "ReLU_2")]  # fmt: skip
    program, params = _runtime(kit, layers, links)
    plan = _compare(program, params, _x((2, 6, 6)))
    # the convolution's output is also the residual: the normalization runs on its own
    assert "Convolution" not in plan.folded
    assert "BatchNormalization" in [op.name for op in plan.ops]
    assert plan.folded.get("Add2") == ("ReLU_2",)


def test_residual_add_writes_into_its_own_operand_only(kit):
    """Add2 may take over its first operand's buffer only when nothing else reads it: here the
    ReLU output is also read by the second Add2, so it must survive the first."""
    layers = [kit.layer("Input", "Input", Size=(2, 5, 5), Dataset="x"),
              kit.layer("Convolution", "Convolution", OutMaps=2, KernelShape=(3, 3),
                        BorderMode="same"),
              kit.layer("ReLU", "ReLU"),
              kit.layer("Convolution_2", "Convolution", OutMaps=2, KernelShape=(1, 1)),
              kit.layer("Add2", "Add2"), kit.layer("Add2_2", "Add2")]  # fmt: skip
    links = [Link("Input", "Convolution"), Link("Convolution", "ReLU"),
             Link("ReLU", "Convolution_2"), Link("Convolution_2", "Add2"), Link("ReLU", "Add2"),
             Link("Add2", "Add2_2"), Link("ReLU", "Add2_2")]  # fmt: skip
    program, params = _runtime(kit, layers, links)
    x = _x((2, 5, 5))
    copy = x["x"].copy()
    _compare(program, params, x)
    np.testing.assert_array_equal(x["x"], copy)  # the caller's batch is never written


def test_channel_last_convolution_folds_along_the_last_axis(kit):
    layers = [kit.layer("Input", "Input", Size=(7, 7, 3), Dataset="x"),
              kit.layer("Convolution", "Convolution", OutMaps=4, KernelShape=(3, 3),
                        ChannelLast=True),
              kit.layer("BatchNormalization", "BatchNormalization", Axes=2),
              kit.layer("ReLU", "ReLU")]  # fmt: skip
    program, params = _runtime(kit, layers)
    plan = _compare(program, params, _x((7, 7, 3)))
    assert plan.folded == {"Convolution": ("BatchNormalization", "ReLU")}


def test_depthwise_relu6_and_affine_batch_normalization_fold(kit):
    layers = [kit.layer("Input", "Input", Size=(4, 8, 8), Dataset="x"),
              kit.layer("DepthwiseConvolution", "DepthwiseConvolution", KernelShape=(3, 3),
                        BorderMode="same"),
              kit.layer("BatchNormalization", "BatchNormalization", Axes=0),
              kit.layer("ReLU6", "ReLU6"), kit.layer("Affine", "Affine", OutShape=5),
              kit.layer("BatchNormalization_2", "BatchNormalization", Axes=0),
              kit.layer("ReLU", "ReLU")]  # fmt: skip
    program, params = _runtime(kit, layers)
    plan = _compare(program, params, _x((4, 8, 8), 3) | {})
    assert plan.folded == {"DepthwiseConvolution": ("BatchNormalization", "ReLU6"),
                           "Affine": ("BatchNormalization_2", "ReLU")}  # fmt: skip


def test_evaluation_runs_the_plan_and_leaves_the_parameters(kit):
    layers = [kit.layer("Input", "Input", Size=(2, 6, 6), Dataset="x"),
              kit.layer("Convolution", "Convolution", OutMaps=3, KernelShape=(3, 3)),
              kit.layer("BatchNormalization", "BatchNormalization", Axes=0),
              kit.layer("ReLU", "ReLU"), kit.layer("Affine", "Affine", OutShape=2),
              kit.layer("Softmax", "Softmax")]  # fmt: skip
    program, params = _runtime(kit, layers)
    before = {name: var.data.copy() for name, var in params.items()}
    run = ExecutorRun(program, params, {})
    x = _x((2, 6, 6), 7)
    (out,) = run_batch([run], x)
    assert isinstance(run.plan[0], inference_plan.InferencePlan)
    ((output, _),) = program.outputs
    with nn.no_grad():
        want = program.output(program.forward(x, params), output).data
    np.testing.assert_allclose(out[output], want, rtol=0, atol=2e-6)
    for name, var in params.items():
        np.testing.assert_array_equal(var.data, before[name], err_msg=name)


def test_an_executor_with_a_backward_keeps_the_generic_path(kit):
    layers = [kit.layer("Input", "Input", Size=(4,), Dataset="x"),
              kit.layer("Affine", "Affine", OutShape=3),
              kit.layer("BatchNormalization", "BatchNormalization", Axes=0),
              kit.layer("Softmax", "Softmax"),
              kit.layer("CategoricalCrossEntropy", "CategoricalCrossEntropy")]  # fmt: skip
    project = kit.make_project([kit.network("Main", layers, kit.chain(*[x.name for x in layers]))])
    nn.clear_parameters()
    program = compile_network(project, "MainValidation")
    params = program.create_parameters()
    batch = _x((4,), 3) | {"y": np.array([[0], [2], [1]], np.float32)}
    back = ExecutorRun(program, params, {"need_back_propagation": True})
    run_batch([back], batch)
    assert back.plan == []  # never built
    plain = ExecutorRun(program, params, {})
    run_batch([plain], batch)
    assert plain.plan[0].folded == {"Affine": ("BatchNormalization",)}


def test_half_precision_and_generators_keep_the_generic_path(kit):
    layers = [kit.layer("Input", "Input", Size=(3,), Dataset="x"),
              kit.layer("Affine", "Affine", OutShape=2)]  # fmt: skip
    program, params = _runtime(kit, layers)
    from dataclasses import replace

    assert inference_plan.build(replace(program, precision="Half"), params) is None
    assert inference_plan.build(program, params) is not None


@pytest.mark.skipif(_inference_cpu._compile() is None, reason="numba not installed")
def test_bias_act_kernel_matches_numpy():
    rng = np.random.default_rng(0)
    for shape in ((1, 1), (3, 17), (16, 64 * 49)):
        y = rng.normal(0, 4, shape).astype(np.float32)
        y[0, 0] = np.nan
        b = rng.normal(0, 1, shape[0]).astype(np.float32)
        for act in ("", "ReLU", "ReLU6"):
            got = y.copy()
            assert _inference_cpu.bias_act(got, b, act)
            want = y + b[:, None]
            if act == "ReLU":
                want = np.maximum(want, 0)
            elif act == "ReLU6":
                want = np.clip(want, 0, 6)
            np.testing.assert_array_equal(got, want)
    assert not _inference_cpu.bias_act(np.zeros((3, 4), np.float32)[:, ::2], np.zeros(3), "ReLU")
    # with a residual (a folded Add2's other operand): (y + b) + r, then the activation
    y = rng.normal(0, 4, (5, 70)).astype(np.float32)
    r = rng.normal(0, 4, (5, 70)).astype(np.float32)
    b = rng.normal(0, 1, 5).astype(np.float32)
    for act in ("", "ReLU", "ReLU6"):
        got = y.copy()
        assert _inference_cpu.bias_act(got, b, act, r)
        want = (y + b[:, None]) + r
        want = {"": want, "ReLU": np.maximum(want, 0), "ReLU6": np.clip(want, 0, 6)}[act]
        np.testing.assert_array_equal(got, want)
    assert not _inference_cpu.bias_act(y.copy(), b, "ReLU", r[:, ::2])


@pytest.mark.skipif(_inference_cpu._compile() is None, reason="numba not installed")
@pytest.mark.parametrize(
    ("kernel", "stride", "pad", "ignore_border"),
    [((2, 2), None, (0, 0), True), ((3, 3), (2, 2), (1, 1), True), ((3, 2), (2, 3), (0, 0), False)],
)
@pytest.mark.parametrize("batch", [5, 48, 64])
def test_max_pooling_values_match_the_training_kernel(kernel, stride, pad, ignore_border, batch,
                                                      monkeypatch):  # fmt: skip
    """The inference loops' maxima are the training kernel's, NaN, -inf and padding included;
    a float32 batch of whole vectors in the batch-innermost layout takes the vector loop."""
    kernels = _inference_cpu._compile()
    real, vectors = kernels["max_pool_vectors"], []
    monkeypatch.setitem(kernels, "max_pool_vectors", lambda *a: vectors.append(1) or real(*a))
    rng = np.random.default_rng(4)
    base = rng.normal(0, 1, (batch, 3, 9, 8)).astype(np.float32)
    base[1, 2, 3, 4] = np.nan
    base[0, 0, :2, :2] = -np.inf
    base[batch - 1, 1, 4, 2:6] = np.nan
    # the layouts the convolutions hand out (batch innermost), channel-last memory, plain NCHW
    layouts = [
        np.ascontiguousarray(base.transpose(1, 2, 3, 0)).transpose(3, 0, 1, 2),
        np.ascontiguousarray(base.transpose(0, 2, 3, 1)).transpose(0, 3, 1, 2),
        base,
    ]
    for x in layouts:
        got = _inference_cpu.max_pooling(x, kernel, stride, ignore_border, pad)
        with nn.no_grad():
            want = F.max_pooling(nn.Variable(x), kernel, stride, ignore_border, pad).data
        np.testing.assert_array_equal(got, want)
    assert _inference_cpu.max_pooling(base[:, :, ::2], kernel, stride, ignore_border, pad) is None
    assert len(vectors) == (0 if batch % _inference_cpu.lanes() else 1)  # batch-innermost only


@pytest.mark.parametrize("sample", ["lenet_digits.ncproj", "residual_digits.ncproj"])
def test_quantized_networks_run_their_quantizers_unfolded(sample):
    """A quantizer on every layer's output: nothing is folded across one, and the plan gives
    the generic path's numbers (the quantization sweeps and searches evaluate these)."""
    from engine.quantization import Scheme, insert_quantizers

    project = load_project(PROJECTS / sample)
    quantized = insert_quantizers(project, "Main", Scheme(bits=8, delta=0.0625))
    nn.clear_parameters()
    nn.seed(0)
    program = compile_network(project, f"{quantized.name}Runtime")
    assert any(s.type.endswith("Quantize") for s in program.steps)
    params = program.create_parameters(PROJECTS)
    _randomize_statistics(params)
    rng = np.random.default_rng(6)
    batch = {v: rng.random((6, *shape), dtype=np.float32) for v, shape in program.feeds.items()}
    plan = _compare(program, params, batch)
    folded = {n for names in plan.folded.values() for n in names}
    assert not any(s.type == "BatchNormalization" and s.name in folded for s in program.steps)


def test_pointwise_convolutions_and_global_average_pooling(kit):
    """1x1 convolutions as one GEMM (with and without a bias, BN and ReLU; on the feed's plain
    NCHW layout they take the generic function) and the pooled means from the batch-innermost
    buffer, batch 1 and 5."""
    layers = [kit.layer("Input", "Input", Size=(3, 5, 4), Dataset="x"),
              kit.layer("Pointwise", "Convolution", OutMaps=6, KernelShape=(1, 1)),
              kit.layer("Convolution", "Convolution", OutMaps=4, KernelShape=(3, 3),
                        BorderMode="same"),
              kit.layer("Pointwise_2", "Convolution", OutMaps=5, KernelShape=(1, 1)),
              kit.layer("BatchNormalization", "BatchNormalization", Axes=0),
              kit.layer("ReLU", "ReLU"),
              kit.layer("Pointwise_3", "Convolution", OutMaps=3, KernelShape=(1, 1),
                        WithBias=False),
              kit.layer("GlobalAveragePooling", "GlobalAveragePooling")]  # fmt: skip
    program, params = _runtime(kit, layers)
    for batch in (1, 5):
        plan = _compare(program, params, _x((3, 5, 4), batch))
    kinds = {op.name: type(op.function).__name__ for op in plan.ops}
    assert kinds["Pointwise"] == kinds["Pointwise_2"] == kinds["Pointwise_3"] == "_Pointwise"
    assert kinds["GlobalAveragePooling"] == "_GlobalAveragePooling"
    assert plan.folded == {"Pointwise_2": ("BatchNormalization", "ReLU")}


needs_numba = pytest.mark.skipif(_inference_cpu._compile() is None, reason="numba not installed")
CNN_SAMPLES = ["lenet_digits.ncproj", "residual_digits.ncproj", "mobilenet_digits.ncproj",
               "squeezenet_digits.ncproj"]  # fmt: skip


def _sample_plan(sample):
    project = load_project(PROJECTS / sample)
    nn.clear_parameters()
    nn.seed(0)
    program = compile_network(project, project.executors[0].network)
    params = program.create_parameters(PROJECTS)
    _randomize_statistics(params)
    return program, params


@needs_numba
@pytest.mark.parametrize("sample", CNN_SAMPLES)
def test_batch_of_64_takes_the_fast_paths_and_matches_the_generic_path(sample):
    """Batch 64 (whole SIMD vectors): the depthwise kernel with its bias and activation, the
    fused residual Add2 + ReLU and the compiled pooled means run, and agree with the generic
    path."""
    program, params = _sample_plan(sample)
    rng = np.random.default_rng(7)
    batch = {v: rng.random((64, *shape), dtype=np.float32) for v, shape in program.feeds.items()}
    plan = _compare(program, params, batch)
    kinds = {type(op.function).__name__ for op in plan.ops}
    if "mobilenet" in sample:
        assert "_Depthwise" in kinds
        depthwise = [op for op in plan.ops if type(op.function).__name__ == "_Depthwise"]
        assert [op.function.act for op in depthwise] == ["ReLU"] * 3
        assert all(op.function.bias is not None for op in depthwise)  # the folded BN's bias
    if "residual" in sample:  # each block's Add2 and ReLU in its second convolution's pass
        fused = {op.name: (op.folded, op.act) for op in plan.ops if op.residual is not None}
        assert fused == {
            f"Res{i}/Convolution_2": (
                (f"Res{i}/BatchNormalization_2", f"Res{i}/Add2", f"Res{i}/ReLU_2"),
                "ReLU",
            )
            for i in (1, 2)
        }


_REAL_RUN = _threads.run


def _loop_name(kernel):
    """A split loop's name; the depthwise loop's variants (_inference_depthwise.kernel_for,
    one per vectors a pixel) as "depthwise"."""
    name = kernel.__name__
    return "depthwise" if name.startswith("_depthwise") else name


def _spy_run(split):
    """``_threads.run`` noting each split loop's name in ``split``."""

    def spy(kernel, *args):
        split.append(_loop_name(kernel))
        return _REAL_RUN(kernel, *args)

    return spy


_PLAN_LOOPS = {"bias_act", "bias_res_act", "add_act", "max_pool", "channel_mean", "depthwise",
               "pointwise"}  # fmt: skip


def _run_with_threads(plan, batch, count, monkeypatch):
    """The plan's outputs with the engine's threads set to ``count`` (the loops are split even
    for the small test arrays), and the names of the loops that were split."""
    split = []

    def spy(kernel, args, total, align, parts=None):
        split.append(_loop_name(kernel))
        return _REAL_RUN(kernel, args, total, align, parts)

    before = _threads.count()
    with monkeypatch.context() as m:
        m.setattr(_threads, "run", spy)
        m.setattr(_inference_cpu, "MIN_PARALLEL_NS", 0)
        try:
            threads.force(count)
            assert _threads.count() == count
            out = plan.run(batch)
        finally:
            threads.force(None)
            _threads.set_count(before)
    return {k: v.copy() for k, v in out.items()}, split


@needs_numba
@pytest.mark.parametrize("sample", CNN_SAMPLES)
def test_one_and_two_threads_give_the_same_bytes(sample, monkeypatch):
    """The engine's thread setting (``threads.force``: BLAS and the kernels' pool) at 1 and 2,
    the batch run whole (a batch the plan does not split runs so): the plan's loops share
    channels or elements between the threads, never a sum, so the outputs are the same bytes;
    at 2 the loops were split."""
    program, params = _sample_plan(sample)
    plan = inference_plan.build(program, params)
    monkeypatch.setattr(plan, "_parts", lambda size: (1, []))  # the whole batch
    rng = np.random.default_rng(8)
    batch = {v: rng.random((64, *shape), dtype=np.float32) for v, shape in program.feeds.items()}
    _threads.set_count(2)
    if _threads.count() != 2:
        pytest.skip("NumPy's BLAS does not take two threads here")
    one, split_one = _run_with_threads(plan, batch, 1, monkeypatch)
    two, split_two = _run_with_threads(plan, batch, 2, monkeypatch)
    for name in one:
        assert one[name].tobytes() == two[name].tobytes(), name
    assert not set(split_one) & {
        "bias_act",
        "add_act",
        "max_pool",
        "channel_mean",
        "depthwise",
        "pointwise",
    }
    expected = {
        "lenet_digits.ncproj": {"bias_act", "max_pool"},
        "residual_digits.ncproj": {"bias_act", "bias_res_act", "max_pool"},
        "mobilenet_digits.ncproj": {"bias_act", "depthwise", "pointwise", "channel_mean"},
        "squeezenet_digits.ncproj": {"bias_act", "max_pool", "pointwise", "channel_mean"},
    }[sample]
    assert expected <= set(split_two), split_two


_SPLIT_SAMPLES = {  # sample: the ops run on the whole batch after the parts (None: no split)
    **{sample: [] for sample in CNN_SAMPLES},
    "binary_cnn_4or9.ncproj": [],
    "bn_dropout_digits.ncproj": [],  # Affine layers only: the 1x1 loop serves them too
    "deep_mlp_4or9.ncproj": [],
    "binary_connect_lenet_digits.ncproj": None,  # starts with a BinaryConnectConvolution
}


@needs_numba
@pytest.mark.parametrize("sample", sorted(_SPLIT_SAMPLES))
def test_two_threads_split_the_batch_and_give_the_one_thread_bytes(sample, monkeypatch):
    """At two threads a batch of whole SIMD vectors is cut in two parts run at once, each on
    one thread through the plan's row-local ops (convolutions, pooling, element-wise layers,
    Affine layers on the 1x1 loop: here every op of the CNN samples), the rest on the joined
    batch: the outputs are the bytes of the whole batch on one thread, for even, uneven
    (48: 16 + 32) and odd batches (1, 63, 65: not split), and BLAS is back at two threads
    after. (The MLP samples' odd batches run their generic Affine layers through
    engine/core/products.py, whose sums do not depend on the thread count either.)"""
    program, params = _sample_plan(sample)
    plan = inference_plan.build(program, params)
    tail = _SPLIT_SAMPLES[sample]
    if tail is None:
        assert plan._rows == 0
    else:
        assert [op.name for op in plan.ops[plan._rows :]] == tail
    _threads.set_count(2)
    if _threads.count() != 2:
        pytest.skip("NumPy's BLAS does not take two threads here")
    lanes = _inference_cpu.lanes()
    real = _inference_cpu.run_parts
    calls = []

    def spy(work, parts, then, threads):
        calls.append((parts, _threads.count()))
        done = []
        real(lambda: work() or done.append(_threads.count()), parts, then, threads)
        calls.append(tuple(done))

    monkeypatch.setattr(_inference_cpu, "run_parts", spy)
    monkeypatch.setattr(plan, "_parts", _spy_parts(plan._parts, calls))
    rng = np.random.default_rng(10)
    for size in (64, 48, 128, 1, 63, 65):
        batch = {v: rng.random((size, *shape), dtype=np.float32)
                 for v, shape in program.feeds.items()}  # fmt: skip
        one, _ = _run_with_threads(plan, batch, 1, monkeypatch)
        assert calls == [(size, [])]  # one thread: whole
        calls.clear()
        two, _ = _run_with_threads(plan, batch, 2, monkeypatch)
        for name in one:
            assert two[name].shape == (size, *one[name].shape[1:])
            assert one[name].tobytes() == two[name].tobytes(), (size, name)
        if size % lanes or tail is None:
            assert calls == [(size, [])], size
        else:
            half = size // lanes // 2 * lanes
            assert calls[0] == (size, [(0, half), (half, size)]), calls
            assert calls[1] == (2, 2)  # two parts, BLAS at 2 when asked
            # each thread's parts (the partner may start too late for one: then this thread
            # runs both) with BLAS and the kernels on one thread
            assert set(calls[2]) == {1}, calls
        calls.clear()
        assert _threads.count() == 2


@needs_numba
@pytest.mark.parametrize(
    ("size", "costs", "kept"),
    [
        (64, {"split": 3.0, "whole": 2.0, "one": 1.5}, "one"),  # MobileNet-style, issue 33
        (64, {"split": 3.0, "whole": 2.0, "one": 2.5}, "whole"),
        (64, {"split": 1.0, "whole": 2.0, "one": 2.5}, "split"),
        (65, {"whole": 2.0, "one": 1.5}, "one"),  # not whole vectors: never cut
    ],
)
def test_the_fastest_way_to_use_the_threads_is_kept_per_batch_size(size, costs, kept, monkeypatch):
    """The first passes of a batch size at two threads try each way in turn (split, whole,
    one thread alone: TRIALS each; a batch that is not cut has no split); then the fastest by
    the injected clock is kept, every pass gives the same bytes, and "one" runs every op with
    BLAS and the kernels at one thread, set back to two after."""
    program, params = _sample_plan("lenet_digits.ncproj")
    plan = inference_plan.build(program, params)
    _threads.set_count(2)
    if _threads.count() != 2:
        pytest.skip("NumPy's BLAS does not take two threads here")
    ways, counts = [], []
    real_next, real_steps = plan._choice.next, plan._steps
    monkeypatch.setattr(plan._choice, "next", lambda *a: ways.append(real_next(*a)) or ways[-1])
    monkeypatch.setattr(
        plan, "_steps", lambda *a: counts.append(_threads.count()) or real_steps(*a)
    )
    now = [0.0]

    def clock():  # each pass takes its way's cost: the time between its two readings
        now[0] += costs[ways[-1]]
        return now[0]

    monkeypatch.setattr(inference_plan, "_clock", clock)
    rng = np.random.default_rng(3)
    batch = {v: rng.random((size, *s), dtype=np.float32) for v, s in program.feeds.items()}
    outputs = []
    trials = len(costs) * inference_threads.TRIALS
    for _ in range(trials + 3):
        counts.clear()
        outputs.append({k: v.tobytes() for k, v in plan.run(batch).items()})
        assert set(counts) == {1 if ways[-1] in ("one", "split") else 2}, (ways[-1], counts)
        assert _threads.count() == 2
    assert ways[:trials] == [m for m in MODES if m in costs] * inference_threads.TRIALS
    assert ways[trials:] == [kept] * 3
    assert plan._choice.kept == {(size, 2): kept}
    assert all(out == outputs[0] for out in outputs)


@needs_numba
def test_plans_of_one_network_carry_the_trials_and_the_choice_on(monkeypatch):
    """Each evaluation, ``forward`` call and plugin batch call builds a plan for a few passes:
    the trials carry on from one plan of a network to the next (5 passes, then 4 in a new
    plan with new parameters: the choice is made on the 9th) and a later plan starts with the
    kept way; another network starts afresh; the last MEMORY networks are remembered."""
    monkeypatch.setattr(inference_threads, "MEMORY", 2)
    _threads.set_count(2)
    if _threads.count() != 2:
        pytest.skip("NumPy's BLAS does not take two threads here")
    costs = {"split": 3.0, "whole": 2.0, "one": 1.0}
    ways = []
    now = [0.0]

    def clock():
        now[0] += costs[ways[-1]]
        return now[0]

    monkeypatch.setattr(inference_plan, "_clock", clock)
    real = inference_threads.Choice.next
    monkeypatch.setattr(
        inference_threads.Choice, "next", lambda *a: ways.append(real(*a)) or ways[-1]
    )

    def plan_of(sample):
        return inference_plan.build(*_sample_plan(sample))

    rng = np.random.default_rng(4)
    program, _ = _sample_plan("lenet_digits.ncproj")
    batch = {v: rng.random((64, *s), dtype=np.float32) for v, s in program.feeds.items()}
    first, second = plan_of("lenet_digits.ncproj"), plan_of("lenet_digits.ncproj")
    assert first._choice is second._choice
    for _ in range(5):
        first.run(batch)
    assert first._choice.kept == {}
    for _ in range(4):
        second.run(batch)
    assert ways == list(MODES) * 3
    assert second._choice.kept == {(64, 2): "one"}
    third = plan_of("lenet_digits.ncproj")
    third.run(batch)
    assert ways[-1] == "one"
    other = plan_of("mobilenet_digits.ncproj")
    assert other._choice is not third._choice and other._choice.kept == {}
    plan_of("residual_digits.ncproj")  # a third network: the least recently built forgotten
    assert plan_of("lenet_digits.ncproj")._choice.kept == {}


def test_the_kept_way_is_timed_again_after_retry_passes(monkeypatch):
    """A kept way runs RETRY passes, then the ways are timed again: when the costs have
    changed meanwhile (another process let the second core go) the new fastest is kept."""
    monkeypatch.setattr(inference_threads, "RETRY", 4)
    choice = inference_threads.Choice()
    key, ways = (64, 2), []
    costs = {"split": 3.0, "whole": 2.0, "one": 1.0}

    def passes(count):
        for _ in range(count):
            way = choice.next(key, MODES)
            ways.append(way)
            choice.timed(key, way, costs[way], MODES)

    passes(3 * inference_threads.TRIALS + 4)
    assert ways[-4:] == ["one"] * 4 and choice.kept == {key: "one"}
    costs["split"] = 0.5
    ways.clear()
    passes(3 * inference_threads.TRIALS + 2)
    assert ways == list(MODES) * inference_threads.TRIALS + ["split"] * 2
    assert choice.kept == {key: "split"}


def test_the_choice_depends_only_on_the_times_given():
    """``choose``: nothing until every mode has TRIALS times; then the lowest median, fewer
    threads on a tie; the same times, in any order of arrival, give the same choice."""
    modes = inference_threads.MODES
    times = {"split": [3.0, 1.0, 2.0], "whole": [2.5, 2.5, 9.0], "one": [2.0, 2.0]}
    assert inference_threads.choose(times, modes) is None  # "one" has two times
    times["one"].append(7.0)
    assert inference_threads.choose(times, modes) == "one"  # medians 2.0, 2.5, 2.0: a tie
    assert inference_threads.choose({**times, "split": [2.0, 1.0, 1.5]}, modes) == "split"
    assert inference_threads.choose({m: [1.0] * 3 for m in modes}, modes) == "one"
    assert inference_threads.choose({m: [1.0] * 3 for m in modes}, modes[:2]) == "whole"
    assert inference_threads.choose({**times, "whole": [1.0, 9.0, 1.5]}, modes) == "whole"
    for order in ([0, 1, 2], [2, 0, 1], [1, 2, 0]):
        shuffled = {m: [t[i] for i in order] for m, t in times.items()}
        assert inference_threads.choose(shuffled, modes) == inference_threads.choose(times, modes)


@needs_numba
def test_loops_in_a_pass_on_one_thread_per_part_do_not_ask_blas(monkeypatch):
    """Inside ``run_parts`` and ``run_alone`` the loops run whole on their thread without
    asking BLAS its count (a ctypes call that lets the GIL go mid-op); outside they ask it and
    split; the bytes are the same, and BLAS is back at two threads after."""
    _threads.set_count(2)
    if _threads.count() != 2:
        pytest.skip("NumPy's BLAS does not take two threads here")
    monkeypatch.setattr(_inference_cpu, "MIN_PARALLEL_NS", 0)
    monkeypatch.setattr(_threads, "MIN_MAPS_PER_THREAD", 1)
    rng = np.random.default_rng(12)
    y2 = rng.normal(0, 3, (16, 4096)).astype(np.float32)
    b = rng.normal(0, 1, 16).astype(np.float32)

    def loop():
        r = y2.copy()
        assert _inference_cpu.bias_act(r, b, "ReLU")
        return r.tobytes()

    _asks_blas_outside_a_pass_only(monkeypatch, loop, "bias_act")


def _asks_blas_outside_a_pass_only(monkeypatch, compute, loop):
    """``compute()`` (its result's bytes) asks BLAS its count and splits ``loop`` outside a
    pass, and inside ``run_alone`` and ``run_parts`` neither, with the same bytes; BLAS is back
    at two threads after."""
    asked, split, got = [], [], {}
    real_count = _threads.count
    monkeypatch.setattr(_threads, "count", lambda: asked.append(1) or real_count())
    monkeypatch.setattr(_threads, "run", _spy_run(split))

    def run(way):
        asked.clear()
        got[way] = (compute(), len(asked))

    run("outside")
    assert got["outside"][1] > 0 and split == [loop]
    split.clear()
    _inference_cpu.run_alone(lambda: run("alone"), 2)
    _inference_cpu.run_parts(lambda: run("parts"), 1, lambda: None, 2)
    assert got["alone"][1] == got["parts"][1] == 0 and split == []
    assert got["alone"][0] == got["parts"][0] == got["outside"][0]
    assert real_count() == 2


def test_a_dense_convolution_in_a_part_does_not_ask_blas(monkeypatch):
    """The plan's direct convolution (``inference_ops._Dense``) inside ``run_parts`` and
    ``run_alone`` runs on its thread without asking BLAS its count (a ctypes call that lets the
    GIL go mid-op, then taken back from the other part's thread); outside it asks and splits
    its maps; the bytes are the same."""
    from engine.core.ops import _direct_conv
    from engine.runtime.inference_ops import _Dense

    _threads.set_count(2)
    if _threads.count() != 2:
        pytest.skip("NumPy's BLAS does not take two threads here")
    lanes = _inference_cpu.lanes()
    rng = np.random.default_rng(13)
    x = rng.normal(0, 1, (lanes, 3, 9, 9)).astype(np.float32)
    w = rng.normal(0, 1, (16, 3, 3, 3)).astype(np.float32)
    if not _direct_conv.applies(x, 1, (3, 3), True):
        pytest.skip("the direct convolution's kernels are not compiled here")
    monkeypatch.setattr(_threads, "MIN_MAPS_PER_THREAD", 1)
    dense = _Dense(lambda *a, **k: pytest.fail("the generic convolution was called"))

    def conv():
        y = dense(x, w, pad=(1, 1), stride=(1, 1), dilation=(1, 1))
        return np.ascontiguousarray(y.data).tobytes()

    _asks_blas_outside_a_pass_only(monkeypatch, conv, "conv")


def _spy_parts(parts, calls):
    def spy(size):
        threads, cut = parts(size)
        calls.append((size, cut))
        return threads, cut

    return spy


@needs_numba
def test_three_threads_uneven_ranges_give_the_same_bytes(monkeypatch):
    """Three threads over 16 channels and odd element counts (ranges of unequal length): the
    loops give the one-thread bytes."""
    monkeypatch.setattr(_inference_cpu, "MIN_PARALLEL_NS", 0)
    monkeypatch.setattr(_threads, "MIN_MAPS_PER_THREAD", 1)
    rng = np.random.default_rng(9)
    x = rng.normal(0, 3, (16, 9, 7, 32)).astype(np.float32)
    w = rng.normal(0, 1, (16, 3, 3)).astype(np.float32)
    b = rng.normal(0, 1, 16).astype(np.float32)
    y2 = rng.normal(0, 3, (16, 1001)).astype(np.float32)
    a0, a1 = (rng.normal(0, 3, 10007).astype(np.float32) for _ in range(2))
    x2 = rng.normal(0, 1, (9, 16 * 37)).astype(np.float32)  # 37 vectors of 16 (or 74 of 8)
    w2 = rng.normal(0, 1, (16, 9)).astype(np.float32)

    def each():
        d = _inference_cpu.depthwise(x, w, b, (1, 1), (2, 1), (1, 1), (5, 7), "ReLU6")
        r = y2.copy()
        assert _inference_cpu.bias_act(r, b, "ReLU")
        r2 = y2.copy()
        assert _inference_cpu.bias_act(r2, b, "ReLU6", y2[::-1].copy())
        s = a0.copy()
        assert _inference_cpu.add_act(s, a1, "ReLU")
        m = _inference_cpu.channel_mean(x.reshape(16, 63, 32))
        p = _inference_cpu.max_pooling(x.transpose(3, 0, 1, 2), (3, 3), (2, 2), True, (1, 1))
        q = _inference_cpu.pointwise(w2, x2, b, "ReLU")
        return [d, r, r2, s, m, np.ascontiguousarray(p), q]

    monkeypatch.setattr(_threads, "count", lambda: 1)
    want = each()
    monkeypatch.setattr(_threads, "count", lambda: 3)
    split = []
    monkeypatch.setattr(_threads, "run", _spy_run(split))
    for got, ref in zip(each(), want, strict=True):
        assert got.tobytes() == ref.tobytes()
    assert set(split) == _PLAN_LOOPS


@needs_numba
@pytest.mark.parametrize("act", ["", "ReLU", "ReLU6"])
@pytest.mark.parametrize(
    ("shape", "kernel", "pad", "stride", "dilation"),
    [
        ((16, 14, 14, 64), (3, 3), (1, 1), (1, 1), (1, 1)),  # MobileNet's, 4 vectors a pixel
        ((5, 9, 8, 48), (3, 3), (1, 1), (2, 2), (1, 1)),  # odd sizes, 3 (or 6) vectors
        ((3, 10, 11, 16), (5, 3), (2, 0), (1, 2), (2, 1)),  # rectangular, dilated, 1 vector
        ((2, 4, 4, 80), (3, 3), (0, 0), (1, 1), (1, 1)),  # a tile of 4 and one more vector
        ((4, 11, 10, 64), (3, 3), (2, 1), (2, 1), (2, 1)),  # 3x3 windows inside, dilated
    ],
)
def test_depthwise_inference_kernel_matches_the_generic_layer(shape, kernel, pad, stride,
                                                               dilation, act):  # fmt: skip
    rng = np.random.default_rng(10)
    c, h, w_, n = shape
    xc = rng.normal(0, 2, shape).astype(np.float32)
    xc[0, 1, 1, 3] = np.nan
    w = rng.normal(0, 1, (c, *kernel)).astype(np.float32)
    for b in (rng.normal(0, 1, c).astype(np.float32), None):
        out = tuple(
            (size + 2 * p - d * (k - 1) - 1) // s + 1
            for size, k, p, s, d in zip((h, w_), kernel, pad, stride, dilation, strict=True)
        )
        got = _inference_cpu.depthwise(xc, w, b, pad, stride, dilation, out, act)
        assert got is not None and got.shape == (c, *out, n)
        with nn.no_grad():
            x = nn.Variable(np.ascontiguousarray(xc.transpose(3, 0, 1, 2)))
            bias = None if b is None else nn.Variable(b)
            want = F.depthwise_convolution(x, nn.Variable(w), bias, pad=pad, stride=stride,
                                           dilation=dilation).data  # fmt: skip
        if act == "ReLU":
            want = np.maximum(want, 0)
        elif act == "ReLU6":
            want = np.clip(want, 0, 6)
        got = got.transpose(3, 0, 1, 2)
        assert np.array_equal(np.isnan(got), np.isnan(want))
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    # float64 and batches that are not whole vectors are left to the generic layer
    assert _inference_cpu.depthwise(xc.astype(np.float64), w, None, pad, stride, dilation,
                                    out, act) is None  # fmt: skip
    assert _inference_cpu.depthwise(xc[..., :7].copy(), w, None, pad, stride, dilation,
                                    out, act) is None  # fmt: skip


@needs_numba
@pytest.mark.parametrize(
    ("shape", "kernel", "pad", "stride", "dilation"),
    [
        ((16, 14, 14), (3, 3), (1, 1), (1, 1), (1, 1)),  # MobileNet-style's layers
        ((32, 14, 14), (3, 3), (1, 1), (2, 2), (1, 1)),
        ((8, 7, 7), (3, 3), (1, 1), (1, 1), (1, 1)),  # half the pixels at the edge
        ((3, 10, 11), (5, 3), (2, 0), (1, 2), (2, 1)),  # not 3x3: every tap checked
        ((4, 11, 10), (3, 3), (2, 1), (2, 1), (2, 1)),  # dilated
    ],
)
def test_depthwise_kernel_gives_a_sample_the_same_bytes_in_any_batch(shape, kernel, pad, stride,
                                                                     dilation):  # fmt: skip
    """A batch of 1-3 vectors per pixel (16, 32, 48 samples: the parts of a split batch) takes
    the kernel's row loop (four vectors across neighbouring pixels; exactly 2 vectors, the
    pair loop: two pixels' two vectors), exactly 4 two pixels' four at once, 8 and more the
    pixel loop: each sample's outputs are the same bytes in every batch."""
    rng = np.random.default_rng(11)
    lanes = _inference_cpu.lanes()
    xc = rng.normal(0, 2, (*shape, 8 * lanes)).astype(np.float32)
    w = rng.normal(0, 1, (shape[0], *kernel)).astype(np.float32)
    b = rng.normal(0, 1, shape[0]).astype(np.float32)
    out = tuple(
        (size + 2 * p - d * (k - 1) - 1) // s + 1
        for size, k, p, s, d in zip(shape[1:], kernel, pad, stride, dilation, strict=True)
    )
    whole = _inference_cpu.depthwise(xc, w, b, pad, stride, dilation, out, "ReLU")
    for vectors in (1, 2, 3, 4, 5, 7):
        n = vectors * lanes
        for lo in (0, 8 * lanes - n):
            part = np.ascontiguousarray(xc[..., lo : lo + n])
            got = _inference_cpu.depthwise(part, w, b, pad, stride, dilation, out, "ReLU")
            assert got.tobytes() == np.ascontiguousarray(whole[..., lo : lo + n]).tobytes(), n


@needs_numba
def test_add_act_and_channel_mean_match_numpy():
    rng = np.random.default_rng(11)
    base = rng.normal(0, 4, (8, 6, 5, 32)).astype(np.float32)
    other = rng.normal(0, 4, base.shape).astype(np.float32)
    base[0, 0, 0, 0] = np.nan
    for act in ("", "ReLU", "ReLU6"):
        # (N, C, H, W) views of batch-innermost buffers, as the convolutions hand them out
        x0, x1 = base.copy().transpose(3, 0, 1, 2), other.copy().transpose(3, 0, 1, 2)
        want = x0 + x1
        want = {"": want, "ReLU": np.maximum(want, 0), "ReLU6": np.clip(want, 0, 6)}[act]
        assert _inference_cpu.add_act(x0, x1, act)
        np.testing.assert_array_equal(x0, want)
    x0 = base.copy().transpose(3, 0, 1, 2)
    assert not _inference_cpu.add_act(x0, np.ascontiguousarray(x0), "ReLU")  # other layout
    means = _inference_cpu.channel_mean(base.reshape(8, 30, 32))
    np.testing.assert_allclose(means, base.reshape(8, 30, 32).mean(axis=1), rtol=1e-5, atol=1e-6)
    assert _inference_cpu.channel_mean(base.reshape(8, 30, 32)[:, ::2]) is None


@needs_numba
@pytest.mark.parametrize("act", ["", "ReLU", "ReLU6"])
@pytest.mark.parametrize(("k", "o", "m"), [(16, 32, 14 * 14 * 64), (7, 6, 5 * 16), (3, 1, 16)])
def test_pointwise_inference_kernel_matches_numpy(k, o, m, act):
    """Tiles of 4 rows x 4 vectors, the rows past the last whole tile (6 = 4 + 2, 1) and the
    vectors past it (5 = 4 + 1): the product, bias and activation of NumPy."""
    rng = np.random.default_rng(12)
    x = rng.normal(0, 1, (k, m)).astype(np.float32)
    x[0, 3] = np.nan
    w = rng.normal(0, 1, (o, k)).astype(np.float32)
    for b in (rng.normal(0, 1, o).astype(np.float32), None):
        got = _inference_cpu.pointwise(w, x, b, act)
        want = (w.astype(np.float64) @ x.astype(np.float64)) + (0 if b is None else b[:, None])
        want = {"": want, "ReLU": np.maximum(want, 0), "ReLU6": np.clip(want, 0, 6)}[act]
        assert got.shape == (o, m) and got.dtype == np.float32
        assert np.array_equal(np.isnan(got), np.isnan(want))
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    assert _inference_cpu.pointwise(w, x[:, :-1].copy(), None, act) is None  # not whole vectors
    assert _inference_cpu.pointwise(w.astype(np.float64), x.astype(np.float64), None, act) is None


NARROW_CHECK = """
import numpy as np
from engine.core.ops import _inference_cpu
kernels = _inference_cpu._compile()
rng = np.random.default_rng(13)
worst = 0.0
x = rng.normal(0, 1, (5, 9, 8, 48)).astype(np.float32)  # 48: 3 vectors of 16, 6 of 8, 12 of 4
w = rng.normal(0, 1, (5, 3, 3)).astype(np.float32)
b = rng.normal(0, 1, 5).astype(np.float32)
got = _inference_cpu.depthwise(x, w, b, (1, 1), (2, 1), (1, 1), (5, 8), "ReLU")
xp = np.pad(x, ((0, 0), (1, 1), (1, 1), (0, 0)))
want = np.zeros_like(got)
for a in range(3):
    for c in range(3):
        want += w[:, a, c, None, None, None] * xp[:, a:a + 10:2, c:c + 8]
want = np.maximum(want + b[:, None, None, None], 0)
worst = max(worst, float(np.abs(got - want).max()))
x2 = rng.normal(0, 1, (7, 16 * 9)).astype(np.float32)
w2 = rng.normal(0, 1, (6, 7)).astype(np.float32)
got = _inference_cpu.pointwise(w2, x2, b[:1].repeat(6), "ReLU6")
want = np.clip(w2 @ x2 + b[0], 0, 6)
worst = max(worst, float(np.abs(got - want).max()))
print(kernels["lanes"], worst)
"""


@needs_numba
@pytest.mark.parametrize("lanes", [8, 4], ids=["avx2-width", "neon-width"])
def test_inference_kernels_built_for_narrower_registers_compute_the_same(tmp_path, lanes):
    """What an AVX2 laptop (8 lanes) or an ARM machine (4) compiles; this machine runs both."""
    env = {**os.environ, "NEUROCANVAS_SIMD_LANES": str(lanes), "NUMBA_CACHE_DIR": str(tmp_path)}
    done = subprocess.run(
        [sys.executable, "-c", NARROW_CHECK], env=env, capture_output=True, text=True, check=True
    )
    used, worst = done.stdout.split()
    assert int(used) == lanes and float(worst) < 1e-5


def test_a_residual_add_folds_into_the_convolutions_bias_pass(kit):
    """conv -> BN -> Add2 (with the network's input, plain NCHW: the NumPy path) -> ReLU, and
    a second block whose Add2 reads a batch-innermost activation another layer reads too: the
    bias, the sum and the ReLU in the convolution's pass, the other operand left as it was."""
    layers = [kit.layer("Input", "Input", Size=(3, 6, 6), Dataset="x"),
              kit.layer("Convolution", "Convolution", OutMaps=3, KernelShape=(3, 3),
                        BorderMode="same"),
              kit.layer("BatchNormalization", "BatchNormalization", Axes=0),
              kit.layer("Add2", "Add2"), kit.layer("ReLU", "ReLU"),
              kit.layer("Convolution_2", "Convolution", OutMaps=3, KernelShape=(3, 3),
                        BorderMode="same"),
              kit.layer("Add2_2", "Add2"), kit.layer("ReLU6", "ReLU6"),
              kit.layer("Add2_3", "Add2")]  # fmt: skip
    links = [Link("Input", "Convolution"), Link("Convolution", "BatchNormalization"),
             Link("BatchNormalization", "Add2"), Link("Input", "Add2"), Link("Add2", "ReLU"),
             Link("ReLU", "Convolution_2"), Link("Convolution_2", "Add2_2"),
             Link("ReLU", "Add2_2"), Link("Add2_2", "ReLU6"), Link("ReLU6", "Add2_3"),
             Link("ReLU", "Add2_3")]  # fmt: skip
    program, params = _runtime(kit, layers, links)
    for batch in (4, 32):
        x = _x((3, 6, 6), batch)
        copy = x["x"].copy()
        plan = _compare(program, params, x)
        np.testing.assert_array_equal(x["x"], copy)
    fused = {op.name: (op.folded, op.act) for op in plan.ops if op.residual is not None}
    assert fused == {"Convolution": (("BatchNormalization", "Add2", "ReLU"), "ReLU"),
                     "Convolution_2": (("Add2_2", "ReLU6"), "ReLU6")}  # fmt: skip


@needs_numba
def test_a_layer_that_is_not_row_local_ends_the_parts_and_takes_the_joined_batch(kit, monkeypatch):
    """A grouped convolution (two maps a group: the im2col + GEMM path, OpenBLAS's kernel
    chosen by the product's size) after the first convolution: the parts run the first
    convolution only, its output (also the residual operand of the Add2 after the grouped
    one) is joined in its batch-innermost layout, and the rest runs on the whole batch; the
    bytes of one thread and the generic path's values, at 64 and 48 samples."""
    layers = [kit.layer("Input", "Input", Size=(4, 8, 8), Dataset="x"),
              kit.layer("Convolution", "Convolution", OutMaps=4, KernelShape=(3, 3),
                        BorderMode="same"),
              kit.layer("Grouped", "Convolution", OutMaps=4, KernelShape=(3, 3),
                        BorderMode="same", Group=2),
              kit.layer("Add2", "Add2"), kit.layer("ReLU", "ReLU"),
              kit.layer("Affine", "Affine", OutShape=5)]  # fmt: skip
    links = [Link("Input", "Convolution"), Link("Convolution", "Grouped"),
             Link("Grouped", "Add2"), Link("Convolution", "Add2"), Link("Add2", "ReLU"),
             Link("ReLU", "Affine")]  # fmt: skip
    program, params = _runtime(kit, layers, links)
    plan = inference_plan.build(program, params)
    assert plan._rows == 1 and plan._joined == [plan.ops[0].out]
    _threads.set_count(2)
    if _threads.count() != 2:
        pytest.skip("NumPy's BLAS does not take two threads here")
    joined = []
    real_join = inference_plan._join
    monkeypatch.setattr(inference_plan, "_join", lambda p: joined.append(r := real_join(p)) or r)
    for size in (64, 48):
        x = _x((4, 8, 8), size, seed=size)
        _compare(program, params, x)  # (its own plan, at the machine's threads)
        joined.clear()
        one, _ = _run_with_threads(plan, x, 1, monkeypatch)
        assert joined == []
        # _compare's plan (the same network) took the first trials: the split way asked for
        plan._choice.kept[(size, 2)] = "split"
        two, _ = _run_with_threads(plan, x, 2, monkeypatch)
        for name in one:
            assert one[name].tobytes() == two[name].tobytes()
        (a,) = joined
        assert a.shape == (size, 4, 8, 8)
        assert a.transpose(1, 2, 3, 0).flags.c_contiguous  # batch-innermost, as the whole's
        joined.clear()


@needs_numba
@pytest.mark.parametrize("sample", ["bn_dropout_digits.ncproj", "deep_mlp_4or9.ncproj"])
def test_affine_layers_take_the_1x1_loop_on_whole_vectors(sample):
    """The MLP samples' Affine layers (a BatchNormalization and a ReLU folded in) on the 1x1
    loop at 64 and 48 samples (the first from the feed's plain layout, transposed once; the
    others batch-innermost), against the generic path; 5 samples take the generic layer."""
    program, params = _sample_plan(sample)
    rng = np.random.default_rng(12)
    for size in (64, 48, 5):
        batch = {v: rng.random((size, *s), dtype=np.float32) for v, s in program.feeds.items()}
        plan = _compare(program, params, batch)
    affine = [op.function for op in plan.ops if op.name.startswith("Affine")]
    assert affine and all(type(f).__name__ == "_Affine" for f in affine)
    used = []
    real = _inference_cpu.pointwise
    _inference_cpu.pointwise = lambda *a: used.append(a[1].shape) or real(*a)
    before = _threads.count()
    _threads.set_count(1)  # the whole batch (two threads would run two parts of 32)
    try:
        plan.run({v: rng.random((64, *s), dtype=np.float32) for v, s in program.feeds.items()})
    finally:
        _inference_cpu.pointwise = real
        _threads.set_count(before)
    assert len(used) == len(affine) and all(shape[1] == 64 for shape in used)


@needs_numba
@pytest.mark.parametrize("sample", CNN_SAMPLES)
def test_convolutions_call_the_direct_kernel_and_give_the_layers_bytes(sample, monkeypatch):
    """Every 3x3/5x5 one-group convolution of the CNN samples calls the direct kernel itself
    (no geometry checks, no autograd record): the same bytes as the layer, which calls the
    same kernel; an odd batch (not whole vectors) goes to the layer."""
    program, params = _sample_plan(sample)
    plan = inference_plan.build(program, params)
    dense = [op for op in plan.ops if type(op.function).__name__ == "_Dense"]
    ran = {op.name for op in plan.ops}
    windows = [s for s in program.steps if s.type == "Convolution" and s.name in ran
               and params[s.inputs[1][1]].shape[2:] != (1, 1)]  # fmt: skip
    assert len(dense) == len(windows) > 0
    rng = np.random.default_rng(13)
    for size in (64, 5):
        batch = {v: rng.random((size, *s), dtype=np.float32) for v, s in program.feeds.items()}
        got, _ = _run_with_threads(plan, batch, 1, monkeypatch)
        with monkeypatch.context() as m:
            for op in dense:
                m.setattr(op, "function", op.function.generic)
            want, _ = _run_with_threads(plan, batch, 1, monkeypatch)
        for name in want:
            assert got[name].tobytes() == want[name].tobytes(), (size, name)


@needs_numba
def test_three_threads_cut_the_batch_in_three_uneven_parts(monkeypatch):
    """Three threads (as on a larger machine): 96 samples in three parts of 32, 80 in parts of
    16, 32 and 32, each part on whichever thread is free: the bytes of the whole batch on one
    thread (MobileNet-style: a convolution, depthwise, 1x1, pooled means, Affine, Softmax)."""
    program, params = _sample_plan("mobilenet_digits.ncproj")
    plan = inference_plan.build(program, params)
    lanes = _inference_cpu.lanes()
    rng = np.random.default_rng(14)
    before = _threads.count()
    cuts = []
    real_parts = plan._parts
    monkeypatch.setattr(plan, "_parts", lambda size: cuts.append(real_parts(size)) or cuts[-1])
    try:
        for vectors in (6, 5):
            size = vectors * lanes
            batch = {v: rng.random((size, *s), dtype=np.float32) for v, s in program.feeds.items()}
            _threads.set_count(1)
            one = {k: v.copy() for k, v in plan.run(batch).items()}
            with monkeypatch.context() as m:
                m.setattr(_threads, "count", lambda: 3)
                three = plan.run(batch)
            threads, parts = cuts[-1]
            assert threads == 3
            bounds = [vectors * k // 3 * lanes for k in range(4)]
            assert parts == list(zip(bounds[:-1], bounds[1:], strict=True))
            for name in one:
                assert one[name].tobytes() == three[name].tobytes()
    finally:
        _threads.set_count(before)

"""The exported Python file of every sample project reproduces the engine's outputs.

For each sample: the engine compiles Main (train mode) and MainRuntime/Runtime (test mode),
creates parameters, runs one random batch with ``nn.seed(1)`` just before the pass, and saves the
parameters. A fresh interpreter imports the exported file, loads those parameters, seeds the same
way and calls the network functions with ``test=False`` / ``test=True``. Dropout draws from the
engine's random generator in the same order, so train mode matches too (same seed).
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import engine.nn as nn
from engine.export.literals import ExportError, Identifiers, comment, doc, literal
from engine.export.python_code import exportable_networks, python_module, python_source
from engine.formats import load_project
from engine.runtime.compiler import compile_network

ROOT = Path(__file__).resolve().parents[3]
PROJECTS = sorted((ROOT / "projects").glob("*.ncproj"))
# NNC's recurrent tutorials: loops written unrolled (F.split per time step, shared parameters).
RECURRENT = sorted((ROOT / "tests" / "fixtures" / "nnc-samples" / "tutorial"
                    / "recurrent_neural_networks").glob("*.sdcproj"))  # fmt: skip
GOLDEN = ROOT / "tests" / "fixtures" / "export" / "lenet_digits.py.golden"

RUNNER = """
import importlib.util, sys
import numpy as np
import engine.nn as nn
spec = importlib.util.spec_from_file_location("exported", sys.argv[1])
mod = importlib.util.module_from_spec(spec)
spec.loader.exec_module(mod)
data = dict(np.load(sys.argv[2]))
results = {}
for key in sys.argv[4:]:
    function, mode = key.split(":")
    nn.clear_parameters()
    nn.load_parameters(sys.argv[3])
    nn.seed(1)
    names = [n for n in data if n.startswith(key.replace(":", "-") + ".")]
    args = [nn.Variable(data[n]) for n in sorted(names)]
    with nn.no_grad():
        outs = getattr(mod, function)(*args, test=(mode == "test"))
    for name, var in outs.items():
        results[key + ":" + name] = np.asarray(var.data)
np.savez(sys.argv[1] + ".out.npz", **results)
"""


def _batch(program, rng):
    """Random inputs of batch 3 (labels 0/1, valid for both cross-entropy kinds)."""
    batch = {}
    for name, shape in program.feeds.items():
        if name.startswith("y") or name in ("label", "t"):
            batch[name] = rng.integers(0, 2, (3, *shape)).astype(np.float32)
        else:
            batch[name] = rng.random((3, *shape), dtype=np.float32)
    return batch


def _engine_outputs(program, params, batch):
    nn.seed(1)
    with nn.no_grad():
        acts = program.forward(batch, params)
    out = {name: np.asarray(program.output(acts, name).data) for name, _ in program.outputs}
    out.update({name: np.asarray(acts[name].data) for name in program.losses})
    return out


@pytest.mark.parametrize("path", PROJECTS + RECURRENT, ids=lambda p: p.stem)
def test_exported_python_matches_the_engine(path, tmp_path):
    _assert_export_matches(load_project(path), tmp_path)


# NNC's own samples with what /projects lacks: Max with_index, a wired Parameter layer (F form),
# BinaryWeightAffine's alpha, Deconvolution, attention, residual units, MC dropout, audio.
NNC_SAMPLES = ("sin_wave_anomaly_detection", "02_l1_regularization", "binary_weight_mnist_MLP",
               "11_deconvolution", "03_attention", "12_residual_learning", "05_MCdropout",
               "wav_keyboard_sound")  # fmt: skip


@pytest.mark.slow
@pytest.mark.parametrize("name", NNC_SAMPLES)
def test_nnc_samples_export_matches_the_engine(name, tmp_path):
    path = next((ROOT / "tests" / "fixtures" / "nnc-samples").rglob(f"{name}.sdcproj"))
    _assert_export_matches(load_project(path), tmp_path)


def test_a_unit_with_a_computed_property_is_written_inline(tmp_path):
    """``OutMaps=*Expand*2`` cannot be computed from the function's arguments: the Fire layers
    are written inline (as the compiler expands them) and the export still matches."""
    project = load_project(ROOT / "projects" / "squeezenet_digits.ncproj")
    project.network("FireModule").set_property("Expand1x1", "OutMaps", "*Expand*2")
    source = _assert_export_matches(project, tmp_path)
    assert "def network_firemodule" not in source
    assert "h1 = PF.convolution(h, 64, (1, 1), name='Fire3/Expand1x1')" in source


def _assert_export_matches(project, tmp_path) -> str:
    runtime = project.executors[0].network
    networks = exportable_networks(project, (runtime,))
    source, functions = python_module(project, "sample", networks)
    for node in ast.walk(ast.parse(source)):  # readable code: no key written twice
        if isinstance(node, ast.Dict):
            keys = [k.value for k in node.keys if isinstance(k, ast.Constant)]
            assert len(keys) == len(set(keys)), keys
    file = tmp_path / "exported.py"
    file.write_text(source, encoding="utf-8")
    main = project.optimizers[0].network
    nn.clear_parameters()
    rng = np.random.default_rng(0)
    expected, data, keys = {}, {}, []
    for name, test in ((main, False), (main, True), (runtime, True)):
        program = compile_network(project, name, test_mode=test)
        params = program.create_parameters()
        batch = _batch(program, rng)
        key = f"{functions[name]}:{'test' if test else 'train'}"
        keys.append(key)
        for i, variable in enumerate(program.feeds):  # the function's arguments, in order
            data[f"{key.replace(':', '-')}.{i:02d}"] = batch[variable]
        saved = {k: v.data.copy() for k, v in params.items()}
        for out_name, value in _engine_outputs(program, params, batch).items():
            expected[f"{key}:{out_name}"] = value
        for k, v in params.items():  # train-mode batch statistics moved: restore
            v.data[...] = saved[k]
    nn.save_parameters(tmp_path / "params.npz")
    np.savez(tmp_path / "data.npz", **data)
    done = subprocess.run(
        [sys.executable, "-c", RUNNER, str(file), str(tmp_path / "data.npz"),
         str(tmp_path / "params.npz"), *keys],
        capture_output=True, text=True, cwd=ROOT, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    got = dict(np.load(str(file) + ".out.npz"))
    assert set(got) == set(expected)
    for key, value in expected.items():
        assert got[key].shape == value.shape, key
        diff = np.abs(got[key].astype(np.float32) - value).max()
        assert diff <= 1e-5, f"{key}: differs by {diff} (values up to {np.abs(value).max()})"
    return source


def test_identifiers_are_valid_and_unique():
    ids = Identifiers(("test",))
    made = [ids.new(n) for n in ("Conv 1", "conv_1", "test", "1st", "class", "__x", "", "ü")]
    assert made == ["conv_1", "conv_1_2", "test_2", "h_1st", "h_class", "x", "h", "h_2"]
    assert all(m.isidentifier() for m in made)


def test_literals_reject_what_is_not_data():
    assert literal((1, 2.5, True, "a'b\n")) == '(1, 2.5, True, "a\'b\\n")'
    assert literal((3,)) == "(3,)"
    for bad in (float("nan"), float("inf"), object(), {"a": 1}):
        with pytest.raises(ExportError):
            literal(bad)
    assert "\n" not in comment("a\nimport os")
    assert '"' not in doc('x"""; import os; """') and "\n" not in doc("a\nb")


def test_unit_layers_become_unit_function_calls():
    """SqueezeNet's Fire units: one function whose arguments size its layers, called in the
    Unit layer's parameter scope; other argument values work too (they raised ValueError)."""
    project = load_project(ROOT / "projects" / "squeezenet_digits.ncproj")
    source = python_source(project, "squeezenet", exportable_networks(project))
    assert source.count("def network_firemodule(x, squeeze=8, expand=16, test=False):") == 1
    assert "PF.convolution(x, squeeze, (1, 1), name='SqueezeConv')" in source
    assert (
        "    with nn.parameter_scope('Fire3'):\n"
        "        h = network_firemodule(h, 16, 32, test=test)\n"
    ) in source
    namespace: dict = {}
    exec(compile(source, "squeezenet.py", "exec"), namespace)  # our own generated code
    nn.clear_parameters()
    x = nn.Variable(np.zeros((1, 16, 14, 14), np.float32))
    with nn.parameter_scope("FireX"):
        out = namespace["network_firemodule"](x, squeeze=5, expand=7, test=True)
    assert out.shape == (1, 14, 14, 14)
    params = {k: v.shape for k, v in nn.get_parameters().items()}
    assert params["FireX/SqueezeConv/conv/W"] == (5, 16, 1, 1)
    assert params["FireX/Expand3x3/conv/W"] == (7, 5, 3, 3)


def test_golden_lenet_export():
    """The LeNet sample's export, word for word: a style change shows in review. After an
    intended change: NEUROCANVAS_UPDATE_GOLDEN=1 python -m pytest tests/engine/export."""
    project = load_project(ROOT / "projects" / "lenet_digits.ncproj")
    runtime = project.executors[0].network
    source = python_source(project, "lenet_digits", exportable_networks(project, (runtime,)))
    if os.environ.get("NEUROCANVAS_UPDATE_GOLDEN"):
        GOLDEN.write_text(source, encoding="utf-8")
    assert source == GOLDEN.read_text(encoding="utf-8")


def _lenet_with_own_initializers():
    """LeNet with a He(forward) x2 convolution weight and a frozen (LR 0) Affine layer."""
    project = load_project(ROOT / "projects" / "lenet_digits.ncproj")
    net = project.network("Main")
    net.set_property("Convolution", "W.Initializer", "NormalConvolutionHeForward")
    net.set_property("Convolution", "W.InitializerMultiplier", "2.0")
    net.set_property("Affine_2", "b.Initializer", "Uniform")
    for p in ("W", "b"):
        net.set_property("Affine", f"{p}.LRateMultiplier", "0")
    return project


@pytest.mark.parametrize("target", ["neurocanvas", "nnabla"])
@pytest.mark.parametrize("path", [*PROJECTS, None], ids=[p.stem for p in PROJECTS] + ["own"])
def test_exported_code_initializes_parameters_as_the_project(path, target):
    """Run with the same seed, the exported code creates every parameter with the values the
    engine gives it: initializers that differ from PF's defaults are written, the rest left out
    (the LeNet variant passes w_init=He x 2, b_init=Uniform and fix_parameters=True). The
    nnabla target runs here with engine.nn imports: that checks the initializers it writes
    (fans in unit bodies follow the input and the arguments: x.shape[1], squeeze)."""
    project = _lenet_with_own_initializers() if path is None else load_project(path)
    main = project.optimizers[0].network
    source, functions = python_module(project, "p", exportable_networks(project), target)
    for lib, ours in (("nnabla.parametric_functions", "engine.nn.parametric"),
                      ("nnabla", "engine.nn")):  # fmt: skip
        source = source.replace(f"import {lib}", f"import {ours}")
    if path is None and target == "nnabla":
        assert "w_init=I.NormalInitializer(I.calc_normal_std_glorot(480, 150))" in source
    if path is None:
        assert "w_init=I.NormalInitializer(I.calc_normal_std_he_forward(1, 16, (7, 7)) * 2.0)" in (
            source
        )
        assert "b_init=I.UniformInitializer((-0.0, 0.0))" in source
        assert "fix_parameters=True, name='Affine')" in source
    program = compile_network(project, main, test_mode=True)
    nn.clear_parameters()
    nn.seed(0)
    expected = {k: np.asarray(v.data).copy() for k, v in program.create_parameters().items()}
    nn.clear_parameters()
    namespace: dict = {}
    exec(compile(source, "exported.py", "exec"), namespace)  # our own generated code
    nn.seed(0)
    batch = _batch(program, np.random.default_rng(0))
    with nn.no_grad():
        namespace[functions[main]](*[nn.Variable(batch[v]) for v in program.feeds], test=True)
    got = {k: np.asarray(v.data) for k, v in nn.get_parameters(grad_only=False).items()}
    assert set(got) == set(expected)
    for name, value in expected.items():
        if name.endswith(("/Wb", "/alpha")):  # binarized copies the forward pass writes
            continue
        assert np.array_equal(got[name].reshape(value.shape), value), name


def test_recurrent_loops_are_written_as_for_loops():
    """Elman: the 28 time steps are one ``for`` loop (the input split once, the Delay a state
    variable, RecurrentOutput a list stacked after it); the numbers are checked above."""
    project = load_project(ROOT / "projects" / "elman_4or9.ncproj")
    source = python_source(project, "elman", exportable_networks(project))
    loop = (
        "    recurrentinput = F.split(x, axis=2)\n"
        "    delay_state = h\n"
        "    tanh_steps = []\n"
        "    for t in range(28):\n"
        "        # RecurrentInput -> 1,28\n"
        "        h1 = recurrentinput[t]\n"
        "        # Concatenate -> 2,28\n"
        "        h1 = F.concatenate(h1, delay_state, axis=1)\n"
    )
    assert loop in source and "[t=" not in source
    assert "        delay_state = h1\n        tanh_steps.append(h1)\n" in source
    assert "    h = F.stack(*tanh_steps, axis=2)\n" in source


def test_a_loop_read_at_a_middle_time_step_stays_unrolled():
    """A value of time step 5 read after the loop has no name in a ``for`` loop: unrolled."""
    from dataclasses import replace

    from engine.export.loops import find_loops

    project = load_project(ROOT / "projects" / "elman_4or9.ncproj")
    program = compile_network(project, "Main", test_mode=False)
    tests = {s.name: s for s in compile_network(project, "Main", test_mode=True).steps}
    steps = program.steps
    (loop,) = find_loops(steps, tests, [])
    assert (loop.length, loop.size, set(loop.carried)) == (28, 4, {"Tanh"})
    i = next(i for i, s in enumerate(steps) if s.name == "Slice")
    middle = replace(steps[i], inputs=(("step", "Tanh[t=5]"),))
    assert find_loops((*steps[:i], middle, *steps[i + 1 :]), tests, []) == []
    assert find_loops(steps, tests, [("step", "Tanh[t=27]")])[0].last == {"Tanh"}

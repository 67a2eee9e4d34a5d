"""The exported ``.nnp`` in the real nnabla: ``NnpLoader`` runs it and gives our outputs.

Optional: nnabla 1.39 publishes wheels for Python 3.10 only, so the test runs nnabla in the
interpreter named by ``NNABLA_PYTHON`` (``.ci/run`` sets one up where it can) and is skipped,
saying so, when that variable is unset.
"""

from __future__ import annotations

import json
import os
import subprocess
import textwrap

import numpy as np
import pytest
from model_kit import (
    PROJECTS,
    nested_loops_project,
    outputs,
    randomized,
    sample_inputs,
    save,
    working_memory_project,
)
from nnc_samples import LENET, LOOP_SAMPLES

import engine.nn as nn
import engine.nn.functions as F
from engine.export import Source, export_nnp
from engine.formats import load_project
from engine.formats.nnabla.nnp_write import generator_name
from engine.runtime.compiler import compile_network

NNABLA = os.environ.get("NNABLA_PYTHON")
pytestmark = pytest.mark.skipif(
    not NNABLA, reason="NNABLA_PYTHON is unset (a Python 3.10 with nnabla 1.39 installed)"
)

RUNNER = textwrap.dedent("""
    import json, sys
    import numpy as np
    from nnabla.utils.nnp_graph import NnpLoader
    for case in json.load(open(sys.argv[1])):
        x = {name: np.load(path) for name, path in case["x"].items()}
        batch = next(iter(x.values())).shape[0]
        net = NnpLoader(case["nnp"]).get_network(case["network"], batch_size=batch)
        for name, value in x.items():
            net.inputs[name].d = value.reshape(net.inputs[name].shape)
        for name, value in case["constants"].items():  # Constant generators, buffers
            net.inputs[name].d = value
        for k, name in enumerate(case["outputs"]):
            net.outputs[name].forward(clear_buffer=True)
            np.save(f"{case['y']}.{k}.npy", net.outputs[name].d)
""")


def test_nnabla_runs_our_nnp_files_like_the_engine(tmp_path):
    """Every sample project, LeNet and NNC's loop samples (recurrent loops, Delay, LSTM, repeat
    blocks, written folded as NNC does and expanded by nnabla when it loads them), and nested
    repeat blocks around a recurrent loop."""
    cases, expected = [], {}
    projects = [(p.stem, load_project(p)) for p in [*PROJECTS, LENET, *LOOP_SAMPLES]]
    for stem, project in [*projects, ("nested_loops", nested_loops_project())]:
        network = project.executors[0].network
        program = compile_network(project, network)
        values = randomized(program)
        source = Source(project, stem, network, save(values, tmp_path / "p.npz"), True)
        nnp = export_nnp(source, tmp_path / f"{stem}.nnp")
        x = sample_inputs(program)
        folded = compile_network(project, network, folded=True)
        constants = {generator_name(i): g.multiplier for i, g in enumerate(folded.generators)
                     if g.kind == "Constant"}  # fmt: skip
        for name, value in x.items():
            np.save(tmp_path / f"{stem}.{name}.npy", value)
        expected[stem] = outputs(project, network, values, x)
        cases.append({"nnp": str(nnp), "network": network, "constants": constants,
                      "x": {n: str(tmp_path / f"{stem}.{n}.npy") for n in x},
                      "outputs": [str(ref[1]) for _, ref in folded.outputs],
                      "y": str(tmp_path / f"{stem}.y")})  # fmt: skip
    (tmp_path / "cases.json").write_text(json.dumps(cases))
    (tmp_path / "run.py").write_text(RUNNER)
    done = subprocess.run([NNABLA, str(tmp_path / "run.py"), str(tmp_path / "cases.json")],
                          capture_output=True, text=True, timeout=600)  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    for stem, values in expected.items():
        for k, value in enumerate(values):
            got = np.load(tmp_path / f"{stem}.y.{k}.npy")
            np.testing.assert_allclose(got.reshape(value.shape), value, atol=1e-4, rtol=1e-4,
                                       err_msg=f"{stem} output {k}")  # fmt: skip


def test_nnabla_runs_working_memory_like_the_engine(tmp_path):
    """A WorkingMemory read without input is a Buffer input in nnabla, one row per sample
    (NNC's runtime fills it from the initializer; here from our rows), one that stores is an
    Identity."""
    project = working_memory_project(PROJECTS[0].parent / "iris.ncproj")
    program = compile_network(project, "MainRuntime")
    values = randomized(program)
    values["mem"] = np.random.default_rng(3).normal(size=(3, 4)).astype(np.float32)
    nnp = export_nnp(Source(project, "wm", "MainRuntime", save(values, tmp_path / "p.npz"),
                            True), tmp_path / "wm.nnp")  # fmt: skip
    x = sample_inputs(program, batch=3)  # nnabla's buffer is (3, 4), as ours
    np.save(tmp_path / "x.npy", x["x"])
    case = {
        "nnp": str(nnp),
        "network": "MainRuntime",
        "x": {"x": str(tmp_path / "x.npy")},
        "constants": {"mem": values["mem"].tolist()},
        "outputs": [str(ref[1]) for _, ref in program.outputs],
        "y": str(tmp_path / "y"),
    }
    (tmp_path / "cases.json").write_text(json.dumps([case]))
    (tmp_path / "run.py").write_text(RUNNER)
    done = subprocess.run([NNABLA, str(tmp_path / "run.py"), str(tmp_path / "cases.json")],
                          capture_output=True, text=True, timeout=600)  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    expected = outputs(project, "MainRuntime", values, x)[0]
    np.testing.assert_allclose(np.load(tmp_path / "y.0.npy"), expected, atol=1e-4, rtol=1e-4)


TRAINER_LOADER = textwrap.dedent("""
    import json, sys
    from nnabla.utils.load import load
    info = load([sys.argv[1]], prepare_data_iterator=False, batch_size=4)
    grad = {n: net.variables["grad"].variable_instance for n, net in info.networks.items()
            if "grad" in net.variables}
    first = next(iter(grad.values()))
    print(json.dumps({"shared": {n: v is first for n, v in grad.items()},
                      "shape": list(first.shape), "executors": list(info.executors)}))
""")


def test_nnablas_trainer_loads_vat_with_its_working_memory_shared(tmp_path):
    """NNC's VAT sample through nnabla's own loader (``nnabla.utils.load``, what nnabla's CLI
    trains with): its WorkingMemory ``grad`` is one batch-sized buffer shared by the four
    networks that name it, and the executor that needs back propagation has its loss."""
    path = LENET.parent / "semi_supervised_learning_VAT.sdcproj"
    project = load_project(path)
    nnp = export_nnp(Source(project, "vat", "Runtime", None, True), tmp_path / "vat.nnp")
    (tmp_path / "load.py").write_text(TRAINER_LOADER)
    done = subprocess.run([NNABLA, str(tmp_path / "load.py"), str(nnp)], capture_output=True,
                          text=True, timeout=600)  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen["shared"] == dict.fromkeys(["NoiseEstimation", "VATLoss", "Runtime", "Runtime2"],
                                           True)  # fmt: skip
    assert seen["shape"] == [4, 1, 28, 28]
    assert seen["executors"] == ["Executor", "Executor_1"]
    program = compile_network(project, "NoiseEstimation")  # ours at batch 4: the same buffer
    with nn.parameter_scope("", {}):
        params = program.create_parameters()
        acts = program.forward({"xu": np.zeros((4, 1, 28, 28), np.float32)}, params)
        F.mean(program.loss_values(acts)[0]).backward()  # VATNoise writes it
    assert list(params["grad"].shape) == seen["shape"]


OPTIMIZED = textwrap.dedent("""
    import json, sys
    from nnabla.utils.load import load
    info = load([sys.argv[1]], prepare_data_iterator=False, batch_size=2)
    print(json.dumps({n: sorted(o.parameters) for n, o in info.optimizers.items()}))
""")


def test_nnablas_trainer_trains_every_iteration_of_a_repeat_block(tmp_path):
    """resnet-110 repeats its blocks 17 times: nnabla's trainer must find the parameters of
    every iteration (it matches a ``{id}`` name only up to iteration 9, so the optimizer lists
    the expanded names)."""
    path = next(p for p in LOOP_SAMPLES if p.stem == "resnet-110")
    project = load_project(path)
    nnp = export_nnp(Source(project, "r", "MainRuntime", None, True), tmp_path / "r.nnp")
    (tmp_path / "optimized.py").write_text(OPTIMIZED)
    done = subprocess.run([NNABLA, str(tmp_path / "optimized.py"), str(nnp)],
                          capture_output=True, text=True, timeout=600)  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    trained = json.loads(done.stdout.strip().splitlines()[-1])
    for opt in project.optimizers:
        program = compile_network(project, opt.network)
        ours = sorted(d.name for d in program.parameters if d.lr_multiplier > 0)
        assert trained[opt.name] == ours
        assert "Convolution_5[16]/conv/W" in ours


WRITER = textwrap.dedent("""
    import sys
    import numpy as np
    import nnabla as nn
    import nnabla.functions as F
    import nnabla.parametric_functions as PF
    from nnabla.utils.save import save

    rng = np.random.default_rng(0)
    x = nn.Variable((2, 3, 12, 12))
    with nn.parameter_scope("conv1"):
        h = PF.convolution(x, 4, (3, 3), pad=(1, 1))
    h = PF.batch_normalization(h, batch_stat=False, name="bn1")
    h = F.max_pooling(F.relu(h), (2, 2))
    with nn.parameter_scope("dw"):
        h = PF.depthwise_convolution(h, (3, 3), pad=(1, 1))
    h = F.leaky_relu(h, 0.2)
    with nn.parameter_scope("fc"):
        y = F.softmax(PF.affine(h, 5))
    for name, p in nn.get_parameters(grad_only=False).items():
        var = name.endswith("var")
        p.d = rng.uniform(0.5, 2, p.shape) if var else rng.normal(0, 0.5, p.shape)
    x.d = rng.normal(size=x.shape)
    y.forward()
    np.save(sys.argv[2], x.d)
    np.save(sys.argv[3], y.d)
    save(sys.argv[1], {"networks": [{"name": "net", "batch_size": 2, "outputs": {"y": y},
                                     "names": {"x": x}}],
                       "executors": [{"name": "runtime", "network": "net", "data": ["x"],
                                      "output": ["y"]}]})
""")


def test_an_nnp_written_by_nnabla_imports_and_matches_nnabla(tmp_path):
    """The other direction: nnabla's own writer (PF convolution, batch normalization,
    depthwise convolution, affine) -> our import -> the engine gives nnabla's outputs."""
    (tmp_path / "write.py").write_text(WRITER)
    nnp, x, y = (tmp_path / n for n in ("model.nnp", "x.npy", "y.npy"))
    done = subprocess.run([NNABLA, str(tmp_path / "write.py"), str(nnp), str(x), str(y)],
                          capture_output=True, text=True, timeout=600)  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    from engine.model_import import read_model

    imported = read_model(nnp)
    layers = [layer.type for layer in imported.project.network("net").layers]
    assert layers == ["Input", "Convolution", "BatchNormalization", "ReLU", "MaxPooling",
                      "DepthwiseConvolution", "LeakyReLU", "Affine", "Softmax"]  # fmt: skip
    got = outputs(imported.project, "net", imported.parameters, {"x": np.load(x)})[0]
    np.testing.assert_allclose(got, np.load(y), atol=1e-4, rtol=1e-4)

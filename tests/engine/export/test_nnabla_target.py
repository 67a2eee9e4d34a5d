"""``--target nnabla``: every sample's export runs on nnabla itself and matches the engine.

nnabla 1.39 has wheels for Python 3.10 only, so it lives in its own interpreter: set
NNABLA_PYTHON to that interpreter (``.ci/run`` makes one at .nnabla-venv where it can;
docs/export.md §6). For each sample the engine creates parameters and runs a random batch; nnabla
loads the same parameters from the exported ``.h5`` and runs the exported functions. Test mode
for every network; train mode too where the network has no training-only layers (nnabla's
Dropout masks and augmentations differ from the engine's random numbers). Tolerance 1e-5,
relative for values above 1 (float32 sums rounded by two libraries: a residual network's loss
of 5.08 differs by 1.05e-5).
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import numpy as np
import pytest

import engine.nn as nn
from engine.export.nnabla_parameters import nnabla_shapes, write_nnabla_h5
from engine.export.python_code import exportable_networks, python_module
from engine.formats import load_project
from engine.runtime.compiler import compile_network

ROOT = Path(__file__).resolve().parents[3]
PROJECTS = sorted((ROOT / "projects").glob("*.ncproj"))
NNABLA_PYTHON = os.environ.get("NNABLA_PYTHON", "")
needs_nnabla = pytest.mark.skipif(
    not NNABLA_PYTHON,
    reason="NNABLA_PYTHON is not set (a Python 3.10 with nnabla 1.39; see docs/export.md §6)",
)

RUNNER = """
import importlib.util, sys
import numpy as np
import nnabla as nn
spec = importlib.util.spec_from_file_location("exported", sys.argv[1])
mod = importlib.util.module_from_spec(spec)
spec.loader.exec_module(mod)
data = dict(np.load(sys.argv[2]))
results = {}
for key in sys.argv[4:]:
    function, mode = key.split(":")
    nn.clear_parameters()
    nn.load_parameters(sys.argv[3])
    names = sorted(n for n in data if n.startswith(key.replace(":", "-") + "."))
    args = [nn.Variable.from_numpy_array(data[n]) for n in names]
    with nn.auto_forward(), nn.no_grad():
        outs = getattr(mod, function)(*args, test=(mode == "test"))
    for name, var in outs.items():
        results[key + ":" + name] = np.array(var.d)
np.savez(sys.argv[1] + ".out.npz", **results)
"""


def _batch(program, rng):
    batch = {}
    for name, shape in program.feeds.items():
        if name.startswith("y") or name in ("label", "t"):
            batch[name] = rng.integers(0, 2, (3, *shape)).astype(np.float32)
        else:
            batch[name] = rng.random((3, *shape), dtype=np.float32)
    return batch


def _random(project, name) -> bool:
    """The network has training-only layers (Dropout, augmentation): they draw random numbers."""
    test = {s.name for s in compile_network(project, name, test_mode=True).steps}
    return any(s.name not in test for s in compile_network(project, name, test_mode=False).steps)


NNC_SAMPLES = ROOT / "tests" / "fixtures" / "nnc-samples"
# NNC's own samples with what /projects lacks (see test_python_code.NNC_SAMPLES). Not
# 03_attention: it feeds 196 x softmax (values above 1) to BinaryCrossEntropy, where log(1 - x)
# is undefined and nnabla and the engine clip differently (6.9334 vs 6.9360).
SAMPLES = [*PROJECTS, *(next(NNC_SAMPLES.rglob(f"{name}.sdcproj")) for name in (
    "sin_wave_anomaly_detection", "02_l1_regularization", "binary_weight_mnist_MLP",
    "11_deconvolution", "12_residual_learning", "wav_keyboard_sound"))]  # fmt: skip


@needs_nnabla
@pytest.mark.slow
@pytest.mark.parametrize("path", SAMPLES, ids=[p.stem for p in SAMPLES])
def test_nnabla_target_matches_the_engine(path, tmp_path):
    project = load_project(path)
    runtime = project.executors[0].network
    networks = exportable_networks(project, (runtime,))
    source, functions = python_module(project, path.stem, networks, target="nnabla")
    assert "import nnabla.parametric_functions as PF" in source and "engine" not in source
    file = tmp_path / "exported.py"
    file.write_text(source, encoding="utf-8")
    main = project.optimizers[0].network
    nn.clear_parameters()
    rng = np.random.default_rng(0)
    expected, data, keys = {}, {}, []
    for name, test in ((main, False), (main, True), (runtime, True)):
        program = compile_network(project, name, test_mode=test)
        params = program.create_parameters()
        if not test and _random(project, name):
            continue
        batch = _batch(program, rng)
        key = f"{functions[name]}:{'test' if test else 'train'}"
        keys.append(key)
        for i, variable in enumerate(program.feeds):
            data[f"{key.replace(':', '-')}.{i:02d}"] = batch[variable]
        saved = {k: v.data.copy() for k, v in params.items()}
        with nn.no_grad():
            acts = program.forward(batch, params)
        for out_name, _ in program.outputs:
            expected[f"{key}:{out_name}"] = np.asarray(program.output(acts, out_name).data)
        for out_name in program.losses:
            expected[f"{key}:{out_name}"] = np.asarray(acts[out_name].data)
        for k, v in params.items():  # train-mode batch statistics moved: restore
            v.data[...] = saved[k]
    nn.save_parameters(tmp_path / "params.npz")
    write_nnabla_h5(tmp_path / "params.npz", tmp_path / "params.h5",
                    nnabla_shapes(project, networks))  # fmt: skip
    np.savez(tmp_path / "data.npz", **data)
    done = subprocess.run(
        [NNABLA_PYTHON, "-c", RUNNER, str(file), str(tmp_path / "data.npz"),
         str(tmp_path / "params.h5"), *keys],
        capture_output=True, text=True, cwd=tmp_path, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    got = dict(np.load(str(file) + ".out.npz"))
    assert set(got) == set(expected)
    for key, value in expected.items():
        assert got[key].shape == value.shape, key
        # 1e-5, relative to values above 1: two libraries round float32 sums differently
        limit = 1e-5 * np.maximum(1.0, np.abs(value))
        diff = np.abs(got[key].astype(np.float32) - value)
        worst = np.unravel_index(np.argmax(diff / limit), diff.shape)
        assert (diff <= limit).all(), f"{key}: {got[key][worst]} vs {value[worst]}"


SIGNATURES = """
import inspect, json, sys
import nnabla.parametric_functions as PF
names = json.loads(sys.argv[1])
print(json.dumps({n: list(inspect.signature(getattr(PF, n)).parameters) if hasattr(PF, n) else None
                  for n in names}))
"""


@needs_nnabla
def test_engine_parametric_functions_have_nnabla_signatures():
    """Every PF function of engine.nn.parametric exists in nnabla with the same argument names
    (exported code calls them by keyword); ``lr_mult`` (NNC's LRateMultiplier) is the engine's
    only addition, and the nnabla target never writes it."""
    import inspect
    import json

    import engine.nn.parametric as PF

    names = [n for n in PF.__all__ if n != "parametric_function_api"]
    done = subprocess.run([NNABLA_PYTHON, "-c", SIGNATURES, json.dumps(names)],
                          capture_output=True, text=True, timeout=120)  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    theirs = json.loads(done.stdout.strip().splitlines()[-1])
    allowed = {"lr_mult", "rng"}  # nnabla's embed draws from the global generator
    for name in names:
        assert theirs[name] is not None, f"nnabla has no PF.{name}"
        ours = list(inspect.signature(getattr(PF, name)).parameters)
        extra = set(ours[1:]) - set(theirs[name]) - allowed  # the first is the input
        assert not extra, f"PF.{name}: {sorted(extra)} not in nnabla's {theirs[name]}"

"""NNC's own deploy route: a job's ``results.nnp`` converted by nnabla to NNB and run by
nnabla's C runtime gives the engine's outputs.

NNC users deploy to microcontrollers with ``nnabla_cli convert results.nnp model.nnb`` and the
nnabla-c-runtime library (github.com/sony/nnabla-c-runtime). The conversion needs nnabla 1.39,
whose wheels are for Python 3.10 only: it runs with the interpreter named by
``NNABLA_PYTHON`` (``.ci/run`` sets one up) and is skipped, saying so, without it. Running the
NNB file needs the runtime's ``nnablart`` program built from its sources (``NNABLART``: see
docs/export.md §9); without it that part is skipped, saying so.
"""

from __future__ import annotations

import os
import struct
import subprocess
from pathlib import Path

import numpy as np
import pytest

import engine.nn as nn
from engine.cli import main
from tests.engine.export.test_onnx_model import _engine_on_validation

ROOT = Path(__file__).resolve().parents[3]
NNABLA = os.environ.get("NNABLA_PYTHON")
NNABLART = os.environ.get("NNABLART")
ROWS = 297  # every validation image of digits
RUNTIME_API_LEVEL = 44  # nnabla-c-runtime's NN_API_LEVEL; nnabla 1.39 writes 45 by default

pytestmark = pytest.mark.skipif(
    not NNABLA, reason="NNABLA_PYTHON is unset (a Python 3.10 with nnabla 1.39 installed)"
)


@pytest.fixture(scope="module")
def nnb(tmp_path_factory):
    """(job folder, model.nnb) of a LeNet trained for one epoch, converted by nnabla_cli."""
    tmp = tmp_path_factory.mktemp("nnb")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("NEUROCANVAS_CACHE", str(tmp / "cache"))
        assert main(["train", str(ROOT / "projects" / "lenet_digits.ncproj"), "-o",
                     str(tmp / "job"), "--epochs", "1", "--seed", "0"]) == 0  # fmt: skip
    nn.clear_parameters()
    cli = Path(NNABLA).parent / "nnabla_cli"
    model = tmp / "model.nnb"
    done = subprocess.run([str(cli), "convert", "--api", str(RUNTIME_API_LEVEL),
                           str(tmp / "job" / "results.nnp"), str(model)],
                          capture_output=True, text=True)  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    return tmp, model


def test_nnabla_converts_a_jobs_results_nnp_to_nnb(nnb):
    tmp, model = nnb
    data = model.read_bytes()
    version, api_level = struct.unpack_from("<ii", data)  # nn_network_t's first two fields
    assert (version, api_level) == (2, RUNTIME_API_LEVEL)
    # the float parameters are all there: LeNet's 78,810 weights and biases, 4 bytes each
    assert len(data) > 78_810 * 4


@pytest.mark.skipif(not NNABLART, reason="NNABLART is unset (nnabla-c-runtime's nnablart "
                    "program, built from github.com/sony/nnabla-c-runtime)")  # fmt: skip
def test_nnabla_c_runtime_runs_the_nnb_like_the_engine(nnb, monkeypatch):
    tmp, model = nnb
    monkeypatch.setenv("NEUROCANVAS_CACHE", str(tmp / "cache"))
    _, x, _, expected = _engine_on_validation(tmp / "job", tmp / "cache", ROWS)
    got = []
    for i, image in enumerate(x):
        image.astype("<f4").tofile(tmp / f"in{i}.bin")
        done = subprocess.run([NNABLART, "infer", str(model), str(tmp / f"in{i}.bin"),
                               str(tmp / f"out{i}")], capture_output=True, text=True)  # fmt: skip
        assert done.returncode == 0, done.stdout
        got.append(np.fromfile(tmp / f"out{i}_0.bin", dtype="<f4"))
    got = np.array(got)
    assert got.shape == expected.shape == (ROWS, 10)
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-5)
    assert (got.argmax(axis=1) == expected.argmax(axis=1)).all()
    print(f"NNB (nnabla-c-runtime): max |NNB - engine| {np.abs(got - expected).max():.1e} "
          f"on {ROWS} images, {model.stat().st_size} bytes")  # fmt: skip

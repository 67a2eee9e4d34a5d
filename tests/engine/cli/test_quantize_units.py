"""``neurocanvas quantize`` on a network built from Units (projects/residual_digits: a residual
block Unit called twice, Res1 and Res2, each with its own parameters): calibration reaches the
units' outputs and the Convolution weights inside each call are quantized."""

from __future__ import annotations

import csv
import json
import math
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from engine.data import builtin
from engine.quantization.scheme import power_of_two_delta

ROOT = Path(__file__).parents[3]
RESIDUAL = ROOT / "projects" / "residual_digits.ncproj"
# residual_digits' parameters by hand: (W, b, other float parameters) per parametric layer.
CONV_IN = (16 * 1 * 3 * 3, 16)  # Convolution: 1 -> 16 maps, 3x3
BLOCK = (16 * 16 * 3 * 3, 16)  # each of the two Convolutions in a residual block
AFFINE = (16 * 7 * 7 * 10, 10)
BN = 4 * 16  # beta, gamma, mean, var of one BatchNormalization (never quantized)


def _bytes(bits: int) -> int:
    """Parameter bytes with every W and b at ``bits`` (rounded up per parameter), BN float32."""
    wb = [CONV_IN, BLOCK, BLOCK, BLOCK, BLOCK, AFFINE]
    return sum(math.ceil(w * bits / 8) + math.ceil(b * bits / 8) for w, b in wb) + 5 * BN * 4


def _env(cache: Path) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(ROOT), "NEUROCANVAS_CACHE": str(cache)}


def _run(cache: Path, *args: str) -> subprocess.CompletedProcess:
    command = [sys.executable, "-m", "engine.cli", *args]
    return subprocess.run(command, capture_output=True, text=True, env=_env(cache), cwd=ROOT,
                          timeout=600)  # fmt: skip


@pytest.fixture(scope="module")
def residual_job(tmp_path_factory):
    """(cache, job): residual_digits trained 1 epoch on digits, seed 0, by the CLI."""
    root = tmp_path_factory.mktemp("residual")
    builtin.ensure("digits", root=root / "cache")
    done = _run(root / "cache", "train", str(RESIDUAL), "-o", str(root / "job"), "--epochs", "1",
                "--seed", "0")  # fmt: skip
    assert done.returncode == 0, done.stderr
    return root / "cache", root / "job"


def _job_parameters(job: Path) -> dict[str, np.ndarray]:
    """The job's parameters by name, read with NumPy (the archive's meta maps names to keys)."""
    with np.load(job / "checkpoints" / "best" / "parameters.npz", allow_pickle=False) as f:
        arrays = {k: f[k] for k in f.files}
    meta = json.loads(bytes(arrays.pop("__neurocanvas_meta__", arrays.pop("meta", b"{}"))))
    return {p["name"]: arrays[p["key"]] for p in meta["parameters"]}


def test_insert_quantizes_inside_each_unit_call_calibrated_on_that_call(residual_job, tmp_path):
    cache, job = residual_job
    out = tmp_path / "q.ncproj"
    done = _run(cache, "quantize", "insert", str(RESIDUAL), "-o", str(out), "--bits", "8",
                "--job", str(job))  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == (
        'network "Main_q8": 11 FixedPointQuantize layers (and 20 in its quantized unit copies '
        f"Main_q8_Res1, Main_q8_Res2), {out}"
    )
    data = json.loads(out.read_text(encoding="utf-8"))
    networks = {n["name"]: n for n in data["networks"]}
    assert list(networks) == ["Main", "Main_q8", "Main_q8_Res1", "Main_q8_Res2", "ResidualBlock"]
    main = {x["name"]: x for x in networks["Main_q8"]["layers"]}
    assert main["Res1"]["properties"]["Network"] == "Main_q8_Res1"
    assert main["Res2"]["properties"]["Network"] == "Main_q8_Res2"
    assert main["Res1_Quantize"]["type"] == "FixedPointQuantize"  # the unit's output, calibrated
    params = _job_parameters(job)
    for call in ("Res1", "Res2"):
        unit = networks[f"Main_q8_{call}"]
        layers = {x["name"]: x for x in unit["layers"]}
        links = {(k["source"], k["destination"]) for k in unit["links"]}
        for conv in ("Convolution", "Convolution_2"):
            q = f"{conv}_W_Quantize"
            assert (f"{conv}/conv/W", q) in links and (q, conv) in links
            assert layers[f"{conv}/conv/W"]["properties"]["Size"] == "16,16,3,3"
            top = float(np.max(np.abs(params[f"{call}/{conv}/conv/W"])))
            props = layers[q]["properties"]
            assert (props["N"], props["Sign"]) == ("8", "True")
            assert float(props["Delta"]) == power_of_two_delta(top, 8, True)
        # The block's data paths are quantized too (its last layer by the caller's Res*_Quantize).
        assert layers["Add2_Quantize"]["type"] == "FixedPointQuantize"
    # The trained float network is left as it was.
    assert not any(x["type"] == "FixedPointQuantize" for x in networks["ResidualBlock"]["layers"])


def test_sweep_at_16_8_4_bits_counts_and_quantizes_the_weights_inside_units(residual_job, tmp_path):
    cache, job = residual_job
    done = _run(cache, "quantize", "sweep", str(RESIDUAL), "--job", str(job), "--bits", "16,8,4",
                "-o", str(tmp_path / "sweep"))  # fmt: skip
    assert done.returncode == 0, done.stderr
    with open(tmp_path / "sweep" / "results.csv", newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    assert [(r["mode"], r["bits"]) for r in rows] == [("float", "32"), ("ptq", "16"),
                                                     ("ptq", "8"), ("ptq", "4")]  # fmt: skip
    # Parameter bytes count the four Convolutions inside Res1 and Res2 at the point's width.
    assert [int(r["parameter_bytes"]) for r in rows] == [_bytes(32), _bytes(16), _bytes(8),
                                                         _bytes(4)]  # fmt: skip
    assert _bytes(32) == 70_440 and _bytes(8) == 18_570
    accuracy = {int(r["bits"]): float(r["accuracy"]) for r in rows}
    assert abs(accuracy[16] - accuracy[32]) <= 0.01
    assert accuracy[4] < accuracy[32] - 0.1  # 4 bits everywhere, inside the units too
    # The 4-bit point's network: the weights inside both calls pass a 4-bit quantizer.
    snapshot = json.loads((tmp_path / "sweep" / rows[3]["job"] / "network.ncproj").read_text())
    units = [n for n in snapshot["networks"] if n["name"].endswith(("_Res1", "_Res2"))]
    assert len(units) == 2
    for unit in units:
        widths = {x["properties"]["N"] for x in unit["layers"] if x["name"].endswith("W_Quantize")}
        assert widths == {"4"}

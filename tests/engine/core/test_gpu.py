"""GPU errors users understand and ``neurocanvas doctor``'s GPU report, on the CI's stand-in for
the GPU (engine.guard: NEUROCANVAS_DEVICE=guard, faults injected from the environment)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import runtime_kit

from engine.core import backend, gpu
from engine.formats import save_project
from engine.guard import GuardCUDAError, GuardOutOfMemoryError

ROOT = Path(__file__).resolve().parents[3]


def _cli(*args: str, **env: str) -> subprocess.CompletedProcess:
    environment = {**os.environ, "PYTHONPATH": str(ROOT), **env}
    return subprocess.run([sys.executable, "-m", "engine.cli", *args], capture_output=True,
                          text=True, env=environment, timeout=300)  # fmt: skip


@pytest.fixture
def conv_project(tmp_path):
    """A small convolutional project on a numeric dataset (batch 16, 4x8x8 activations)."""
    kit = runtime_kit
    rows = [[f"{(i * 7 + j) % 10 / 10:.2f}" for j in range(64)] + [i % 2] for i in range(32)]
    header = [f"x__{j}" for j in range(64)] + ["y:label"]
    train = kit.write_csv(tmp_path / "train.csv", header, rows)
    layers = [
        kit.layer("Input", "Input", Size=(1, 8, 8), Dataset="x"),
        kit.layer("Convolution", "Convolution", KernelShape=(3, 3), OutMaps=4, BorderMode="same"),
        kit.layer("ReLU", "ReLU"),
        kit.layer("Affine", "Affine", OutShape=2),
        kit.layer("Softmax", "Softmax"),
        kit.layer("CategoricalCrossEntropy", "CategoricalCrossEntropy", T__Dataset="y"),
    ]
    net = kit.network("Main", layers, kit.chain(*(item.name for item in layers)))
    path = tmp_path / "conv.ncproj"
    save_project(kit.make_project([net], train=train, valid=train, batch=16), path)
    return path


def test_out_of_gpu_memory_names_the_layer_the_size_and_the_batch_size(conv_project, tmp_path):
    # Parameters and batches fit; the convolution's 16x4x8x8 float32 output (4 KiB) does not.
    done = _cli("train", str(conv_project), "-o", str(tmp_path / "job"), "--epochs", "1",
                NEUROCANVAS_DEVICE="guard", NEUROCANVAS_GUARD_MEMORY_LIMIT="4000")  # fmt: skip
    assert done.returncode == 1
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in done.stderr, done.stderr
    assert 'out of GPU memory in layer "Convolution"' in lines[0]
    assert "it asked for" in lines[0] and "batch size" in lines[0] and "now 16" in lines[0]


def test_a_cuda_error_names_the_layer(conv_project, tmp_path):
    done = _cli("train", str(conv_project), "-o", str(tmp_path / "job"), "--epochs", "1",
                NEUROCANVAS_DEVICE="guard",
                NEUROCANVAS_GUARD_FAIL="__matmul__:cudaErrorLaunchFailure: unspecified launch "
                "failure")  # fmt: skip
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    assert 'CUDA error in layer "' in done.stderr
    assert "cudaErrorLaunchFailure: unspecified launch failure" in done.stderr


def test_explain_reads_cupys_message():
    exc = GuardOutOfMemoryError(3 * 2**30, 2**30)
    failure = gpu.explain(exc, 'layer "Conv"')
    assert failure.out_of_memory and "it asked for 3.0 GiB" in str(failure)
    cupy_like = type("OutOfMemoryError", (MemoryError,), {})(
        "Out of memory allocating 1,610,612,736 bytes (allocated so far: 7,516,192,768 bytes)."
    )
    assert gpu.is_device_error(cupy_like)
    assert str(gpu.explain(cupy_like, 'layer "A"')) == (
        'out of GPU memory in layer "A": it asked for 1.5 GiB with 7.0 GiB already in use'
    )
    assert not gpu.explain(GuardCUDAError("cudaErrorX"), "here").out_of_memory
    assert not gpu.is_device_error(ValueError("x"))


def test_doctor_reports_the_device_and_runs_the_self_test():
    done = _cli("doctor", NEUROCANVAS_DEVICE="guard")
    assert done.returncode == 0, done.stderr
    assert "engine.guard" in done.stdout
    tests = [line for line in done.stdout.splitlines() if line.startswith("self-test")]
    assert len(tests) == 2 and all(": ok (" in line for line in tests), done.stdout


def test_doctor_self_test_failing_is_reported(monkeypatch, capsys):
    from engine.cli import doctor, main

    monkeypatch.setenv("NEUROCANVAS_DEVICE", "guard")
    monkeypatch.setattr(doctor, "self_test", lambda: [doctor.Check("matmul", 0.5, 0.001, False)])
    with backend.using("cpu"):  # doctor selects the device: restore this process's after
        assert main(["doctor"]) == 1
    assert "self-test   matmul: WRONG" in capsys.readouterr().out


def test_doctor_without_a_gpu_says_why():
    done = _cli("doctor", "--device", "gpu", NEUROCANVAS_DEVICE="cpu")
    assert done.returncode == 1
    assert "GPU requested but not available" in done.stdout

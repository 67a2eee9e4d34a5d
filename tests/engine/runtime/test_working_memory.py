"""WorkingMemory buffers hold one row per sample, as nnabla loads NNC's nntxt.

NNC's VAT sample trains from the CLI and its adversarial noise really acts; the mixup sample's
SetData network stores per-sample values at batch 3; a batch smaller or larger than the
buffer (the last partial batch of an evaluation, a single-sample forward) runs.

The VAT sample reads MNIST (``mnist_training_100.csv``, ``mnist_training_unlabeled.csv``, a
download); the built-in ``digits`` has the same layout (``x:image`` 1x28x28, 10 classes), so the
sample runs unchanged on 100 labeled rows, 300 unlabeled ones (column ``xu``) and 150
validation rows (one full batch of 100 and a partial one of 50).
"""

from __future__ import annotations

import csv
import json
import math
from pathlib import Path

import numpy as np
import pytest
from model_kit import working_memory_project
from nnc_samples import SAMPLES_DIR, vat_on_digits
from PIL import Image
from pptx_kit import slide, texts
from runtime_kit import write_csv

import engine.nn as nn
import engine.nn.functions as F
from engine.cli import main
from engine.core import products
from engine.formats import load_project, save_project
from engine.nn.parameter_file import load_arrays
from engine.runtime.compiler import compile_network
from engine.runtime.evaluator import evaluate
from engine.runtime.session import build_session, plan_run
from engine.runtime.trainer import Trainer

MIXUP = SAMPLES_DIR / "image_recognition" / "CIFAR10" / "resnet" / "resnet-110-mixup.sdcproj"
IRIS = Path(__file__).resolve().parents[3] / "projects" / "iris.ncproj"


@pytest.fixture(scope="module")
def vat_project(tmp_path_factory) -> Path:
    """NNC's VAT sample with its three datasets replaced by rows of digits."""
    return vat_on_digits(tmp_path_factory.mktemp("vat"))


def _parameter(job: Path, name: str) -> np.ndarray:
    arrays, meta = load_arrays(job / "checkpoints" / "last" / "parameters.npz")
    return next(arrays[e["key"]] for e in meta["parameters"] if e["name"] == name)


def _distinct_rows(value: np.ndarray) -> float:
    """The largest |cosine| between two different rows (1.0: some rows are parallel)."""
    flat = value.reshape(len(value), -1)
    unit = flat / np.linalg.norm(flat, axis=1, keepdims=True)
    cosine = np.abs(unit @ unit.T)
    np.fill_diagonal(cosine, 0)
    return float(cosine.max())


@pytest.fixture(scope="module")
def vat_job(vat_project, tmp_path_factory) -> Path:
    """The VAT sample trained 2 epochs from the CLI (shared: evaluations leave it as it was)."""
    job = tmp_path_factory.mktemp("vat-job") / "job"
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("NEUROCANVAS_CACHE", str(job.parent / "cache"))
        assert main(["train", str(vat_project), "-o", str(job), "--epochs", "2",
                     "--seed", "0"]) == 0  # fmt: skip
    return job


def test_vat_sample_trains_from_the_cli(vat_job):
    curve = (vat_job / "learning_curve.csv").read_text().splitlines()
    assert curve[0] == "epoch,cost,train_error,valid_error" and len(curve) == 3
    costs = [float(line.split(",")[1]) for line in curve[1:]]
    assert all(math.isfinite(c) and c > 0 for c in costs)
    # The noise buffer holds one row per sample of the batch (100), each its own direction.
    grad = _parameter(vat_job, "grad")
    assert grad.shape == (100, 1, 28, 28)
    assert np.all(np.linalg.norm(grad.reshape(100, -1), axis=1) > 0)
    assert _distinct_rows(grad) < 0.9


def _files(folder: Path) -> dict[str, bytes]:
    return {str(f.relative_to(folder)): f.read_bytes() for f in folder.rglob("*") if f.is_file()}


def _output_rows(job: Path) -> list[list[str]]:
    with open(job / "output_result.csv", newline="", encoding="utf-8") as f:
        return list(csv.reader(f))


def _noise_pictures(job: Path, rows: list[list[str]], column: int) -> np.ndarray:
    """The Noise pictures of output_result.csv, read back with Pillow, as 0..1 values."""
    return np.stack([np.asarray(Image.open(job / r[column]), np.float64) / 255 for r in rows])


def test_vat_sample_evaluates_both_executors_from_the_cli(vat_job, capsys):
    """Executor (Runtime, its KL per row) then Executor_1 (Runtime2: y' and the Noise picture)
    on every batch, as nnabla's forward writes them: one column group per output of each."""
    capsys.readouterr()
    assert main(["evaluate", str(vat_job)]) == 0
    assert capsys.readouterr().out.startswith("evaluated 150 rows of Validation with the best")
    rows = _output_rows(vat_job)
    assert rows[0] == ["x:image", "y:label", "KLMultinomial",
                       *[f"y'__{i}" for i in range(10)], "Noise"]  # fmt: skip
    assert len(rows) == 1 + 150
    assert [r[-1] for r in rows[1:]] == [f"./2_0000/{i}.png" for i in range(150)]
    kl = np.array([float(r[2]) for r in rows[1:]])
    assert np.all(np.isfinite(kl)) and np.all(kl > -1e-6) and len(np.unique(kl)) > 100
    y = np.array([[float(v) for v in r[3:13]] for r in rows[1:]])
    np.testing.assert_allclose(y.sum(axis=1), 1.0, rtol=1e-5)  # Runtime2's softmax
    summary = json.loads((vat_job / "evaluation.json").read_text())
    assert [e["network"] for e in summary["executors"]] == ["Runtime", "Runtime2"]
    assert summary["classification"]["y'"]["accuracy"] > 0.5  # 10 classes, 2 short epochs


def test_the_report_names_every_executor_evaluated(vat_job, tmp_path):
    """NNC's report: "Evaluate network ... using ... dataset." once per executor."""
    from pptx import Presentation  # python-pptx, the independent reader

    assert main(["evaluate", str(vat_job)]) == 0
    deck = tmp_path / "vat.pptx"
    assert main(["report", str(vat_job), "-o", str(deck)]) == 0
    lines = texts(slide(Presentation(str(deck)), "Experimental Result : Evaluation"))
    assert lines[:2] == ['Evaluate network "Runtime" using "Validation" dataset.',
                         'Evaluate network "Runtime2" using "Validation" dataset.']  # fmt: skip


def test_evaluation_shows_the_noise_runtime_back_propagated_for_the_same_batch(vat_job):
    """Need Back Propagation: Runtime's backward writes each sample's adversarial noise into
    ``grad`` (VATNoise), and Runtime2 pictures that batch's rows (eps 1.4 * normalised, x10,
    +0.5), not the buffer saved in the checkpoint. Nothing trained is written."""
    before = _files(vat_job / "checkpoints")
    saved = _parameter(vat_job, "grad")
    evaluate(vat_job)
    assert _files(vat_job / "checkpoints") == before  # byte-identical
    weight = nn.get_parameter("Affine_1/affine/W")
    np.testing.assert_array_equal(weight.data, _parameter(vat_job, "Affine_1/affine/W"))
    # Batches of 100 over 150 rows: the buffer now holds rows 100-149's noise in its first 50
    # rows and rows 50-99's (written by the first batch) in the last 50.
    buffer = np.array(nn.get_parameter("grad").data)
    rows = _output_rows(vat_job)[1:]
    pictures = _noise_pictures(vat_job, rows, -1)

    def picture(noise: np.ndarray) -> np.ndarray:
        flat = noise.reshape(len(noise), -1).astype(np.float64)
        unit = 1.4 * flat / np.sqrt((flat**2).sum(axis=1, keepdims=True) + 1e-8)
        return np.clip(unit * 10 + 0.5, 0, 1).reshape(len(noise), 28, 28)

    np.testing.assert_allclose(pictures[100:150], picture(buffer[:50]), atol=1.5 / 255)
    np.testing.assert_allclose(pictures[50:100], picture(buffer[50:]), atol=1.5 / 255)
    # Each sample its own noise, different from the checkpoint's buffer.
    assert _distinct_rows(pictures - 0.5) < 0.9
    for first, rest in ((0, pictures[:100]), (100, pictures[100:])):
        stale = picture(saved[: len(rest)])
        assert np.abs(rest - stale).mean() > 0.1, f"batch at row {first} shows the saved buffer"


@pytest.fixture
def vat_session(vat_project):
    project = load_project(vat_project)
    plan = plan_run(project, base=vat_project.parent, seed=0, max_epoch=1)
    session = build_session(project, plan, prefetch=0)
    yield session
    session.close()


def test_vat_noise_is_adversarial_per_sample_and_drives_the_vat_loss(vat_session):
    """NoiseEstimation's backward writes eps * dKL/dr into ``grad`` sample by sample; VATLoss
    perturbs each sample along its own row, which raises the KL far above a random direction
    of the same length (the point of VAT), and its gradient reaches the shared weights."""
    runs = {run.network: run for run in vat_session.optimizers}
    noise, vat = runs["NoiseEstimation"], runs["VATLoss"]
    grad = vat.params["grad"]
    assert grad is noise.params["grad"]  # one buffer shared by name
    trainer = Trainer(vat_session)
    trainer.update()
    first = np.array(grad.data)
    trainer.update()
    second = np.array(grad.data)
    assert first.shape == second.shape == (100, 1, 28, 28)
    assert np.abs(second - first).max() > 0.1 * np.abs(first).max()  # new batch, new noise
    assert _distinct_rows(second) < 0.9

    batch = vat_session.iterators["Unlabeled"].next()
    acts = noise.program.forward(batch, noise.params)  # fills grad for this batch
    F.mean(noise.program.loss_values(acts)[0]).backward()
    adversarial = np.array(grad.data)

    def vat_loss(buffer: np.ndarray) -> tuple[float, float]:
        """The mean KL of VATLoss with ``buffer`` as the noise and the norm of its gradient
        on the first layer's weights."""
        grad.data[...] = buffer
        weight = vat.params["Affine_1/affine/W"]
        weight.grad = None
        loss = vat.program.loss_values(vat.program.forward(batch, vat.params))[0]
        F.mean(loss).backward()
        return float(loss.data.mean()), float(np.linalg.norm(weight.grad))

    kl_adversarial, push = vat_loss(adversarial)
    rng = np.random.default_rng(0)
    kl_random = max(vat_loss(rng.normal(size=adversarial.shape).astype(np.float32))[0]
                    for _ in range(3))  # fmt: skip
    kl_none, no_push = vat_loss(np.zeros_like(adversarial))
    assert kl_adversarial > 20 * kl_random > 0
    assert kl_none == 0.0 and push > 1e-3 and no_push < 1e-4 * push


def test_a_batch_reads_and_stores_its_own_rows_whatever_its_size():
    """``mem`` (read) and ``hidden`` (stored) of a small project at batch 5, then a partial
    batch of 2 (the first rows), then 8 (rows added from the initializer)."""
    project = working_memory_project(IRIS)
    program = compile_network(project, "MainRuntime")
    rng = np.random.default_rng(0)
    with nn.parameter_scope("", {}):
        nn.seed(0)
        params = program.create_parameters()
        mem, hidden = params["mem"], params["hidden"]
        assert mem.shape == (1, 4)
        with nn.no_grad():
            x5 = rng.random((5, 4)).astype(np.float32)
            acts = program.forward({"x": x5}, params)
            assert mem.shape == (5, 4) and hidden.shape[0] == 5
            rows5 = np.array(mem.data)
            np.testing.assert_allclose(acts["Add2"].data, x5 + rows5, rtol=1e-6)
            np.testing.assert_array_equal(hidden.data, acts["ReLU"].data)  # one row per sample
            assert _distinct_rows(rows5) < 0.999
            stored5 = np.array(hidden.data)

            x2 = rng.random((2, 4)).astype(np.float32)
            acts = program.forward({"x": x2}, params)
            assert mem.shape == (5, 4)
            np.testing.assert_allclose(acts["Add2"].data, x2 + rows5[:2], rtol=1e-6)
            np.testing.assert_array_equal(hidden.data[:2], acts["ReLU"].data)
            np.testing.assert_array_equal(hidden.data[2:], stored5[2:])

            acts = program.forward({"x": np.zeros((8, 4), np.float32)}, params)
            assert mem.shape == (8, 4)
            np.testing.assert_array_equal(mem.data[:5], rows5)
            np.testing.assert_allclose(acts["Add2"].data, mem.data)
            assert np.all(np.abs(mem.data[5:]).sum(axis=1) > 0)  # Normal, not zeros
            assert _distinct_rows(np.array(mem.data)) < 0.999


def test_mixup_set_data_stores_each_sample_at_batch_3():
    """resnet-110-mixup: the SetData network stores its augmented batch into X2 and its labels
    into Y2; the Training network mixes sample k of its batch with row k of X2 and scores
    row k of Y2."""
    project = load_project(MIXUP)
    set_data, training = compile_network(project, "SetData"), compile_network(project, "Training")
    rng = np.random.default_rng(0)
    with nn.parameter_scope("", {}):
        nn.seed(0)
        stored = set_data.create_parameters()
        params = training.create_parameters()
        assert stored["X2"] is params["X2"] and stored["Y2"] is params["Y2"]
        with nn.no_grad():
            labels = np.array([[1], [7], [4]], np.float32)
            acts = set_data.forward({"x": rng.random((3, 3, 32, 32), np.float32), "y": labels},
                                    stored)  # fmt: skip
            x2, y2 = np.array(params["X2"].data), np.array(params["Y2"].data)
            np.testing.assert_array_equal(x2, acts["RandomFlip"].data)
            np.testing.assert_array_equal(y2, labels)
            assert _distinct_rows(x2) < 0.999
            batch = {"x": rng.random((3, 3, 32, 32), np.float32),
                     "y": np.array([[2], [3], [5]], np.float32)}  # fmt: skip
            acts = training.forward(batch, params)
    np.testing.assert_allclose(acts["Mul2_3"].data, x2 * acts["Reshape_2"].data, rtol=1e-6)
    step = next(s for s in training.steps if s.name == "SoftmaxCrossEntropy_3")
    logits = np.asarray(acts[step.inputs[0][1]].data, np.float64)
    shifted = logits - logits.max(1, keepdims=True)
    logp = shifted - np.log(np.exp(shifted).sum(1, keepdims=True))
    expected = -logp[np.arange(3), y2[:, 0].astype(int)]
    np.testing.assert_allclose(acts[step.name].data.reshape(-1), expected, rtol=1e-4)


@pytest.mark.slow
def test_mixup_sample_trains_from_the_cli_at_batch_2(tmp_path):
    """SetData has no loss layer: its optimizer only runs it forward, which fills X2 and Y2
    with the Training2 batch (two of the four rows); Training mixes them in."""
    from PIL import Image

    rng = np.random.default_rng(0)
    rows = []
    for k in range(4):
        path = tmp_path / f"{k}.png"
        Image.fromarray((rng.random((32, 32, 3)) * 255).astype(np.uint8)).save(path)
        rows.append([str(path), str(3 * k)])
    data = write_csv(tmp_path / "data.csv", ["x:image", "y:label"], rows)
    project = load_project(MIXUP)
    for i, dataset in enumerate(project.datasets):
        project.replace_section(("datasets", i), dataset.with_value("URI", str(data)))
    project.replace_section("config", project.config.with_value("BatchSize", "2"))
    save_project(project, tmp_path / "mixup.sdcproj")
    job = tmp_path / "job"
    assert main(["train", str(tmp_path / "mixup.sdcproj"), "-o", str(job), "--epochs", "1",
                 "--seed", "0"]) == 0  # fmt: skip
    cost = float((job / "learning_curve.csv").read_text().splitlines()[1].split(",")[1])
    assert math.isfinite(cost) and cost > 0
    x2, y2 = _parameter(job, "X2"), _parameter(job, "Y2")
    assert x2.shape == (2, 3, 32, 32) and y2.shape == (2, 1)
    labels = [int(v) for v in y2[:, 0]]
    assert len(set(labels)) == 2 and set(labels) <= {0, 3, 6, 9}
    assert _distinct_rows(x2) < 0.999


def test_vat_trains_on_the_guard_as_on_numpy_without_host_synchronisation(vat_project, tmp_path,
                                                                          monkeypatch):  # fmt: skip
    """The buffers' rows (grown, read as views, written by VATNoise) stay on the device: a
    training step reads nothing back, and the epoch's cost is NumPy's."""
    from engine import guard
    from engine.core import backend
    from engine.core.ops import _jit
    from engine.runtime.run import train

    monkeypatch.setattr(_jit, "ENABLED", False)  # the same xp kernels on both sides
    # and NumPy's own products on both (the CPU's are cut for the thread count's sake,
    # engine/core/products.py; VAT's power iteration magnifies a last-bit difference to 4e-4)
    monkeypatch.setattr(products, "blocking", lambda: None)
    syncs_per_step: list[int] = []
    update = Trainer.update

    def counted(self: Trainer) -> None:
        with guard.count_syncs() as syncs:
            update(self)
        syncs_per_step.append(syncs.n)

    costs = {}
    for device in ("cpu", "guard"):
        with backend.using(device):
            nn.clear_parameters()
            if device == "guard":
                monkeypatch.setattr(Trainer, "update", counted)
            result = train(vat_project, job_dir=tmp_path / device, epochs=1, seed=0)
            costs[device] = result.state.history[0].cost
    assert syncs_per_step and max(syncs_per_step) == 0, syncs_per_step
    assert costs["guard"] == pytest.approx(costs["cpu"], rel=1e-5)

"""``neurocanvas forward``: inference on files with a job's parameters or a project."""

from __future__ import annotations

import csv
import json

import numpy as np
import pytest
import runtime_kit
from nnc_samples import SAMPLES_DIR, vat_on_digits
from PIL import Image

import engine.nn as nn
from engine.cli import main
from engine.formats import save_project
from engine.nn.parameter_file import load_arrays


@pytest.fixture
def trained(monkeypatch, tmp_path):
    kit = runtime_kit
    monkeypatch.setenv("NEUROCANVAS_CACHE", str(tmp_path / "cache"))
    train_csv, valid_csv = kit.blobs(tmp_path, rows=48)
    save_project(kit.mlp_project(train_csv, valid_csv, batch=8, max_epoch=5,
                                 solver_parameters={"Alpha": "0.05", "Beta1": "0.9",
                                                    "Beta2": "0.999", "Epsilon": "1e-08"}),
                 tmp_path / "p.ncproj")  # fmt: skip
    assert main(["train", str(tmp_path / "p.ncproj"), "-o", str(tmp_path / "job"),
                 "--seed", "0"]) == 0  # fmt: skip
    # Class 1's centre as a per-sample CSV (one row) and as .npy.
    (tmp_path / "one.csv").write_text("0.8,0.3,0.2,0.5\n")
    np.save(tmp_path / "two.npy", np.array([0.5, 0.9, 0.5, 0.1], np.float32))
    return tmp_path


def test_forward_job_on_csv_and_npy(trained, capsys):
    capsys.readouterr()
    files = [str(trained / "one.csv"), str(trained / "two.npy")]
    assert main(["forward", str(trained / "job"), "--input", *files, "--json"]) == 0
    results = json.loads(capsys.readouterr().out)
    assert [r["outputs"]["y'"]["class"] for r in results] == [1, 2]
    assert results[0]["inputs"] == {"x": files[0]} and results[0]["outputs"]["y'"]["shape"] == [3]
    assert sum(results[0]["outputs"]["y'"]["values"]) == pytest.approx(1.0, rel=1e-5)
    assert main(["forward", str(trained / "job"), "--input", files[0]]) == 0
    line = capsys.readouterr().out.strip()
    assert line.startswith(f"{files[0]}\tExecutor\ty' class 1\t")


def test_forward_repeated_input_option_runs_every_file(trained, capsys):
    files = [str(trained / "one.csv"), str(trained / "two.npy")]
    capsys.readouterr()
    assert main(["forward", str(trained / "job"), "-i", files[0], "-i", files[1], "--json"]) == 0
    results = json.loads(capsys.readouterr().out)
    assert [r["inputs"]["x"] for r in results] == files
    assert [r["outputs"]["y'"]["class"] for r in results] == [1, 2]


def test_forward_project_with_parameters_matches_the_job(trained, capsys):
    params = trained / "job" / "checkpoints" / "best" / "parameters.npz"
    capsys.readouterr()
    assert main(["forward", str(trained / "p.ncproj"), "--params", str(params), "--input",
                 str(trained / "one.csv"), "--json"]) == 0  # fmt: skip
    from_project = json.loads(capsys.readouterr().out)
    assert main(["forward", str(trained / "job"), "--input", str(trained / "one.csv"),
                 "--json"]) == 0  # fmt: skip
    assert json.loads(capsys.readouterr().out) == from_project


def test_forward_errors(trained, capsys):
    assert main(["forward", str(trained / "job"), "--input", "missing.png"]) == 2
    assert "missing.png: file not found" in capsys.readouterr().err
    assert main(["forward", str(trained / "job"), "--input", "y=a.csv"]) == 2
    assert "expected NAME=FILE with NAME one of x" in capsys.readouterr().err
    np.save(trained / "wide.npy", np.zeros(5, np.float32))  # the network reads 4 values
    assert main(["forward", str(trained / "job"), "--input", str(trained / "wide.npy")]) == 2
    assert capsys.readouterr().err.strip() == (
        f'neurocanvas forward: error: --input {trained / "wide.npy"}: network "MainRuntime": '
        'dataset variable "x" has shape (5) but the network expects (4)'
    )


def _parameters(job):
    """The job's best parameters by name, read from the archive (not through forward)."""
    arrays, meta = load_arrays(job / "checkpoints" / "best" / "parameters.npz")
    return {e["name"]: arrays[e["key"]] for e in meta["parameters"]}


@pytest.fixture
def two_executors(trained):
    """The trained MLP's project with a second executor "Noisy": network Runtime, x + z with
    z ~ N(0, 1) (Input Generator=Normal), 40 evaluations averaged; trained as a job."""
    from engine.formats import load_project
    from engine.graph import config as cfg
    from engine.graph.project import Link

    kit = runtime_kit
    project = load_project(trained / "p.ncproj")
    layers = [kit.layer("x", "Input", Size=(4,), Dataset="x"),
              kit.layer("z", "Input", Size=(4,), Dataset="z", Generator="Normal"),
              kit.layer("Add2", "Add2")]  # fmt: skip
    project.add_network(kit.network("Runtime", layers, [Link("x", "Add2"), Link("z", "Add2")]))
    project.insert_item("executors", None, cfg.Executor.new(
        Executor_Name="Noisy", Executor_NetworkName="Runtime", NumEvaluations="40"))  # fmt: skip
    save_project(project, trained / "two.ncproj")
    assert main(["train", str(trained / "two.ncproj"), "-o", str(trained / "job2"),
                 "--seed", "0"]) == 0  # fmt: skip
    return trained


def test_forward_runs_every_executor_with_one_generator_draw(two_executors, capsys):
    """Each file through both executors in CONFIG order: the MLP's softmax computed here from
    the trained parameters, and Noisy's mean of 40 evaluations, which is x plus the one draw
    nnabla makes per batch (before the change: the mean of 40 draws)."""
    from engine.nn import initializer as I

    folder = two_executors
    files = [str(folder / "one.csv"), str(folder / "two.npy")]
    capsys.readouterr()
    assert main(["forward", str(folder / "job2"), "-i", *files, "--seed", "3", "--json"]) == 0
    results = json.loads(capsys.readouterr().out)
    assert [(r["executor"], r["network"], r["inputs"]) for r in results] == [
        ("Executor", "MainRuntime", {"x": files[0]}), ("Noisy", "Runtime", {"x": files[0]}),
        ("Executor", "MainRuntime", {"x": files[1]}), ("Noisy", "Runtime", {"x": files[1]}),
    ]  # fmt: skip
    x = np.array([[0.8, 0.3, 0.2, 0.5], [0.5, 0.9, 0.5, 0.1]])
    p = _parameters(folder / "job2")
    hidden = np.maximum(x @ p["Affine/affine/W"] + p["Affine/affine/b"], 0)
    logits = hidden @ p["Affine_2/affine/W"] + p["Affine_2/affine/b"]
    softmax = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
    for k in (0, 1):
        np.testing.assert_allclose(results[2 * k]["outputs"]["y'"]["values"], softmax[k],
                                   rtol=1e-5)  # fmt: skip
    nn.seed(3)  # the executors draw in turn: file one's z, then file two's
    draws = [np.asarray(I.Normal(1.0)((1, 4)))[0] for _ in files]
    for k in (0, 1):
        assert results[2 * k + 1]["outputs"]["Add2"]["shape"] == [4]
        np.testing.assert_allclose(results[2 * k + 1]["outputs"]["Add2"]["values"],
                                   x[k] + draws[k], rtol=1e-5)  # fmt: skip
    # Plain text: one line per executor output, labelled by the executor.
    assert main(["forward", str(folder / "job2"), "-i", files[0]]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split("\t")[:3] for line in lines] == [
        [files[0], "Executor", f"y' class {int(np.argmax(softmax[0]))}"],
        [files[0], "Noisy", "Add2 class " + str(int(np.argmax(results[1]["outputs"]["Add2"]
                                                               ["values"])))],
    ]  # fmt: skip


def test_forward_picks_executors_or_a_network(two_executors, capsys):
    folder, one = two_executors, str(two_executors / "one.csv")
    capsys.readouterr()
    assert main(["forward", str(folder / "job2"), "-i", one, "-e", "Noisy", "--json"]) == 0
    assert [r["executor"] for r in json.loads(capsys.readouterr().out)] == ["Noisy"]
    assert main(["forward", str(folder / "job2"), "-i", one, "--executor", "Noisy",
                 "--executor", "Executor", "--json"]) == 0  # fmt: skip
    assert [r["executor"] for r in json.loads(capsys.readouterr().out)] == ["Executor", "Noisy"]
    assert main(["forward", str(folder / "job2"), "-i", one, "--network", "MainRuntime",
                 "--json"]) == 0  # fmt: skip
    (only,) = json.loads(capsys.readouterr().out)
    assert only["executor"] is None and only["network"] == "MainRuntime"
    assert main(["forward", str(folder / "job2"), "-i", one, "-e", "Executor", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)[0]["outputs"] == only["outputs"]


def test_forward_unknown_executor_is_one_line(two_executors, capsys):
    capsys.readouterr()
    code = main(["forward", str(two_executors / "job2"), "-i", str(two_executors / "one.csv"),
                 "--executor", "Nope"])  # fmt: skip
    captured = capsys.readouterr()
    assert code == 2 and captured.out == ""
    assert captured.err.splitlines() == [
        "neurocanvas forward: error: --executor Nope: no such executor; the project has "
        "Executor, Noisy"
    ]


@pytest.fixture(scope="module")
def vat_job(tmp_path_factory):
    """NNC's VAT sample (executors Runtime, with Need Back Propagation, then Runtime2) on
    digits, trained one epoch from the CLI."""
    folder = tmp_path_factory.mktemp("vat-forward")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("NEUROCANVAS_CACHE", str(folder / "cache"))
        assert main(["train", str(vat_on_digits(folder)), "-o", str(folder / "job"),
                     "--epochs", "1", "--seed", "0"]) == 0  # fmt: skip
    return folder / "job"


def _noise_picture(noise):
    """Runtime2's Noise output for a noise row: eps 1.4 * normalised, x10, +0.5 (the PNG that
    evaluate writes clips it to 0..1; the output itself is not clipped)."""
    flat = np.asarray(noise, np.float64).reshape(-1)
    return 1.4 * flat / np.sqrt((flat**2).sum() + 1e-8) * 10 + 0.5


def test_vat_sample_forward_runs_both_executors_as_evaluate(vat_job, capsys):
    """Each digit through Executor (Runtime, Need Back Propagation: its backward writes the
    sample's noise into the buffer ``grad``) then Executor_1 (Runtime2: y' as evaluate writes
    it for that row, and the picture of the buffer row); Executor_1 alone pictures the trained
    buffer's row. One file is a batch of one, so Runtime's BatchNormalizations (batch
    statistics on) give every input the same output: its KL is 0 and the noise it writes 0."""
    with open(vat_job.parent / "valid.csv", newline="", encoding="utf-8") as f:
        images = [row["x:image"] for row in list(csv.DictReader(f))[:2]]
    assert main(["evaluate", str(vat_job)]) == 0
    with open(vat_job / "output_result.csv", newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))[:2]
    evaluated = np.array([[float(row[f"y'__{i}"]) for i in range(10)] for row in rows])
    capsys.readouterr()
    assert main(["forward", str(vat_job), "-i", *images, "--json"]) == 0
    results = json.loads(capsys.readouterr().out)
    assert [(r["executor"], r["network"], r["inputs"], list(r["outputs"])) for r in results] == [
        (executor, network, {"x": image}, outputs) for image in images
        for executor, network, outputs in (("Executor", "Runtime", ["KLMultinomial"]),
                                           ("Executor_1", "Runtime2", ["y'", "Noise"]))
    ]  # fmt: skip
    for k in (0, 1):
        (kl,) = results[2 * k]["outputs"]["KLMultinomial"]["values"]
        assert abs(kl) < 1e-7
        y = results[2 * k + 1]["outputs"]["y'"]
        np.testing.assert_allclose(y["values"], evaluated[k], rtol=1e-4, atol=1e-5)
        assert y["class"] == int(np.argmax(evaluated[k]))
        np.testing.assert_array_equal(results[2 * k + 1]["outputs"]["Noise"]["values"], 0.5)
    assert not np.any(np.array(nn.get_parameter("grad").data)[0])  # the row Runtime wrote
    saved = _parameters(vat_job)["grad"][0]
    assert np.abs(_noise_picture(saved) - 0.5).mean() > 0.1
    assert main(["forward", str(vat_job), "-i", images[0], "-e", "Executor_1", "--json"]) == 0
    (alone,) = json.loads(capsys.readouterr().out)
    np.testing.assert_allclose(alone["outputs"]["Noise"]["values"], _noise_picture(saved),
                               atol=1e-5)  # fmt: skip
    # Nearly the same y': Runtime's forward moves the running statistics that Runtime2 uses
    # (shared parameters), in memory, as in nnabla and in evaluate.
    np.testing.assert_allclose(alone["outputs"]["y'"]["values"],
                               results[1]["outputs"]["y'"]["values"], atol=1e-4)  # fmt: skip


def test_each_executor_gets_the_variables_it_reads(tmp_path, capsys):
    """A project whose executors read different variables: NAME=FILE inputs, each executor
    given its own (ReLU of x, Tanh of u, fresh parameters: none); a variable no executor
    reads, or one a picked executor lacks, is one line naming it."""
    from engine.graph import config as cfg

    kit = runtime_kit
    relu = [kit.layer("Input", "Input", Size=(3,), Dataset="x"), kit.layer("ReLU", "ReLU")]
    tanh = [kit.layer("Input", "Input", Size=(3,), Dataset="u"), kit.layer("Tanh", "Tanh")]
    project = kit.make_project([kit.network("Main", relu, kit.chain("Input", "ReLU")),
                                kit.network("U", tanh, kit.chain("Input", "Tanh"))])  # fmt: skip
    project.replace_section(("executors", 0), cfg.Executor.new(
        Executor_Name="X", Executor_NetworkName="Main"))  # fmt: skip
    project.insert_item("executors", None, cfg.Executor.new(
        Executor_Name="Ux", Executor_NetworkName="U"))  # fmt: skip
    save_project(project, tmp_path / "p.ncproj")
    x, u = [-1.0, 0.5, 2.0], [0.1, -0.2, 3.0]
    np.save(tmp_path / "x.npy", np.array(x, np.float32))
    np.save(tmp_path / "u.npy", np.array(u, np.float32))
    source, xf, uf = str(tmp_path / "p.ncproj"), str(tmp_path / "x.npy"), str(tmp_path / "u.npy")
    capsys.readouterr()
    assert main(["forward", source, "-i", f"u={uf}", f"x={xf}", "--json"]) == 0
    results = json.loads(capsys.readouterr().out)
    assert [(r["executor"], r["inputs"]) for r in results] == [("X", {"x": xf}), ("Ux", {"u": uf})]
    np.testing.assert_allclose(results[0]["outputs"]["ReLU"]["values"], np.maximum(x, 0))
    np.testing.assert_allclose(results[1]["outputs"]["Tanh"]["values"], np.tanh(u), rtol=1e-6)
    assert main(["forward", source, "-e", "X", "-i", f"x={xf}", "--json"]) == 0
    assert [r["executor"] for r in json.loads(capsys.readouterr().out)] == ["X"]
    for argv, message in [
        (["-i", xf], "the executors X, Ux read x, u; give inputs as NAME=FILE"),
        (["-i", f"x={xf}"], 'executor "Ux" (network "U") reads u: give u=FILE too, or pick '
                            "other executors with --executor"),
        (["-e", "X", "-i", f"x={xf}", f"u={uf}"], f"--input u={uf}: no executor reads it; "
                                                  "expected NAME=FILE with NAME one of x"),
    ]:  # fmt: skip
        assert main(["forward", source, *argv]) == 2
        assert capsys.readouterr().err == f"neurocanvas forward: error: {message}\n"


def test_forward_generates_with_an_executor_that_reads_no_file(tmp_path, capsys):
    """NNC's DCGAN: its Runtime draws z and reads no dataset variable. `-n N` runs it N times
    (a draw each), `--save DIR` writes each picture as evaluate does (x255); the PNG read
    back equals the JSON values of the same seed."""
    dcgan = str(next(SAMPLES_DIR.rglob("mnist_dcgan.sdcproj")))
    args = ["forward", dcgan, "-e", "Executor", "-n", "2", "--seed", "5"]
    assert main([*args, "--json"]) == 0
    results = json.loads(capsys.readouterr().out)
    assert [(r["executor"], r["inputs"]) for r in results] == [("Executor", {})] * 2
    values = [np.array(r["outputs"]["Sigmoid"]["values"]).reshape(28, 28) for r in results]
    assert not np.array_equal(values[0], values[1])  # one z drawn per run
    assert main([*args, "--save", str(tmp_path / "gen")]) == 0
    lines = capsys.readouterr().out.splitlines()
    paths = [tmp_path / "gen" / f"000{k}_Executor_Sigmoid.png" for k in (0, 1)]
    assert lines == [f"-\tExecutor\tSigmoid\t{p}" for p in paths]
    for path, value in zip(paths, values, strict=True):
        expected = np.clip(value.astype(np.float32) * np.float32(255), 0, 255).astype(np.uint8)
        np.testing.assert_array_equal(np.asarray(Image.open(path)), expected)
    assert main(["forward", dcgan, "-e", "Executor", "-i", "x.png"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ['neurocanvas forward: error: executor "Executor" (network "Runtime") reads '
                   "no dataset variable: give no --input (--count N runs it N times)"]  # fmt: skip


def test_forward_without_input_names_what_the_executors_read(trained, capsys):
    capsys.readouterr()
    assert main(["forward", str(trained / "job")]) == 2
    assert capsys.readouterr().err.strip().splitlines() == [
        'neurocanvas forward: error: executor "Executor" (network "MainRuntime") reads x: give '
        "--input FILE..."
    ]

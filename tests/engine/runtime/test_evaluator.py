"""Evaluation output files against hand-built expected text (nnabla forward's layout)."""

from __future__ import annotations

import csv
import io
import json
import os

import numpy as np
import pytest
from PIL import Image

import engine.nn as nn
from engine.formats import save_project
from engine.graph import config as cfg
from engine.runtime.evaluator import evaluate, run_outputs
from engine.runtime.job import JobError
from engine.runtime.run import train


def _image(folder):
    (folder / "img").mkdir(parents=True, exist_ok=True)
    Image.fromarray(np.zeros((2, 2), np.uint8)).save(folder / "img" / "a.png")


def _affine_job(kit, tmp_path):
    """x (2) -> Affine(2) -> SquaredError(T=y one-hot); trained 1 epoch, then W=I, b=(0.5, 0)."""
    _image(tmp_path)
    header = ["x__0:a", "x__1:b", "img", "y__0", "y__1"]
    rows = [[1, 0, "./img/a.png", 1, 0], [0, 2, "./img/a.png", 0, 1], [3, 1, "./img/a.png", 1, 0]]
    data = kit.write_csv(tmp_path / "data.csv", header, rows)
    layers = [
        kit.layer("Input", "Input", Size=(2,), Dataset="x"),
        kit.layer("Affine", "Affine", OutShape=2),
        kit.layer("SquaredError", "SquaredError", T__Dataset="y"),
    ]
    project = kit.make_project([kit.network("Main", layers, kit.chain(*[x.name for x in layers]))],
                               train=data, valid=data, max_epoch=1, batch=3)  # fmt: skip
    save_project(project, tmp_path / "p.ncproj")
    train(tmp_path / "p.ncproj", job_dir=tmp_path / "job", seed=0)
    nn.save_parameters(tmp_path / "job" / "checkpoints" / "best" / "parameters.npz", {
        "Affine/affine/W": nn.Variable(np.eye(2, dtype=np.float32)),
        "Affine/affine/b": nn.Variable(np.array([0.5, 0.0], np.float32)),
    })  # fmt: skip
    return tmp_path / "job"


def test_output_result_and_confusion_matrix_are_nnc_files(kit, tmp_path):
    job = _affine_job(kit, tmp_path)
    result = evaluate(job)
    image = os.path.join(os.path.abspath(tmp_path), "img", "a.png")
    assert (job / "output_result.csv").read_bytes().decode() == (
        "x__0:a,x__1:b,img,y__0,y__1,y'__0,y'__1\n"
        f"1,0,{image},1,0,1.5,0.0\n"
        f"0,2,{image},0,1,0.5,2.0\n"
        f"3,1,{image},1,0,3.5,1.0\n"
    )
    assert (job / "confusion_matrix_y.csv").read_bytes().decode() == (
        ",y'__0,y'__1,Recall\r\n"
        "y__0,2,0,1.0000\r\n"
        "y__1,0,1,1.0000\r\n"
        "Precision,1.0000,1.0000,\r\n"
        "F-Measures,1.0000,1.0000,\r\n"
        ",,,\r\n"
        "Accuracy,1.0000,,\r\n"
        "Avg.Precision,1.0000,,\r\n"
        "Avg.Recall,1.0000,,\r\n"
        "Avg.F-Measures,1.0000,,\r\n"
    )
    summary = json.loads((job / "evaluation.json").read_text())
    assert summary["rows"] == 3 and summary["checkpoint"] == "best"
    assert summary["network"] == "MainRuntime" and summary["dataset"] == "Validation"
    assert summary["classification"]["y'"]["accuracy"] == 1.0
    assert result.confusion_files == [job / "confusion_matrix_y.csv"]


def test_last_checkpoint_and_dataset_by_csv(kit, tmp_path):
    job = _affine_job(kit, tmp_path)
    result = evaluate(job, checkpoint="last", dataset=str(tmp_path / "data.csv"))
    assert result.checkpoint == "last" and result.dataset == "data.csv"
    lines = (job / "output_result.csv").read_text().splitlines()
    assert lines[1].split(",")[-2:] != ["1.5", "0.0"]  # the trained, not the planted, values
    with pytest.raises(JobError, match=r"--dataset Nope: not a dataset of the job"):
        evaluate(job, dataset="Nope")
    with pytest.raises(JobError, match=r"--checkpoint: expected best or last"):
        evaluate(job, checkpoint="middle")


def test_image_and_matrix_outputs_are_files(kit, tmp_path):
    header = [f"x__{i}" for i in range(6)]
    data = kit.write_csv(tmp_path / "d.csv", header, [[0, 0.2, 0.4, 0.6, 0.8, 1.0],
                                                      [1, 1, 1, 0, 0, 0]])  # fmt: skip
    main = [kit.layer("Input", "Input", Size=(6,), Dataset="x"),
            kit.layer("Affine", "Affine", OutShape=6),
            kit.layer("SquaredError", "SquaredError", T__Dataset="x")]  # fmt: skip
    runtime = [kit.layer("Input", "Input", Size=(6,), Dataset="x"),
               kit.layer("Image", "Reshape", OutShape=(1, 2, 3)),
               kit.layer("Matrix", "Reshape", OutShape=(2, 3))]  # fmt: skip
    project = kit.make_project(
        [
            kit.network("Main", main, kit.chain("Input", "Affine", "SquaredError")),
            kit.network(
                "Runtime", runtime, kit.chain("Input", "Image") + kit.chain("Input", "Matrix")
            ),
        ],
        train=data,
        valid=data,
        max_epoch=1,
        batch=2,
    )
    project.replace_section(("executors", 0), cfg.Executor.new(Executor_NetworkName="Runtime"))
    save_project(project, tmp_path / "p.ncproj")
    train(tmp_path / "p.ncproj", job_dir=tmp_path / "job", seed=0)
    evaluate(tmp_path / "job")
    lines = (tmp_path / "job" / "output_result.csv").read_text().splitlines()
    assert lines[0] == "x__0,x__1,x__2,x__3,x__4,x__5,Image,Matrix"
    assert lines[1].endswith(",./0_0000/0.png,./1_0000/0.csv")
    assert lines[2].endswith(",./0_0000/1.png,./1_0000/1.csv")
    png = np.asarray(Image.open(tmp_path / "job" / "0_0000" / "0.png"))
    assert png.tolist() == [[0, 51, 102], [153, 204, 255]]
    assert (tmp_path / "job" / "1_0000" / "1.csv").read_text() == "1.0,1.0,1.0\n0.0,0.0,0.0\n"
    summary = json.loads((tmp_path / "job" / "evaluation.json").read_text())
    assert summary["classification"] == {} and summary["regression"] == {}


def test_several_executors_write_their_columns_in_turn(kit, tmp_path):
    """nnabla's forward: one column group per output of each executor, in CONFIG order, and
    the picture/matrix folders numbered by the output's place among all of them."""
    data = kit.write_csv(tmp_path / "d.csv", [f"x__{i}" for i in range(6)],
                         [[0, 0.2, 0.4, 0.6, 0.8, 1.0], [1, 1, 1, 0, 0, 0]])  # fmt: skip
    main = [kit.layer("Input", "Input", Size=(6,), Dataset="x"),
            kit.layer("Affine", "Affine", OutShape=6),
            kit.layer("SquaredError", "SquaredError", T__Dataset="x")]  # fmt: skip
    runtime = [kit.layer("Input", "Input", Size=(6,), Dataset="x"),
               kit.layer("Image", "Reshape", OutShape=(1, 2, 3))]  # fmt: skip
    project = kit.make_project(
        [kit.network("Main", main, kit.chain("Input", "Affine", "SquaredError")),
         kit.network("Runtime", runtime, kit.chain("Input", "Image"))],
        train=data, valid=data, max_epoch=1, batch=2,
    )  # fmt: skip
    project.insert_item("executors", None, cfg.Executor.new(
        Executor_Name="Pictures", Executor_NetworkName="Runtime"))  # fmt: skip
    save_project(project, tmp_path / "p.ncproj")
    train(tmp_path / "p.ncproj", job_dir=tmp_path / "job", seed=0)
    result = evaluate(tmp_path / "job")
    lines = (tmp_path / "job" / "output_result.csv").read_text().splitlines()
    assert lines[0] == ",".join([f"x__{i}" for i in range(6)] + [f"x'__{i}" for i in range(6)]
                                + ["Image"])  # fmt: skip
    assert [line.split(",")[-1] for line in lines[1:]] == ["./1_0000/0.png", "./1_0000/1.png"]
    png = np.asarray(Image.open(tmp_path / "job" / "1_0000" / "0.png"))
    assert png.tolist() == [[0, 51, 102], [153, 204, 255]]
    assert [e["network"] for e in result.summary["executors"]] == ["MainRuntime", "Runtime"]
    assert set(result.summary["regression"]) == {"x'"}


def test_repeated_evaluations_average_dropout(kit, tmp_path):
    from engine.runtime.compiler import compile_network

    layers = [kit.layer("Input", "Input", Size=(3,), Dataset="x"),
              kit.layer("Dropout", "Dropout", P=0.5)]  # fmt: skip
    program = compile_network(kit.make_project(
        [kit.network("Runtime", layers, kit.chain("Input", "Dropout"))]), "Runtime")  # fmt: skip
    data_file = kit.write_csv(tmp_path / "d.csv", ["x__0", "x__1", "x__2"], [[1, 1, 1]])
    from engine.data import open_dataset

    with open_dataset(data_file) as data:
        executor = {"num_evaluations": 400, "repeat_evaluation_type": "mean"}
        ((_, mean),) = run_outputs(program, {}, data, 1, executor)
        executor["repeat_evaluation_type"] = "last"
        ((_, last),) = run_outputs(program, {}, data, 1, executor)
    assert set(np.unique(last["Dropout"])) <= {0.0, 2.0}
    np.testing.assert_allclose(mean["Dropout"], 1.0, atol=0.2)


def test_repeated_evaluations_draw_generators_once_per_batch(kit, tmp_path):
    """nnabla's forward fills an executor's generator inputs once per batch, before its
    Number of Evaluations repeats: the mean of 50 repeats of x + z (z ~ N(0, 1)) is x plus
    the one draw a single evaluation makes with the same seed, while dropout is drawn anew on
    every repeat (MC dropout still averages)."""
    from engine.data import open_dataset
    from engine.graph.project import Link
    from engine.runtime.compiler import compile_network

    layers = [kit.layer("x", "Input", Size=(8,), Dataset="x"),
              kit.layer("z", "Input", Size=(8,), Dataset="z", Generator="Normal"),
              kit.layer("Add2", "Add2"), kit.layer("Dropout", "Dropout", P=0.5)]  # fmt: skip
    links = [Link("x", "Add2"), Link("z", "Add2"), Link("x", "Dropout")]
    program = compile_network(kit.make_project([kit.network("Runtime", layers, links)]),
                              "Runtime")  # fmt: skip
    rows = [[1, 2, 3, 4, 5, 6, 7, 8], [0, 0, 0, 0, 1, 1, 1, 1], [8, 7, 6, 5, 4, 3, 2, 1]]
    data_file = kit.write_csv(tmp_path / "d.csv", [f"x__{i}" for i in range(8)], rows)
    x = np.array(rows, np.float32)

    def outputs(count):
        nn.seed(5)
        executor = {"num_evaluations": count, "repeat_evaluation_type": "mean"}
        with open_dataset(data_file) as data:
            ((_, out),) = run_outputs(program, {}, data, 3, executor)
        return out

    once, repeated = outputs(1), outputs(400)
    np.testing.assert_allclose(repeated["Add2"], once["Add2"], rtol=1e-6, atol=1e-6)
    assert np.std(once["Add2"] - x) > 0.5  # a real N(0, 1) draw, not averaged away
    assert set(np.unique(once["Dropout"] / np.maximum(x, 1))) <= {0.0, 2.0}
    np.testing.assert_allclose(repeated["Dropout"], x, atol=0.2 * x.max())


def test_output_values_are_written_as_float32_reads_them(kit, tmp_path):
    """Every output value is written as the shortest text of its float32 value (as
    ``str(np.float32(v))``): tiny, huge, thirds and zero, read back with the csv module."""
    import csv

    job = _affine_job(kit, tmp_path)
    w = np.array([[1 / 3, 1e-8], [0, 1e20]], np.float32)
    b = np.array([0, -2.5e-9], np.float32)
    values = {"Affine/affine/W": nn.Variable(w), "Affine/affine/b": nn.Variable(b)}
    nn.save_parameters(job / "checkpoints" / "best" / "parameters.npz", values)
    evaluate(job)
    with open(job / "output_result.csv", newline="") as handle:
        rows = list(csv.reader(handle))[1:]
    x = np.array([[1, 0], [0, 2], [3, 1]], np.float32)
    want = x @ w + b
    assert [row[-2:] for row in rows] == [[str(np.float32(v)) for v in r] for r in want]
    assert rows[0][-2:] == ["0.33333334", "7.5e-09"] and rows[1][-2:] == ["0.0", "2e+20"]


def test_cells_that_need_quoting_are_written_as_the_csv_module_writes_them(kit, tmp_path):
    """A dataset cell holding a comma or a quote (here an image file's name) sends the rows
    through csv.writer, as every row went before the plain-join fast path; the file reads back
    with the csv module to the full paths and the outputs."""
    job = _affine_job(kit, tmp_path)
    odd = tmp_path / "img" / 'a,"b".png'
    Image.fromarray(np.zeros((2, 2), np.uint8)).save(odd)
    rows = [[1, 0, './img/a,"b".png', 1, 0], [0, 2, "./img/a.png", 0, 1]]
    data = kit.write_csv(tmp_path / "odd.csv", ["x__0:a", "x__1:b", "img", "y__0", "y__1"], rows)
    evaluate(job, dataset=str(data))
    text = (job / "output_result.csv").read_bytes().decode()
    image = os.path.join(os.path.abspath(tmp_path), "img", "a.png")
    expected = [["x__0:a", "x__1:b", "img", "y__0", "y__1", "y'__0", "y'__1"],
                ["1", "0", str(odd.absolute()), "1", "0", "1.5", "0.0"],
                ["0", "2", image, "0", "1", "0.5", "2.0"]]  # fmt: skip
    assert list(csv.reader(io.StringIO(text))) == expected
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="\n").writerows(expected)
    assert text == buffer.getvalue()
    assert '"' + str(odd.absolute()).replace('"', '""') + '"' in text


def test_parameters_held_by_the_checkpoint_take_no_initial_value(kit, tmp_path):
    """Evaluation reads the trained values only: a ``W.File`` initial value that is gone since
    training (moved, deleted) is not read, nor a random one drawn; outputs from the checkpoint."""
    _image(tmp_path)
    np.save(tmp_path / "w0.npy", np.full((2, 2), 7.0, np.float32))
    header = ["x__0:a", "x__1:b", "y__0", "y__1"]
    data = kit.write_csv(tmp_path / "data.csv", header, [[1, 0, 1, 0], [0, 2, 0, 1]])
    layers = [
        kit.layer("Input", "Input", Size=(2,), Dataset="x"),
        kit.layer("Affine", "Affine", OutShape=2, W__File="w0.npy"),
        kit.layer("SquaredError", "SquaredError", T__Dataset="y"),
    ]
    project = kit.make_project([kit.network("Main", layers, kit.chain(*[x.name for x in layers]))],
                               train=data, valid=data, max_epoch=1, batch=2)  # fmt: skip
    save_project(project, tmp_path / "p.ncproj")
    train(tmp_path / "p.ncproj", job_dir=tmp_path / "job", seed=0)
    nn.save_parameters(tmp_path / "job" / "checkpoints" / "best" / "parameters.npz", {
        "Affine/affine/W": nn.Variable(np.array([[2, 0], [0, 3]], np.float32)),
        "Affine/affine/b": nn.Variable(np.array([0.5, 0.0], np.float32)),
    })  # fmt: skip
    (tmp_path / "w0.npy").unlink()
    evaluate(tmp_path / "job")
    lines = (tmp_path / "job" / "output_result.csv").read_text().splitlines()
    assert [line.split(",")[-2:] for line in lines[1:]] == [["2.5", "0.0"], ["0.5", "6.0"]]

"""``neurocanvas report JOB``: the deck is read back with python-pptx and compared with the job's
own files (learning_curve.csv, evaluation.json) and with ``neurocanvas cost --json``."""

from __future__ import annotations

import csv
import io
import json
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
from PIL import Image
from pptx import Presentation
from pptx.enum.shapes import MSO_SHAPE_TYPE
from pptx.util import Emu
from pptx_kit import cli, slide, texts, titles

from engine.layers.spec import STATISTICS

ROOT = Path(__file__).resolve().parents[3]
NNC_ORDER = [
    "lenet_digits",
    "Dataset : Training",
    'Dataset : Examples of variable x in "Training"',
    "Dataset : Validation",
    'Dataset : Examples of variable x in "Validation"',
    "Network Architecture : Main",
    "Training Procedure : Optimizer",
    "Experimental Result : Learning Curve",
    "Experimental Result : Evaluation",
    "References",
]


@pytest.fixture(scope="module")
def deck(lenet_job, tmp_path_factory):
    out = tmp_path_factory.mktemp("deck") / "report.pptx"
    result = cli("report", str(lenet_job), "-o", str(out))
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == f"wrote {out}"
    return Presentation(str(out))


def test_slide_titles_follow_nnc_order(deck):
    got = titles(deck)
    assert [t for t in got if t in NNC_ORDER] == NNC_ORDER
    extra = [t for t in got if t not in NNC_ORDER]
    assert extra == [
        "Experimental Result : Confusion Matrix of y",
        "Experimental Result : Per-class Metrics of y",
        "Experimental Result : Misclassified Examples of y",
    ]
    assert got.index(extra[0]) == got.index("Experimental Result : Evaluation") + 1


def test_dataset_slide_texts(deck, lenet_job):
    plan = json.loads((lenet_job / "config.json").read_text())["plan"]
    with open(plan["datasets"]["Training"]["csv"], newline="") as f:
        rows = sum(1 for _ in csv.reader(f)) - 1
    assert texts(slide(deck, "Dataset : Training")) == [
        f"Number of data : {rows:,}", "Variable : x (image)", "    Type : Image",
        "    Shape : 1, 28, 28", "Variable : y (label)", "    Type : Scalar",
    ]  # fmt: skip


def test_statistics_table_equals_neurocanvas_cost(deck, lenet_job):
    result = cli("cost", str(lenet_job / "network.ncproj"), "--json")
    expected = json.loads(result.stdout)["networks"]["Main"]
    table = next(s for s in slide(deck, "Network Architecture : Main").shapes if s.has_table)
    cells = [[c.text for c in row.cells] for row in table.table.rows]
    assert cells[0] == ["Type", "Value"]
    assert cells[1:] == [[name, f"{expected[name]:,}"] for name in STATISTICS]


def test_network_picture_is_a_crisp_png(deck):
    pictures = [s for s in slide(deck, "Network Architecture : Main").shapes
                if s.shape_type == MSO_SHAPE_TYPE.PICTURE]  # fmt: skip
    assert len(pictures) == 1
    image = Image.open(io.BytesIO(pictures[0].image.blob))
    inches = Emu(pictures[0].width).inches
    assert image.format == "PNG" and image.width / inches >= 150  # dots per inch on the slide


def test_optimizer_slide_texts(deck):
    assert texts(slide(deck, "Training Procedure : Optimizer")) == [
        'Optimize network "Main" using "Training" dataset.', "Batch size : 64", "Solver : Adam",
        "Learning rate(Alpha) : 0.001", "Beta1 : 0.9", "Beta2 : 0.999", "Epsilon : 1e-08",
        "Weight decay is not applied.", "Max epoch : 2",
    ]  # fmt: skip


def test_learning_curve_chart_series_equal_the_csv(deck, lenet_job):
    with open(lenet_job / "learning_curve.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    chart = next(s for s in slide(deck, "Experimental Result : Learning Curve").shapes
                 if s.has_chart).chart  # fmt: skip
    got = {series.name: series for series in chart.plots[0].series}
    assert list(got) == ["cost", "training loss", "validation loss"]
    for name, column in (("cost", "cost"), ("training loss", "train_error"),
                         ("validation loss", "valid_error")):  # fmt: skip
        series = got[name]
        assert list(series.values) == [float(r[column]) for r in rows]
    epochs = chart.plots[0].series[0]._element.xpath("./c:xVal//c:v")
    assert [float(v.text) for v in epochs] == [float(r["epoch"]) for r in rows]


def test_evaluation_numbers_equal_the_metrics_file(deck, lenet_job):
    summary = json.loads((lenet_job / "evaluation.json").read_text())
    m = summary["classification"]["y'"]
    lines = texts(slide(deck, "Experimental Result : Evaluation"))
    assert lines[0] == 'Evaluate network "MainRuntime" using "Validation" dataset.'
    assert lines[2:] == [
        "Variable : y", f"    Accuracy : {m['accuracy']:.4f}",
        f"    Avg.Precision : {m['avg_precision']:.4f}", f"    Avg.Recall : {m['avg_recall']:.4f}",
        f"    Avg.F-Measures : {m['avg_f_measure']:.4f}",
    ]  # fmt: skip
    per_class = next(s for s in slide(deck, "Experimental Result : Per-class Metrics of y").shapes
                     if s.has_table).table  # fmt: skip
    rows = [[c.text for c in r.cells] for r in per_class.rows][1:]
    assert [r[1] for r in rows] == [f"{v:.4f}" for v in m["precision"]]
    assert [int(r[4]) for r in rows] == [sum(r) for r in m["confusion_matrix"]]


@pytest.mark.parametrize("dataset", ["Training", "Validation"])
def test_example_images_are_present_and_not_blank(deck, dataset):
    sld = slide(deck, f'Dataset : Examples of variable x in "{dataset}"')
    pictures = [s for s in sld.shapes if s.shape_type == MSO_SHAPE_TYPE.PICTURE]
    assert len(pictures) == 10  # NNC shows ten samples
    blobs = set()
    for picture in pictures:
        image = np.asarray(Image.open(io.BytesIO(picture.image.blob)).convert("L"), np.float64)
        # a digit drawn white on black: a good share of dark pixels and of bright strokes
        assert (image < 40).mean() > 0.2 and (image > 200).mean() > 0.02
        blobs.add(picture.image.blob)
    assert len(blobs) == 10  # ten different samples
    captions = [t for t in texts(sld) if t]
    assert len(captions) == 10 and all(c.startswith("y=") for c in captions)


def test_references_cite_the_right_papers(deck):
    lines = texts(slide(deck, "References"))
    assert lines[0].startswith("NeuroCanvas ")
    adam = [line for line in lines if line.startswith("Adam - ")]
    assert adam and "1412.6980" in adam[0] and "ADADELTA" not in adam[0]
    assert any(line.startswith("ReLU - ") for line in lines)
    assert not any(line.startswith("Affine - ") for line in lines)  # no paper in the catalogue


def test_pdf_page_count(deck, lenet_job, tmp_path):
    soffice = shutil.which("soffice") or shutil.which("libreoffice")
    if soffice is None:
        pytest.skip("LibreOffice (soffice) is not installed; .ci/run installs it")
    pptx = tmp_path / "report.pptx"
    assert cli("report", str(lenet_job), "-o", str(pptx)).returncode == 0
    subprocess.run([soffice, "--headless", f"-env:UserInstallation=file://{tmp_path}/lo",
                    "--convert-to", "pdf", "--outdir", str(tmp_path), str(pptx)],
                   capture_output=True, timeout=240, check=True)  # fmt: skip
    pdf = (tmp_path / "report.pdf").read_bytes()
    pages = len(re.findall(rb"/Type\s*/Page\b(?!s)", pdf))
    assert pages == len(deck.slides) == 13


def test_a_200000_epoch_learning_curve_is_drawn_decimated(job_copy, tmp_path):
    """Issue 29 (also seen): ``report`` on a 200,000-row learning curve took 41 s and 1.5 GB
    building a chart of 600,000 points. Each series now has at most 2,000 points, the first
    and last epochs and each stretch's lowest and highest value kept (the best epoch and a
    spike stay visible)."""
    rows = ["epoch,cost,train_error,valid_error"]
    for epoch in range(1, 200_001):
        valid = 0.001 if epoch == 123_457 else 9.5 if epoch == 150_001 else 0.5 + 1 / epoch
        rows.append(f"{epoch},{1 / epoch:.6g},{0.4 + 1 / epoch:.6g},{valid:.6g}")
    (job_copy / "learning_curve.csv").write_text("\n".join(rows) + "\n")
    out = tmp_path / "r.pptx"
    result = cli("report", str(job_copy), "-o", str(out))
    assert result.returncode == 0, result.stderr
    chart = next(s for s in slide(Presentation(str(out)), "Experimental Result : Learning Curve")
                 .shapes if s.has_chart).chart  # fmt: skip
    for series in chart.plots[0].series:
        epochs = [float(v.text) for v in series._element.xpath("./c:xVal//c:v")]
        values = list(series.values)
        assert 100 < len(values) == len(epochs) <= 2000, series.name
        assert epochs[0] == 1 and epochs[-1] == 200_000 and epochs == sorted(epochs)
    valid = chart.plots[0].series[2]
    points = dict(zip([float(v.text) for v in valid._element.xpath("./c:xVal//c:v")],
                      valid.values, strict=True))  # fmt: skip
    assert points[123_457] == 0.001 and points[150_001] == 9.5
    assert min(points.values()) == 0.001 and max(points.values()) == 9.5

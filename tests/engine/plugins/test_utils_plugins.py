"""Inference, Scatter Plot, Tile Images, Feature Visualization and TracIn (batch) from the CLI
on the default project's trained LeNet, their files read back with independent readers
(csv, Pillow) and checked against the evaluation's output table, the images' own pixels, a
NumPy convolution with the job's parameters, and the single-row TracIn plugin."""

from __future__ import annotations

import csv
import shutil

import numpy as np
import pytest
from PIL import Image
from plugin_kit import cli


def _latest(job, stem):
    return max((job / "plugin_results").glob(f"{stem}_[0-9]*"), key=lambda p: p.stat().st_mtime)


def _output_rows(job):
    return list(csv.reader(open(job / "output_result.csv")))[1:]


def test_inference_on_a_folder_equals_the_evaluation(lenet_job, tmp_path):
    rows = _output_rows(lenet_job)
    folder = tmp_path / "new"
    folder.mkdir()
    picks = [0, 40, 150, 296]
    for k in picks:  # new files, as a user brings them: copies under other names
        shutil.copyfile(rows[k][0], folder / f"sample_{k:03d}.png")
    done = cli("plugin", "run", "Inference", str(lenet_job), f"input_data={folder}")
    assert done.returncode == 0, done.stderr
    out = list(csv.reader(open(_latest(lenet_job, "inference") / "inference.csv")))
    assert out[0] == ["x:image"] + [f"y'__{k}" for k in range(10)]
    assert [r[0] for r in out[1:]] == [str(folder / f"sample_{k:03d}.png") for k in picks]
    for k, r in zip(picks, out[1:], strict=True):
        np.testing.assert_allclose([float(v) for v in r[1:]], [float(v) for v in rows[k][2:12]],
                                   rtol=1e-4, atol=1e-6)  # fmt: skip
    # a dataset CSV (relative file names) gives the same numbers
    table = tmp_path / "data.csv"
    table.write_text("x:image\n" + "".join(f"new/sample_{k:03d}.png\n" for k in picks))
    done = cli("plugin", "run", "Inference", str(lenet_job), f"input_data={table}")
    assert done.returncode == 0, done.stderr
    again = list(csv.reader(open(_latest(lenet_job, "inference") / "inference.csv")))
    assert [r[1:] for r in again[1:]] == [r[1:] for r in out[1:]]


def test_inference_names_a_missing_input(lenet_job, tmp_path):
    done = cli("plugin", "run", "Inference", str(lenet_job), f"input_data={tmp_path / 'none'}")
    assert done.returncode != 0
    assert "--input_data" in done.stderr and "no such file or folder" in done.stderr
    assert "Traceback" not in done.stderr


def test_scatter_plot_draws_the_columns_at_the_size_asked(lenet_job):
    done = cli("plugin", "run", "Scatter Plot", str(lenet_job), "x=y'__1", "y=y'__7", "c=y",
               "width=640", "height=480")  # fmt: skip
    assert done.returncode == 0, done.stderr
    folder = _latest(lenet_job, "scatter_plot")
    with Image.open(folder / "scatter_plot.png") as image:
        assert image.size == (640, 480)
        pixels = np.asarray(image.convert("RGB"))
    assert len(np.unique(pixels.reshape(-1, 3), axis=0)) > 10  # points in colours, not blank
    plotted = list(csv.DictReader(open(folder / "scatter_plot.csv")))
    rows = _output_rows(lenet_job)
    assert len(plotted) == 297
    np.testing.assert_allclose([float(p["y'__1"]) for p in plotted],
                               [float(r[3]) for r in rows], rtol=1e-6)  # fmt: skip
    np.testing.assert_allclose([float(p["y'__7"]) for p in plotted],
                               [float(r[9]) for r in rows], rtol=1e-6)  # fmt: skip
    assert [p["y"] for p in plotted] == [r[1] for r in rows]
    # a class output by its name: each row's predicted class
    done = cli("plugin", "run", "Scatter Plot", str(lenet_job), "width=320", "height=240")
    assert done.returncode == 0, done.stderr
    plotted = list(csv.DictReader(open(_latest(lenet_job, "scatter_plot") / "scatter_plot.csv")))
    predicted = [int(np.argmax([float(v) for v in r[2:12]])) for r in rows]
    assert [int(float(p["y'"])) for p in plotted] == predicted


def test_tile_images_of_a_selection_places_each_image(lenet_job):
    rows = _output_rows(lenet_job)
    chosen = [3, 7, 11, 20, 42]
    done = cli("plugin", "run", "Tile Images", str(lenet_job), "--rows",
               ",".join(map(str, chosen)), "num_column=2")  # fmt: skip
    assert done.returncode == 0, done.stderr
    with Image.open(_latest(lenet_job, "tile_images") / "tiled_images.png") as image:
        tiled = np.asarray(image.convert("L"))
    assert tiled.shape == (3 * 28, 2 * 28)  # 5 images, 2 a row: 3 rows
    for n, k in enumerate(chosen):
        r, c = divmod(n, 2)
        with Image.open(rows[k][0]) as source:
            expected = np.asarray(source.convert("L"))
        assert np.array_equal(tiled[r * 28 : (r + 1) * 28, c * 28 : (c + 1) * 28], expected)
    assert not tiled[56:, 28:].any()  # the sixth place stays black
    # resized, a range of rows
    done = cli("plugin", "run", "Tile Images", str(lenet_job), "image_width=14",
               "image_height=14", "start_index=10", "end_index=19", "num_column=5")  # fmt: skip
    assert done.returncode == 0, done.stderr
    with Image.open(_latest(lenet_job, "tile_images") / "tiled_images.png") as image:
        assert image.size == (5 * 14, 2 * 14)


def _conv(x, w, b):
    """A valid 2-D convolution (cross-correlation, as NNC's) in NumPy, float64."""
    c, k = w.shape[0], w.shape[-1]
    h, wd = x.shape[1] - k + 1, x.shape[2] - k + 1
    out = np.zeros((c, h, wd))
    for i in range(k):
        for j in range(k):
            out += np.einsum("oc,chw->ohw", w[:, :, i, j], x[:, i : i + h, j : j + wd])
    return out + b[:, None, None]


def test_feature_visualization_pictures_the_first_convolution(lenet_job):
    row = 5
    done = cli("plugin", "run", "Feature Visualization", str(lenet_job), "--row", str(row))
    assert done.returncode == 0, done.stderr
    folder = _latest(lenet_job, "feature_visualization")
    table = list(csv.DictReader(open(folder / "feature_visualization.csv")))
    with np.load(lenet_job / "checkpoints" / "best" / "parameters.npz") as npz:  # NumPy reads it
        arrays = [npz[k].astype(np.float64) for k in npz.files if not k.startswith("__")]
    [w] = [a for a in arrays if a.shape == (16, 1, 7, 7)]  # the first convolution's kernel
    [b] = [a for a in arrays if a.shape == (16,)]
    with Image.open(_output_rows(lenet_job)[row][0]) as image:
        x = np.asarray(image.convert("L"), np.float64)[None] / 255.0
    expected = _conv(x, w, b)  # 16 maps of 22 x 22
    assert len(table) == 16
    for k, entry in enumerate(table):
        low, high = float(entry["min"]), float(entry["max"])
        assert low == pytest.approx(expected[k].min(), abs=1e-5)
        assert high == pytest.approx(expected[k].max(), abs=1e-5)
        with Image.open(folder / entry["map:image"]) as image:
            pixels = np.asarray(image, np.float64)
        assert pixels.shape == (22, 22)
        # the picture's pixels give back the map within half a grey level
        np.testing.assert_allclose(low + pixels / 255 * (high - low), expected[k],
                                   atol=0.51 / 255 * (high - low) + 1e-5)  # fmt: skip
    with Image.open(folder / "feature_maps.png") as image:
        assert image.size == (8 * 22 * 2, 2 * 22 * 2)  # 8 a row, drawn twice as large


def test_feature_visualization_names_an_unknown_layer(lenet_job):
    done = cli("plugin", "run", "Feature Visualization", str(lenet_job), "--row", "0",
               "layer_name=Conv9")  # fmt: skip
    assert done.returncode != 0
    assert "--layer_name 'Conv9'" in done.stderr and "Traceback" not in done.stderr


def test_tracin_batch_equals_the_single_row_plugin(lenet_job):
    done = cli("plugin", "run", "TracIn (batch)", str(lenet_job), "num_samples=40", "num_rows=3",
               "top=2")  # fmt: skip
    assert done.returncode == 0, done.stderr
    batch = list(csv.DictReader(open(_latest(lenet_job, "tracin_batch") / "tracin_batch.csv")))
    assert len(batch) == 3
    for j in (0, 2):
        done = cli("plugin", "run", "TracIn", str(lenet_job), "--row", str(j), "num_samples=40",
                   "top=40")  # fmt: skip
        assert done.returncode == 0, done.stderr
        single = list(csv.DictReader(open(_latest(lenet_job, "tracin") / "tracin.csv")))
        for k in (1, 2):
            assert batch[j][f"proponent_{k}_row"] == single[k - 1]["training row"]
            assert batch[j][f"proponent_{k}:image"] == single[k - 1]["x:image"]
            assert float(batch[j][f"proponent_{k}_influence"]) == pytest.approx(
                float(single[k - 1]["influence"]), rel=1e-4)  # fmt: skip
        assert batch[j]["opponent_row"] == single[-1]["training row"]
        assert float(batch[j]["opponent_influence"]) == pytest.approx(
            float(single[-1]["influence"]), rel=1e-4)  # fmt: skip


def test_every_new_plugin_result_gets_a_report_slide(lenet_job, tmp_path):
    from pptx import Presentation
    from pptx.enum.shapes import MSO_SHAPE_TYPE

    from engine.plugins import list_results

    runs = [
        ("Scatter Plot", "width=320", "height=240"),
        ("Tile Images", "--rows", "0,1,2"),
        ("Feature Visualization", "--row", "0"),
        ("Inference", f"input_data={_output_rows(lenet_job)[0][0]}"),
        ("TracIn (batch)", "num_samples=10", "num_rows=2"),
        ("SGD Influence", "num_samples=20", "--row", "0"),
        ("Influence Functions", "num_samples=20", "iterations=5", "--row", "0"),
    ]
    for name, *args in runs:
        done = cli("plugin", "run", name, str(lenet_job), *args)
        assert done.returncode == 0, (name, done.stderr)
    deck = tmp_path / "report.pptx"
    done = cli("report", str(lenet_job), "-o", str(deck))
    assert done.returncode == 0, done.stderr
    slides = [s for s in Presentation(deck).slides if s.shapes.title is not None]
    titles = [s.shapes.title.text for s in slides]
    for result in list_results(lenet_job):
        assert any(t.startswith(f"Plugin : {result.plugin} ({result.folder.name})")
                   for t in titles), (result.plugin, titles)  # fmt: skip

    def shapes(prefix):
        return [sh for s, t in zip(slides, titles, strict=True) if t.startswith(prefix)
                for sh in s.shapes]  # fmt: skip

    for picture in ("Visualization/Scatter Plot", "Visualization/Tile Images",
                    "Utils/Feature Visualization"):  # fmt: skip
        assert any(sh.shape_type == MSO_SHAPE_TYPE.PICTURE for sh in shapes(f"Plugin : {picture}"))
    [table] = [sh.table for sh in shapes("Plugin : XAI/SGD Influence (") if sh.has_table][:1]
    header = [table.cell(0, c).text for c in range(len(table.columns))]
    assert header == ["x:image", "y:label", "influence", "datasource_index"]
    assert table.cell(1, 0).text.endswith(".png") and "/" not in table.cell(1, 0).text

"""The Quantization slides of a job's report (engine/quantization/report_slides.py): a real PTQ
sweep of the trained LeNet job is run with ``neurocanvas quantize sweep``, the report with
``neurocanvas report``, and the deck is read back with python-pptx and compared with the sweep's
results.csv, sweep.png and sensitivity.csv (read with the csv module)."""

from __future__ import annotations

import csv
import io
import json
import shutil
from pathlib import Path

import pytest
from PIL import Image
from pptx import Presentation
from pptx.util import Emu
from pptx_kit import cli, slide, texts, titles

from engine.report.job_report import write_report

RESULTS = "Quantization : Results"
CHART = "Quantization : Accuracy against Bits and Model Size"
SENSITIVITY = "Quantization : Layer Sensitivity"
HEADER = ["Quantizer", "Target", "Bits", "Mode", "Accuracy", "Parameter bytes", "CostMultiplyAdd"]


def _csv(path: Path) -> list[dict[str, str]]:
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def _tables(prs, title: str) -> list[list[list[str]]]:  # noqa: ANN001
    """The cells of the table on ``title`` and on its "(continued)" slides, header included."""
    found = []
    for s in prs.slides:
        if s.shapes.title.text in (title, f"{title} (continued)"):
            table = next(shape for shape in s.shapes if shape.has_table).table
            found.append([[cell.text for cell in row.cells] for row in table.rows])
    return found


def _number(text: str) -> float:
    return float(text.replace(",", ""))


@pytest.fixture(scope="module")
def swept(lenet_job, tmp_path_factory):
    """(job, sweep folder, deck): a copy of the job, swept at 8 and 2 bits (both, weights) with
    the 2-bit layer sensitivity and a 40,000-byte mixed-precision pick, in the default
    ``<job>_quantization`` folder, then reported."""
    job = Path(shutil.copytree(lenet_job, tmp_path_factory.mktemp("swept") / "job"))
    result = cli("quantize", "sweep", str(job / "network.ncproj"), "--job", str(job),
                 "--bits", "8,2", "--targets", "both,weights", "--sensitivity", "2",
                 "--budget", "40000")  # fmt: skip
    assert result.returncode == 0, result.stderr
    result = cli("report", str(job))
    assert result.returncode == 0, result.stderr
    return job, job.with_name("job_quantization"), Presentation(str(job / "report.pptx"))


def test_the_slides_come_after_the_evaluation_and_before_the_references(swept):
    got = titles(swept[2])
    assert got[-4:] == [RESULTS, CHART, SENSITIVITY, "References"]
    assert got[-5] == "Experimental Result : Misclassified Examples of y"


def test_the_results_table_holds_results_csv(swept):
    _, sweep, prs = swept
    expected = _csv(sweep / "results.csv")
    assert len(expected) == 5  # the float reference, then 8 and 2 bits x both, weights
    (table,) = _tables(prs, RESULTS)
    assert table[0] == HEADER
    assert len(table) - 1 == len(expected)
    for cells, row in zip(table[1:], expected, strict=True):
        assert cells[:4] == [row["quantizer"], row["target"], row["bits"], row["mode"]]
        assert _number(cells[4]) == pytest.approx(float(row["accuracy"]), abs=5e-5)
        assert _number(cells[5]) == int(row["parameter_bytes"])
        assert _number(cells[6]) == int(row["cost_multiply_add"])
    # The summary above the table names the sweep and the float accuracy.
    (line,) = texts(slide(prs, RESULTS))
    float_accuracy = float(expected[0]["accuracy"])
    assert line.startswith("Sweep job_quantization, network Main, fixed-point quantizers, PTQ")
    assert line.endswith(f"float accuracy {float_accuracy:.4f}.")


def test_the_chart_slide_shows_sweep_png(swept):
    _, sweep, prs = swept
    (picture,) = [s for s in slide(prs, CHART).shapes if s.shape_type == 13]
    assert picture.image.blob == (sweep / "sweep.png").read_bytes()
    width, height = Image.open(io.BytesIO(picture.image.blob)).size
    assert picture.width / picture.height == pytest.approx(width / height, rel=0.01)
    assert picture.left + picture.width <= prs.slide_width
    assert picture.top + picture.height <= prs.slide_height


def test_the_sensitivity_table_holds_sensitivity_csv(swept):
    _, sweep, prs = swept
    expected = _csv(sweep / "sensitivity.csv")
    assert len(expected) >= 4  # LeNet's quantizable layers
    (table,) = _tables(prs, SENSITIVITY)
    assert table[0] == ["Rank", "Layer", "Bits", "Accuracy", "Accuracy lost", "Mixed bits"]
    assert [r[1] for r in table[1:]] == [row["layer"] for row in expected]
    for cells, row in zip(table[1:], expected, strict=True):
        assert cells[0] == row["rank"] and cells[2] == "2"
        assert _number(cells[3]) == pytest.approx(float(row["accuracy"]), abs=5e-5)
        assert _number(cells[4]) == pytest.approx(float(row["loss"]), abs=5e-5)
    mixed = json.loads((sweep / "mixed_precision.json").read_text())
    assert mixed["parameter_bytes"] <= 40_000
    assert {r[1]: r[5] for r in table[1:] if r[5]} == {
        layer: str(bits) for layer, bits in mixed["layer_bits"].items()}  # fmt: skip
    assert texts(slide(prs, SENSITIVITY))[1] == (
        f"Mixed precision for 40,000 bytes (Mixed bits): {mixed['parameter_bytes']:,} parameter "
        f"bytes, accuracy {mixed['accuracy']:.4f}, the most accurate that fits of "
        f"{len(mixed['candidates'])} networks evaluated whole (mixed_precision.json).")  # fmt: skip
    # The accuracy shown is the pick's job's evaluation (the network with the Mixed bits).
    evaluation = json.loads((sweep / "mixed_precision" / "evaluation.json").read_text())
    assert evaluation["classification"]["y'"]["accuracy"] == mixed["accuracy"]
    config = json.loads((sweep / "mixed_precision" / "config.json").read_text())
    assert config["quantization"]["layer_bits"] == mixed["layer_bits"]


def test_a_stopped_pick_is_named_without_mixed_bits(swept, tmp_path):
    job, sweep, _ = swept
    job = Path(shutil.copytree(job, tmp_path / "job"))
    sweep = Path(shutil.copytree(sweep, tmp_path / "job_quantization"))
    record = json.loads((sweep / "mixed_precision.json").read_text())
    kept = {k: record[k] for k in ("budget", "evaluations", "candidates")}
    (sweep / "mixed_precision.json").write_text(json.dumps({**kept, "status": "stopped"}))
    (sweep / "sweep.json").write_text(json.dumps({"job": str(job), "network": "Main"}))
    prs = Presentation(str(write_report(job, tmp_path / "r.pptx")))
    (table,) = _tables(prs, SENSITIVITY)
    assert table[0] == ["Rank", "Layer", "Bits", "Accuracy", "Accuracy lost"]
    assert texts(slide(prs, SENSITIVITY))[1] == (
        f"Mixed precision for 40,000 bytes: stopped after {record['evaluations']} evaluations "
        f"(run the sweep again to finish).")  # fmt: skip


def _long_sweep(job: Path, folder: Path, count: int) -> list[list[str]]:
    """A sweep folder with ``count`` points written by hand (no sweep.png): its rows."""
    folder.mkdir()
    (folder / "sweep.json").write_text(json.dumps({"job": str(job), "network": "Main",
                                                   "options": {"mode": "ptq"}}))  # fmt: skip
    rows = [["fixed-point", "both", str(32 - k), "ptq", str(0.99 - k / 100), str(0.01 + k / 100),
             str(1000 * (40 - k)), "802876", f"p{k}"] for k in range(count)]  # fmt: skip
    with open(folder / "results.csv", "w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f, lineterminator="\n")
        writer.writerow(["quantizer", "target", "bits", "mode", "accuracy", "error",
                         "parameter_bytes", "cost_multiply_add", "job"])  # fmt: skip
        writer.writerows(rows)
    return rows


def test_a_long_sweep_is_split_over_slides_and_its_chart_redrawn(job_copy, tmp_path):
    rows = _long_sweep(job_copy, job_copy.with_name("bits_sweep"), 30)
    prs = Presentation(str(write_report(job_copy, tmp_path / "r.pptx")))
    tables = _tables(prs, RESULTS)
    assert len(tables) == 3
    assert all(t[0] == HEADER for t in tables)
    shown = [cells for t in tables for cells in t[1:]]
    assert [c[2] for c in shown] == [r[2] for r in rows]
    assert [_number(c[5]) for c in shown] == [int(r[6]) for r in rows]
    for s in prs.slides:  # nothing runs off the slide
        for shape in s.shapes:
            if shape.has_table:
                height = sum(Emu(row.height) for row in shape.table.rows)
                assert shape.top + height <= prs.slide_height
    (picture,) = [s for s in slide(prs, CHART).shapes if s.shape_type == 13]
    assert Image.open(io.BytesIO(picture.image.blob)).size == (1000, 400)  # plot_png's figure
    assert not (job_copy.with_name("bits_sweep") / "sweep.png").exists()  # nothing written


def test_only_the_jobs_own_sweeps_and_a_broken_one_is_named(job_copy, tmp_path):
    (tmp_path / "elsewhere").mkdir()  # a sweep of another job, beside this one: not reported
    _long_sweep(tmp_path / "elsewhere", job_copy.with_name("other_sweep"), 2)
    _long_sweep(job_copy, job_copy.with_name("a_sweep"), 2)
    broken = job_copy.with_name("job_quantization")
    _long_sweep(job_copy, broken, 3)
    text = (broken / "results.csv").read_text().replace("0.97", "n/a")
    (broken / "results.csv").write_text(text)
    prs = Presentation(str(write_report(job_copy, tmp_path / "r.pptx")))
    got = [t for t in titles(prs) if t.startswith("Quantization")]
    assert got == [
        f"{RESULTS} of a_sweep",
        f"{CHART} of a_sweep",
        "Quantization of job_quantization",
    ]
    (line,) = texts(slide(prs, "Quantization of job_quantization"))
    path = broken.resolve() / "results.csv"
    assert line == (f"This sweep cannot be reported: {path}, line 4, column accuracy: expected "
                    f"a number. Received: 'n/a'")  # fmt: skip


def test_the_slides_are_in_the_reports_language(swept, tmp_path):
    """``report --lang ja``: the quantization slides' titles, table headings, texts and the
    redrawn chart's axis titles are Japanese; values and names stay as written."""
    job, sweep, _ = swept
    out = tmp_path / "report_ja.pptx"
    result = cli("report", str(job), "-o", str(out), "--lang", "ja")
    assert result.returncode == 0, result.stderr
    prs = Presentation(str(out))
    got = titles(prs)
    assert got[-4:] == ["量子化 : 結果", "量子化 : ビット数とモデルサイズに対する精度",
                        "量子化 : レイヤーの感度", "参考文献"]  # fmt: skip
    (table,) = _tables(prs, "量子化 : 結果")
    assert table[0] == ["量子化器", "対象", "ビット数", "モード", "精度",
                        "パラメーターのバイト数", "CostMultiplyAdd"]  # fmt: skip
    rows = _csv(sweep / "results.csv")
    assert [cells[:4] for cells in table[1:]] == [
        [r["quantizer"], r["target"], r["bits"], r["mode"]] for r in rows
    ]
    summary = " ".join(texts(slide(prs, "量子化 : 結果")))
    assert f"スイープ {sweep.name}" in summary and "浮動小数点での精度" in summary
    (sensitivity,) = _tables(prs, "量子化 : レイヤーの感度")
    assert sensitivity[0] == [
        "順位",
        "レイヤー",
        "ビット数",
        "精度",
        "精度の低下",
        "混合精度のビット数",
    ]
    intro = " ".join(texts(slide(prs, "量子化 : レイヤーの感度")))
    assert "各レイヤーだけを 2 ビットで量子化し" in intro
    # the chart is redrawn in Japanese (sweep.png holds the English one): another picture
    english_png = (sweep / "sweep.png").read_bytes()
    pictures = [shape.image.blob for shape in slide(prs, got[-3]).shapes if shape.shape_type == 13]
    assert len(pictures) == 1 and pictures[0] != english_png

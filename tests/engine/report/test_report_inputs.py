"""Bad and partial input: not a job, never evaluated, datasets gone, unwritable output; the
comparison deck; extra slides from a hook."""

from __future__ import annotations

import json
import shutil

from pptx import Presentation
from pptx_kit import cli, slide, texts, titles

from engine.report import job_report
from engine.report.compare import write_comparison
from engine.report.job_report import write_report


def test_a_folder_that_is_not_a_job_is_one_line_naming_it(tmp_path):
    result = cli("report", str(tmp_path))
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == [
        f"neurocanvas report: error: {tmp_path}: not a NeuroCanvas job folder "
        "(no network.ncproj/config.json)"
    ]
    assert not (tmp_path / "report.pptx").exists()


def test_default_output_is_report_pptx_in_the_job(job_copy):
    result = cli("report", str(job_copy))
    assert result.returncode == 0, result.stderr
    assert len(Presentation(str(job_copy / "report.pptx")).slides) == 13


def test_a_job_not_evaluated_says_so_on_the_evaluation_slide(job_copy, tmp_path):
    for name in ("evaluation.json", "output_result.csv", "confusion_matrix_y.csv"):
        (job_copy / name).unlink()
    prs = Presentation(str(write_report(job_copy, tmp_path / "r.pptx")))
    lines = texts(slide(prs, "Experimental Result : Evaluation"))
    assert lines == [
        "This job has not been evaluated yet.",
        "The evaluation results appear here once the job is evaluated.",
    ]
    # A deck is for whoever reads it: no slide prints a command (issue 35, item 10).
    assert not any("neurocanvas" in t for sld in prs.slides for t in texts(sld))
    assert not any("Confusion Matrix" in t for t in titles(prs))
    assert titles(prs)[-1] == "References"


def test_report_evaluate_evaluates_a_job_first(job_copy):
    """``report --evaluate`` (what the app's "Evaluate, then report" runs) evaluates a job that
    has no evaluation, then writes the deck with its results."""
    for name in ("evaluation.json", "output_result.csv", "confusion_matrix_y.csv"):
        (job_copy / name).unlink()
    result = cli("report", str(job_copy), "--evaluate", "--events")
    assert result.returncode == 0, result.stderr
    events = [json.loads(line) for line in result.stdout.splitlines()]
    assert events[0]["message"] == f"evaluating {job_copy.name} (best parameters)"
    assert json.loads((job_copy / "evaluation.json").read_text())["checkpoint"] == "best"
    lines = texts(slide(Presentation(str(job_copy / "report.pptx")),
                        "Experimental Result : Evaluation"))  # fmt: skip
    accuracy = next(line for line in lines if line.strip().startswith("Accuracy"))
    assert 0.0 < float(accuracy.split(":")[1]) <= 1.0


def test_a_checkpoint_other_than_the_evaluated_one_is_named(lenet_job, tmp_path):
    prs = Presentation(str(write_report(lenet_job, tmp_path / "r.pptx", checkpoint="last")))
    lines = texts(slide(prs, "Experimental Result : Evaluation"))
    assert lines[0] == (
        "This job has been evaluated with the best parameters, not the last ones asked for."
    )
    assert lines[1] == "The evaluation results appear here once the job is evaluated."


def test_datasets_that_have_gone_are_named_on_their_slides(job_copy, tmp_path):
    config = json.loads((job_copy / "config.json").read_text())
    gone = tmp_path / "moved-away" / "training.csv"
    config["plan"]["datasets"]["Training"]["csv"] = str(gone)
    (job_copy / "config.json").write_text(json.dumps(config))
    prs = Presentation(str(write_report(job_copy, tmp_path / "r.pptx")))
    lines = texts(slide(prs, "Dataset : Training"))
    assert lines[0] == f"The dataset file is no longer available: {gone}"
    assert 'Dataset : Examples of variable x in "Training"' not in titles(prs)
    assert 'Dataset : Examples of variable x in "Validation"' in titles(prs)


def test_an_unwritable_output_is_a_clear_error_and_leaves_no_file(lenet_job, tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    result = cli("report", str(lenet_job), "-o", str(blocker / "report.pptx"))
    assert result.returncode == 2
    (line,) = result.stderr.strip().splitlines()
    assert line.startswith(f"neurocanvas report: error: {blocker / 'report.pptx'}: cannot write")
    existing = tmp_path / "existing.pptx"
    existing.write_bytes(b"old")
    result = cli("report", str(lenet_job), "-o", str(tmp_path))
    assert result.returncode == 2 and "is a folder" in result.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a-file", "existing.pptx"]


def test_extra_slides_come_before_the_references(lenet_job, tmp_path, monkeypatch):
    (tmp_path / "extra").mkdir()

    def sweep(deck, context):
        rows = [[str(bits), "0.1"] for bits in (8, 4, 2)]
        deck.table_slides(f"Quantization : {context.root.name}", ["Bits", "Error"], rows)

    def broken(deck, context):
        raise ValueError("sweep.csv: bad row 3")

    monkeypatch.setattr(job_report, "SLIDE_PROVIDERS", ("no.such.module",))
    prs = Presentation(str(write_report(lenet_job, tmp_path / "r.pptx", extra=[sweep, broken])))
    assert titles(prs)[-3:] == [f"Quantization : {lenet_job.name}", "Extra slides", "References"]
    (line,) = texts(slide(prs, "Extra slides"))
    assert line.endswith("broken could not make its slides: sweep.csv: bad row 3")


def test_comparison_deck_of_two_jobs(lenet_job, job_copy, tmp_path):
    (job_copy / "label.json").write_text(json.dumps({"name": "copy"}))
    out = tmp_path / "compare.pptx"
    result = cli("report", str(lenet_job), str(job_copy), "-o", str(out))
    assert result.returncode == 0, result.stderr
    prs = Presentation(str(out))
    assert titles(prs) == [
        "Comparison of 2 jobs", "Jobs", "Trade-off : best validation loss against CostMultiplyAdd",
        "Learning Curves : validation loss", "Learning Curves : cost",
    ]  # fmt: skip
    table = next(s for s in slide(prs, "Jobs").shapes if s.has_table).table
    rows = [[c.text for c in r.cells] for r in table.rows]
    assert [r[0] for r in rows[1:]] == [lenet_job.name, "copy"]
    status = json.loads((lenet_job / "status.json").read_text())
    assert rows[1][6] == f"{status['best_valid_error']:.4f}"
    chart = next(s for s in slide(prs, "Learning Curves : cost").shapes if s.has_chart).chart
    assert [s.name for s in chart.plots[0].series] == [lenet_job.name, "copy"]
    # Equal cost and error: both jobs are on the Pareto front.
    assert texts(slide(prs, titles(prs)[2]))[1:] == [f"    {lenet_job.name}", "    copy"]


def test_comparison_default_output_beside_the_first_job(lenet_job, job_copy):
    path = write_comparison([job_copy, lenet_job])
    assert path == job_copy.parent / "compare.pptx" and path.stat().st_size > 10_000


def test_optimizer_slide_words_interval_decay_and_schedule(job_copy, tmp_path):
    config = json.loads((job_copy / "config.json").read_text())
    opt = config["plan"]["optimizers"][0]
    opt.update(update_interval=4, weight_decay=0.0005)
    opt["scheduler"].update(scheduler="Step", gamma=0.5, steps=[10, 20], interval_unit=0,
                            warmup="Linear", warmup_length=2, warmup_unit=0)  # fmt: skip
    (job_copy / "config.json").write_text(json.dumps(config))
    prs = Presentation(str(write_report(job_copy, tmp_path / "r.pptx")))
    lines = texts(slide(prs, "Training Procedure : Optimizer"))
    assert lines[1:3] == [
        "Batch size : 256",
        "    by accumulating the result of batch-size 64 by 4 times",
    ]
    assert lines[-4:] == [
        "Weight decay : 0.0005", "The learning rate is multiplied by 0.5 at epochs 10, 20.",
        "Linear warm-up over the first 2 epochs.", "Max epoch : 2",
    ]  # fmt: skip


def test_regression_metrics_are_listed(job_copy, tmp_path):
    summary = json.loads((job_copy / "evaluation.json").read_text())
    summary["classification"] = {}
    summary["regression"] = {"y'": {"mae": 0.125, "mse": 0.0625, "rmse": 0.25, "r2": 0.875}}
    (job_copy / "evaluation.json").write_text(json.dumps(summary))
    prs = Presentation(str(write_report(job_copy, tmp_path / "r.pptx")))
    assert texts(slide(prs, "Experimental Result : Evaluation"))[2:] == [
        "Variable : y", "    Mean absolute error : 0.125", "    Mean squared error : 0.0625",
        "    Root mean squared error : 0.25", "    R2 : 0.875",
    ]  # fmt: skip
    assert not any("Confusion" in t for t in titles(prs))


def test_events_stream_progress_then_done(lenet_job, tmp_path):
    out = tmp_path / "r.pptx"
    result = cli("report", str(lenet_job), "-o", str(out), "--events")
    assert result.returncode == 0, result.stderr
    records = [json.loads(line) for line in result.stdout.splitlines()]
    steps = [r["step"] for r in records if r["event"] == "progress"]
    assert steps == list(range(len(steps))) and len(steps) >= 8
    assert records[-1] == {"event": "done", "path": str(out)}


def test_evaluate_names_a_broken_job_once(job_copy):
    """Before: ``evaluating X: X: no trained parameters yet``, and a job without config.json
    was "not a NeuroCanvas job folder (no network.ncproj/config.json)" beside its
    network.ncproj."""
    (job_copy / "evaluation.json").unlink()
    shutil.rmtree(job_copy / "checkpoints")
    result = cli("report", "--evaluate", str(job_copy))
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == [
        f"neurocanvas report: error: evaluating {job_copy}: no trained parameters yet "
        "(checkpoints/best)"
    ]
    (job_copy / "config.json").unlink()
    result = cli("report", "--evaluate", str(job_copy))
    assert result.stderr.strip().splitlines() == [
        f"neurocanvas report: error: evaluating {job_copy}: no config.json: its training did "
        "not start or failed before its first epoch"
    ]
    assert not (job_copy / "report.pptx").exists()

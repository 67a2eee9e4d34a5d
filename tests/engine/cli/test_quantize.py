"""``neurocanvas quantize insert|sweep`` on a small trained MLP: files, events, errors."""

from __future__ import annotations

import csv
import json
import math
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
import runtime_kit as kit

from engine.cli import main
from engine.formats import save_project

ROOT = Path(__file__).parents[3]


@pytest.fixture
def trained(tmp_path, monkeypatch):
    """(project file, job folder): the 4-8-3 MLP trained 3 epochs on tiny blobs."""
    monkeypatch.setenv("NEUROCANVAS_CACHE", str(tmp_path / "cache"))
    train_csv, valid_csv = kit.blobs(tmp_path, rows=48)
    project = tmp_path / "p.ncproj"
    save_project(kit.mlp_project(train_csv, valid_csv, batch=8, max_epoch=3,
                                 solver_parameters={"Alpha": "0.05", "Beta1": "0.9",
                                                    "Beta2": "0.999", "Epsilon": "1e-08"}),
                 project)  # fmt: skip
    assert main(["train", str(project), "-o", str(tmp_path / "job"), "--seed", "0"]) == 0
    return project, tmp_path / "job"


def _run(*args: str, stdin: str = "") -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    command = [sys.executable, "-m", "engine.cli", "quantize", *args]
    return subprocess.run(command, capture_output=True, text=True, env=env, cwd=ROOT, timeout=300,
                          input=stdin)  # fmt: skip


def test_insert_writes_the_project_with_a_calibrated_quantized_network(trained, tmp_path):
    project, job = trained
    out = tmp_path / "q.ncproj"
    done = _run("insert", str(project), "-o", str(out), "--bits", "6", "--job", str(job))
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f'network "Main_q6": 6 FixedPointQuantize layers, {out}'
    data = json.loads(out.read_text(encoding="utf-8"))
    assert [n["name"] for n in data["networks"]] == ["Main", "Main_q6"]
    layers = {x["name"]: x for x in data["networks"][1]["layers"]}
    assert layers["Affine/affine/W"]["type"] == "Parameter"
    assert layers["Affine/affine/W"]["properties"]["Size"] == "4,8"
    deltas = {
        x["properties"]["Delta"] for x in layers.values() if x["type"] == "FixedPointQuantize"
    }
    for delta in deltas:  # calibrated: powers of two
        assert float(delta) == 2.0 ** round(math.log2(float(delta)))


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--bits", "0", "--delta", "0.1"], "bits: expected an integer in 1..32. Received: 0"),
        (["--bits", "40", "--delta", "0.1"], "bits: expected an integer in 1..32. Received: 40"),
        (["--delta", "0"], "--delta: expected auto or a number > 0. Received: 0"),
        (["--delta", "0.1", "--targets", "weights,gates"], "unknown target 'gates'"),
        (["--delta", "0.1", "--skip", "Affine_9"], 'network "Main" has no layer "Affine_9"'),
        (["--delta", "0.1", "--network", "Other"], 'no network "Other"'),
        ([], "--delta auto calibrates from a trained job: give --job"),
    ],
)
def test_insert_bad_input_is_one_line_and_writes_nothing(trained, tmp_path, args, message):
    project, _ = trained
    out = tmp_path / "q.ncproj"
    done = _run("insert", str(project), "-o", str(out), *args)
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and message in done.stderr
    assert "Traceback" not in done.stderr and not out.exists()


def test_insert_keeps_an_existing_output_unless_forced(trained, tmp_path):
    project, job = trained
    out = tmp_path / "q.ncproj"
    out.write_text("my own project\n", encoding="utf-8")
    done = _run("insert", str(project), "-o", str(out), "--delta", "0.1")
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert (
        done.stderr == f"neurocanvas quantize: error: {out} exists; pass --force to overwrite it\n"
    )
    assert out.read_text(encoding="utf-8") == "my own project\n"
    text = tmp_path / "q.txt"
    done = _run("insert", str(project), "-o", str(text), "--delta", "0.1")
    assert done.returncode == 2 and "unknown output format '.txt'" in done.stderr
    assert not text.exists()
    done = _run("insert", str(project), "-o", str(out), "--delta", "0.1", "--force")
    assert done.returncode == 0, done.stderr
    names = [n["name"] for n in json.loads(out.read_text(encoding="utf-8"))["networks"]]
    assert names == ["Main", "Main_q8"]


def test_stop_on_stdin_keeps_the_points_and_running_again_continues(trained, tmp_path):
    project, job = trained
    out = tmp_path / "sweep"
    args = ("sweep", str(project), "--job", str(job), "-o", str(out), "--mode", "qat",
            "--epochs", "200", "--bits", "8,6,4")  # fmt: skip
    done = _run(*args, stdin="stop\n")  # a pipe, no --events: as `echo stop |` in a shell
    assert done.returncode == 0, done.stderr
    kept = (out / "results.csv").read_text(encoding="utf-8").count("\n") - 1 if (
        out / "results.csv").exists() else 0  # fmt: skip
    assert kept < 4  # the float point and three QAT points: stopped before the end
    assert f"stopped with {kept} points kept; the same command continues" in done.stderr
    done = _run(*args, "--epochs", "2")
    assert done.returncode == 0, done.stderr
    with open(out / "results.csv", newline="", encoding="utf-8") as f:
        assert [r["bits"] for r in csv.DictReader(f)] == ["32", "8", "6", "4"]


def test_a_job_that_does_not_fit_the_network_names_the_parameter_and_both_shapes(trained, tmp_path):
    project, job = trained
    other = kit.mlp_project(tmp_path / "x.csv", tmp_path / "y.csv")
    main_net = other.network("Main")
    main_net.set_property("Affine", "OutShape", "5")
    save_project(other, tmp_path / "other.ncproj")
    other_file = str(tmp_path / "other.ncproj")
    for action in (["insert", other_file, "-o", str(tmp_path / "q.ncproj")],
                   ["sweep", other_file, "-o", str(tmp_path / "s")]):  # fmt: skip
        done = _run(*action, "--job", str(job))
        assert done.returncode == 2
        assert ('parameter "Affine/affine/W" has shape (4, 8) in the job but (4, 5) in network '
                '"Main"') in done.stderr  # fmt: skip
        assert done.stderr.count("\n") == 1
    assert not (tmp_path / "q.ncproj").exists() and not (tmp_path / "s").exists()


def test_sweep_prints_events_and_writes_results(trained, tmp_path):
    project, job = trained
    out = tmp_path / "sweep"
    done = _run("sweep", str(project), "--job", str(job), "-o", str(out), "--bits", "8,3",
                "--targets", "weights,activations", "--events")  # fmt: skip
    assert done.returncode == 0, done.stderr
    events = [json.loads(line) for line in done.stdout.splitlines()]
    assert [e["event"] for e in events][:2] == ["sweep", "point_start"]
    assert events[0]["points"] == 5 and events[-1] == {"event": "done", "status": "finished",
                                                        "rows": 5}  # fmt: skip
    points = [e for e in events if e["event"] == "point"]
    with open(out / "results.csv", newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    assert [(r["target"], r["bits"]) for r in rows] == [(p["target"], str(p["bits"]))
                                                       for p in points]  # fmt: skip
    assert [(r["target"], r["bits"]) for r in rows][1:] == [
        ("weights", "8"),
        ("activations", "8"),
        ("weights", "3"),
        ("activations", "3"),
    ]
    # 4x8 + 8x3 weights at 8 bits, 8 + 3 biases float: 56 + 44 bytes.
    assert rows[1]["parameter_bytes"] == str(56 + 4 * 11)


def test_sweep_draws_a_progress_bar_without_events(trained, tmp_path):
    project, job = trained
    done = _run("sweep", str(project), "--job", str(job), "-o", str(tmp_path / "s"),
                "--bits", "4")  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "quantize sweep: 100%" in done.stderr and "2/2" in done.stderr
    assert "ptq   both          4 bits: accuracy" in done.stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--bits", "8,1"], 'layer "Affine", output: a signed FixedPointQuantize needs >= 2 bits'),
        (["--bits", "8,0"], "bits: expected an integer in 1..32. Received: 0"),
        (["--targets", "both,kernels"], "unknown target 'kernels'"),
        (["--mode", "qat", "--epochs", "0"], "epochs: expected a positive integer. Received: 0"),
        (["--delta", "-0.5"], "--delta: expected auto or a number > 0. Received: -0.5"),
        (
            ["--sensitivity", "3", "--budget", "99", "--max-evaluations", "0"],
            "--max-evaluations: expected a positive integer. Received: 0",
        ),
    ],
)
def test_sweep_bad_input_is_one_line_and_writes_nothing(trained, tmp_path, args, message):
    project, job = trained
    done = _run("sweep", str(project), "--job", str(job), "-o", str(tmp_path / "s"), *args)
    assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
    assert message in done.stderr and not (tmp_path / "s").exists()


def test_sweep_refuses_a_folder_holding_another_results_csv(trained, tmp_path):
    project, job = trained
    (tmp_path / "s").mkdir()
    (tmp_path / "s" / "results.csv").write_text("a,b\n1,2\n", encoding="utf-8")
    done = _run("sweep", str(project), "--job", str(job), "-o", str(tmp_path / "s"))
    assert done.returncode == 2
    assert "results.csv: not the results.csv of a sweep (no column quantizer)" in done.stderr
    assert sorted(p.name for p in (tmp_path / "s").iterdir()) == ["results.csv"]


def test_sweep_prints_what_sensitivity_and_budget_found(trained, tmp_path):
    project, job = trained  # its parameters: 34 bytes at 4 bits, 26 at 3
    out = tmp_path / "s"
    done = _run("sweep", str(project), "--job", str(job), "-o", str(out), "--bits", "4",
                "--sensitivity", "3", "--budget", "30")  # fmt: skip
    assert done.returncode == 0, done.stderr
    with open(out / "sensitivity.csv", newline="", encoding="utf-8") as f:
        ranked = list(csv.DictReader(f))
    mixed = json.loads((out / "mixed_precision.json").read_text(encoding="utf-8"))
    lines = done.stdout.splitlines()
    # The printed ranking is the file's, in its order, as accuracy points lost (negated).
    expected = ", ".join(f"{r['layer']} {-100 * float(r['loss']) + 0.0:+.2f}" for r in ranked)
    assert f"sensitivity at 3 bits (accuracy points per layer): {expected}" in lines
    chosen = ", ".join(f"{layer} {b}" for layer, b in mixed["layer_bits"].items())
    assert (f"mixed precision within 30 bytes ({chosen} bits): accuracy "
            f"{100 * mixed['accuracy']:6.2f} %, {mixed['parameter_bytes']} parameter bytes"
            in lines)  # fmt: skip
    assert ranked and mixed["parameter_bytes"] <= 30
    # How it was found: the networks measured (every one in the file) and the time taken.
    measured = lines[lines.index(next(x for x in lines if x.startswith("mixed precision"))) + 1]
    assert measured.startswith(f"  measured: {mixed['evaluations']} networks evaluated (at most "
                               f"200) in {mixed['seconds']:.1f} s")  # fmt: skip
    assert measured.endswith("; every candidate: mixed_precision.json")
    assert mixed["evaluations"] == len(mixed["candidates"]) + len(mixed["single_layer"]) > 1


def test_a_second_sweep_in_a_live_sweeps_folder_stops_with_one_line(trained, tmp_path):
    """Issue 29 item 8: a second QAT sweep on one folder renamed the first's live point folder
    to ``*.interrupted-1`` and both trained every point. The folder belongs to one process at a
    time: the second says so and touches nothing; once the first ends (here killed with -9,
    which releases the lock) the same command continues it."""
    project, job = trained
    out = tmp_path / "sweep"
    args = ("sweep", str(project), "--job", str(job), "-o", str(out), "--mode", "qat",
            "--epochs", "100000", "--bits", "8")  # fmt: skip
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    first = subprocess.Popen([sys.executable, "-m", "engine.cli", "quantize", *args, "--events"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.PIPE,
                             text=True, env=env, cwd=ROOT)  # fmt: skip
    try:
        for line in first.stdout:  # until the QAT point trains
            event = json.loads(line)
            if event["event"] == "point_start" and event["mode"] == "qat":
                break
        live = out / "fixed-point_both_8bit_qat"
        for _ in range(600):  # its job folder is claimed once the trainer starts
            if (live / "status.json").exists():
                break
            first.poll()
            assert first.returncode is None, first.stderr.read()
            time.sleep(0.1)
        before = sorted(p.name for p in out.iterdir())
        second = _run(*args)
        assert second.returncode == 2, second.stderr
        assert second.stderr == (f"neurocanvas quantize: error: {out}: another quantization "
                                 f"sweep is running in this folder; wait for it to end, or give "
                                 f"another folder\n")  # fmt: skip
        assert sorted(p.name for p in out.iterdir()) == before
        assert not list(out.glob("*.interrupted-*"))
        assert first.poll() is None  # the first goes on
    finally:
        first.kill()
        first.communicate()
    assert first.returncode == -9
    third = _run(*args[:6], "--bits", "4")  # the folder is free again: a PTQ point beside
    assert third.returncode == 0, third.stderr
    with open(out / "results.csv", newline="", encoding="utf-8") as f:
        assert [(r["mode"], r["bits"]) for r in csv.DictReader(f)] == [("float", "32"),
                                                                       ("ptq", "4")]  # fmt: skip

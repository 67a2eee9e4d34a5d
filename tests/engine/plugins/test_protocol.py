"""NNC's plugin protocol with plugins written the way NNC's are (tests/fixtures/plugins):
parameters from --help, runs in the job's result folder, results listed, bad plugins."""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
from collections import Counter

import pytest
from plugin_kit import FIXTURES, ROOT, cli, files_of

from engine.plugins import list_results, parse_help

PLUGINS = str(FIXTURES)


def test_parameters_are_read_from_the_help_text():
    help_text = subprocess.run(
        [sys.executable, str(FIXTURES / "_Post_Process/_Test/row_stats.py"), "--help"],
        capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    title, description, params = parse_help(help_text)
    assert title == "Row Stats" and "Count the rows" in description
    table = [(p.name, p.flags, p.kind, p.default, p.flag_only) for p in params]
    assert table == [
        ("model", ("-m", "--model"), "model", "results.nnp", False),
        ("input", ("-i", "--input"), "csv", "output_result.csv", False),
        ("variable", ("-v", "--variable"), "variable", "y", False),
        ("output_in_ratio", ("-r", "--output_in_ratio"), "bool", "False", True),
        ("output", ("-o", "--output"), "csv", "row_stats.csv", False),
    ]
    assert [p.is_output for p in params] == [False, False, False, False, True]


def test_list_shows_builtins_and_a_folder_of_plugins():
    done = cli("plugin", "list", "--plugins", PLUGINS)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    for name in (
        "XAI/Grad-CAM",
        "XAI/SmoothGrad",
        "XAI/TracIn",
        "XAI/SHAP",
        "Utils/t-SNE",
        "Utils/Cross Tabulation",
        "Visualization/ROC Curve",
        "Fairness/Theil Index",
    ):
        assert name in lines, lines
    assert any(line.startswith("Test/Row Stats  [") for line in lines)
    [bad] = [line for line in lines if "bad_help" in line]
    assert "unavailable: --help failed (exit status 1): ModuleNotFoundError" in bad
    listing = json.loads(cli("plugin", "list", "--json", "--plugins", PLUGINS).stdout)
    grad_cam = next(p for p in listing if p["name"] == "XAI/Grad-CAM")
    assert {"name": "class_index", "kind": "int", "default": "0",
            "flags": ["-c", "--class_index"]} in grad_cam["params"]  # fmt: skip


def test_a_plugin_runs_in_its_result_folder_and_is_listed(lenet_job):
    before = {k: v for k, v in files_of(lenet_job).items() if "plugin_results" not in k}
    done = cli("plugin", "run", "row_stats", str(lenet_job), "--plugins", PLUGINS, "--events",
               "-r")  # the script's own flag  # fmt: skip
    assert done.returncode == 0, done.stderr
    events = [json.loads(line) for line in done.stdout.splitlines()]
    assert events[0]["event"] == "start" and events[-1]["event"] == "done"
    progress = [e for e in events if e["event"] == "progress"]
    assert progress[0] == {"event": "progress", "done": 1, "total": 297}
    folder = lenet_job / "plugin_results" / "row_stats_1"
    assert events[-1]["result"] == str(folder) and events[-1]["files"] == ["row_stats.csv"]
    start = events[0]["arguments"]
    assert start[start.index("--model") + 1] == str(lenet_job / "results.nnp")
    assert start[start.index("--output") + 1] == "row_stats.csv" and "--output_in_ratio" in start
    rows = list(csv.DictReader(open(folder / "row_stats.csv")))
    truth = Counter(r[1] for r in list(csv.reader(open(lenet_job / "output_result.csv")))[1:])
    assert {r["y"]: float(r["count"]) for r in rows} == {
        k: pytest.approx(v / 297) for k, v in truth.items()}  # fmt: skip
    assert int(rows[0]["model files"]) >= 2  # it opened results.nnp (a zip) itself
    after = {k: v for k, v in files_of(lenet_job).items() if "plugin_results" not in k}
    assert after == before  # nothing else of the job changed
    results = list_results(lenet_job)
    assert [(r.plugin, r.files) for r in results if r.folder == folder] == [
        ("Test/Row Stats", ["row_stats.csv"])]  # fmt: skip


NO_NNABLA = "NNABLA_PYTHON (an interpreter with nnabla, .ci/run's where python3.10 exists) unset"


@pytest.mark.skipif(not os.environ.get("NNABLA_PYTHON"), reason=NO_NNABLA)
def test_an_nnabla_plugin_reads_the_jobs_results_nnp(lenet_job):
    done = cli("plugin", "run", "nnabla_network", str(lenet_job), "--plugins", PLUGINS)
    assert done.returncode == 0, done.stderr
    [out] = (lenet_job / "plugin_results").glob("nnabla_network_*/networks.csv")
    assert "MainRuntime" in out.read_text()


@pytest.mark.parametrize(("name", "args", "cause"), [
    ("crash", [], "failed: ValueError: the plugin's own bug"),
    ("hang", ["--timeout", "3"], "did not finish in 3 s (stopped)"),
    ("nothing", [], "wrote no result file (done, somehow)"),
    ("bad_help", [], "--help failed (exit status 1): ModuleNotFoundError: No module named"),
])  # fmt: skip
def test_a_bad_plugin_is_one_line_and_leaves_the_job_as_it_was(lenet_job, name, args, cause):
    before = files_of(lenet_job)
    done = cli("plugin", "run", name, str(lenet_job), "--plugins", PLUGINS, *args)
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in done.stderr, done.stderr
    assert lines[0].startswith("neurocanvas plugin: error: plugin ") and cause in lines[0]
    assert name.replace("_", "") in lines[0].replace("_", "").lower()
    assert files_of(lenet_job) == before


def test_a_missing_image_or_variable_names_it(lenet_job):
    done = cli("plugin", "run", "Grad-CAM", str(lenet_job), "--row", "0", "output_variable=z'")
    assert done.returncode == 2
    assert "--output_variable \"z'\": the network 'MainRuntime' has no such output" in done.stderr
    done = cli("plugin", "run", "gradcam", str(lenet_job), "--row", "9999")
    assert done.returncode == 2 and "--row 9999: output_result.csv has rows 0 to 296" in done.stderr
    done = cli("plugin", "run", "no_such_plugin", str(lenet_job))
    assert done.returncode == 2 and "plugin 'no_such_plugin': no such plugin" in done.stderr


def test_stop_on_stdin_ends_the_plugin_and_removes_its_folder(lenet_job):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    process = subprocess.Popen(
        [sys.executable, "-m", "engine.cli", "plugin", "run", "hang", str(lenet_job), "--plugins",
         PLUGINS, "--events"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env,
    )  # fmt: skip
    assert process.stdout is not None and process.stdin is not None
    seen = []
    for line in process.stdout:
        seen.append(json.loads(line))
        if seen[-1]["event"] == "progress":
            process.stdin.write("stop\n")
            process.stdin.flush()
            break
    rest, _ = process.communicate(timeout=60)
    assert process.returncode == 0
    assert json.loads(rest.splitlines()[-1]) == {"event": "done", "status": "stopped"}
    assert not list((lenet_job / "plugin_results").glob("hang_*"))

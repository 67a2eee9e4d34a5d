"""Several ``neurocanvas train`` processes on one project at once (issue 13, defect 1)."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import runtime_kit as kit

from engine.formats import save_project

ROOT = Path(__file__).resolve().parents[3]


def _start(project: Path, *extra: str, seed: int) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "NEUROCANVAS_CACHE": str(project.parent / "c")}
    argv = [sys.executable, "-m", "engine.cli", "train", str(project), "--seed", str(seed),
            "--device", "cpu", *extra]  # fmt: skip
    return subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            stdin=subprocess.DEVNULL, text=True)  # fmt: skip


def _project(tmp_path: Path) -> Path:
    train_csv, valid_csv = kit.blobs(tmp_path, rows=24)
    path = tmp_path / "p.ncproj"
    save_project(kit.mlp_project(train_csv, valid_csv, batch=8, max_epoch=3), path)
    return path


def test_trainings_started_at_once_each_get_their_own_folder(tmp_path):
    project = _project(tmp_path)
    runs = [_start(project, seed=seed) for seed in range(4)]
    results = [(run.wait(timeout=300), run.stderr.read()) for run in runs]  # type: ignore[union-attr]
    assert [code for code, _ in results] == [0, 0, 0, 0], results
    folders = sorted((tmp_path / "p.files").iterdir())
    assert len(folders) == 4
    seeds, pids = set(), set()
    for folder in folders:
        events = [json.loads(line) for line in (folder / "events.jsonl").read_text().splitlines()]
        assert [e["event"] for e in events].count("start") == 1, folder
        assert events[-1]["event"] == "done" and events[-1]["status"] == "finished"
        assert (folder / "log.txt").read_text().count("epoch 1 of 3") == 1
        seeds.add(json.loads((folder / "config.json").read_text())["plan"]["seed"])
        pids.add(json.loads((folder / "status.json").read_text())["pid"])
    assert seeds == {0, 1, 2, 3} and len(pids) == 4
    # each run names its own folder on its last line
    assert {err.strip().splitlines()[-1].rsplit(" ", 1)[-1] for _, err in results} == {
        str(f) for f in folders
    }


def test_one_explicit_folder_goes_to_one_run_and_the_others_fail_cleanly(tmp_path):
    project = _project(tmp_path)
    runs = [_start(project, "-o", str(tmp_path / "job"), seed=seed) for seed in range(3)]
    results = [(run.wait(timeout=300), run.stderr.read()) for run in runs]  # type: ignore[union-attr]
    codes = sorted(code for code, _ in results)
    assert codes == [0, 2, 2], results
    for code, err in results:
        if code == 2:
            assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
            assert str(tmp_path / "job") in err
    events = (tmp_path / "job" / "events.jsonl").read_text().splitlines()
    assert [json.loads(e)["event"] for e in events].count("start") == 1


def test_job_files_are_readable_like_any_file_the_user_makes(tmp_path):
    """Issue 13, defect 5: no 0600 files or 0700 folders in a job (umask 022 gives 0644/0755)."""
    project = _project(tmp_path)
    old = os.umask(0o022)
    try:
        run = _start(project, "-o", str(tmp_path / "job"), seed=0)
        assert run.wait(timeout=300) == 0, run.stderr.read()  # type: ignore[union-attr]
    finally:
        os.umask(old)
    modes = {str(p.relative_to(tmp_path)): stat.S_IMODE(p.stat().st_mode)
             for p in (tmp_path / "job").rglob("*")}  # fmt: skip
    assert modes and all(m == (0o755 if (tmp_path / p).is_dir() else 0o644)
                         for p, m in modes.items()), modes  # fmt: skip


def test_numbered_output_gives_way_to_a_run_that_took_the_folder(tmp_path):
    """Issue 13: the app names its folder with -o; a command-line run that took that name
    first must not make the app's run fail (``--numbered``: the next free ``_2``)."""
    project = _project(tmp_path)
    first = _start(project, "-o", str(tmp_path / "job"), seed=0)
    assert first.wait(timeout=300) == 0, first.stderr.read()  # type: ignore[union-attr]
    second = _start(project, "-o", str(tmp_path / "job"), "--numbered", "--events", seed=1)
    out, err = second.communicate(timeout=300)
    assert second.returncode == 0, err
    start = next(json.loads(line) for line in out.splitlines() if '"start"' in line)
    assert start["event"] == "start" and start["job"] == str(tmp_path / "job_2")
    for folder, seed in ((tmp_path / "job", 0), (tmp_path / "job_2", 1)):
        assert json.loads((folder / "config.json").read_text())["plan"]["seed"] == seed
        events = (folder / "events.jsonl").read_text().splitlines()
        assert [json.loads(e)["event"] for e in events].count("start") == 1

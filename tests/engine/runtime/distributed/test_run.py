"""``mpirun -n 2 neurocanvas train --distributed`` against one process with the global batch."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest

from engine.formats import save_project

pytestmark = pytest.mark.slow  # each mpirun starts Python K times (2-5 s)

ADAM = {"Alpha": "0.05", "Beta1": "0.9", "Beta2": "0.999", "Epsilon": "1e-08"}


def _project(kit, folder, batch, name=None, **options):
    train_csv, valid_csv = kit.blobs(folder)
    project = kit.mlp_project(train_csv, valid_csv, batch=batch,
                              **{"max_epoch": 3, "solver_parameters": ADAM, **options})  # fmt: skip
    path = folder / (name or f"batch{batch}.ncproj")
    save_project(project, path)
    return path


def _parameters(job):
    with np.load(job / "checkpoints" / "last" / "parameters.npz") as data:
        return {k: data[k] for k in data.files if not k.startswith("__")}  # not the metadata


def _curve(job):
    lines = (job / "learning_curve.csv").read_text().splitlines()[1:]
    return np.array([[float(c) for c in line.split(",")] for line in lines])


def _events(job):
    return [json.loads(line) for line in (job / "events.jsonl").read_text().splitlines()]


def test_two_processes_match_one_process_with_the_global_batch(kit, tmp_path, mpirun, train_cli):
    """K=2 with batch 8 each = 1 process with batch 16: 18 Adam steps on shuffled data."""
    two = mpirun(2, str(_project(kit, tmp_path, 8)), "--distributed", "--seed", "5", "-o",
                 str(tmp_path / "k2"))  # fmt: skip
    assert two.returncode == 0, two.stderr
    one = train_cli(str(_project(kit, tmp_path, 16)), "--seed", "5", "-o", str(tmp_path / "k1"))
    assert one.returncode == 0, one.stderr
    mine, reference = _parameters(tmp_path / "k2"), _parameters(tmp_path / "k1")
    assert mine.keys() == reference.keys() and len(mine) == 4
    for key in reference:
        np.testing.assert_allclose(mine[key], reference[key], rtol=1e-5, atol=1e-6, err_msg=key)
    moved = max(np.abs(_parameters(tmp_path / "k1")[k]).max() for k in reference)
    assert moved > 0.1  # the parameters did train
    # The learning curve is the global batch's (losses averaged over the ranks), and validation
    # (split over the ranks) gives the single-process numbers.
    np.testing.assert_allclose(_curve(tmp_path / "k2"), _curve(tmp_path / "k1"), rtol=1e-5)
    starts = [e for e in _events(tmp_path / "k2") if e["event"] == "start"]
    assert len(starts) == 1 and starts[0]["processes"] == 2  # rank 0 alone writes events
    assert starts[0]["iter_per_epoch"] == 96 // 16
    config = json.loads((tmp_path / "k2" / "config.json").read_text())["plan"]
    assert config["processes"] == 2 and config["batch_size"] == 8


def test_two_processes_differ_from_one_process_with_the_local_batch(kit, tmp_path, mpirun,
                                                                     train_cli):  # fmt: skip
    """The test above can fail: batch 8 on one process takes other steps than K=2 x 8."""
    project = _project(kit, tmp_path, 8)
    assert mpirun(2, str(project), "--distributed", "--seed", "5", "-o",
                  str(tmp_path / "k2")).returncode == 0  # fmt: skip
    assert train_cli(str(project), "--seed", "5", "-o", str(tmp_path / "k1")).returncode == 0
    mine, other = _parameters(tmp_path / "k2"), _parameters(tmp_path / "k1")
    assert max(np.abs(mine[k] - other[k]).max() for k in mine) > 1e-2


def test_resume_on_another_number_of_processes(kit, tmp_path, mpirun, train_cli):
    """A K=2 job resumed by K=2 continues exactly; the same checkpoint resumes on K=1 too."""
    project = _project(kit, tmp_path, 8, max_epoch=2)
    assert mpirun(2, str(project), "--distributed", "--seed", "1", "-o",
                  str(tmp_path / "a")).returncode == 0  # fmt: skip
    shutil.copytree(tmp_path / "a", tmp_path / "b")
    again = mpirun(2, "--resume", str(tmp_path / "a"), "--distributed", "--epochs", "3")
    assert again.returncode == 0, again.stderr
    straight = mpirun(2, str(project), "--distributed", "--seed", "1", "--epochs", "3", "-o",
                      str(tmp_path / "c"))  # fmt: skip
    assert straight.returncode == 0, straight.stderr
    np.testing.assert_allclose(_curve(tmp_path / "a"), _curve(tmp_path / "c"), rtol=1e-6)
    plain = train_cli("--resume", str(tmp_path / "b"), "--epochs", "3")
    assert plain.returncode == 2 and plain.stderr.strip().endswith(
        "a job of 2 processes; resume it with --distributed (under mpirun -n K with any K, or "
        "alone for one process)"
    )
    single = train_cli("--resume", str(tmp_path / "b"), "--distributed", "--epochs", "3")
    assert single.returncode == 0, single.stderr
    curve = _curve(tmp_path / "b")
    assert curve.shape[0] == 3 and np.array_equal(curve[:2], _curve(tmp_path / "c")[:2])
    status = json.loads((tmp_path / "b" / "status.json").read_text())
    assert status["status"] == "finished" and status["iteration"] == 3 * (
        96 // 8
    )  # epochs 1-2 at 6, epoch 3 at 12


def test_linear_lr_scaling_is_one_process_with_the_global_batch_and_k_times_the_rate(
    kit, tmp_path, mpirun, train_cli
):
    """SGD: K=2, batch 8, --lr-scaling linear = one process, batch 16, learning rate x 2."""
    slow = _project(kit, tmp_path, 8, solver="Momentum",
                    solver_parameters={"LearningRate": "0.05", "Momentum": "0.9"})  # fmt: skip
    fast = _project(kit, tmp_path, 16, name="fast.ncproj", solver="Momentum",
                    solver_parameters={"LearningRate": "0.1", "Momentum": "0.9"})  # fmt: skip
    two = mpirun(2, str(slow), "--distributed", "--lr-scaling", "linear", "--seed", "2", "-o",
                 str(tmp_path / "k2"))  # fmt: skip
    assert two.returncode == 0, two.stderr
    assert train_cli(str(fast), "--seed", "2", "-o", str(tmp_path / "k1")).returncode == 0
    mine, reference = _parameters(tmp_path / "k2"), _parameters(tmp_path / "k1")
    for key in reference:
        np.testing.assert_allclose(mine[key], reference[key], rtol=1e-5, atol=1e-6, err_msg=key)
    kept = mpirun(2, str(slow), "--distributed", "--seed", "2", "-o", str(tmp_path / "none"))
    assert kept.returncode == 0, kept.stderr
    other = _parameters(tmp_path / "none")
    assert max(np.abs(other[k] - reference[k]).max() for k in reference) > 1e-2


def test_numbered_gives_way_to_a_run_that_took_the_folder(kit, tmp_path, mpirun, train_cli):
    """Issue 13: the app's data-parallel Run names its folder with ``-o ... --numbered``; a
    command-line run that took the name first moves it to ``_2`` (every rank writes there)."""
    project = str(_project(kit, tmp_path, 8))
    first = train_cli(project, "--seed", "1", "-o", str(tmp_path / "job"))
    assert first.returncode == 0, first.stderr
    two = mpirun(2, project, "--distributed", "--seed", "5", "-o", str(tmp_path / "job"),
                 "--numbered", "--events")  # fmt: skip
    assert two.returncode == 0, two.stderr
    start = next(json.loads(line) for line in two.stdout.splitlines() if '"start"' in line)
    assert start["job"] == str(tmp_path / "job_2") and start["processes"] == 2
    for folder, seed in ((tmp_path / "job", 1), (tmp_path / "job_2", 5)):
        assert json.loads((folder / "config.json").read_text())["plan"]["seed"] == seed
        assert [e["event"] for e in _events(folder)].count("start") == 1
    assert json.loads((tmp_path / "job_2" / "status.json").read_text())["status"] == "finished"
    assert len(_curve(tmp_path / "job_2")) == 3  # every epoch went to the numbered folder

"""Bad input and stops of a distributed run: one error from rank 0, every rank ends, no job."""

from __future__ import annotations

import json
import sys

import pytest

from engine.cli import main
from engine.formats import save_project

pytestmark = pytest.mark.slow  # each mpirun starts Python K times (2-5 s)


def _project(kit, folder, name="p.ncproj", **options):
    train_csv, valid_csv = kit.blobs(folder)
    save_project(kit.mlp_project(train_csv, valid_csv, **options), folder / name)
    return folder / name


def _errors(stderr):
    return [line for line in stderr.splitlines() if line.startswith("neurocanvas train")]


def test_more_processes_than_the_data_allows(kit, tmp_path, mpirun):
    """96 rows: batch 64 fits one process, not 2 x 64."""
    result = mpirun(2, str(_project(kit, tmp_path, batch=64)), "--distributed", "-o",
                    str(tmp_path / "job"))  # fmt: skip
    assert result.returncode != 0
    assert _errors(result.stderr) == [
        'neurocanvas train: error: dataset "Training" has 96 rows, fewer than one global batch '
        "of 2 processes x [Config] BatchSize 64 = 128; use fewer processes or a smaller batch size"
    ]
    assert not (tmp_path / "job").exists()


def test_ranks_that_disagree_on_the_project(kit, tmp_path, mpirun):
    one = _project(kit, tmp_path, "a.ncproj", solver_parameters={"Alpha": "0.01"})
    other = _project(kit, tmp_path, "b.ncproj", solver_parameters={"Alpha": "0.02"})
    job = str(tmp_path / "job")
    result = mpirun.apps([str(one), "--distributed", "-o", job],
                         [str(other), "--distributed", "-o", job])  # fmt: skip
    assert result.returncode != 0
    errors = _errors(result.stderr)
    assert len(errors) == 1, result.stderr
    assert errors[0].startswith("neurocanvas train: error: process 1 sees a different project")
    assert str(one) in errors[0]
    assert not (tmp_path / "job").exists()


@pytest.mark.parametrize(("option", "zero", "one"), [("--seed", "1", "2"), ("--epochs", "2", "3")])
def test_ranks_given_different_options_are_refused_naming_the_option(
    kit, tmp_path, mpirun, option, zero, one
):
    """Rank 0's seed used to win silently, and different --epochs read as different files."""
    path, job = str(_project(kit, tmp_path)), str(tmp_path / "job")
    result = mpirun.apps([path, "--distributed", "-o", job, option, zero],
                         [path, "--distributed", "-o", job, option, one])  # fmt: skip
    assert result.returncode != 0
    assert _errors(result.stderr) == [
        f"neurocanvas train: error: process 1 was given {option} {one}, process 0 {option} "
        f"{zero}; give every process the same options"
    ], result.stderr
    assert not (tmp_path / "job").exists()


def test_a_setup_error_of_every_rank_is_reported_once(kit, tmp_path, mpirun):
    path = _project(kit, tmp_path)
    (tmp_path / "train.csv").unlink()
    result = mpirun(2, str(path), "--distributed", "-o", str(tmp_path / "job"))
    assert result.returncode != 0
    errors = _errors(result.stderr)
    assert len(errors) == 1 and "train.csv" in errors[0], result.stderr
    assert not (tmp_path / "job").exists()


def test_stop_on_rank_0_stops_every_rank_and_resume_finishes(kit, tmp_path, mpirun):
    path = _project(kit, tmp_path, max_epoch=100000, batch=8)
    proc = mpirun.popen(2, str(path), "--distributed", "--events", "-o", str(tmp_path / "job"))
    events = []
    for line in proc.stdout:
        events.append(json.loads(line))
        if events[-1]["event"] == "epoch":
            proc.stdin.write("stop\n")  # mpirun hands its stdin to rank 0
            proc.stdin.flush()
            break
    rest, err = proc.communicate(timeout=120)
    events += [json.loads(line) for line in rest.splitlines()]
    assert proc.returncode == 0, err
    assert events[-1]["event"] == "done" and events[-1]["status"] == "stopped"
    assert sum(e["event"] == "start" for e in events) == 1
    status = json.loads((tmp_path / "job" / "status.json").read_text())
    assert status["status"] == "stopped" and 1 <= status["epoch"] < 100000
    again = mpirun(2, "--resume", str(tmp_path / "job"), "--distributed", "--epochs",
                   str(status["epoch"] + 1))  # fmt: skip
    assert again.returncode == 0, again.stderr
    final = json.loads((tmp_path / "job" / "status.json").read_text())
    assert final["status"] == "finished" and final["epoch"] == status["epoch"] + 1


def test_without_mpi4py_the_error_says_how_to_install_it(kit, tmp_path, capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "mpi4py", None)  # import mpi4py fails
    path = _project(kit, tmp_path)
    assert main(["train", str(path), "--distributed", "-o", str(tmp_path / "job")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("neurocanvas train: error: --distributed needs mpi4py")
    assert 'pip install "neurocanvas[mpi]"' in err and "\n" not in err
    assert not (tmp_path / "job").exists()


def test_lr_scaling_needs_distributed(kit, tmp_path, capsys):
    path = _project(kit, tmp_path)
    assert main(["train", str(path), "--lr-scaling", "linear"]) == 2
    assert capsys.readouterr().err.strip() == (
        "neurocanvas train: error: --lr-scaling and --lr-warmup apply to --distributed runs only"
    )


@pytest.mark.filterwarnings("ignore:invalid value encountered in log")
def test_nan_during_training_fails_the_job_once_and_ends_every_rank(kit, tmp_path, mpirun):
    train_csv, valid_csv = kit.blobs(tmp_path, rows=24)
    layers = [
        kit.layer("Input", "Input", Size=(4,), Dataset="x"),
        kit.layer(
            "Affine", "Affine", OutShape=1, W__Initializer="Constant", W__InitializerMultiplier=-1
        ),  # fmt: skip
        kit.layer("Log", "Log"),  # log of a negative number: NaN on every rank
        kit.layer("SquaredError", "SquaredError", T__Dataset="y"),
    ]
    project = kit.make_project([kit.network("Main", layers, kit.chain(*[x.name for x in layers]))],
                               train=train_csv, valid=valid_csv, batch=4)  # fmt: skip
    save_project(project, tmp_path / "nan.ncproj")
    result = mpirun(2, str(tmp_path / "nan.ncproj"), "--distributed", "-o", str(tmp_path / "job"))
    assert result.returncode != 0
    message = (
        'NaN or infinity at epoch 1, iteration 1 (global iteration 1): optimizer "Optimizer", '
        'network "Main": layer "Log" (Log) produced NaN or infinity'
    )
    assert _errors(result.stderr) == [f"neurocanvas train: error: {message}"]
    status = json.loads((tmp_path / "job" / "status.json").read_text())
    assert status["status"] == "failed" and status["message"] == message


def test_a_wrong_option_is_reported_by_rank_0_only(kit, tmp_path, mpirun):
    result = mpirun(2, str(_project(kit, tmp_path)), "--distributed", "--lr-warmup", "2")
    assert result.returncode != 0
    assert _errors(result.stderr) == [
        "neurocanvas train: error: --lr-warmup ramps up the scaled learning rate: add "
        "--lr-scaling linear"
    ]

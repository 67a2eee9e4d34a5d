"""The run plan: NNC's CONFIG read as nnabla converts it (ranges, schedules, solvers, datasets)."""

from __future__ import annotations

import pytest

from engine.graph import config as cfg
from engine.runtime.session import SetupError, build_session, plan_run, solver_arguments


def test_iterations_per_epoch_ranges_and_schedule(kit, tmp_path):
    train_csv, valid_csv = kit.blobs(tmp_path, rows=60)  # 60 rows / batch 8 -> 7 iterations
    project = kit.mlp_project(train_csv, valid_csv, batch=8, max_epoch=9, optimizer={
        "RangeFrom": "3", "RangeTo": "3", "LearningRateScheduler": "Step",
        "LearningRateMultiplier": "0.5", "LearningRateSteps": "2,4",
        "LearningRateUpdateIntervalUnit": "0", "LearningRateWarmupScheduler": "Linear",
        "LearningRateWarmupLength": "1", "LearningRateWarmupLengthUnit": "0",
        "WeightDecay": "0.001", "UpdateInterval": "3",
    })  # fmt: skip
    plan = plan_run(project, base=tmp_path, seed=5)
    assert plan.iter_per_epoch == 7 and plan.datasets["Training"]["rows"] == 60
    opt = plan.optimizers[0]
    assert (opt["start_iter"], opt["end_iter"]) == (15, 21)  # epochs 3-3 -> 15..21 (§2.2)
    assert opt["weight_decay"] == 0.001 and opt["update_interval"] == 3
    session = build_session(project, plan)
    try:
        optimizer = session.optimizers[0].optimizer
        assert (optimizer.start_iter, optimizer.end_iter) == (15, 21)
        assert not optimizer.is_active(13) and optimizer.is_active(14)
        assert optimizer.is_active(20) and not optimizer.is_active(21)
        schedule = optimizer.scheduler
        # Step at epochs 2 and 4 (14, 28 iterations) with a one-epoch (7) linear warm-up.
        assert schedule(0) == pytest.approx(0.001 / 7)
        assert schedule(13) == pytest.approx(0.001)
        assert schedule(14) == pytest.approx(0.0005) and schedule(28) == pytest.approx(0.00025)
        assert session.total_iterations == 63
    finally:
        session.close()


def test_iteration_unit_ranges_are_copied(kit, tmp_path):
    train_csv, valid_csv = kit.blobs(tmp_path, rows=24)
    project = kit.mlp_project(train_csv, valid_csv, batch=8, optimizer={
        "RangeFrom": "5", "RangeTo": "-1", "RangeUnit": "1"})  # fmt: skip
    opt = plan_run(project, base=tmp_path, seed=0).optimizers[0]
    assert (opt["start_iter"], opt["end_iter"]) == (5, 0)


def test_solver_arguments_from_nnc_display_names():
    assert solver_arguments("Adam", {"Alpha": "0.01", "Beta1": "0.8", "Beta2": "0.99",
                                     "Epsilon": "1e-07"}) == {
        "alpha": 0.01, "beta1": 0.8, "beta2": 0.99, "eps": 1e-07}  # fmt: skip
    assert solver_arguments("AdaBelief", {"WDDecouple": "1", "Rectify": "0"}) == {
        "weight_decouple": True, "rectify": False}  # fmt: skip
    assert solver_arguments("Momentum", {"LearningRate": "0.1", "Momentum": "0.5"}) == {
        "lr": 0.1, "momentum": 0.5}  # fmt: skip
    with pytest.raises(SetupError, match=r"solver Sgd: unknown parameter Speed"):
        solver_arguments("Sgd", {"Speed": "1"})
    with pytest.raises(SetupError, match=r"parameter LearningRate: expected a number"):
        solver_arguments("Sgd", {"LearningRate": "fast"})


def test_every_nnc_solver_builds(kit, tmp_path):
    train_csv, valid_csv = kit.blobs(tmp_path, rows=24)
    for name in cfg.SOLVERS:
        project = kit.mlp_project(train_csv, valid_csv, batch=8, solver=name)
        session = build_session(project, plan_run(project, base=tmp_path, seed=0))
        assert type(session.optimizers[0].optimizer.solver).__name__ == name
        session.close()


def test_plan_errors(kit, tmp_path):
    train_csv, valid_csv = kit.blobs(tmp_path, rows=24)
    project = kit.mlp_project(train_csv, valid_csv, batch=8)
    project.remove_item("optimizers", 0)
    with pytest.raises(SetupError, match=r"the project has no optimizer"):
        plan_run(project, base=tmp_path)
    project = kit.mlp_project(train_csv, valid_csv, batch=8)
    project.replace_section("config", project.config.with_value("BatchSize", "0"))
    with pytest.raises(SetupError, match=r"\[Config\] BatchSize: expected a value >= 1. Received"):
        plan_run(project, base=tmp_path)
    project = kit.mlp_project(train_csv, "", batch=8)
    from engine.data import DatasetError

    with pytest.raises(DatasetError, match=r'dataset "Validation": no URI'):
        plan_run(project, base=tmp_path)
    project = kit.mlp_project(train_csv, valid_csv, batch=8)
    project.replace_section(("monitors", 1), project.monitors[1].with_value(
        "Monitor_DatasetName", "Test"))  # fmt: skip
    with pytest.raises(SetupError, match=r'^monitor "valid_error": no dataset "Test"$'):
        plan_run(project, base=tmp_path)


def test_network_without_loss_cannot_be_optimized(kit, tmp_path):
    train_csv, valid_csv = kit.blobs(tmp_path, rows=24)
    layers = [kit.layer("Input", "Input", Size=(4,), Dataset="x"),
              kit.layer("Affine", "Affine", OutShape=3)]  # fmt: skip
    project = kit.make_project([kit.network("Main", layers, kit.chain("Input", "Affine"))],
                               train=train_csv, valid=valid_csv, batch=8)  # fmt: skip
    with pytest.raises(SetupError, match=r'optimizer "Optimizer": network "Main" has no loss'):
        build_session(project, plan_run(project, base=tmp_path, seed=0))

"""Settings sections: raw values, typed views with NNC's defaults, errors naming section/key."""

import pytest

from engine.graph import config as cfg


def test_missing_keys_take_nnc_reader_defaults():
    config = cfg.GlobalConfig({"MaxEpoch": "10", "SaveBest": "1", "BatchSize": "64"})
    assert (config.max_epoch, config.save_best, config.batch_size) == (10, True, 64)
    assert (config.precision, config.monitor_interval, config.auto_evaluation) == (
        "Float",
        10,
        False,
    )
    opt = cfg.Optimizer({"Optimizer_Name": "Optimizer", "SolverName": "Momentum"})
    # older files without the unit count the interval in iterations (docs/formats.md §1.9)
    assert opt.get("LearningRateUpdateIntervalUnit") == 1
    assert (opt.get("RangeFrom"), opt.get("RangeTo"), opt.lr_scheduler) == (-1, -1, "Exponential")
    assert opt.get("LearningRateWarmupScheduler") == "None"
    ds = cfg.Dataset({"Name": "Validation"})
    assert (ds.shuffle, ds.enable_cache, ds.image_normalization, ds.num_data) == (
        True,
        True,
        True,
        0,
    )


def test_monitor_interval_falls_back_to_ten_like_nnc():
    assert cfg.GlobalConfig({"MonitorInterval": "abc"}).monitor_interval == 10
    assert cfg.GlobalConfig({"MonitorInterval": "0"}).monitor_interval == 10
    assert cfg.GlobalConfig({"MonitorInterval": "3"}).monitor_interval == 3


def test_bad_values_name_section_and_key():
    config = cfg.GlobalConfig({"MaxEpoch": "ten", "TypeConfig": "Double"})
    with pytest.raises(
        cfg.SettingError, match=r"\[Config\] MaxEpoch: expected an integer. Received: MaxEpoch=ten"
    ):
        _ = config.max_epoch
    with pytest.raises(
        cfg.SettingError, match="expected one of Float, Half. Received: TypeConfig=Double"
    ):
        _ = config.precision
    assert config.problems() == [
        "[Config] MaxEpoch: expected an integer. Received: MaxEpoch=ten",
        "[Config] TypeConfig: expected one of Float, Half. Received: TypeConfig=Double",
    ]
    with pytest.raises(cfg.SettingError, match="WeightDecay: expected a finite number"):
        _ = cfg.Optimizer({"WeightDecay": "nan"}).weight_decay
    with pytest.raises(KeyError, match="no known key 'Nope'"):
        config.get("Nope")


def test_with_value_keeps_order_and_appends_new_keys():
    config = cfg.GlobalConfig({"MaxEpoch": "10", "BatchSize": "64"})
    edited = config.with_value("MaxEpoch", "20").with_value("TypeConfig", "Half")
    assert list(edited.values.items()) == [
        ("MaxEpoch", "20"),
        ("BatchSize", "64"),
        ("TypeConfig", "Half"),
    ]
    assert edited.with_value("BatchSize", None).values == {"MaxEpoch": "20", "TypeConfig": "Half"}
    assert config.values == {"MaxEpoch": "10", "BatchSize": "64"}  # frozen value


def test_solver_parameters_and_with_solver():
    opt = cfg.Optimizer.new()
    assert opt.solver_parameters == {
        "Alpha": "0.001",
        "Beta1": "0.9",
        "Beta2": "0.999",
        "Epsilon": "1e-08",
    }
    sgd = opt.with_solver("Momentum")
    assert sgd.solver == "Momentum"
    assert sgd.solver_parameters == {"LearningRate": "0.01", "Momentum": "0.9"}
    keys = list(sgd.values)
    at = keys.index("SolverName")
    assert keys[at + 1 : at + 6] == [
        "SolverParameterNum", "SolverParameterName_0", "SolverParameter_0",
        "SolverParameterName_1", "SolverParameter_1",
    ]  # fmt: skip
    assert "SolverParameterName_2" not in sgd.values
    assert opt.with_solver("Sgd", {"LearningRate": "0.1"}).solver_parameters == {
        "LearningRate": "0.1"
    }


def test_lr_steps():
    assert cfg.Optimizer({"LearningRateSteps": "30,60"}).lr_steps == (30, 60)
    assert cfg.Optimizer({}).lr_steps == ()
    with pytest.raises(
        cfg.SettingError, match="LearningRateSteps: expected comma-separated integers"
    ):
        _ = cfg.Optimizer({"LearningRateSteps": "30,x"}).lr_steps


def test_structure_search_and_executor_readings():
    search = cfg.StructureSearch({"Method": "Whatever", "Objective": "Error"})
    assert (search.method, search.objective) == ("NetworkFeatureAndGaussianProcess", "Error")
    assert cfg.StructureSearch.new().get("AttemptTimes") == 100
    ex = cfg.Executor(
        {"RepeatEvaluationType": "1", "NeedBackPropagation": "1", "NumEvaluations": "8"}
    )
    assert (ex.repeat_evaluation_type, ex.need_back_propagation, ex.num_evaluations) == (
        "last",
        True,
        8,
    )


def test_default_settings_are_fresh_objects():
    a, b = cfg.default_settings(), cfg.default_settings()
    assert a == b
    assert a["datasets"] is not b["datasets"]
    assert list(a["config"].values) == [
        "MaxEpoch",
        "SaveBest",
        "BatchSize",
        "TypeConfig",
        "MonitorInterval",
    ]
    assert a["engine"].engine_type == "NNabla"

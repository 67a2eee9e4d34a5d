"""Training as NNC runs it: loss goes down, monitor rule, best rule, exact resume, NaN, events."""

from __future__ import annotations

import json
from types import SimpleNamespace

import numpy as np
import pytest

import engine.nn as nn
from engine.formats import save_project
from engine.graph.project import Link
from engine.runtime import extensions
from engine.runtime.evaluator import evaluate
from engine.runtime.run import Options, resume, train
from engine.runtime.trainer import EpochRecord, NonFiniteError, TrainState


def _save(project, folder):
    path = folder / "project.ncproj"
    save_project(project, path)
    return path


def _params():
    return {k: v.data.copy() for k, v in nn.get_parameters(grad_only=False).items()}


def test_loss_decreases_on_a_tiny_dataset(kit, tmp_path):
    train_csv, valid_csv = kit.blobs(tmp_path)
    project = kit.mlp_project(train_csv, valid_csv, max_epoch=5, batch=16,
                              solver_parameters={"Alpha": "0.05", "Beta1": "0.9",
                                                 "Beta2": "0.999", "Epsilon": "1e-08"})  # fmt: skip
    result = train(_save(project, tmp_path), job_dir=tmp_path / "job", seed=0)
    history = result.state.history
    assert result.status == "finished" and len(history) == 5
    assert result.state.iteration == 5 * (96 // 16)
    assert history[-1].cost < 0.5 * history[0].cost
    assert history[-1].monitors["valid_error"] < 0.5 * history[0].monitors["valid_error"]
    assert history[-1].monitors["train_error"] < 0.3
    curve = (tmp_path / "job" / "learning_curve.csv").read_text().splitlines()
    assert curve[0] == "epoch,cost,train_error,valid_error" and len(curve) == 6
    first = curve[1].split(",")
    assert first[0] == "1" and float(first[1]) == history[0].cost
    assert float(first[3]) == history[0].monitors["valid_error"]


def test_monitor_rule_every_interval_and_the_first_five(kit, tmp_path):
    train_csv, valid_csv = kit.blobs(tmp_path, rows=24)
    project = kit.mlp_project(train_csv, valid_csv, max_epoch=12, batch=8, monitor_interval=4)
    result = train(_save(project, tmp_path), job_dir=tmp_path / "job", seed=0)
    monitored = [r.epoch for r in result.state.history if r.monitored]
    assert monitored == [1, 2, 3, 4, 5, 8, 12]
    rows = (tmp_path / "job" / "learning_curve.csv").read_text().splitlines()[1:]
    assert rows[5].split(",")[2:] == ["", ""]  # epoch 6: cost only
    assert all(cell for cell in rows[7].split(","))  # epoch 8: monitored
    report = (tmp_path / "job" / "monitoring_report.yml").read_text().splitlines()
    assert report[:4] == [
        "0:", f"  cost: {result.state.history[0].cost!r}",
        f"  train_error: {result.state.history[0].monitors['train_error']!r}",
        f"  valid_error: {result.state.history[0].monitors['valid_error']!r}",
    ]  # fmt: skip
    assert "5:" in report and report[report.index("5:") + 2] == "6:"  # epoch 6: cost only


def _keeper_run(values, save_best=True, name="valid_error"):
    """Feeds monitored epochs with ``values`` to BestKeeper; returns the epochs it kept."""
    saved = []
    trainer = SimpleNamespace(
        state=TrainState(), session=SimpleNamespace(plan=SimpleNamespace(save_best=save_best)),
        emit=lambda *a, **k: None,
    )  # fmt: skip
    keeper = extensions.BestKeeper("unused")
    original = extensions.save_best
    extensions.save_best = lambda t, folder, epoch, value: saved.append(epoch)
    try:
        for epoch, value in enumerate(values, start=1):
            record = EpochRecord(epoch, 1.0, {} if value is None else {name: value})
            keeper.on_epoch(trainer, record)
            assert record.best == (epoch in saved)
    finally:
        extensions.save_best = original
    return saved, trainer.state


def test_best_epoch_rule():
    saved, state = _keeper_run([0.5, 0.4, None, 0.4, 0.6, 0.3])
    assert saved == [1, 2, 4, 6]  # ties move the best to the later epoch; unmonitored never
    assert (state.best_epoch, state.best_error) == (6, 0.3)
    assert _keeper_run([0.5, 0.4, 0.6], save_best=False)[0] == [1, 2, 3]  # Save Best off
    assert _keeper_run([0.5, 0.7], name="train_error")[0] == [1, 2]  # no valid_error: 0 = best


class StopAt:
    """Requests a stop after a given global iteration (mid-epoch, mid-accumulation)."""

    def __init__(self, iteration):
        self.iteration = iteration

    def on_iteration(self, trainer):
        if trainer.state.iteration == self.iteration:
            trainer.request_stop()


def _dropout_bn_project(kit, train_csv, valid_csv):
    layers = [
        kit.layer("Input", "Input", Size=(4,), Dataset="x"),
        kit.layer("Affine", "Affine", OutShape=8),
        kit.layer("BatchNormalization", "BatchNormalization", Axes=0),
        kit.layer("ReLU", "ReLU"),
        kit.layer("Dropout", "Dropout", P=0.3),
        kit.layer("Affine_2", "Affine", OutShape=3),
        kit.layer("Softmax", "Softmax"),
        kit.layer("CategoricalCrossEntropy", "CategoricalCrossEntropy"),
    ]
    net = kit.network("Main", layers, kit.chain(*[x.name for x in layers]))
    return kit.make_project([net], train=train_csv, valid=valid_csv, max_epoch=4, batch=8,
                            solver="Momentum", optimizer={"UpdateInterval": "2"})  # fmt: skip


def test_exact_resume_after_a_stop(kit, tmp_path):
    train_csv, valid_csv = kit.blobs(tmp_path, rows=40)  # 5 iterations per epoch
    path = _save(_dropout_bn_project(kit, train_csv, valid_csv), tmp_path)
    straight = train(path, job_dir=tmp_path / "a", seed=7)
    expected = _params()
    stopped = train(path, job_dir=tmp_path / "b", seed=7, options=Options(extensions=[StopAt(7)]))
    assert stopped.status == "stopped" and stopped.state.iteration == 7  # epoch 2, odd: grads pend
    status = json.loads((tmp_path / "b" / "status.json").read_text())
    assert status["status"] == "stopped" and status["iteration"] == 7
    nn.clear_parameters()
    resumed = resume(tmp_path / "b")
    assert resumed.status == "finished" and resumed.state.epoch == 4
    got = _params()
    assert sorted(got) == sorted(expected)
    for name in expected:
        np.testing.assert_array_equal(got[name], expected[name], err_msg=name)
    curve = (tmp_path / "a" / "learning_curve.csv").read_text()
    assert (tmp_path / "b" / "learning_curve.csv").read_text() == curve
    assert [r.cost for r in resumed.state.history] == [r.cost for r in straight.state.history]
    events = [json.loads(x) for x in (tmp_path / "b" / "events.jsonl").read_text().splitlines()]
    starts = [e for e in events if e["event"] == "start"]
    assert [s["resumed"] for s in starts] == [False, True] and starts[1]["iteration"] == 7


def test_resume_with_more_epochs_continues_the_curve(kit, tmp_path):
    train_csv, valid_csv = kit.blobs(tmp_path, rows=24)
    path = _save(kit.mlp_project(train_csv, valid_csv, max_epoch=2, batch=8), tmp_path)
    train(path, job_dir=tmp_path / "job", seed=1)
    result = resume(tmp_path / "job", epochs=3)
    assert [r.epoch for r in result.state.history] == [1, 2, 3]
    assert len((tmp_path / "job" / "learning_curve.csv").read_text().splitlines()) == 4


@pytest.mark.filterwarnings("ignore:invalid value encountered in log")
def test_nan_names_epoch_iteration_and_layer(kit, tmp_path):
    train_csv, valid_csv = kit.blobs(tmp_path, rows=24)
    layers = [
        kit.layer("Input", "Input", Size=(4,), Dataset="x"),
        kit.layer(
            "Affine", "Affine", OutShape=1, W__Initializer="Constant", W__InitializerMultiplier=-1
        ),  # fmt: skip
        kit.layer("Log", "Log"),
        kit.layer("SquaredError", "SquaredError", T__Dataset="y"),
    ]
    project = kit.make_project([kit.network("Main", layers, kit.chain(*[x.name for x in layers]))],
                               train=train_csv, valid=valid_csv, batch=8)  # fmt: skip
    with pytest.raises(NonFiniteError) as info:
        train(_save(project, tmp_path), job_dir=tmp_path / "job", seed=0)
    assert str(info.value) == (
        'NaN or infinity at epoch 1, iteration 1 (global iteration 1): optimizer "Optimizer", '
        'network "Main": layer "Log" (Log) produced NaN or infinity'
    )
    status = json.loads((tmp_path / "job" / "status.json").read_text())
    assert status["status"] == "failed" and status["message"] == str(info.value)
    last = (tmp_path / "job" / "events.jsonl").read_text().splitlines()[-1]
    assert json.loads(last)["event"] == "error"


def test_nan_in_a_parameter_is_named(kit, tmp_path):
    train_csv, valid_csv = kit.blobs(tmp_path, rows=24)
    project = kit.mlp_project(train_csv, valid_csv, batch=8)

    class Poison:
        def on_iteration(self, trainer):
            if trainer.state.iteration == 4:
                trainer.session.optimizers[0].params["Affine_2/affine/W"].data[0, 0] = np.nan

    with pytest.raises(NonFiniteError, match=r'epoch 2, iteration 2 .*layer "Affine_2" \(Affine\) '
                                             r"produced NaN or infinity; its parameter "
                                             r"Affine_2/affine/W holds NaN"):  # fmt: skip
        train(_save(project, tmp_path), job_dir=tmp_path / "job", seed=0,
              options=Options(extensions=[Poison()]))  # fmt: skip


def test_event_stream_is_json_lines(kit, tmp_path):
    import io

    train_csv, valid_csv = kit.blobs(tmp_path, rows=24)
    project = kit.mlp_project(train_csv, valid_csv, max_epoch=2, batch=8)
    stream = io.StringIO()
    train(_save(project, tmp_path), job_dir=tmp_path / "job", seed=0,
          options=Options(events=stream))  # fmt: skip
    events = [json.loads(line) for line in stream.getvalue().splitlines()]
    kinds = [e["event"] for e in events]
    assert kinds[0] == "start" and kinds[-1] == "done" and kinds.count("epoch") == 2
    assert "iteration" in kinds and "checkpoint" in kinds
    start = events[0]
    assert (start["max_epoch"], start["iter_per_epoch"], start["batch_size"]) == (2, 3, 8)
    epoch = next(e for e in events if e["event"] == "epoch")
    assert set(epoch) >= {"epoch", "cost", "train_error", "valid_error", "monitors", "best"}
    assert events[-1]["status"] == "finished" and events[-1]["best_epoch"] == 2
    saved = (tmp_path / "job" / "events.jsonl").read_text().splitlines()
    assert [json.loads(x) for x in saved] == events


def test_gan_style_optimizers_share_a_batch_and_respect_ranges(kit, tmp_path):
    train_csv, valid_csv = kit.blobs(tmp_path, rows=24)
    project = kit.mlp_project(train_csv, valid_csv, max_epoch=3, batch=8)
    second = project.optimizers[0].with_value("Optimizer_Name", "Late").with_value(
        "RangeFrom", "3").with_value("RangeTo", "3")  # fmt: skip
    project.insert_item("optimizers", None, second)
    seen = []

    class Spy:
        def on_iteration(self, trainer):
            seen.append(tuple(r.optimizer.is_active(trainer.state.iteration - 1)
                              for r in trainer.session.optimizers))  # fmt: skip

    result = train(_save(project, tmp_path), job_dir=tmp_path / "job", seed=0,
                   options=Options(extensions=[Spy()]))  # fmt: skip
    assert seen == [(True, False)] * 6 + [(True, True)] * 3  # epoch 3 = iterations 7..9
    history = result.state.history
    assert history[2].cost > 0 and len(history) == 3


def test_setup_errors_name_the_setting(kit, tmp_path):
    from engine.runtime.session import SetupError

    train_csv, valid_csv = kit.blobs(tmp_path, rows=24)
    project = kit.mlp_project(train_csv, valid_csv, batch=64)
    with pytest.raises(SetupError, match=r'dataset "Training" has 24 rows, fewer than the batch'):
        train(_save(project, tmp_path), job_dir=tmp_path / "job")
    project = kit.mlp_project(train_csv, valid_csv, batch=8)
    project.network("Main").set_property("Input", "Dataset", "image")
    with pytest.raises(SetupError, match=r'reads variable "image", which dataset "Training"'):
        train(_save(project, tmp_path), job_dir=tmp_path / "job")
    assert not (tmp_path / "job").exists()  # nothing is created before the run can start


def test_stop_from_stdin_line(kit, tmp_path):
    import io

    train_csv, valid_csv = kit.blobs(tmp_path, rows=24)
    project = kit.mlp_project(train_csv, valid_csv, max_epoch=50, batch=8)
    stop = extensions.StdinStop(io.StringIO("hello\nstop\n"))
    # The stdin watcher is a thread; waiting for the request keeps the test deterministic.
    waiter = SimpleNamespace(on_iteration=lambda t: t.stop_event.wait(5))
    result = train(_save(project, tmp_path), job_dir=tmp_path / "job", seed=0,
                   options=Options(extensions=[stop, waiter]))  # fmt: skip
    assert result.status == "stopped" and result.state.iteration <= 1
    assert (tmp_path / "job" / "checkpoints" / "last" / "state.json").is_file()


def test_wired_link_order_is_kept_for_concatenate(kit, tmp_path):
    layers = [
        kit.layer("Input", "Input", Size=(4,), Dataset="x"),
        kit.layer("A", "Affine", OutShape=2),
        kit.layer("B", "Affine", OutShape=3),
        kit.layer("Concatenate", "Concatenate", Axis=0),
    ]
    links = [Link("Input", "A"), Link("Input", "B"), Link("B", "Concatenate"),
             Link("A", "Concatenate")]  # fmt: skip
    from engine.runtime.compiler import compile_network

    program = compile_network(kit.make_project([kit.network("Main", layers, links)]), "Main")
    params = program.create_parameters()
    acts = program.forward({"x": np.ones((1, 4), np.float32)}, params)
    np.testing.assert_array_equal(acts["Concatenate"].data[:, :3], acts["B"].data)


def test_half_precision_is_a_warning(kit, tmp_path):
    import io

    train_csv, valid_csv = kit.blobs(tmp_path, rows=24)
    project = kit.mlp_project(train_csv, valid_csv, max_epoch=1, batch=8)
    project.replace_section("config", project.config.with_value("TypeConfig", "Half"))
    stream = io.StringIO()
    train(_save(project, tmp_path), job_dir=tmp_path / "job", seed=0,
          options=Options(events=stream))  # fmt: skip
    events = [json.loads(line) for line in stream.getvalue().splitlines()]
    assert events[1]["event"] == "warning" and "Precision Half" in events[1]["message"]


def test_an_embed_layer_trains_on_a_dataset_column_of_token_ids(kit, tmp_path):
    """NNC datasets are floats: an Embed on a CSV column of ids trains (nnabla casts them)."""
    rows = [[t, t % 3] for t in range(10) for _ in range(6)]
    train_csv = kit.write_csv(tmp_path / "train.csv", ["t", "y:label"], rows)
    layers = [
        kit.layer("Input", "Input", Size=(1,), Dataset="t"),
        kit.layer("Embed", "Embed", NumClass=10, Shape=(4,)),
        kit.layer("Affine", "Affine", OutShape=3),
        kit.layer("Softmax", "Softmax"),
        kit.layer("CategoricalCrossEntropy", "CategoricalCrossEntropy", T__Dataset="y"),
    ]
    net = kit.network("Main", layers, kit.chain(*(item.name for item in layers)))
    project = kit.make_project(
        [net],
        train=train_csv,
        valid=train_csv,
        max_epoch=30,
        batch=10,
        solver_parameters={"Alpha": "0.03"},
    )
    train(_save(project, tmp_path), job_dir=tmp_path / "job", seed=0)
    evaluate(tmp_path / "job")
    summary = json.loads((tmp_path / "job" / "evaluation.json").read_text())
    assert summary["classification"]["y'"]["accuracy"] == 1.0

"""The measured mixed-precision pick (engine/quantization/mixed.py): the greedy on networks
made up for the purpose (accuracies given by formula), then on a trained LeNet, where the pick
is compared with the additive prediction computed here by hand and evaluated afresh."""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path

import pytest

from engine.quantization.mixed import Meter, Stopped, additive_pick, measured_greedy
from engine.quantization.scheme import Scheme
from engine.quantization.sensitivity import Evaluator, run_sensitivity
from engine.quantization.sweep import Sweep, SweepOptions

LENET = Path(__file__).parents[3] / "projects" / "lenet_digits.ncproj"
# LeNet's parameters: (W, b) element counts of Convolution, Convolution_2, Affine, Affine_2.
PARAMETERS = {"Convolution": (16 * 1 * 7 * 7, 16), "Convolution_2": (30 * 16 * 3 * 3, 30),
              "Affine": (480 * 150, 150), "Affine_2": (150 * 10, 10)}  # fmt: skip

# -- made-up networks: three layers of 1000 parameters, widths 8, 4, 2 ---------------------------
ALONE = {("a", 8): 0.9, ("a", 4): 0.89, ("a", 2): 0.5, ("b", 8): 0.9, ("b", 4): 0.89,
         ("b", 2): 0.5, ("c", 8): 0.9, ("c", 4): 0.85, ("c", 2): 0.3}  # fmt: skip


def _size(bits: dict[str, int]) -> int:
    return sum(math.ceil(1000 * b / 8) for b in bits.values())


def _together(bits: dict[str, int]) -> float:
    """The single-layer losses add up, except that a and b both at 4 bits or fewer break the
    network (the interaction an additive prediction cannot see)."""
    if bits["a"] <= 4 and bits["b"] <= 4:
        return 0.1
    return 0.9 - sum(0.9 - ALONE[layer, b] for layer, b in bits.items())


def _meter(**options) -> Meter:
    return Meter(accuracy=_together, single=lambda layer, b: ALONE[layer, b], size=_size,
                 **options)  # fmt: skip


def test_the_measured_greedy_avoids_the_combination_the_sum_does_not_see():
    meter = _meter()
    end = measured_greedy(["a", "b", "c"], [8, 4, 2], 2000, meter)
    # a -> 4 loses 0.01 per 500 bytes; then b -> 4 would break the network (measured: 0.79
    # lost), so c -> 4 (0.05) is taken, and the network fits.
    assert end.layer_bits == {"a": 4, "b": 8, "c": 4}
    assert end.accuracy == pytest.approx(0.84) and end.parameter_bytes == 2000
    assert meter.candidates[meter.best_fitting(2000)] is end
    assert [c.layer_bits for c in meter.candidates if c.taken] == [
        {"a": 8, "b": 8, "c": 8}, {"a": 4, "b": 8, "c": 8}, end.layer_bits]  # fmt: skip
    assert meter.evaluations == len(meter.candidates) == 1 + 3 + 3  # start, two rounds of three
    predicted = additive_pick(["a", "b", "c"], [8, 4, 2], 2000, meter)
    assert predicted == {"a": 4, "b": 4, "c": 8}  # 0.01 + 0.01 predicted, 0.8 measured
    assert _together(predicted) == pytest.approx(0.1)


def test_an_earlier_candidate_that_fits_wins_over_the_greedy_end():
    sizes = {"big": 1000, "small": 100}
    accuracy = {(8, 8): 0.9, (4, 8): 0.8, (8, 4): 0.89, (4, 4): 0.7, (8, 2): 0.88, (4, 2): 0.6}
    meter = Meter(
        accuracy=lambda bits: accuracy[bits["big"], bits["small"]],
        single=lambda layer, b: 0.0,
        size=lambda bits: sum(math.ceil(sizes[n] * b / 8) for n, b in bits.items()),
    )
    # Budget 1000 (100 bytes over): big -> 4 fits but loses 0.1 per useful 100 bytes; small
    # -> 4 loses 0.01 per 50 bytes and is taken, then small -> 2; then only big is left.
    end = measured_greedy(["big", "small"], [8, 4, 2], 1000, meter)
    assert end.layer_bits == {"big": 4, "small": 2} and end.accuracy == 0.6
    best = meter.candidates[meter.best_fitting(1000)]
    assert best.layer_bits == {"big": 4, "small": 8} and best.accuracy == 0.8
    assert best.parameter_bytes == 600 and not best.taken


def test_the_cap_stops_measuring_and_the_greedy_ends_on_earlier_measurements():
    meter = _meter(max_evaluations=3)
    end = measured_greedy(["a", "b", "c"], [8, 4, 2], 2000, meter)
    # Measured: the start, a -> 4, b -> 4; c was never measured. Past the cap, a and b cost
    # what they did (0.01 per 500 bytes) and b saves more than a -> 2: the pair that breaks
    # the network, which the greedy's final evaluation (beyond the cap) shows.
    assert meter.capped and meter.evaluations == 4
    assert end is meter.candidates[-1] and end.layer_bits == {"a": 4, "b": 4, "c": 8}
    assert end.accuracy == pytest.approx(0.1)
    assert [c.lowered for c in meter.candidates] == [None, "a", "b", None]


def test_stop_ends_the_pick_between_evaluations():
    seen: list[int] = []
    meter = _meter(stopped=lambda: len(seen) >= 2,
                   on_measure=lambda meter: seen.append(meter.evaluations))  # fmt: skip
    with pytest.raises(Stopped):
        measured_greedy(["a", "b", "c"], [8, 4, 2], 2000, meter)
    assert seen == [1, 2] and len(meter.candidates) == 2


# -- a trained LeNet -------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def picked(lenet_job, tmp_path_factory):
    """(sweep, mixed_precision.json, events): the measured pick within 40,000 bytes, widths
    8, 4, 3, 2 (sensitivity at 3 bits), run once."""
    out = tmp_path_factory.mktemp("mixed") / "sweep"
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("NEUROCANVAS_CACHE", str(lenet_job.parent / "cache"))
        sweep = Sweep(LENET, lenet_job, out, SweepOptions(bits=(8, 4, 3, 2)))
        out.mkdir()
        events: list[dict] = []
        run_sensitivity(sweep, 3, 40_000, events.append)
    return sweep, json.loads((out / "mixed_precision.json").read_text()), events


def _additive_by_hand(evaluator: Evaluator, widths: list[int], budget: int) -> dict[str, int]:
    """The pick as it was: single-layer accuracies, losses added up, least loss per byte
    (bytes counted by hand from PARAMETERS)."""
    alone = {(n, b): evaluator.accuracy(Scheme(bits=b, only=(n,)))
             for n in PARAMETERS for b in widths}  # fmt: skip
    bits = {n: widths[0] for n in PARAMETERS}
    while _bytes(bits) > budget:
        steps = []
        for order, (n, b) in enumerate(bits.items()):
            lower = [w for w in widths if w < b]
            if lower:
                saved = _bytes(bits) - _bytes({**bits, n: lower[0]})
                steps.append(((alone[n, b] - alone[n, lower[0]]) / saved, order, n, lower[0]))
        _, _, n, b = min(steps)
        bits[n] = b
    return bits


def _bytes(bits: dict[str, int]) -> int:
    return sum(math.ceil(w * bits[n] / 8) + math.ceil(b * bits[n] / 8)
               for n, (w, b) in PARAMETERS.items())  # fmt: skip


def test_the_measured_pick_beats_the_additive_one_and_is_what_its_job_evaluates(
    picked, lenet_cache
):
    sweep, mixed, _ = picked
    assert mixed["status"] == "finished" and mixed["widths"] == [8, 4, 3, 2]
    chosen = mixed["layer_bits"]
    assert mixed["parameter_bytes"] == _bytes(chosen) <= 40_000
    evaluator = Evaluator(sweep)
    additive = _additive_by_hand(evaluator, [8, 4, 3, 2], 40_000)
    additive_accuracy = evaluator.accuracy(Scheme(bits=8, layer_bits=additive))
    assert chosen != additive
    # The recorded accuracy is the pick's job's evaluation and a fresh one in memory.
    evaluation = json.loads((sweep.out_dir / "mixed_precision" / "evaluation.json").read_text())
    assert evaluation["classification"]["y'"]["accuracy"] == mixed["accuracy"]
    assert evaluator.accuracy(Scheme(bits=8, layer_bits=chosen)) == mixed["accuracy"]
    assert mixed["accuracy"] >= additive_accuracy
    # The record holds the additive prediction too, measured: the same as by hand.
    recorded = mixed["candidates"][mixed["additive"]]
    assert recorded["layer_bits"] == additive and recorded["accuracy"] == additive_accuracy
    print(f"measured pick {chosen}: {mixed['accuracy']:.4f}; additive {additive}: "
          f"{additive_accuracy:.4f}")  # fmt: skip


def test_every_candidate_is_recorded_and_the_pick_is_the_best_that_fits(picked):
    _, mixed, events = picked
    rows = mixed["candidates"]
    assert len(rows) + len(mixed["single_layer"]) == mixed["evaluations"] <= 200
    assert not mixed["capped"]
    assert rows[0]["layer_bits"] == dict.fromkeys(PARAMETERS, 8) and rows[0]["taken"]
    for row in rows:
        assert row["parameter_bytes"] == _bytes(row["layer_bits"])
        assert row["fits"] == (row["parameter_bytes"] <= 40_000)
    fitting = [r for r in rows if r["fits"]]
    assert rows[mixed["pick"]]["accuracy"] == max(r["accuracy"] for r in fitting)
    assert rows[mixed["greedy_end"]]["fits"] and rows[mixed["greedy_end"]]["taken"]
    # The path: each taken step lowers one layer one width from the last taken network.
    taken = [r["layer_bits"] for r in rows if r["taken"]]
    for before, after in zip(taken, taken[1:], strict=False):
        changed = [n for n in before if before[n] != after[n]]
        assert len(changed) == 1
    found = [e for e in events if e["event"] == "mixed_candidate"]
    assert [e["layer_bits"] for e in found] == [r["layer_bits"] for r in rows]
    assert events[-1]["event"] == "mixed_precision" and events[-1]["status"] == "finished"


def test_a_stopped_pick_leaves_a_readable_record_and_continues_where_it_stopped(
    picked, lenet_job, tmp_path, lenet_cache, monkeypatch
):
    _, uninterrupted, _ = picked
    out = tmp_path / "sweep"
    out.mkdir()
    sweep = Sweep(LENET, lenet_job, out, SweepOptions(bits=(8, 4, 3, 2)))

    def stop_at_the_fifth(event):
        if event["event"] == "mixed_candidate" and event["evaluation"] == 5:
            sweep.request_stop()

    run_sensitivity(sweep, 3, 40_000, stop_at_the_fifth)
    stopped = json.loads((out / "mixed_precision.json").read_text())
    assert stopped["status"] == "stopped" and "layer_bits" not in stopped
    assert len(stopped["candidates"]) == 5 and not (out / "mixed_precision").exists()
    # Again: the five networks are not evaluated again, and the pick is the uninterrupted one.
    counted: list[Scheme | None] = []
    accuracy = Evaluator.accuracy
    monkeypatch.setattr(Evaluator, "accuracy", lambda self, scheme: counted.append(scheme)
                        or accuracy(self, scheme))  # fmt: skip
    sweep = Sweep(LENET, lenet_job, out, SweepOptions(bits=(8, 4, 3, 2)))
    run_sensitivity(sweep, 3, 40_000, lambda event: None)
    again = json.loads((out / "mixed_precision.json").read_text())
    assert again["layer_bits"] == uninterrupted["layer_bits"]
    assert again["candidates"] == uninterrupted["candidates"]
    ranking = 1 + 9  # the float reference and the sensitivity ranking's layers, measured anew
    assert len(counted) == ranking + uninterrupted["evaluations"] - 5


def test_another_budget_moves_the_earlier_pick_aside(picked, lenet_job, tmp_path, lenet_cache):
    out = Path(shutil.copytree(picked[0].out_dir, tmp_path / "sweep"))
    sweep = Sweep(LENET, lenet_job, out, SweepOptions(bits=(8, 4, 3, 2)))
    run_sensitivity(sweep, 3, 30_000, lambda event: None)
    mixed = json.loads((out / "mixed_precision.json").read_text())
    assert mixed["layer_bits"] != picked[1]["layer_bits"]
    config = json.loads((out / "mixed_precision" / "config.json").read_text())
    assert config["quantization"]["layer_bits"] == mixed["layer_bits"]
    aside = json.loads((out / "mixed_precision.replaced-1" / "config.json").read_text())
    assert aside["quantization"]["layer_bits"] == picked[1]["layer_bits"]


def test_the_ranking_reads_a_layer_that_cost_nothing_as_plus_zero():
    """Seen in the app: "Affine -0.00" read as a small loss; -100 * 0.0 is -0.0."""
    from engine.quantization.sensitivity import ranking_text

    layers = [{"layer": "Convolution", "loss": 0.0471}, {"layer": "Affine", "loss": 0.0},
              {"layer": "ReLU", "loss": -0.0667}]  # fmt: skip
    assert ranking_text(layers) == "Convolution -4.71, Affine +0.00, ReLU +6.67"

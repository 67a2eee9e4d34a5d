"""Mutation magnitudes (docs/nnc-behaviour.md §9.2), [Compatible] groups, and the GP's choice."""

from __future__ import annotations

import random

import numpy as np
import optuna
import pytest

from engine.layers import find_spec
from engine.layers.compatible import COMPATIBLE, compatible_with
from engine.search.candidate import Candidate, in_range
from engine.search.model import expected_improvement
from engine.search.study import Settings
from engine.search.values import new_value


def test_kernel_shapes_change_each_axis_within_one_to_k_plus_two():
    rng = random.Random(0)
    seen = set()
    for _ in range(300):
        value = new_value("5,5", "PIntArray", "KernelShape", rng)
        a, b = (int(k) for k in value.split(","))
        assert 1 <= a <= 7 and 1 <= b <= 7
        seen.add((a, b))
    assert len(seen) > 30  # both axes vary on their own (NNC: 4,3 7,3 2,7 4,4)


def test_counts_scale_by_two_to_the_u_and_always_change():
    rng = random.Random(1)
    values = [int(new_value("16", "PInt", "OutMaps", rng)) for _ in range(300)]
    assert all(8 <= v <= 32 and v != 16 for v in values)
    assert min(values) <= 9 and max(values) >= 31  # the whole range 16 x 2^[-1, 1]
    assert new_value("1", "PInt", "Times", rng) != "1"  # 1 cannot shrink: it grows


def test_dropout_p_stays_a_probability_and_booleans_flip():
    rng = random.Random(2)
    ps = [float(new_value("0.9", "Float", "P", rng)) for _ in range(200)]
    assert all(0 < p <= 0.95 for p in ps) and min(ps) < 0.7
    assert new_value("True", "Boolean", "BatchStat", rng) == "False"
    assert new_value("*Maps", "PInt", "OutMaps", rng) is None  # a macro is not a number


def test_compatible_groups_name_catalogue_layers():
    for group in COMPATIBLE:
        for type_ in group:
            assert find_spec(type_) is not None, type_
    assert compatible_with("Tanh") == ("ReLU", "PReLU", "LeakyReLU", "ELU", "SELU", "Swish")
    assert compatible_with("Affine") == ()


def test_ranges_are_open_at_minus_one():
    assert in_range(5, (-1, -1)) and in_range(5, (5, 5)) and not in_range(5, (6, -1))
    assert not in_range(5, (-1, 4))


def _trial(error, cost, relus):
    return optuna.trial.create_trial(
        values=[error, cost], user_attrs={"cost": cost, "features": {"count:ReLU": relus,
                                                                     "CostMultiplyAdd": cost}},
    )  # fmt: skip


def _candidate(cost, relus):
    return Candidate(None, None, cost, {"count:ReLU": relus, "CostMultiplyAdd": cost})


@pytest.mark.parametrize("objective", ["error", "error+cost"])
def test_the_gp_prefers_what_the_observations_say_is_better(objective):
    # Error falls with the number of ReLUs; cost is the same everywhere.
    finished = [_trial(1.0 - 0.1 * k, 1000.0, k) for k in (0, 1, 2, 3, 4)]
    settings = Settings("p", "j", objective=objective)
    scores = expected_improvement(finished, [_candidate(1000.0, 0), _candidate(1000.0, 5)],
                                  settings)  # fmt: skip
    assert scores[1] > scores[0]


def test_cheaper_than_every_attempt_counts_only_if_expected_to_learn():
    # Error falls with the number of ReLUs; all attempts cost 1000.
    finished = [_trial(1.0 - 0.1 * k, 1000.0, k) for k in (0, 1, 2, 3, 4)]
    settings = Settings("p", "j", objective="error+cost")
    good_cheap, bad_cheap = _candidate(10.0, 4), _candidate(10.0, 0)
    same_cost = _candidate(1000.0, 4)  # like the best attempt: nothing to gain
    scores = expected_improvement(finished, [good_cheap, bad_cheap, same_cost], settings)
    assert np.isfinite(scores).all()  # measured against a reference error, never infinite
    # A cheap network expected to learn as well as the best extends the front most.
    assert scores[0] > scores[1] and scores[0] > scores[2]

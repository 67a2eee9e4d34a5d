import math

import pytest

from engine.nn import lr_scheduler as L


def test_exponential_steps_every_interval():
    s = L.ExponentialScheduler(0.1, 0.5, iter_interval=3)
    assert [s.get_learning_rate(i) for i in range(7)] == pytest.approx(
        [0.1, 0.1, 0.1, 0.05, 0.05, 0.05, 0.025]
    )


def test_exponential_gamma_one_is_constant():
    s = L.ExponentialScheduler(0.01, 1.0, 1)
    assert {s(i) for i in (0, 1, 10, 10_000)} == {0.01}


def test_step_counts_passed_steps_inclusive():
    s = L.StepScheduler(1.0, 0.1, [3, 5])
    assert [s(i) for i in range(7)] == pytest.approx([1, 1, 1, 0.1, 0.1, 0.01, 0.01])


def test_polynomial_formula():
    s = L.PolynomialScheduler(0.2, max_iter=10, power=2.0)
    assert s(0) == pytest.approx(0.2)
    assert s(4) == pytest.approx(0.2 * 0.6**2)
    assert s(10) == pytest.approx(0.0)


def test_cosine_formula():
    s = L.CosineScheduler(0.4, max_iter=8)
    assert s(0) == pytest.approx(0.4)
    assert s(4) == pytest.approx(0.2)
    assert s(2) == pytest.approx(0.4 * 0.5 * (1 + math.cos(math.pi / 4)))
    assert s(8) == pytest.approx(0.0, abs=1e-15)


def test_linear_warmup_scales_first_iterations_only():
    s = L.LinearWarmupScheduler(L.ExponentialScheduler(0.1, 1.0), warmup_iter=4)
    assert [s(i) for i in range(6)] == pytest.approx([0.025, 0.05, 0.075, 0.1, 0.1, 0.1])


def test_warmup_multiplies_the_wrapped_schedule():
    s = L.LinearWarmupScheduler(L.StepScheduler(1.0, 0.5, [1]), warmup_iter=3)
    assert [s(i) for i in range(4)] == pytest.approx([1 / 3, 0.5 * 2 / 3, 0.5, 0.5])


# Worked numbers of docs/nnc-behaviour.md §2.2 (ipe = 937).
def test_nnc_exponential_interval_in_epochs():
    s = L.create_scheduler(
        "Exponential", 0.001, iter_per_epoch=937, gamma=0.9, interval=2, interval_unit=0
    )
    assert s.iter_interval == 1874
    assert s(1873) == pytest.approx(0.001)
    assert s(1874) == pytest.approx(0.0009)


def test_nnc_step_steps_in_epochs_from_text():
    s = L.create_scheduler(
        "Step", 0.1, iter_per_epoch=937, gamma=0.1, steps="30,60", interval_unit="epoch"
    )
    assert s.iter_steps == [28110, 56220]
    assert [s(28109), s(28110), s(56220)] == pytest.approx([0.1, 0.01, 0.001])


def test_nnc_warmup_length_in_epochs():
    s = L.create_scheduler(
        "Exponential", 0.001, iter_per_epoch=937, warmup="Linear", warmup_length=5, warmup_unit=0
    )
    assert s.warmup_iter == 4685
    assert s(0) == pytest.approx(0.001 / 4685)
    assert s(4684) == pytest.approx(0.001)


def test_nnc_polynomial_and_cosine_use_max_epoch_times_ipe():
    p = L.create_scheduler("Polynomial", 0.01, iter_per_epoch=937, max_epoch=10, power=0)
    assert (p.max_iter, p.power) == (9370, 1.0)  # power 0 reads as 1, as NNC
    assert p(937) == pytest.approx(0.009)
    c = L.create_scheduler("Cosine", 0.01, iter_per_epoch=937, max_epoch=10)
    assert c.max_iter == 9370 and c(4685) == pytest.approx(0.005)


def test_nnc_units_in_iterations_are_copied():
    s = L.create_scheduler(
        "Exponential", 1.0, iter_per_epoch=937, gamma=0.5, interval=7, interval_unit=1
    )
    assert s.iter_interval == 7


def test_bad_settings_name_the_property():
    with pytest.raises(ValueError, match="LearningRateScheduler"):
        L.create_scheduler("Linear", 0.1, iter_per_epoch=1)
    with pytest.raises(ValueError, match="LearningRateWarmupScheduler"):
        L.create_scheduler("Cosine", 0.1, iter_per_epoch=1, warmup="Quadratic", warmup_length=1)
    with pytest.raises(ValueError, match="unit"):
        L.create_scheduler("Exponential", 0.1, iter_per_epoch=1, interval_unit="hours")

"""--lr-scaling linear with warm-up: the rate each iteration gets."""

from __future__ import annotations

import pytest

from engine.runtime.distributed.trainer import ScaledSchedule


def test_linear_scaling_ramps_up_over_the_warmup():
    schedule = ScaledSchedule(lambda i: 0.1 * 0.5 ** (i // 10), factor=4, warmup=10)
    # iteration 0: 1/10 of the way from 1x to 4x; 9 and after: 4x the base schedule
    assert schedule(0) == pytest.approx(0.1 * (1 + 3 * 0.1))
    assert schedule(4) == pytest.approx(0.1 * (1 + 3 * 0.5))
    assert schedule(9) == pytest.approx(0.4)
    assert schedule(25) == pytest.approx(0.1 * 0.25 * 4)


def test_no_warmup_scales_at_once_and_a_fixed_rate_is_accepted():
    assert ScaledSchedule(0.01, factor=2, warmup=0)(0) == pytest.approx(0.02)

import numpy as np
import pytest

import engine.nn.functions as F
import engine.nn.solvers as S
from engine.core.autograd import Variable
from engine.nn.lr_scheduler import ExponentialScheduler
from engine.nn.optimizer import Optimizer


def _setup(update_interval=1, weight_decay=0.0, scheduler=None, start=0, end=0, lr=0.1):
    w = Variable(np.array([1.0, -2.0]), need_grad=True)
    solver = S.Sgd(lr=lr)
    solver.set_parameters({"w": w})
    opt = Optimizer(solver, update_interval=update_interval, weight_decay=weight_decay,
                    scheduler=scheduler, start_iter=start, end_iter=end)  # fmt: skip
    return w, opt


def _loss(w, x):
    # per-element loss (w * x)^2 on a batch of two rows: mean gradient = w * mean(x^2) ... by hand
    return F.squared_error(w * Variable(x), Variable(np.zeros_like(x)))


def test_update_interval_sums_batch_mean_gradients():
    w, opt = _setup(update_interval=2)
    xs = [np.array([[1.0, 1.0], [3.0, 1.0]]), np.array([[2.0, 2.0], [2.0, 2.0]])]
    w0 = w.data.copy()
    assert opt.step(0, [_loss(w, xs[0])]) is False  # accumulate only
    np.testing.assert_allclose(w.data, w0)
    assert opt.step(1, [_loss(w, xs[1])]) is True
    # d/dw mean over 4 elements of (w x)^2 = 2 w x^2 / 4 summed over the batch rows
    g = sum(2 * w0 * (x**2).sum(axis=0) / x.size for x in xs)
    np.testing.assert_allclose(w.data, w0 - 0.1 * g)


def test_weight_decay_and_schedule_apply_at_update():
    sched = ExponentialScheduler(0.1, gamma=0.5, iter_interval=1)
    w, opt = _setup(weight_decay=0.01, scheduler=sched)
    x = np.array([[1.0, 2.0]])
    w0 = w.data.copy()
    opt.step(3, [_loss(w, x)])
    g = 2 * w0 * x[0] ** 2 / x.size + 0.01 * w0
    np.testing.assert_allclose(w.data, w0 - 0.1 * 0.5**3 * g)


def test_effective_range_is_one_based_inclusive():
    _, opt = _setup(start=31, end=45)
    active = [i for i in range(60) if opt.is_active(i)]
    assert active == list(range(30, 45))
    _, unbounded = _setup()
    assert unbounded.is_active(0) and unbounded.is_active(10**6)


def test_bad_settings_are_refused_with_the_value():
    with pytest.raises(ValueError, match="UpdateInterval must be >= 1. Received: 0"):
        _setup(update_interval=0)

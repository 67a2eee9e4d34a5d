import math

import numpy as np
import pytest

import engine.nn.functions as F
from engine.core.autograd import Variable
from engine.testing import check_function


def _uniform(low, high, shape=(2, 3, 5), seed=0):
    return np.random.default_rng(seed).uniform(low, high, size=shape)


# (function, NumPy reference, input range inside the domain and away from poles/branch points)
CASES = [
    (F.sin, np.sin, (-4.0, 4.0)),
    (F.cos, np.cos, (-4.0, 4.0)),
    (F.tan, np.tan, (-1.3, 1.3)),
    (F.sinh, np.sinh, (-3.0, 3.0)),
    (F.cosh, np.cosh, (-3.0, 3.0)),
    (F.asin, np.arcsin, (-0.9, 0.9)),
    (F.acos, np.arccos, (-0.9, 0.9)),
    (F.atan, np.arctan, (-4.0, 4.0)),
    (F.asinh, np.arcsinh, (-4.0, 4.0)),
    (F.acosh, np.arccosh, (1.1, 4.0)),
    (F.atanh, np.arctanh, (-0.9, 0.9)),
]


@pytest.mark.parametrize("fn,ref,domain", CASES)
def test_unary_trigonometric(fn, ref, domain):
    check_function(fn, [_uniform(*domain)], reference=ref)


def test_hand_computed_values():
    x = Variable(np.array([0.0, 0.5, 1.0]))
    np.testing.assert_allclose(F.sin(x).d, [0.0, 0.479425538604203, 0.8414709848078965])
    np.testing.assert_allclose(F.acos(x).d, [math.pi / 2, math.pi / 3, 0.0], atol=1e-15)
    np.testing.assert_allclose(F.atanh(Variable(np.array([0.5]))).d, [0.5493061443340549])


def test_atan2_quadrants_and_gradient():
    y = np.array([1.0, 1.0, -1.0, -1.0])
    x = np.array([1.0, -1.0, -1.0, 1.0])
    got = F.atan2(Variable(y), Variable(x)).d
    np.testing.assert_allclose(got, [math.pi / 4, 3 * math.pi / 4, -3 * math.pi / 4, -math.pi / 4])
    a = _uniform(-2.0, 2.0, seed=1)
    b = _uniform(-2.0, 2.0, seed=2)
    b[np.abs(b) < 0.1] = 0.5
    check_function(F.atan2, [a, b], reference=np.arctan2)


def test_atan2_broadcasts_size_one_axes():
    a = _uniform(-2.0, 2.0, shape=(2, 3, 4), seed=3)
    b = _uniform(0.5, 2.0, shape=(1, 3, 1), seed=4)
    check_function(F.atan2, [a, b], reference=np.arctan2)


def test_outside_domain_gives_nan():
    with np.errstate(invalid="ignore"):
        assert np.isnan(F.asin(Variable(np.array([2.0]))).d[0])
        assert np.isnan(F.acosh(Variable(np.array([0.5]))).d[0])

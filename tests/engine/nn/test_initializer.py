import math

import numpy as np
import pytest

from engine.core import backend
from engine.nn import initializer as I


def _np(a):
    return backend.to_numpy(a)


def test_calc_helpers_match_hand_computed_values():
    assert I.calc_normal_std_he_forward(3, 5, (3, 3)) == pytest.approx(math.sqrt(2 / 27))
    assert I.calc_normal_std_he_backward(3, 5, (3, 3)) == pytest.approx(math.sqrt(2 / 45))
    assert I.calc_normal_std_glorot(3, 5, (3, 3)) == pytest.approx(1 / 6)  # sqrt(2/(9*8))
    assert I.calc_uniform_lim_glorot(3, 5, (3, 3)) == pytest.approx(
        (-math.sqrt(1 / 12), math.sqrt(1 / 12))
    )
    assert I.calc_normal_std_glorot(100, 300) == pytest.approx(math.sqrt(2 / 400))


# (initializer class, weight shape, expected std before the multiplier)
NORMAL_CASES = [
    (I.NormalAffineHeForward, (200, 30, 10), math.sqrt(2 / 200)),
    (I.NormalAffineHeBackward, (200, 30, 10), math.sqrt(2 / 300)),
    (I.NormalAffineGlorot, (200, 30, 10), math.sqrt(2 / 500)),
    (I.NormalConvolutionHeForward, (64, 24, 3, 5), math.sqrt(2 / (15 * 24))),
    (I.NormalConvolutionHeBackward, (64, 24, 3, 5), math.sqrt(2 / (15 * 64))),
    (I.NormalConvolutionGlorot, (64, 24, 3, 5), math.sqrt(2 / (15 * 88))),
    (I.NormalCLConvHeForward, (64, 3, 5, 24), math.sqrt(2 / (15 * 24))),
    (I.NormalCLConvHeBackward, (64, 3, 5, 24), math.sqrt(2 / (15 * 64))),
    (I.NormalCLConvGlorot, (64, 3, 5, 24), math.sqrt(2 / (15 * 88))),
]


@pytest.mark.parametrize(
    "cls, shape, sigma", NORMAL_CASES, ids=lambda c: getattr(c, "__name__", "")
)
def test_normal_fan_initializers_have_nnc_std(cls, shape, sigma):
    a = _np(cls(multiplier=2.0)(shape))
    assert a.shape == shape and a.dtype == np.float32
    assert cls(1.0).sigma(shape) == pytest.approx(sigma)
    # n >= 60000 samples: the sample std is within 1.5% of 2·sigma with overwhelming probability
    assert a.std() == pytest.approx(2 * sigma, rel=0.015)
    assert abs(a.mean()) < 0.05 * sigma


UNIFORM_CASES = [
    (I.UniformAffineGlorot, (200, 30, 10), math.sqrt(6 / 500)),
    (I.UniformConvolutionGlorot, (64, 24, 3, 5), math.sqrt(6 / (15 * 88))),
    (I.UniformCLConvGlorot, (64, 3, 5, 24), math.sqrt(6 / (15 * 88))),
]


@pytest.mark.parametrize(
    "cls, shape, bound", UNIFORM_CASES, ids=lambda c: getattr(c, "__name__", "")
)
def test_uniform_glorot_bounds(cls, shape, bound):
    a = _np(cls(multiplier=0.5)(shape))
    b = 0.5 * bound
    assert a.min() >= -b and a.max() <= b
    assert a.min() < -0.99 * b and a.max() > 0.99 * b
    assert a.std() == pytest.approx(b / math.sqrt(3), rel=0.015)


def test_plain_normal_and_uniform_use_the_multiplier():
    n = _np(I.Normal(0.3)((400, 250)))
    assert n.std() == pytest.approx(0.3, rel=0.015)
    u = _np(I.Uniform(0.2)((400, 250)))
    assert u.min() >= -0.2 and u.max() <= 0.2 and u.max() > 0.199
    assert u.mean() == pytest.approx(0.0, abs=0.002)


def test_constant_and_range_are_exact():
    np.testing.assert_array_equal(_np(I.Constant(0.25)((2, 3))), np.full((2, 3), 0.25, np.float32))
    np.testing.assert_array_equal(_np(I.Constant(0.0)((4,))), np.zeros(4, np.float32))
    np.testing.assert_array_equal(_np(I.Range(2.0)((2, 3))), [[0, 2, 4], [0, 2, 4]])
    np.testing.assert_array_equal(_np(I.RangeInitializer(1, 3)((4,))), [1, 4, 7, 10])
    np.testing.assert_array_equal(_np(I.ConstantInitializer()((3,))), [0, 0, 0])
    assert _np(I.Range(5.0)(())) == 0.0


def test_nnabla_style_classes():
    n = _np(I.NormalInitializer(0.5)((500, 200)))
    assert n.std() == pytest.approx(0.5, rel=0.015) and n.dtype == np.float32
    u = _np(I.UniformInitializer((1.0, 3.0))((500, 200)))
    assert u.min() >= 1.0 and u.max() <= 3.0 and u.mean() == pytest.approx(2.0, abs=0.01)
    k = _np(I.UniformIntInitializer((2, 5))((1000,)))
    assert set(np.unique(k)) == {2.0, 3.0, 4.0}


def test_seeding_makes_draws_reproducible():
    backend.seed(7)
    a = _np(I.NormalConvolutionGlorot()((8, 3, 3, 3)))
    backend.seed(7)
    b = _np(I.NormalConvolutionGlorot()((8, 3, 3, 3)))
    backend.seed(8)
    c = _np(I.NormalConvolutionGlorot()((8, 3, 3, 3)))
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, c)


def test_explicit_numpy_rng_is_used():
    a = _np(I.NormalInitializer(1.0, rng=np.random.RandomState(3))((5,)))
    b = _np(I.NormalInitializer(1.0, rng=np.random.RandomState(3))((5,)))
    np.testing.assert_array_equal(a, b)
    u = _np(I.Uniform(1.0, rng=np.random.default_rng(1))((5,)))
    v = _np(I.Uniform(1.0, rng=np.random.default_rng(1))((5,)))
    np.testing.assert_array_equal(u, v)


def test_create_initializer_by_nnc_name():
    init = I.create_initializer("NormalConvolutionHe", 3.0)
    assert isinstance(init, I.NormalConvolutionHeForward) and init.multiplier == 3.0
    assert type(I.create_initializer("UniformCLConvGlorot")) is I.UniformCLConvGlorot
    for name in ("Normal", "Uniform", "Constant", "Range", "NormalAffineGlorot"):
        assert I.create_initializer(name).nnc_name == name
    with pytest.raises(ValueError, match="unknown initializer 'Xavier'"):
        I.create_initializer("Xavier")


def test_convolution_initializer_rejects_a_matrix():
    with pytest.raises(ValueError, match="at least 3 axes"):
        I.NormalConvolutionGlorot()((4, 4))

import math
import warnings

import numpy as np
import pytest

import engine.nn.functions as F
from engine.core.autograd import Variable
from engine.testing import check_function


def _inputs(shape=(2, 3, 5), low=-3.0, high=3.0, kinks=(), seed=0, margin=0.05):
    """Uniform values moved at least ``margin`` away from the non-differentiable points."""
    x = np.random.default_rng(seed).uniform(low, high, size=shape)
    for k in kinks:
        near = np.abs(x - k) < margin
        x[near] = k + np.where(x[near] >= k, margin, -margin) * 2
    return x


def _sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def _elu(x, alpha):
    return np.where(x >= 0, x, alpha * (np.exp(x) - 1.0))


def _gelu_tanh(x):
    return 0.5 * x * (1.0 + np.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x**3)))


def _softplus(x, beta=1.0):
    return np.log1p(np.exp(beta * x)) / beta


UNARY = [
    (F.tanh, {}, np.tanh, ()),
    (F.hard_tanh, {}, lambda x: np.clip(x, -1, 1), (-1, 1)),
    (F.tanh_shrink, {}, lambda x: x - np.tanh(x), ()),
    (F.sigmoid, {}, _sigmoid, ()),
    (F.hard_sigmoid, {}, lambda x: np.clip(0.2 * x + 0.5, 0, 1), (-2.5, 2.5)),
    (F.log_sigmoid, {}, lambda x: np.log(_sigmoid(x)), ()),
    (F.abs, {}, np.abs, (0,)),
    (F.relu, {}, lambda x: np.maximum(x, 0), (0,)),
    (F.relu, {"inplace": True}, lambda x: np.maximum(x, 0), (0,)),
    (F.leaky_relu, {}, lambda x: np.where(x > 0, x, 0.1 * x), (0,)),
    (F.leaky_relu, {"alpha": 0.3}, lambda x: np.where(x > 0, x, 0.3 * x), (0,)),
    (F.relu6, {}, lambda x: np.minimum(np.maximum(x, 0), 6), (0, 6)),
    (F.elu, {}, lambda x: _elu(x, 1.0), (0,)),
    (F.elu, {"alpha": 0.5}, lambda x: _elu(x, 0.5), (0,)),
    (F.selu, {}, lambda x: 1.05070098735548 * _elu(x, 1.673263242354377), (0,)),
    (F.selu, {"scale": 2.0, "alpha": 0.5}, lambda x: 2.0 * _elu(x, 0.5), (0,)),
    (F.gelu, {}, _gelu_tanh, ()),
    (F.softplus, {}, _softplus, ()),
    (F.softplus, {"beta": 2.0}, lambda x: _softplus(x, 2.0), ()),
    (F.softsign, {}, lambda x: x / (1 + np.abs(x)), (0,)),
    (F.swish, {}, lambda x: x * _sigmoid(x), ()),
    (F.mish, {}, lambda x: x * np.tanh(_softplus(x)), ()),
]


@pytest.mark.parametrize("fn,kwargs,ref,kinks", UNARY)
def test_unary_activation(fn, kwargs, ref, kinks):
    x = _inputs(low=-4.0, high=8.0 if fn is F.relu6 else 4.0, kinks=kinks)
    check_function(fn, [x], kwargs=kwargs, reference=ref)


def test_sinc_is_one_at_zero_and_smooth_there():
    x = np.array([[0.0, 0.3, -1.7], [2.5, -4.0, 1e-3]])
    ref = lambda a: np.where(a == 0, 1.0, np.sin(a) / np.where(a == 0, 1.0, a))  # noqa: E731
    check_function(F.sinc, [x], reference=ref)
    v = Variable(np.array([0.0]), need_grad=True)
    F.sinc(v).backward()
    assert v.grad[0] == 0.0


def test_gelu_is_the_tanh_approximation_close_to_the_erf_form():
    x = np.linspace(-5, 5, 201)
    got = F.gelu(Variable(x)).d
    exact = 0.5 * x * (1 + np.vectorize(math.erf)(x / math.sqrt(2)))
    np.testing.assert_allclose(got, _gelu_tanh(x), rtol=1e-12, atol=1e-12)
    assert 1e-5 < np.max(np.abs(got - exact)) < 5e-4  # nnabla's formula, not the erf one


def test_gradients_at_kinks_follow_nnabla():
    x = np.array([-6.0, -2.5, -1.0, 0.0, 1.0, 2.5, 6.0])
    cases = {
        F.relu: [0, 0, 0, 0, 1, 1, 1],
        F.abs: [-1, -1, -1, 1, 1, 1, 1],
        F.hard_tanh: [0, 0, 1, 1, 1, 0, 0],
        F.hard_sigmoid: [0, 0.2, 0.2, 0.2, 0.2, 0.2, 0],
        F.relu6: [0, 0, 0, 0, 1, 1, 0],
        F.elu: [np.exp(-6), np.exp(-2.5), np.exp(-1), 1, 1, 1, 1],
    }
    for fn, expected in cases.items():
        v = Variable(x, need_grad=True)
        fn(v).backward()
        np.testing.assert_allclose(v.grad, expected, err_msg=fn.__name__)


def test_saturating_activations_do_not_overflow():
    x = np.array([-1000.0, -50.0, 0.0, 50.0, 1000.0], dtype=np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        np.testing.assert_allclose(F.sigmoid(Variable(x)).d, [0, 0, 0.5, 1, 1], atol=1e-7)
        tol = dict(atol=1e-6, rtol=1e-6)
        np.testing.assert_allclose(F.softplus(Variable(x)).d, [0, 0, math.log(2), 50, 1000], **tol)
        np.testing.assert_allclose(
            F.log_sigmoid(Variable(x)).d, [-1000, -50, -math.log(2), 0, 0], **tol
        )
        np.testing.assert_allclose(F.mish(Variable(x)).d[[2, 3, 4]], [0, 50, 1000], **tol)
        s = F.softmax(Variable(x.reshape(1, 5))).d
        np.testing.assert_allclose(s, [[0, 0, 0, 0, 1]], **tol)


@pytest.mark.parametrize("axis", [1, 2, -1, 0])
def test_crelu_and_celu(axis):
    x = _inputs(kinks=(0,))
    check_function(
        F.crelu,
        [x],
        kwargs=dict(axis=axis),
        reference=lambda a: np.concatenate([np.maximum(a, 0), np.maximum(-a, 0)], axis),
    )
    check_function(
        F.celu,
        [x],
        kwargs=dict(alpha=0.7, axis=axis),
        reference=lambda a: np.concatenate([_elu(a, 0.7), _elu(-a, 0.7)], axis),
    )


def test_crelu_default_axis_doubles_channels():
    y = F.crelu(Variable(np.array([[[1.0], [-2.0]]])))  # (1, 2, 1): channels at axis 1
    assert y.shape == (1, 4, 1)
    np.testing.assert_array_equal(y.d[0, :, 0], [1, 0, 0, 2])


def _prelu_ref(x, w, base_axis):
    shape = [1] * x.ndim
    if w.size > 1:
        shape[base_axis] = w.size
    return np.where(x >= 0, x, x * w.reshape(shape))


@pytest.mark.parametrize("w_shape,base_axis", [((1,), 1), ((), 1), ((3,), 1), ((4,), 2)])
def test_prelu(w_shape, base_axis):
    x = _inputs(shape=(2, 3, 4), kinks=(0,))
    w = np.random.default_rng(3).uniform(0.1, 0.5, size=w_shape)
    check_function(
        F.prelu,
        [x, w],
        kwargs=dict(base_axis=base_axis),
        reference=lambda a, b: _prelu_ref(a, b, base_axis),
    )


def test_prelu_rejects_wrong_slope_size():
    with pytest.raises(ValueError, match=r"prelu: .*x.shape\[base_axis\] = 3.*slope.shape=\(4,\)"):
        F.prelu(Variable(np.ones((2, 3, 4))), Variable(np.ones(4)))


def _np_softmax(x, axis):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


@pytest.mark.parametrize("axis", [None, 1, 0, -2])
def test_softmax_and_log_softmax(axis):
    x = _inputs(shape=(2, 3, 5), seed=4)
    ax = -1 if axis is None else axis
    y = check_function(
        F.softmax, [x], kwargs=dict(axis=axis), reference=lambda a: _np_softmax(a, ax)
    )
    np.testing.assert_allclose(y[0].sum(axis=ax), 1.0)
    check_function(
        F.log_softmax, [x], kwargs=dict(axis=axis), reference=lambda a: np.log(_np_softmax(a, ax))
    )


def test_softmax_rejects_bad_axis():
    with pytest.raises(ValueError, match=r"softmax: axis 3 is out of range for a 2-dim input"):
        F.softmax(Variable(np.ones((2, 3))), axis=3)


def test_softplus_rejects_non_positive_beta():
    with pytest.raises(ValueError, match=r"softplus: beta must be positive. Received: beta=0"):
        F.softplus(Variable(np.ones(3)), beta=0)

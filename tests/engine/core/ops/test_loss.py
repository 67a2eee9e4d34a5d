import math

import numpy as np
import pytest

from engine.core.autograd import Variable
from engine.core.ops import loss as L
from engine.testing import check_function

RNG = np.random.default_rng(7)


def _away_from(values, points, margin=0.05):
    """Shift values that sit within ``margin`` of a kink so finite differences stay on one side."""
    out = values.copy()
    for p in points:
        close = np.abs(out - p) < margin
        out[close] += 2 * margin
    return out


def _labels(shape, n_classes):
    return RNG.integers(0, n_classes, size=shape)


def _log_softmax(x, axis):
    m = x.max(axis=axis, keepdims=True)
    return x - m - np.log(np.exp(x - m).sum(axis=axis, keepdims=True))


# ---- element-wise regression losses ------------------------------------------------------------


def test_squared_error_values_gradient_and_broadcast():
    y = L.squared_error(Variable(np.array([1.0, 2.0, -0.5])), Variable(np.array([3.0, -1.0, -0.5])))
    np.testing.assert_allclose(y.data, [4.0, 9.0, 0.0])
    x0, x1 = RNG.standard_normal((3, 5)), RNG.standard_normal((3, 5))
    check_function(L.squared_error, [x0, x1], reference=lambda a, b: (a - b) ** 2)
    check_function(
        L.squared_error, [x0, RNG.standard_normal((1, 5))], reference=lambda a, b: (a - b) ** 2
    )


def test_absolute_error_values_and_gradient():
    y = L.absolute_error(Variable(np.array([1.0, -2.0])), Variable(np.array([3.5, 1.0])))
    np.testing.assert_allclose(y.data, [2.5, 3.0])
    x0 = RNG.standard_normal((3, 5))
    x1 = x0 + _away_from(RNG.standard_normal((3, 5)), [0.0])
    check_function(L.absolute_error, [x0, x1], reference=lambda a, b: np.abs(a - b))


def test_absolute_error_at_zero_difference_follows_nnabla():
    x0 = Variable(np.array([1.0]), need_grad=True)
    L.absolute_error(x0, Variable(np.array([1.0]))).backward()
    np.testing.assert_allclose(x0.grad, [-1.0])  # nnabla: (d > 0) ? dy : -dy


def test_huber_loss_hand_values():
    x0 = Variable(np.array([0.5, 2.0, -3.0, 1.0]))
    x1 = Variable(np.zeros(4))
    np.testing.assert_allclose(L.huber_loss(x0, x1).data, [0.25, 3.0, 5.0, 1.0])
    np.testing.assert_allclose(L.huber_loss(x0, x1, delta=2.0).data, [0.25, 4.0, 8.0, 1.0])


@pytest.mark.parametrize("delta", [1.0, 0.3])
def test_huber_loss_gradient(delta):
    x0 = RNG.standard_normal((3, 5)) * 2
    x1 = x0 - _away_from(RNG.standard_normal((3, 5)) * 2, [-delta, delta])

    def ref(a, b):
        d = np.abs(a - b)
        return np.where(d < delta, d * d, delta * (2 * d - delta))

    check_function(L.huber_loss, [x0, x1], kwargs={"delta": delta}, reference=ref)


def test_epsilon_insensitive_loss_hand_values_and_gradient():
    x0 = Variable(np.array([1.0, 0.2, -0.5, -0.1]))
    y = L.epsilon_insensitive_loss(x0, Variable(np.zeros(4)), epsilon=0.3)
    np.testing.assert_allclose(y.data, [0.7, 0.0, 0.2, 0.0])
    a = RNG.standard_normal((3, 5))
    b = a - _away_from(RNG.standard_normal((3, 5)), [-0.3, 0.3])
    check_function(
        L.epsilon_insensitive_loss,
        [a, b],
        kwargs={"epsilon": 0.3},
        reference=lambda p, q: np.maximum(np.abs(p - q) - 0.3, 0.0),
    )


# ---- binary cross entropies ----------------------------------------------------------------


def test_binary_cross_entropy_hand_values_and_clipping():
    x = Variable(np.array([0.8, 0.8, 0.0, 1.0, 0.5]))
    t = Variable(np.array([1.0, 0.0, 1.0, 0.0, 0.3]))
    tiny_log = -math.log(np.finfo(np.float64).tiny)  # 708.396...: nnabla's clipped log(0)
    np.testing.assert_allclose(
        L.binary_cross_entropy(x, t).data,
        [-math.log(0.8), -math.log(0.2), tiny_log, tiny_log, math.log(2.0)],
        rtol=1e-12,
    )


def test_binary_cross_entropy_gradient_in_both_inputs():
    x = RNG.uniform(0.1, 0.9, (3, 5))
    t = RNG.uniform(0.0, 1.0, (3, 5))
    check_function(
        L.binary_cross_entropy,
        [x, t],
        reference=lambda p, q: -(q * np.log(p) + (1 - q) * np.log(1 - p)),
    )


def test_sigmoid_cross_entropy_hand_values_and_no_overflow():
    x = Variable(np.array([0.0, 1000.0, -1000.0, 2.0], dtype=np.float32))
    t = Variable(np.array([1.0, 0.0, 1.0, 1.0], dtype=np.float32))
    y = L.sigmoid_cross_entropy(x, t)
    assert y.data.dtype == np.float32
    np.testing.assert_allclose(
        y.data, [math.log(2.0), 1000.0, 1000.0, math.log1p(math.exp(-2.0))], rtol=1e-6
    )


def test_sigmoid_cross_entropy_gradient():
    x = RNG.standard_normal((3, 5)) * 3
    t = RNG.uniform(0.0, 1.0, (3, 5))

    def ref(a, b):
        s = 1 / (1 + np.exp(-a))
        return -(b * np.log(s) + (1 - b) * np.log(1 - s))

    check_function(L.sigmoid_cross_entropy, [x, t], reference=ref)


# ---- categorical cross entropies --------------------------------------------------------------


def test_categorical_cross_entropy_hand_values():
    x = Variable(np.array([[0.5, 0.25, 0.25], [0.1, 0.2, 0.7]]))
    y = L.categorical_cross_entropy(x, Variable(np.array([[0], [2]])))
    np.testing.assert_allclose(y.data, [[math.log(2.0)], [-math.log(0.7)]])
    assert y.shape == (2, 1)


@pytest.mark.parametrize("shape, axis", [((3, 5), None), ((2, 3, 5), 1), ((3, 2, 3), -1)])
def test_categorical_cross_entropy_gradient(shape, axis):
    x = RNG.uniform(0.1, 1.0, shape)
    ax = len(shape) - 1 if axis is None else axis % len(shape)
    t_shape = shape[:ax] + (1,) + shape[ax + 1 :]
    t = _labels(t_shape, shape[ax])
    check_function(
        L.categorical_cross_entropy,
        [x, t],
        kwargs={"axis": axis},
        reference=lambda p, lab: -np.log(np.take_along_axis(p, lab, ax)),
    )


def test_categorical_cross_entropy_ignores_negative_labels_and_accepts_float_labels():
    x = Variable(np.array([[0.5, 0.5], [0.2, 0.8], [0.9, 0.1]]), need_grad=True)
    y = L.categorical_cross_entropy(x, Variable(np.array([[1.0], [-1.0], [0.0]])))
    np.testing.assert_allclose(y.data, [[math.log(2.0)], [0.0], [-math.log(0.9)]])
    y.backward()
    np.testing.assert_allclose(x.grad, [[0.0, -2.0], [0.0, 0.0], [-1 / 0.9, 0.0]])


def test_categorical_cross_entropy_rejects_bad_labels():
    x = Variable(np.full((2, 3), 1 / 3))
    with pytest.raises(ValueError, match="labels must be < 3"):
        L.categorical_cross_entropy(x, Variable(np.array([[0], [3]])))
    with pytest.raises(ValueError, match=r"target must have the shape of x with size 1 on axis 1"):
        L.categorical_cross_entropy(x, Variable(np.array([0, 1])))


def test_softmax_cross_entropy_hand_values_and_large_logits():
    x = Variable(np.array([[0.0, 0.0], [1000.0, 0.0], [0.0, 1000.0]], dtype=np.float32))
    y = L.softmax_cross_entropy(x, Variable(np.array([[0], [0], [0]])))
    assert y.data.dtype == np.float32
    # the last one is nnabla's clip: -log(max(softmax, FLT_MIN)) = -log(FLT_MIN) = 87.34
    np.testing.assert_allclose(
        y.data, [[math.log(2.0)], [0.0], [-math.log(np.finfo(np.float32).tiny)]], rtol=1e-6
    )


@pytest.mark.parametrize("shape, axis", [((3, 5), None), ((2, 3, 5), 1), ((2, 3, 1, 3), 3)])
def test_softmax_cross_entropy_gradient(shape, axis):
    x = RNG.standard_normal(shape) * 2
    ax = len(shape) - 1 if axis is None else axis
    t = _labels(shape[:ax] + (1,) + shape[ax + 1 :], shape[ax])
    check_function(
        L.softmax_cross_entropy,
        [x, t],
        kwargs={"axis": axis},
        reference=lambda a, lab: -np.take_along_axis(_log_softmax(a, ax), lab, ax),
    )


def test_softmax_cross_entropy_ignored_label_has_zero_loss_and_gradient():
    x = Variable(np.array([[1.0, 2.0, 3.0], [0.5, 0.5, 0.0]]), need_grad=True)
    y = L.softmax_cross_entropy(x, Variable(np.array([[-1], [2]])))
    assert y.data[0, 0] == 0.0
    y.backward()
    np.testing.assert_array_equal(x.grad[0], [0.0, 0.0, 0.0])
    p = np.exp(_log_softmax(x.data[1], 0))
    np.testing.assert_allclose(x.grad[1], p - [0.0, 0.0, 1.0])


# ---- KL divergence --------------------------------------------------------------------------


def test_kl_multinomial_hand_value():
    p = Variable(np.array([[0.5, 0.5], [0.1, 0.9]]))
    q = Variable(np.array([[0.25, 0.75], [0.1, 0.9]]))
    y = L.kl_multinomial(p, q)
    assert y.shape == (2, 1)
    np.testing.assert_allclose(
        y.data[:, 0], [0.5 * math.log(2.0) + 0.5 * math.log(2 / 3), 0.0], atol=1e-7
    )


@pytest.mark.parametrize("shape, base_axis", [((2, 3, 2), 1), ((2, 3, 3), 2)])
def test_kl_multinomial_gradient(shape, base_axis):
    p = RNG.uniform(0.1, 1.0, shape)
    q = RNG.uniform(0.1, 1.0, shape)

    def ref(a, b):
        axes = tuple(range(base_axis, a.ndim))
        k = (a * (np.log(a + 1e-8) - np.log(b + 1e-8))).sum(axis=axes)
        return k.reshape(a.shape[:base_axis] + (1,))

    check_function(L.kl_multinomial, [p, q], kwargs={"base_axis": base_axis}, reference=ref)


def test_kl_multinomial_rejects_mismatched_shapes():
    with pytest.raises(ValueError, match=r"q.shape=\(2, 2\)"):
        L.kl_multinomial(Variable(np.ones((2, 3))), Variable(np.ones((2, 2))))


def test_float32_prediction_with_integer_target_stays_float32():
    y = L.squared_error(
        Variable(np.ones((2, 2), dtype=np.float32)), Variable(np.zeros((2, 2), dtype=np.int64))
    )
    assert y.data.dtype == np.float32

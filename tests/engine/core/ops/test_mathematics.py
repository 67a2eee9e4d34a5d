import numpy as np
import pytest

import engine.nn.functions as F
from engine.core.autograd import Variable
from engine.testing import check_function


def _rand(*shape, seed=0, low=-2.0, high=2.0):
    return np.random.default_rng(seed).uniform(low, high, size=shape)


def _away_from_zero(*shape, seed=0):
    x = _rand(*shape, seed=seed, low=0.3, high=1.5)
    signs = np.where(np.random.default_rng(seed + 1).random(shape) < 0.5, -1.0, 1.0)
    return x * signs


AXES = [None, 1, (0, 2), -1, [2, 0]]


@pytest.mark.parametrize("axis", AXES)
@pytest.mark.parametrize("keepdims", [False, True])
def test_sum_and_mean(axis, keepdims):
    x = _rand(2, 3, 5)
    np_axis = tuple(axis) if isinstance(axis, list) else axis
    check_function(
        F.sum,
        [x],
        kwargs=dict(axis=axis, keepdims=keepdims),
        reference=lambda a: np.sum(a, axis=np_axis, keepdims=keepdims),
    )
    check_function(
        F.mean,
        [x],
        kwargs=dict(axis=axis, keepdims=keepdims),
        reference=lambda a: np.mean(a, axis=np_axis, keepdims=keepdims),
    )


@pytest.mark.parametrize("axis", [None, 1, (0, 2)])
@pytest.mark.parametrize("keepdims", [False, True])
def test_prod(axis, keepdims):
    x = _away_from_zero(2, 3, 3, seed=3)
    check_function(
        F.prod,
        [x],
        kwargs=dict(axis=axis, keepdims=keepdims),
        reference=lambda a: np.prod(a, axis=axis, keepdims=keepdims),
    )


def test_prod_gradient_is_exact_with_zeros():
    x = _rand(3, 4, seed=5)
    x[0, 1] = 0.0  # one zero: only that element gets a non-zero gradient in its row
    x[1, 0] = x[1, 3] = 0.0  # two zeros: the whole row's gradient is 0
    check_function(F.prod, [x], kwargs=dict(axis=1), reference=lambda a: np.prod(a, axis=1))
    v = Variable(x, need_grad=True)
    F.prod(v, axis=1).backward()
    others = np.prod(np.delete(x[0], 1))
    np.testing.assert_allclose(v.grad[0], [0, others, 0, 0])
    np.testing.assert_array_equal(v.grad[1], np.zeros(4))


@pytest.mark.parametrize("fn,ref,arg", [(F.max, np.max, np.argmax), (F.min, np.min, np.argmin)])
@pytest.mark.parametrize("axis", [None, 1, (0, 2), -1])
def test_max_min_values_and_gradient(fn, ref, arg, axis):
    x = np.random.default_rng(7).permutation(30).reshape(2, 3, 5) / 7.0  # no ties
    check_function(fn, [x], kwargs=dict(axis=axis), reference=lambda a: ref(a, axis=axis))
    check_function(
        fn,
        [x],
        kwargs=dict(axis=axis, keepdims=True),
        reference=lambda a: ref(a, axis=axis, keepdims=True),
    )


def test_max_with_index_counts_along_flattened_reduced_axes():
    x = np.random.default_rng(8).permutation(30).reshape(2, 3, 5).astype(np.float64)
    values, index = F.max(Variable(x), axis=(0, 2), with_index=True)
    flat = x.transpose(1, 0, 2).reshape(3, 10)
    np.testing.assert_array_equal(values.d, flat.max(axis=1))
    np.testing.assert_array_equal(index.d, flat.argmax(axis=1))
    only = F.min(Variable(x), axis=2, keepdims=True, only_index=True)
    assert only.shape == (2, 3, 1) and only.d.dtype.kind == "i"
    np.testing.assert_array_equal(only.d[..., 0], x.argmin(axis=2))


def test_max_gradient_goes_to_first_of_ties():
    v = Variable(np.array([[1.0, 3.0, 3.0], [2.0, 2.0, 0.0]]), need_grad=True)
    F.max(v, axis=1).backward()
    np.testing.assert_array_equal(v.grad, [[0, 1, 0], [1, 0, 0]])


@pytest.mark.parametrize("p", [1.0, 2.0, 3.0])
@pytest.mark.parametrize("axis", [None, 1, (0, 2)])
def test_norm(p, axis):
    x = _away_from_zero(2, 3, 3, seed=11)
    ref = lambda a: np.sum(np.abs(a) ** p, axis=axis) ** (1 / p)  # noqa: E731
    check_function(F.norm, [x], kwargs=dict(p=p, axis=axis), reference=ref)


def test_norm_defaults_to_l2_and_zero_norm_has_zero_gradient():
    x = np.array([[3.0, 4.0], [0.0, 0.0]])
    v = Variable(x, need_grad=True)
    y = F.norm(v, axis=1, keepdims=True)
    np.testing.assert_allclose(y.d, [[5.0], [0.0]])
    y.backward()
    np.testing.assert_allclose(v.grad, [[0.6, 0.8], [0.0, 0.0]])


def _np_scan(op, a, axis, exclusive, reverse):
    a = np.moveaxis(a, axis, -1)
    if reverse:
        a = a[..., ::-1]
    y = op(a, axis=-1)
    if exclusive:
        fill = 0.0 if op is np.cumsum else 1.0
        y = np.concatenate([np.full(y.shape[:-1] + (1,), fill), y[..., :-1]], axis=-1)
    if reverse:
        y = y[..., ::-1]
    return np.moveaxis(y, -1, axis)


@pytest.mark.parametrize("exclusive", [False, True])
@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("axis", [0, 1, -1])
def test_cumsum_and_cumprod(exclusive, reverse, axis):
    kw = dict(axis=axis, exclusive=exclusive, reverse=reverse)
    x = _away_from_zero(2, 3, 4, seed=13)
    check_function(
        F.cumsum,
        [x],
        kwargs=kw,
        reference=lambda a: _np_scan(np.cumsum, a, axis, exclusive, reverse),
    )
    check_function(
        F.cumprod,
        [x],
        kwargs=kw,
        reference=lambda a: _np_scan(np.cumprod, a, axis, exclusive, reverse),
    )


@pytest.mark.parametrize("exclusive", [False, True])
@pytest.mark.parametrize("reverse", [False, True])
def test_cumprod_gradient_is_exact_with_zeros(exclusive, reverse):
    x = _away_from_zero(2, 5, seed=17)
    x[0, 2] = 0.0
    x[1, 1] = x[1, 3] = 0.0
    kw = dict(axis=1, exclusive=exclusive, reverse=reverse)
    check_function(
        F.cumprod,
        [x],
        kwargs=kw,
        reference=lambda a: _np_scan(np.cumprod, a, 1, exclusive, reverse),
    )


def test_cumsum_hand_computed():
    x = Variable(np.array([1.0, 2.0, 3.0, 4.0]))
    np.testing.assert_array_equal(F.cumsum(x).d, [1, 3, 6, 10])
    np.testing.assert_array_equal(F.cumsum(x, exclusive=True).d, [0, 1, 3, 6])
    np.testing.assert_array_equal(F.cumsum(x, reverse=True).d, [10, 9, 7, 4])
    np.testing.assert_array_equal(F.cumprod(x, exclusive=True, reverse=True).d, [24, 12, 4, 1])


def test_log_exp():
    check_function(F.log, [_rand(3, 5, low=0.2, high=3.0)], reference=np.log)
    check_function(F.exp, [_rand(3, 5)], reference=np.exp)


def test_sign_value_at_zero_and_straight_through_gradient():
    x = np.array([-2.0, 0.0, 0.5])
    check_function(F.sign, [x], reference=lambda a: np.array([-1.0, 1.0, 1.0]), check_grad=False)
    check_function(F.sign, [x], kwargs=dict(alpha=0.0), reference=np.sign, check_grad=False)
    v = Variable(x, need_grad=True)
    F.sign(v, alpha=0.0).backward(np.array([1.0, 2.0, 3.0]))
    np.testing.assert_array_equal(v.grad, [1.0, 2.0, 3.0])


@pytest.mark.parametrize(
    "fn,expected",
    [
        (F.round, [-3, -2, -2, -1, 0, 0, 1, 1, 2, 3]),
        (F.ceil, [-2, -2, -1, 0, 0, 1, 1, 2, 2, 3]),
        (F.floor, [-3, -3, -2, -1, -1, 0, 0, 1, 1, 2]),
    ],
)
def test_rounding_and_straight_through_gradient(fn, expected):
    x = np.array([-2.5, -2.4, -1.5, -0.5, -0.2, 0.3, 0.5, 1.4999, 1.5, 2.5])
    check_function(fn, [x], reference=lambda a: np.array(expected, dtype=float), check_grad=False)
    v = Variable(x, need_grad=True)
    gy = np.arange(10.0)
    fn(v).backward(gy)
    np.testing.assert_array_equal(v.grad, gy)


def test_round_float32_just_below_half_rounds_down():
    x = np.array([0.49999997, -0.49999997, 2.4999998], dtype=np.float32)
    np.testing.assert_array_equal(F.round(Variable(x)).d, [0, 0, 2])


@pytest.mark.parametrize(
    "sa,sb,ta,tb",
    [
        ((2, 3, 4), (2, 4, 5), False, False),
        ((2, 4, 3), (2, 4, 5), True, False),
        ((2, 3, 4), (2, 5, 4), False, True),
        ((2, 4, 3), (2, 5, 4), True, True),
        ((2, 1, 3, 4), (1, 3, 4, 2), False, False),  # size-1 batch axes broadcast
        ((3, 2), (2, 3), False, False),
    ],
)
def test_batch_matmul(sa, sb, ta, tb):
    def ref(a, b):
        a = np.swapaxes(a, -1, -2) if ta else a
        b = np.swapaxes(b, -1, -2) if tb else b
        return a @ b

    check_function(
        F.batch_matmul,
        [_rand(*sa, seed=1), _rand(*sb, seed=2)],
        kwargs=dict(transpose_a=ta, transpose_b=tb),
        reference=ref,
    )


def test_batch_matmul_rejects_mismatched_inner_size():
    with pytest.raises(ValueError, match=r"batch_matmul: inner sizes differ .*a.shape=\(2, 3, 4\)"):
        F.batch_matmul(Variable(np.ones((2, 3, 4))), Variable(np.ones((2, 3, 4))))


def _matrices(seed=0):
    a = _rand(2, 3, 3, seed=seed, low=-0.5, high=0.5) + 2.0 * np.eye(3)
    a[1] = a[1][[1, 0, 2]]  # a row swap: negative determinant
    return a


def test_batch_inv_det_logdet():
    a = _matrices()
    assert np.linalg.det(a[1]) < 0
    check_function(F.batch_inv, [a], reference=np.linalg.inv)
    check_function(F.batch_det, [a], reference=np.linalg.det)
    check_function(F.batch_logdet, [a], reference=lambda m: np.log(np.abs(np.linalg.det(m))))


def test_batch_det_hand_computed():
    m = np.array([[[2.0, 1.0], [1.0, 3.0]], [[0.0, 1.0], [1.0, 0.0]]])
    np.testing.assert_allclose(F.batch_det(Variable(m)).d, [5.0, -1.0])
    np.testing.assert_allclose(F.batch_inv(Variable(m)).d[0], [[0.6, -0.2], [-0.2, 0.4]])


def test_batch_linalg_rejects_non_square():
    with pytest.raises(ValueError, match=r"batch_inv: .*Received: x.shape=\(2, 3, 4\)"):
        F.batch_inv(Variable(np.ones((2, 3, 4))))


def test_bad_axis_names_function_and_value():
    with pytest.raises(ValueError, match=r"sum: axis 3 is out of range .*axis=\(1, 3\)"):
        F.sum(Variable(np.ones((2, 3, 4))), axis=(1, 3))
    with pytest.raises(ValueError, match=r"norm: p must be positive"):
        F.norm(Variable(np.ones(3)), p=0)

import numpy as np
import pytest

from engine.core.autograd import Variable, backward, no_grad, sum_to
from engine.core.ops import arithmetic as A
from engine.testing import check_function


def test_accumulates_when_one_variable_feeds_several_functions():
    x = Variable(np.array([2.0, -1.0]), need_grad=True)
    y = x * x + x * 3.0 + x  # dy/dx = 2x + 4
    y.backward()
    np.testing.assert_allclose(x.grad, [8.0, 2.0])


def test_leaf_gradients_accumulate_until_zero_grad():
    x = Variable(np.array([1.0, 2.0]), need_grad=True)
    (x * 2.0).backward()
    (x * 3.0).backward()
    np.testing.assert_allclose(x.grad, [5.0, 5.0])
    x.zero_grad()
    assert x.grad is None


def test_diamond_graph_each_function_runs_once():
    x = Variable(np.array([3.0]), need_grad=True)
    a = x * 2.0
    b = a * a  # 4x^2
    c = a + b  # 2x + 4x^2 -> dc/dx = 2 + 8x = 26
    c.backward()
    np.testing.assert_allclose(x.grad, [26.0])


def test_no_grad_records_nothing():
    x = Variable(np.ones(3), need_grad=True)
    with no_grad():
        y = x * 2.0
    assert y.creator is None and not y.need_grad


def test_need_grad_false_inputs_get_no_gradient():
    x = Variable(np.ones(3), need_grad=True)
    c = Variable(np.full(3, 2.0))
    (x * c).backward()
    assert c.grad is None
    np.testing.assert_allclose(x.grad, [2.0, 2.0, 2.0])


def test_broadcast_gradient_is_reduced_to_input_shape():
    check_function(A.add2, [np.random.rand(2, 3, 4), np.random.rand(1, 3, 1)], reference=np.add)
    check_function(
        A.mul2, [np.random.rand(2, 3, 4), np.random.rand(2, 1, 4)], reference=np.multiply
    )


def test_sum_to_inverts_broadcasting():
    g = np.ones((2, 3, 4))
    assert sum_to(g, (1, 3, 1)).shape == (1, 3, 1)
    assert sum_to(g, (4,)).shape == (4,)
    np.testing.assert_allclose(sum_to(g, (3, 1)), np.full((3, 1), 8.0))


def test_multi_root_backward_sums_seeds():
    x = Variable(np.array([1.0, 2.0]), need_grad=True)
    backward([x * 2.0, x * x], [np.ones(2), np.ones(2)])
    np.testing.assert_allclose(x.grad, [4.0, 6.0])


def test_retain_grad_keeps_intermediate_gradients():
    x = Variable(np.array([1.0, 2.0]), need_grad=True)
    h = x * 3.0
    y = h * h
    y.backward(retain_grad=True)
    np.testing.assert_allclose(h.grad, 2 * h.data)


def test_nnabla_aliases_and_shape_constructor():
    v = Variable((2, 3), need_grad=True)
    assert v.shape == (2, 3) and v.d.dtype == np.float32
    v.d = 1.5
    assert np.all(v.data == 1.5)
    assert np.all(v.g == 0)


@pytest.mark.parametrize(
    "fn, ref, inputs",
    [
        (A.sub2, np.subtract, [(3, 4), (3, 4)]),
        (A.div2, np.divide, [(3, 4), (1, 4)]),
        (A.maximum2, np.maximum, [(3, 4), (3, 4)]),
        (A.minimum2, np.minimum, [(3, 4), (3, 1)]),
    ],
)
def test_two_input_arithmetic(fn, ref, inputs):
    rng = np.random.default_rng(0)
    arrays = [rng.uniform(0.5, 2.0, s) for s in inputs]
    check_function(fn, arrays, reference=ref)


def test_pow2_gradient_both_inputs():
    rng = np.random.default_rng(1)
    check_function(
        A.pow2, [rng.uniform(0.5, 2, (2, 3)), rng.uniform(-1, 2, (2, 3))], reference=np.power
    )


@pytest.mark.parametrize(
    "fn, ref",
    [
        (A.add_scalar, lambda x: x + 0.7),
        (A.mul_scalar, lambda x: x * 0.7),
        (A.r_sub_scalar, lambda x: 0.7 - x),
        (A.r_div_scalar, lambda x: 0.7 / x),
        (A.pow_scalar, lambda x: x**0.7),
        (A.r_pow_scalar, lambda x: 0.7**x),
        (A.maximum_scalar, lambda x: np.maximum(x, 0.7)),
        (A.minimum_scalar, lambda x: np.minimum(x, 0.7)),
    ],
)
def test_scalar_arithmetic(fn, ref):
    x = np.array([[0.31, 0.52, 0.93], [1.24, 1.55, 1.96]])
    check_function(fn, [x], kwargs={"val": 0.7}, reference=ref)


def test_n_input_arithmetic():
    rng = np.random.default_rng(2)
    xs = [rng.standard_normal((2, 3)) for _ in range(3)]
    check_function(A.add_n, xs, reference=lambda a, b, c: a + b + c)
    check_function(A.mul_n, xs, reference=lambda a, b, c: a * b * c)


def test_matmul_operator():
    rng = np.random.default_rng(3)
    check_function(
        A.matmul, [rng.standard_normal((2, 3, 4)), rng.standard_normal((4, 5))], reference=np.matmul
    )


def test_clear_buffer_gives_the_same_gradients():
    grads = []
    for clear in (False, True):
        w = Variable(np.array([1.0, -2.0]), need_grad=True)
        h = w * Variable(np.array([[1.0, 2.0], [3.0, 4.0]]))  # only the next function holds h
        (h * h).backward(clear_buffer=clear)
        grads.append(w.grad)
    np.testing.assert_allclose(grads[0], [20.0, -80.0])
    np.testing.assert_allclose(grads[1], grads[0])

import numpy as np
import pytest

import engine.nn.functions as F
from engine.core.autograd import Variable
from engine.testing import check_function

A = np.array([[0.0, 1.0, -2.0, 3.0], [0.5, 0.0, 2.0, -1.0]])
B = np.array([[0.0, 0.0, -2.0, 4.0], [1.0, 2.0, 2.0, -3.0]])

BINARY = [
    (F.logical_and, lambda a, b: (a != 0) & (b != 0)),
    (F.logical_or, lambda a, b: (a != 0) | (b != 0)),
    (F.logical_xor, lambda a, b: (a != 0) ^ (b != 0)),
    (F.equal, np.equal),
    (F.not_equal, np.not_equal),
    (F.greater_equal, np.greater_equal),
    (F.greater, np.greater),
    (F.less_equal, np.less_equal),
    (F.less, np.less),
]


@pytest.mark.parametrize("fn,ref", BINARY)
def test_binary_logical(fn, ref):
    check_function(fn, [A, B], reference=lambda a, b: ref(a, b).astype(float), check_grad=False)
    # size-1 axes broadcast, like the arithmetic layers
    b = B[:1, :]
    check_function(fn, [A, b], reference=lambda a, c: ref(a, c).astype(float), check_grad=False)


def test_hand_computed_truth_tables():
    x0, x1 = Variable(np.array([0.0, 0.0, 1.0, 5.0])), Variable(np.array([0.0, 2.0, 0.0, -1.0]))
    np.testing.assert_array_equal(F.logical_and(x0, x1).d, [0, 0, 0, 1])
    np.testing.assert_array_equal(F.logical_or(x0, x1).d, [0, 1, 1, 1])
    np.testing.assert_array_equal(F.logical_xor(x0, x1).d, [0, 1, 1, 0])
    np.testing.assert_array_equal(F.greater(x0, x1).d, [0, 0, 1, 1])
    np.testing.assert_array_equal(F.logical_not(x1).d, [1, 0, 1, 0])


SCALAR = [
    (F.equal_scalar, 2.0, np.equal),
    (F.not_equal_scalar, 2.0, np.not_equal),
    (F.greater_equal_scalar, 0.5, np.greater_equal),
    (F.greater_scalar, 0.5, np.greater),
    (F.less_equal_scalar, 0.0, np.less_equal),
    (F.less_scalar, 0.0, np.less),
]


@pytest.mark.parametrize("fn,val,ref", SCALAR)
def test_comparison_with_scalar(fn, val, ref):
    check_function(fn, [A], kwargs=dict(val=val), reference=lambda a: ref(a, val).astype(float),
                   check_grad=False)  # fmt: skip


def test_comparison_scalar_defaults_to_one_as_nnabla():
    x = Variable(np.array([0.0, 1.0, 2.0]))
    np.testing.assert_array_equal(F.equal_scalar(x).d, [0, 1, 0])
    np.testing.assert_array_equal(F.greater_scalar(x).d, [0, 0, 1])


@pytest.mark.parametrize("val", [0.0, 1.0, 2.5])
def test_logical_with_scalar(val):
    t = A != 0
    v = bool(val)
    for fn, ref in [
        (F.logical_and_scalar, t & v),
        (F.logical_or_scalar, t | v),
        (F.logical_xor_scalar, t ^ v),
    ]:
        check_function(fn, [A], kwargs=dict(val=val), reference=lambda a, r=ref: r.astype(float),
                       check_grad=False)  # fmt: skip


def test_isnan_isinf():
    x = np.array([0.0, np.nan, np.inf, -np.inf, 1.0])
    check_function(F.isnan, [x], reference=lambda a: np.isnan(a).astype(float), check_grad=False)
    check_function(F.isinf, [x], reference=lambda a: np.isinf(a).astype(float), check_grad=False)


def test_output_dtype_follows_float_input_and_integers_give_float32():
    x32 = Variable(np.array([1.0, 2.0], dtype=np.float32))
    assert F.greater_scalar(x32, 1.5).d.dtype == np.float32
    assert F.equal(Variable(np.array([1, 2])), Variable(np.array([1, 3]))).d.dtype == np.float32
    assert F.logical_not(Variable(np.array([0.0]))).d.dtype == np.float64


def test_no_gradient_flows_through_logical_functions():
    x = Variable(np.array([-1.0, 0.5, 2.0]), need_grad=True)
    y = Variable(np.array([0.0, 1.0, 1.0]), need_grad=True)
    mask = F.greater(x, y)
    np.testing.assert_array_equal(mask.d, [0, 0, 1])
    (x * F.greater_scalar(x, 0.0)).backward()  # x * [x > 0]: gradient only via the product
    np.testing.assert_array_equal(x.grad, [0, 1, 1])
    mask.backward()
    assert y.grad is None
    np.testing.assert_array_equal(x.grad, [0, 1, 1])  # nothing added by the comparison

import numpy as np
import pytest

from engine.core.autograd import Variable
from engine.core.ops import validation as V
from engine.testing import check_function


def test_binary_error_hand_values_threshold_inclusive():
    x = Variable(np.array([0.5, 0.49, 0.9, 0.1, 0.7], dtype=np.float32))
    t = Variable(np.array([1.0, 1.0, 0.0, 0.0, 0.5], dtype=np.float32))
    y = V.binary_error(x, t)
    assert y.data.dtype == np.float32
    np.testing.assert_array_equal(y.data, [0.0, 1.0, 1.0, 0.0, 0.0])


def test_binary_error_against_reference_and_no_gradient():
    rng = np.random.default_rng(3)
    x, t = rng.uniform(0, 1, (3, 5)), rng.integers(0, 2, (3, 5)).astype(np.float64)
    check_function(
        V.binary_error,
        [x, t],
        reference=lambda a, b: ((a >= 0.5) != (b >= 0.5)).astype(np.float64),
        check_grad=False,
    )
    xv = Variable(x, need_grad=True)
    V.binary_error(xv, Variable(t)).backward()
    assert xv.grad is None


def test_top_n_error_hand_values():
    x = Variable(np.array([[0.1, 0.5, 0.4], [0.3, 0.3, 0.4], [0.7, 0.2, 0.1]]))
    t = Variable(np.array([[2], [0], [0]]))
    np.testing.assert_array_equal(V.top_n_error(x, t).data, [[1.0], [1.0], [0.0]])
    # top-2: row 0's label is second best; row 1's label ties with class 1 for second place,
    # and nnabla counts every score >= the label's (3 > 2), so it is an error
    np.testing.assert_array_equal(V.top_n_error(x, t, n=2).data, [[0.0], [1.0], [0.0]])
    np.testing.assert_array_equal(V.top_n_error(x, t, n=3).data, [[0.0], [0.0], [0.0]])


@pytest.mark.parametrize("shape, axis, n", [((4, 5), None, 1), ((2, 5, 3), 1, 2)])
def test_top_n_error_against_sorting_reference(shape, axis, n):
    rng = np.random.default_rng(5)
    x = rng.standard_normal(shape)
    ax = len(shape) - 1 if axis is None else axis
    t = rng.integers(0, shape[ax], size=shape[:ax] + (1,) + shape[ax + 1 :])

    def ref(a, lab):
        top = np.argsort(-a, axis=ax).take(range(n), axis=ax)  # distinct values: no ties
        return (~(top == lab).any(axis=ax, keepdims=True)).astype(np.float64)

    check_function(
        V.top_n_error, [x, t], kwargs={"axis": axis, "n": n}, reference=ref, check_grad=False
    )


def test_top_n_error_rejects_out_of_range_labels():
    x = Variable(np.zeros((2, 3)))
    with pytest.raises(ValueError, match="labels must be >= 0"):
        V.top_n_error(x, Variable(np.array([[0], [-1]])))
    with pytest.raises(ValueError, match="labels must be < 3"):
        V.top_n_error(x, Variable(np.array([[0], [5]])))

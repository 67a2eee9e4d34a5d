"""ReLU's compiled loops (numba) against the NumPy expressions they stand in for: same numbers
(NaN and infinities included), on every memory layout the layers hand around, and a fallback to
NumPy where the loops do not serve the arrays."""

import numpy as np
import pytest

import engine.nn.functions as F
from engine.core.autograd import Variable
from engine.testing import check_function

pytest.importorskip("numba", reason="ReLU's compiled loops need numba")

from engine.core.ops import _elementwise_cpu, _jit  # noqa: E402 - after the skip

RNG = np.random.default_rng(5)


def _special(shape, dtype):
    """Random values with zeros, signed zeros, infinities and NaN among them."""
    a = RNG.standard_normal(shape).astype(dtype)
    flat = a.reshape(-1)
    flat[:6] = [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-30]
    return a


LAYOUTS = {
    "c-order": lambda a: a,
    "batch-innermost": lambda a: np.moveaxis(np.ascontiguousarray(np.moveaxis(a, 0, -1)), -1, 0),
    "fortran": np.asfortranarray,
}


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_relu_and_its_gradient_equal_numpy(layout, dtype):
    lay = LAYOUTS[layout]
    x, gy = lay(_special((5, 3, 4, 6), dtype)), lay(_special((5, 3, 4, 6), dtype)[::-1].copy())
    y, gx = _elementwise_cpu.relu(x), _elementwise_cpu.relu_grad(x, gy)
    assert y is not None and gx is not None  # the compiled loops served them
    with np.errstate(invalid="ignore"):
        want_y, want_gx = np.maximum(x, 0), gy * (x > 0)
    assert y.dtype == gx.dtype == dtype and y.strides == x.strides  # x's layout, kept
    np.testing.assert_array_equal(y, want_y)  # NaN in the same places
    np.testing.assert_array_equal(gx, want_gx)  # inf * 0 is nan, as in NumPy


def test_arrays_the_loops_do_not_serve_fall_back_to_numpy(monkeypatch):
    x = RNG.standard_normal((4, 6))
    assert _elementwise_cpu.relu(x[:, ::2]) is None  # not one run of memory
    assert _elementwise_cpu.relu_grad(x, x.T.copy().T) is None  # two layouts
    assert _elementwise_cpu.relu_grad(x, x.astype(np.float32)) is None  # two dtypes
    assert _elementwise_cpu.relu(x.astype(np.float16)) is None
    assert _elementwise_cpu.relu(np.empty((0, 3))) is None
    monkeypatch.setattr(_jit, "ENABLED", False)
    assert _elementwise_cpu.relu(x) is None
    # ... and the layer still gives NumPy's numbers on such arrays.
    v = Variable(x[:, ::2], need_grad=True)
    y = F.relu(v)
    y.backward(np.ones(y.shape))
    np.testing.assert_array_equal(y.d, np.maximum(v.d, 0))
    np.testing.assert_array_equal(v.g, (v.d > 0).astype(float))


def test_relu_layer_takes_the_loops_and_gives_numpys_numbers(monkeypatch):
    lay = LAYOUTS["batch-innermost"]  # as a convolution hands out its output and gradient
    x, g = (lay(RNG.standard_normal((8, 4, 5, 5)).astype(np.float32)) for _ in range(2))
    calls = []
    compiled = _elementwise_cpu._compile()
    monkeypatch.setitem(compiled, "relu_grad", lambda *a: calls.append(1) or None)
    v = Variable(x, need_grad=True)
    F.relu(v).backward(g)
    assert calls == [1]  # the layer's backward went through the compiled loop (stubbed here)
    monkeypatch.undo()
    results = []
    for enabled in (True, False):
        monkeypatch.setattr(_jit, "ENABLED", enabled)
        v = Variable(x, need_grad=True)
        y = F.relu(v)
        y.backward(g)
        results.append((y.d, v.g))
    for got, want in zip(*results, strict=True):
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_relu_split_between_threads_equals_numpy(split_everything, layout, dtype):
    """Parts of whole 16-element lines, the last one shorter (9 * 7 * 5 * 3 = 945 elements)."""
    lay = LAYOUTS[layout]
    x, gy = lay(_special((9, 7, 5, 3), dtype)), lay(_special((9, 7, 5, 3), dtype)[::-1].copy())
    y, gx = _elementwise_cpu.relu(x), _elementwise_cpu.relu_grad(x, gy)
    assert split_everything == ["relu", "relu_grad"]
    with np.errstate(invalid="ignore"):
        want_y, want_gx = np.maximum(x, 0), gy * (x > 0)
    assert y.tobytes(order="A") == want_y.tobytes(order="A")
    assert gx.tobytes(order="A") == want_gx.tobytes(order="A")


def test_relu_gradient_split_between_threads_matches_finite_differences(split_everything):
    x = RNG.standard_normal((6, 5, 4))
    x[np.abs(x) < 1e-3] = 0.5  # away from the kink, where differences are not the gradient
    check_function(F.relu, [x], reference=lambda a: np.maximum(a, 0))
    assert set(split_everything) >= {"relu", "relu_grad"}

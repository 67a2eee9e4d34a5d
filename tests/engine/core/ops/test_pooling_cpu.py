"""Max pooling's compiled loops (numba) against the ``xp`` kernel they stand in for: outputs and
input gradients equal on odd geometries, ties (nnabla's first maximum), NaN and -inf, both
memory layouts the loops take, channel-last, and a fallback for the rest."""

import numpy as np
import pytest

import engine.nn.functions as F
from engine.core.autograd import Variable

pytest.importorskip("numba", reason="max pooling's compiled loops need numba")

from engine.core.ops import _jit, _pooling_cpu  # noqa: E402 - after the skip

RNG = np.random.default_rng(8)

# (N, C, H, W), kernel, stride, pad, ignore_border
GEOMETRIES = [
    ((4, 3, 8, 8), (2, 2), None, (0, 0), True),
    ((3, 2, 7, 9), (3, 2), (2, 1), (1, 0), True),  # overlapping windows, padding
    ((5, 2, 7, 5), (2, 3), (2, 2), (0, 1), False),  # partial last windows
    ((2, 3, 3, 4), (4, 4), (1, 1), (2, 2), True),  # windows wholly in the padding
]
IDS = ["2x2", "overlap-pad", "partial", "pad-beyond"]

LAYOUTS = {
    "nchw": lambda a: a,
    "batch-innermost": lambda a: np.moveaxis(np.ascontiguousarray(np.moveaxis(a, 0, -1)), -1, 0),
}


def _wave(shape):
    """The same upstream gradient for both paths."""
    return np.cos(np.arange(np.prod(shape)) * 0.7).reshape(shape)


def _both_paths(monkeypatch, x, g, **kw):
    """(y, gx) through the compiled loops, then through the ``xp`` kernel."""
    calls = []
    compiled = _pooling_cpu.forward
    monkeypatch.setattr(_pooling_cpu, "forward", lambda *a: calls.append(1) or compiled(*a))
    results = []
    for enabled in (True, False):
        monkeypatch.setattr(_jit, "ENABLED", enabled)
        v = Variable(x, need_grad=True)
        y = F.max_pooling(v, **kw)
        y.backward(g(y.shape))
        results.append((y.d, v.g))
    assert calls == [1]  # the first pass took the loops, the second the xp kernel
    return results


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("xs, kernel, stride, pad, ignore_border", GEOMETRIES, ids=IDS)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_compiled_max_pooling_equals_the_xp_kernel(
    monkeypatch, layout, xs, kernel, stride, pad, ignore_border, dtype
):
    # Rounded values after a ReLU: many windows hold their maximum (0 or another) twice.
    x = LAYOUTS[layout](np.maximum(np.round(RNG.standard_normal(xs) * 2), 0).astype(dtype))
    kw = dict(kernel=kernel, stride=stride, pad=pad, ignore_border=ignore_border)
    got, want = _both_paths(monkeypatch, x, lambda s: _wave(s).astype(dtype), **kw)
    for a, b in zip(got, want, strict=True):
        assert a.dtype == b.dtype == dtype and a.shape == b.shape
    np.testing.assert_array_equal(got[0], want[0])
    # Where windows overlap, a cell's gradient sums in another order: float rounding only.
    tol = 1e-6 if dtype == np.float32 else 1e-14
    np.testing.assert_allclose(got[1], want[1], rtol=tol, atol=tol)
    same_layout = np.moveaxis(got[0], 0, -1) if layout == "batch-innermost" else got[0]
    assert same_layout.flags.c_contiguous  # the output keeps the input's layout


def test_nan_and_minus_infinity_as_in_the_xp_kernel(monkeypatch):
    x = RNG.standard_normal((2, 2, 6, 6))
    x[0, 0, 0, 1] = np.nan  # a window with NaN: NaN out, no gradient
    x[1, 1, 2:4, 2:4] = -np.inf  # a window of -inf: the first cell takes the gradient
    x[0, 1, :, 0] = -np.inf  # -inf beside the padding
    kw = dict(kernel=(2, 2), stride=(2, 2), pad=(1, 1))
    got, want = _both_paths(monkeypatch, x, lambda s: np.ones(s), **kw)
    for a, b in zip(got, want, strict=True):
        np.testing.assert_array_equal(a, b)
    assert np.isnan(got[0][0, 0, 0, 1]) and got[1][0, 0, 0, 1] == 0


def test_channel_last_takes_the_loops_too(monkeypatch):
    x = RNG.standard_normal((3, 6, 5, 4))  # (N, H, W, C)
    got, want = _both_paths(
        monkeypatch, x, _wave,
        kernel=(2, 2), channel_last=True,
    )  # fmt: skip
    for a, b in zip(got, want, strict=True):
        np.testing.assert_array_equal(a, b)


def test_other_inputs_take_the_xp_kernel():
    x = RNG.standard_normal((2, 3, 6, 6))
    assert _pooling_cpu.applies(x, 2)
    assert not _pooling_cpu.applies(x[:, :, ::2], 2)  # neither layout
    assert not _pooling_cpu.applies(x.astype(np.float16), 2)
    assert not _pooling_cpu.applies(x[None], 2)  # more leading axes
    assert not _pooling_cpu.applies(x[0], 1)  # 1-D pooling
    strided = x[:, :, ::2]  # (2, 3, 3, 6): pools to (2, 3, 1, 3), the last row left out
    y = F.max_pooling(Variable(strided), (2, 2))  # and it still pools right
    want = strided[:, :, :2].reshape(2, 3, 1, 2, 3, 2).max(axis=(3, 5))
    np.testing.assert_array_equal(y.d, want)

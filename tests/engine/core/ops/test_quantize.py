import numpy as np
import pytest

import engine.nn.functions as F
from engine.core.autograd import Variable
from engine.testing import check_function

rng = np.random.default_rng(0)


def forward_backward(fn, x, **kwargs):
    v = Variable(np.asarray(x, dtype=np.float64), need_grad=True)
    y = fn(v, **kwargs)
    y.backward(np.full(v.shape, 1.0))
    return y.data, v.grad


# ----------------------------------------------------------------------------- fixed point


def test_fixed_point_rounds_half_away_and_clips():
    # sign, n=3, delta=0.5: levels -1.5 .. 1.5
    x = [-2.0, -1.5, -1.25, -0.75, -0.25, 0.0, 0.24, 0.25, 0.26, 0.75, 1.24, 1.25, 1.5, 1.6]
    y, g = forward_backward(F.fixed_point_quantize, x, n=3, delta=0.5)
    np.testing.assert_array_equal(
        y, [-1.5, -1.5, -1.5, -1.0, -0.5, 0.0, 0.0, 0.5, 0.5, 1.0, 1.0, 1.5, 1.5, 1.5]
    )
    np.testing.assert_array_equal(g, [0] + [1] * 12 + [0])  # fine-grained: boundaries pass
    _, g = forward_backward(F.fixed_point_quantize, x, n=3, delta=0.5, ste_fine_grained=False)
    np.testing.assert_array_equal(g, np.ones(len(x)))


def test_fixed_point_unsigned_and_errors():
    # unsigned n=2, delta=0.5: levels 0 .. 1.5; negatives clamp to 0 with no gradient
    y, g = forward_backward(
        F.fixed_point_quantize, [-0.1, 0.0, 0.74, 1.7], sign=False, n=2, delta=0.5
    )
    np.testing.assert_array_equal(y, [0.0, 0.0, 0.5, 1.5])
    np.testing.assert_array_equal(g, [0, 1, 1, 0])
    with pytest.raises(ValueError, match="fixed_point_quantize"):
        F.fixed_point_quantize(Variable(np.zeros(2)), n=1)
    y32 = F.fixed_point_quantize(Variable(np.array([0.3], np.float32))).data
    assert y32.dtype == np.float32 and y32[0] == 0.3125


# ----------------------------------------------------------------------------- pow2


def test_pow2_levels_half_way_rounding_and_pruning():
    # sign, with_zero, n=4, m=1: n' = 2, levels 2^-2 .. 2^1, prune below 2^-2.5
    half_low = 2**-2.5  # log2 = -2.5 rounds away to -3 -> 2^-3 < p_min, |x| == threshold -> p_min
    x = [3.0, 2**1.5, 2.8, 1.4, 0.7, 0.3, half_low, 0.17, 0.0, -0.7, -3.0]
    y, g = forward_backward(F.pow2_quantize, x, n=4, m=1)
    np.testing.assert_array_equal(y, [2.0, 2.0, 2.0, 1.0, 0.5, 0.25, 0.25, 0.0, 0.0, -0.5, -2.0])
    # 3.0 and 2^1.5 round to 4 > 2^m: gradient cut; the pruned region passes
    np.testing.assert_array_equal(g, [0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 0])
    _, g = forward_backward(F.pow2_quantize, x, n=4, m=1, ste_fine_grained=False)
    np.testing.assert_array_equal(g, np.ones(len(x)))


def test_pow2_unsigned_variants():
    x = [-0.5, 0.0, 0.01, 0.5]
    y, g = forward_backward(F.pow2_quantize, x, sign=False, with_zero=True, n=3, m=0)
    # n' = 2: levels 2^-3 .. 1; negatives -> 0 with no gradient
    np.testing.assert_array_equal(y, [0.0, 0.0, 0.0, 0.5])
    np.testing.assert_array_equal(g, [0, 1, 1, 1])
    y, _ = forward_backward(F.pow2_quantize, x, sign=False, with_zero=False, n=3, m=0)
    # n' = 3: levels 2^-7 .. 1; negatives and zero -> p_min
    np.testing.assert_array_equal(y, [2**-7, 2**-7, 2**-7, 0.5])
    with pytest.raises(ValueError, match="pow2_quantize"):
        F.pow2_quantize(Variable(np.zeros(1)), n=2)


# ----------------------------------------------------------------------------- min-max


def _range(lo, hi, ql=(0.0, 4.0), shape=(1, 1)):
    return [Variable(np.full(shape, float(v))) for v in (lo, hi, *ql)]


def test_min_max_quantize_values_and_ste():
    x = Variable(np.array([[-1.5, -1.0, -0.76], [0.25, 0.74, 1.2]]), need_grad=True)
    qr_min, qr_max, ql_min, ql_max = _range(-1.0, 1.0)
    qr_min.need_grad = qr_max.need_grad = True
    y = F.min_max_quantize(x, qr_min, qr_max, ql_min, ql_max)
    # scale 0.5, zero point 2: levels -1, -0.5, 0, 0.5, 1; 2.5 steps rounds away to 3
    np.testing.assert_array_equal(y.data, [[-1.0, -1.0, -1.0], [0.5, 0.5, 1.0]])
    gy = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    y.backward(gy)
    np.testing.assert_array_equal(x.grad, [[0, 2, 3], [4, 5, 0]])
    np.testing.assert_array_equal(qr_min.grad, [[1.0]])  # sum of dy where x < qr_min'
    np.testing.assert_array_equal(qr_max.grad, [[6.0]])


def test_min_max_quantize_nudges_zero_point_and_range():
    x = Variable(np.array([[-0.6, 1.6, 0.1]]))
    y = F.min_max_quantize(x, *_range(-0.3, 1.7))  # zero point 0.6 -> 1: range [-0.5, 1.5]
    np.testing.assert_allclose(y.data, [[-0.5, 1.5, 0.0]])
    y = F.min_max_quantize(x, *_range(0.2, 2.2))  # zero point -0.4 <= 0 -> 0: range [0, 2]
    np.testing.assert_allclose(y.data, [[0.0, 1.5, 0.0]])
    params = _range(1.0, 1.0)
    F.min_max_quantize(x, *params)
    np.testing.assert_allclose(params[1].data, [[1.01]])  # widened in place by eps
    _, g = forward_backward(
        lambda v: F.min_max_quantize(v, *_range(-1, 1), ste_fine_grained=False), [[3.0]]
    )
    np.testing.assert_array_equal(g, [[1.0]])


def test_min_max_quantize_tracks_x_per_channel_and_ema():
    x = Variable(np.array([[0.0, -2.0, 1.0], [4.0, 2.0, 3.0]]))
    lo, hi, l0, l1 = _range(-6.0, 6.0, shape=(1, 3))
    F.min_max_quantize(x, lo, hi, l0, l1, x_min_max=True)
    np.testing.assert_allclose(lo.data, [[0.0, -2.0, 1.0]])
    np.testing.assert_allclose(hi.data, [[4.0, 2.0, 3.0]])
    lo, hi, l0, l1 = _range(-6.0, 6.0, shape=(1, 3))
    v = Variable(x.data, need_grad=True)
    lo.need_grad = True
    y = F.min_max_quantize(v, lo, hi, l0, l1, x_min_max=True, ema=True, decay=0.9)
    np.testing.assert_allclose(lo.data, 0.9 * -6.0 + 0.1 * np.array([[0.0, -2.0, 1.0]]))
    np.testing.assert_allclose(hi.data, 0.9 * 6.0 + 0.1 * np.array([[4.0, 2.0, 3.0]]))
    y.backward()
    assert lo.grad is None  # tracked ranges get no gradient
    with pytest.raises(ValueError, match="cannot take a gradient"):
        F.min_max_quantize(x, *_range(-1, 1)[:2], Variable(np.zeros((1, 1)), need_grad=True),
                           Variable(np.full((1, 1), 4.0)))  # fmt: skip


# ----------------------------------------------------------------------------- binary


def test_binary_tanh_and_sigmoid():
    x = [-1.0, -0.5, 0.0, 0.5, 1.0, 2.0]
    y, g = forward_backward(F.binary_tanh, x)
    np.testing.assert_array_equal(y, [-1, -1, -1, 1, 1, 1])
    np.testing.assert_array_equal(g, [0, 1, 1, 1, 0, 0])
    y, g = forward_backward(F.binary_sigmoid, x)
    np.testing.assert_array_equal(y, [0, 0, 0, 1, 1, 1])
    np.testing.assert_array_equal(g, [0, 0.5, 0.5, 0.5, 0, 0])


W = np.array([[0.5, -0.2], [0.0, 0.4], [-0.3, -0.1]])  # (inputs=3, outputs=2), one zero


def test_binary_connect_affine_writes_wb_and_passes_its_gradient_to_w():
    x = Variable(np.array([[1.0, 2.0, 3.0], [-1.0, 0.5, 2.0]]), need_grad=True)
    w, wb, b = Variable(W.copy(), need_grad=True), Variable(np.zeros((3, 2))), Variable(np.ones(2))
    y = F.binary_connect_affine(x, w, wb, b)
    sign = np.array([[1.0, -1.0], [1.0, 1.0], [-1.0, -1.0]])  # sign(0) = +1
    np.testing.assert_array_equal(wb.data, sign)
    np.testing.assert_allclose(y.data, x.data @ sign + 1.0)
    gy = np.array([[1.0, -1.0], [2.0, 0.5]])
    y.backward(gy)
    np.testing.assert_allclose(w.grad, x.data.T @ gy)  # no alpha, no |W| <= 1 cut
    np.testing.assert_allclose(x.grad, gy @ sign.T)
    check_function(F.binary_connect_affine, [rng.standard_normal((2, 3)), W, np.zeros((3, 2)),
                   rng.standard_normal(2)], need_grad=[True, False, False, True])  # fmt: skip


def test_binary_weight_affine_scales_by_mean_abs_per_output():
    x = Variable(np.array([[1.0, 2.0, 3.0]]), need_grad=True)
    w, wb = Variable(W.copy(), need_grad=True), Variable(np.zeros((3, 2)))
    alpha, b = Variable(np.zeros(2)), Variable(np.array([0.5, -0.5]))
    y = F.binary_weight_affine(x, w, wb, alpha, b)
    np.testing.assert_allclose(alpha.data, [0.8 / 3, 0.7 / 3])
    scaled = np.array([[1.0, -1.0], [1.0, 1.0], [-1.0, -1.0]]) * alpha.data
    np.testing.assert_allclose(y.data, x.data @ scaled + b.data)
    y.backward(np.array([[1.0, 2.0]]))
    np.testing.assert_allclose(w.grad, x.data.T @ [[1.0, 2.0]])  # without the alpha factor
    with pytest.raises(ValueError, match="alpha needs one value per output"):
        F.binary_weight_affine(x, w, wb, Variable(np.zeros(3)))


def test_binary_convolutions_match_convolution_with_binarized_weights():
    x = rng.standard_normal((2, 2, 4, 5))
    w = rng.standard_normal((3, 2, 2, 3))
    w[0, 0, 0, 0] = 0.0
    sign = np.where(w >= 0, 1.0, -1.0)
    wb = Variable(np.zeros_like(w))
    y = F.binary_connect_convolution(Variable(x), Variable(w), wb, None, pad=(1, 0))
    np.testing.assert_array_equal(wb.data, sign)
    np.testing.assert_allclose(y.data, F.convolution(Variable(x), Variable(sign), pad=(1, 0)).data)
    alpha = Variable(np.zeros(3))
    wv = Variable(w, need_grad=True)
    y = F.binary_weight_convolution(
        Variable(x), wv, Variable(np.zeros_like(w)), alpha, stride=(1, 2)
    )
    np.testing.assert_allclose(alpha.data, np.abs(w).mean(axis=(1, 2, 3)))
    scaled = sign * alpha.data[:, None, None, None]
    np.testing.assert_allclose(
        y.data, F.convolution(Variable(x), Variable(scaled), stride=(1, 2)).data
    )
    gy = rng.standard_normal(y.shape)
    y.backward(gy)
    ref = Variable(scaled, need_grad=True)
    F.convolution(Variable(x), ref, stride=(1, 2)).backward(gy)
    np.testing.assert_allclose(wv.grad, ref.grad)  # d(alpha*Wb) straight to W


@pytest.mark.parametrize(
    "fn, kwargs",
    [
        (F.fixed_point_quantize, {"n": 5, "delta": 0.25}),
        (F.pow2_quantize, {"n": 5, "m": 1}),
        (F.binary_tanh, {}),
        (F.binary_sigmoid, {}),
    ],
)
def test_quantizers_keep_float32_and_never_modify_x(fn, kwargs):
    # The STE gradient is by design not the (zero) derivative, so only forward checks here.
    check_function(fn, [rng.uniform(-3, 3, (3, 5))], kwargs=kwargs, check_grad=False)


def test_binary_weight_affine_gradients_of_x_and_bias():
    check_function(
        F.binary_weight_affine,
        [rng.standard_normal((3, 3)), W, np.zeros((3, 2)), np.zeros(2), rng.standard_normal(2)],
        need_grad=[True, False, False, False, True],
    )


def test_min_max_quantize_takes_nnc_shape_1_ranges_for_the_whole_tensor():
    """NNC's r/R/l/L connectors have shape 1: the same result and gradients as (1, 1)."""
    x = Variable(np.array([[-1.5, -1.0, -0.76], [0.25, 0.74, 1.2]]), need_grad=True)
    qr_min, qr_max, ql_min, ql_max = _range(-1.0, 1.0, shape=(1,))
    qr_min.need_grad = qr_max.need_grad = True
    y = F.min_max_quantize(x, qr_min, qr_max, ql_min, ql_max)
    np.testing.assert_array_equal(y.data, [[-1.0, -1.0, -1.0], [0.5, 0.5, 1.0]])
    y.backward(np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]))
    np.testing.assert_array_equal(qr_min.grad, [1.0])
    np.testing.assert_array_equal(qr_max.grad, [6.0])
    tracked = _range(0.0, 0.0, shape=(1,))  # x_min_max writes the range into the parameters
    F.min_max_quantize(x, *tracked, x_min_max=True)
    assert (tracked[0].data.tolist(), tracked[1].data.tolist()) == ([-1.5], [1.2])

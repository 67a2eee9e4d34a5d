import math

import numpy as np
import pytest

from engine.core.autograd import Variable
from engine.core.ops import _jit, _threads
from engine.core.ops import normalization as N
from engine.testing import check_function

RNG = np.random.default_rng(11)


def _keep_shape(shape, keep):
    return tuple(d if i in keep else 1 for i, d in enumerate(shape))


def _normalize(x, keep, eps):
    red = tuple(i for i in range(x.ndim) if i not in keep)
    m = x.mean(axis=red, keepdims=True)
    v = ((x - m) ** 2).mean(axis=red, keepdims=True)
    return (x - m) / np.sqrt(v + eps), m, v


# ---- batch normalization -------------------------------------------------------------------


def _bn_case(shape, axes):
    pshape = _keep_shape(shape, axes)
    x = RNG.standard_normal(shape) * 2 + 1
    beta, gamma = RNG.standard_normal(pshape), RNG.uniform(0.5, 1.5, pshape)
    mean, var = RNG.standard_normal(pshape), RNG.uniform(0.5, 2.0, pshape)
    return x, beta, gamma, mean, var


@pytest.mark.parametrize("shape, axes", [((3, 5, 3), (1,)), ((2, 3, 5), (1, 2)), ((3, 2, 3), (2,))])
def test_batch_normalization_training_gradient_includes_batch_statistics(shape, axes):
    _check_training_gradient(shape, axes)


def _check_training_gradient(shape, axes):
    """Batch statistics' gradients against finite differences of the plain formula."""
    x, beta, gamma, mean, var = _bn_case(shape, axes)

    def ref(x, beta, gamma, mean, var):
        return _normalize(x, axes, 1e-5)[0] * gamma + beta

    check_function(
        N.batch_normalization,
        [x, beta, gamma, mean, var],
        kwargs={"axes": list(axes)},
        reference=ref,
        need_grad=[True, True, True, False, False],
    )


@pytest.mark.parametrize("compiled", [True, False], ids=["numba", "xp"])
@pytest.mark.parametrize("axes", [(1,), (3,), (1, 2)], ids=["channels", "channel-last", "two"])
def test_batch_normalization_same_result_in_every_memory_layout(monkeypatch, axes, compiled):
    """Statistics are computed on a (kept, reduced) matrix that is a free view for a
    convolution's channels-major output and a copy otherwise: both give the same numbers, with the
    compiled CPU loops (numba) and with the xp kernel."""
    if compiled:
        pytest.importorskip("numba", reason="the compiled batch normalization needs numba")
    monkeypatch.setattr(_jit, "ENABLED", compiled)
    x = RNG.standard_normal((9, 4, 3, 5)) * 3 + 2
    pshape = _keep_shape(x.shape, axes)
    beta, gamma = RNG.standard_normal(pshape), RNG.uniform(0.5, 1.5, pshape)
    gy = RNG.standard_normal(x.shape)
    layouts = {
        "contiguous": x.copy(),
        "channels-major": np.moveaxis(np.ascontiguousarray(np.moveaxis(x, 0, -1)), -1, 0),
        "reversed": np.asfortranarray(x),
    }
    results = {}
    for name, data in layouts.items():
        assert np.array_equal(data, x)
        xv, bv, gv = Variable(data), Variable(beta), Variable(gamma)
        y = N.batch_normalization(xv, bv, gv, None, None, axes=list(axes))
        y.backward(gy)
        results[name] = (y.d, xv.g, bv.g, gv.g)
    expected = _normalize(x, axes, 1e-5)[0] * gamma + beta
    np.testing.assert_allclose(results["contiguous"][0], expected, rtol=1e-10, atol=1e-10)
    for name in ("channels-major", "reversed"):
        for got, want in zip(results[name], results["contiguous"], strict=True):
            np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_compiled_batch_normalization_matches_xp_kernel(monkeypatch, dtype):
    pytest.importorskip("numba", reason="the compiled batch normalization needs numba")
    x = (RNG.standard_normal((16, 5, 4, 3)) * 4 + 30).astype(dtype)  # a large mean
    beta, gamma = RNG.standard_normal((1, 5, 1, 1)), RNG.uniform(0.5, 1.5, (1, 5, 1, 1))
    gy = RNG.standard_normal(x.shape).astype(dtype)
    results = []
    for compiled in (True, False):
        monkeypatch.setattr(_jit, "ENABLED", compiled)
        mean, var = np.zeros((1, 5, 1, 1), dtype), np.zeros((1, 5, 1, 1), dtype)
        xv, bv, gv = Variable(x), Variable(beta.astype(dtype)), Variable(gamma.astype(dtype))
        y = N.batch_normalization(xv, bv, gv, mean, var)
        y.backward(gy)
        results.append((y.d, xv.g, bv.g, gv.g, mean, var))
    tol = 2e-4 if dtype == np.float32 else 1e-10
    for got, want in zip(*results, strict=True):
        assert got.dtype == want.dtype == dtype
        np.testing.assert_allclose(got, want, rtol=tol, atol=tol)


def test_batch_normalization_output_stat_gradients_flow_through_mean_and_variance():
    x, beta, gamma, mean, var = _bn_case((3, 5, 3), (1,))

    def ref(x, beta, gamma, mean, var):
        xhat, m, v = _normalize(x, (1,), 1e-4)
        return xhat * gamma + beta, m, v

    check_function(
        N.batch_normalization,
        [x, beta, gamma, mean, var],
        kwargs={"eps": 1e-4, "output_stat": True},
        reference=ref,
        need_grad=[True, True, True, False, False],
    )


def test_batch_normalization_inference_uses_running_statistics():
    x, beta, gamma, mean, var = _bn_case((3, 5, 3), (1,))

    def ref(x, beta, gamma, mean, var):
        return (x - mean) / np.sqrt(var + 1e-4) * gamma + beta

    check_function(
        N.batch_normalization,
        [x, beta, gamma, mean, var],
        kwargs={"eps": 1e-4, "batch_stat": False},
        reference=ref,
        need_grad=[True, True, True, False, False],
    )
    m, v = Variable(mean.copy()), Variable(var.copy())
    N.batch_normalization(Variable(x), Variable(beta), Variable(gamma), m, v, batch_stat=False)
    np.testing.assert_array_equal(m.data, mean)
    np.testing.assert_array_equal(v.data, var)


@pytest.mark.parametrize(
    "layout", ["nchw", "channel-last view", "batch-last (direct convolution)", "4-d axes (1, 3)"]
)
@pytest.mark.parametrize("affine", [True, False])
def test_batch_normalization_inference_without_gradients_equals_the_recorded_path(layout, affine):
    """Without gradients (evaluate, forward) test mode broadcasts in x's own layout; it computes
    the same operations element for element as the path that records for backward, so the
    numbers are identical, and the output keeps x's memory order (no copy for the next layer)."""
    if layout == "nchw":
        x = RNG.standard_normal((4, 6, 5, 7)).astype(np.float32) * 3 + 2
        axes = (1,)
    elif layout == "channel-last view":  # NCHW shape over NHWC memory, as a transposed result
        x = (RNG.standard_normal((4, 5, 7, 6)).astype(np.float32) * 3 + 2).transpose(0, 3, 1, 2)
        axes = (1,)
    elif layout.startswith("batch-last"):  # CHWN memory: the rows are a free view (compiled)
        x = (RNG.standard_normal((6, 5, 7, 16)).astype(np.float32) * 3 + 2).transpose(3, 0, 1, 2)
        axes = (1,)
    else:
        x = RNG.standard_normal((3, 4, 5, 6)).astype(np.float32)
        axes = (1, 3)
    pshape = _keep_shape(x.shape, axes)
    beta = RNG.standard_normal(pshape).astype(np.float32) if affine else None
    gamma = RNG.uniform(0.5, 1.5, pshape).astype(np.float32) if affine else None
    mean = RNG.standard_normal(pshape).astype(np.float32)
    var = RNG.uniform(0.5, 2.0, pshape).astype(np.float32)

    def run(need_grad):
        args = [Variable(a, need_grad=need_grad) if a is not None else None
                for a in (x, beta, gamma)]  # fmt: skip
        return N.batch_normalization(*args, Variable(mean), Variable(var), axes=axes, eps=1e-4,
                                     batch_stat=False)  # fmt: skip

    fast, recorded = run(False), run(True)
    assert not fast.need_grad and fast.creator is None and recorded.creator is not None
    np.testing.assert_array_equal(fast.data, recorded.data)
    ref = (x - mean) / np.sqrt(var + np.float32(1e-4))
    if affine:
        ref = ref * gamma + beta
    np.testing.assert_allclose(fast.data, ref, rtol=1e-5, atol=1e-5)
    assert fast.data.dtype == np.float32
    assert np.argsort(fast.data.strides).tolist() == np.argsort(x.strides).tolist()


def test_batch_normalization_running_statistics_hand_computed():
    # channel 0: [1, 2, 6] -> mean 3, biased var 14/3, unbiased 7
    # channel 1: [0, 0, 3] -> mean 1, biased var 2,    unbiased 3
    x = Variable(np.array([[1.0, 0.0], [2.0, 0.0], [6.0, 3.0]], dtype=np.float32))
    mean = Variable(np.zeros((1, 2), dtype=np.float32))
    var = Variable(np.ones((1, 2), dtype=np.float32))
    beta, gamma = Variable(np.zeros((1, 2))), Variable(np.ones((1, 2)))
    y = N.batch_normalization(
        x, beta.data.astype(np.float32), gamma.data.astype(np.float32), mean, var, eps=1e-4
    )
    np.testing.assert_allclose(mean.data, [[0.3, 0.1]], rtol=1e-6)
    np.testing.assert_allclose(var.data, [[0.9 + 0.1 * 7, 0.9 + 0.1 * 3]], rtol=1e-6)
    assert mean.data.dtype == np.float32 and y.data.dtype == np.float32
    np.testing.assert_allclose(
        y.data[:, 0], (np.array([1, 2, 6]) - 3) / math.sqrt(14 / 3 + 1e-4), rtol=1e-5
    )
    # a second call keeps averaging: rm = 0.9 * 0.3 + 0.1 * 3
    N.batch_normalization(x, None, None, mean, var, decay_rate=0.5)
    np.testing.assert_allclose(mean.data, [[0.5 * 0.3 + 0.5 * 3, 0.5 * 0.1 + 0.5 * 1]], rtol=1e-6)


def test_batch_normalization_spatial_count_in_unbiased_variance():
    # n = batch * spatial = 2 * 2 = 4: values 0, 2, 4, 6 -> biased var 5, unbiased 20/3
    x = Variable(np.array([[[0.0, 2.0]], [[4.0, 6.0]]]))  # (B=2, C=1, W=2)
    mean, var = Variable(np.zeros((1, 1, 1))), Variable(np.zeros((1, 1, 1)))  # NNC initial var 0
    N.batch_normalization(x, None, None, mean, var, decay_rate=0.9)
    np.testing.assert_allclose(mean.data.ravel(), [0.3])
    np.testing.assert_allclose(var.data.ravel(), [0.1 * 20 / 3])


def test_batch_normalization_without_parameters_and_with_flat_parameters():
    x, _, _, _, _ = _bn_case((3, 5, 3), (1,))
    check_function(
        lambda x: N.batch_normalization(x, None, None, None, None),
        [x],
        reference=lambda x: _normalize(x, (1,), 1e-5)[0],
    )
    beta, gamma = RNG.standard_normal(5), RNG.uniform(0.5, 1.5, 5)  # (C,) for (1, C, 1)
    check_function(
        lambda x, b, g: N.batch_normalization(x, b, g, None, None),
        [x, beta, gamma],
        reference=lambda x, b, g: (
            _normalize(x, (1,), 1e-5)[0] * g.reshape(1, 5, 1) + b.reshape(1, 5, 1)
        ),
    )


def test_batch_normalization_errors_name_the_argument():
    x = Variable(np.zeros((2, 3, 4)))
    with pytest.raises(ValueError, match=r"gamma must have shape \(1, 3, 1\).*gamma.shape=\(4,\)"):
        N.batch_normalization(x, None, np.ones(4), None, None)
    with pytest.raises(ValueError, match="batch_stat=False needs the running mean and variance"):
        N.batch_normalization(x, None, None, None, None, batch_stat=False)
    with pytest.raises(
        ValueError, match=r"axes must be distinct axes of a 3-D input. Received: axes=\[3\]"
    ):
        N.batch_normalization(x, None, None, None, None, axes=[3])


def test_fused_batch_normalization_adds_z_and_applies_relu():
    x, beta, gamma, mean, var = _bn_case((3, 5, 3), (1,))
    z = RNG.standard_normal(x.shape)

    def ref(x, beta, gamma, mean, var, z):
        return np.maximum(_normalize(x, (1,), 1e-5)[0] * gamma + beta + z, 0.0)

    check_function(
        N.fused_batch_normalization,
        [x, beta, gamma, mean, var, z],
        reference=ref,
        need_grad=[True, True, True, False, False, True],
    )
    check_function(
        lambda x, b, g, m, v: N.fused_batch_normalization(x, b, g, m, v, batch_stat=False),
        [x, beta, gamma, mean, var],
        reference=lambda x, b, g, m, v: np.maximum((x - m) / np.sqrt(v + 1e-5) * g + b, 0.0),
        need_grad=[True, True, True, False, False],
    )


def test_fused_batch_normalization_updates_running_statistics():
    x = Variable(np.array([[1.0], [2.0], [6.0]]))
    mean, var = Variable(np.zeros((1, 1))), Variable(np.ones((1, 1)))
    N.fused_batch_normalization(x, None, None, mean, var)
    np.testing.assert_allclose([mean.data[0, 0], var.data[0, 0]], [0.3, 1.6])
    with pytest.raises(ValueError, match="nonlinearity must be 'relu'"):
        N.fused_batch_normalization(x, None, None, mean, var, nonlinearity="tanh")


def test_tensor_normalization_keeps_the_given_axes():
    x = RNG.standard_normal((2, 3, 5))
    check_function(
        lambda x: N.tensor_normalization(x, [0, 1]),
        [x],
        reference=lambda x: _normalize(x, (0, 1), 1e-5)[0],
    )


# ---- layer, instance and group normalization ----------------------------------------------


def test_layer_normalization_per_sample_with_elementwise_affine():
    x = RNG.standard_normal((3, 2, 5))
    beta, gamma = RNG.standard_normal((1, 2, 5)), RNG.uniform(0.5, 1.5, (1, 2, 5))

    def ref(x, beta, gamma):
        xhat, m, v = _normalize(x, (0,), 1e-5)
        return xhat * gamma + beta, m, v

    y, m, v = check_function(
        N.layer_normalization, [x, beta, gamma], kwargs={"output_stat": True}, reference=ref
    )
    assert m.shape == (3, 1, 1) and v.shape == (3, 1, 1)
    np.testing.assert_allclose(((y - beta) / gamma).mean(axis=(1, 2)), 0.0, atol=1e-12)


def test_layer_normalization_without_parameters():
    x = RNG.standard_normal((3, 5))
    check_function(
        lambda x: N.layer_normalization(x, None, None),
        [x],
        reference=lambda x: _normalize(x, (0,), 1e-5)[0],
    )


@pytest.mark.parametrize("param_shape", [(1, 3, 1), (2, 3, 1), (3,)])
def test_instance_normalization(param_shape):
    x = RNG.standard_normal((2, 3, 5))
    beta, gamma = RNG.standard_normal(param_shape), RNG.uniform(0.5, 1.5, param_shape)

    def ref(x, beta, gamma):
        shape = param_shape if len(param_shape) == 3 else (1, 3, 1)
        return _normalize(x, (0, 1), 1e-5)[0] * gamma.reshape(shape) + beta.reshape(shape)

    check_function(N.instance_normalization, [x, beta, gamma], reference=ref)


def test_instance_normalization_channel_last():
    x = RNG.standard_normal((2, 5, 3))
    beta, gamma = RNG.standard_normal((1, 1, 3)), RNG.uniform(0.5, 1.5, (1, 1, 3))
    check_function(
        N.instance_normalization,
        [x, beta, gamma],
        kwargs={"channel_axis": 2},
        reference=lambda x, b, g: _normalize(x, (0, 2), 1e-5)[0] * g + b,
    )


def test_group_normalization_statistics_over_channel_groups():
    x = RNG.standard_normal((2, 4, 3))
    beta, gamma = RNG.standard_normal((1, 4, 1)), RNG.uniform(0.5, 1.5, (1, 4, 1))

    def ref(x, beta, gamma):
        xhat, m, v = _normalize(x.reshape(2, 2, 2, 3), (0, 1), 1e-5)
        return xhat.reshape(x.shape) * gamma + beta, m, v

    _, m, _ = check_function(
        N.group_normalization,
        [x, beta, gamma],
        kwargs={"num_groups": 2, "output_stat": True},
        reference=ref,
    )
    assert m.shape == (2, 2, 1, 1)
    with pytest.raises(ValueError, match="channel size 4 must be a multiple of num_groups"):
        N.group_normalization(Variable(x), None, None, 3)


def test_group_normalization_hand_value():
    # one sample, 2 groups of 1 channel with 2 values each: each group normalizes to -1, +1
    x = Variable(np.array([[[1.0, 3.0], [10.0, 20.0]]]))
    y = N.group_normalization(x, None, None, 2, eps=0.0)
    np.testing.assert_allclose(y.data, [[[-1.0, 1.0], [-1.0, 1.0]]])


# ---- weight re-parametrizations -----------------------------------------------------------


@pytest.mark.parametrize("channel_axis", [0, 1])
def test_weight_standardization(channel_axis):
    w = RNG.standard_normal((3, 5, 2))
    check_function(
        N.weight_standardization,
        [w],
        kwargs={"channel_axis": channel_axis},
        reference=lambda w: _normalize(w, (channel_axis,), 1e-5)[0],
    )


@pytest.mark.parametrize("dim", [0, 2])
def test_weight_normalization(dim):
    w = RNG.standard_normal((3, 2, 5))
    g = RNG.uniform(0.5, 2.0, w.shape[dim])

    def ref(w, g):
        axes = tuple(i for i in range(3) if i != dim)
        shape = tuple(d if i == dim else 1 for i, d in enumerate(w.shape))
        return g.reshape(shape) * w / np.sqrt((w * w).sum(axis=axes, keepdims=True) + 1e-12)

    check_function(N.weight_normalization, [w, g], kwargs={"dim": dim}, reference=ref)


def test_weight_normalization_hand_value():
    w = Variable(np.array([[3.0, 4.0], [0.0, 2.0]]))
    y = N.weight_normalization(w, Variable(np.array([10.0, 1.0])))
    np.testing.assert_allclose(y.data, [[6.0, 8.0], [0.0, 1.0]])


@pytest.mark.parametrize("p, axes", [(None, None), (1.0, (1,)), (3.0, (0, 2)), (1.5, None)])
def test_norm_normalization(p, axes):
    x = RNG.standard_normal((2, 3, 5))
    x[np.abs(x) < 0.05] += 0.1  # keep |x|^(p-1) sign(x) smooth for finite differences

    def ref(x):
        q = 2.0 if p is None else p
        return x / ((np.abs(x) ** q).sum(axis=axes, keepdims=True) + 1e-12) ** (1 / q)

    check_function(N.norm_normalization, [x], kwargs={"p": p, "axes": axes}, reference=ref)


def test_norm_normalization_hand_value():
    y = N.norm_normalization(Variable(np.array([[3.0, 4.0], [1.0, -1.0]])), axes=[1])
    np.testing.assert_allclose(y.data, [[0.6, 0.8], [1 / math.sqrt(2), -1 / math.sqrt(2)]])


# ---- spectral normalization -----------------------------------------------------------------


def _nnabla_spectral_norm(w, u, dim, itr, eps=1e-12):
    """nnabla's two code paths written out (spectral_norm.cpp), returning (w_sn, u)."""
    if (
        dim == w.ndim - 1
    ):  # "outer most dim": u has w.shape[-1] elements and multiplies W on the right
        mat = w.reshape(-1, w.shape[-1])
        col = u.reshape(-1, 1)
        for _ in range(itr):
            v = mat @ col
            v = (v / np.sqrt((v**2).sum() + eps)).reshape(1, -1)
            col = v @ mat
            col = (col / np.sqrt((col**2).sum() + eps)).reshape(-1, 1)
        sigma = (v @ mat @ col).item()
        return w / sigma, col.ravel()
    moved = np.moveaxis(w, dim, 0)
    mat = moved.reshape(moved.shape[0], -1)
    row = u.reshape(1, -1)
    for _ in range(itr):
        v = row @ mat
        v = (v / np.sqrt((v**2).sum() + eps)).reshape(-1, 1)
        row = (mat @ v).reshape(1, -1)
        row = row / np.sqrt((row**2).sum() + eps)
    sigma = (row @ mat @ v).item()
    return w / sigma, row.ravel()


@pytest.mark.parametrize("shape, dim", [((3, 4), 0), ((3, 4, 2), 1), ((3, 2, 4), 2)])
def test_spectral_norm_matches_nnabla_power_iteration(shape, dim):
    w = RNG.standard_normal(shape)
    u = RNG.standard_normal(shape[dim])
    check_function(
        N.spectral_norm,
        [w, u],
        kwargs={"dim": dim, "itr": 2},
        reference=lambda w, u: _nnabla_spectral_norm(w, u, dim, 2)[0],
        check_grad=False,
    )
    uv = Variable(u.copy())
    y = N.spectral_norm(Variable(w), uv, dim=dim, itr=2)
    w_sn, u_new = _nnabla_spectral_norm(w, u, dim, 2)
    np.testing.assert_allclose(y.data, w_sn, rtol=1e-12)
    np.testing.assert_allclose(uv.data, u_new, rtol=1e-12)  # updated in place


def test_spectral_norm_test_mode_keeps_u_and_converged_sigma_is_largest_singular_value():
    w = np.array([[3.0, 0.0, 0.0], [0.0, 1.0, 0.0]])
    u = Variable(np.array([1.0, 1.0]))
    y = N.spectral_norm(Variable(w), u, itr=30, test=True)
    np.testing.assert_array_equal(u.data, [1.0, 1.0])
    np.testing.assert_allclose(y.data, w / 3.0, rtol=1e-9)
    y, u_out = N.spectral_norm(Variable(w), u, itr=30, output_u=True)
    np.testing.assert_allclose(np.abs(u.data), [1.0, 0.0], atol=1e-9)
    np.testing.assert_allclose(u_out.data, u.data)


@pytest.mark.parametrize("shape, dim", [((3, 4), 0), ((3, 4, 2), 1)])
def test_spectral_norm_gradient_at_converged_u(shape, dim):
    # u, v are constants for the gradient (nnabla); at a converged u that is the true derivative
    w = RNG.standard_normal(shape)
    moved = np.moveaxis(w, dim, 0)
    left = np.linalg.svd(moved.reshape(moved.shape[0], -1))[0][:, 0]
    check_function(
        N.spectral_norm,
        [w, left],
        kwargs={"dim": dim, "itr": 3, "test": True},
        need_grad=[True, False],
        grad_atol=1e-6,
    )


def _bn_training(x, beta, gamma, gy):
    mean, var = np.zeros(beta.shape, x.dtype), np.zeros(beta.shape, x.dtype)
    xv, bv, gv = Variable(x, need_grad=True), Variable(beta), Variable(gamma)
    y = N.batch_normalization(xv, bv, gv, mean, var)
    y.backward(gy)
    return [y.d, xv.g, bv.g, gv.g, mean, var]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_compiled_batch_normalization_gives_the_same_bytes_split_between_threads(
    monkeypatch, split_everything, dtype
):
    """The channels shared between two threads (forward statistics, backward sums and input
    gradient): each channel is still summed by one thread in one order, so the bytes equal
    one thread's."""
    pytest.importorskip("numba", reason="the compiled batch normalization needs numba")
    x = (RNG.standard_normal((16, 7, 5, 3)) * 4 + 30).astype(dtype)
    beta, gamma = (RNG.standard_normal((1, 7, 1, 1)).astype(dtype) for _ in range(2))
    gy = RNG.standard_normal(x.shape).astype(dtype)
    split = _bn_training(x, beta, gamma, gy)
    assert set(split_everything) == {"forward", "backward"}
    monkeypatch.setattr(_threads, "count", lambda: 1)
    one = _bn_training(x, beta, gamma, gy)
    for got, want in zip(split, one, strict=True):
        assert got.dtype == want.dtype == dtype
        assert got.tobytes() == want.tobytes()


def test_batch_normalization_gradient_split_between_threads_matches_finite_differences(
    split_everything,
):
    pytest.importorskip("numba", reason="the compiled batch normalization needs numba")
    _check_training_gradient((4, 6, 3, 2), (1,))
    assert split_everything  # the compiled kernels ran, split (numba installed)

import numpy as np
import pytest

import engine.nn as nn
import engine.nn.functions as F
import engine.nn.parametric as PF
from engine.core import backend
from engine.nn import initializer as I


@pytest.fixture(autouse=True)
def _fresh_parameters():
    nn.clear_parameters()
    yield
    nn.clear_parameters()


def _x(*shape, seed=0):
    return nn.Variable(np.random.default_rng(seed).standard_normal(shape).astype(np.float32))


def _params():
    return {k: (v.shape, v.need_grad) for k, v in nn.get_parameters(grad_only=False).items()}


def _init_of(name):
    return nn.get_parameter_info(nn.get_parameter(name)).initializer


def test_nnc_names_inside_the_layer_scope():
    x = _x(2, 3, 5, 5)
    with nn.parameter_scope("Convolution_2"):
        PF.convolution(x, 4, (3, 3))
    PF.convolution(x, 4, (3, 3), name="Convolution_3")
    assert _params() == {
        "Convolution_2/conv/W": ((4, 3, 3, 3), True), "Convolution_2/conv/b": ((4,), True),
        "Convolution_3/conv/W": ((4, 3, 3, 3), True), "Convolution_3/conv/b": ((4,), True),
    }  # fmt: skip


def test_affine_matches_matrix_product_and_default_initializers():
    x = _x(2, 3, 4)
    y = PF.affine(x, (2, 5), name="Affine")
    w, b = nn.get_parameter("Affine/affine/W"), nn.get_parameter("Affine/affine/b")
    assert w.shape == (12, 2, 5) and b.shape == (2, 5)
    assert type(_init_of("Affine/affine/W")) is I.NormalAffineGlorot
    np.testing.assert_array_equal(b.data, np.zeros((2, 5)))
    expected = x.data.reshape(2, 12) @ w.data.reshape(12, 10)
    np.testing.assert_allclose(y.data, expected.reshape(2, 2, 5), rtol=1e-5)


def test_affine_default_weight_std_is_normal_affine_glorot():
    PF.affine(_x(2, 300), 200, name="A")
    w = backend.to_numpy(nn.get_parameter("A/affine/W").data)
    assert w.std() == pytest.approx(np.sqrt(2 / 500), rel=0.02)


def test_same_scope_shares_parameters_and_gradients_accumulate():
    x = _x(2, 3)
    y1 = PF.affine(x, 4, name="Shared")
    y2 = PF.affine(x, 4, name="Shared")
    np.testing.assert_array_equal(y1.data, y2.data)
    (y1 + y2).backward()
    w = nn.get_parameter("Shared/affine/W")
    np.testing.assert_allclose(w.grad, 2 * x.data.T @ np.ones((2, 4)), rtol=1e-5)
    with pytest.raises(ValueError, match="Shared/affine/W"):
        PF.affine(_x(2, 5), 4, name="Shared")


def test_fix_parameters_gives_no_gradient_but_keeps_the_flag():
    x = _x(2, 3)
    PF.affine(x, 2, name="A", fix_parameters=True).backward()
    w = nn.get_parameter("A/affine/W")
    assert w.need_grad and w.grad is None


def test_lr_mult_zero_freezes_like_nnc():
    x = _x(2, 3)
    PF.affine(x, 2, name="A", lr_mult={"W": 0.0})
    PF.affine(x, 2, name="B", lr_mult=2.0)
    assert set(nn.get_parameters()) == {"A/affine/b", "B/affine/W", "B/affine/b"}
    assert nn.get_lr_multipliers() == {
        "A/affine/W": 0.0, "A/affine/b": 1.0, "B/affine/W": 2.0, "B/affine/b": 2.0,
    }  # fmt: skip


def test_convolution_calls_f_with_its_parameters_and_glorot_default():
    x = _x(2, 4, 6, 5)
    y = PF.convolution(x, 6, (3, 3), pad=(1, 1), stride=(2, 1), group=2, name="C")
    w, b = nn.get_parameter("C/conv/W"), nn.get_parameter("C/conv/b")
    assert w.shape == (6, 2, 3, 3) and type(_init_of("C/conv/W")) is I.NormalConvolutionGlorot
    ref = F.convolution(x, w, b, 1, (1, 1), (2, 1), None, 2)
    np.testing.assert_array_equal(y.data, ref.data)
    assert y.shape == (2, 6, 3, 5)


def test_convolution_channel_last_weight_layout():
    x = _x(2, 5, 5, 3)
    y = PF.convolution(x, 4, (3, 2), channel_last=True, name="C")
    assert nn.get_parameter("C/conv/W").shape == (4, 3, 2, 3)
    assert type(_init_of("C/conv/W")) is I.NormalCLConvGlorot
    assert y.shape == (2, 3, 4, 4)


def test_convolution_weight_std_is_glorot_with_kernel():
    PF.convolution(_x(1, 16, 3, 3), 64, (3, 3), name="C")
    w = backend.to_numpy(nn.get_parameter("C/conv/W").data)
    assert w.std() == pytest.approx(np.sqrt(2 / (9 * (16 + 64))), rel=0.03)


def test_convolution_group_must_divide_channels():
    with pytest.raises(ValueError, match="group=2 must divide the 3 input channels"):
        PF.convolution(_x(1, 3, 4, 4), 4, (3, 3), group=2)


def test_depthwise_convolution_and_deconvolutions():
    x = _x(2, 3, 6, 6)
    y = PF.depthwise_convolution(x, (3, 3), multiplier=2, name="DW")
    assert nn.get_parameter("DW/depthwise_conv/W").shape == (6, 3, 3) and y.shape == (2, 6, 4, 4)
    z = PF.deconvolution(x, 4, (2, 2), stride=(2, 2), name="D")
    assert nn.get_parameter("D/deconv/W").shape == (3, 4, 2, 2) and z.shape == (2, 4, 12, 12)
    assert type(_init_of("D/deconv/W")) is I.NormalConvolutionHeForward
    zz = PF.deconvolution(x, 4, (2, 2), group=1, output_padding=(1, 1), stride=(2, 2), name="D2")
    assert zz.shape == (2, 4, 13, 13)
    u = PF.depthwise_deconvolution(_x(2, 4, 3, 3), (3, 3), divisor=2, name="DD")
    assert nn.get_parameter("DD/depthwise_deconv/W").shape == (4, 3, 3)
    assert nn.get_parameter("DD/depthwise_deconv/b").shape == (2,) and u.shape == (2, 2, 5, 5)


def test_embed_uniform_default():
    idx = nn.Variable(np.array([[0, 3], [2, 2]]))
    y = PF.embed(idx, 50, (4, 5), name="E")
    w = nn.get_parameter("E/embed/W")
    assert w.shape == (50, 4, 5) and y.shape == (2, 2, 4, 5)
    assert -1 <= float(w.data.min()) and float(w.data.max()) <= 1 and float(w.data.std()) > 0.5
    np.testing.assert_array_equal(y.data[1, 0], w.data[2])


def test_batch_normalization_parameters_follow_nnc():
    x = _x(4, 3, 2, 2)
    PF.batch_normalization(x, name="BN")
    p = {k.split("/")[-1]: v for k, v in nn.get_parameters(grad_only=False).items()}
    assert {k: v.shape for k, v in p.items()} == {
        k: (1, 3, 1, 1) for k in ("beta", "gamma", "mean", "var")
    }
    np.testing.assert_array_equal(p["beta"].data.ravel(), [0, 0, 0])
    np.testing.assert_array_equal(p["gamma"].data.ravel(), [1, 1, 1])
    assert not p["mean"].need_grad and not p["var"].need_grad
    assert nn.get_lr_multiplier(p["var"]) == 0.0
    # one training step moved the running statistics from NNC's initial 0: var ← 0.1·unbiased var
    unbiased = x.data.transpose(1, 0, 2, 3).reshape(3, -1).var(axis=1, ddof=1)
    np.testing.assert_allclose(p["var"].data.ravel(), 0.1 * unbiased, rtol=1e-5)
    assert set(nn.get_parameters()) == {"BN/bn/beta", "BN/bn/gamma"}


def test_batch_normalization_no_scale_no_bias_and_param_init():
    x = _x(4, 3, 2)
    PF.batch_normalization(x, no_scale=True, param_init={"beta": I.Constant(0.5)}, name="BN")
    assert set(_params()) == {"BN/bn/beta", "BN/bn/mean", "BN/bn/var"}
    np.testing.assert_array_equal(nn.get_parameter("BN/bn/beta").data.ravel(), [0.5] * 3)


def test_fused_batch_normalization_uses_the_bn_scope():
    y = PF.fused_batch_normalization(_x(4, 3, 2, 2), name="FBN")
    assert set(_params()) == {f"FBN/bn/{p}" for p in ("beta", "gamma", "mean", "var")}
    assert float(y.data.min()) >= 0


def test_layer_instance_group_normalization_shapes():
    x = _x(2, 4, 3, 3)
    PF.layer_normalization(x, name="LN")
    PF.instance_normalization(x, name="IN")
    y = PF.group_normalization(x, 2, name="GN")
    shapes = {k: v[0] for k, v in _params().items()}
    assert shapes["LN/layer_normalization/gamma"] == (1, 4, 3, 3)
    assert shapes["IN/instance_normalization/beta"] == (1, 4, 1, 1)
    assert shapes["GN/group_normalization/gamma"] == (1, 4, 1, 1)
    groups = y.data.reshape(2, 2, -1)
    np.testing.assert_allclose(groups.mean(axis=2), 0, atol=1e-5)


def test_weight_and_spectral_normalization_parameters():
    w = nn.get_parameter_or_create("W", (5, 3), I.NormalAffineGlorot())
    wn = PF.weight_normalization(w, dim=1, name="WN")
    np.testing.assert_allclose(np.linalg.norm(wn.data, axis=0), np.ones(3), rtol=1e-5)
    sn = PF.spectral_norm(w, dim=0, itr=20, name="SN")
    u = nn.get_parameter("SN/sn/u")
    assert u.shape == (5,) and not u.need_grad
    assert np.linalg.svd(sn.data, compute_uv=False)[0] == pytest.approx(1.0, rel=1e-3)


def test_prelu_slope_default_and_gradient():
    x = nn.Variable(np.array([[-2.0, 3.0], [1.0, -4.0]], np.float32))
    y = PF.prelu(x, shared=False, name="P")
    np.testing.assert_allclose(y.data, [[-0.5, 3.0], [1.0, -1.0]])
    y.backward()
    np.testing.assert_allclose(nn.get_parameter("P/prelu/slope").grad, [-2.0, -4.0])
    PF.prelu(x, name="Q")
    assert nn.get_parameter("Q/prelu/slope").shape == ()


def test_binary_layers_names_defaults_and_training_flags():
    x = _x(2, 3, 4, 4)
    PF.binary_connect_affine(x, 5, name="BCA")
    PF.binary_weight_affine(x, 5, name="BWA")
    PF.binary_connect_convolution(x, 2, (3, 3), name="BCC")
    y = PF.binary_weight_convolution(x, 2, (3, 3), name="BWC")
    p = _params()
    assert p["BCA/bicon_affine/W"] == ((48, 5), True) and p["BCA/bicon_affine/Wb"] == (
        (48, 5),
        False,
    )
    assert p["BWA/bwn_affine/alpha"] == ((5,), False) and p["BWA/bwn_affine/b"] == ((5,), True)
    assert p["BCC/bicon_conv/Wb"] == ((2, 3, 3, 3), False) and "BWC/bwn_conv/alpha" in p
    assert type(_init_of("BCC/bicon_conv/W")) is I.UniformConvolutionGlorot
    w = nn.get_parameter("BWC/bwn_conv/W").data
    np.testing.assert_allclose(
        nn.get_parameter("BWC/bwn_conv/alpha").data,
        np.abs(w).reshape(2, -1).mean(axis=1),
        rtol=1e-6,
    )
    assert y.shape == (2, 2, 2, 2)


def test_min_max_quantize_scope_and_ranges():
    x = _x(2, 3)
    y = PF.min_max_quantize(x, name="Q")
    p = {k: v for k, v in nn.get_parameters(grad_only=False).items()}
    assert p["Q/min_max_quantize/qr_min"].data.ravel()[0] == -6.0
    assert p["Q/min_max_quantize/ql_max"].data.ravel()[0] == 255.0
    assert not p["Q/min_max_quantize/ql_min"].need_grad and p["Q/min_max_quantize/qr_max"].need_grad
    # scale = 12/255; the zero point 127.5 is nudged to 128, so the grid starts at -128·scale
    scale = 12.0 / 255
    levels = (y.data + 128 * scale) / scale
    np.testing.assert_allclose(levels, np.round(levels), atol=1e-3)
    np.testing.assert_allclose(y.data, x.data, atol=scale / 2 + 1e-6)


def test_mean_subtraction_buffers():
    x = _x(3, 2, 2)
    y = PF.mean_subtraction(x, name="M")
    assert _params() == {
        "M/mean_subtraction/mean": ((2, 2), False),
        "M/mean_subtraction/t": ((1,), False),
    }
    np.testing.assert_allclose(y.data, x.data - x.data.mean(axis=0), rtol=1e-5, atol=1e-6)


def test_training_an_mlp_with_adam_reduces_the_loss():
    import engine.nn.solvers as S

    rng = np.random.default_rng(1)
    xs = rng.standard_normal((32, 4)).astype(np.float32)
    ts = (xs @ np.array([[1.0], [-2.0], [0.5], [0.0]], np.float32)).astype(np.float32)
    x, t = nn.Variable(xs), nn.Variable(ts)

    def loss():
        h = F.tanh(PF.affine(x, 8, name="fc1"))
        return F.mean(F.squared_error(PF.affine(h, 1, name="fc2"), t))

    first = float(loss().data)  # creates the parameters
    solver = S.Adam(alpha=0.05)
    solver.set_parameters(nn.get_parameters())
    assert len(solver.get_parameters()) == 4
    for _ in range(60):
        solver.zero_grad()
        loss().backward()
        solver.update()
    assert float(loss().data) < 0.1 * first

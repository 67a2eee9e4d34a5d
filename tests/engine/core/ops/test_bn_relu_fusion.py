"""ReLU's gradient folded into batch normalization's backward passes (issue 33).

A ReLU whose input comes from batch normalization's compiled loops hands its gradient on
deferred (``autograd.DeferredGrad``); the normalization masks it in its own two passes instead
of a ReLU pass writing ``gz * (y > 0)`` out for them to read back. The mask is applied as the
ReLU pass computes it, so the numbers are the same to the byte; the deferred gradient is
computed wherever anything else needs it (a second user of y, ``retain_grad``, a layer that
cannot take it)."""

import sys
from pathlib import Path

import numpy as np
import pytest

import engine.nn.functions as F
from engine.core.autograd import Variable
from engine.core.ops import _elementwise_cpu, _threads
from engine.core.ops import arithmetic as A
from engine.core.ops import normalization as N
from engine.testing import check_function

pytest.importorskip("numba", reason="the compiled batch normalization needs numba")

from engine.core.ops import _batchnorm_cpu  # noqa: E402 - after the skip

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "benchmarks"))
import _cnn_nets  # noqa: E402 - the benchmark's networks

RNG = np.random.default_rng(33)


@pytest.fixture
def relu_passes(monkeypatch):
    """The number of ReLU gradient passes run (the compiled loop's calls)."""
    calls = []
    grad = _elementwise_cpu.relu_grad
    monkeypatch.setattr(
        _elementwise_cpu, "relu_grad", lambda x, gy: calls.append(x.shape) or grad(x, gy)
    )
    return calls


def _unfused(monkeypatch):
    """Batch normalization no longer offers to take a ReLU's gradient: the separate passes."""
    monkeypatch.setattr(N.BatchNormalization, "takes_deferred", False)


def _case(dtype, shape=(16, 5, 4, 3)):
    x = (RNG.standard_normal(shape) * 3 + 1).astype(dtype)
    pshape = (1, shape[1], 1, 1)
    beta = RNG.standard_normal(pshape).astype(dtype)
    gamma = RNG.uniform(-1.5, 1.5, pshape).astype(dtype)  # negative too: the mask flips
    gz = RNG.standard_normal(shape).astype(dtype)
    return x, beta, gamma, gz


def _bn_relu(x, beta, gamma, gz, extra=None, retain=False):
    """Gradients of ``relu(bn(x))`` (plus ``extra(y)`` when given) for the output gradient gz."""
    mean, var = np.zeros(beta.shape, x.dtype), np.zeros(beta.shape, x.dtype)
    xv = Variable(x, need_grad=True)
    bv, gv = Variable(beta, need_grad=True), Variable(gamma, need_grad=True)
    y = N.batch_normalization(xv, bv, gv, mean, var)
    z = F.relu(y)
    if extra is not None:
        z = z + extra(y)
    z.backward(gz, retain_grad=retain)
    out = [z.d, xv.g, bv.g, gv.g, mean, var]
    return out + ([y.g] if retain else [])


def _same_bytes(got, want):
    """The same bytes; a nan's sign bit (which carries no meaning) aside."""
    assert len(got) == len(want)
    for a, b in zip(got, want, strict=True):
        assert a.dtype == b.dtype and a.shape == b.shape
        nan = np.isnan(a)
        assert np.array_equal(nan, np.isnan(b))
        assert a[~nan].tobytes() == b[~nan].tobytes()


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_relu_after_batch_normalization_runs_no_gradient_pass_of_its_own(
    monkeypatch, relu_passes, dtype
):
    x, beta, gamma, gz = _case(dtype)
    fused = _bn_relu(x, beta, gamma, gz)
    assert relu_passes == []  # the mask was applied inside batch normalization's passes
    _unfused(monkeypatch)
    separate = _bn_relu(x, beta, gamma, gz)
    assert relu_passes == [x.shape]
    _same_bytes(fused, separate)
    # and the numbers are the gradient: the masked gz through the plain formulas (float64)
    y = np.asarray(fused[0])
    g = gz.astype(np.float64) * (y > 0)
    n = x.shape[0] * x.shape[2] * x.shape[3]
    red = (0, 2, 3)
    m = x.astype(np.float64).mean(axis=red, keepdims=True)
    c = x - m
    inv = 1 / np.sqrt((c * c).mean(axis=red, keepdims=True) + 1e-5)
    xhat = c * inv
    gx = gamma * inv * (g - g.sum(axis=red, keepdims=True) / n
                        - xhat * (g * xhat).sum(axis=red, keepdims=True) / n)  # fmt: skip
    tol = 2e-4 if dtype == np.float32 else 1e-10
    np.testing.assert_allclose(fused[1], gx, rtol=tol, atol=tol)
    np.testing.assert_allclose(fused[2], g.sum(axis=red, keepdims=True), rtol=tol, atol=tol)
    np.testing.assert_allclose(fused[3], (g * xhat).sum(axis=red, keepdims=True), rtol=tol,
                               atol=tol)  # fmt: skip


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(5, 37), (3, 16), (7, 1), (2, 300)])
def test_masked_backward_kernel_gives_the_bytes_of_the_two_passes(dtype, shape):
    """Odd row lengths (vector remainders), zeros and negative zeros in y, nan and inf in the
    gradient: ``relu_grad`` then ``backward`` against ``backward(..., relu_of=y)``."""
    x = (RNG.standard_normal(shape) * 2 + 5).astype(dtype)
    gamma = RNG.uniform(-1.5, 1.5, shape[0]).astype(dtype)
    beta = RNG.standard_normal(shape[0]).astype(dtype)
    y, _, _, _, stats = _batchnorm_cpu.forward(x, gamma, beta, 1e-5)
    y.flat[::7] = 0.0
    y.flat[3::11] = -0.0
    gz = RNG.standard_normal(shape).astype(dtype)
    if shape[0] > 2:  # nan and inf in two rows (they make a row's sums nan), the others finite
        gz[1, ::3] = np.nan
        gz[2, ::2] = np.inf
        gz[2, 1::4] = -np.inf
    separate = _batchnorm_cpu.backward(x, _elementwise_cpu.relu_grad(y, gz), stats, gamma, True)
    fused = _batchnorm_cpu.backward(x, gz, stats, gamma, True, relu_of=y)
    _same_bytes(fused, separate)
    # no input gradient wanted: the sums alone, the same too
    sums = _batchnorm_cpu.backward(x, gz, stats, gamma, False, relu_of=y)
    assert sums[0] is None
    _same_bytes(sums[1:], separate[1:])


def test_batch_normalization_then_relu_gradient_matches_finite_differences():
    """float64, values kept away from ReLU's kink (finite differences straddling it are
    meaningless), the compiled path (numba) taken."""
    x = RNG.standard_normal((8, 3, 2, 2)) * 2 + 1
    beta = np.array([0.3, -0.2, 0.1]).reshape(1, 3, 1, 1)
    gamma = np.array([1.2, -0.8, 0.9]).reshape(1, 3, 1, 1)
    y = N.batch_normalization(Variable(x), Variable(beta), Variable(gamma), None, None).d
    assert np.abs(y).min() > 1e-3  # this seed keeps every y off the kink

    def fn(x, beta, gamma):
        return F.relu(N.batch_normalization(x, beta, gamma, None, None))

    def ref(x, beta, gamma):
        m = x.mean(axis=(0, 2, 3), keepdims=True)
        v = ((x - m) ** 2).mean(axis=(0, 2, 3), keepdims=True)
        return np.maximum((x - m) / np.sqrt(v + 1e-5) * gamma + beta, 0)

    check_function(fn, [x, beta, gamma], reference=ref, float32=False)


def test_a_second_user_of_the_normalized_output_gets_the_computed_gradient(
    monkeypatch, relu_passes
):
    """y feeds the ReLU and a product: the deferred gradient is computed to be summed with
    the product's (the ReLU pass runs), and every gradient equals the unfused path's."""
    x, beta, gamma, gz = _case(np.float32)
    both = _bn_relu(x, beta, gamma, gz, extra=lambda y: y * 2.0)
    assert relu_passes == [x.shape]
    _unfused(monkeypatch)
    _same_bytes(both, _bn_relu(x, beta, gamma, gz, extra=lambda y: y * 2.0))


def test_retain_grad_keeps_the_computed_gradient_of_the_normalized_output(monkeypatch):
    x, beta, gamma, gz = _case(np.float32)
    fused = _bn_relu(x, beta, gamma, gz, retain=True)
    y = fused[0]
    assert isinstance(fused[-1], np.ndarray)
    assert fused[-1].tobytes() == (gz * (y > 0)).astype(np.float32).tobytes()
    _unfused(monkeypatch)
    _same_bytes(fused, _bn_relu(x, beta, gamma, gz, retain=True))


def test_relu_after_fused_batch_normalization_is_not_deferred(relu_passes):
    """FusedBatchNormalization's output is relu(bn(x) + z), not the y the mask needs."""
    x, beta, gamma, gz = _case(np.float64, (4, 3, 2, 2))
    xv = Variable(x, need_grad=True)
    h = N.fused_batch_normalization(xv, Variable(beta), Variable(gamma), None, None)
    h2 = F.relu(h - 0.5)  # a ReLU on it (through a shift, so its mask differs from h's)
    h3 = F.relu(N.fused_batch_normalization(h2, Variable(beta), Variable(gamma), None, None))
    h3.backward(gz)
    assert len(relu_passes) == 2  # both ReLUs computed their own gradients
    got = xv.g.copy()

    def fn(x):
        h = N.fused_batch_normalization(x, Variable(beta), Variable(gamma), None, None)
        return F.relu(N.fused_batch_normalization(F.relu(h - 0.5), Variable(beta),
                                                  Variable(gamma), None, None))  # fmt: skip

    # finite differences of the composed function, component by component
    eps, want = 1e-6, np.zeros_like(x)
    for i in range(x.size):
        d = np.zeros_like(x)
        d.flat[i] = eps
        up, down = fn(Variable(x + d)).d, fn(Variable(x - d)).d
        want.flat[i] = ((up - down) * gz).sum() / (2 * eps)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)


def _residual(a, b, c, gz, unfused_bn=False):
    """Gradients of ``relu(bn(a) + bn(b)) + relu(bn(a) + c)`` (c a leaf, broadcast)."""
    av, bv, cv = (Variable(v, need_grad=True) for v in (a, b, c))
    ya = N.batch_normalization(av, None, None, None, None)
    yb = N.batch_normalization(bv, None, None, None, None)
    z = F.relu(ya + yb) + F.relu(ya + cv)
    z.backward(gz)
    return [z.d, av.g, bv.g, cv.g]


def test_relu_after_an_add_masks_in_both_normalizations(monkeypatch, relu_passes):
    """A residual block's relu(bn(a) + bn(b)): the gradient passes the add deferred and both
    normalizations mask it; where it meets a second user of y (the second ReLU's path) or a
    broadcast leaf (c, (1, C, 1, 1)) it is computed. Same bytes as the separate passes."""
    a, _, _, gz = _case(np.float32)
    b = _case(np.float32)[0]
    c = RNG.standard_normal((1, a.shape[1], 1, 1)).astype(np.float32)
    both = _residual(a, b, c, gz)
    assert relu_passes == [a.shape, a.shape]  # computed for y_a's sum and for c, once each
    relu_passes.clear()
    z = F.relu(
        N.batch_normalization(Variable(a, need_grad=True), None, None, None, None)
        + N.batch_normalization(Variable(b, need_grad=True), None, None, None, None)
    )
    z.backward(gz)
    assert relu_passes == []  # relu(bn(a) + bn(b)) alone: no pass
    _unfused(monkeypatch)
    monkeypatch.setattr(A.Add2, "fuses_relu_grad", False)
    relu_passes.clear()
    _same_bytes(both, _residual(a, b, c, gz))
    assert relu_passes == [a.shape, a.shape]


@pytest.mark.parametrize(
    "net", [_cnn_nets.resnet, _cnn_nets.mobilenet], ids=["resnet", "mobilenet"]
)
def test_training_steps_give_the_bytes_of_the_separate_passes(monkeypatch, relu_passes, net):
    before = _threads.count()
    _threads.set_count(1)
    try:
        fused = _cnn_nets.adam_steps(net)
        fused_passes = len(relu_passes)
        _unfused(monkeypatch)
        separate = _cnn_nets.adam_steps(net)
    finally:
        _threads.set_count(before)
    # every ReLU follows a BN, or an add of two (ResNet-style's residual blocks): none runs
    assert fused_passes == 0 and len(relu_passes) > 0
    assert fused.keys() == separate.keys() and len(fused) > 10
    assert [name for name in fused if fused[name] != separate[name]] == []

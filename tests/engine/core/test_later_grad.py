"""A convolution's weight gradient computed by the pool thread while the backward walk goes on
(:class:`engine.core.autograd.LaterGrad`): the same bytes as computed in place, summed into its
leaf in the walk's order, never handed to a caller outside a walk, and no thread left writing
when the walk fails."""

import numpy as np
import pytest

import engine.nn.functions as F
from engine.core import autograd
from engine.core.autograd import Function, Variable

pytest.importorskip("numba", reason="the direct convolution's kernels are numba's")

from engine.core.ops import _direct_conv, _later, _threads  # noqa: E402 - after the skip

LANES = _direct_conv._compile()["lanes"]
RNG = np.random.default_rng(7)


@pytest.fixture
def two_threads(monkeypatch):
    """BLAS (so the kernels) on two threads; gives the LaterGrads made."""
    before = _threads.count()
    _threads.set_count(2)
    made = []
    real = autograd.LaterGrad.__init__

    def init(self, *args):
        made.append(self)
        real(self, *args)

    monkeypatch.setattr(autograd.LaterGrad, "__init__", init)
    yield made
    _threads.set_count(before)


def _shared_weight_grads(x, w, v):
    """Gradients of a loss using the weight ``w`` in two convolutions and in a plain product
    between them (so the leaf gets direct-kernel and plain gradients, interleaved)."""
    xs = Variable(x)
    wv, vv = Variable(w, need_grad=True), Variable(v, need_grad=True)
    h = F.relu(F.convolution(xs, wv, None, pad=(1, 1)))
    h = F.convolution(h * F.sum(wv * vv), wv, None, pad=(1, 1))
    loss = F.sum(h * h)
    loss.backward(clear_buffer=True)
    return wv.g, vv.g


def test_a_weight_used_three_times_gets_the_in_place_bytes(monkeypatch, two_threads):
    x = RNG.standard_normal((LANES, 6, 9, 9)).astype(np.float32)
    w = (RNG.standard_normal((6, 6, 3, 3)) * 0.2).astype(np.float32)
    v = RNG.standard_normal((6, 6, 3, 3)).astype(np.float32)
    later = _shared_weight_grads(x, w, v)
    assert len(two_threads) == 2  # both convolutions' weight gradients went to the pool
    assert all(g.future.done() for g in two_threads)
    monkeypatch.setattr(autograd, "walking", lambda: False)  # computed in place, split
    in_place = _shared_weight_grads(x, w, v)
    assert len(two_threads) == 2
    for got, want in zip(later, in_place, strict=True):
        assert got.tobytes() == want.tobytes()


def test_outside_a_walk_the_backward_gives_arrays(two_threads):
    x = Variable(RNG.standard_normal((LANES, 4, 7, 7)).astype(np.float32))
    w = Variable(RNG.standard_normal((5, 4, 3, 3)).astype(np.float32), need_grad=True)
    y = F.convolution(x, w, None, pad=(1, 1))
    gx, gw = y.creator.backward(np.ones(y.shape, np.float32))
    assert two_threads == [] and not autograd.walking()
    assert type(gw) is np.ndarray and gw.shape == w.shape


class _Fails(Function):
    def forward(self, x):
        return x.copy()

    def backward(self, gy):
        raise RuntimeError("this layer's backward failed")


def test_a_failing_walk_leaves_no_thread_writing_and_no_gradient(two_threads):
    x = Variable(RNG.standard_normal((LANES, 4, 7, 7)).astype(np.float32), need_grad=True)
    w = Variable(RNG.standard_normal((5, 4, 3, 3)).astype(np.float32), need_grad=True)
    loss = F.sum(F.convolution(_Fails()(x), w, None, pad=(1, 1)))
    with pytest.raises(RuntimeError, match="backward failed"):
        loss.backward()
    assert len(two_threads) == 1 and two_threads[0].future.done()
    assert w.grad is None and x.grad is None
    assert not autograd.walking()  # the next walk starts clean


def test_one_thread_computes_in_place(monkeypatch):
    before = _threads.count()
    _threads.set_count(1)
    made = []
    monkeypatch.setattr(autograd, "LaterGrad", lambda *a: made.append(a))
    try:
        x = Variable(RNG.standard_normal((LANES, 4, 7, 7)).astype(np.float32))
        w = Variable(RNG.standard_normal((5, 4, 3, 3)).astype(np.float32), need_grad=True)
        F.sum(F.convolution(x, w, None, pad=(1, 1))).backward()
    finally:
        _threads.set_count(before)
    assert made == [] and type(w.g) is np.ndarray


def test_a_computed_weight_gets_its_gradient_at_once(two_threads):
    """A weight made by other layers (scaled, quantized...) needs its gradient in the walk:
    no LaterGrad, which the walk would only wait for."""
    x = Variable(RNG.standard_normal((LANES, 4, 7, 7)).astype(np.float32))
    w = Variable(RNG.standard_normal((5, 4, 3, 3)).astype(np.float32), need_grad=True)
    F.sum(F.convolution(x, w * 0.5, None, pad=(1, 1))).backward()
    assert two_threads == []
    assert type(w.g) is np.ndarray and np.abs(w.g).sum() > 0


def _depthwise_grads(x, w):
    xs, wv = Variable(x, need_grad=True), Variable(w, need_grad=True)
    h = F.depthwise_convolution(xs, wv, None, pad=(1, 1))
    F.sum(h * h).backward(clear_buffer=True)
    return xs.g, wv.g


def test_a_depthwise_weight_gradient_gets_the_in_place_bytes(monkeypatch, two_threads):
    x = RNG.standard_normal((2 * LANES, 8, 9, 9)).astype(np.float32)
    w = RNG.standard_normal((8, 3, 3)).astype(np.float32)
    later = _depthwise_grads(x, w)
    assert len(two_threads) == 1 and two_threads[0].shape == w.shape
    monkeypatch.setattr(_later, "LATER", False)  # computed in place, split
    in_place = _depthwise_grads(x, w)
    assert len(two_threads) == 1
    for got, want in zip(later, in_place, strict=True):
        assert got.tobytes() == want.tobytes()

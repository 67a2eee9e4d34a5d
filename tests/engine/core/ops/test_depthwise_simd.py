"""The vector (SIMD) kernels of the direct depthwise convolution (float32, batches of whole
vectors) against the generic im2col + batched GEMM path on odd shapes, and their gradients
against finite differences."""

import numpy as np
import pytest

import engine.nn.functions as F
from engine.core.autograd import Variable

pytest.importorskip("numba", reason="the direct depthwise kernels need numba")

from engine.core.ops import _depthwise, _jit, _later, _threads  # noqa: E402 - after the skip

RNG = np.random.default_rng(11)
LANES = _depthwise._compile()["lanes"]
VECTOR_KERNELS = ("vforward", "vinput_grad", "vweight_grad")

# batch in vectors, (C, H, W), kernel (kh, kw), conv keywords
CASES = [
    (2, (3, 8, 8), (3, 3), {"pad": (1, 1), "stride": (2, 2)}),  # MobileNet's stride-2 layer
    (1, (4, 7, 5), (3, 3), {"pad": (1, 1)}),  # odd sizes, stride 1
    (3, (2, 9, 6), (3, 2), {"pad": (1, 0), "stride": (2, 1), "dilation": (1, 2)}),
    (1, (2, 7, 4), (3, 3), {"pad": (1, 1), "stride": (3, 2)}),  # rows no tap reaches
    (1, (2, 2, 3), (3, 2), {"pad": (3, 2)}),  # windows wholly in the padding
    (1, (3, 5, 5), (5, 5), {"pad": (2, 2), "dilation": (2, 2)}),  # 5x5 dilated
]
IDS = ["stride-2", "stride-1-odd", "dilated-strided", "stride-3", "pad-beyond", "5x5"]


def _run(monkeypatch, enabled, x, w, b, kw):
    monkeypatch.setattr(_jit, "ENABLED", enabled)
    xv, wv, bv = Variable(x, need_grad=True), Variable(w, need_grad=True), Variable(b)
    y = F.depthwise_convolution(xv, wv, bv, **kw)
    y.backward(np.cos(np.arange(y.size)).reshape(y.shape).astype(np.float32))
    return y.d, xv.g, wv.g, bv.g


def _spy(monkeypatch):
    """Records which vector kernels run."""
    calls = []
    kernels = _depthwise._compile()
    for name in VECTOR_KERNELS:
        real = kernels[name]
        monkeypatch.setitem(
            kernels, name, lambda *a, real=real, name=name: calls.append(name) or real(*a)
        )
    return calls


@pytest.mark.parametrize("nv, xs, k, kw", CASES, ids=IDS)
def test_vector_kernels_equal_the_generic_path(monkeypatch, nv, xs, k, kw):
    x = RNG.standard_normal((nv * LANES, *xs)).astype(np.float32)
    w = RNG.standard_normal((xs[0], *k)).astype(np.float32)
    b = RNG.standard_normal(xs[0]).astype(np.float32)
    calls = _spy(monkeypatch)
    vector = _run(monkeypatch, True, x, w, b, kw)
    assert sorted(set(calls)) == sorted(VECTOR_KERNELS)
    calls.clear()
    generic = _run(monkeypatch, False, x, w, b, kw)
    assert not calls
    for got, want in zip(vector, generic, strict=True):
        assert got.dtype == np.float32
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5 * max(1.0, np.abs(want).max()))


def test_non_contiguous_input_and_a_batch_off_the_vectors(monkeypatch):
    """A transposed (non-contiguous) input takes the vector kernels after the layout copy; a
    batch that is not a whole number of vectors (and float64) keeps the scalar loops."""
    xs = (4, 6, 6)
    base = RNG.standard_normal((xs[1], LANES, xs[0], xs[2])).astype(np.float32)
    x = base.transpose(1, 2, 0, 3)  # (N, C, H, W), not contiguous
    w = RNG.standard_normal((xs[0], 3, 3)).astype(np.float32)
    b = np.zeros(xs[0], np.float32)
    kw = {"pad": (1, 1), "stride": (2, 1)}
    calls = _spy(monkeypatch)
    vector = _run(monkeypatch, True, x, w, b, kw)
    assert sorted(set(calls)) == sorted(VECTOR_KERNELS)
    generic = _run(monkeypatch, False, np.ascontiguousarray(x), w, b, kw)
    for got, want in zip(vector, generic, strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    calls.clear()
    for xx in (x[: LANES - 1], x.astype(np.float64)):  # batch off the vectors; float64
        _run(monkeypatch, True, xx, w.astype(xx.dtype), b.astype(xx.dtype), kw)
    assert not calls


@pytest.mark.parametrize("split", [False, True], ids=["one-thread", "split"])
def test_vector_kernel_gradients_match_finite_differences(request, split):
    """The convolution is linear in x and in w, so central differences are exact up to float32
    rounding even with a step of 1: every weight and 40 input entries are checked; also with
    the channels shared between two threads."""
    if split:
        request.getfixturevalue("split_everything")
    n, xs, kw = LANES, (2, 7, 6), {"pad": (1, 1), "stride": (2, 2), "dilation": (1, 2)}
    x = RNG.standard_normal((n, *xs)).astype(np.float32)
    w = RNG.standard_normal((xs[0], 3, 3)).astype(np.float32)
    xv, wv = Variable(x, need_grad=True), Variable(w, need_grad=True)
    y = F.depthwise_convolution(xv, wv, None, **kw)
    r = RNG.standard_normal(y.shape).astype(np.float32)
    y.backward(r)

    def objective(xa, wa):
        out = F.depthwise_convolution(Variable(xa), Variable(wa), None, **kw).d
        return float(np.sum(out.astype(np.float64) * r))

    def central(a, i, f):
        up, down = a.copy(), a.copy()
        up.reshape(-1)[i] += 1.0
        down.reshape(-1)[i] -= 1.0
        return (f(up) - f(down)) / 2.0

    gw = [central(w, i, lambda wa: objective(x, wa)) for i in range(w.size)]
    np.testing.assert_allclose(wv.g.reshape(-1), gw, rtol=1e-3, atol=1e-3)
    picks = RNG.choice(x.size, 40, replace=False)
    gx = [central(x, i, lambda xa: objective(xa, w)) for i in picks]
    np.testing.assert_allclose(xv.g.reshape(-1)[picks], gx, rtol=1e-3, atol=1e-3)


def test_vector_kernels_split_between_threads_give_one_threads_bytes(monkeypatch, split_everything):
    """Forward, input and weight gradients with the channels shared between two threads against
    one thread: each channel is computed whole by one call, so the bytes agree."""
    nv, xs, k, kw = CASES[0]
    xs = (7, *xs[1:])  # an odd channel count: uneven chunks
    x = RNG.standard_normal((nv * LANES, *xs)).astype(np.float32)
    w = RNG.standard_normal((xs[0], *k)).astype(np.float32)
    b = RNG.standard_normal(xs[0]).astype(np.float32)
    later = _run(monkeypatch, True, x, w, b, kw)  # the weight gradient whole on the pool thread
    assert set(split_everything) >= {"forward", "input_grad", "submit"}
    monkeypatch.setattr(_later, "LATER", False)
    split_everything.clear()
    split = _run(monkeypatch, True, x, w, b, kw)  # ... or its channels split in place
    assert set(split_everything) >= {"forward", "input_grad", "weight_grad"}
    monkeypatch.setattr(_threads, "count", lambda: 1)
    one = _run(monkeypatch, True, x, w, b, kw)
    for got, want, other in zip(split, one, later, strict=True):
        assert got.tobytes() == want.tobytes() == other.tobytes()

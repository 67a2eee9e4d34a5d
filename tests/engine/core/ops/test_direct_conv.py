"""The register-blocked direct convolution (numba + explicit SIMD vectors) against the generic
im2col + GEMM path it stands in for, on odd shapes, through the layers users call (convolution
and deconvolution); and its gradients against finite differences."""

import os
import subprocess
import sys

import numpy as np
import pytest

import engine.nn.functions as F
from engine.core.autograd import Variable

pytest.importorskip("numba", reason="the direct convolution kernels need numba")

from engine.core.ops import (  # noqa: E402 - after the skip
    _aligned,
    _batchnorm_cpu,
    _direct_conv,
    _jit,
    _later,
    _threads,
)

RNG = np.random.default_rng(5)
LANES = _direct_conv._compile()["lanes"]

# (batch in vectors, C, H, W), (maps, kh, kw), pad, stride, dilation
GEOMETRIES = [
    ((2, 3, 8, 8), (16, 3, 3), (1, 1), (1, 1), (1, 1)),  # a stem
    ((1, 5, 7, 6), (7, 3, 3), (1, 1), (1, 1), (1, 1)),  # maps and widths off the 4-tiles
    ((3, 4, 9, 9), (6, 3, 3), (1, 1), (2, 2), (1, 1)),  # stride 2: four phases
    ((1, 3, 10, 8), (4, 2, 2), (0, 0), (3, 3), (1, 1)),  # stride 3 > kernel: phases no tap reaches
    ((1, 2, 8, 7), (5, 3, 2), (2, 0), (1, 2), (2, 1)),  # asymmetric, dilated, strided across
    ((1, 3, 5, 5), (9, 5, 5), (2, 2), (1, 1), (1, 1)),  # 5x5
    ((2, 6, 4, 4), (13, 3, 3), (0, 0), (1, 1), (1, 1)),  # no padding
    ((1, 2, 4, 5), (3, 5, 4), (3, 3), (2, 3), (1, 1)),  # windows wider than the image
]
IDS = ["stem", "odd-maps", "stride-2", "gaps", "dilated", "5x5", "valid", "pad-beyond"]


def _arrays(xs, ws, bias, channel_last=False):
    x = RNG.standard_normal(xs).astype(np.float32)
    w = RNG.standard_normal(ws).astype(np.float32)
    b = RNG.standard_normal(ws[0]).astype(np.float32) if bias else None
    if channel_last:
        x, w = np.moveaxis(x, 1, -1).copy(), np.moveaxis(w, 1, -1).copy()
    return x, w, b


def _forward_backward(monkeypatch, enabled, x, w, b, kwargs, need_x=True):
    monkeypatch.setattr(_jit, "ENABLED", enabled)
    vs = [Variable(x, need_grad=need_x), Variable(w, need_grad=True)]
    if b is not None:
        vs.append(Variable(b, need_grad=True))
    y = F.convolution(*vs, **kwargs) if b is not None else F.convolution(*vs, None, **kwargs)
    y.backward(np.cos(np.arange(y.size)).reshape(y.shape).astype(np.float32))
    return [y.d] + [v.g if v.need_grad else None for v in vs]


@pytest.mark.parametrize("xs, ws, pad, stride, dil", GEOMETRIES, ids=IDS)
@pytest.mark.parametrize("bias", [False, True], ids=["no-bias", "bias"])
def test_direct_convolution_equals_the_generic_path(monkeypatch, xs, ws, pad, stride, dil, bias):
    xs = (xs[0] * LANES, *xs[1:])
    ws = (ws[0], xs[1], *ws[1:])
    x, w, b = _arrays(xs, ws, bias)
    calls = []
    for name in ("forward", "input_grad", "weight_grad"):
        real = getattr(_direct_conv, name)
        monkeypatch.setattr(
            _direct_conv,
            name,
            lambda *a, real=real, name=name, **k: calls.append(name) or real(*a, **k),
        )
    kwargs = {"pad": pad, "stride": stride, "dilation": dil}
    direct = _forward_backward(monkeypatch, True, x, w, b, kwargs)
    assert set(calls) == {"forward", "input_grad", "weight_grad"}
    calls.clear()
    generic = _forward_backward(monkeypatch, False, x, w, b, kwargs)
    assert not calls
    for got, want in zip(direct, generic, strict=True):
        scale = max(1.0, float(np.abs(want).max()))
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4 * scale)


def test_direct_convolution_channel_last_and_without_input_gradient(monkeypatch):
    xs, ws = (LANES, 4, 6, 6), (10, 4, 3, 3)
    x, w, b = _arrays(xs, ws, True, channel_last=True)
    kwargs = {"pad": (1, 1), "channel_last": True}
    for need_x in (True, False):
        direct = _forward_backward(monkeypatch, True, x, w, b, kwargs, need_x)
        generic = _forward_backward(monkeypatch, False, x, w, b, kwargs, need_x)
        assert direct[0].shape == (LANES, 6, 6, 10)
        for got, want in zip(direct, generic, strict=True):
            if want is None:
                assert got is None
            else:
                np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-3)


@pytest.mark.parametrize(
    "n, group, dtype, taken",
    [
        (LANES, 1, np.float32, True),
        (LANES + 1, 1, np.float32, False),  # the batch does not fill whole vectors
        (LANES, 2, np.float32, False),  # grouped
        (LANES, 1, np.float64, False),
    ],
    ids=["taken", "ragged-batch", "grouped", "float64"],
)
def test_only_what_the_kernels_serve_takes_them(monkeypatch, n, group, dtype, taken):
    calls = []
    real = _direct_conv.forward
    monkeypatch.setattr(_direct_conv, "forward", lambda *a: calls.append(1) or real(*a))
    x = Variable(RNG.standard_normal((n, 4, 5, 5)).astype(dtype))
    w = Variable(RNG.standard_normal((4, 4 // group, 3, 3)).astype(dtype))
    y = F.convolution(x, w, None, pad=(1, 1), group=group)
    assert bool(calls) == taken
    monkeypatch.setattr(_jit, "ENABLED", False)
    want = F.convolution(x, w, None, pad=(1, 1), group=group)
    np.testing.assert_allclose(y.d, want.d, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("stride", [1, 2], ids=["stride-1", "stride-2"])
@pytest.mark.parametrize("split", [False, True], ids=["one-thread", "split"])
def test_direct_convolution_gradients_match_finite_differences(request, split, stride):
    """Stride 2: the input gradient's four phases, each written by the kernel straight into
    its cells of the gradient (through an output-offset table, no copy)."""
    if split:  # maps, phases and the padding copy shared between two threads
        request.getfixturevalue("split_everything")
    # float32 kernels, so central differences in float64 of the float32 forward, with a step
    # large enough for float32 rounding; every weight and a sample of input cells.
    xs, ws = (LANES, 2, 5, 4), (5, 2, 3, 3)
    x = RNG.standard_normal(xs).astype(np.float32)
    w = RNG.standard_normal(ws).astype(np.float32)
    kw = {"pad": (1, 1), "stride": (stride, stride)}
    probe = RNG.standard_normal(F.convolution(Variable(x), Variable(w), None, **kw).shape)
    probe = probe.astype(np.float32)

    def loss(xa, wa):
        y = F.convolution(Variable(xa), Variable(wa), None, **kw)
        return float(np.sum(y.d.astype(np.float64) * probe))

    xv, wv = Variable(x, need_grad=True), Variable(w, need_grad=True)
    y = F.convolution(xv, wv, None, **kw)
    y.backward(probe)
    eps = 1e-2
    for grad, array, index in [(wv.g, w, i) for i in np.ndindex(ws)] + [
        (xv.g, x, tuple(RNG.integers(0, s) for s in xs)) for _ in range(40)
    ]:
        plus, minus = array.copy(), array.copy()
        plus[index] += eps
        minus[index] -= eps
        args = (plus, w) if array is x else (x, plus)
        margs = (minus, w) if array is x else (x, minus)
        numeric = (loss(*args) - loss(*margs)) / (2 * eps)
        assert abs(grad[index] - numeric) <= 2e-2 * max(1.0, abs(numeric)), index


# (batch in vectors, C, H, W), (outmaps, kh, kw), pad, stride, dilation, output_padding
DECONVOLUTIONS = [
    ((1, 4, 5, 5), (6, 3, 3), (1, 1), (1, 1), (1, 1), (0, 0)),
    ((2, 3, 4, 6), (5, 4, 4), (1, 1), (2, 2), (1, 1), (0, 0)),  # DCGAN's upsampling
    ((1, 2, 3, 4), (7, 3, 2), (1, 0), (2, 3), (1, 1), (1, 2)),  # output padding
    ((1, 3, 4, 4), (4, 3, 3), (2, 1), (1, 2), (2, 1), (1, 0)),  # dilated, padding < dilation
]


@pytest.mark.parametrize("xs, ws, pad, stride, dil, out_pad", DECONVOLUTIONS)
@pytest.mark.parametrize("channel_last", [False, True], ids=["nchw", "nhwc"])
def test_direct_deconvolution_equals_the_generic_path(
    monkeypatch, xs, ws, pad, stride, dil, out_pad, channel_last
):
    xs = (xs[0] * LANES, *xs[1:])
    x, w, _ = _arrays(xs, (xs[1], ws[0], *ws[1:]), False)  # weight (inmaps, outmaps, *k)
    b = RNG.standard_normal(ws[0]).astype(np.float32)
    if channel_last:
        x, w = np.moveaxis(x, 1, -1).copy(), np.moveaxis(w, 1, -1).copy()
    calls = []
    real = _direct_conv.input_grad
    monkeypatch.setattr(_direct_conv, "input_grad", lambda *a: calls.append(1) or real(*a))
    kwargs = {"pad": pad, "stride": stride, "dilation": dil, "output_padding": out_pad}
    results = []
    for enabled in (True, False):
        monkeypatch.setattr(_jit, "ENABLED", enabled)
        vs = [Variable(a, need_grad=True) for a in (x, w, b)]
        y = F.deconvolution(*vs, channel_last=channel_last, **kwargs)
        y.backward(np.cos(np.arange(y.size)).reshape(y.shape).astype(np.float32))
        results.append([y.d] + [v.g for v in vs])
        assert bool(calls) == enabled
        calls.clear()
    for got, want in zip(*results, strict=True):
        scale = max(1.0, float(np.abs(want).max()))
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4 * scale)


NARROW_CHECK = """
import numpy as np
import engine.nn.functions as F
from engine.core.autograd import Variable
from engine.core.ops import _direct_conv, _jit
lanes = _direct_conv._compile()["lanes"]
rng = np.random.default_rng(0)
worst = 0.0
for fn, xs, ws, kw in [
    (F.convolution, (3 * lanes, 5, 7, 6), (7, 5, 3, 3), {"pad": (1, 1)}),
    (F.convolution, (2 * lanes, 3, 9, 8), (6, 3, 3, 3), {"pad": (1, 1), "stride": (2, 2)}),
    (F.deconvolution, (lanes, 5, 4, 5), (5, 6, 4, 4), {"pad": (1, 1), "stride": (2, 2)}),
    # the depthwise vector kernels (_depthwise_cpu) use the same vectors
    (F.depthwise_convolution, (2 * lanes, 4, 7, 6), (4, 3, 3), {"pad": (1, 1), "stride": (2, 2)}),
]:
    x = rng.standard_normal(xs).astype(np.float32)
    w = rng.standard_normal(ws).astype(np.float32)
    got = []
    for enabled in (True, False):
        _jit.ENABLED = enabled
        vx, vw = Variable(x, need_grad=True), Variable(w, need_grad=True)
        y = fn(vx, vw, None, **kw)
        y.backward(np.cos(np.arange(y.size)).reshape(y.shape).astype(np.float32))
        got.append((y.d, vx.g, vw.g))
    for a, b in zip(*got):
        worst = max(worst, float(np.abs(a - b).max() / max(1.0, np.abs(b).max())))
print(lanes, worst)
"""


@pytest.mark.parametrize("lanes", [8, 4], ids=["avx2-width", "neon-width"])
def test_kernels_built_for_narrower_registers_compute_the_same(tmp_path, lanes):
    # What an AVX2 laptop (8 lanes) or an ARM machine (4) compiles; this machine runs both.
    env = {**os.environ, "NEUROCANVAS_SIMD_LANES": str(lanes), "NUMBA_CACHE_DIR": str(tmp_path)}
    done = subprocess.run(
        [sys.executable, "-c", NARROW_CHECK], env=env, capture_output=True, text=True, check=True
    )
    used, worst = done.stdout.split()
    assert int(used) == lanes and float(worst) < 1e-4


def _misaligned(a):
    """A C-contiguous copy of ``a`` starting 4 bytes past a 64-byte boundary."""
    buf = _aligned.aligned_empty((a.size + 16,), a.dtype)
    out = buf[1 : 1 + a.size].reshape(a.shape)
    out[...] = a
    assert out.ctypes.data % 64 != 0
    return out


def test_kernels_take_misaligned_inputs_and_hand_out_aligned_outputs():
    """The kernels' arrays start on cache lines (64 bytes: whole AVX-512 vectors per line);
    inputs that do not (NumPy's own buffers start 16 bytes past one) are copied, with the same
    results, and batch normalization's input gradient (the output gradient of the convolution
    before it) is allocated aligned."""
    n, c, o, h = LANES, 3, 5, 6
    x = RNG.standard_normal((c, h, h, n)).astype(np.float32)
    w = RNG.standard_normal((o, c, 3, 3)).astype(np.float32)
    gy = RNG.standard_normal((o, h, h, n)).astype(np.float32)
    xp = _direct_conv.padded(_misaligned(x), (1, 1))
    assert xp.ctypes.data % 64 == 0
    # Independent reference: direct sums over the padded windows.
    win = np.lib.stride_tricks.sliding_window_view(xp, (3, 3), axis=(1, 2))  # c, h, h, n, 3, 3
    want_y = np.einsum("cijnab,ocab->oijn", win, w)
    want_gw = np.einsum("oijn,cijnab->ocab", gy, win)
    g2 = gy[:, ::2, ::2]  # the output gradient of the same layer at stride 2 (3x3 outputs)
    gxp = np.zeros((c, h + 2, h + 2, n), np.float32)
    for a in range(3):
        for b in range(3):
            gxp[:, a : a + h : 2, b : b + h : 2] += np.einsum("oijn,oc->cijn", g2, w[:, :, a, b])
    for xin, gin, g2in in (
        (xp, gy, np.ascontiguousarray(g2)),
        (_misaligned(xp), _misaligned(gy), g2),  # g2: neither aligned nor contiguous
    ):
        y = _direct_conv.forward(xin, w, (1, 1), (1, 1), (h, h))
        gw = _direct_conv.weight_grad(xin, gin, (3, 3), (1, 1), (1, 1))
        gx = _direct_conv.input_grad(np.ascontiguousarray(g2in), w, (h, h), (1, 1), (2, 2), (1, 1))
        assert y.ctypes.data % 64 == 0 and gx.ctypes.data % 64 == 0
        np.testing.assert_allclose(y, want_y, rtol=1e-4, atol=1e-4)
        np.testing.assert_allclose(gw, want_gw, rtol=1e-4, atol=1e-3)
        np.testing.assert_allclose(gx, gxp[:, 1:-1, 1:-1], rtol=1e-4, atol=1e-4)
    bn = _batchnorm_cpu.backward(
        _misaligned(x.reshape(c, -1)), gy[:c].reshape(c, -1), np.zeros((2, c)), None, True
    )
    assert bn[0].ctypes.data % 64 == 0


def test_batch_normalization_backward_of_a_batch_of_one_is_exactly_zero():
    """Batch statistics over one sample: every x equals its mean, every output the same, so
    the input gradient is 0 exactly (NNC's VAT sample writes it as its noise); the float32
    coefficients of the compiled backward must cancel to 0, as the float64 ones did."""
    x = RNG.normal(size=(6, 1)).astype(np.float32)  # 6 channels, one value each
    g = RNG.normal(size=(6, 1)).astype(np.float32) * 1e3
    gamma = RNG.normal(size=6).astype(np.float32)
    _, _, _, _, stats = _batchnorm_cpu.forward(x, gamma, np.zeros(6, np.float32), 1e-5)
    gx = _batchnorm_cpu.backward(x, g, stats, gamma, True)[0]
    assert not np.any(gx)


@pytest.mark.parametrize("pad", [(1, 1), ((2, 0), (0, 3)), (0, 0)], ids=["1", "asymmetric", "0"])
@pytest.mark.parametrize("view", [False, True], ids=["contiguous", "transposed-view"])
def test_padded_equals_numpy_pad_split_between_threads(split_everything, pad, view):
    x = RNG.standard_normal((7, 5, 6, LANES)).astype(np.float32)
    if view:  # (C, H, W, N) as a view of an N-first array, as the first layer hands it
        x = np.moveaxis(np.ascontiguousarray(np.moveaxis(x, -1, 0)), 0, -1)
    got = _direct_conv.padded(x, pad)
    assert split_everything == ["pad"]
    widths = [p if isinstance(p, tuple) else (p, p) for p in pad]
    want = np.pad(x, [(0, 0), *widths, (0, 0)])
    assert got.shape == want.shape and got.flags.c_contiguous
    assert got.__array_interface__["data"][0] % 64 == 0
    assert got.tobytes() == want.tobytes()


def test_direct_convolution_split_between_threads_gives_one_threads_bytes(
    monkeypatch, split_everything
):
    """Forward, input and weight gradients with every kernel split (maps, phases, padding; the
    weight gradient computed by the pool thread while the walk goes on) against one thread:
    each output is computed whole by one thread, so the bytes agree."""
    xs, ws = (2 * LANES, 6, 9, 8), (10, 6, 3, 3)
    x, w, _ = _arrays(xs, ws, False)
    kwargs = {"pad": (1, 1), "stride": (2, 2)}
    later = _forward_backward(monkeypatch, True, x, w, None, kwargs)
    assert set(split_everything) >= {"conv", "submit", "pad", "run_all"}
    monkeypatch.setattr(_later, "LATER", False)  # the weight gradient's maps split in place
    split_everything.clear()
    split = _forward_backward(monkeypatch, True, x, w, None, kwargs)
    assert set(split_everything) >= {"conv", "wgrad", "pad", "run_all"}
    monkeypatch.setattr(_threads, "count", lambda: 1)
    one = _forward_backward(monkeypatch, True, x, w, None, kwargs)
    for got, want, other in zip(split, one, later, strict=True):
        assert got.tobytes() == want.tobytes() == other.tobytes()

"""The compiled im2col/col2im loops (numba) against the generic ``xp`` versions they stand in for,
on odd shapes, and through the layers that use them (convolution, deconvolution)."""

import numpy as np
import pytest

import engine.nn.functions as F
from engine.core.autograd import Variable

pytest.importorskip("numba", reason="the compiled im2col/col2im loops need numba")

from engine.core.ops import _im2col, _im2col_cpu, _jit  # noqa: E402 - after the skip

RNG = np.random.default_rng(11)

# (N, C, H, W), kernel, pad, stride, dilation
GEOMETRIES = [
    ((9, 3, 7, 6), (3, 2), (1, 0), (2, 1), (1, 2)),
    ((8, 4, 5, 5), (3, 3), (1, 1), (1, 1), (1, 1)),
    ((16, 2, 9, 8), (3, 3), (2, 1), (3, 2), (2, 1)),
    ((1, 5, 6, 7), (3, 3), (1, 2), (1, 1), (2, 1)),  # batch 1: batch-last since stride 1
    ((8, 2, 6, 6), (1, 1), (0, 0), (2, 2), (1, 1)),  # 1x1 projection shortcut
    ((8, 3, 4, 5), (5, 4), (3, 3), (2, 3), (1, 1)),  # windows wider than the image
]
IDS = ["asymmetric", "3x3", "stride-3-dilated", "batch-1", "1x1-s2", "pad-beyond"]


@pytest.mark.parametrize("xs, k, pad, stride, dil", GEOMETRIES, ids=IDS)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_compiled_im2col_and_col2im_equal_the_generic_ones(
    monkeypatch, xs, k, pad, stride, dil, dtype
):
    x = RNG.standard_normal(xs).astype(dtype)
    # A (N, C, H, W) view of a batch-innermost buffer, as the layers hand activations around.
    x = np.moveaxis(np.ascontiguousarray(np.moveaxis(x, 0, -1)), -1, 0)
    want_col, want_out = _im2col.im2col(x, k, pad, stride, dil, True)
    monkeypatch.setattr(_jit, "ENABLED", False)
    gen_col, gen_out = _im2col.im2col(x, k, pad, stride, dil, True)
    assert want_out == gen_out and want_col.dtype == gen_col.dtype == dtype
    np.testing.assert_array_equal(want_col, gen_col)
    gcol = RNG.standard_normal(gen_col.shape).astype(dtype)
    generic = _im2col.col2im(gcol, xs, k, pad, stride, dil, True)
    monkeypatch.setattr(_jit, "ENABLED", True)
    compiled = _im2col.col2im(gcol, xs, k, pad, stride, dil, True)
    assert compiled.shape == generic.shape == xs and compiled.dtype == dtype
    tol = 1e-5 if dtype == np.float32 else 1e-13
    np.testing.assert_allclose(compiled, generic, rtol=tol, atol=tol)


def test_col2im_is_the_adjoint_of_im2col():
    # <im2col(x), c> = <x, col2im(c)> for any x and c: the two loops are each other's transpose.
    xs, k, pad, stride, dil = GEOMETRIES[2]
    x = np.moveaxis(RNG.standard_normal((xs[1], *xs[2:], xs[0])), -1, 0)
    col, _ = _im2col.im2col(x, k, pad, stride, dil, True)
    c = RNG.standard_normal(col.shape)
    back = _im2col.col2im(c, xs, k, pad, stride, dil, True)
    assert np.isclose(np.vdot(col, c), np.vdot(x, back), rtol=1e-12)


def _both_paths(monkeypatch, fn, arrays, kwargs):
    """Outputs and gradients of ``fn`` with the compiled loops, then with the generic path;
    asserts the compiled loops ran in the first pass only."""
    calls = []
    im2col, col2im = _im2col_cpu.im2col, _im2col_cpu.col2im
    monkeypatch.setattr(_im2col_cpu, "im2col", lambda *a: calls.append(1) or im2col(*a))
    monkeypatch.setattr(_im2col_cpu, "col2im", lambda *a: calls.append(2) or col2im(*a))
    results = []
    for enabled in (True, False):
        monkeypatch.setattr(_jit, "ENABLED", enabled)
        vs = [Variable(a, need_grad=True) for a in arrays]
        y = fn(*vs, **kwargs)
        y.backward(np.cos(np.arange(y.size)).reshape(y.shape).astype(y.d.dtype))
        results.append([y.d] + [v.g for v in vs])
        if enabled:
            assert sorted(set(calls)) == [1, 2]
            calls.clear()
    assert not calls
    return results


@pytest.mark.parametrize(
    "xs, ws, kw",
    [
        ((9, 4, 7, 6), (6, 2, 3, 2), {"pad": (1, 0), "stride": (2, 1), "dilation": (1, 2),
                                      "group": 2}),
        ((1, 3, 6, 5), (4, 3, 3, 3), {"pad": (1, 1)}),
        ((8, 5, 9, 9), (3, 5, 1, 1), {"stride": (2, 2)}),
    ],
    ids=["groups-stride-dilation", "batch-1", "1x1-s2"],
)  # fmt: skip
def test_convolution_takes_the_compiled_loops_and_agrees_with_the_generic_path(
    monkeypatch, xs, ws, kw
):
    x, w, b = RNG.standard_normal(xs), RNG.standard_normal(ws), RNG.standard_normal(ws[0])
    x = x.transpose(0, 1, 3, 2).copy().transpose(0, 1, 3, 2)  # non-contiguous (W before H)
    fast, generic = _both_paths(monkeypatch, F.convolution, [x, w, b], kw)
    for got, want in zip(fast, generic, strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


def test_channel_last_float32_convolution_agrees_with_the_generic_path(monkeypatch):
    x = RNG.standard_normal((8, 6, 5, 3)).astype(np.float32)  # (N, H, W, C)
    w = RNG.standard_normal((4, 3, 3, 3)).astype(np.float32)  # (O, kh, kw, C)
    kw = {"pad": (1, 2), "stride": (1, 2), "channel_last": True}
    fast, generic = _both_paths(monkeypatch, F.convolution, [x, w], kw)
    for got, want in zip(fast, generic, strict=True):
        assert got.dtype == np.float32
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_deconvolution_uses_the_same_loops_and_agrees_with_the_generic_path(monkeypatch):
    x, w = RNG.standard_normal((8, 4, 5, 4)), RNG.standard_normal((4, 3, 3, 2))
    kw = {"pad": (1, 0), "stride": (2, 1), "dilation": (1, 2), "group": 2}
    fast, generic = _both_paths(monkeypatch, F.deconvolution, [x, w], kw)
    for got, want in zip(fast, generic, strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


def test_small_strided_batches_keep_the_generic_path(monkeypatch):
    # Batch-outer columns (N < 8 with stride > 1) are not served by the compiled loops.
    x = RNG.standard_normal((3, 2, 6, 6)).astype(np.float32)
    assert not _im2col_cpu.applies(x, 2, _im2col.prefer_batch_last(3, (2, 2)))
    assert _im2col_cpu.applies(x, 2, True) and not _im2col_cpu.applies(x, 3, True)
    assert not _im2col_cpu.applies(x.astype(np.float16), 2, True)


@pytest.mark.parametrize("kernel", [(3, 3), (1, 1)])
def test_col2im_reads_padded_column_gradients_in_place_and_other_layouts_by_copy(
    monkeypatch, kernel
):
    # The column gradient of a convolution comes from a GEMM into padded rows (rows 32 KiB
    # apart are slow for OpenBLAS); col2im reads that buffer in place. Any other layout of the
    # same numbers (here batch outermost in memory) must give the same image.
    c, (kh, kw), n = 3, kernel, 32
    xs, pad, stride = (n, c, 16, 16), (kh // 2, kw // 2), (1, 1) if kh > 1 else (2, 2)
    sizes = zip(xs[2:], pad, kernel, stride, strict=True)
    out = tuple((s + 2 * p - k) // st + 1 for s, p, k, st in sizes)
    w = RNG.standard_normal((c * kh * kw, 5)).astype(np.float32)
    g = RNG.standard_normal((5, out[0] * out[1] * n)).astype(np.float32)
    col = _im2col_cpu.matmul(w, g, n).reshape(c, kh, kw, *out, n)
    assert col.base.shape[-1] > out[0] * out[1] * n  # rows of 8 KiB or more: padded
    assert np.shares_memory(_im2col_cpu._blocks(col), col)
    permuted = np.moveaxis(np.ascontiguousarray(np.moveaxis(col, -1, 0)), 0, -1)
    got = [_im2col.col2im(a, xs, kernel, pad, stride, (1, 1), True) for a in (col, permuted)]
    monkeypatch.setattr(_jit, "ENABLED", False)
    exact = (w.astype(np.float64) @ g).reshape(col.shape)
    want = _im2col.col2im(exact, xs, kernel, pad, stride, (1, 1), True)
    for image in got:
        np.testing.assert_allclose(image, want, rtol=1e-4, atol=1e-4)

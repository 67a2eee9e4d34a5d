"""Basic layers against direct-loop NumPy references, with float64 finite-difference gradients."""

import itertools

import numpy as np
import pytest

import engine.nn.functions as F
from engine.core.autograd import Variable
from engine.testing import check_function

RNG = np.random.default_rng(7)


def randn(*shape):
    return RNG.standard_normal(shape)


# ----------------------------------------------------------------------------- references
def ref_conv(x, w, b=None, pad=None, stride=None, dilation=None, group=1):
    """Direct definition: every output cell is a sum over its (dilated) window."""
    nk = w.ndim - 2
    pad = pad or (0,) * nk
    stride = stride or (1,) * nk
    dilation = dilation or (1,) * nk
    n, c = x.shape[:2]
    o, cg = w.shape[:2]
    xpad = np.pad(x, [(0, 0), (0, 0)] + [(p, p) for p in pad])
    out = [
        (s + 2 * p - d * (k - 1) - 1) // st + 1
        for s, p, d, k, st in zip(x.shape[2:], pad, dilation, w.shape[2:], stride, strict=True)
    ]
    y = np.zeros((n, o, *out))
    og = o // group
    for oc in range(o):
        xs = xpad[:, (oc // og) * cg : (oc // og + 1) * cg]
        for pos in itertools.product(*(range(m) for m in out)):
            sl = tuple(
                slice(q * st, q * st + d * (k - 1) + 1, d)
                for q, st, d, k in zip(pos, stride, dilation, w.shape[2:], strict=True)
            )
            patch = xs[(slice(None), slice(None)) + sl]
            y[(slice(None), oc) + pos] = np.sum(patch * w[oc], axis=tuple(range(1, 2 + nk)))
    if b is not None:
        y += b.reshape((1, o) + (1,) * nk)
    return y


def ref_deconv(x, w, b=None, pad=None, stride=None, dilation=None, group=1, output_padding=None):
    """Direct definition: every input cell scatters ``x * w`` into its output window."""
    nk = w.ndim - 2
    pad = pad or (0,) * nk
    stride = stride or (1,) * nk
    dilation = dilation or (1,) * nk
    output_padding = output_padding or (0,) * nk
    n, c = x.shape[:2]
    og = w.shape[1]
    cg = c // group
    out = [
        (s - 1) * st - 2 * p + d * (k - 1) + 1 + op
        for s, st, p, d, k, op in zip(
            x.shape[2:], stride, pad, dilation, w.shape[2:], output_padding, strict=True
        )
    ]
    y = np.zeros((n, og * group, *(m + 2 * p for m, p in zip(out, pad, strict=True))))
    for ci in range(c):
        for ol in range(og):
            oc = (ci // cg) * og + ol
            for pos in itertools.product(*(range(s) for s in x.shape[2:])):
                for kof in itertools.product(*(range(k) for k in w.shape[2:])):
                    q = tuple(
                        pi * st + ki * d
                        for pi, st, ki, d in zip(pos, stride, kof, dilation, strict=True)
                    )
                    y[(slice(None), oc) + q] += x[(slice(None), ci) + pos] * w[(ci, ol) + kof]
    y = y[
        (slice(None), slice(None)) + tuple(slice(p, p + m) for p, m in zip(pad, out, strict=True))
    ]
    if b is not None:
        y = y + b.reshape((1, -1) + (1,) * nk)
    return y


# ------------------------------------------------------------------------------------ affine
def test_affine_matches_matrix_product_and_gradients():
    x, w, b = randn(3, 2, 5), randn(10, 4), randn(4)
    check_function(F.affine, [x, w, b], reference=lambda x, w, b: x.reshape(3, 10) @ w + b)


def test_affine_multi_dim_outputs_base_axis_and_no_bias():
    x, w = randn(2, 3, 4, 1), randn(4, 2, 3)
    ref = lambda x, w: (x.reshape(6, 4) @ w.reshape(4, 6)).reshape(2, 3, 2, 3)  # noqa: E731
    check_function(F.affine, [x, w], kwargs={"base_axis": 2}, reference=ref)
    x, w, b = randn(3, 4), randn(4, 2, 3), randn(2, 3)
    ref = lambda x, w, b: (x @ w.reshape(4, 6)).reshape(3, 2, 3) + b  # noqa: E731
    check_function(F.affine, [x, w, b], reference=ref)


def test_affine_rejects_mismatched_weight():
    with pytest.raises(ValueError, match=r"affine: weight.shape\[0\] must equal the 6"):
        F.affine(Variable(np.zeros((2, 6))), Variable(np.zeros((5, 3))))


# ------------------------------------------------------------------------------- convolution
def test_convolution_hand_computed_values():
    x = np.arange(16.0).reshape(1, 1, 4, 4)
    w = np.array([[[[1.0, 0.0], [0.0, -1.0]]]])  # x[i, j] - x[i+1, j+1] = -5 everywhere
    y = F.convolution(Variable(x), Variable(w), Variable(np.array([0.5])))
    np.testing.assert_allclose(y.d, np.full((1, 1, 3, 3), -4.5))


@pytest.mark.parametrize(
    "xs, ws, kw",
    [
        ((2, 3, 5, 6), (4, 3, 3, 2), {"pad": (1, 0), "stride": (2, 1), "dilation": (1, 2)}),
        ((2, 4, 5, 5), (6, 2, 3, 3), {"group": 2, "pad": (1, 1)}),
        ((2, 3, 7), (2, 3, 3), {"pad": (1,), "stride": (2,), "dilation": (2,)}),
        ((1, 2, 4, 5, 3), (3, 2, 2, 3, 2), {"pad": (1, 0, 1), "stride": (1, 2, 1)}),
        ((1, 6, 5, 4), (3, 2, 3, 1), {"group": 3, "stride": (2, 3)}),
        ((9, 3, 4, 5), (4, 3, 1, 1), {}),  # pointwise: col2im is a reshape (batch-last)
        ((2, 4, 4, 5), (6, 2, 1, 1), {"group": 2}),
        ((9, 3, 5, 5), (4, 3, 1, 1), {"stride": (2, 2)}),  # projection shortcut
    ],
    ids=["2d-asymmetric", "groups", "1d", "3d", "groups-stride", "1x1", "1x1-groups", "1x1-s2"],
)
def test_convolution_against_loop_reference(xs, ws, kw):
    x, w, b = randn(*xs), randn(*ws), randn(ws[0])
    check_function(
        F.convolution, [x, w, b], kwargs=kw, reference=lambda x, w, b: ref_conv(x, w, b, **kw)
    )


def test_convolution_large_batch_strided_windows():
    # N >= 8 lays the batch innermost even with strided windows (the fast layout).
    x, w, b = randn(8, 2, 5, 5), randn(3, 2, 2, 3), randn(3)
    kw = {"pad": (1, 0), "stride": (2, 2)}
    check_function(
        F.convolution, [x, w, b], kwargs=kw, reference=lambda x, w, b: ref_conv(x, w, b, **kw)
    )


def test_convolution_chain_keeps_layouts_consistent():
    # conv -> conv -> affine: outputs and gradients travel as batch-innermost views between layers.
    def net(x, w1, w2, w3):
        return F.affine(F.convolution(F.convolution(x, w1), w2, stride=(2, 1)), w3)

    def ref(x, w1, w2, w3):
        h = ref_conv(ref_conv(x, w1), w2, stride=(2, 1))
        return h.reshape(len(x), -1) @ w3

    x, w1, w2, w3 = randn(9, 1, 6, 5), randn(2, 1, 2, 2), randn(3, 2, 2, 2), randn(3 * 2 * 3, 2)
    check_function(net, [x, w1, w2, w3], reference=ref)


def test_convolution_without_bias_and_base_axis_2():
    x, w = randn(2, 2, 3, 5, 4), randn(2, 3, 2, 2)
    ref = lambda x, w: ref_conv(x.reshape(4, 3, 5, 4), w).reshape(2, 2, 2, 4, 3)  # noqa: E731
    check_function(F.convolution, [x, w], kwargs={"base_axis": 2}, reference=ref)


def test_convolution_channel_last():
    x, w, b = randn(2, 5, 4, 3), randn(4, 2, 3, 3), randn(4)  # x (N, H, W, C), w (O, kh, kw, C)

    def ref(x, w, b):
        y = ref_conv(x.transpose(0, 3, 1, 2), w.transpose(0, 3, 1, 2), b, pad=(1, 0))
        return y.transpose(0, 2, 3, 1)

    check_function(
        F.convolution, [x, w, b], kwargs={"channel_last": True, "pad": (1, 0)}, reference=ref
    )


def test_convolution_skips_unneeded_gradients():
    x = Variable(randn(2, 1, 5, 5))  # an input image: no gradient wanted
    w, b = Variable(randn(3, 1, 3, 3), need_grad=True), Variable(randn(3), need_grad=True)
    y = F.convolution(x, w, b)
    y.backward(np.ones(y.shape))
    assert x.grad is None and w.grad.shape == (3, 1, 3, 3)
    np.testing.assert_allclose(b.grad, np.full(3, 18.0))
    frozen = F.convolution(Variable(randn(2, 1, 5, 5), need_grad=True), Variable(randn(3, 1, 3, 3)))
    assert frozen.creator.colmat is None  # no weight gradient: the columns are not kept


@pytest.mark.parametrize("batch", [9, 3], ids=["batch-innermost", "batch-outer"])
def test_convolution_in_batch_slices_and_recomputed_columns(monkeypatch, batch):
    # Large problems: im2col one batch slice at a time, columns rebuilt in backward.
    from engine.core.ops import basic

    monkeypatch.setattr(basic, "CHUNK_BYTES", 600)
    monkeypatch.setattr(basic, "SAVE_COLUMNS_BYTES", 0)
    x, w, b = randn(batch, 2, 4, 5), randn(3, 2, 2, 3), randn(3)
    kw = {"pad": (1, 0), "stride": (1, 2)}
    y = F.convolution(Variable(x), Variable(w, need_grad=True), Variable(b), **kw)
    assert len(y.creator.slices) > 2
    check_function(
        F.convolution, [x, w, b], kwargs=kw, reference=lambda x, w, b: ref_conv(x, w, b, **kw)
    )


def test_convolution_errors_name_the_argument():
    x = Variable(np.zeros((1, 3, 5, 5)))
    with pytest.raises(ValueError, match="convolution: x has 3 channels; with group=2"):
        F.convolution(x, Variable(np.zeros((4, 1, 3, 3))), group=2)
    with pytest.raises(ValueError, match=r"convolution: stride needs 2 values.*stride=\(1, 1, 1\)"):
        F.convolution(x, Variable(np.zeros((4, 3, 3, 3))), stride=(1, 1, 1))
    with pytest.raises(ValueError, match="convolution: x needs 1 batch axes"):
        F.convolution(x, Variable(np.zeros((4, 3, 3))))


def test_depthwise_convolution_is_grouped_convolution():
    x, w, b = randn(2, 3, 5, 4), randn(6, 3, 2), randn(6)  # multiplier 2: output map c*2 + j
    kw = {"pad": (1, 0), "stride": (2, 1), "dilation": (1, 2)}

    def ref(x, w, b):
        return ref_conv(x, w.reshape(6, 1, 3, 2), b, group=3, **kw)

    check_function(
        F.depthwise_convolution, [x, w, b], kwargs={"multiplier": 2, **kw}, reference=ref
    )


@pytest.mark.parametrize(
    "n, kw",
    [
        (2, {"pad": (1, 0), "stride": (2, 1), "dilation": (1, 2)}),
        (9, {"pad": (1, 1), "stride": (2, 2)}),  # n >= 8: batch-innermost columns
        (3, {"pad": (0, 2), "dilation": (2, 1)}),
    ],
    ids=["stride-pad-dilation", "batch-last", "dilation"],
)
def test_depthwise_multiplier_1_input_gradient_fast_path(n, kw):
    """One output map per group: the input gradient is a broadcast product, not C tiny GEMMs."""
    x, w, b = randn(n, 3, 5, 4), randn(3, 3, 2), randn(3)

    def ref(x, w, b):
        return ref_conv(x, w.reshape(3, 1, 3, 2), b, group=3, **kw)

    check_function(F.depthwise_convolution, [x, w, b], kwargs=kw, reference=ref)


def test_grouped_channel_last_convolution_with_one_map_per_group():
    x, w = randn(2, 5, 4, 4), randn(4, 2, 3, 1)  # channel_last: x (N, H, W, C), w (O, *k, C/g)
    kw = {"pad": (1, 1), "stride": (2, 1), "group": 4}

    def ref(x, w):
        y = ref_conv(np.moveaxis(x, -1, 1), np.moveaxis(w, -1, 1), **kw)
        return np.moveaxis(y, 1, -1)

    check_function(F.convolution, [x, w], kwargs={"channel_last": True, **kw}, reference=ref)


# ----------------------------------------------------------------------------- deconvolution
@pytest.mark.parametrize(
    "xs, ws, kw",
    [
        ((2, 3, 3, 4), (3, 2, 3, 2), {"stride": (2, 1), "pad": (1, 0), "dilation": (1, 2)}),
        ((1, 2, 3, 3), (2, 2, 3, 3), {"stride": (2, 3), "pad": (1, 1), "output_padding": (1, 2)}),
        ((2, 4, 3, 2), (4, 1, 2, 3), {"group": 2, "stride": (2, 2)}),
        ((2, 2, 4), (2, 3, 3), {"stride": (3,), "dilation": (2,), "output_padding": (1,)}),
        ((1, 2, 2, 3, 2), (2, 2, 2, 2, 3), {"stride": (2, 1, 2), "pad": (0, 1, 1)}),
        ((2, 2, 3), (2, 2, 2), {"dilation": (3,), "output_padding": (2,)}),
        ((9, 3, 3, 4), (3, 2, 1, 1), {}),  # pointwise: col2im is a reshape
    ],
    ids=["2d", "output-padding", "groups", "1d", "3d", "output-padding-below-dilation", "1x1"],
)
def test_deconvolution_against_loop_reference(xs, ws, kw):
    x, w = randn(*xs), randn(*ws)
    b = randn(ws[1] * kw.get("group", 1))
    check_function(
        F.deconvolution, [x, w, b], kwargs=kw, reference=lambda x, w, b: ref_deconv(x, w, b, **kw)
    )


def test_deconvolution_large_batch_strided():
    x, w, b = randn(8, 2, 2, 3), randn(2, 3, 3, 2), randn(3)
    kw = {"stride": (2, 2), "pad": (1, 0), "output_padding": (1, 0)}
    check_function(
        F.deconvolution, [x, w, b], kwargs=kw, reference=lambda x, w, b: ref_deconv(x, w, b, **kw)
    )


def test_deconvolution_is_the_adjoint_of_convolution():
    # <conv(x), y> == <x, deconv(y)> for the same weight: the definition of a transposed conv.
    x, w, y = randn(2, 3, 8, 6), randn(4, 3, 3, 2), randn(2, 4, 4, 4)
    kw = {"pad": (1, 0), "stride": (2, 1), "dilation": (1, 2)}
    cx = F.convolution(Variable(x), Variable(w), **kw).d
    dy = F.deconvolution(Variable(y), Variable(w), output_padding=(1, 0), **kw).d
    assert dy.shape == x.shape
    np.testing.assert_allclose(np.sum(cx * y), np.sum(x * dy), rtol=1e-10)


def test_deconvolution_channel_last_and_no_bias():
    x, w = randn(2, 3, 2, 2), randn(2, 3, 2, 3)  # x (N, H, W, C), w (C, kh, kw, O)

    def ref(x, w):
        return ref_deconv(
            x.transpose(0, 3, 1, 2), w.transpose(0, 3, 1, 2), stride=(2, 2)
        ).transpose(0, 2, 3, 1)

    check_function(
        F.deconvolution, [x, w], kwargs={"channel_last": True, "stride": (2, 2)}, reference=ref
    )


def test_depthwise_deconvolution_with_divisor():
    x, w, b = randn(2, 4, 3, 2), randn(4, 2, 3), randn(2)  # divisor 2: maps 2c, 2c+1 -> map c
    kw = {"stride": (2, 1), "pad": (0, 1)}

    def ref(x, w, b):
        return ref_deconv(x, w.reshape(4, 1, 2, 3), b, group=2, **kw)

    check_function(F.depthwise_deconvolution, [x, w, b], kwargs={"divisor": 2, **kw}, reference=ref)


def test_deconvolution_rejects_bad_output_padding():
    with pytest.raises(ValueError, match="deconvolution: output_padding must be"):
        F.deconvolution(
            Variable(np.zeros((1, 2, 3, 3))),
            Variable(np.zeros((2, 2, 3, 3))),
            output_padding=(1, 1),
        )


# ------------------------------------------------------------------------------------ embed
def test_embed_looks_up_rows_and_accumulates_repeated_indices():
    idx = np.array([[0, 2, 2], [3, 0, 2]])
    w = randn(4, 2, 3)
    check_function(F.embed, [idx, w], reference=lambda i, w: w[i])
    wv = Variable(w, need_grad=True)
    F.embed(Variable(idx), wv).backward(np.ones((2, 3, 2, 3)))
    np.testing.assert_allclose(wv.grad[:, 0, 0], [2.0, 0.0, 3.0, 1.0])


def test_embed_truncates_float_indices_as_nnabla_casts_them():
    # NNC feeds every dataset column as floats; nnabla casts them to the int the function reads.
    w = randn(5, 3)
    y = F.embed(Variable(np.array([[1.0, 4.9], [0.2, 3.0]])), Variable(w)).d
    np.testing.assert_array_equal(y, w[np.array([[1, 4], [0, 3]])])


@pytest.mark.parametrize(
    ("x0", "error", "match"),
    [
        (np.array([0, 4]), ValueError, r"outside \[0, 4\).*x0=\[4\]"),
        (np.array([-1.0, 2.0]), ValueError, r"outside \[0, 4\).*x0=\[-1\]"),  # not wrapped
        (np.array([1.0, np.nan]), ValueError, "inf or NaN"),
        (np.array(["a"]), TypeError, "x0 must hold indices"),
    ],
)
def test_embed_refuses_what_cannot_index_the_table(x0, error, match):
    with pytest.raises(error, match=match):
        F.embed(Variable(x0), Variable(np.zeros((4, 2))))


# --------------------------------------------------------------------- rare convolutions
def _bilinear(img, py, px):
    """nnabla's im2col_bilinear_cpu, guarded like its caller (0 outside (-1, H) x (-1, W))."""
    h, w = img.shape
    if not (py > -1 and px > -1 and py < h and px < w):
        return 0.0
    y0, x0 = int(np.floor(py)), int(np.floor(px))
    ly, lx = py - y0, px - x0
    total = 0.0
    for yy, xx, wt in (
        (y0, x0, (1 - ly) * (1 - lx)),
        (y0, x0 + 1, (1 - ly) * lx),
        (y0 + 1, x0, ly * (1 - lx)),
        (y0 + 1, x0 + 1, ly * lx),
    ):
        if 0 <= yy < h and 0 <= xx < w:
            total += wt * img[yy, xx]
    return total


def ref_deformable(
    x, w, off, mask=None, b=None, pad=(0, 0), stride=(1, 1), dilation=(1, 1), group=1, dg=1
):
    n, c, h, wd = x.shape
    o, cg, kh, kw = w.shape
    ho = (h + 2 * pad[0] - dilation[0] * (kh - 1) - 1) // stride[0] + 1
    wo = (wd + 2 * pad[1] - dilation[1] * (kw - 1) - 1) // stride[1] + 1
    at_input = off.shape[2:] == (h, wd)
    y = np.zeros((n, o, ho, wo))
    for ni, oc, a, bb in itertools.product(range(n), range(o), range(ho), range(wo)):
        sa, sb = (a * stride[0], bb * stride[1]) if at_input else (a, bb)
        total = 0.0
        for ci, i, j in itertools.product(range(cg), range(kh), range(kw)):
            cin = (oc // (o // group)) * cg + ci
            d, k = cin // (c // dg), i * kw + j
            py = a * stride[0] - pad[0] + i * dilation[0] + off[ni, d * 2 * kh * kw + 2 * k, sa, sb]
            px = (
                bb * stride[1]
                - pad[1]
                + j * dilation[1]
                + off[ni, d * 2 * kh * kw + 2 * k + 1, sa, sb]
            )
            m = 1.0 if mask is None else mask[ni, d * kh * kw + k, sa, sb]
            total += w[oc, ci, i, j] * _bilinear(x[ni, cin], py, px) * m
        y[ni, oc, a, bb] = total + (0.0 if b is None else b[oc])
    return y


def test_deformable_convolution_with_zero_offsets_is_convolution():
    x, w, b = randn(2, 4, 5, 6), randn(6, 2, 3, 3), randn(6)
    off, mask = np.zeros((2, 2 * 2 * 9, 5, 6)), np.ones((2, 2 * 9, 5, 6))
    kw = {"pad": (1, 1), "group": 2}
    y = F.deformable_convolution(
        Variable(x),
        Variable(w),
        Variable(off),
        Variable(mask),
        Variable(b),
        deformable_group=2,
        **kw,
    )
    np.testing.assert_allclose(y.d, ref_conv(x, w, b, **kw), atol=1e-12)


@pytest.mark.parametrize(
    "kw",
    [
        {"pad": (0, 1), "stride": (2, 1), "dilation": (1, 2), "group": 2, "deformable_group": 2},
        {"pad": (1, 1), "deformable_group": 1},
    ],
    ids=["groups-stride-dilation", "plain"],
)
def test_deformable_convolution_against_loop_reference(kw):
    dg, k = kw["deformable_group"], 2 if "group" in kw else 3
    x, w, b = randn(1, 2, 4, 5), randn(2, 2 // kw.get("group", 1), k, k), randn(2)
    off = RNG.uniform(-1.4, 1.4, (1, dg * 2 * k * k, 4, 5))  # nnabla's input-sized maps
    mask = RNG.uniform(0.2, 1.0, (1, dg * k * k, 4, 5))
    ref_kw = {k: v for k, v in kw.items() if k != "deformable_group"}

    def ref(x, w, off, mask, b):
        return ref_deformable(x, w, off, mask, b, dg=dg, **ref_kw)

    check_function(F.deformable_convolution, [x, w, off, mask, b], kwargs=kw, reference=ref)


def test_deformable_convolution_rejects_offsets_it_cannot_read():
    with pytest.raises(ValueError, match=r"deformable_convolution: offset must be \(N, 8, H, W\)"):
        F.deformable_convolution(
            Variable(np.zeros((1, 1, 4, 4))),
            Variable(np.zeros((1, 1, 2, 2))),
            Variable(np.zeros((1, 8, 2, 2))),
        )


def test_deformable_convolution_output_sized_offsets_without_mask_or_bias():
    x, w = randn(1, 1, 5, 5), randn(2, 1, 3, 2)
    kw = {"stride": (2, 2)}  # output 2x2: offsets of that size are read directly
    off = RNG.uniform(-1.4, 1.4, (1, 2 * 6, 2, 2))
    check_function(
        F.deformable_convolution,
        [x, w, off],
        kwargs=kw,
        reference=lambda x, w, off: ref_deformable(x, w, off, stride=(2, 2)),
    )


def test_adaptive_separable_convolution_against_loop_reference():
    x, kv, kh = randn(2, 3, 5, 6), randn(2, 3, 4, 5), randn(2, 2, 3, 6)  # output 3x5; kv/kh larger

    def ref(x, kv, kh):
        y = np.zeros((2, 3, 3, 5))
        for b, c, h, w in itertools.product(range(2), range(3), range(3), range(5)):
            y[b, c, h, w] = sum(
                kv[b, j, h, w] * kh[b, i, h, w] * x[b, c, h + j, w + i]
                for j in range(3)
                for i in range(2)
            )
        return y

    check_function(F.adaptive_separable_convolution, [x, kv, kh], reference=ref)


def test_convolution_large_batch_first_arrays_are_moved_batch_innermost_correctly():
    # Batch-first inputs/gradients above 64k elements are transposed a few samples at a time.
    x, w, gy = randn(17, 3, 40, 40), randn(2, 3, 1, 1), randn(17, 2, 40, 40)
    xv, wv = Variable(x, need_grad=True), Variable(w, need_grad=True)
    y = F.convolution(xv, wv)
    np.testing.assert_allclose(y.d, np.einsum("nchw,oc->nohw", x, w[:, :, 0, 0]), atol=1e-12)
    y.backward(gy)
    np.testing.assert_allclose(xv.grad, np.einsum("nohw,oc->nchw", gy, w[:, :, 0, 0]), atol=1e-12)
    np.testing.assert_allclose(wv.grad[:, :, 0, 0], np.einsum("nohw,nchw->oc", gy, x), atol=1e-9)


def test_convolution_steps_reuse_memory_instead_of_page_faulting():
    # backend.tune_host_allocator keeps freed buffers in the heap (glibc); without it every
    # LeNet-sized conv step maps fresh pages for its columns and gradients (~1,500 faults).
    import platform

    from engine.core import backend

    if platform.libc_ver()[0] != "glibc":
        assert backend.tune_host_allocator() is False
        return
    import resource

    assert backend.tune_host_allocator() is True
    x = Variable(RNG.standard_normal((64, 1, 28, 28)).astype(np.float32))
    w1 = Variable(RNG.standard_normal((16, 1, 7, 7)).astype(np.float32), need_grad=True)
    w2 = Variable(RNG.standard_normal((30, 16, 3, 3)).astype(np.float32), need_grad=True)
    w3 = Variable(RNG.standard_normal((480, 10)).astype(np.float32), need_grad=True)

    def step():  # the conv/pool/affine layers of NNC's LeNet sample
        h = F.max_pooling(F.convolution(x, w1), (2, 2))
        y = F.affine(F.max_pooling(F.convolution(h, w2), (2, 2)), w3)
        y.backward(np.ones(y.shape, np.float32))
        w1.grad = w2.grad = w3.grad = None

    for _ in range(3):
        step()
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    for _ in range(5):
        step()
    assert (resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before) / 5 < 100


# ------------------------------------------------------------ direct depthwise kernel (numba)
@pytest.mark.parametrize(
    "n, xs, kw",
    [
        (9, (3, 6, 5), {"pad": (1, 0), "stride": (2, 1), "dilation": (1, 2)}),
        (3, (4, 5, 5), {"pad": (2, 1), "dilation": (2, 1)}),  # stride 1: batch-last at n = 3
        (16, (2, 7, 4), {"pad": (1, 1), "stride": (3, 2)}),
        (8, (2, 2, 3), {"pad": (3, 2)}),  # windows lying wholly in the padding
    ],
    ids=["stride-pad-dilation", "small-batch", "stride-3", "pad-beyond-image"],
)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_direct_depthwise_kernel_matches_generic_path(monkeypatch, n, xs, kw, dtype):
    pytest.importorskip("numba", reason="the direct depthwise kernel needs numba")
    from engine.core.ops import _depthwise, _jit

    c = xs[0]
    x, w, b = randn(n, *xs).astype(dtype), randn(c, 3, 2).astype(dtype), randn(c).astype(dtype)
    calls = []
    direct_forward = _depthwise.forward
    monkeypatch.setattr(_depthwise, "forward", lambda *a: calls.append(1) or direct_forward(*a))
    results = []
    for enabled in (True, False):
        monkeypatch.setattr(_jit, "ENABLED", enabled)
        xv, wv, bv = Variable(x), Variable(w), Variable(b)
        y = F.depthwise_convolution(xv, wv, bv, **kw)
        y.backward(np.cos(np.arange(y.size)).reshape(y.shape).astype(dtype))
        results.append((y.d, xv.g, wv.g, bv.g))
    assert calls == [1]  # the first pass took the direct kernel, the second the generic path
    tol = 1e-5 if dtype == np.float32 else 1e-12
    for got, want in zip(*results, strict=True):
        assert got.dtype == want.dtype == dtype
        np.testing.assert_allclose(got, want, rtol=tol, atol=tol)


def test_direct_kernel_serves_channel_last_grouped_convolution_too(monkeypatch):
    pytest.importorskip("numba", reason="the direct depthwise kernel needs numba")
    from engine.core.ops import _jit

    x, w = randn(8, 5, 4, 3), randn(3, 3, 3, 1)  # (N, H, W, C), w (O, *k, C/g) with g = C = O
    results = []
    for enabled in (True, False):
        monkeypatch.setattr(_jit, "ENABLED", enabled)
        xv, wv = Variable(x), Variable(w)
        y = F.convolution(xv, wv, pad=(1, 1), group=3, channel_last=True)
        y.backward(np.sin(np.arange(y.size)).reshape(y.shape))
        results.append((y.d, xv.g, wv.g))
    for got, want in zip(*results, strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)

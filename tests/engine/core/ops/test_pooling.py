"""Pooling layers against a direct-loop transcription of nnabla's window rules, with float64
finite-difference gradients."""

import itertools

import numpy as np
import pytest

import engine.nn.functions as F
from engine.core.autograd import Variable
from engine.testing import check_function

RNG = np.random.default_rng(11)


def randn(*shape):
    return RNG.standard_normal(shape)


def ref_pool(x, kernel, stride=None, ignore_border=True, pad=None, mode="max", including_pad=True):
    """nnabla's CPU loops: window [o*s - p, min(o*s - p + k, n + p)) clipped to the input."""
    nk = len(kernel)
    stride = stride or kernel
    pad = pad or (0,) * nk
    spatial = x.shape[-nk:]
    if ignore_border:
        out = [
            (n + 2 * p - k) // s + 1
            for n, p, k, s in zip(spatial, pad, kernel, stride, strict=True)
        ]
    else:  # nnabla's PoolingConfiguration: ceil((in + p) / s), the kernel plays no part
        out = [int(np.ceil((n + p) / s)) for n, p, s in zip(spatial, pad, stride, strict=True)]
    y = np.zeros(x.shape[:-nk] + tuple(out))
    for pos in itertools.product(*(range(m) for m in out)):
        start = [q * s - p for q, s, p in zip(pos, stride, pad, strict=True)]
        end = [min(a + k, n + p) for a, k, n, p in zip(start, kernel, spatial, pad, strict=True)]
        size = np.prod([e - a for a, e in zip(start, end, strict=True)])
        start = [max(a, 0) for a in start]
        end = [min(e, n) for e, n in zip(end, spatial, strict=True)]
        patch = x[(Ellipsis,) + tuple(slice(a, e) for a, e in zip(start, end, strict=True))]
        axes = tuple(range(-nk, 0))
        if mode == "max":
            val = patch.max(axis=axes)
        else:
            val = patch.sum(axis=axes)
            if mode == "average":
                val = val / (
                    size
                    if including_pad
                    else np.prod([e - a for a, e in zip(start, end, strict=True)])
                )
        y[(Ellipsis,) + pos] = val
    return y


# ------------------------------------------------------------------------------ max pooling
@pytest.mark.parametrize(
    "shape, kw",
    [
        ((2, 3, 5, 6), {"kernel": (2, 2)}),
        ((2, 2, 5, 7), {"kernel": (3, 2), "stride": (2, 1), "pad": (1, 1)}),
        ((1, 2, 5, 7), {"kernel": (3, 2), "stride": (2, 2), "ignore_border": False}),
        ((1, 2, 5, 4), {"kernel": (2, 3), "stride": (3, 2), "ignore_border": False, "pad": (1, 1)}),
        ((1, 2, 8, 7), {"kernel": (5, 3), "stride": (1, 2), "ignore_border": False}),
        ((2, 3, 7), {"kernel": (3,), "stride": (2,)}),
        ((1, 2, 3, 5, 4), {"kernel": (2, 2, 3), "stride": (1, 2, 1), "pad": (0, 1, 1)}),
        ((3, 5, 5), {"kernel": (2, 2), "stride": (1, 1)}),
    ],
    ids=[
        "2x2-odd",
        "overlap-pad",
        "no-ignore-border",
        "no-ignore-border-pad",
        "partial-windows",
        "1d",
        "3d",
        "no-batch",
    ],
)
def test_max_pooling_against_loop_reference(shape, kw):
    x = randn(*shape)
    check_function(F.max_pooling, [x], kwargs=kw, reference=lambda x: ref_pool(x, **kw))


def test_output_size_without_ignore_border_is_nnablas():
    # The sizes the issue measured on nnabla; the kernel size plays no part.
    y = F.average_pooling(Variable(randn(1, 1, 13, 13)), (3, 3), (2, 2), ignore_border=False)
    assert y.shape == (1, 1, 7, 7)
    y = F.max_pooling(Variable(randn(1, 96, 55, 55)), (3, 3), (2, 2), ignore_border=False)
    assert y.shape == (1, 96, 28, 28)  # nin's MaxPooling, as NNC shows it
    y = F.max_pooling(Variable(randn(1, 1, 8, 8)), (5, 5), (1, 1), ignore_border=False)
    assert y.shape == (1, 1, 8, 8)
    # With padding nnabla counts the pad once: 7, kernel 3, stride 2, pad 1 -> 4; 9, pad 2 -> 6.
    y = F.max_pooling(Variable(randn(1, 1, 7, 9)), (3, 3), (2, 2), False, (1, 2))
    assert y.shape == (1, 1, 4, 6)
    y = F.max_pooling(Variable(randn(1, 1, 5, 5)), (3, 3), (2, 2), ignore_border=True)
    assert y.shape == (1, 1, 2, 2)


def test_partial_last_window_pools_over_its_cells():
    # 8 cells, kernel 5, stride 1: window 7 is [7, 12) clipped to [7, 8), one cell.
    x = np.arange(8.0).reshape(1, 1, 1, 8)
    y = F.max_pooling(Variable(x), (1, 5), (1, 1), ignore_border=False)
    np.testing.assert_array_equal(y.d[0, 0, 0], [4, 5, 6, 7, 7, 7, 7, 7])
    y = F.average_pooling(Variable(x), (1, 5), (1, 1), ignore_border=False)
    np.testing.assert_allclose(y.d[0, 0, 0], [2, 3, 4, 5, 5.5, 6, 6.5, 7])
    y = F.sum_pooling(Variable(x), (1, 5), (1, 1), ignore_border=False)
    np.testing.assert_allclose(y.d[0, 0, 0], [10, 15, 20, 25, 22, 18, 13, 7])


def test_max_pooling_ignores_padded_cells():
    x = -np.ones((1, 1, 2, 2))  # all negative: a zero pad would win if it were counted
    y = F.max_pooling(Variable(x), (2, 2), (2, 2), pad=(1, 1))
    np.testing.assert_array_equal(y.d, -np.ones((1, 1, 2, 2)))


@pytest.mark.parametrize("stride", [(2, 2), (1, 1)], ids=["disjoint", "overlapping"])
def test_max_pooling_ties_send_the_gradient_to_the_first_maximum(stride):
    x = Variable(np.zeros((1, 1, 3, 4)), need_grad=True)
    y = F.max_pooling(x, (2, 2), stride)
    y.backward(np.ones(y.shape))
    expected = np.zeros((3, 4))
    for i, j in itertools.product(range(y.shape[2]), range(y.shape[3])):
        expected[i * stride[0], j * stride[1]] += 1  # the top-left cell of every window
    np.testing.assert_array_equal(x.grad[0, 0], expected)


def test_max_pooling_channel_last():
    x = randn(2, 5, 4, 3)
    kw = {"kernel": (2, 3), "stride": (2, 1), "channel_last": True}

    def ref(x):
        return ref_pool(x.transpose(0, 3, 1, 2), (2, 3), (2, 1)).transpose(0, 2, 3, 1)

    check_function(F.max_pooling, [x], kwargs=kw, reference=ref)


@pytest.mark.parametrize("pool", ["max", "average"])
def test_pooling_after_convolution_batch_innermost_layout(pool):
    # A convolution hands out batch-innermost views; pooling and its gradient must keep working.
    fn = F.max_pooling if pool == "max" else F.average_pooling

    def net(x, w):
        return fn(F.convolution(x, w), (2, 2), (2, 1), pad=(1, 0))

    def ref(x, w):
        return ref_pool(
            np.einsum("nchw,oc->nohw", x, w[:, :, 0, 0]), (2, 2), (2, 1), pad=(1, 0), mode=pool
        )

    check_function(net, [randn(9, 2, 3, 4), randn(3, 2, 1, 1)], reference=ref)


# --------------------------------------------------------------------- average / sum pooling
@pytest.mark.parametrize("including_pad", [True, False])
@pytest.mark.parametrize(
    "shape, kw",
    [
        ((2, 3, 5, 6), {"kernel": (2, 2)}),
        ((1, 2, 5, 7), {"kernel": (3, 2), "stride": (2, 1), "pad": (1, 1)}),
        ((1, 2, 5, 4), {"kernel": (3, 3), "stride": (2, 2), "ignore_border": False, "pad": (1, 1)}),
        ((1, 2, 8, 7), {"kernel": (5, 3), "stride": (1, 2), "ignore_border": False, "pad": (0, 1)}),
        ((2, 2, 3, 4, 3), {"kernel": (2, 3, 2), "stride": (1, 1, 2), "pad": (1, 0, 1)}),
    ],
    ids=["2x2-odd", "overlap-pad", "no-ignore-border-pad", "partial-windows", "3d"],
)
def test_average_pooling_against_loop_reference(shape, kw, including_pad):
    x = randn(*shape)
    kw = {**kw, "including_pad": including_pad}
    ref_kw = {k: v for k, v in kw.items() if k != "including_pad"}
    check_function(
        F.average_pooling,
        [x],
        kwargs=kw,
        reference=lambda x: ref_pool(x, mode="average", including_pad=including_pad, **ref_kw),
    )


def test_average_pooling_divisor_counts_pad_but_not_the_overhang():
    avg = F.average_pooling
    # Width 3, kernel 2, stride 2, ignore_border False: windows [0,2) and [2,4) -> [2,3), size 1.
    x = Variable(np.array([[[[2.0, 4.0, 6.0]]]]))
    for including_pad in (True, False):
        y = avg(x, (1, 2), (1, 2), ignore_border=False, including_pad=including_pad)
        np.testing.assert_allclose(y.d[0, 0, 0], [3.0, 6.0])
    # Width 4, pad 1: windows [-1,1) [1,3) [3,5); the padded cells count only with including_pad.
    x = Variable(np.array([[[[2.0, 4.0, 6.0, 8.0]]]]))
    y = avg(x, (1, 2), (1, 2), ignore_border=False, pad=(0, 1))
    np.testing.assert_allclose(y.d[0, 0, 0], [1.0, 5.0, 4.0])
    y = avg(x, (1, 2), (1, 2), ignore_border=False, pad=(0, 1), including_pad=False)
    np.testing.assert_allclose(y.d[0, 0, 0], [2.0, 5.0, 8.0])


@pytest.mark.parametrize(
    "shape, kw",
    [
        ((2, 3, 5, 6), {"kernel": (2, 2)}),
        ((1, 2, 5, 7), {"kernel": (3, 2), "stride": (2, 1), "pad": (1, 1), "ignore_border": False}),
        ((2, 3, 7), {"kernel": (3,), "stride": (2,)}),
    ],
    ids=["2x2-odd", "overlap-pad-no-ignore-border", "1d"],
)
def test_sum_pooling_against_loop_reference(shape, kw):
    x = randn(*shape)
    check_function(F.sum_pooling, [x], kwargs=kw, reference=lambda x: ref_pool(x, mode="sum", **kw))


def test_pooling_errors_name_the_argument():
    with pytest.raises(ValueError, match=r"max_pooling: stride needs 2 values"):
        F.max_pooling(Variable(np.zeros((1, 1, 4, 4))), (2, 2), stride=(1,))
    with pytest.raises(ValueError, match=r"average_pooling: the output would be empty"):
        F.average_pooling(Variable(np.zeros((1, 1, 2, 2))), (3, 3))


# --------------------------------------------------------------------- global / unpooling
def test_global_average_pooling():
    check_function(
        F.global_average_pooling,
        [randn(2, 3, 4, 5)],
        reference=lambda x: x.mean(axis=(2, 3), keepdims=True),
    )
    # 1-D samples still give (N, C, 1, 1), as in NNC.
    check_function(
        F.global_average_pooling,
        [randn(2, 3, 5)],
        reference=lambda x: x.mean(axis=2)[:, :, None, None],
    )


def test_global_average_pooling_gradient_keeps_the_input_layout():
    # A convolution hands out batch-innermost views; the gradient comes back in that layout so
    # the element-wise backward passes that follow see one memory order.
    x = np.moveaxis(randn(3, 4, 5, 6), -1, 0)  # (N=6, C=3, H=4, W=5), batch innermost
    y = F.global_average_pooling(Variable(x, need_grad=True))
    gy = randn(*y.shape)
    gx = y.creator.backward(gy)  # the array the layer below receives
    np.testing.assert_allclose(gx, np.broadcast_to(gy / 20.0, x.shape), rtol=1e-15)
    assert np.moveaxis(gx, 0, -1).flags.c_contiguous


def test_unpooling_repeats_each_element():
    x = np.array([[[[1.0, 2.0], [3.0, 4.0]]]])
    y = F.unpooling(Variable(x), (2, 3))
    np.testing.assert_array_equal(y.d[0, 0], np.kron(x[0, 0], np.ones((2, 3))))
    check_function(
        F.unpooling,
        [randn(2, 3, 2, 3)],
        kwargs={"kernel": (3, 2)},
        reference=lambda x: x.repeat(3, axis=2).repeat(2, axis=3),
    )
    check_function(
        F.unpooling,
        [randn(2, 3, 4)],
        kwargs={"kernel": (2,)},
        reference=lambda x: x.repeat(2, axis=2),
    )


def test_unpooling_channel_last():
    check_function(
        F.unpooling,
        [randn(2, 3, 2, 3)],
        kwargs={"kernel": (2, 2), "channel_last": True},
        reference=lambda x: x.repeat(2, axis=1).repeat(2, axis=2),
    )


def test_editor_shapes_and_kernel_share_one_pooling_rule():
    """The shape the editor shows is the shape the kernel produces (IgnoreBorder False too)."""
    from engine.core.ops.pooling import pooled_sizes

    cases = [
        ((5, 6), (3, 3), (2, 2), (0, 0)),
        ((8, 13), (5, 3), (1, 2), (0, 0)),
        ((5, 4), (2, 3), (3, 2), (1, 1)),
        ((7, 7), (3, 2), (2, 3), (1, 0)),
    ]
    for spatial, kernel, stride, pad in cases:
        for ignore_border in (True, False):
            y = F.max_pooling(Variable(randn(1, 1, *spatial)), kernel, stride, ignore_border, pad)
            assert y.shape[2:] == pooled_sizes(spatial, kernel, stride, pad, ignore_border)
    # NNC's editor shows ceil((in + 2p) / s), nnabla runs ceil((in + p) / s): 5 and 4, 7 and 6.
    assert pooled_sizes((7, 9), (3, 3), (2, 2), (1, 2), False) == (4, 6)
    assert pooled_sizes((7, 9), (3, 3), (2, 2), (1, 2), False, editor=True) == (5, 7)
    assert pooled_sizes((55,), (3,), (2,), (0,), False, editor=True) == (28,)
    assert pooled_sizes((7,), (3,), (2,), (1,), True, editor=True) == (4,)

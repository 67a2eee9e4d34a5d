import json

import numpy as np
import pytest

import engine.nn.functions as F
from engine.core import backend
from engine.core.autograd import Variable
from engine.testing import check_function

rng = np.random.default_rng(0)


def r(*shape):
    return rng.standard_normal(shape)


# ----------------------------------------------------------------------------- dropout


def test_dropout_gradient_uses_the_forward_mask():
    check_function(F.dropout, [r(3, 5)], kwargs={"p": 0.4}, seed=11)
    backend.seed(11)
    x = Variable(np.ones((3, 5)), need_grad=True)
    y = F.dropout(x, p=0.4)
    y.backward()
    np.testing.assert_array_equal(x.grad, y.data)  # d(x*m)/dx = m = y / x with x = 1


def test_dropout_values_and_rate():
    backend.seed(0)
    y = F.dropout(Variable(np.ones(20000)), p=0.25).data
    assert set(np.unique(y).tolist()) == {0.0, 1.0 / 0.75}
    assert abs((y == 0).mean() - 0.25) < 0.02


def test_dropout_seeded_and_output_mask():
    backend.seed(1)
    y, mask = F.dropout(Variable(np.full(6, 2.0)), p=0.5, output_mask=True)
    np.testing.assert_array_equal(y.data, mask.data * 4.0)
    assert F.dropout(Variable(np.ones(4)), p=0.0).data.tolist() == [1.0] * 4
    with pytest.raises(ValueError, match="p must be in"):
        F.dropout(Variable(np.ones(2)), p=1.0)


def test_fixed_seed_gives_a_reproducible_sequence():
    backend.seed(0)
    a = [F.dropout(Variable(np.ones(50)), seed=7).data for _ in range(2)]
    backend.seed(0)  # seeding the engine restarts fixed-seed sequences too
    b = [F.dropout(Variable(np.ones(50)), seed=7).data for _ in range(2)]
    np.testing.assert_array_equal(a[0], b[0])
    np.testing.assert_array_equal(a[1], b[1])
    assert not np.array_equal(a[0], a[1])


def test_fixed_seed_sequences_are_part_of_the_rng_state():
    """A checkpoint's RNG state restores layers with a fixed Seed too (exact resume)."""
    backend.seed(0)
    F.dropout(Variable(np.ones(50)), seed=7)
    state = backend.get_rng_state()
    expected = F.dropout(Variable(np.ones(50)), seed=7).data
    backend.seed(1)
    backend.set_rng_state(json.loads(json.dumps(state)))  # as a checkpoint stores it
    np.testing.assert_array_equal(F.dropout(Variable(np.ones(50)), seed=7).data, expected)


# ----------------------------------------------------------------------------- shapes


def test_concatenate_and_stack():
    a, b = r(2, 3), r(2, 1)
    check_function(
        lambda x, y: F.concatenate(x, y), [a, b], reference=lambda x, y: np.concatenate([x, y], 1)
    )
    check_function(
        lambda x, y: F.concatenate(x, y, axis=0),
        [a, r(1, 3)],
        reference=lambda x, y: np.concatenate([x, y], 0),
    )
    check_function(
        lambda x, y: F.stack(x, y, axis=1), [a, r(2, 3)], reference=lambda x, y: np.stack([x, y], 1)
    )


def test_reshape_transpose_broadcast():
    check_function(
        F.reshape, [r(2, 3)], kwargs={"shape": (3, -1)}, reference=lambda x: x.reshape(3, 2)
    )
    check_function(
        F.transpose,
        [r(2, 3, 1)],
        kwargs={"axes": (2, 0, 1)},
        reference=lambda x: x.transpose(2, 0, 1),
    )
    check_function(
        F.broadcast,
        [r(3, 1)],
        kwargs={"shape": (3, 2)},
        reference=lambda x: np.broadcast_to(x, (3, 2)),
    )
    with pytest.raises(ValueError, match="broadcast: only size-1"):
        F.broadcast(Variable(np.ones((2, 3))), (3, 3))
    with pytest.raises(ValueError, match="reshape: cannot reshape"):
        F.reshape(Variable(np.ones((2, 3))), (4,))


def test_broadcast_to_aligns_y_to_x():
    x, y = np.zeros((2, 3, 4)), r(3)
    check_function(
        F.broadcast_to,
        [x, y],
        kwargs={"axis": 1},
        need_grad=[False, True],
        reference=lambda x, y: np.broadcast_to(y[:, None], (2, 3, 4)),
    )
    check_function(
        F.broadcast_to,
        [x, r(3, 4)],
        need_grad=[False, True],
        reference=lambda x, y: np.broadcast_to(y, (2, 3, 4)),
    )
    with pytest.raises(ValueError, match="broadcast_to"):
        F.broadcast_to(Variable(x), Variable(np.ones(5)))


def test_tile_slice_flip():
    check_function(
        F.tile, [r(2, 3)], kwargs={"reps": (2, 1, 2)}, reference=lambda x: np.tile(x, (2, 1, 2))
    )
    check_function(F.tile, [r(3)], kwargs={"reps": 2}, reference=lambda x: np.tile(x, 2))
    check_function(
        F.slice,
        [r(2, 5, 3)],
        kwargs={"start": (1, 0), "stop": (5, 3), "step": (2, 2)},
        reference=lambda x: x[:, 1:5:2, 0:3:2],
    )
    check_function(F.flip, [r(2, 3)], kwargs={"axes": (0, 1)}, reference=lambda x: x[::-1, ::-1])
    check_function(F.flip, [r(2, 3)], reference=lambda x: x[:, ::-1])


@pytest.mark.parametrize(
    "mode, np_mode", [("constant", "constant"), ("reflect", "reflect"), ("repeat", "edge")]
)
def test_pad_modes_match_numpy(mode, np_mode):
    width = (1, 2, 0, 2)
    ref = {"constant": lambda x: np.pad(x, [(0, 0), (1, 2), (0, 2)], constant_values=0.5)}.get(
        mode, lambda x: np.pad(x, [(0, 0), (1, 2), (0, 2)], mode=np_mode)
    )
    check_function(
        F.pad,
        [r(2, 3, 3)],
        kwargs={"pad_width": width, "mode": mode, "constant_value": 0.5},
        reference=ref,
    )


def test_pad_reflect_wider_than_the_input_is_periodic():
    y = F.pad(Variable(np.array([0.0, 1.0, 2.0])), (4, 4), mode="reflect").data
    np.testing.assert_array_equal(y, [0, 1, 2, 1, 0, 1, 2, 1, 0, 1, 2])
    with pytest.raises(ValueError, match="pad_width"):
        F.pad(Variable(np.ones(3)), (1,))


def test_shift_borders():
    x = np.arange(4.0)
    assert F.shift(Variable(x), (1,)).data.tolist() == [0, 0, 1, 2]
    assert F.shift(Variable(x), (-2,)).data.tolist() == [2, 3, 3, 3]
    # reflect mirrors with the edge repeated: x[-1] -> x[0], x[-2] -> x[1]
    assert F.shift(Variable(x), (2,), border_mode="reflect").data.tolist() == [1, 0, 0, 1]
    check_function(
        F.shift,
        [r(2, 3, 4)],
        kwargs={"shifts": (1, -1)},
        reference=lambda a: a[:, [0, 0, 1]][:, :, [1, 2, 3, 3]],
    )


def test_matrix_diag_and_part():
    check_function(F.matrix_diag, [r(2, 3)], reference=lambda x: x[..., None] * np.eye(3))
    check_function(
        F.matrix_diag_part, [r(2, 3, 3)], reference=lambda x: np.diagonal(x, axis1=1, axis2=2)
    )


# ----------------------------------------------------------------------------- gradient shaping


def test_clip_grad_by_value():
    x = Variable(np.zeros(4), need_grad=True)
    lo, hi = Variable(np.full(4, -1.0)), Variable(np.full(4, 0.5))
    y = F.clip_grad_by_value(x, lo, hi)
    np.testing.assert_array_equal(y.data, x.data)
    y.backward(np.array([-3.0, -0.2, 0.4, 2.0]))
    np.testing.assert_allclose(x.grad, [-1.0, -0.2, 0.4, 0.5])


def test_clip_grad_by_norm_rescales_to_clip_norm():
    x = Variable(np.zeros((2, 2)), need_grad=True)
    F.clip_grad_by_norm(x, clip_norm=2.0, axes=(1,)).backward(np.array([[3.0, 4.0], [0.0, 0.0]]))
    np.testing.assert_allclose(x.grad, [[1.2, 1.6], [0.0, 0.0]])
    x.zero_grad()
    F.clip_grad_by_norm(x).backward(np.array([[0.0, 0.1], [0.0, 0.0]]))
    np.testing.assert_allclose(x.grad, [[0.0, 1.0], [0.0, 0.0]])  # small gradients grow too


def test_top_k_data_reduce_and_gradient():
    x = np.array([[3.0, -5.0, 1.0, 4.0], [0.5, 0.2, -0.1, 0.4]])
    y, idx = F.top_k_data(Variable(x), 2, with_index=True)
    np.testing.assert_array_equal(y.data, [[4.0, 3.0], [0.5, 0.4]])
    np.testing.assert_array_equal(idx.data, [[3, 0], [0, 3]])
    np.testing.assert_array_equal(
        F.top_k_data(Variable(x), 2, abs=True).data, [[-5.0, 4.0], [0.5, 0.4]]
    )
    np.testing.assert_array_equal(
        F.top_k_data(Variable(x), 1, reduce=False).data, [[0, 0, 0, 4.0], [0.5, 0, 0, 0]]
    )
    check_function(F.top_k_data, [r(2, 5)], kwargs={"k": 3})


def test_top_k_data_without_reduce_passes_the_whole_gradient():
    x = Variable(r(2, 3), need_grad=True)
    F.top_k_data(x, 1, reduce=False).backward(np.full((2, 3), 2.0))
    np.testing.assert_array_equal(x.grad, np.full((2, 3), 2.0))
    with pytest.raises(ValueError, match="k must be in"):
        F.top_k_data(x, 4)


def test_top_k_grad_keeps_the_largest_gradients():
    x = Variable(np.zeros((2, 3)), need_grad=True)
    y = F.top_k_grad(x, 1, abs=True)
    y.backward(np.array([[1.0, -3.0, 2.0], [0.5, 0.1, 0.2]]))
    np.testing.assert_array_equal(x.grad, [[0, -3.0, 0], [0.5, 0, 0]])


def test_sort_values_indices_and_gradient():
    x = np.array([[2.0, -1.0, 3.0], [0.0, 5.0, 1.0]])
    y, idx = F.sort(Variable(x), with_index=True)
    np.testing.assert_array_equal(y.data, np.sort(x))
    np.testing.assert_array_equal(idx.data, np.argsort(x))
    np.testing.assert_array_equal(
        F.sort(Variable(x), axis=0, reverse=True).data, [[2, 5, 3], [0, -1, 1]]
    )
    assert F.sort(Variable(x), only_index=True).data.dtype.kind == "i"
    check_function(
        F.sort,
        [r(3, 4)],
        kwargs={"axis": 0, "reverse": True},
        reference=lambda a: -np.sort(-a, axis=0),
    )


def test_prune_threshold_and_straight_through():
    x = np.array([0.1, -0.4, 0.3, -0.2, 0.5])  # sorted |x| = .1 .2 .3 .4 .5; idx int(4*0.5)=2 -> .3
    np.testing.assert_array_equal(F.prune(Variable(x), 0.5).data, [0, -0.4, 0.3, 0, 0.5])
    np.testing.assert_array_equal(F.prune(Variable(x), 1.0).data, np.zeros(5))
    np.testing.assert_array_equal(F.prune(Variable(x), 0.0).data, x)
    v = Variable(x, need_grad=True)
    F.prune(v, 0.5).backward()
    np.testing.assert_array_equal(v.grad, np.ones(5))


# ----------------------------------------------------------------------------- interpolate


@pytest.mark.parametrize(
    "kwargs, expected",
    [
        ({"align_corners": True}, [0, 0.5, 1, 1.5, 2]),
        ({}, [0, 0.6, 1.2, 1.8, 2.0]),
        ({"half_pixel": True}, [0, 0.4, 1.0, 1.6, 2.0]),
        ({"mode": "nearest"}, [0, 0, 1, 1, 2]),
        ({"mode": "nearest", "half_pixel_for_nn": True}, [0, 0, 1, 2, 2]),
    ],
)
def test_interpolate_1d_coordinates(kwargs, expected):
    y = F.interpolate(Variable(np.array([[0.0, 1.0, 2.0]])), output_size=(5,), **kwargs)
    np.testing.assert_allclose(y.data[0], expected, atol=1e-6)


def _bilinear_reference(x, oh, ow):
    """nnabla's linear_interpolate_2d with align_corners, one pixel at a time."""
    ih, iw = x.shape[-2:]
    out = np.zeros(x.shape[:-2] + (oh, ow))
    for oy in range(oh):
        fy = oy * (ih - 1) / (oh - 1)
        y1 = int(fy)
        y2, ly = min(y1 + 1, ih - 1), fy - y1
        for ox in range(ow):
            fx = ox * (iw - 1) / (ow - 1)
            x1 = int(fx)
            x2, lx = min(x1 + 1, iw - 1), fx - x1
            out[..., oy, ox] = (1 - ly) * ((1 - lx) * x[..., y1, x1] + lx * x[..., y1, x2]) + ly * (
                (1 - lx) * x[..., y2, x1] + lx * x[..., y2, x2]
            )
    return out


def test_interpolate_2d_linear_matches_pixel_loop_and_gradients():
    check_function(
        F.interpolate,
        [r(1, 2, 3, 2)],
        kwargs={"output_size": (4, 5), "align_corners": True},
        reference=lambda x: _bilinear_reference(x, 4, 5),
        atol=1e-6,
    )
    y = F.interpolate(Variable(r(1, 1, 3, 4)), scale=(2, 1.5))
    assert y.shape == (1, 1, 6, 6)


@pytest.mark.parametrize("size, out, kwargs", [
    ((2, 4), (7,), {"mode": "linear", "half_pixel": True}),
    ((1, 3, 2), (2, 5), {"mode": "nearest"}),
    ((1, 2, 3, 2), (3, 2, 3), {"mode": "linear"}),
])  # fmt: skip
def test_interpolate_gradients_1d_2d_3d(size, out, kwargs):
    check_function(F.interpolate, [r(*size)], kwargs={"output_size": out, **kwargs})


# ----------------------------------------------------------------------------- misc


def test_reset_nan_inf():
    x = np.array([1.0, np.nan, np.inf, -np.inf])
    np.testing.assert_array_equal(F.reset_nan(Variable(x), 5.0).data, [1, 5, np.inf, -np.inf])
    np.testing.assert_array_equal(F.reset_inf(Variable(x)).data[[0, 2, 3]], [1, 0, 0])
    v = Variable(x, need_grad=True)
    F.reset_nan(v).backward()
    np.testing.assert_array_equal(v.grad, [1, 0, 1, 1])
    check_function(F.reset_inf, [r(2, 3)], reference=lambda a: a)


def test_vat_noise_normalizes_and_writes_the_buffer():
    x = np.array([[3.0, 4.0], [0.0, 1.0]])
    buf = Variable(np.zeros((2, 2)))
    y = F.vat_noise(Variable(x), buf, eps=2.0)
    np.testing.assert_allclose(y.data, [[1.2, 1.6], [0.0, 2.0]], rtol=1e-6)
    (y * 3.0).backward()
    np.testing.assert_allclose(buf.data, np.full((2, 2), 6.0))
    assert buf.grad is None


def test_unlink_and_identity():
    x = Variable(r(2, 3), need_grad=True)
    u = F.unlink(x)
    assert not u.need_grad and u.creator is None
    np.testing.assert_array_equal(u.data, x.data)
    check_function(F.identity, [r(2, 3)], reference=lambda a: a)

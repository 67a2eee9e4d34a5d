import math

import numpy as np
import pytest

import engine.nn.functions as F
from engine.core import backend
from engine.core.autograd import Variable
from engine.core.ops import preprocess as P
from engine.testing import check_function

rng = np.random.default_rng(0)


def r(*shape):
    return rng.standard_normal(shape)


def test_one_hot():
    y = F.one_hot(Variable(np.array([[1], [0], [2]])), (3,))
    np.testing.assert_array_equal(y.data, np.eye(3)[[1, 0, 2]])
    assert y.data.dtype == np.float32
    y2 = F.one_hot(Variable(np.array([[[1, 2]]])), (2, 3))
    assert y2.shape == (1, 1, 2, 3) and y2.data[0, 0, 1, 2] == 1 and y2.data.sum() == 1
    with pytest.raises(ValueError, match="out of range"):
        F.one_hot(Variable(np.array([[3]])), (3,))
    with pytest.raises(ValueError, match="last axis"):
        F.one_hot(Variable(np.array([[1, 1]])), (3,))


# ----------------------------------------------------------------------------- crop, flip, shift


def test_random_flip_flips_whole_samples_and_has_gradient():
    check_function(F.random_flip, [r(3, 2, 3)], kwargs={"axes": (1, 2)}, seed=4)
    backend.seed(0)
    x = np.arange(40 * 3.0).reshape(40, 3)
    y = F.random_flip(Variable(x)).data
    flipped = np.all(y == x[:, ::-1], axis=1)
    assert np.all(flipped | np.all(y == x, axis=1))
    assert 5 < flipped.sum() < 35
    with pytest.raises(ValueError, match="axes must be >= base_axis"):
        F.random_flip(Variable(x), axes=(0,))


def test_random_shift_draws_each_shift_in_range():
    check_function(F.random_shift, [r(2, 3, 4)], kwargs={"shifts": (1, 2)}, seed=5)
    check_function(
        F.random_shift, [r(2, 5)], kwargs={"shifts": (2,), "border_mode": "reflect"}, seed=6
    )
    backend.seed(1)
    x = np.arange(30 * 5.0).reshape(30, 5)
    y = F.random_shift(Variable(x), (2,), border_mode="constant", constant_value=-1.0).data
    i = np.arange(5)
    candidates = {
        shift: np.where((i - shift >= 0) & (i - shift < 5), np.clip(i - shift, 0, 4), -1)
        for shift in range(-2, 3)
    }  # source column per output column, -1 = constant fill
    seen = set()
    for row, out in zip(x, y, strict=True):
        matches = [
            s
            for s, src in candidates.items()
            if np.array_equal(np.where(src < 0, -1.0, row[src]), out)
        ]
        assert len(matches) == 1
        seen.add(matches[0])
    assert seen == {-2, -1, 0, 1, 2}


def test_random_crop_takes_a_window_per_sample():
    check_function(F.random_crop, [r(2, 3, 4)], kwargs={"shape": (2, 2)}, seed=7)
    backend.seed(2)
    x = np.arange(20 * 6.0).reshape(20, 6)
    y = F.random_crop(Variable(x), (4,)).data
    offsets = y[:, 0] - x[:, 0]
    np.testing.assert_array_equal(y, x[:, :4] + offsets[:, None])
    assert set(offsets.tolist()) == {0.0, 1.0, 2.0}
    assert F.random_crop(Variable(r(2, 3, 5, 4)), (3, 2)).shape == (2, 3, 3, 2)
    with pytest.raises(ValueError, match="must fit"):
        F.random_crop(Variable(x), (7,))


# ----------------------------------------------------------------------------- random erase


def test_random_erase_boxes_values_and_gradient():
    check_function(
        F.random_erase, [r(2, 2, 4, 5)], kwargs={"prob": 1.0, "replacements": (0, 1)}, seed=3
    )
    backend.seed(3)
    x = np.full((6, 3, 8, 8), -5.0)
    y = F.random_erase(Variable(x), prob=1.0, area_ratios=(0.1, 0.3), replacements=(2.0, 3.0)).data
    erased = y != -5.0
    assert np.all((y[erased] >= 2.0) & (y[erased] < 3.0))
    for img in erased:
        np.testing.assert_array_equal(img[0], img[1])  # share=True: one box for all channels
        rows, cols = np.nonzero(img[0])
        assert rows.size and img[0][rows.min() : rows.max() + 1, cols.min() : cols.max() + 1].all()
    assert not np.any(F.random_erase(Variable(x), prob=0.0).data != -5.0)


def test_random_erase_unshared_channel_last_and_plain_ste():
    backend.seed(4)
    x = Variable(np.zeros((4, 8, 8, 3)), need_grad=True)
    y = F.random_erase(x, prob=1.0, share=False, channel_last=True, ste_fine_grained=False,
                       replacements=(1.0, 2.0))  # fmt: skip
    erased = y.data != 0
    assert any(not np.array_equal(e[..., 0], e[..., 1]) for e in erased)
    y.backward()
    np.testing.assert_array_equal(x.grad, np.ones(x.shape))
    with pytest.raises(ValueError, match="3 axes"):
        F.random_erase(Variable(np.zeros((2, 4, 4))))


# ----------------------------------------------------------------------------- mean subtraction


def test_mean_subtraction_updates_running_mean_in_place():
    mean, t = Variable(np.zeros(2)), Variable(np.zeros(1))
    x1 = Variable(np.array([[1.0, 2.0], [3.0, 6.0]]), need_grad=True)
    y1 = F.mean_subtraction(x1, mean, t)
    np.testing.assert_allclose(mean.data, [2.0, 4.0])
    assert t.data.tolist() == [1.0]
    np.testing.assert_allclose(y1.data, [[-1.0, -2.0], [1.0, 2.0]])
    y1.backward()
    np.testing.assert_allclose(x1.grad, np.full((2, 2), 1 - 1 / (1 * 2)))  # nnabla: 1 - 1/(t*B)
    y2 = F.mean_subtraction(Variable(np.array([[4.0, 0.0], [6.0, 2.0]])), mean, t)
    np.testing.assert_allclose(mean.data, [2 + (5 - 2) / 2, 4 + (1 - 4) / 2])  # cumulative average
    assert t.data.tolist() == [2.0]
    np.testing.assert_allclose(y2.data, [[0.5, -2.5], [2.5, -0.5]])


def test_mean_subtraction_test_mode_and_shape_errors():
    check_function(F.mean_subtraction, [r(3, 2, 2), r(2, 2), np.ones(1)],
                   kwargs={"update_running_mean": False}, need_grad=[True, False, False],
                   reference=lambda x, m, t: x - m)  # fmt: skip
    with pytest.raises(ValueError, match="mean must have shape"):
        F.mean_subtraction(Variable(np.zeros((2, 3))), Variable(np.zeros(2)), Variable(np.zeros(1)))


# ----------------------------------------------------------------------------- image augmentation


def _nnabla_loop(x2, q, out_hw, pad, cc):
    """Pixel-by-pixel port of nnabla's image_augmentation.cpp (noise-free)."""
    images, chans, h_in, w_in = x2.shape
    h_out, w_out = out_hw
    out = np.zeros((images, chans, h_out, w_out))
    for n in range(images):
        c, s = math.cos(q["angle"][n]), math.sin(q["angle"][n])
        isx, isy = q["i_scale_x"][n], q["i_scale_y"][n]
        x_ax = (-c if q["flip_lr"][n] else c) * isx
        y_ax = (s if q["flip_lr"][n] else -s) * isy
        x_ay = (-s if q["flip_ud"][n] else s) * isx
        y_ay = (-c if q["flip_ud"][n] else c) * isy
        cx, cy = (w_out - 1) * 0.5, (h_out - 1) * 0.5
        x0 = q["cx_scaled"][n] * isx - (x_ax * cx + y_ax * cy) - pad[1]
        y0 = q["cy_scaled"][n] * isy - (x_ay * cx + y_ay * cy) - pad[0]
        d = q["distortion"][n]
        for iy in range(h_out):
            for ix in range(w_out):
                xi, yi = x0 + ix * x_ax + iy * y_ax, y0 + ix * x_ay + iy * y_ay
                if d != 0:
                    wh, hh = w_out * 0.5, h_out * 0.5
                    dx, dy = (ix - wh) / wh, (iy - hh) / hh
                    r2 = dx * dx + dy * dy
                    dx = (dx + dx * d * r2) * wh / (1 + d) + wh
                    dy = (dy + dy * d * r2) * hh / (1 + d) + hh
                    xi, yi = x0 + dx * x_ax + dy * y_ax, y0 + dx * x_ay + dy * y_ay
                xi, yi = min(max(xi, 0.0), w_in - 1), min(max(yi, 0.0), h_in - 1)
                x1, y1 = int(xi), int(yi)
                fx, fy = xi - x1, yi - y1
                x2_, y2_ = min(x1 + 1, w_in - 1), min(y1 + 1, h_in - 1)
                for ch in range(chans):
                    v = x2[n, ch]
                    val = (v[y1, x1] * (1 - fx) * (1 - fy) + v[y1, x2_] * fx * (1 - fy)
                           + v[y2_, x1] * (1 - fx) * fy + v[y2_, x2_] * fx * fy)  # fmt: skip
                    b, k = q["brightness"][n, ch], q["contrast"][n, ch]
                    out[n, ch, iy, ix] = (val + b - cc) * k + cc
    return out


def test_image_augmentation_matches_nnabla_pixel_loop():
    settings = dict(min_scale=0.7, max_scale=1.6, angle=0.5, aspect_ratio=1.3, distortion=0.4,
                    flip_lr=True, flip_ud=True, brightness=0.2, brightness_each=True,
                    contrast=1.5, contrast_each=False, noise=0.0, pad=(1, 2))  # fmt: skip
    x2 = r(3, 2, 5, 6)
    q = P._augmentation_params(np, np.random.default_rng(9), 3, 2, (5, 6), (4, 5), settings)
    got = P._augment(x2, q, (4, 5), (1, 2), 0.5, None)
    np.testing.assert_allclose(got, _nnabla_loop(x2, q, (4, 5), (1, 2), 0.5), atol=1e-12)
    assert q["distortion"].min() != 0 and q["flip_lr"].any() and not q["flip_lr"].all()
    q["distortion"] = q["distortion"] * 0  # the undistorted path walks rows differently in nnabla
    got = P._augment(x2, q, (4, 5), (1, 2), 0.5, None)
    np.testing.assert_allclose(got, _nnabla_loop(x2, q, (4, 5), (1, 2), 0.5), atol=1e-12)


def test_image_augmentation_defaults_are_the_identity_and_flip_mirrors():
    x = r(4, 3, 5, 6).astype(np.float32)
    y = F.image_augmentation(Variable(x))
    assert y.data.dtype == np.float32 and y.creator is None
    np.testing.assert_allclose(y.data, x, atol=1e-6)
    backend.seed(5)
    y = F.image_augmentation(Variable(np.tile(x, (5, 1, 1, 1))), flip_lr=True).data
    flipped = [
        np.allclose(a, b[..., ::-1], atol=1e-6)
        for a, b in zip(y, np.tile(x, (5, 1, 1, 1)), strict=True)
    ]
    assert any(flipped) and not all(flipped)


def test_image_augmentation_photometric_ranges_shape_and_seed():
    x = np.full((8, 2, 4, 4), 0.25)
    backend.seed(6)
    y = F.image_augmentation(Variable(x), brightness=0.1).data
    delta = y - x
    assert np.allclose(delta, delta[:, :1, :1, :1]) and np.all(np.abs(delta) <= 0.1 + 1e-12)
    y = F.image_augmentation(
        Variable(x), contrast=2.0, contrast_center=0.5, contrast_each=True
    ).data
    gain = (y - 0.5) / (0.25 - 0.5)
    assert np.all((gain >= 0.5 - 1e-12) & (gain <= 2.0 + 1e-12))
    assert not np.allclose(gain[:, 0], gain[:, 1])
    small = F.image_augmentation(Variable(r(2, 3, 6, 7)), shape=(3, 4, 5), min_scale=0.8, angle=0.3)
    assert small.shape == (2, 3, 4, 5)
    backend.seed(8)
    a = F.image_augmentation(Variable(x), noise=0.1, angle=0.2).data
    backend.seed(8)
    np.testing.assert_array_equal(a, F.image_augmentation(Variable(x), noise=0.1, angle=0.2).data)
    with pytest.raises(ValueError, match="only height and width"):
        F.image_augmentation(Variable(x), shape=(3, 4, 4))

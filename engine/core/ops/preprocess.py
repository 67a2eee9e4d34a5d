"""Others (Pre Process) layers: nnabla ``one_hot``, ``random_crop``, ``random_flip``,
``random_shift``, ``random_erase``, ``mean_subtraction`` and ``image_augmentation``.

Random layers draw from :func:`others.random_generator` (the engine's generator for
``seed=-1``, else a generator kept per seed) and decide per sample (the axes before
``base_axis``), as nnabla's CPU kernels do. The draws are vectorized, so the stream of random
numbers differs from nnabla's mt19937 loop; the distributions are the same. One deviation:
nnabla's CPU RandomCrop/RandomFlip/RandomShift/RandomErase *copy* their generator in forward, so
with a fixed seed they repeat one draw forever; here every call draws anew.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from engine.core import backend
from engine.core.autograd import Function, Variable, as_variable
from engine.core.backend import get_array_module
from engine.core.ops._indexing import as_indices
from engine.core.ops.others import (
    axis_table,
    gather,
    normalize_axis,
    on_module,
    random_generator,
    reshape,
    shift_table,
)

__all__ = [
    "one_hot", "random_crop", "random_flip", "random_shift", "random_erase",
    "mean_subtraction", "image_augmentation",
]  # fmt: skip


def one_hot(x, shape: Sequence[int]) -> Variable:
    """nnabla ``one_hot``: indices (..., len(shape)) -> float32 one-hot (..., *shape); float
    indices are truncated, as nnabla casts them."""
    x = as_variable(x)
    shape = tuple(int(s) for s in shape)
    idx = x.data
    if idx.dtype.kind not in "iuf" or idx.shape[-1:] != (len(shape),):
        raise ValueError(
            f"one_hot: x must be indices with last axis {len(shape)} (= len(shape)). "
            f"Received: x.shape={x.shape}, dtype={idx.dtype}, shape={shape}"
        )
    xp = get_array_module(idx)
    idx = as_indices(idx, "one_hot")
    bad = (idx < 0) | (idx >= xp.asarray(shape))
    backend.check_later(  # on a device: at the next read-back, not with a sync per call
        bad.any(),
        lambda: ValueError(
            f"one_hot: index out of range of shape={shape}. Received: x={idx[bad][:5].tolist()}"
        ),
    )
    strides = np.cumprod((1,) + shape[:0:-1])[::-1].copy()
    flat = (idx.reshape(-1, len(shape)) * xp.asarray(strides)).sum(axis=1)
    size = int(np.prod(shape))
    y = xp.zeros((flat.size, size), dtype=np.float32)
    y[xp.arange(flat.size), xp.clip(flat, 0, size - 1)] = 1  # bad rows: reported, not written
    return Variable(y.reshape(idx.shape[:-1] + shape))


# ----------------------------------------------------------------------------- per-sample gathers


def _split(x: Variable, base_axis: int, name: str) -> tuple[tuple[int, ...], int]:
    if not 0 <= base_axis < x.ndim:
        raise ValueError(
            f"{name}: base_axis must be in [0, {x.ndim}). Received: base_axis={base_axis}"
        )
    lead = x.shape[:base_axis]
    return lead, int(np.prod(lead))


def _per_sample_gather(x: Variable, base_axis: int, tables: list, valid: Any = None, fill=0.0):
    """Gather ``x`` viewed as (samples, *sample_shape) with tables for axes 1.. (see gather)."""
    lead, samples = _split(x, base_axis, "gather")
    xp = get_array_module(x.data)
    rest = x.shape[base_axis:]
    xr = reshape(x, (samples,) + rest)
    first = axis_table(xp, xp.arange(samples), 0, len(rest) + 1)
    y = gather(xr, [first] + tables, valid, fill)
    return reshape(y, lead + y.shape[1:])


def random_flip(
    x, axes: Sequence[int] | None = None, base_axis: int = 1, seed: int = -1
) -> Variable:
    """nnabla ``random_flip``: each sample is flipped along each of ``axes`` with probability 1/2.

    ``axes`` counts the batch axis (default: the last axis) and must lie at or after base_axis.
    """
    x = as_variable(x)
    lead, samples = _split(x, base_axis, "random_flip")
    axes = [x.ndim - 1] if axes is None else [normalize_axis(int(a), x.ndim, "axes") for a in axes]
    if min(axes) < base_axis:
        raise ValueError(
            f"random_flip: axes must be >= base_axis={base_axis}. Received: axes={axes}"
        )
    xp = get_array_module(x.data)
    coin = on_module(xp, random_generator(seed).integers(0, 2, size=(samples, x.ndim))) == 1
    nd = x.ndim - base_axis + 1
    tables = []
    for axis in range(base_axis, x.ndim):
        n = x.shape[axis]
        ar = xp.arange(n)[None, :]
        idx = xp.where(coin[:, axis : axis + 1] & (axis in axes), n - 1 - ar, ar)
        tables.append(axis_table(xp, idx, axis - base_axis + 1, nd, per_sample=True))
    return _per_sample_gather(x, base_axis, tables)


def random_shift(
    x,
    shifts: Sequence[int] | None = None,
    border_mode: str = "nearest",
    constant_value: float = 0.0,
    base_axis: int = 1,
    seed: int = -1,
) -> Variable:
    """nnabla ``random_shift``: per sample, shift the trailing axes by a uniform integer in
    [-shifts[i], shifts[i]]; borders by ``border_mode`` ('nearest', 'reflect', 'constant')."""
    x = as_variable(x)
    lead, samples = _split(x, base_axis, "random_shift")
    shifts = [0] * (x.ndim - base_axis) if shifts is None else [int(s) for s in shifts]
    if len(shifts) > x.ndim - base_axis or min(shifts, default=0) < 0:
        raise ValueError(
            f"random_shift: at most {x.ndim - base_axis} non-negative shifts for "
            f"x.shape={x.shape}. Received: shifts={shifts}"
        )
    xp = get_array_module(x.data)
    gen = random_generator(seed)
    nd = x.ndim - base_axis + 1
    first = x.ndim - len(shifts)
    tables, valid = [], None
    for axis in range(base_axis, x.ndim):
        m = shifts[axis - first] if axis >= first else 0
        s = on_module(xp, gen.integers(-m, m + 1, size=samples))
        idx, ok = shift_table(x.shape[axis], s, border_mode, xp)
        tables.append(axis_table(xp, idx, axis - base_axis + 1, nd, per_sample=True))
        if ok is not None:
            ok = axis_table(xp, ok, axis - base_axis + 1, nd, per_sample=True)
            valid = ok if valid is None else valid & ok
    return _per_sample_gather(x, base_axis, tables, valid, constant_value)


def random_crop(
    x, shape: Sequence[int] | None = None, base_axis: int = 1, seed: int = -1
) -> Variable:
    """nnabla ``random_crop``: a uniformly placed window of ``shape`` (trailing axes) per sample."""
    x = as_variable(x)
    lead, samples = _split(x, base_axis, "random_crop")
    shape = tuple(x.shape[base_axis:]) if shape is None else tuple(int(s) for s in shape)
    first = x.ndim - len(shape)
    if first < base_axis or any(
        s > n or s < 1 for s, n in zip(shape, x.shape[first:], strict=True)
    ):
        raise ValueError(
            f"random_crop: shape must fit the sample axes of x.shape={x.shape}. "
            f"Received: shape={shape}"
        )
    xp = get_array_module(x.data)
    gen = random_generator(seed)
    nd = x.ndim - base_axis + 1
    tables = []
    for axis in range(base_axis, x.ndim):
        n = x.shape[axis]
        size = shape[axis - first] if axis >= first else n
        left = on_module(xp, gen.integers(0, n - size + 1, size=samples))
        idx = left[:, None] + xp.arange(size)[None, :]
        tables.append(axis_table(xp, idx, axis - base_axis + 1, nd, per_sample=True))
    return _per_sample_gather(x, base_axis, tables)


# ----------------------------------------------------------------------------- random erase


class RandomErase(Function):
    def __init__(self, masks, replacements, gen, ste_fine_grained) -> None:
        self.masks, self.replacements, self.gen = masks, replacements, gen
        self.ste = ste_fine_grained

    def forward(self, x):
        xp = get_array_module(x)
        lo, hi = self.replacements
        y = x.copy()
        for mask in self.masks:  # later patches overwrite earlier ones, as nnabla
            values = lo + (hi - lo) * on_module(xp, self.gen.random(x.shape))
            y = xp.where(mask, values.astype(x.dtype), y)
        return y

    def backward(self, gy):
        if not self.ste:
            return gy
        xp = get_array_module(gy)
        erased = self.masks[0]
        for mask in self.masks[1:]:
            erased = erased | mask
        return xp.where(erased, gy.dtype.type(0), gy)


def _erase_masks(xp, gen, n, samples, chans, hw, prob, area_ratios, aspect_ratios):
    """nnabla's generate_random_coords: boxes [ys, ys+He] x [xs, xs+We] (inclusive ends)."""
    h, w = hw
    size = (n, samples, chans, 1, 1)

    def uniform(lo, hi):
        return lo + (hi - lo) * on_module(xp, gen.random(size))

    area = uniform(*area_ratios) * (h * w)
    aspect = uniform(*aspect_ratios)
    he = xp.minimum(xp.floor(xp.sqrt(area * aspect)), h)
    we = xp.minimum(xp.floor(xp.sqrt(area / aspect)), w)
    eprob = uniform(0.0, 1.0)
    ys = xp.floor(uniform(0.0, 1.0) * (h - he + 1))
    xs = xp.floor(uniform(0.0, 1.0) * (w - we + 1))
    row = xp.arange(h).reshape(h, 1)
    col = xp.arange(w).reshape(1, w)
    return (eprob <= prob) & (ys <= row) & (row <= ys + he) & (xs <= col) & (col <= xs + we)


def random_erase(
    x,
    prob: float = 0.5,
    area_ratios: Sequence[float] = (0.02, 0.4),
    aspect_ratios: Sequence[float] = (0.3, 3.3333),
    replacements: Sequence[float] = (0.0, 255.0),
    n: int = 1,
    share: bool = True,
    inplace: bool = False,
    base_axis: int = 1,
    seed: int = -1,
    channel_last: bool = False,
    ste_fine_grained: bool = True,
) -> Variable:
    """nnabla ``random_erase``: ``n`` random boxes per image, each kept with probability ``prob``,
    filled with uniform values in ``replacements``; one box for all channels when ``share``.

    The sample must be (C, H, W) (or (H, W, C) with ``channel_last``). Backward: zero inside the
    erased boxes when ``ste_fine_grained``, else the identity. ``inplace`` is ignored (obsolete in
    nnabla too).
    """
    x = as_variable(x)
    lead, samples = _split(x, base_axis, "random_erase")
    if x.ndim - base_axis != 3:
        raise ValueError(f"random_erase: the sample must have 3 axes. Received: x.shape={x.shape}")
    if not 0.0 <= prob <= 1.0 or n < 1 or len(area_ratios) != 2 or len(aspect_ratios) != 2:
        raise ValueError(
            f"random_erase: prob in [0, 1], n >= 1 and two area/aspect ratios expected. "
            f"Received: prob={prob}, n={n}, area_ratios={area_ratios}, "
            f"aspect_ratios={aspect_ratios}"
        )
    if len(replacements) != 2:
        raise ValueError(f"random_erase: two replacements expected. Received: {replacements}")
    c, h, w = (x.shape[-1], *x.shape[-3:-1]) if channel_last else x.shape[-3:]
    xp = get_array_module(x.data)
    gen = random_generator(seed)
    chans = 1 if share else c
    masks = _erase_masks(xp, gen, n, samples, chans, (h, w), prob, area_ratios, aspect_ratios)
    masks = xp.broadcast_to(masks, (n, samples, c, h, w))
    if channel_last:
        masks = xp.moveaxis(masks, 2, -1)
    masks = [m.reshape(x.shape) for m in masks]
    replacements = (float(replacements[0]), float(replacements[1]))
    return RandomErase(masks, replacements, gen, ste_fine_grained)(x)


# ----------------------------------------------------------------------------- mean subtraction


class MeanSubtraction(Function):
    def __init__(self, base_axis: int, update: bool) -> None:
        self.base_axis, self.update = base_axis, update

    def forward(self, x, mean, t):
        if self.update:
            axes = tuple(range(self.base_axis))
            batch = int(np.prod(x.shape[: self.base_axis]))
            # The count stays on the device (a 0-d array: no host sync per step).
            n = t.reshape(-1)[0] + 1
            # In place, as nnabla: the running mean and its update count are layer state.
            mean[...] = mean + (x.mean(axis=axes) - mean) / n
            t[...] = n
            self.factor = (1.0 / (n * batch)).astype(x.dtype)
        return x - mean.astype(x.dtype)

    def backward(self, gy):
        if not self.update:
            return gy, None, None
        # nnabla's gradient: dy * (1 - 1 / (t * batch)), element-wise (it ignores the coupling
        # of the batch mean across samples; kept for parity).
        return gy * (1.0 - self.factor).astype(gy.dtype), None, None


def mean_subtraction(x, mean, t, base_axis: int = 1, update_running_mean: bool = True) -> Variable:
    """nnabla ``mean_subtraction``: ``y = x - running_mean``.

    With ``update_running_mean`` the running mean first moves to the cumulative average of the
    batch means, ``rm += (batch_mean - rm) / (t + 1)``, and ``t += 1``; both are written in place.
    ``mean`` has shape ``x.shape[base_axis:]``; ``t`` has one element.
    """
    x, mean, t = as_variable(x), as_variable(mean), as_variable(t)
    if mean.shape != x.shape[base_axis:] or t.size != 1:
        raise ValueError(
            f"mean_subtraction: mean must have shape {x.shape[base_axis:]} and t one element. "
            f"Received: mean.shape={mean.shape}, t.shape={t.shape}"
        )
    return MeanSubtraction(base_axis, update_running_mean)(x, mean, t)


# ----------------------------------------------------------------------------- image augmentation


def _augmentation_params(xp, gen, images, channels, in_hw, out_hw, p) -> dict:
    """Per-image random parameters, drawn like nnabla's image_augmentation.cpp."""

    def u(*size):  # nnabla: (rgen() % 1001) * 0.001, i.e. 1001 evenly spaced values in [0, 1]
        return on_module(xp, gen.integers(0, 1001, size=size)).astype(np.float64) * 0.001

    (h_in, w_in), (h_out, w_out) = in_hw, out_hw
    scale = p["min_scale"] * xp.exp(u(images) * math.log(p["max_scale"] / p["min_scale"]))
    log_ar = math.log(p["aspect_ratio"])
    scale_x = xp.exp(-log_ar * 0.5 + u(images) * log_ar)
    angle = -p["angle"] + u(images) * p["angle"] * 2
    w_scaled = (w_in + 2 * p["pad"][1]) * scale * scale_x
    h_scaled = (h_in + 2 * p["pad"][0]) * scale / scale_x
    cx_scaled = u(images) * (w_scaled - w_out) + (w_out - 1) * 0.5
    cy_scaled = u(images) * (h_scaled - h_out) + (h_out - 1) * 0.5
    coin = on_module(xp, gen.integers(0, 2, size=(2, images))) == 1
    b, log_c = p["brightness"], math.log(p["contrast"])
    brightness = (u(images, channels) if p["brightness_each"] else u(images, 1)) * b * 2 - b
    contrast_u = u(images, channels) if p["contrast_each"] else u(images, 1)
    return {
        "i_scale_x": 1.0 / (scale * scale_x),
        "i_scale_y": scale_x / scale,
        "angle": angle,
        "cx_scaled": cx_scaled,
        "cy_scaled": cy_scaled,
        "flip_lr": coin[0] & bool(p["flip_lr"]),
        "flip_ud": coin[1] & bool(p["flip_ud"]),
        "brightness": xp.broadcast_to(brightness, (images, channels)),
        "contrast": xp.broadcast_to(
            xp.exp(contrast_u * log_c * 2) / p["contrast"], (images, channels)
        ),
        "distortion": xp.exp(u(images) * 2 * p["distortion"] - p["distortion"]) - 1,
        "noise": u(images) * p["noise"],
    }


def _augment(x2, q, out_hw, pad, contrast_center, normal):
    """Warp + photometric change of (images, C, H, W) ``x2`` with parameters ``q`` (float64)."""
    xp = get_array_module(x2)
    images, chans, h_in, w_in = x2.shape
    h_out, w_out = out_hw
    col = lambda a: a.reshape(-1, 1, 1)  # noqa: E731 - per-image scalar broadcast over pixels
    cos, sin = xp.cos(q["angle"]), xp.sin(q["angle"])
    x_ax = xp.where(q["flip_lr"], -cos, cos) * q["i_scale_x"]
    y_ax = xp.where(q["flip_lr"], sin, -sin) * q["i_scale_y"]
    x_ay = xp.where(q["flip_ud"], -sin, sin) * q["i_scale_x"]
    y_ay = xp.where(q["flip_ud"], -cos, cos) * q["i_scale_y"]
    cx, cy = (w_out - 1) * 0.5, (h_out - 1) * 0.5
    x0 = q["cx_scaled"] * q["i_scale_x"] - (x_ax * cx + y_ax * cy) - pad[1]
    y0 = q["cy_scaled"] * q["i_scale_y"] - (x_ay * cx + y_ay * cy) - pad[0]
    px = xp.arange(w_out, dtype=np.float64).reshape(1, 1, w_out)
    py = xp.arange(h_out, dtype=np.float64).reshape(1, h_out, 1)
    # Barrel/pincushion distortion around the output centre (only where distortion != 0).
    wh, hh, d = w_out * 0.5, h_out * 0.5, col(q["distortion"])
    dx, dy = (px - wh) / wh, (py - hh) / hh
    r2 = dx * dx + dy * dy
    px = xp.where(d != 0, (dx + dx * d * r2) * wh / (1 + d) + wh, px)
    py = xp.where(d != 0, (dy + dy * d * r2) * hh / (1 + d) + hh, py)
    x_in = xp.clip(col(x0) + px * col(x_ax) + py * col(y_ax), 0, w_in - 1)
    y_in = xp.clip(col(y0) + px * col(x_ay) + py * col(y_ay), 0, h_in - 1)
    ix, iy = xp.floor(x_in), xp.floor(y_in)
    fx, fy = x_in - ix, y_in - iy
    ix, iy = ix.astype(np.int64), iy.astype(np.int64)
    ix1, iy1 = xp.minimum(ix + 1, w_in - 1), xp.minimum(iy + 1, h_in - 1)
    base = (xp.arange(images * chans) * (h_in * w_in)).reshape(images, chans, 1, 1)
    flat = x2.reshape(-1)

    def at(yy, xx):
        return flat[base + (yy * w_in + xx)[:, None]]

    out = (
        at(iy, ix) * ((1 - fx) * (1 - fy))[:, None]
        + at(iy, ix1) * (fx * (1 - fy))[:, None]
        + at(iy1, ix) * ((1 - fx) * fy)[:, None]
        + at(iy1, ix1) * (fx * fy)[:, None]
    )
    bright = (q["brightness"] - contrast_center)[:, :, None, None]
    out = (out + bright) * q["contrast"][:, :, None, None] + contrast_center
    if normal is not None:
        out = out + normal * q["noise"].reshape(-1, 1, 1, 1)
    return out


def image_augmentation(
    x,
    shape: Sequence[int] | None = None,
    pad: Sequence[int] = (0, 0),
    min_scale: float = 1.0,
    max_scale: float = 1.0,
    angle: float = 0.0,
    aspect_ratio: float = 1.0,
    distortion: float = 0.0,
    flip_lr: bool = False,
    flip_ud: bool = False,
    brightness: float = 0.0,
    brightness_each: bool = False,
    contrast: float = 1.0,
    contrast_center: float = 0.0,
    contrast_each: bool = False,
    noise: float = 0.0,
    seed: int = -1,
) -> Variable:
    """nnabla ``image_augmentation``: per image, a random scale/aspect/rotation (radians)/shift/
    flip/lens distortion resampled bilinearly (edges clamped, ``pad`` widens the placement range),
    then ``(v + brightness - contrast_center) * contrast + contrast_center`` and Gaussian noise.

    The trailing ``len(shape)`` axes become ``shape``; only height and width may change. As in
    nnabla there is no gradient: the output is cut from the graph.
    """
    x = as_variable(x)
    shape = tuple(x.shape) if shape is None else tuple(int(s) for s in shape)
    if x.ndim < 2 or len(shape) < 2 or len(shape) > x.ndim or len(pad) != 2:
        raise ValueError(
            f"image_augmentation: x and shape need >= 2 axes (height, width) and pad 2 values. "
            f"Received: x.shape={x.shape}, shape={shape}, pad={tuple(pad)}"
        )
    out_shape = x.shape[: x.ndim - len(shape)] + shape
    if out_shape[:-2] != x.shape[:-2]:
        raise ValueError(
            f"image_augmentation: only height and width may change. "
            f"Received: x.shape={x.shape}, shape={shape}"
        )
    if min_scale <= 0 or max_scale <= 0 or aspect_ratio <= 0 or contrast <= 0:
        raise ValueError(
            "image_augmentation: min_scale, max_scale, aspect_ratio and contrast must be > 0. "
            f"Received: {min_scale}, {max_scale}, {aspect_ratio}, {contrast}"
        )
    data = x.data
    xp = get_array_module(data)
    h_in, w_in = x.shape[-2:]
    chans = x.shape[-3] if x.ndim >= 3 else 1
    images = data.size // (chans * h_in * w_in)
    gen = random_generator(seed)
    settings = dict(
        min_scale=min_scale, max_scale=max_scale, angle=angle, aspect_ratio=aspect_ratio,
        distortion=distortion, flip_lr=flip_lr, flip_ud=flip_ud, brightness=brightness,
        brightness_each=brightness_each, contrast=contrast, contrast_each=contrast_each,
        noise=noise, pad=tuple(pad),
    )  # fmt: skip
    q = _augmentation_params(xp, gen, images, chans, (h_in, w_in), out_shape[-2:], settings)
    out_size = (images, chans) + tuple(out_shape[-2:])
    normal = on_module(xp, gen.standard_normal(out_size)) if noise > 0 else None
    x2 = data.reshape(images, chans, h_in, w_in).astype(np.float64)
    y = _augment(x2, q, out_shape[-2:], tuple(pad), float(contrast_center), normal)
    return Variable(y.astype(data.dtype).reshape(out_shape))

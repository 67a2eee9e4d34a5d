"""Kernel SHAP (Lundberg and Lee, NeurIPS 2017) of any function of a feature vector.

The value of a coalition S is the mean of ``f`` over the background rows with the features of
S taken from ``x`` (interventional SHAP). With every coalition enumerated (2^M <= ``samples``)
the constrained weighted least squares on the Shapley kernel gives the exact Shapley values;
otherwise coalitions are drawn by the kernel's size distribution. Attributions always sum to
``f(x) - E f`` (the constraint is solved exactly). Images use superpixels as features
(:func:`grid_segments`), masked to the background value.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from math import comb

import numpy as np

__all__ = ["exact_shapley", "grid_segments", "kernel_shap", "masked_images"]

Function = Callable[[np.ndarray], np.ndarray]  # (N, M) rows -> (N,) outputs


def _values(f: Function, x: np.ndarray, background: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """v(S) for each mask row: mean over the background of f(x on S, background elsewhere)."""
    n, b = len(masks), len(background)
    rows = np.where(masks[:, None, :], x[None, None, :], background[None, :, :])
    return np.asarray(f(rows.reshape(n * b, -1)), np.float64).reshape(n, b).mean(axis=1)


def kernel_shap(
    f: Function, x: np.ndarray, background: np.ndarray, samples: int = 2048, seed: int = 0
) -> tuple[np.ndarray, float]:
    """``(phi, expected value)`` for the feature vector ``x``."""
    x = np.asarray(x, np.float64).ravel()
    background = np.asarray(background, np.float64).reshape(-1, x.size)
    m = x.size
    expected = float(_values(f, x, background, np.zeros((1, m), bool))[0])
    fx = float(_values(f, x, background, np.ones((1, m), bool))[0])
    if m == 1:
        return np.array([fx - expected]), expected
    if 2**m - 2 <= samples:
        masks = np.array([[(k >> j) & 1 for j in range(m)] for k in range(1, 2**m - 1)], bool)
        sizes = masks.sum(axis=1)
        weights = (m - 1) / (np.array([comb(m, s) for s in sizes]) * sizes * (m - sizes))
    else:
        rng = np.random.default_rng(seed)
        size_range = np.arange(1, m)
        p = (m - 1) / (size_range * (m - size_range))
        sizes = rng.choice(size_range, size=samples, p=p / p.sum())
        masks = np.zeros((samples, m), bool)
        for row, s in zip(masks, sizes, strict=True):
            row[rng.choice(m, size=s, replace=False)] = True
        weights = np.ones(samples)
    v = _values(f, x, background, masks) - expected
    delta = fx - expected
    # phi_last = delta - sum(others): solve the weighted least squares for the others
    z = masks.astype(np.float64)
    a = z[:, :-1] - z[:, -1:]
    y = v - z[:, -1] * delta
    w = np.sqrt(weights)
    head, *_ = np.linalg.lstsq(a * w[:, None], y * w, rcond=None)
    return np.r_[head, delta - head.sum()], expected


def exact_shapley(f: Function, x: np.ndarray, background: np.ndarray) -> np.ndarray:
    """Shapley values by the definition: every coalition, every feature (2^M M calls)."""
    x = np.asarray(x, np.float64).ravel()
    background = np.asarray(background, np.float64).reshape(-1, x.size)
    m = x.size
    cache: dict[tuple[int, ...], float] = {}

    def v(s: tuple[int, ...]) -> float:
        if s not in cache:
            mask = np.zeros((1, m), bool)
            mask[0, list(s)] = True
            cache[s] = float(_values(f, x, background, mask)[0])
        return cache[s]

    phi = np.zeros(m)
    for i in range(m):
        others = [j for j in range(m) if j != i]
        for size in range(m):
            weight = 1.0 / (m * comb(m - 1, size))
            for s in itertools.combinations(others, size):
                phi[i] += weight * (v(tuple(sorted((*s, i)))) - v(s))
    return phi


def grid_segments(shape: tuple[int, ...], cells: int) -> np.ndarray:
    """(H, W) superpixel labels: a ``cells`` x ``cells`` grid over the image."""
    h, w = shape[-2], shape[-1]
    rows = np.minimum(np.arange(h) * cells // h, cells - 1)
    cols = np.minimum(np.arange(w) * cells // w, cells - 1)
    return rows[:, None] * cells + cols[None, :]


def masked_images(image: np.ndarray, segments: np.ndarray, baseline: float) -> Function:
    """Turn a (N, segments) 0/1-ish matrix of kept superpixels into images (N, *image.shape)."""

    def build(rows: np.ndarray) -> np.ndarray:
        keep = rows[:, segments] > 0.5  # (N, H, W)
        keep = keep[:, None] if image.ndim == 3 else keep
        return np.where(keep, image[None], baseline)

    return build

"""LIME (Ribeiro et al., KDD 2016) over superpixels: a weighted linear model of the class score
fitted on random subsets of kept superpixels, weighted by their closeness to the whole image
(exp(-d^2 / width^2), d the cosine distance of the 0/1 vectors, as the lime package)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

__all__ = ["lime_weights"]


def lime_weights(
    f: Callable[[np.ndarray], np.ndarray],
    features: int,
    samples: int = 1000,
    *,
    seed: int = 0,
    kernel_width: float = 0.25,
    ridge: float = 1.0,
) -> tuple[np.ndarray, float]:
    """``(weight per feature, intercept)`` of the local linear model of ``f`` (0/1 rows)."""
    rng = np.random.default_rng(seed)
    z = rng.integers(0, 2, (samples, features)).astype(np.float64)
    z[0] = 1.0  # the image itself
    y = np.asarray(f(z), np.float64)
    norms = np.linalg.norm(z, axis=1) * np.sqrt(features)
    cosine = np.divide(z.sum(axis=1), norms, out=np.zeros(samples), where=norms > 0)
    distance = 1.0 - cosine
    w = np.exp(-(distance**2) / kernel_width**2)
    # weighted ridge regression with an unpenalised intercept (centred by the weighted means)
    zm, ym = (w @ z) / w.sum(), float(w @ y) / w.sum()
    zc, yc = z - zm, y - ym
    a = (zc * w[:, None]).T @ zc + ridge * np.eye(features)
    coef = np.linalg.solve(a, (zc * w[:, None]).T @ yc)
    return coef, ym - float(zm @ coef)

"""NNC's "Network Feature + Gaussian Process": pick the candidate a GP expects to improve most.

Features are the network statistics and layer counts (:func:`engine.search.candidate.describe`),
log-scaled. A Gaussian process (scikit-learn's, Matern kernel plus noise) fitted on the finished
attempts predicts each candidate's validation error; CostMultiplyAdd needs no model, it is known
exactly. A candidate's expected improvement is measured against the best error among attempts
that cost no more than it does, so for the two-objective search it rewards moving the Pareto
front anywhere along it (below the cheapest attempt, against a reference error); for the error
objective the reference is the best error overall.
Optuna's own samplers propose parameter values from declared distributions; here the choices
are networks, so the study keeps the bookkeeping and this module scores candidates.
"""

from __future__ import annotations

import math
import random
import warnings
from typing import Any

import numpy as np
import optuna

from engine.core import optional
from engine.graph.project import Project
from engine.search.candidate import Candidate, CandidateError, propose
from engine.search.study import Settings

# scikit-learn's Gaussian process (and SciPy, which it brings) once attempts have finished
gaussian_process = optional.lazy("sklearn.gaussian_process", "the structure search")
kernels = optional.lazy("sklearn.gaussian_process.kernels", "the structure search")
sklearn_exceptions = optional.lazy("sklearn.exceptions", "the structure search")
stats = optional.lazy("scipy.stats", "the structure search")

__all__ = ["choose", "expected_improvement", "CANDIDATES", "MIN_OBSERVATIONS"]

CANDIDATES = 8  # sound candidates scored per attempt
MIN_OBSERVATIONS = 3  # below this the GP has nothing to learn from: pick at random


def choose(
    finished: list[optuna.trial.FrozenTrial],
    settings: Settings,
    pool: list[tuple[int | None, Project]],
    rng: random.Random,
) -> tuple[Candidate, int | None]:
    """The best of ``CANDIDATES`` sound mutations of parents from ``pool`` (number, project)."""
    proposals: list[tuple[Candidate, int | None]] = []
    last: CandidateError | None = None
    for _ in range(CANDIDATES):
        number, parent = rng.choice(pool)
        try:
            proposals.append((propose(parent, rng, settings.cost_range), number))
        except CandidateError as exc:
            last = exc
    if not proposals:
        raise last or CandidateError("no candidate")
    if len(finished) < MIN_OBSERVATIONS:
        return rng.choice(proposals)
    scores = expected_improvement(finished, [c for c, _ in proposals], settings)
    return proposals[int(np.argmax(scores))]


def _matrix(features: list[dict[str, float]], keys: list[str]) -> np.ndarray:
    return np.array([[math.log1p(max(f.get(k, 0.0), 0.0)) for k in keys] for f in features])


def expected_improvement(
    finished: list[optuna.trial.FrozenTrial], candidates: list[Candidate], settings: Settings
) -> np.ndarray:
    """EI of each candidate's validation error (see the module docstring for the reference)."""
    observed = [t.user_attrs.get("features", {}) for t in finished]
    keys = sorted({k for f in observed for k in f} | {k for c in candidates for k in c.features})
    x = _matrix(observed, keys)
    y = np.array([t.values[0] for t in finished])
    kernel = kernels.Matern(nu=2.5) + kernels.WhiteKernel(1e-3)
    gp = gaussian_process.GaussianProcessRegressor(
        kernel, normalize_y=True, n_restarts_optimizer=2, random_state=0
    )
    with warnings.catch_warnings():  # few, often equal, observations: bounds are hit, that's ok
        warnings.simplefilter("ignore", sklearn_exceptions.ConvergenceWarning)
        gp.fit(x, y)
    mean, std = gp.predict(_matrix([c.features for c in candidates], keys), return_std=True)
    costs = [float(t.user_attrs.get("cost", 0.0)) for t in finished]
    # Below the cheapest attempt the front has no point yet: improvement is measured against a
    # reference error, as hypervolume methods do (the worst error seen plus 10 % of the spread),
    # so a cheaper network must still be expected to learn something to be chosen.
    reference = float(y.max() + 0.1 * (y.max() - y.min()))
    scores = []
    for cand, mu, sigma in zip(candidates, mean, std, strict=True):
        if settings.objective == "error+cost":
            cheaper = [e for e, c in zip(y, costs, strict=True) if c <= cand.cost]
            best = min(cheaper) if cheaper else reference
        else:
            best = float(y.min())
        scores.append(_ei(best, float(mu), max(float(sigma), 1e-9), stats.norm))
    return np.array(scores)


def _ei(best: float, mu: float, sigma: float, norm: Any) -> float:
    z = (best - mu) / sigma
    return (best - mu) * norm.cdf(z) + sigma * norm.pdf(z)

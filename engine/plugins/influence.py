"""The training samples that most helped or hurt predictions: influence functions and SGD
influence, on the job's trained parameters.

Both give, for each training sample z_i, the predicted change of the loss on the evaluated
samples when z_i is left out of training: negative means removing z_i lowers that loss (z_i
hurt: a mislabelled sample), positive means z_i helped. NNC lists them ascending, harmful first.

- Influence functions (Koh and Liang, ICML 2017): leaving z_i out moves the optimum by
  (1/n) H^-1 grad L(z_i) (H: the mean Hessian of the training loss, plus ``damping`` times
  the identity, which is exact for an L2 term of that weight), so the test loss changes by
  (1/n) grad L_test . H^-1 grad L(z_i). H^-1 grad L_test is solved by
  conjugate gradients, stopped where the damped Hessian shows non-positive curvature.
- SGD influence (Hara, Nitanda and Maehara, NeurIPS 2019; NNC's plugin with Suzuki et al.'s
  storage-efficient approximation): replay ``epochs`` epochs of minibatch SGD backwards from
  u = grad L_test; a step with batch B and rate lr adds lr/|B| u . grad L(z_i) to each
  z_i in B, then u <- u - lr/|B| H_B u. Here every step's parameters are the job's trained
  ones (no retraining), so H_B is the batch's Hessian at the trained parameters.

Hessian-vector products are central differences of the loss gradient (the engine has no
second derivatives): (grad(w + eps v) - grad(w - eps v)) / (2 eps), exact for a quadratic;
each sample's grad L(z_i) . v is likewise a central difference of its loss along v (two
forward passes over the samples instead of a backward pass each).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

import engine.nn as nn
from engine.core import backend
from engine.plugins.model import JobModel

__all__ = ["influence_functions", "sgd_influence"]

Progress = Callable[[int, int], None] | None


class _Flat:
    """The training network's trainable parameters as one flat vector."""

    def __init__(self, model: JobModel) -> None:
        self.model = model
        program, params = model.training()
        self.vars = program.trainable(params)
        self.keys = sorted(self.vars)
        self.saved = {k: backend.to_numpy(self.vars[k].data).copy() for k in self.keys}
        self.sizes = [self.saved[k].size for k in self.keys]

    def flat(self, grads: dict[str, np.ndarray]) -> np.ndarray:
        return np.concatenate([grads[k].ravel() for k in self.keys]).astype(np.float64)

    def shift(self, step: np.ndarray | None) -> None:
        """Set the parameters to the trained ones plus ``step`` (None: the trained ones)."""
        offset = 0
        for k, size in zip(self.keys, self.sizes, strict=True):
            value = self.saved[k]
            if step is not None:
                value = value + step[offset : offset + size].reshape(value.shape)
            self.vars[k].data = backend.asarray(value.astype(self.saved[k].dtype))
            offset += size

    def gradient(self, x: np.ndarray, t: np.ndarray, chunk: int = 128) -> np.ndarray:
        """The mean loss gradient over the rows of ``x``."""
        total = np.zeros(sum(self.sizes))
        for start in range(0, len(x), chunk):
            part = slice(start, start + chunk)
            total += self.flat(self.model.parameter_gradients(x[part], t[part]))
        return total / max(1, len(x))

    def losses(self, x: np.ndarray, t: np.ndarray, chunk: int = 256) -> np.ndarray:
        """Each row's training loss (float64), by forward passes only."""
        program, params = self.model.training()
        label = next((n for n in program.feeds if n != self.model.input), None)
        found = []
        with nn.no_grad():
            for start in range(0, len(x), chunk):
                part = slice(start, start + chunk)
                batch: dict[str, Any] = {self.model.input: np.asarray(x[part], np.float32)}
                if label is not None:
                    shape = program.feeds[label]
                    batch[label] = np.asarray(t[part], np.float32).reshape((-1, *shape))
                acts = program.forward(batch, params)
                total = 0.0
                for loss in program.loss_values(acts):
                    value = backend.to_numpy(loss.data).astype(np.float64)
                    total = total + value.reshape(len(value), -1).sum(axis=1)
                found.append(np.broadcast_to(total, (len(batch[self.model.input]),)))
        return np.concatenate(found)

    def directional(self, x: np.ndarray, t: np.ndarray, v: np.ndarray) -> np.ndarray:
        """Each row's loss gradient dotted with ``v``, grad L(z_i) . v, by central differences
        of the losses (two forward passes instead of a backward pass per row)."""
        eps = self._eps(v)
        if eps == 0.0:
            return np.zeros(len(x))
        try:
            self.shift(eps * v)
            up = self.losses(x, t)
            self.shift(-eps * v)
            down = self.losses(x, t)
        finally:
            self.shift(None)
        return (up - down) / (2 * eps)

    def _eps(self, v: np.ndarray) -> float:
        norm = float(np.linalg.norm(v))
        if norm == 0.0:
            return 0.0
        scale = max(1.0, float(np.sqrt(np.mean([np.mean(a.astype(np.float64) ** 2)
                                                for a in self.saved.values()]))))  # fmt: skip
        return 1e-2 * scale / norm

    def hvp(self, x: np.ndarray, t: np.ndarray, v: np.ndarray) -> np.ndarray:
        """The mean Hessian of the loss over ``x`` times ``v`` (central differences)."""
        eps = self._eps(v)
        if eps == 0.0:
            return np.zeros_like(v)
        try:
            self.shift(eps * v)
            up = self.gradient(x, t)
            self.shift(-eps * v)
            down = self.gradient(x, t)
        finally:
            self.shift(None)
        return (up - down) / (2 * eps)


def _solve(apply: Callable[[np.ndarray], np.ndarray], b: np.ndarray, iterations: int,
           progress: Progress) -> np.ndarray:  # fmt: skip
    """``(H + damping I)^-1 b`` by conjugate gradients, stopped at the first direction of
    non-positive curvature (Steihaug's rule), returning the iterate of smallest residual.

    A trained network's Hessian has directions of negative curvature beyond the damping: the
    system is indefinite, and plain conjugate gradients (used before) saw their residual grow
    a hundred thousandfold on LeNet, their answer following the last bits of ``b`` (a
    gradient moved by 7e-7 put another sample first). On a convex loss (positive definite)
    this is plain conjugate gradients, exact."""
    x = np.zeros_like(b)
    r = b.copy()
    p = r.copy()
    rr = float(r @ r)
    stop = 1e-10 * rr
    best, best_rr = x.copy(), rr
    for k in range(iterations):
        if rr <= stop:
            break
        ap = apply(p)
        curvature = float(p @ ap)
        if curvature <= 0.0:
            break
        alpha = rr / curvature
        x += alpha * p
        r -= alpha * ap
        new = float(r @ r)
        if new < best_rr:
            best, best_rr = x.copy(), new
        p = r + (new / rr) * p
        rr = new
        if progress is not None:
            progress(k + 1, iterations)
    return best


def influence_functions(
    model: JobModel,
    train_x: np.ndarray,
    train_t: np.ndarray,
    test_x: np.ndarray,
    test_t: np.ndarray,
    damping: float = 0.01,
    iterations: int = 50,
    progress: Progress = None,
) -> np.ndarray:
    """Predicted change of the mean loss on ``test_x`` when each training sample is left out."""
    flat = _Flat(model)
    g_test = flat.gradient(test_x, test_t)
    s_test = _solve(
        lambda v: flat.hvp(train_x, train_t, v) + damping * v, g_test, iterations, progress
    )
    if progress is not None:
        progress(1, 1)
    return flat.directional(train_x, train_t, s_test) / len(train_x)


def sgd_influence(
    model: JobModel,
    train_x: np.ndarray,
    train_t: np.ndarray,
    test_x: np.ndarray,
    test_t: np.ndarray,
    learning_rate: float,
    batch_size: int,
    epochs: int = 1,
    trials: int = 1,
    seed: int = 0,
    progress: Progress = None,
) -> np.ndarray:
    """SGD influence of each training sample on the mean loss of ``test_x``, averaged over
    ``trials`` shuffles of the replayed epochs."""
    flat = _Flat(model)
    g_test = flat.gradient(test_x, test_t)
    n = len(train_x)
    batch_size = max(1, min(batch_size, n))
    scores = np.zeros(n)
    total, done = trials * epochs * n, 0
    for trial in range(trials):
        rng = np.random.default_rng(seed + trial)
        orders = [rng.permutation(n) for _ in range(epochs)]
        batches = [order[k : k + batch_size] for order in orders
                   for k in range(0, n, batch_size)]  # fmt: skip
        u = g_test.copy()
        found = np.zeros(n)
        for batch in reversed(batches):
            found[batch] += learning_rate / len(batch) * flat.directional(
                train_x[batch], train_t[batch], u)  # fmt: skip
            u = u - learning_rate * flat.hvp(train_x[batch], train_t[batch], u)
            done += len(batch)
            if progress is not None:
                progress(done, total)
        scores += found
    return scores / trials

"""Gradients a pool thread computes while the backward walk goes on: a parameter's weight
gradient, which nothing in the walk reads, handed whole to the kernels' pool
(:mod:`engine.core.ops._threads`) as an :class:`~engine.core.autograd.LaterGrad`; the walk
sums it into the parameter when it ends, in the order it produced the parameter's
gradients."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from engine.core import autograd
from engine.core.ops import _threads

# Whether a backward walk's weight gradients go to the pool thread (see leaf_grad);
# tests/benchmarks/bench_later_grad.py switches it off to compare.
LATER = True


def leaf_grad(weight: Any, compute: Callable[..., Any], args: tuple, finish: Any) -> Any:
    """``finish(compute(*args))``, the gradient of the Variable ``weight``: inside a backward
    walk on two threads or more, when ``weight`` is a leaf (a parameter), an
    :class:`~engine.core.autograd.LaterGrad` that a pool thread computes whole
    (``compute(*args, split=False)``) while this thread goes on with the walk, which leaves
    the second core idle most of the time; else computed now, split between the threads (a
    weight computed by other layers, a quantized one, needs its gradient at once). Either way
    the same numbers: ``compute`` gives each output to one call whole."""
    if LATER and weight.creator is None and autograd.walking():

        def job():
            return finish(compute(*args, split=False))

        task = _threads.submit(job)
        if task is not None:
            return autograd.LaterGrad(task, job, weight.shape)
    return finish(compute(*args))

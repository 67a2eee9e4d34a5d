"""Adam's update as one compiled CPU loop (numba), an optional fast path beside the ``xp``
expressions of :class:`engine.nn.solvers.Adam`, which stay the reference.

Why: NumPy runs the update as ten passes over the parameter (each operation reads and writes the
whole array), one loop reads the weight, gradient and both moments once and writes three of them
back. The update is memory-bound, so for an MLP's 1.8 million weights that is most of its cost.
The loop does NumPy's float operations in NumPy's order, with the constants in the arrays'
dtype, so the numbers are the same to the bit (tests compare the two).
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

import numpy as np

from engine.core.ops import _jit


def _build(numba: ModuleType) -> dict[str, Any]:
    """The compiled kernel (built on first use, cached on disk)."""

    # error_model="numpy": x / 0 gives inf or nan as in NumPy instead of raising, which also
    # lets the loop run in vector lanes (6x faster).
    @_jit.njit(numba, error_model="numpy")
    def adam(w, g, m, v, b1, ob1, b2, ob2, eps, step):  # pragma: no cover - compiled
        for i in range(w.size):
            gi = g[i]
            vi = v[i] * b2 + (gi * gi) * ob2
            mi = m[i] * b1 + gi * ob1
            v[i], m[i] = vi, mi
            w[i] = w[i] - (mi / (np.sqrt(vi) + eps)) * step

    return dict(adam=adam)


_compile = _jit.kernels(_build)


def update(w: Any, g: Any, m: Any, v: Any, beta1: float, beta2: float, eps: float, step: float):
    """Adam's step on ``w``, ``m`` and ``v`` in place (``step`` = lr times the bias correction);
    False when the compiled loop does not serve the arrays (then nothing was changed)."""
    for a in (w, g, m, v):  # a loop, not all(generator): this runs for every parameter
        if not (
            type(a) is np.ndarray
            and a.dtype == w.dtype
            and a.shape == w.shape
            and a.flags.c_contiguous
        ):
            return False
    if w.dtype not in (np.float32, np.float64) or _compile() is None:
        return False
    f = w.dtype.type
    consts = (f(beta1), f(1 - beta1), f(beta2), f(1 - beta2), f(eps), f(step))
    _compile()["adam"](w.reshape(-1), g.reshape(-1), m.reshape(-1), v.reshape(-1), *consts)
    return True

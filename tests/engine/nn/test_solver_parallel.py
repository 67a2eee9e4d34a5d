"""Large CPU parameters are updated in slices on several cores; the numbers must not change."""

import numpy as np
import pytest

import engine.nn._solver_base as base
import engine.nn.solvers as S
from engine.core.autograd import Variable


@pytest.mark.parametrize("name", ["Adam", "AdaBelief", "Momentum", "AMSBound", "Lars"])
def test_sliced_update_equals_whole_update(name, monkeypatch):
    rng = np.random.default_rng(0)
    w0 = rng.standard_normal((301, 457)).astype(np.float32)  # odd size: uneven slices
    grads = [rng.standard_normal(w0.shape).astype(np.float32) for _ in range(3)]
    results = []
    for threshold in (1, 1 << 40):  # sliced, then whole
        monkeypatch.setattr(base, "_PARALLEL_MIN_SIZE", threshold)
        w = Variable(w0.copy(), need_grad=True)
        solver = getattr(S, name)()
        solver.set_parameters({"w": w})
        for g in grads:
            w.grad = g.copy()
            solver.weight_decay(1e-3)
            solver.update()
        results.append(w.data.copy())
    np.testing.assert_array_equal(results[0], results[1])
    assert not np.array_equal(results[0], w0)

"""The plugins' JobModel.forward runs the runtime's test-mode plan for output variables (LIME
and SHAP call it thousands of times) and the generic pass for a layer's activation; both give
the generic pass's numbers."""

from __future__ import annotations

import numpy as np

import engine.nn as nn
from engine.plugins.model import JobModel
from engine.runtime import inference_plan


def test_outputs_through_the_plan_match_the_generic_pass(lenet_job, monkeypatch):
    model = JobModel(lenet_job)
    x = np.random.default_rng(3).random((300, *model.input_shape), dtype=np.float32)
    key = f"output:{model.outputs()[0]}"
    built = []
    real_build = inference_plan.build
    monkeypatch.setattr(inference_plan, "build", lambda *a: built.append(1) or real_build(*a))
    (fast,) = model.forward(x, [key], chunk=128)
    assert built == [1]  # one plan for the call's three chunks
    with nn.no_grad():
        want = np.concatenate([model.program.output(model.program.forward(
            model._batch(x[s : s + 128]), model.params), model.outputs()[0]).data
            for s in range(0, 300, 128)])  # fmt: skip
    assert fast.shape == want.shape == (300, 10)
    np.testing.assert_allclose(fast, want, rtol=0, atol=1e-6)
    # a layer's activation: the generic pass (the plan keeps no intermediate outputs)
    layer, out = model.forward(x[:5], ["Convolution", key])
    assert built == [1] and layer.shape[0] == 5
    np.testing.assert_allclose(out, want[:5], rtol=0, atol=1e-6)

"""KernelSHAP against exact Shapley values by enumeration, and additivity, on networks."""

from __future__ import annotations

import csv

import numpy as np
import pytest
from plugin_kit import cli, tabular_job

from engine.plugins import JobModel
from engine.plugins.shap import exact_shapley, kernel_shap


@pytest.fixture(scope="module")
def job8(tmp_path_factory):
    return tabular_job(tmp_path_factory.mktemp("shap"), 8, hidden=6, epochs=5)


def test_kernel_shap_equals_exact_shapley_on_an_8_feature_network(job8):
    model = JobModel(job8)
    score = model.class_score("y'", 1)
    rows = list(csv.reader(open(job8 / "output_result.csv")))
    header, data = rows[0], rows[1:]
    x = model.row_input(header, data[4]).astype(np.float64)
    background = np.stack([model.row_input(header, r) for r in data[:12]])
    phi, expected = kernel_shap(score, x, background, samples=2048)
    exact = exact_shapley(score, x, background)
    np.testing.assert_allclose(phi, exact, atol=1e-6)
    assert np.abs(exact).max() > 1e-3  # the features matter: the check is not about zeros
    fx = float(score(x[None].astype(np.float32))[0])
    assert expected == pytest.approx(float(score(background).mean()), abs=1e-6)
    assert phi.sum() == pytest.approx(fx - expected, abs=1e-5)


def test_sampled_kernel_shap_keeps_additivity_and_approaches_exact():
    rng = np.random.default_rng(1)
    w, v = rng.normal(size=(10, 4)), rng.normal(size=4)

    def f(rows):
        return np.tanh(rows @ w) @ v

    x, background = rng.normal(size=10), rng.normal(size=(5, 10))
    phi, expected = kernel_shap(f, x, background, samples=600, seed=0)  # 600 < 2^10 - 2
    assert phi.sum() == pytest.approx(f(x[None])[0] - expected, abs=1e-9)
    exact = exact_shapley(f, x, background)
    assert np.abs(phi - exact).max() < 0.1 * np.abs(exact).max()


def test_shap_tabular_plugin_is_additive(job8):
    done = cli("plugin", "run", "SHAP (tabular)", str(job8), "--row", "2", "class_index=0",
               "num_background=20")  # fmt: skip
    assert done.returncode == 0, done.stderr
    [out] = (job8 / "plugin_results").glob("shap_tabular_*/shap_tabular.csv")
    table = {r["feature"]: r for r in csv.DictReader(open(out))}
    phi = [float(table[f"x__{k}"]["SHAP value"]) for k in range(8)]
    model = JobModel(job8)
    rows = list(csv.reader(open(job8 / "output_result.csv")))
    score = model.class_score("y'", 0)
    fx = float(score(model.row_input(rows[0], rows[3])[None])[0])  # --row 2: the third data row
    expected = float(score(np.stack([model.row_input(rows[0], r) for r in rows[1:21]])).mean())
    assert float(table["expected value"]["SHAP value"]) == pytest.approx(expected, abs=1e-5)
    assert expected + sum(phi) == pytest.approx(fx, abs=1e-5)


def test_lime_recovers_a_linear_model_exactly():
    from engine.plugins.lime import lime_weights

    w = np.array([0.5, -1.0, 2.0, 0.0, 0.25, -0.3])
    coef, intercept = lime_weights(lambda z: z @ w + 0.7, 6, 300, ridge=0.0)
    np.testing.assert_allclose(coef, w, atol=1e-9)
    assert intercept == pytest.approx(0.7)
    shrunk, _ = lime_weights(lambda z: z @ w + 0.7, 6, 300, ridge=1.0)
    assert np.sign(shrunk[[0, 1, 2]]).tolist() == [1, -1, 1]

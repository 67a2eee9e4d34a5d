"""ROC/AUC, precision-recall and fairness metrics against scikit-learn and hand-computed values,
in the engine and through the plugin scripts on a fixed output table."""

from __future__ import annotations

import csv

import numpy as np
import pytest
from plugin_kit import cli
from sklearn import metrics

from engine.plugins import stats


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_roc_and_pr_equal_scikit_learn(seed):
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, 2, 200)
    score = np.round(rng.random(200) * 0.6 + truth * 0.3, 2)  # ties on purpose
    fpr, tpr, thresholds = stats.roc_curve(truth, score)
    ref_fpr, ref_tpr, ref_thr = metrics.roc_curve(truth, score, drop_intermediate=False)
    np.testing.assert_allclose(fpr, ref_fpr)
    np.testing.assert_allclose(tpr, ref_tpr)
    np.testing.assert_allclose(thresholds[1:], ref_thr[1:])
    assert stats.trapezoid(fpr, tpr) == pytest.approx(
        metrics.roc_auc_score(truth, score), abs=1e-12
    )
    assert stats.average_precision(truth, score) == pytest.approx(
        metrics.average_precision_score(truth, score), abs=1e-12)  # fmt: skip
    precision, recall, _ = stats.pr_curve(truth, score)
    ref_p, ref_r, _ = metrics.precision_recall_curve(truth, score, drop_intermediate=False)
    np.testing.assert_allclose(precision[::-1], ref_p[:-1])
    np.testing.assert_allclose(recall[::-1], ref_r[:-1])


def test_auc_by_hand():
    # positives 0.9, 0.4; negatives 0.6, 0.1: of 4 pairs 3 rank the positive first -> 0.75
    assert stats.trapezoid(*stats.roc_curve([1, 1, 0, 0], [0.9, 0.4, 0.6, 0.1])[:2]) == 0.75


# 10 people: privileged group p = rows 0-5, unprivileged u = rows 6-9
TRUTH = np.array([1, 1, 0, 0, 1, 0, 1, 1, 0, 0])
SCORE = np.array([0.9, 0.7, 0.6, 0.2, 0.4, 0.1, 0.8, 0.3, 0.55, 0.2])
PRIV = np.array([1, 1, 1, 1, 1, 1, 0, 0, 0, 0])
UNPRIV = 1 - PRIV


def test_fairness_metrics_by_hand():
    # predictions (>= 0.5): p: 1 1 1 0 0 0 -> rate 3/6; u: 1 0 1 0 -> rate 2/4
    assert stats.demographic_parity(SCORE, PRIV, UNPRIV) == pytest.approx(0.5 - 0.5)
    assert stats.disparate_impact(SCORE, PRIV, UNPRIV) == pytest.approx(1.0)
    # TPR p: positives rows 0,1,4 -> predicted 1,1,0 = 2/3; u: rows 6,7 -> 1,0 = 1/2
    assert stats.equal_opportunity(TRUTH, SCORE, PRIV, UNPRIV) == pytest.approx(0.5 - 2 / 3)
    # FPR p: negatives rows 2,3,5 -> 1,0,0 = 1/3; u: rows 8,9 -> 1,0 = 1/2
    odds = (abs(0.5 - 1 / 3) + abs(0.5 - 2 / 3)) / 2
    assert stats.equalised_odds(TRUTH, SCORE, PRIV, UNPRIV) == pytest.approx(odds)
    # the same rates from scikit-learn's confusion matrices
    for group in (PRIV == 1, UNPRIV == 1):
        tn, fp, fn, tp = metrics.confusion_matrix(TRUTH[group], SCORE[group] >= 0.5).ravel()
        assert tp / (tp + fn) in (2 / 3, 0.5) and fp / (fp + tn) in (1 / 3, 0.5)
    # benefits b = pred - truth + 1 (pred > 0.5): 1 1 2 1 0 1 1 0 2 1, mean 1
    b = np.array([1, 1, 2, 1, 0, 1, 1, 0, 2, 1], float)
    expected = np.mean([v * np.log(v) if v else 0.0 for v in b])
    assert stats.theil_index(TRUTH, SCORE) == pytest.approx(expected)
    assert expected == pytest.approx(2 * 2 * np.log(2) / 10)


def test_privileged_columns_must_be_opposites():
    with pytest.raises(ValueError, match="0/1 opposites"):
        stats.demographic_parity(SCORE, PRIV, PRIV)


def test_cross_tabulation_counts_and_ratios():
    rows, cols, table = stats.cross_tabulation(
        ["0", "1", "1", "10", "2"], ["a", "a", "b", "b", "b"]
    )
    assert rows == ["0", "1", "2", "10"] and cols == ["a", "b"]
    assert table.tolist() == [[1, 0], [1, 1], [0, 1], [0, 1]]
    _, _, ratio = stats.cross_tabulation(["1", "1", "1"], ["a", "b", "b"], ratio=True)
    assert ratio.tolist() == [[pytest.approx(1 / 3), pytest.approx(2 / 3)]]


def _table(folder):
    folder.mkdir()
    with open(folder / "output_result.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["x__0", "y:label", "male", "female", "y'"])
        for k in range(10):
            w.writerow([k, TRUTH[k], PRIV[k], UNPRIV[k], SCORE[k]])
    return folder


def test_fairness_and_roc_plugins_write_the_numbers(tmp_path):
    job = _table(tmp_path / "job")
    done = cli("plugin", "run", "Equalised Odds", str(job), "privileged_variable=male",
               "unprivileged_variable=female")  # fmt: skip
    assert done.returncode == 0, done.stderr
    [result] = (job / "plugin_results").glob("equalised_odds_*/fairness.csv")
    row = list(csv.DictReader(open(result)))[0]
    assert float(row["value"]) == pytest.approx((abs(0.5 - 1 / 3) + abs(0.5 - 2 / 3)) / 2, abs=1e-6)
    assert row["verdict"] == "unfair"
    done = cli("plugin", "run", "roc_auc", str(job))
    assert done.returncode == 0, done.stderr
    [auc] = (job / "plugin_results").glob("roc_auc_*/roc_auc.csv")
    row = list(csv.DictReader(open(auc)))[0]
    assert float(row["AUC"]) == pytest.approx(metrics.roc_auc_score(TRUTH, SCORE), abs=1e-6)
    assert (auc.parent / "roc_curve.png").read_bytes()[:4] == b"\x89PNG"


def test_a_missing_column_is_one_line_and_leaves_no_result(tmp_path):
    job = _table(tmp_path / "job")
    done = cli("plugin", "run", "demographic_parity", str(job), "privileged_variable=gender",
               "unprivileged_variable=female")  # fmt: skip
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert lines == [lines[0]] and "Demographic Parity" in lines[0] and "'gender'" in lines[0]
    assert "Traceback" not in done.stderr
    assert sorted(p.name for p in job.iterdir()) == ["output_result.csv"]

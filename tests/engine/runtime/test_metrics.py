"""NNC's evaluation metrics and the confusion_matrix_<var>.csv layout, checked by hand."""

from __future__ import annotations

import numpy as np
import pytest

from engine.runtime import metrics


def test_three_classes_hand_computed():
    truth = np.array([[0], [0], [1], [1], [1], [2]], np.float32)
    # predicted: 0, 1, 1, 1, 0, 1  (class 2 never predicted, its recall is 0)
    outputs = np.array([[0.9, 0.1, 0.0], [0.2, 0.7, 0.1], [0.1, 0.8, 0.1], [0.3, 0.6, 0.1],
                        [0.5, 0.4, 0.1], [0.2, 0.5, 0.3]], np.float32)  # fmt: skip
    result = metrics.classify(truth, outputs)
    assert result.matrix.tolist() == [[1, 1, 0], [1, 2, 0], [0, 1, 0]]
    np.testing.assert_allclose(result.recall, [1 / 2, 2 / 3, 0])
    np.testing.assert_allclose(result.precision, [1 / 2, 2 / 4, 0])
    f = [2 * 0.5 * 0.5 / 1.0, 2 * 0.5 * (2 / 3) / (0.5 + 2 / 3), 0]
    np.testing.assert_allclose(result.f_measure, f)
    assert result.accuracy == pytest.approx(3 / 6)
    assert result.avg_precision == pytest.approx((0.5 + 0.5 + 0) / 3)  # unweighted, 0 counts
    assert result.avg_recall == pytest.approx((0.5 + 2 / 3) / 3)
    text = metrics.confusion_matrix_csv(
        result, ["y:label=0", "y:label=1", "y:label=2"], ["y'__0", "y'__1", "y'__2"]
    )
    assert text == (
        ",y'__0,y'__1,y'__2,Recall\r\n"
        "y:label=0,1,1,0,0.5000\r\n"
        "y:label=1,1,2,0,0.6667\r\n"
        "y:label=2,0,1,0,0.0000\r\n"
        "Precision,0.5000,0.5000,0.0000,\r\n"
        "F-Measures,0.5000,0.5714,0.0000,\r\n"
        ",,,,\r\n"
        "Accuracy,0.5000,,,\r\n"
        "Avg.Precision,0.3333,,,\r\n"
        "Avg.Recall,0.3889,,,\r\n"
        "Avg.F-Measures,0.3571,,,\r\n"
    )


def test_single_sigmoid_output_rounds_and_predictions_outside_are_not_counted():
    truth = np.array([0, 1, 1, 0, 1], np.float32)
    outputs = np.array([0.2, 0.9, 0.5, 0.51, 2.6], np.float32)  # 0.5 rounds to 0 (to even)
    result = metrics.classify(truth, outputs)
    assert result.matrix.tolist() == [[1, 1], [1, 1]]  # 2.6 -> class 3: outside the matrix
    assert result.accuracy == pytest.approx(2 / 4)
    text = metrics.confusion_matrix_csv(result, ["y:9=0", "y:9=1"], ["y'=0", "y'=1"])
    assert text.splitlines()[0] == ",y'=0,y'=1,Recall"
    assert text.splitlines()[1] == "y:9=0,1,1,0.5000"


def test_one_hot_targets_and_first_argmax():
    truth = np.array([[1, 0], [0, 1], [0, 1]], np.float32)
    outputs = np.array([[0.5, 0.5], [0.2, 0.8], [0.6, 0.4]], np.float32)  # tie -> first (0)
    assert metrics.classify(truth, outputs).matrix.tolist() == [[1, 0], [1, 1]]
    assert metrics.is_classification(truth, outputs)


def test_classification_or_regression():
    assert metrics.is_classification(np.array([[0], [2], [1]]), np.zeros((3, 3)))
    assert not metrics.is_classification(np.array([[0.5], [2]]), np.zeros((2, 1)))
    assert not metrics.is_classification(np.array([[-1], [2]]), np.zeros((2, 3)))
    values = metrics.regression(np.array([[1.0], [2.0], [3.0]]), np.array([[1.5], [2.0], [2.0]]))
    assert values["mae"] == pytest.approx(0.5)
    assert values["mse"] == pytest.approx((0.25 + 1) / 3)
    assert values["rmse"] == pytest.approx(((0.25 + 1) / 3) ** 0.5)
    assert values["r2"] == pytest.approx(1 - 1.25 / 2)


def test_negative_or_huge_classes_are_an_error():
    with pytest.raises(metrics.MetricsError, match=r"true classes must be 0..10000"):
        metrics.classify(np.array([[-1], [1]]), np.zeros((2, 2)))

"""NmsDetection2d against a line-by-line port of nnabla's C++ loops, and a worked example."""

import numpy as np
import pytest

import engine.nn.functions as F
from engine.core.autograd import Variable


def _iou(a, b):
    w = min(a[0] + a[2] / 2, b[0] + b[2] / 2) - max(a[0] - a[2] / 2, b[0] - b[2] / 2)
    h = min(a[1] + a[3] / 2, b[1] + b[3] / 2) - max(a[1] - a[3] / 2, b[1] - b[3] / 2)
    if w <= 0 or h <= 0:
        return 0.0
    return w * h / (a[2] * a[3] + b[2] * b[3] - w * h)


def _reference(x, thresh, nms, per_class):
    """nnabla's nms_detection2d.cpp, loop for loop (plain Python floats)."""
    y = x.astype(np.float64).copy()
    for row in y.reshape(-1, y.shape[-1]):
        row[4] = 0.0 if row[4] < thresh else row[4]
        for k in range(5, len(row)):
            p = row[4] * row[k]
            row[k] = 0.0 if p < thresh else p
    for b in range(y.shape[0]):
        boxes = y[b]
        if per_class:
            for k in range(5, y.shape[2]):
                order = sorted(range(len(boxes)), key=lambda i, k=k: -boxes[i, k])
                for i, bi in enumerate(order):
                    if boxes[bi, k] == 0:
                        continue
                    for bj in order[i + 1 :]:
                        if boxes[bj, k] != 0 and _iou(boxes[bi], boxes[bj]) > nms:
                            boxes[bj, k] = 0.0
        else:
            order = sorted(range(len(boxes)), key=lambda i: -boxes[i, 4])
            for i in range(len(order) - 1, -1, -1):
                if boxes[order[i], 4] == 0:
                    continue
                if any(_iou(boxes[order[i]], boxes[order[j]]) > nms for j in range(i)):
                    boxes[order[i], 4:] = 0.0
    return y


@pytest.mark.parametrize("per_class", [True, False])
@pytest.mark.parametrize("thresh,nms", [(0.5, 0.45), (0.2, 0.3)])
def test_matches_nnabla_loops_on_crowded_boxes(per_class, thresh, nms):
    rng = np.random.default_rng(int(per_class) + int(10 * thresh))
    x = rng.uniform(0, 1, (2, 40, 8))
    x[..., :2] *= 4  # centres in a 4x4 field, sizes up to 1: many overlaps
    got = F.nms_detection2d(Variable(x), thresh=thresh, nms=nms, nms_per_class=per_class).d
    expected = _reference(x, thresh, nms, per_class)
    np.testing.assert_allclose(got, expected, rtol=1e-12)
    assert (got[..., 4:] == 0).sum() > (expected[..., 4:] < 0).sum() + 40  # some suppressed


def test_worked_example_two_overlapping_boxes_and_a_distant_one():
    boxes = np.array([[[0.0, 0.0, 2.0, 2.0, 0.9, 1.0],     # best
                       [0.2, 0.0, 2.0, 2.0, 0.8, 1.0],     # IoU 0.82 with the best: suppressed
                       [5.0, 5.0, 1.0, 1.0, 0.7, 1.0]]])  # fmt: skip
    y = F.nms_detection2d(Variable(boxes)).d
    np.testing.assert_allclose(y[0, :, 5], [0.9, 0.0, 0.7])
    np.testing.assert_allclose(y[0, :, :5], boxes[0, :, :5])  # per class: objectness stays
    y = F.nms_detection2d(Variable(boxes), nms_per_class=False).d
    np.testing.assert_allclose(y[0, :, 4:], [[0.9, 0.9], [0.0, 0.0], [0.7, 0.7]])


def test_no_gradient_and_shape_checked():
    x = Variable(np.random.default_rng(0).uniform(0, 1, (1, 3, 6)), need_grad=True)
    F.nms_detection2d(x).backward()
    assert x.grad is None
    with pytest.raises(ValueError, match=r"\(batch, boxes, 5 \+ classes\).*shape=\(2, 4, 5\)"):
        F.nms_detection2d(Variable(np.zeros((2, 4, 5))))

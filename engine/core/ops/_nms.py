"""NmsDetection2d (Others), re-exported by :mod:`engine.core.ops.others`.

nnabla's ``nms_detection2d`` (``src/nbla/function/generic/nms_detection2d.cpp``) on YOLO-style
detections ``(batch, boxes, 5 + classes)``: ``x, y, w, h`` (box centre and size), objectness, then
class probabilities. Objectness below ``thresh`` becomes 0 and each class score becomes
``objectness * p`` (0 below ``thresh``). Then non-maximum suppression with IoU above ``nms``:

* per class: in the order of that class's score, a box zeroes that class for every later box it
  overlaps;
* otherwise: a box is zeroed (objectness and classes) when any box ranked above it by objectness
  overlaps it, whether or not that box was kept (nnabla's loop does not look).

Ties are ranked in box order (a stable sort). There is no gradient (nnabla's backward is empty).
"""

from __future__ import annotations

from typing import Any

from engine.core.autograd import Function, Variable, as_variable
from engine.core.backend import get_array_module
from engine.core.ops._indexing import stable_argsort


def _iou(xp: Any, boxes: Any) -> Any:
    """Pairwise IoU of ``(n, 4)`` centre-size boxes; 0 where they do not overlap."""
    x, y, w, h = (boxes[:, i] for i in range(4))

    def overlap(c, size):
        low, high = c - size / 2, c + size / 2
        return xp.minimum(high[:, None], high[None, :]) - xp.maximum(low[:, None], low[None, :])

    ow, oh = overlap(x, w), overlap(y, h)
    inter = ow * oh
    union = (w * h)[:, None] + (w * h)[None, :] - inter
    positive = (ow > 0) & (oh > 0)
    return xp.where(positive, inter / xp.where(positive, union, 1), 0)


class NmsDetection2d(Function):
    def __init__(self, thresh: float, nms: float, nms_per_class: bool) -> None:
        self.thresh, self.nms, self.per_class = thresh, nms, nms_per_class

    def forward(self, x):
        xp = get_array_module(x)
        y = x.copy()
        objectness = xp.where(x[..., 4] < self.thresh, 0, x[..., 4])
        y[..., 4] = objectness
        scores = objectness[..., None] * x[..., 5:]
        y[..., 5:] = xp.where(scores < self.thresh, 0, scores)
        for b in range(x.shape[0]):
            iou = _iou(xp, y[b, :, :4]) > self.nms
            if self.per_class:
                for k in range(5, x.shape[2]):
                    _suppress_later(xp, y[b, :, k], iou)
            else:
                _suppress_below(xp, y[b], iou)
        return y

    def backward(self, gy):
        return None


def _suppress_later(xp: Any, score: Any, overlaps: Any) -> None:
    """Per class: each kept box, best first, zeroes the later boxes it overlaps (in place)."""
    order = stable_argsort(xp, -score, 0)
    for i in range(len(order)):
        if score[order[i]] == 0:
            continue
        later = order[i + 1 :]
        score[later[overlaps[order[i], later]]] = 0


def _suppress_below(xp: Any, rows: Any, overlaps: Any) -> None:
    """All classes: a box overlapped by any higher-ranked box loses objectness and classes."""
    order = stable_argsort(xp, -rows[:, 4], 0)
    for i in range(len(order) - 1, 0, -1):
        if rows[order[i], 4] != 0 and bool(overlaps[order[i], order[:i]].any()):
            rows[order[i], 4:] = 0


def nms_detection2d(x, thresh: float = 0.5, nms: float = 0.45, nms_per_class: bool = True
                    ) -> Variable:  # fmt: skip
    """nnabla ``nms_detection2d``: YOLO detections ``(batch, boxes, 5 + classes)`` filtered."""
    x = as_variable(x)
    if x.ndim != 3 or x.shape[2] <= 5:
        raise ValueError(f"nms_detection2d: the input must be (batch, boxes, 5 + classes) with at "
                         f"least one class. Received: shape={x.shape}")  # fmt: skip
    return NmsDetection2d(float(thresh), float(nms), bool(nms_per_class))(x)

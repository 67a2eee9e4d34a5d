"""Logical layers: comparisons and boolean logic (nnabla ``F.logical_and``, ``F.less_scalar``...).

They return 0/1 in the input's floating dtype (float32 for integer inputs) and have no gradient:
backward gives None, as nnabla's ``NO_GRAD`` kernels. Two-input versions broadcast size-1 axes.
Non-zero counts as true (nnabla's ``bool(x)``).
"""

from __future__ import annotations

import operator
from collections.abc import Callable

import numpy as np

from engine.core.autograd import Function, Variable
from engine.core.backend import get_array_module

__all__ = [
    "logical_and", "logical_or", "logical_xor", "equal", "not_equal", "greater_equal", "greater",
    "less_equal", "less", "logical_and_scalar", "logical_or_scalar", "logical_xor_scalar",
    "equal_scalar", "not_equal_scalar", "greater_equal_scalar", "greater_scalar",
    "less_equal_scalar", "less_scalar", "logical_not", "isnan", "isinf",
]  # fmt: skip


def _float_dtype(*arrays) -> np.dtype:
    dtype = np.result_type(*(a.dtype for a in arrays))
    return dtype if dtype.kind == "f" else np.dtype(np.float32)


def _truth(x):
    return x != 0


class _NoGrad(Function):
    """A 0/1 result of ``test(*arrays)``; no gradient flows back."""

    def __init__(self, test: Callable) -> None:
        self.test = test

    def forward(self, *xs):
        return self.test(*xs).astype(_float_dtype(*xs))

    def backward(self, gy):
        return (None,) * len(self.inputs)


def _both(a, b):
    return _truth(a) & _truth(b)


def _either(a, b):
    return _truth(a) | _truth(b)


def _one(a, b):
    return _truth(a) ^ _truth(b)


def logical_and(x0, x1) -> Variable:
    return _NoGrad(_both)(x0, x1)


def logical_or(x0, x1) -> Variable:
    return _NoGrad(_either)(x0, x1)


def logical_xor(x0, x1) -> Variable:
    """1 where exactly one input is non-zero (nnabla's code; its doc formula says otherwise)."""
    return _NoGrad(_one)(x0, x1)


def equal(x0, x1) -> Variable:
    return _NoGrad(operator.eq)(x0, x1)


def not_equal(x0, x1) -> Variable:
    return _NoGrad(operator.ne)(x0, x1)


def greater_equal(x0, x1) -> Variable:
    return _NoGrad(operator.ge)(x0, x1)


def greater(x0, x1) -> Variable:
    return _NoGrad(operator.gt)(x0, x1)


def less_equal(x0, x1) -> Variable:
    return _NoGrad(operator.le)(x0, x1)


def less(x0, x1) -> Variable:
    return _NoGrad(operator.lt)(x0, x1)


# nnabla's val is a bool for the logical scalar versions; NNC's Value is a float (0.0 = false).
def logical_and_scalar(x0, val: bool) -> Variable:
    return _NoGrad(lambda x: _truth(x) & bool(val))(x0)


def logical_or_scalar(x0, val: bool) -> Variable:
    return _NoGrad(lambda x: _truth(x) | bool(val))(x0)


def logical_xor_scalar(x0, val: bool) -> Variable:
    return _NoGrad(lambda x: _truth(x) ^ bool(val))(x0)


def equal_scalar(x0, val: float = 1) -> Variable:
    return _NoGrad(lambda x: x == val)(x0)


def not_equal_scalar(x0, val: float = 1) -> Variable:
    return _NoGrad(lambda x: x != val)(x0)


def greater_equal_scalar(x0, val: float = 1) -> Variable:
    return _NoGrad(lambda x: x >= val)(x0)


def greater_scalar(x0, val: float = 1) -> Variable:
    return _NoGrad(lambda x: x > val)(x0)


def less_equal_scalar(x0, val: float = 1) -> Variable:
    return _NoGrad(lambda x: x <= val)(x0)


def less_scalar(x0, val: float = 1) -> Variable:
    return _NoGrad(lambda x: x < val)(x0)


def logical_not(x0) -> Variable:
    return _NoGrad(lambda x: x == 0)(x0)


def isnan(x0) -> Variable:
    return _NoGrad(lambda x: get_array_module(x).isnan(x))(x0)


def isinf(x0) -> Variable:
    """1 where x is +inf or -inf."""
    return _NoGrad(lambda x: get_array_module(x).isinf(x))(x0)

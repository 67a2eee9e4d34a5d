"""Trigonometric layers: nnabla ``F.sin`` ... ``F.atanh`` and the two-input ``F.atan2(x0, x1)``.

Outside a function's domain (asin of 2, acosh of 0.5...) the value is NaN, as in NumPy and nnabla.
"""

from __future__ import annotations

from engine.core.autograd import Function, Variable
from engine.core.backend import get_array_module
from engine.core.ops.mathematics import Elementwise

__all__ = [
    "sin", "cos", "tan", "sinh", "cosh", "asin", "acos", "atan", "atan2", "asinh", "acosh",
    "atanh",
]  # fmt: skip


class Sin(Elementwise):
    def f(self, xp, x):
        return xp.sin(x)

    def df(self, xp, x, y, gy):
        return gy * xp.cos(x)


class Cos(Elementwise):
    def f(self, xp, x):
        return xp.cos(x)

    def df(self, xp, x, y, gy):
        return -gy * xp.sin(x)


class Tan(Elementwise):
    def f(self, xp, x):
        return xp.tan(x)

    def df(self, xp, x, y, gy):
        return gy * (1.0 + y * y)


class Sinh(Elementwise):
    def f(self, xp, x):
        return xp.sinh(x)

    def df(self, xp, x, y, gy):
        return gy * xp.cosh(x)


class Cosh(Elementwise):
    def f(self, xp, x):
        return xp.cosh(x)

    def df(self, xp, x, y, gy):
        return gy * xp.sinh(x)


class ASin(Elementwise):
    def f(self, xp, x):
        return xp.arcsin(x)

    def df(self, xp, x, y, gy):
        return gy / xp.sqrt(1.0 - x * x)


class ACos(Elementwise):
    def f(self, xp, x):
        return xp.arccos(x)

    def df(self, xp, x, y, gy):
        return -gy / xp.sqrt(1.0 - x * x)


class ATan(Elementwise):
    def f(self, xp, x):
        return xp.arctan(x)

    def df(self, xp, x, y, gy):
        return gy / (1.0 + x * x)


class ASinh(Elementwise):
    def f(self, xp, x):
        return xp.arcsinh(x)

    def df(self, xp, x, y, gy):
        return gy / xp.sqrt(x * x + 1.0)


class ACosh(Elementwise):
    def f(self, xp, x):
        return xp.arccosh(x)

    def df(self, xp, x, y, gy):
        return gy / xp.sqrt(x * x - 1.0)


class ATanh(Elementwise):
    def f(self, xp, x):
        return xp.arctanh(x)

    def df(self, xp, x, y, gy):
        return gy / (1.0 - x * x)


class ATan2(Function):
    """atan2(x0, x1), the angle of the point (x1, x0); size-1 axes broadcast."""

    def forward(self, x0, x1):
        self.x0, self.x1 = x0, x1
        return get_array_module(x0).arctan2(x0, x1)

    def backward(self, gy):
        n0, n1 = self.needs_input_grad
        g = gy / (self.x0 * self.x0 + self.x1 * self.x1)
        return (g * self.x1 if n0 else None), (-g * self.x0 if n1 else None)


def sin(x) -> Variable:
    return Sin()(x)


def cos(x) -> Variable:
    return Cos()(x)


def tan(x) -> Variable:
    return Tan()(x)


def sinh(x) -> Variable:
    return Sinh()(x)


def cosh(x) -> Variable:
    return Cosh()(x)


def asin(x) -> Variable:
    return ASin()(x)


def acos(x) -> Variable:
    return ACos()(x)


def atan(x) -> Variable:
    return ATan()(x)


def atan2(x0, x1) -> Variable:
    """nnabla ``F.atan2(x0, x1)`` = arctan(x0 / x1) in the right quadrant (NNC: input, side x)."""
    return ATan2()(x0, x1)


def asinh(x) -> Variable:
    return ASinh()(x)


def acosh(x) -> Variable:
    return ACosh()(x)


def atanh(x) -> Variable:
    return ATanh()(x)

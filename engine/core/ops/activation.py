"""Activation layers (nnabla ``F.relu``, ``F.softmax``, ``F.prelu``...).

Forward formulas and the gradient at kinks follow nnabla's C++ kernels
(``include/nbla/function/<name>.hpp``): e.g. ReLU passes the gradient only where x > 0, HardTanh
where -1 <= x <= 1. GELU is nnabla's tanh approximation, not the exact erf form. ``axis`` counts
the batch axis, as in nnabla (NNC's ``Axis`` + 1, added by the compiler).
"""

from __future__ import annotations

import math
from collections.abc import Callable

from engine.core.autograd import DeferredGrad, Function, Variable
from engine.core.backend import get_array_module
from engine.core.ops import _elementwise_cpu
from engine.core.ops.mathematics import Elementwise, ndim_of, normalize_axis

__all__ = [
    "tanh", "hard_tanh", "tanh_shrink", "sigmoid", "hard_sigmoid", "log_sigmoid", "abs", "relu",
    "crelu", "leaky_relu", "prelu", "relu6", "elu", "celu", "selu", "gelu", "softplus",
    "softsign", "sinc", "swish", "mish", "softmax", "log_softmax",
]  # fmt: skip


def _sigmoid(xp, x):
    # tanh form: no overflow for large |x| and accurate in both tails.
    return 0.5 * (xp.tanh(0.5 * x) + 1.0)


def _softplus(xp, x):
    """log(1 + exp(x)) without overflow."""
    return xp.maximum(x, 0) + xp.log1p(xp.exp(-xp.abs(x)))


class Tanh(Elementwise):
    def f(self, xp, x):
        return xp.tanh(x)

    def df(self, xp, x, y, gy):
        return gy * (1.0 - y * y)


class HardTanh(Elementwise):
    def f(self, xp, x):
        return xp.clip(x, -1.0, 1.0)

    def df(self, xp, x, y, gy):
        return gy * ((x >= -1.0) & (x <= 1.0))


class TanhShrink(Elementwise):
    def f(self, xp, x):
        return x - xp.tanh(x)

    def df(self, xp, x, y, gy):
        t = xp.tanh(x)
        return gy * (t * t)


class Sigmoid(Elementwise):
    def f(self, xp, x):
        return _sigmoid(xp, x)

    def df(self, xp, x, y, gy):
        return gy * y * (1.0 - y)


class HardSigmoid(Elementwise):
    def f(self, xp, x):
        return xp.clip(0.2 * x + 0.5, 0.0, 1.0)

    def df(self, xp, x, y, gy):
        return gy * (0.2 * ((x >= -2.5) & (x <= 2.5)))


class LogSigmoid(Elementwise):
    def f(self, xp, x):
        return -_softplus(xp, -x)

    def df(self, xp, x, y, gy):
        return gy * _sigmoid(xp, -x)


class Abs(Elementwise):
    def f(self, xp, x):
        return xp.abs(x)

    def df(self, xp, x, y, gy):
        return xp.where(x < 0, -gy, gy)


class ReLU(Elementwise):
    def f(self, xp, x):
        y = _elementwise_cpu.relu(x)  # a compiled loop on the CPU, else None
        return xp.maximum(x, 0) if y is None else y

    def df(self, xp, x, y, gy):
        return _relu_grad(gy, x)

    def backward(self, gy):
        # x computed by a layer that masks gy itself in its backward passes (batch
        # normalization's compiled loops: ``fuses_relu_grad``): the gradient is handed on
        # deferred, and computed only where something else needs it (autograd.DeferredGrad).
        inputs = getattr(self, "inputs", ())  # none when called outside a graph (CReLU)
        fused = inputs and getattr(inputs[0].creator, "fuses_relu_grad", False)
        if fused and gy.dtype == self.x.dtype:
            return DeferredGrad("relu", (gy, self.x), _relu_grad, self.x.shape, gy.dtype)
        return _relu_grad(gy, self.x)


def _relu_grad(gy, x):
    """ReLU's input gradient ``gy * (x > 0)`` (nan and inf in gy where x <= 0 give nan)."""
    gx = _elementwise_cpu.relu_grad(x, gy)  # a compiled loop on the CPU, else None
    return gy * (x > 0) if gx is None else gx


class LeakyReLU(Elementwise):
    def __init__(self, alpha: float) -> None:
        self.alpha = float(alpha)

    def f(self, xp, x):
        return xp.where(x > 0, x, x * self.alpha)

    def df(self, xp, x, y, gy):
        return xp.where(x > 0, gy, gy * self.alpha)


class ReLU6(Elementwise):
    def f(self, xp, x):
        return xp.clip(x, 0.0, 6.0)

    def df(self, xp, x, y, gy):
        return gy * ((x > 0) & (x < 6))


class ELU(Elementwise):
    def __init__(self, alpha: float) -> None:
        self.alpha = float(alpha)

    def f(self, xp, x):
        return xp.where(x >= 0, x, self.alpha * xp.expm1(xp.minimum(x, 0)))

    def df(self, xp, x, y, gy):
        return xp.where(x >= 0, gy, gy * self.alpha * xp.exp(xp.minimum(x, 0)))


class SELU(Elementwise):
    def __init__(self, scale: float, alpha: float) -> None:
        self.scale, self.alpha = float(scale), float(alpha)

    def f(self, xp, x):
        neg = self.alpha * xp.expm1(xp.minimum(x, 0))
        return self.scale * xp.where(x > 0, x, neg)

    def df(self, xp, x, y, gy):
        neg = gy * (self.alpha * xp.exp(xp.minimum(x, 0)))
        return self.scale * xp.where(x > 0, gy, neg)


_GELU_C = math.sqrt(2.0 / math.pi)


class GELU(Elementwise):
    """0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))): nnabla's tanh approximation."""

    def f(self, xp, x):
        self.t = xp.tanh(_GELU_C * (x + 0.044715 * (x * x * x)))  # x*x*x: pow is slow
        return 0.5 * x * (1.0 + self.t)

    def df(self, xp, x, y, gy):
        t = self.t
        du = _GELU_C * (1.0 + 3 * 0.044715 * x * x)
        return gy * (0.5 * (1.0 + t) + 0.5 * x * (1.0 - t * t) * du)


class SoftPlus(Elementwise):
    def __init__(self, beta: float) -> None:
        self.beta = float(beta)

    def f(self, xp, x):
        return _softplus(xp, self.beta * x) / self.beta

    def df(self, xp, x, y, gy):
        return gy * _sigmoid(xp, self.beta * x)


class SoftSign(Elementwise):
    def f(self, xp, x):
        return x / (1.0 + xp.abs(x))

    def df(self, xp, x, y, gy):
        d = 1.0 + xp.abs(x)
        return gy / (d * d)


class Sinc(Elementwise):
    """sin(x)/x with 1 at 0; gradient 0 at 0 (as nnabla)."""

    def f(self, xp, x):
        self.zero = x == 0
        self.safe = xp.where(self.zero, 1.0, x).astype(x.dtype, copy=False)
        return xp.where(self.zero, 1.0, xp.sin(self.safe) / self.safe).astype(x.dtype, copy=False)

    def df(self, xp, x, y, gy):
        g = (xp.cos(self.safe) - y) / self.safe
        return xp.where(self.zero, 0.0, gy * g).astype(gy.dtype, copy=False)


class Swish(Elementwise):
    def f(self, xp, x):
        self.s = _sigmoid(xp, x)
        return x * self.s

    def df(self, xp, x, y, gy):
        return gy * (y + self.s * (1.0 - y))


class Mish(Elementwise):
    def f(self, xp, x):
        self.t = xp.tanh(_softplus(xp, x))
        return x * self.t

    def df(self, xp, x, y, gy):
        t = self.t
        return gy * (t + x * (1.0 - t * t) * _sigmoid(xp, x))


class PReLU(Function):
    """max(0, x) + w min(0, x) with one slope, or one per channel at ``base_axis``."""

    def __init__(self, base_axis: int) -> None:
        self.base_axis = base_axis

    def _slope_shape(self, x, w) -> tuple[int, ...]:
        if w.size == 1:
            return (1,) * x.ndim
        if w.ndim != 1 or w.shape[0] != x.shape[self.base_axis]:
            raise ValueError(
                f"prelu: the slope must be a scalar or have x.shape[base_axis] = "
                f"{x.shape[self.base_axis]} values. Received: x.shape={x.shape}, "
                f"slope.shape={w.shape}, base_axis={self.base_axis}"
            )
        return (1,) * self.base_axis + (w.shape[0],) + (1,) * (x.ndim - self.base_axis - 1)

    def forward(self, x, w):
        self.x, self.w_shape = x, w.shape
        self.w = w.reshape(self._slope_shape(x, w))
        return get_array_module(x).where(x >= 0, x, x * self.w)

    def backward(self, gy):
        xp = get_array_module(gy)
        nx, nw = self.needs_input_grad
        neg = self.x < 0
        gx = xp.where(neg, gy * self.w, gy) if nx else None
        gw = None
        if nw:
            axes = tuple(i for i, n in enumerate(self.w.shape) if n == 1)
            gw = (gy * self.x * neg).sum(axis=axes).reshape(self.w_shape)
        return gx, gw


class _Concatenated(Function):
    """CReLU/CELU: concat(f(x), f(-x)) along ``axis``; ``make`` builds the f kernel."""

    def __init__(self, axis: int, make: Callable[[], Elementwise]) -> None:
        self.axis, self.pos, self.neg = axis, make(), make()

    def forward(self, x):
        xp = get_array_module(x)
        return xp.concatenate([self.pos.forward(x), self.neg.forward(-x)], axis=self.axis)

    def backward(self, gy):
        xp = get_array_module(gy)
        g_pos, g_neg = xp.split(gy, 2, axis=self.axis)
        return self.pos.backward(g_pos) - self.neg.backward(g_neg)


class Softmax(Function):
    def __init__(self, axis: int) -> None:
        self.axis = axis

    def forward(self, x):
        xp = get_array_module(x)
        e = xp.exp(x - x.max(axis=self.axis, keepdims=True))
        self.y = e / e.sum(axis=self.axis, keepdims=True)
        return self.y

    def backward(self, gy):
        y = self.y
        return y * (gy - (gy * y).sum(axis=self.axis, keepdims=True))


class LogSoftmax(Softmax):
    def forward(self, x):
        xp = get_array_module(x)
        z = x - x.max(axis=self.axis, keepdims=True)
        self.y = z - xp.log(xp.exp(z).sum(axis=self.axis, keepdims=True))
        return self.y

    def backward(self, gy):
        xp = get_array_module(gy)
        return gy - xp.exp(self.y) * gy.sum(axis=self.axis, keepdims=True)


def _last_axis(fn: str, x, axis: int | None) -> int:
    """nnabla's default ``axis=len(x.shape) - 1`` when None, else the normalized axis."""
    n = ndim_of(x)
    return n - 1 if axis is None else normalize_axis(fn, axis, n)


def tanh(x) -> Variable:
    return Tanh()(x)


def hard_tanh(x) -> Variable:
    return HardTanh()(x)


def tanh_shrink(x) -> Variable:
    return TanhShrink()(x)


def sigmoid(x) -> Variable:
    return Sigmoid()(x)


def hard_sigmoid(x) -> Variable:
    """clip(0.2 x + 0.5, 0, 1) (nnabla)."""
    return HardSigmoid()(x)


def log_sigmoid(x) -> Variable:
    return LogSigmoid()(x)


def abs(x) -> Variable:  # noqa: A001 - nnabla's name
    return Abs()(x)


def relu(x, inplace: bool = False) -> Variable:
    """``inplace`` is accepted for nnabla compatibility; it only saves memory there."""
    return ReLU()(x)


def crelu(x, axis: int = 1) -> Variable:
    """concat(relu(x), relu(-x)) along ``axis`` (the axis size doubles)."""
    return _Concatenated(normalize_axis("crelu", axis, ndim_of(x)), ReLU)(x)


def leaky_relu(x, alpha: float = 0.1, inplace: bool = False) -> Variable:
    return LeakyReLU(alpha)(x)


def prelu(x0, x1, base_axis: int = 1) -> Variable:
    """nnabla ``F.prelu``: ``x1`` is the learned slope, one value shared or (C,) per channel."""
    return PReLU(normalize_axis("prelu", base_axis, ndim_of(x0)))(x0, x1)


def relu6(x) -> Variable:
    return ReLU6()(x)


def elu(x, alpha: float = 1.0) -> Variable:
    return ELU(alpha)(x)


def celu(x, alpha: float = 1.0, axis: int = 1) -> Variable:
    """concat(elu(x), elu(-x)) along ``axis``."""
    return _Concatenated(normalize_axis("celu", axis, ndim_of(x)), lambda: ELU(alpha))(x)


def selu(x, scale: float = 1.05070098735548, alpha: float = 1.673263242354377) -> Variable:
    return SELU(scale, alpha)(x)


def gelu(x) -> Variable:
    """nnabla's GELU: the tanh approximation (differs from the erf form by < 5e-4)."""
    return GELU()(x)


def softplus(x, beta: float = 1.0) -> Variable:
    """log(1 + exp(beta x)) / beta (NNC's layer uses beta = 1)."""
    if beta <= 0:
        raise ValueError(f"softplus: beta must be positive. Received: beta={beta}")
    return SoftPlus(beta)(x)


def softsign(x) -> Variable:
    return SoftSign()(x)


def sinc(x) -> Variable:
    return Sinc()(x)


def swish(x) -> Variable:
    return Swish()(x)


def mish(x) -> Variable:
    return Mish()(x)


def softmax(x, axis: int | None = None) -> Variable:
    """nnabla ``F.softmax``: ``axis`` None means the last axis."""
    return Softmax(_last_axis("softmax", x, axis))(x)


def log_softmax(x, axis: int | None = None) -> Variable:
    """nnabla ``F.log_softmax``: ``axis`` None means the last axis."""
    return LogSoftmax(_last_axis("log_softmax", x, axis))(x)

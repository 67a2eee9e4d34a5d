"""Arithmetic layers: Scalar, 2 Inputs and N Inputs categories (nnabla ``add2``, ``add_scalar``...).

Two-input functions broadcast size-1 axes (NNC's ``*BasicMathOutputSizewBC``); their backward
reduces the gradient back to each input's shape (``sum_to``, applied by the autograd walker).
"""

from __future__ import annotations

from typing import Any

from engine.core import backend
from engine.core.autograd import Function, Variable
from engine.core.backend import get_array_module

__all__ = [
    "add2", "sub2", "mul2", "div2", "pow2", "maximum2", "minimum2",
    "add_scalar", "mul_scalar", "r_sub_scalar", "r_div_scalar", "pow_scalar", "r_pow_scalar",
    "maximum_scalar", "minimum_scalar", "add_n", "mul_n",
]  # fmt: skip


class Add2(Function):
    # A ReLU's deferred gradient on the sum passes to both inputs as it is (autograd computes
    # it where an input cannot take it): relu(bn(a) + bn(b)) masks in both normalizations.
    takes_deferred = fuses_relu_grad = True

    def forward(self, x0, x1):
        return x0 + x1

    def backward(self, gy):
        return gy, gy


class Sub2(Function):
    def forward(self, x0, x1):
        return x0 - x1

    def backward(self, gy):
        return gy, (-gy if self.needs_input_grad[1] else None)


class Mul2(Function):
    def forward(self, x0, x1):
        self.x0, self.x1 = x0, x1
        return x0 * x1

    def backward(self, gy):
        n0, n1 = self.needs_input_grad
        return (gy * self.x1 if n0 else None), (gy * self.x0 if n1 else None)


class Div2(Function):
    def forward(self, x0, x1):
        self.x1 = x1
        self.y = x0 / x1
        return self.y

    def backward(self, gy):
        n0, n1 = self.needs_input_grad
        g0 = gy / self.x1
        return (g0 if n0 else None), (-g0 * self.y if n1 else None)


class Pow2(Function):
    def forward(self, x0, x1):
        self.x0, self.x1 = x0, x1
        self.y = x0**x1
        return self.y

    def backward(self, gy):
        xp = get_array_module(gy)
        n0, n1 = self.needs_input_grad
        g0 = gy * self.x1 * self.x0 ** (self.x1 - 1) if n0 else None
        # d/dx1 x0**x1 = y*log(x0); defined as 0 where x0 == 0 (nnabla does the same).
        g1 = None
        if n1:
            safe = xp.where(self.x0 > 0, self.x0, 1)
            g1 = gy * self.y * xp.log(safe)
        return g0, g1


class _Select2(Function):
    """Maximum2/Minimum2: the gradient goes to the chosen input (ties: the first input)."""

    def forward(self, x0, x1):
        xp = get_array_module(x0)
        self.first = self._pick_first(x0, x1)
        return xp.where(self.first, x0, x1)

    def backward(self, gy):
        xp = get_array_module(gy)
        zero = xp.zeros((), dtype=gy.dtype)
        n0, n1 = self.needs_input_grad
        return (xp.where(self.first, gy, zero) if n0 else None), (
            xp.where(self.first, zero, gy) if n1 else None
        )


class Maximum2(_Select2):
    @staticmethod
    def _pick_first(x0, x1):
        return x0 >= x1


class Minimum2(_Select2):
    @staticmethod
    def _pick_first(x0, x1):
        return x0 <= x1


class AddScalar(Function):
    def __init__(self, val: float = 1.0) -> None:
        self.val = val

    def forward(self, x):
        return x + x.dtype.type(self.val)

    def backward(self, gy):
        return gy


class MulScalar(Function):
    def __init__(self, val: float = 1.0) -> None:
        self.val = val

    def forward(self, x):
        return x * x.dtype.type(self.val)

    def backward(self, gy):
        return gy * gy.dtype.type(self.val)


class RSubScalar(Function):
    def __init__(self, val: float = 1.0) -> None:
        self.val = val

    def forward(self, x):
        return x.dtype.type(self.val) - x

    def backward(self, gy):
        return -gy


class RDivScalar(Function):
    def __init__(self, val: float = 1.0) -> None:
        self.val = val

    def forward(self, x):
        self.x = x
        return x.dtype.type(self.val) / x

    def backward(self, gy):
        return -gy * self.val / (self.x * self.x)


class PowScalar(Function):
    def __init__(self, val: float = 1.0) -> None:
        self.val = val

    def forward(self, x):
        self.x = x
        return x ** x.dtype.type(self.val)

    def backward(self, gy):
        if self.val == 0:
            return gy * 0
        return gy * self.val * self.x ** (self.val - 1)


class RPowScalar(Function):
    def __init__(self, val: float = 1.0) -> None:
        self.val = val

    def forward(self, x):
        self.y = x.dtype.type(self.val) ** x
        return self.y

    def backward(self, gy):
        xp = get_array_module(gy)
        return gy * self.y * xp.log(gy.dtype.type(self.val)) if self.val > 0 else gy * 0


class MaximumScalar(Function):
    def __init__(self, val: float = 1.0) -> None:
        self.val = val

    def forward(self, x):
        xp = get_array_module(x)
        self.mask = x > self.val
        return xp.maximum(x, x.dtype.type(self.val))

    def backward(self, gy):
        return gy * self.mask


class MinimumScalar(Function):
    def __init__(self, val: float = 1.0) -> None:
        self.val = val

    def forward(self, x):
        xp = get_array_module(x)
        self.mask = x < self.val
        return xp.minimum(x, x.dtype.type(self.val))

    def backward(self, gy):
        return gy * self.mask


class AddN(Function):
    def forward(self, *xs):
        y = xs[0]
        for x in xs[1:]:
            y = y + x
        return y

    def backward(self, gy):
        return (gy,) * len(self.inputs)


class MulN(Function):
    def forward(self, *xs):
        self.xs = xs
        y = xs[0]
        for x in xs[1:]:
            y = y * x
        return y

    def backward(self, gy):
        grads = []
        for i, need in enumerate(self.needs_input_grad):
            if not need:
                grads.append(None)
                continue
            g = gy
            for j, x in enumerate(self.xs):
                if j != i:
                    g = g * x
            grads.append(g)
        return tuple(grads)


class Matmul(Function):
    """``a @ b`` for arrays of rank >= 2 with NumPy's batch broadcasting (the ``@`` operator)."""

    def forward(self, a, b):
        if a.ndim < 2 or b.ndim < 2:
            raise ValueError(
                f"matmul: both operands need rank >= 2. Received: {a.shape} @ {b.shape}"
            )
        self.a, self.b = a, b
        return backend.matmul(a, b)

    def backward(self, gy):
        xp = get_array_module(gy)
        na, nb = self.needs_input_grad
        ga = backend.matmul(gy, xp.swapaxes(self.b, -1, -2)) if na else None
        gb = backend.matmul(xp.swapaxes(self.a, -1, -2), gy) if nb else None
        return ga, gb


def add2(x0, x1, inplace: bool = False) -> Variable:
    """Element-wise ``x0 + x1``; ``inplace`` is accepted as in nnabla (it only saves memory)."""
    return Add2()(x0, x1)


def sub2(x0, x1, inplace: bool = False) -> Variable:
    return Sub2()(x0, x1)


def mul2(x0, x1, inplace: bool = False) -> Variable:
    return Mul2()(x0, x1)


def div2(x0, x1, inplace: bool = False) -> Variable:
    return Div2()(x0, x1)


def pow2(x0, x1, inplace: bool = False) -> Variable:
    return Pow2()(x0, x1)


def maximum2(x0, x1) -> Variable:
    return Maximum2()(x0, x1)


def minimum2(x0, x1) -> Variable:
    return Minimum2()(x0, x1)


def add_scalar(x, val: float = 1.0, inplace: bool = False) -> Variable:
    return AddScalar(val)(x)


def mul_scalar(x, val: float = 1.0, inplace: bool = False) -> Variable:
    return MulScalar(val)(x)


def r_sub_scalar(x, val: float = 1.0) -> Variable:
    return RSubScalar(val)(x)


def r_div_scalar(x, val: float = 1.0) -> Variable:
    return RDivScalar(val)(x)


def pow_scalar(x, val: float = 1.0, inplace: bool = False) -> Variable:
    return PowScalar(val)(x)


def r_pow_scalar(x, val: float = 1.0) -> Variable:
    return RPowScalar(val)(x)


def maximum_scalar(x, val: float = 1.0) -> Variable:
    return MaximumScalar(val)(x)


def minimum_scalar(x, val: float = 1.0) -> Variable:
    return MinimumScalar(val)(x)


def add_n(*xs) -> Variable:
    return AddN()(*xs)


def mul_n(*xs) -> Variable:
    return MulN()(*xs)


# Variable's operators (installed below).
def _is_scalar(v: Any) -> bool:
    return isinstance(v, (int, float)) or (
        hasattr(v, "ndim") and not isinstance(v, Variable) and v.ndim == 0
    )


def add(a, b):
    return add_scalar(a, float(b)) if _is_scalar(b) else add2(a, b)


def sub(a, b):
    return add_scalar(a, -float(b)) if _is_scalar(b) else sub2(a, b)


def rsub(a, b):
    return r_sub_scalar(a, float(b)) if _is_scalar(b) else sub2(b, a)


def mul(a, b):
    return mul_scalar(a, float(b)) if _is_scalar(b) else mul2(a, b)


def div(a, b):
    return mul_scalar(a, 1.0 / float(b)) if _is_scalar(b) else div2(a, b)


def rdiv(a, b):
    return r_div_scalar(a, float(b)) if _is_scalar(b) else div2(b, a)


def pow(a, b):  # noqa: A001 - operator name
    return pow_scalar(a, float(b)) if _is_scalar(b) else pow2(a, b)


def rpow(a, b):
    return r_pow_scalar(a, float(b)) if _is_scalar(b) else pow2(b, a)


def matmul(a, b):
    return Matmul()(a, b)


def _negative(a):
    return mul_scalar(a, -1.0)


def _install_operators(cls: type) -> None:
    """Give ``cls`` (Variable) its arithmetic operators. They live here, not on the class in
    engine.core.autograd, because these layers are built on autograd's Function: autograd cannot
    import them without a circle. Importing this module (engine.nn does) installs them."""
    operators = {
        "__add__": add, "__radd__": add, "__sub__": sub, "__rsub__": rsub,
        "__mul__": mul, "__rmul__": mul, "__truediv__": div, "__rtruediv__": rdiv,
        "__pow__": pow, "__rpow__": rpow, "__matmul__": matmul, "__neg__": _negative,
    }  # fmt: skip
    for name, operator in operators.items():
        setattr(cls, name, operator)


_install_operators(Variable)

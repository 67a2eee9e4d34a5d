"""LoopControl helpers: nnabla ``F.split`` and ``F.constant``, what a recurrent loop unrolls to.

nnabla expands a recurrent block (``nnabla/utils/nnp_graph`` ``_expand_repeat``) into a Split
of the RecurrentInput along its axis, one copy of the block per time step sharing the
parameters, a Stack for RecurrentOutput, and for Delay the initial value at step 0 and the
previous step's input afterwards. The compiler (:mod:`engine.runtime.recurrent`) does the same
with these two functions and ``F.stack``.
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.core.autograd import Function, Variable, as_variable
from engine.core.backend import get_array_module, xp

__all__ = ["split", "constant"]


class Split(Function):
    def __init__(self, axis: int) -> None:
        self.axis = axis

    def forward(self, x):
        module = get_array_module(x)
        return tuple(module.take(x, i, axis=self.axis) for i in range(x.shape[self.axis]))

    def backward(self, *gys):
        return get_array_module(gys[0]).stack(gys, axis=self.axis)


def split(x, axis: int = 0) -> tuple[Variable, ...]:
    """nnabla ``split``: the slices of ``x`` along ``axis``, that axis removed."""
    x = as_variable(x)
    axis = axis + x.ndim if axis < 0 else axis
    if not 0 <= axis < x.ndim:
        raise ValueError(f"split: axis out of range. Received: axis={axis}, shape={x.shape}")
    out = Split(axis)(x)
    return out if isinstance(out, tuple) else (out,)


def constant(val: float = 0.0, shape: Sequence[int] = ()) -> Variable:
    """nnabla ``constant``: an array of ``shape`` filled with ``val`` (no gradient)."""
    return Variable(xp().full(tuple(int(n) for n in shape), float(val), dtype="float32"))

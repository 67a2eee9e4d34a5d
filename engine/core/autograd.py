"""Eager (define-by-run) automatic differentiation: :class:`Variable` and :class:`Function`.

The design follows Chainer's ``FunctionNode`` and nnabla's vocabulary:

* A :class:`Variable` holds an array ``data`` (alias ``d``), its gradient ``grad`` (alias ``g``)
  and ``need_grad``. Leaf variables (parameters, inputs) *accumulate* gradients across backward
  calls until :meth:`Variable.zero_grad` (or a solver's ``zero_grad``) clears them, as in nnabla;
  ``grad is None`` means "received no gradient".
* A :class:`Function` computes ``forward(*arrays)`` and ``backward(*output_grads)``, side by side in
  one class. Calling it on variables records it as the outputs' ``creator`` when gradients are
  enabled and an input needs them.
* :meth:`Variable.backward` walks the recorded graph once, newest function first (by generation,
  no recursion), summing the gradients of a variable that feeds several functions.
"""

from __future__ import annotations

import contextlib
import heapq
import threading
import weakref
from collections.abc import Iterator
from typing import Any

import numpy as np

from engine.core import backend

_grad_enabled = [True]


@contextlib.contextmanager
def no_grad() -> Iterator[None]:
    """Within this context no graph is recorded (inference, parameter updates)."""
    previous = _grad_enabled[0]
    _grad_enabled[0] = False
    try:
        yield
    finally:
        _grad_enabled[0] = previous


def grad_enabled() -> bool:
    """Whether functions called now record the graph."""
    return _grad_enabled[0]


DEFAULT_DTYPE = np.float32


def _to_array(data: Any) -> Any:
    """Arrays keep their dtype; Python numbers and lists become float32 arrays on the device."""
    module = backend.xp()
    if backend.is_array(data):
        if module is not np and isinstance(data, np.ndarray):
            return module.asarray(data)
        return data
    if isinstance(data, np.generic):
        return module.asarray(data)
    return module.asarray(data, dtype=DEFAULT_DTYPE)


class Variable:
    """An array with an optional gradient and the function that created it.

    ``Variable(array)`` wraps an array (NumPy, CuPy, list or number). ``Variable((2, 3))`` with a
    *tuple* of ints creates a zero-filled float32 variable of that shape, as ``nnabla.Variable``.
    """

    __slots__ = ("data", "grad", "need_grad", "creator", "generation", "name", "__weakref__")
    __array_priority__ = 200  # so ``ndarray + Variable`` calls Variable.__radd__

    def __init__(self, data: Any = None, need_grad: bool = False, name: str | None = None) -> None:
        if isinstance(data, tuple) and all(isinstance(n, (int, np.integer)) for n in data):
            data = backend.xp().zeros(data, dtype=DEFAULT_DTYPE)
        self.data = None if data is None else _to_array(data)
        self.grad: Any = None
        self.need_grad = bool(need_grad)
        self.creator: Function | None = None
        self.generation = 0
        self.name = name

    @classmethod
    def from_numpy_array(cls, array: Any, need_grad: bool = False) -> Variable:
        """nnabla's constructor name; a device array stays on the device (exported code passes
        the engine's initializers' arrays, which are CuPy arrays on a GPU)."""
        return cls(array if backend.is_array(array) else np.asarray(array), need_grad=need_grad)

    # nnabla's short names
    @property
    def d(self) -> Any:
        return self.data

    @d.setter
    def d(self, value: Any) -> None:
        if self.data is not None and np.ndim(value) == 0 and not hasattr(value, "shape"):
            self.data[...] = value
        else:
            self.data = _to_array(value)

    @property
    def g(self) -> Any:
        if self.grad is None and self.data is not None:
            return backend.get_array_module(self.data).zeros_like(self.data)
        return self.grad

    @g.setter
    def g(self, value: Any) -> None:
        self.grad = None if value is None else _to_array(value)

    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(self.data.shape)

    @property
    def ndim(self) -> int:
        return self.data.ndim

    @property
    def size(self) -> int:
        return int(self.data.size)

    @property
    def dtype(self) -> Any:
        return self.data.dtype

    def __len__(self) -> int:
        return self.data.shape[0]

    def __repr__(self) -> str:
        shape = None if self.data is None else self.shape
        return f"Variable(shape={shape}, need_grad={self.need_grad}, name={self.name!r})"

    def zero_grad(self) -> None:
        """Forget the accumulated gradient (``grad`` becomes None)."""
        self.grad = None

    def unlinked(self) -> Variable:
        """A variable sharing this data, cut from the graph (nnabla ``get_unlinked_variable``)."""
        return Variable(self.data, need_grad=self.need_grad)

    def apply(self, **attributes: Any) -> Variable:
        """Set attributes and return self: ``x = nn.Variable(a).apply(need_grad=True)``."""
        for key, value in attributes.items():
            setattr(self, key, value)
        return self

    def backward(
        self, grad: Any = None, retain_grad: bool = False, clear_buffer: bool = False
    ) -> None:
        """Back-propagate from this variable.

        Args:
            grad: gradient of this variable; None means ones (the variable is usually a scalar
                loss), a number fills the shape with it.
            retain_grad: keep the gradients of intermediate variables in their ``grad``.
            clear_buffer: free the graph while walking it (the graph cannot be walked again).
        """
        backward([self], [grad], retain_grad=retain_grad, clear_buffer=clear_buffer)

    def _accumulate(self, gx: Any) -> None:
        # Out-of-place: ``gx`` may alias another variable's gradient.
        if self.grad is None:
            self.grad = gx.copy() if gx.dtype == self.data.dtype else gx.astype(self.data.dtype)
        else:
            self.grad = self.grad + gx

    # The arithmetic operators (+ - * / ** @, unary -) are NNC's arithmetic layers (Add2,
    # AddScalar, ...): engine.core.ops.arithmetic, which is built on this module, installs them
    # when it is imported (as Chainer installs its Variable's arithmetic).
    def __pos__(self) -> Variable:
        return self


class DeferredGrad:
    """A gradient not computed yet, which the creator of the variable it flows to may take in
    a fused form: a ReLU's input gradient ``gy * (x > 0)`` handed to the batch normalization
    that computed ``x``, which masks ``gy`` in its own passes (one pass over the activation
    fewer, the same numbers), also through an addition (a residual block's
    ``relu(bn(a) + bn(b))``: Add2 hands it on to both). :func:`backward` computes it
    (``value()``, once) wherever anything else would see it: a second gradient summed into
    it, a leaf, a broadcast input, ``retain_grad``, a creator without ``takes_deferred``.

    ``kind`` names the form (``"relu"``: ``args`` are ``(gy, x)``); ``compute(*args)`` gives
    the gradient.
    """

    __slots__ = ("kind", "args", "compute", "shape", "dtype", "computed")

    def __init__(self, kind: str, args: tuple, compute: Any, shape: tuple, dtype: Any) -> None:
        self.kind, self.args, self.compute = kind, args, compute
        self.shape, self.dtype = shape, dtype
        self.computed = None

    def value(self) -> Any:
        if self.computed is None:
            self.computed = self.compute(*self.args)
        return self.computed


class LaterGrad:
    """A leaf's gradient computed on another thread while the walk goes on (a convolution's
    weight gradient: nothing else in the walk reads it, and its kernel leaves one core to
    the walk's own work). :func:`backward` sums it into its leaf when the walk ends, in the
    order the walk produced the leaf's gradients, so the numbers are those of computing it
    in place. ``future`` runs ``job``; ``shape`` is the result's.

    Made only while :func:`walking` (a backward walk on this thread asks for it): a caller of
    ``Function.backward`` outside a walk always gets arrays."""

    __slots__ = ("future", "job", "shape")

    def __init__(self, future: Any, job: Any, shape: tuple) -> None:
        self.future, self.job, self.shape = future, job, tuple(shape)

    def value(self) -> Any:
        """The gradient: waited for, or computed on this thread if no thread has started it
        (a busy machine's partner is not waited for)."""
        if self.future.cancel():
            return self.job()
        return self.future.result()


_walks = threading.local()  # how many backward walks this thread is in


def walking() -> bool:
    """Whether a :func:`backward` walk on this thread is running (it takes :class:`LaterGrad`)."""
    return getattr(_walks, "depth", 0) > 0


def backward(
    variables: list[Variable],
    grads: list[Any] | None = None,
    retain_grad: bool = False,
    clear_buffer: bool = False,
) -> None:
    """Back-propagate from several variables at once (their gradients are summed).

    ``grads[i]`` seeds ``variables[i]``: None means ones, a number fills the shape with it.
    """
    grads = list(grads) if grads is not None else [None] * len(variables)
    pending: dict[int, list] = {}  # id(variable) -> [variable, summed gradient]
    heap: list[tuple[int, int, Function]] = []
    seen: set[int] = set()
    counter = 0

    def push(f: Function) -> None:
        nonlocal counter
        if id(f) not in seen:
            seen.add(id(f))
            counter += 1
            heapq.heappush(heap, (-f.generation, counter, f))

    module = np
    for var, grad in zip(variables, grads, strict=True):
        module = backend.get_array_module(var.data)
        if grad is None:
            grad = module.ones_like(var.data)
        elif np.ndim(grad) == 0 and not hasattr(grad, "shape"):
            grad = module.full_like(var.data, grad)
        else:
            grad = _to_array(grad)
        if var.creator is None:
            if var.need_grad:
                var._accumulate(grad)
            continue
        _add_pending(pending, var, grad, retain_grad)
        push(var.creator)

    later: dict[int, list] = {}  # id(leaf) -> [leaf, its gradients in walk order] (see LaterGrad)
    _walks.depth = getattr(_walks, "depth", 0) + 1
    try:
        _walk(heap, pending, later, module, push, retain_grad, clear_buffer)
    except BaseException:
        for _, gxs in later.values():  # no thread left writing once the error is raised
            for gx in gxs:
                if type(gx) is LaterGrad:
                    with contextlib.suppress(Exception):
                        gx.value()
        raise
    finally:
        _walks.depth -= 1
    for leaf, gxs in later.values():
        for gx in gxs:
            leaf._accumulate(gx.value() if type(gx) is LaterGrad else gx)


def _walk(heap, pending, later, module, push, retain_grad, clear_buffer) -> None:
    """The walk of :func:`backward`: each function's backward, latest generation first."""
    while heap:
        f = heapq.heappop(heap)[2]
        gys = []
        for ref, shape, dtype in zip(f.outputs, f.output_shapes, f.output_dtypes, strict=True):
            out = ref()
            entry = None if out is None else pending.pop(id(out), None)
            if entry is None:
                gys.append(module.zeros(shape, dtype=dtype))
            elif type(entry[1]) is DeferredGrad and not f.takes_deferred:
                gys.append(entry[1].value())
            else:
                gys.append(entry[1])
        gxs = f.backward(*gys)
        if not isinstance(gxs, tuple):
            gxs = (gxs,)
        for x, gx in zip(f.inputs, gxs, strict=True):
            if gx is None or not x.need_grad:
                continue
            if type(gx) is LaterGrad and (x.creator is not None or gx.shape != x.data.shape):
                gx = gx.value()
            if gx.shape != x.data.shape:
                gx = sum_to(gx.value() if type(gx) is DeferredGrad else gx, x.data.shape)
            if x.creator is None:
                gx = gx.value() if type(gx) is DeferredGrad else gx
                if type(gx) is LaterGrad or id(x) in later:  # summed in order at the end
                    later.setdefault(id(x), [x, []])[1].append(gx)
                else:
                    x._accumulate(gx)
                continue
            _add_pending(pending, x, gx, retain_grad)
            push(x.creator)
        if clear_buffer:
            f.release()


def _add_pending(pending: dict, var: Variable, grad: Any, retain_grad: bool) -> None:
    """Sum ``grad`` into the pending gradient of ``var``, keeping ``var`` alive until its creator
    runs (with clear_buffer the graph no longer holds it)."""
    entry = pending.get(id(var))
    if entry is None:
        pending[id(var)] = entry = [var, grad]
    else:  # a second consumer: a deferred gradient is computed to be summed
        a, b = entry[1], grad
        entry[1] = (a.value() if type(a) is DeferredGrad else a) + (
            b.value() if type(b) is DeferredGrad else b
        )
    if retain_grad:
        if type(entry[1]) is DeferredGrad:
            entry[1] = entry[1].value()
        var.grad = entry[1]


def as_variable(x: Any) -> Variable:
    """``x`` itself when it is a Variable, else a constant Variable wrapping it."""
    return x if isinstance(x, Variable) else Variable(x)


def sum_to(g: Any, shape: tuple[int, ...]) -> Any:
    """Reduce a broadcast gradient ``g`` back to ``shape`` (the inverse of broadcasting)."""
    shape = tuple(shape)
    if g.shape == shape:
        return g
    lead = g.ndim - len(shape)
    axes = tuple(range(lead)) + tuple(
        lead + i for i, n in enumerate(shape) if n == 1 and g.shape[lead + i] != 1
    )
    out = g.sum(axis=axes, keepdims=True) if axes else g
    if lead:
        out = out.reshape(shape)
    return out


class Function:
    """One differentiable operation: ``forward`` on arrays, ``backward`` on output gradients.

    Subclasses set their hyper-parameters in ``__init__``, compute outputs in
    ``forward(*xs) -> array | tuple`` (saving on ``self`` what backward needs) and return one
    gradient per input from ``backward(*gys)`` (None where no gradient flows).
    ``self.needs_input_grad`` tells which inputs want a gradient, so work can be skipped.
    """

    inputs: tuple[Variable, ...]
    outputs: tuple[weakref.ref, ...]
    generation: int = 0
    needs_input_grad: tuple[bool, ...] = ()
    # Whether backward accepts a DeferredGrad among its output gradients (and computes it
    # when it cannot use its fused form).
    takes_deferred: bool = False

    def __call__(self, *inputs: Any) -> Any:
        # Plain loops, not generator expressions: this runs for every operation of every step
        # (each generator is a Python call per element under the interpreter's accounting).
        xs = inputs
        for x in inputs:
            if not isinstance(x, Variable):
                xs = tuple(x if isinstance(x, Variable) else Variable(x) for x in inputs)
                break
        flags = [x.need_grad for x in xs]
        record = _grad_enabled[0] and any(flags)
        self.needs_input_grad = tuple(flags) if record else (False,) * len(xs)
        ys = self.forward(*[x.data for x in xs])
        single = not isinstance(ys, tuple)
        if single:
            ys = (ys,)
        outputs = []
        for y in ys:
            out = Variable.__new__(Variable)
            out.data = y
            out.grad = None
            out.need_grad = record
            out.creator = None
            out.generation = 0
            out.name = None
            outputs.append(out)
        if record:
            self.inputs = xs
            generation = 0
            for x in xs:
                if x.generation > generation:
                    generation = x.generation
            self.generation = generation
            self.outputs = tuple([weakref.ref(o) for o in outputs])
            self.output_shapes = tuple([y.shape for y in ys])
            self.output_dtypes = tuple([y.dtype for y in ys])
            for out in outputs:
                out.creator = self
                out.generation = generation + 1
        return outputs[0] if single else tuple(outputs)

    def forward(self, *xs: Any) -> Any:
        raise NotImplementedError

    def backward(self, *gys: Any) -> Any:
        raise NotImplementedError

    def release(self) -> None:
        """Drop references to inputs and saved arrays (after backward with clear_buffer)."""
        self.__dict__.clear()

    @property
    def name(self) -> str:
        return type(self).__name__

    def __lt__(self, other: Function) -> bool:  # heap ties
        return id(self) < id(other)

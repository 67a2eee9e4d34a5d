"""The guard's device array: a NumPy array behind the wall CuPy puts between device and host.

:class:`GuardArray` supports what ``cupy.ndarray`` supports (operators, indexing, the methods
CuPy's ndarray has) and refuses what CuPy refuses or what would silently cost a host round trip:

* implicit conversion to NumPy (``np.asarray(a)``, Pillow, matplotlib): ``TypeError`` with
  CuPy's own message;
* ``np.<function>(a)`` (CuPy would dispatch some of these; the engine must call its array module);
* mixing with NumPy arrays in arithmetic (CuPy raises ``TypeError: Unsupported type``);
* ``str(a)`` / ``format(a)`` (a device array written into a CSV cell or a message);
* methods ``cupy.ndarray`` lacks.

Reading a value back (``float``, ``int``, ``bool``, ``.item()``, ``.tolist()``, ``.get()``) works as
on CuPy but counts one host synchronisation in :data:`STATE`, so a test can bound them per step.
"""

from __future__ import annotations

import operator
import os
from typing import Any

import numpy as np

from engine.guard import names


class GuardError(TypeError):
    """Something CuPy would refuse (or that would copy a device array to the host implicitly)."""


class GuardOutOfMemoryError(MemoryError):
    """Mimics ``cupy.cuda.memory.OutOfMemoryError`` (raised past :attr:`State.memory_limit`)."""

    def __init__(self, size: int, limit: int) -> None:
        self.size, self.limit = size, limit
        super().__init__(
            f"Out of memory allocating {size:,} bytes (allocated so far: 0 bytes, limit set to "
            f"{limit:,} bytes)."
        )


class GuardCUDAError(RuntimeError):
    """Mimics ``cupy.cuda.runtime.CUDARuntimeError`` (injected with :attr:`State.fail`)."""


class State:
    """Counters and fault injection of the guard (one per process)."""

    def __init__(self) -> None:
        self.syncs = 0
        self.sync_sites: list[str] = []
        self.trace_syncs = False
        # Fault injection, also from the environment for CLI tests: the bytes one allocation
        # may take, and (function or operator name, CUDA error message) to fail once.
        limit = os.environ.get("NEUROCANVAS_GUARD_MEMORY_LIMIT")
        self.memory_limit: int | None = int(limit) if limit else None
        name, _, message = os.environ.get("NEUROCANVAS_GUARD_FAIL", "").partition(":")
        self.fail: tuple[str, str] | None = (name, message.strip()) if name else None

    def sync(self, what: str) -> None:
        self.syncs += 1
        if self.trace_syncs:
            import traceback  # only when a test asks where syncs come from

            self.sync_sites.append(what + "\n" + "".join(traceback.format_stack(limit=8)[:-2]))


STATE = State()


def fault(name: str) -> None:
    """Raise the CUDA error :attr:`State.fail` injects when ``name`` is its function (once)."""
    if STATE.fail is not None and STATE.fail[0] == name:
        message = STATE.fail[1]
        STATE.fail = None
        raise GuardCUDAError(message)


_SCALARS = (bool, int, float, complex, np.generic)


def wrap(value: Any) -> Any:
    """NumPy results as device values: arrays and NumPy scalars become :class:`GuardArray` (CuPy
    reductions return 0-d arrays, not scalars); containers are wrapped element by element."""
    if isinstance(value, np.ndarray):
        return GuardArray(value)
    if isinstance(value, np.generic):
        return GuardArray(np.asarray(value))
    if isinstance(value, tuple):
        return tuple(wrap(v) for v in value)
    if isinstance(value, list):
        return [wrap(v) for v in value]
    return value


def unwrap(value: Any, where: str, host_ok: bool = False) -> Any:
    """Device arrays to their NumPy storage; host NumPy arrays refused unless ``host_ok``."""
    if isinstance(value, GuardArray):
        return value._a
    if isinstance(value, np.ndarray) and not host_ok:
        raise GuardError(
            f"{where}: Unsupported type <class 'numpy.ndarray'> (a host array mixed with device "
            "arrays; move it with xp.asarray first)"
        )
    if isinstance(value, (tuple, list)):
        return type(value)(unwrap(v, where, host_ok) for v in value)
    if isinstance(value, dict):
        return {k: unwrap(v, where, host_ok) for k, v in value.items()}
    return value


def _operand(other: Any, where: str) -> Any:
    if isinstance(other, GuardArray):
        return other._a
    if isinstance(other, np.ndarray):
        raise GuardError(f"{where}: Unsupported type <class 'numpy.ndarray'>")
    if isinstance(other, _SCALARS):
        return other
    return NotImplemented


def _binary(op: Any, name: str, reflected: bool = False) -> Any:
    def method(self: GuardArray, other: Any) -> Any:
        o = _operand(other, f"ndarray.{name}")
        if o is NotImplemented:
            return NotImplemented
        fault(name)
        return wrap(op(o, self._a) if reflected else op(self._a, o))

    method.__name__ = name
    return method


def _inplace(op: Any, name: str) -> Any:
    def method(self: GuardArray, other: Any) -> Any:
        o = _operand(other, f"ndarray.{name}")
        if o is NotImplemented:
            return NotImplemented
        op(self._a, o)
        return self

    method.__name__ = name
    return method


def _index(key: Any) -> Any:
    """Unwrap an index; NumPy index arrays are accepted (CuPy copies them to the device)."""
    if isinstance(key, tuple):
        return tuple(_index(k) for k in key)
    if isinstance(key, GuardArray):
        return key._a
    return key


def _has_mask(key: Any) -> bool:
    keys = key if isinstance(key, tuple) else (key,)
    return any(isinstance(k, np.ndarray) and k.dtype == np.bool_ and k.ndim > 0 for k in keys)


class GuardArray:
    """A device array of the guard (see the module docstring)."""

    __slots__ = ("_a", "__weakref__")
    __array_priority__ = 100  # below Variable's 200: ``array + Variable`` stays a Variable op

    def __init__(self, array: np.ndarray) -> None:
        limit = STATE.memory_limit
        if limit is not None and array.nbytes > limit:
            raise GuardOutOfMemoryError(array.nbytes, limit)
        self._a = array

    # -- what CuPy refuses ------------------------------------------------------------------
    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        raise GuardError(
            "Implicit conversion to a NumPy array is not allowed. Please use `.get()` to "
            "construct a NumPy array explicitly (engine: backend.to_numpy)."
        )

    def __array_function__(self, func: Any, types: Any, args: Any, kwargs: Any) -> Any:
        name = getattr(func, "__name__", str(func))
        if name in ("ndim", "shape", "size"):  # metadata only, nothing moves
            return getattr(args[0], name) if isinstance(args[0], GuardArray) else func(*args)
        raise GuardError(
            f"numpy.{name}() called on a device array: call it through the array module "
            f"(xp.{name} with xp = backend.get_array_module(a)) so it runs on the device"
        )

    def __array_ufunc__(self, ufunc: Any, method: str, *inputs: Any, **kwargs: Any) -> Any:
        where = f"numpy.{ufunc.__name__}"
        args = [unwrap(x, where) for x in inputs]
        if "out" in kwargs:
            kwargs["out"] = tuple(unwrap(o, where) for o in kwargs["out"])
        return wrap(getattr(ufunc, method)(*args, **kwargs))

    def __str__(self) -> str:
        raise GuardError(
            "str() of a device array (a CSV cell, a message): read it back explicitly with "
            "float(a) / backend.to_numpy(a) where the value is needed"
        )

    def __format__(self, spec: str) -> str:
        raise GuardError("format() of a device array: convert it explicitly first")

    def __repr__(self) -> str:  # for test failure messages; not a data path
        return f"GuardArray(shape={self._a.shape}, dtype={self._a.dtype})"

    # -- reading back: allowed, counted ----------------------------------------------------
    def _read(self, what: str) -> np.ndarray:
        STATE.sync(what)
        return self._a

    def __float__(self) -> float:
        return float(self._read("float()"))

    def __int__(self) -> int:
        return int(self._read("int()"))

    def __index__(self) -> int:
        return operator.index(self._read("index").item())

    def __bool__(self) -> bool:
        return bool(self._read("bool()"))

    def __complex__(self) -> complex:
        return complex(self._read("complex()"))

    def item(self, *args: Any) -> Any:
        return self._read("item()").item(*args)

    def tolist(self) -> Any:
        return self._read("tolist()").tolist()

    def get(self, stream: Any = None, order: str = "C", out: Any = None) -> np.ndarray:
        return np.array(self._read("get()"), copy=True, order=order)

    # -- container protocol ---------------------------------------------------------------
    def __len__(self) -> int:
        return len(self._a)

    def __iter__(self) -> Any:
        if self._a.ndim == 0:
            raise TypeError("iteration over a 0-d array")
        return (GuardArray(self._a[i]) for i in range(len(self._a)))

    def __getitem__(self, key: Any) -> Any:
        key = _index(key)
        if _has_mask(key):  # the result's size depends on the data: CuPy synchronises
            STATE.sync("boolean mask indexing")
        return wrap(self._a[key])

    def __setitem__(self, key: Any, value: Any) -> None:
        self._a[_index(key)] = unwrap(value, "ndarray.__setitem__", host_ok=True)

    # -- attributes and methods of cupy.ndarray ------------------------------------------------
    def __getattr__(self, name: str) -> Any:
        if name not in names.NDARRAY:
            raise AttributeError(f"'cupy.ndarray' object has no attribute '{name}'")
        value = getattr(self._a, name)
        if not callable(value):
            return wrap(value) if name in ("T", "mT", "real", "imag", "base") else value
        if name in ("nonzero",):
            STATE.sync(f"ndarray.{name}()")

        def method(*args: Any, **kwargs: Any) -> Any:
            where = f"ndarray.{name}"
            return wrap(value(*unwrap(args, where), **unwrap(kwargs, where)))

        return method

    @property
    def shape(self) -> tuple[int, ...]:
        return self._a.shape

    @property
    def dtype(self) -> np.dtype:
        return self._a.dtype

    @property
    def ndim(self) -> int:
        return self._a.ndim

    @property
    def size(self) -> int:
        return self._a.size

    __add__ = _binary(operator.add, "__add__")
    __radd__ = _binary(operator.add, "__radd__", True)
    __sub__ = _binary(operator.sub, "__sub__")
    __rsub__ = _binary(operator.sub, "__rsub__", True)
    __mul__ = _binary(operator.mul, "__mul__")
    __rmul__ = _binary(operator.mul, "__rmul__", True)
    __truediv__ = _binary(operator.truediv, "__truediv__")
    __rtruediv__ = _binary(operator.truediv, "__rtruediv__", True)
    __floordiv__ = _binary(operator.floordiv, "__floordiv__")
    __rfloordiv__ = _binary(operator.floordiv, "__rfloordiv__", True)
    __mod__ = _binary(operator.mod, "__mod__")
    __rmod__ = _binary(operator.mod, "__rmod__", True)
    __pow__ = _binary(operator.pow, "__pow__")
    __rpow__ = _binary(operator.pow, "__rpow__", True)
    __matmul__ = _binary(operator.matmul, "__matmul__")
    __rmatmul__ = _binary(operator.matmul, "__rmatmul__", True)
    __and__ = _binary(operator.and_, "__and__")
    __rand__ = _binary(operator.and_, "__rand__", True)
    __or__ = _binary(operator.or_, "__or__")
    __ror__ = _binary(operator.or_, "__ror__", True)
    __xor__ = _binary(operator.xor, "__xor__")
    __rxor__ = _binary(operator.xor, "__rxor__", True)
    __lshift__ = _binary(operator.lshift, "__lshift__")
    __rshift__ = _binary(operator.rshift, "__rshift__")
    __eq__ = _binary(operator.eq, "__eq__")  # type: ignore[assignment]
    __ne__ = _binary(operator.ne, "__ne__")  # type: ignore[assignment]
    __lt__ = _binary(operator.lt, "__lt__")
    __le__ = _binary(operator.le, "__le__")
    __gt__ = _binary(operator.gt, "__gt__")
    __ge__ = _binary(operator.ge, "__ge__")
    __iadd__ = _inplace(operator.iadd, "__iadd__")
    __isub__ = _inplace(operator.isub, "__isub__")
    __imul__ = _inplace(operator.imul, "__imul__")
    __itruediv__ = _inplace(operator.itruediv, "__itruediv__")
    __ipow__ = _inplace(operator.ipow, "__ipow__")
    __iand__ = _inplace(operator.iand, "__iand__")
    __ior__ = _inplace(operator.ior, "__ior__")
    __hash__ = None  # type: ignore[assignment]

    def __neg__(self) -> GuardArray:
        return GuardArray(-self._a)

    def __pos__(self) -> GuardArray:
        return GuardArray(+self._a)

    def __abs__(self) -> GuardArray:
        return GuardArray(abs(self._a))

    def __invert__(self) -> GuardArray:
        return GuardArray(~self._a)

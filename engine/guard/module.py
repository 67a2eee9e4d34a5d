"""The guard's array module: ``cupy``'s namespace computed by NumPy, with CuPy's gaps.

``xp.<name>`` exists only when ``cupy.<name>`` does (recorded in ``cupy_names.json``); keyword
arguments CuPy's function does not take raise ``TypeError`` as on CuPy; host NumPy arrays are
accepted only by the functions that copy to the device (``asarray``, ``array``...); the
functions whose output size depends on the data (``nonzero``, ``unique``...) count a host
synchronisation as they cost one on CuPy.
"""

from __future__ import annotations

import functools
from types import ModuleType
from typing import Any

import numpy as np

from engine.guard import names
from engine.guard.array import STATE, GuardArray, GuardError, fault, unwrap, wrap

_HOST_TO_DEVICE = {"array", "asarray", "ascontiguousarray", "asfortranarray", "asanyarray"}
_SYNCING = {"nonzero", "flatnonzero", "argwhere", "unique", "compress", "extract"}
_ATOMIC_ADD = (np.float32, np.int32, np.uint32, np.uint64)  # cupyx.scatter_add's documented types


def _check_kwargs(qualname: str, kwargs: dict) -> None:
    allowed = names.SIGNATURES.get(qualname)
    if allowed is None:
        return
    for key in kwargs:
        if key not in allowed:
            raise TypeError(f"{qualname}() got an unexpected keyword argument '{key}'")


def _function(qualname: str, name: str, fn: Any) -> Any:
    host_ok = name in _HOST_TO_DEVICE and qualname.count(".") == 1

    @functools.wraps(fn)
    def call(*args: Any, **kwargs: Any) -> Any:
        _check_kwargs(qualname, kwargs)
        fault(name)
        if name in _SYNCING or (name == "where" and len(args) == 1):
            STATE.sync(f"{qualname}()")
        a = unwrap(args, qualname, host_ok)
        k = unwrap(kwargs, qualname, host_ok)
        return wrap(fn(*a, **k))

    return call


class GuardUfunc:
    """A ufunc of the guard module (``xp.add(a, b)``, ``xp.add.at``, ``xp.maximum.reduce``)."""

    def __init__(self, ufunc: np.ufunc) -> None:
        self._u = ufunc
        self.__name__ = ufunc.__name__
        self.nin, self.nout = ufunc.nin, ufunc.nout

    def _apply(self, method: str, args: Any, kwargs: Any) -> Any:
        where = (
            f"cupy.{self.__name__}.{method}" if method != "__call__" else f"cupy.{self.__name__}"
        )
        fault(self.__name__)
        fn = getattr(self._u, method)
        return wrap(fn(*unwrap(args, where), **unwrap(kwargs, where)))

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self._apply("__call__", args, kwargs)

    def reduce(self, *args: Any, **kwargs: Any) -> Any:
        return self._apply("reduce", args, kwargs)

    def accumulate(self, *args: Any, **kwargs: Any) -> Any:
        return self._apply("accumulate", args, kwargs)

    def outer(self, *args: Any, **kwargs: Any) -> Any:
        return self._apply("outer", args, kwargs)

    def at(self, a: GuardArray, indices: Any, b: Any = None) -> None:
        self._apply("at", (a, indices) + (() if b is None else (b,)), {})


class _Namespace(ModuleType):
    """A sub-namespace (``random``, ``linalg``, ``fft``) limited to CuPy's names."""

    def __init__(self, qualname: str, source: Any, allowed: frozenset[str]) -> None:
        super().__init__(qualname)
        self._source, self._allowed = source, allowed

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") or name not in self._allowed or not hasattr(self._source, name):
            raise AttributeError(f"module '{self.__name__}' has no attribute '{name}'")
        value = getattr(self._source, name)
        if callable(value) and not isinstance(value, type):
            value = _function(f"{self.__name__}.{name}", name, value)
        setattr(self, name, value)
        return value


class GuardGenerator:
    """``cupy.random.Generator``: NumPy's generator with only the methods CuPy's has."""

    def __init__(self, seed: Any = None) -> None:
        self._g = np.random.default_rng(seed)

    def __getattr__(self, name: str) -> Any:
        if name not in names.GENERATOR:
            raise AttributeError(f"'cupy.random.Generator' object has no attribute '{name}'")
        fn = getattr(self._g, name)
        return _function(f"cupy.random.Generator.{name}", name, fn)


def _random() -> _Namespace:
    space = _Namespace("cupy.random", np.random, names.RANDOM)
    space.default_rng = GuardGenerator  # type: ignore[attr-defined]
    space.Generator = GuardGenerator  # type: ignore[attr-defined]
    return space


class GuardModule(ModuleType):
    """The array module ``backend.xp()`` returns under the guard (a stand-in for ``cupy``)."""

    ndarray = GuardArray

    def __init__(self) -> None:
        super().__init__("cupy")
        self.random = _random()
        self.linalg = _Namespace("cupy.linalg", np.linalg, names.LINALG)
        self.fft = _Namespace("cupy.fft", np.fft, names.FFT)
        self.lib = ModuleType("cupy.lib")
        self.lib.stride_tricks = _Namespace(  # type: ignore[attr-defined]
            "cupy.lib.stride_tricks",
            np.lib.stride_tricks,
            frozenset({"as_strided", "sliding_window_view"}),
        )

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") or name not in names.CUPY:
            raise AttributeError(
                f"module 'cupy' has no attribute '{name}' (CuPy {names.VERSION} lacks it)"
            )
        if not hasattr(np, name):
            raise AttributeError(f"the guard does not emulate cupy.{name}")
        value = getattr(np, name)
        if isinstance(value, np.ufunc):
            value = GuardUfunc(value)
        elif callable(value) and not isinstance(value, type):
            value = _function(f"cupy.{name}", name, value)
        setattr(self, name, value)
        return value

    @staticmethod
    def asnumpy(a: Any, stream: Any = None, order: str = "C", out: Any = None) -> np.ndarray:
        return a.get(order=order) if isinstance(a, GuardArray) else np.asarray(a, order=order)

    def get_array_module(self, *args: Any) -> Any:
        return self if any(isinstance(a, GuardArray) for a in args) else np

    @staticmethod
    def fuse(*args: Any, **kwargs: Any) -> Any:
        return args[0] if args and callable(args[0]) else (lambda f: f)


def scatter_add(a: GuardArray, slices: Any, value: Any) -> None:
    """``cupyx.scatter_add``: refuses the dtypes CUDA's atomicAdd lacks, as CuPy documents."""
    if not isinstance(a, GuardArray):
        raise GuardError("cupyx.scatter_add: the target must be a device array")
    if a.dtype.type not in _ATOMIC_ADD:
        raise GuardError(
            f"cupyx.scatter_add supports float32, int32, uint32 and uint64 only. Received: "
            f"{a.dtype}"
        )
    np.add.at(a._a, unwrap(slices, "cupyx.scatter_add", True), unwrap(value, "cupyx.scatter_add"))


MODULE = GuardModule()

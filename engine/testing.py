"""The one op-test harness: forward against a reference, float64 finite-difference gradients,
float32 agreement and dtype preservation (CuPy's ``numpy_cupy_allclose`` idea for the engine).

Used by ``tests/engine/core/ops`` and by anyone adding a kernel::

    check_function(F.tanh, [x], reference=np.tanh)
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from engine.core import backend
from engine.core.autograd import Variable, backward, no_grad


def _as_tuple(y: Any) -> tuple:
    return y if isinstance(y, tuple) else (y,)


def _is_float(a: np.ndarray) -> bool:
    return np.issubdtype(np.asarray(a).dtype, np.floating)


def _run(fn: Callable, arrays: Sequence[Any], kwargs: dict, need: Sequence[bool], seed: int | None):
    if seed is not None:
        backend.seed(seed)
    xs = [Variable(a.copy(), need_grad=n) for a, n in zip(arrays, need, strict=True)]
    return xs, _as_tuple(fn(*xs, **kwargs))


def numerical_grad(
    fn: Callable,
    arrays: Sequence[np.ndarray],
    kwargs: dict,
    gys: Sequence[np.ndarray | None],
    index: int,
    eps: float,
    seed: int | None,
) -> np.ndarray:
    """Central differences of ``sum_k <y_k, gy_k>`` with respect to ``arrays[index]``."""
    base = [np.array(a, copy=True) for a in arrays]
    grad = np.zeros_like(base[index], dtype=np.float64)
    flat = base[index].reshape(-1)
    out = grad.reshape(-1)
    need = [False] * len(base)

    def objective() -> float:
        with no_grad():
            _, ys = _run(fn, base, kwargs, need, seed)
        return sum(
            float(np.sum(backend.to_numpy(y.data) * g))
            for y, g in zip(ys, gys, strict=True)
            if g is not None
        )

    for j in range(flat.size):
        orig = flat[j]
        flat[j] = orig + eps
        f_plus = objective()
        flat[j] = orig - eps
        f_minus = objective()
        flat[j] = orig
        out[j] = (f_plus - f_minus) / (2 * eps)
    return grad


def check_function(
    fn: Callable,
    inputs: Sequence[Any],
    *,
    kwargs: dict | None = None,
    reference: Callable | None = None,
    need_grad: Sequence[bool] | None = None,
    atol: float = 1e-7,
    rtol: float = 1e-6,
    eps: float = 1e-6,
    grad_atol: float = 1e-5,
    grad_rtol: float = 1e-4,
    float32: bool = True,
    float32_tol: float = 1e-4,
    seed: int | None = None,
    check_grad: bool = True,
) -> tuple[np.ndarray, ...]:
    """Check one function end to end and return its float64 outputs as NumPy arrays.

    Args:
        fn: an ``F.*`` function taking Variables (positional) and ``kwargs``.
        inputs: NumPy arrays; floating ones are used as float64 and get gradients by default.
        reference: ``reference(*inputs) -> array | tuple`` computed independently (NumPy).
        need_grad: which inputs to differentiate (default: the floating ones).
        seed: for random functions: re-seed the engine before every evaluation so each forward
            draws the same random numbers.
        check_grad: False for functions without a gradient (comparisons, argmax...).
    """
    kwargs = dict(kwargs or {})
    arrays = [np.asarray(a, dtype=np.float64) if _is_float(a) else np.asarray(a) for a in inputs]
    originals = [a.copy() for a in arrays]
    need = list(need_grad) if need_grad is not None else [_is_float(a) for a in arrays]

    xs, ys = _run(fn, arrays, kwargs, need, seed)
    outputs = tuple(backend.to_numpy(y.data) for y in ys)
    for a, orig in zip(arrays, originals, strict=True):
        np.testing.assert_array_equal(a, orig, err_msg="forward modified its input in place")

    if reference is not None:
        expected = _as_tuple(reference(*[a.copy() for a in originals]))
        assert len(expected) == len(outputs), (
            f"{len(outputs)} outputs, reference gives {len(expected)}"
        )
        for k, (got, exp) in enumerate(zip(outputs, expected, strict=True)):
            exp = np.asarray(exp)
            assert got.shape == exp.shape, f"output {k}: shape {got.shape}, expected {exp.shape}"
            np.testing.assert_allclose(
                got, exp, atol=atol, rtol=rtol, err_msg=f"output {k} forward"
            )

    gys: list = []
    grads: dict[int, np.ndarray] = {}
    if check_grad and any(need):
        rng = np.random.default_rng(1234)
        gys = [rng.standard_normal(o.shape) if _is_float(o) else None for o in outputs]
        live = [
            (y, g) for y, g in zip(ys, gys, strict=True) if g is not None and y.creator is not None
        ]
        if live:
            backward([y for y, _ in live], [g for _, g in live])
        for i, x in enumerate(xs):
            if not need[i]:
                continue
            numeric = numerical_grad(fn, originals, kwargs, gys, i, eps, seed)
            analytic = np.zeros_like(numeric) if x.grad is None else backend.to_numpy(x.grad)
            assert analytic.shape == numeric.shape, f"input {i}: grad shape {analytic.shape}"
            np.testing.assert_allclose(
                analytic, numeric, atol=grad_atol, rtol=grad_rtol, err_msg=f"gradient of input {i}"
            )
            grads[i] = analytic

    device_check(fn, originals, kwargs, need, seed, outputs, gys, grads, float32_tol)

    if float32 and any(_is_float(a) for a in arrays):
        arrays32 = [a.astype(np.float32) if _is_float(a) else a for a in originals]
        with no_grad():
            _, ys32 = _run(fn, arrays32, kwargs, [False] * len(arrays32), seed)
        for k, (y32, y64) in enumerate(zip(ys32, outputs, strict=True)):
            got = backend.to_numpy(y32.data)
            if _is_float(y64):
                assert got.dtype == np.float32, f"output {k}: float32 input gave {got.dtype}"
                scale = max(1.0, float(np.max(np.abs(y64))) if y64.size else 1.0)
                np.testing.assert_allclose(
                    got,
                    y64,
                    atol=float32_tol * scale,
                    rtol=float32_tol,
                    err_msg=f"output {k} float32",
                )
    return outputs


@functools.lru_cache(maxsize=1)
def gpu_available() -> bool:
    """Whether CuPy sees a CUDA device (the device comparison then runs on it)."""
    cupy, _ = backend._probe_cupy()
    return cupy is not None


def device_name() -> str:
    """The device :func:`device_check` runs on: ``gpu`` when CuPy sees one, else ``guard`` (the
    CuPy-like CPU backend of :mod:`engine.guard`)."""
    return "gpu" if gpu_available() else "guard"


def device_check(fn, arrays, kwargs, need, seed, outputs, gys, grads, tol) -> None:
    """The same function on device arrays (CuPy, or the guard without a GPU): forward and backward
    in float64 and the forward in float32 agree with the NumPy results. Random functions draw the
    same numbers (the engine's generators live on the host)."""
    with backend.using(device_name()):
        module = backend.xp()
        device = [module.asarray(a) for a in arrays]
        xs, ys = _run(fn, device, kwargs, need, seed)
        for k, (y, exp) in enumerate(zip(ys, outputs, strict=True)):
            np.testing.assert_allclose(
                backend.to_numpy(y.data), exp, atol=tol, rtol=tol, err_msg=f"output {k} on device"
            )
        if not grads:
            gys = [None] * len(ys)
        live = [(y, g) for y, g in zip(ys, gys, strict=True) if g is not None and y.creator]
        if grads and live:
            backward([y for y, _ in live], [module.asarray(g) for _, g in live])
        for i, expected in grads.items():
            got = np.zeros_like(expected) if xs[i].grad is None else backend.to_numpy(xs[i].grad)
            np.testing.assert_allclose(
                got, expected, atol=tol, rtol=tol, err_msg=f"gradient of input {i} on device"
            )
        arrays32 = [a.astype(np.float32) if _is_float(a) else a for a in arrays]
        with no_grad():
            _, ys32 = _run(
                fn, [module.asarray(a) for a in arrays32], kwargs, [False] * len(arrays32), seed
            )
        for k, (y32, y64) in enumerate(zip(ys32, outputs, strict=True)):
            got = backend.to_numpy(y32.data)
            if _is_float(y64):
                scale = max(1.0, float(np.max(np.abs(y64))) if y64.size else 1.0)
                np.testing.assert_allclose(
                    got, y64, atol=tol * scale, rtol=tol, err_msg=f"output {k} float32 on device"
                )

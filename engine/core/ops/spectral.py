"""Spectral layers: nnabla ``F.fft`` and ``F.ifft`` (complex-to-complex, n-dimensional).

A complex array is stored as real numbers with a trailing axis of size 2 (real, imaginary); the
transform runs over the ``signal_ndim`` axes before it, every axis in front is a batch axis.
nnabla's reference (``python/test/function/test_fft.py``, ``test_ifft.py``) is NumPy's
``fftn``/``ifftn`` with ``norm="ortho"`` when ``normalized`` and the default norm otherwise, so
``ifft`` divides by the signal size unless normalized.

The backward of a linear transform is its adjoint: for ``fft`` that is ``N * ifftn`` (``ifftn``
when unitary), for ``ifft`` it is ``fftn / N`` (``fftn`` when unitary).
"""

from __future__ import annotations

import math

from engine.core.autograd import Function, Variable, as_variable
from engine.core.backend import get_array_module

__all__ = ["fft", "ifft"]


def _complex(xp, x):
    return x[..., 0] + 1j * x[..., 1]


def _pairs(xp, z, dtype):
    return xp.stack([z.real, z.imag], axis=-1).astype(dtype, copy=False)


class _Transform(Function):
    inverse = False

    def __init__(self, signal_ndim: int, normalized: bool) -> None:
        self.signal_ndim = signal_ndim
        self.normalized = normalized

    def _axes(self, x) -> tuple[int, ...]:
        return tuple(range(x.ndim - 1 - self.signal_ndim, x.ndim - 1))

    def _apply(self, xp, x, inverse: bool, scale: float):
        axes = self._axes(x)
        norm = "ortho" if self.normalized else None
        transform = xp.fft.ifftn if inverse else xp.fft.fftn
        z = transform(_complex(xp, x), axes=axes, norm=norm)
        return _pairs(xp, z * scale if scale != 1.0 else z, x.dtype)

    def forward(self, x):
        xp = get_array_module(x)
        self.size = math.prod(x.shape[a] for a in self._axes(x))
        return self._apply(xp, x, self.inverse, 1.0)

    def backward(self, gy):
        xp = get_array_module(gy)
        if self.normalized:
            scale = 1.0
        else:
            scale = 1.0 / self.size if self.inverse else float(self.size)
        return self._apply(xp, gy, not self.inverse, scale)


class FFT(_Transform):
    inverse = False


class IFFT(_Transform):
    inverse = True


def _check(name: str, x: Variable, signal_ndim: int) -> None:
    if x.ndim < signal_ndim + 1 or x.shape[-1] != 2:
        raise ValueError(
            f"{name}: the input needs {signal_ndim} signal axes and a last axis of size 2 "
            f"(real, imaginary). Received: shape={x.shape}, signal_ndim={signal_ndim}"
        )


def fft(x, signal_ndim: int, normalized: bool = False) -> Variable:
    """nnabla ``fft``: complex FFT over the ``signal_ndim`` axes before the last (size 2) one."""
    x = as_variable(x)
    _check("fft", x, signal_ndim)
    return FFT(int(signal_ndim), bool(normalized))(x)


def ifft(x, signal_ndim: int, normalized: bool = False) -> Variable:
    """nnabla ``ifft``: the inverse of :func:`fft`, divided by the signal size unless normalized."""
    x = as_variable(x)
    _check("ifft", x, signal_ndim)
    return IFFT(int(signal_ndim), bool(normalized))(x)

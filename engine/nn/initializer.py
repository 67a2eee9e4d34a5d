"""Parameter initializers: nnabla's classes and NNC's named initializers with a multiplier.

nnabla style (``nnabla.initializer``): :class:`NormalInitializer`, :class:`UniformInitializer`,
:class:`ConstantInitializer`, :class:`RangeInitializer` and the ``calc_*`` helpers.

NNC style (the ``<p>.Initializer`` / ``<p>.InitializerMultiplier`` properties, docs/layers.md
§1.7, as nnabla's ``graph_def._create_initializer`` builds them): one class per NNC name,
``NormalAffineGlorot(multiplier=1.0)``; the fan-in/fan-out come from the shape at call time.
:func:`create_initializer` maps an NNC name to an instance.

Every initializer returns a float32 array on the selected device, drawn from
``engine.core.backend.rng()`` unless an ``rng`` is given, so ``nn.seed(n)`` makes it reproducible.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from engine.core import backend

__all__ = [
    "BaseInitializer", "NormalInitializer", "UniformInitializer", "UniformIntInitializer",
    "ConstantInitializer", "RangeInitializer",
    "calc_normal_std_he_forward", "calc_normal_std_he_backward", "calc_normal_std_glorot",
    "calc_uniform_lim_glorot",
    "NNCInitializer", "Normal", "Uniform", "Constant", "Range",
    "NormalAffineHeForward", "NormalAffineHeBackward", "NormalAffineGlorot", "UniformAffineGlorot",
    "NormalConvolutionHeForward", "NormalConvolutionHe", "NormalConvolutionHeBackward",
    "NormalConvolutionGlorot", "UniformConvolutionGlorot",
    "NormalCLConvHeForward", "NormalCLConvHe", "NormalCLConvHeBackward", "NormalCLConvGlorot",
    "UniformCLConvGlorot", "NNC_INITIALIZERS", "create_initializer",
]  # fmt: skip

_F32 = np.float32


def _shape(shape: Any) -> tuple[int, ...]:
    if isinstance(shape, (int, np.integer)):
        return (int(shape),)
    return tuple(int(n) for n in shape)


def _device(a: Any) -> Any:
    a = backend.asarray(a)
    return a if a.dtype == _F32 else a.astype(_F32)


def _standard_normal(shape: tuple[int, ...], rng: Any) -> Any:
    gen = backend.rng() if rng is None else rng
    try:
        return _device(gen.standard_normal(size=shape, dtype=_F32))
    except TypeError:  # numpy.random.RandomState has no dtype argument
        return _device(gen.standard_normal(size=shape))


def _uniform01(shape: tuple[int, ...], rng: Any) -> Any:
    gen = backend.rng() if rng is None else rng
    if hasattr(gen, "random"):
        try:
            return _device(gen.random(size=shape, dtype=_F32))
        except TypeError:
            return _device(gen.random(size=shape))
    return _device(gen.random_sample(size=shape))


class BaseInitializer:
    """``init(shape)`` returns a float32 array of that shape on the selected device."""

    def __call__(self, shape: Any) -> Any:
        raise NotImplementedError

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in vars(self).items() if k != "rng")
        return f"{type(self).__name__}({args})"


class NormalInitializer(BaseInitializer):
    """N(0, sigma²) (nnabla ``NormalInitializer``)."""

    def __init__(self, sigma: float = 1.0, rng: Any = None) -> None:
        self.sigma = float(sigma)
        self.rng = rng

    def __call__(self, shape: Any) -> Any:
        return _standard_normal(_shape(shape), self.rng) * _F32(self.sigma)


class UniformInitializer(BaseInitializer):
    """U(lim[0], lim[1]) (nnabla ``UniformInitializer``)."""

    def __init__(self, lim: tuple[float, float] = (-1.0, 1.0), rng: Any = None) -> None:
        if len(lim) != 2:
            raise ValueError(f"UniformInitializer: lim must be (low, high). Received: lim={lim!r}")
        self.lim = (float(lim[0]), float(lim[1]))
        self.rng = rng

    def __call__(self, shape: Any) -> Any:
        low, high = self.lim
        return _uniform01(_shape(shape), self.rng) * _F32(high - low) + _F32(low)


class UniformIntInitializer(BaseInitializer):
    """Integers uniform in [lim[0], lim[1]) stored as float32 (nnabla ``UniformIntInitializer``)."""

    def __init__(self, lim: tuple[int, int] = (0, 10), rng: Any = None) -> None:
        self.lim = (int(lim[0]), int(lim[1]))
        self.rng = rng

    def __call__(self, shape: Any) -> Any:
        gen = backend.rng() if self.rng is None else self.rng
        draw = gen.integers if hasattr(gen, "integers") else gen.randint
        return _device(draw(self.lim[0], self.lim[1], size=_shape(shape)))


class ConstantInitializer(BaseInitializer):
    """Every element equals ``value`` (nnabla ``ConstantInitializer``)."""

    def __init__(self, value: float = 0.0) -> None:
        self.value = float(value)

    def __call__(self, shape: Any) -> Any:
        return backend.xp().full(_shape(shape), self.value, dtype=_F32)


class RangeInitializer(BaseInitializer):
    """``start + step * i`` along the last axis, broadcast over the others (nnabla)."""

    def __init__(self, start: float = 0.0, step: float = 1.0) -> None:
        self.start = float(start)
        self.step = float(step)

    def __call__(self, shape: Any) -> Any:
        shape = _shape(shape)
        xp = backend.xp()
        if not shape:
            return xp.full((), self.start, dtype=_F32)
        row = xp.arange(shape[-1], dtype=_F32) * _F32(self.step) + _F32(self.start)
        return xp.ascontiguousarray(xp.broadcast_to(row, shape))


# ------------------------------------------------------------------------ nnabla's formulas
def calc_normal_std_he_forward(inmaps: int, outmaps: int, kernel: Any = (1, 1)) -> float:
    """sqrt(2 / (K·N)), K = prod(kernel), N = inmaps (nnabla)."""
    return math.sqrt(2.0 / (float(np.prod(kernel)) * inmaps))


def calc_normal_std_he_backward(inmaps: int, outmaps: int, kernel: Any = (1, 1)) -> float:
    """sqrt(2 / (K·M)), M = outmaps (nnabla)."""
    return math.sqrt(2.0 / (float(np.prod(kernel)) * outmaps))


def calc_normal_std_glorot(inmaps: int, outmaps: int, kernel: Any = (1, 1)) -> float:
    """sqrt(2 / (K·(N + M))) (nnabla >= 1.2)."""
    return math.sqrt(2.0 / (float(np.prod(kernel)) * (inmaps + outmaps)))


def calc_uniform_lim_glorot(inmaps: int, outmaps: int, kernel: Any = (1, 1)) -> tuple[float, float]:
    """(-b, b) with b = sqrt(6 / (K·(N + M))) (nnabla >= 1.3)."""
    d = math.sqrt(6.0 / (float(np.prod(kernel)) * (inmaps + outmaps)))
    return -d, d


# ------------------------------------------------------------------------- NNC initializers
def _affine_fans(shape: tuple[int, ...]) -> tuple[int, int, tuple[int, ...]]:
    """Affine weight (in, *out): in = shape[0], out = prod(shape[1:])."""
    if len(shape) < 1:
        raise ValueError(f"affine initializer: weight needs at least 1 axis. Received: {shape}")
    return shape[0], int(np.prod(shape[1:])), (1,)


def _conv_fans(shape: tuple[int, ...]) -> tuple[int, int, tuple[int, ...]]:
    """Convolution weight (out, in, kh, kw): in = shape[-3], out = shape[0], K = shape[-2:]."""
    if len(shape) < 3:
        raise ValueError(
            f"convolution initializer: weight needs at least 3 axes (out, in, *kernel). "
            f"Received: shape={shape}"
        )
    return shape[-3], shape[0], shape[-2:]


def _cl_conv_fans(shape: tuple[int, ...]) -> tuple[int, int, tuple[int, ...]]:
    """Channel-last convolution weight (out, kh, kw, in): in = shape[-1], K = shape[1:3]."""
    if len(shape) < 3:
        raise ValueError(
            f"channel-last convolution initializer: weight needs at least 3 axes "
            f"(out, *kernel, in). Received: shape={shape}"
        )
    return shape[-1], shape[0], shape[1:3]


class NNCInitializer(BaseInitializer):
    """An NNC initializer: ``multiplier`` is NNC's ``<p>.InitializerMultiplier``."""

    nnc_name = ""

    def __init__(self, multiplier: float = 1.0, rng: Any = None) -> None:
        self.multiplier = float(multiplier)
        self.rng = rng


class Normal(NNCInitializer):
    """N(0, m²)."""

    nnc_name = "Normal"

    def __call__(self, shape: Any) -> Any:
        return _standard_normal(_shape(shape), self.rng) * _F32(self.multiplier)


class Uniform(NNCInitializer):
    """U(-m, m)."""

    nnc_name = "Uniform"

    def __call__(self, shape: Any) -> Any:
        return UniformInitializer((-self.multiplier, self.multiplier), self.rng)(shape)


class Constant(NNCInitializer):
    """Every element = m."""

    nnc_name = "Constant"

    def __call__(self, shape: Any) -> Any:
        return ConstantInitializer(self.multiplier)(shape)


class Range(NNCInitializer):
    """0, 1, 2, ... along the last axis, times m (nnabla ``RangeInitializer(0, 1)`` · m)."""

    nnc_name = "Range"

    def __call__(self, shape: Any) -> Any:
        return RangeInitializer(0.0, 1.0)(shape) * _F32(self.multiplier)


class _FanNormal(NNCInitializer):
    """N(0, σ²)·m with σ from the weight's fans."""

    fans = staticmethod(_affine_fans)
    std = staticmethod(calc_normal_std_glorot)

    def sigma(self, shape: Any) -> float:
        """The standard deviation before the multiplier, for this weight shape."""
        return self.std(*self.fans(_shape(shape)))

    def __call__(self, shape: Any) -> Any:
        shape = _shape(shape)
        return _standard_normal(shape, self.rng) * _F32(self.sigma(shape) * self.multiplier)


class _FanUniform(NNCInitializer):
    """U(-b, b)·m with b = sqrt(6 / (K·(in + out)))."""

    fans = staticmethod(_affine_fans)

    def bound(self, shape: Any) -> float:
        """The half-width before the multiplier, for this weight shape."""
        return calc_uniform_lim_glorot(*self.fans(_shape(shape)))[1]

    def __call__(self, shape: Any) -> Any:
        b = self.bound(shape)
        return UniformInitializer((-b, b), self.rng)(shape) * _F32(self.multiplier)


def _fan_class(name: str, base: type, fans: Any, std: Any = None) -> type:
    attrs: dict[str, Any] = {"nnc_name": name, "fans": staticmethod(fans)}
    if std is not None:
        attrs["std"] = staticmethod(std)
    doc_kind = "N(0, σ²)·m" if base is _FanNormal else "U(-b, b)·m"
    attrs["__doc__"] = f"NNC ``{name}``: {doc_kind}; fans from ``{fans.__doc__}``"
    return type(name, (base,), attrs)


_HF, _HB, _GL = calc_normal_std_he_forward, calc_normal_std_he_backward, calc_normal_std_glorot
NormalAffineHeForward = _fan_class("NormalAffineHeForward", _FanNormal, _affine_fans, _HF)
NormalAffineHeBackward = _fan_class("NormalAffineHeBackward", _FanNormal, _affine_fans, _HB)
NormalAffineGlorot = _fan_class("NormalAffineGlorot", _FanNormal, _affine_fans, _GL)
UniformAffineGlorot = _fan_class("UniformAffineGlorot", _FanUniform, _affine_fans)
NormalConvolutionHeForward = _fan_class("NormalConvolutionHeForward", _FanNormal, _conv_fans, _HF)
NormalConvolutionHe = NormalConvolutionHeForward
NormalConvolutionHeBackward = _fan_class("NormalConvolutionHeBackward", _FanNormal, _conv_fans, _HB)
NormalConvolutionGlorot = _fan_class("NormalConvolutionGlorot", _FanNormal, _conv_fans, _GL)
UniformConvolutionGlorot = _fan_class("UniformConvolutionGlorot", _FanUniform, _conv_fans)
NormalCLConvHeForward = _fan_class("NormalCLConvHeForward", _FanNormal, _cl_conv_fans, _HF)
NormalCLConvHe = NormalCLConvHeForward
NormalCLConvHeBackward = _fan_class("NormalCLConvHeBackward", _FanNormal, _cl_conv_fans, _HB)
NormalCLConvGlorot = _fan_class("NormalCLConvGlorot", _FanNormal, _cl_conv_fans, _GL)
UniformCLConvGlorot = _fan_class("UniformCLConvGlorot", _FanUniform, _cl_conv_fans)

NNC_INITIALIZERS: dict[str, type] = {
    cls.nnc_name: cls
    for cls in (
        Normal, Uniform, Constant, Range, NormalAffineHeForward, NormalAffineHeBackward,
        NormalAffineGlorot, UniformAffineGlorot, NormalConvolutionHeForward,
        NormalConvolutionHeBackward, NormalConvolutionGlorot, UniformConvolutionGlorot,
        NormalCLConvHeForward, NormalCLConvHeBackward, NormalCLConvGlorot, UniformCLConvGlorot,
    )
}  # fmt: skip
# Legacy spellings nnabla still accepts.
NNC_INITIALIZERS.update({
    "NormalAffineHe": NormalAffineHeForward, "NormalConvolutionHe": NormalConvolutionHeForward,
    "NormalCLConvHe": NormalCLConvHeForward,
})  # fmt: skip


def create_initializer(name: str, multiplier: float = 1.0, rng: Any = None) -> NNCInitializer:
    """The NNC initializer called ``name`` (e.g. ``"NormalConvolutionGlorot"``) with ``multiplier``.

    Raises:
        ValueError: unknown name; the message lists the known ones.
    """
    cls = NNC_INITIALIZERS.get(name)
    if cls is None:
        known = ", ".join(sorted(NNC_INITIALIZERS))
        raise ValueError(f"unknown initializer {name!r}; expected one of: {known}")
    return cls(multiplier, rng=rng)

"""Quantize layers: nnabla ``fixed_point_quantize``, ``pow2_quantize``, ``min_max_quantize``,
``binary_connect_*``, ``binary_weight_*``, ``binary_tanh`` and ``binary_sigmoid``.

Exactly nnabla's C++ (docs/nnc-behaviour.md §5): values stay floating point, rounding is half away
from zero, and ``ste_fine_grained=True`` *masks* the straight-through gradient outside the
representable range (NNC's help text says the opposite; the code NNC trains with wins).
Layers that own buffers (MinMaxQuantize's range, the binary layers' ``Wb`` and ``alpha``) write
them in place during forward, as nnabla does.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from engine.core.autograd import Function, Variable, as_variable
from engine.core.backend import get_array_module
from engine.core.ops.basic import affine, convolution

__all__ = [
    "fixed_point_quantize", "pow2_quantize", "min_max_quantize",
    "binary_connect_affine", "binary_connect_convolution",
    "binary_weight_affine", "binary_weight_convolution",
    "binary_tanh", "binary_sigmoid",
]  # fmt: skip


def _round_half_away(xp: Any, v: Any) -> Any:
    """``std::round``: halves go away from zero (NumPy's ``round`` goes to even)."""
    return xp.sign(v) * xp.floor(xp.abs(v) + v.dtype.type(0.5))


class FixedPointQuantize(Function):
    def __init__(self, sign: bool, n: int, delta: float, ste_fine_grained: bool) -> None:
        bits = n - 1 if sign else n
        if bits <= 0 or delta <= 0:
            raise ValueError(
                "fixed_point_quantize: n must leave >= 1 bit after the sign and delta must be > 0. "
                f"Received: n={n}, sign={sign}, delta={delta}"
            )
        self.delta, self.ste = delta, ste_fine_grained
        self.max = (2**bits - 1) * delta
        self.min = -self.max if sign else 0.0

    def forward(self, x):
        xp = get_array_module(x)
        t = x.dtype.type
        q = xp.sign(x) * xp.floor(xp.abs(x) / t(self.delta) + t(0.5)) * t(self.delta)
        self.x = x
        return xp.where(x > self.max, t(self.max), xp.where(x < self.min, t(self.min), q))

    def backward(self, gy):
        if not self.ste:
            return gy
        return gy * ((self.x >= self.min) & (self.x <= self.max))  # the boundaries pass


def fixed_point_quantize(
    x, sign: bool = True, n: int = 8, delta: float = 0.0625, quantize: bool = True,
    ste_fine_grained: bool = True,
) -> Variable:  # fmt: skip
    """nnabla ``fixed_point_quantize`` (nnc-behaviour §5.1): ``sign(x) int(|x|/delta + 0.5) delta``
    clipped to +-(2^(n-1) - 1) delta (or [0, (2^n - 1) delta] unsigned). ``quantize=False`` is
    the identity, as in nnabla."""
    if not quantize:
        return as_variable(x)
    return FixedPointQuantize(bool(sign), int(n), float(delta), bool(ste_fine_grained))(x)


class Pow2Quantize(Function):
    def __init__(self, sign: bool, with_zero: bool, n: int, m: int, ste_fine_grained: bool) -> None:
        bits = n - int(sign) - int(with_zero)
        if bits <= 0:
            raise ValueError(
                "pow2_quantize: n must leave >= 1 bit after the sign and zero bits. "
                f"Received: n={n}, sign={sign}, with_zero={with_zero}"
            )
        self.sign, self.with_zero, self.ste = sign, with_zero, ste_fine_grained
        self.p_max = 2.0**m
        self.p_min = 2.0 ** (m - (2**bits - 1))
        self.threshold = self.p_min * 2.0**-0.5

    def _pow2(self, xp, a):
        """``2 ** round(log2 |x|)``, 0 for x = 0 (log2(0) = -inf in nnabla)."""
        safe = xp.where(a > 0, a, a.dtype.type(1))
        q = a.dtype.type(2) ** _round_half_away(xp, xp.log2(safe))
        return xp.where(a > 0, q, a.dtype.type(0))

    def forward(self, x):
        xp = get_array_module(x)
        t = x.dtype.type
        a = xp.abs(x)
        self.x, q = x, self._pow2(xp, a)
        p_min, p_max = t(self.p_min), t(self.p_max)
        small = xp.where(a < t(self.threshold), t(0), p_min) if self.with_zero else p_min
        q = xp.where(q > p_max, p_max, xp.where(q < p_min, small, q))
        if self.sign:
            return xp.where(x < 0, -q, q)
        return xp.where(x < 0, t(0) if self.with_zero else p_min, q)

    def backward(self, gy):
        if not self.ste:
            return gy
        xp = get_array_module(gy)
        keep = self._pow2(xp, xp.abs(self.x)) <= self.x.dtype.type(self.p_max)
        if not self.sign:
            keep = keep & (self.x >= 0)
        return gy * keep


def pow2_quantize(
    x, sign: bool = True, with_zero: bool = True, n: int = 8, m: int = 1, quantize: bool = True,
    ste_fine_grained: bool = True,
) -> Variable:  # fmt: skip
    """nnabla ``pow2_quantize`` (nnc-behaviour §5.2): ``+-2^round(log2|x|)`` in
    [2^(m - 2^n' + 1), 2^m], n' = n - sign - with_zero; tiny values become 0 with ``with_zero``.
    The fine-grained gradient is cut only above 2^m (and for x < 0 when unsigned)."""
    if not quantize:
        return as_variable(x)
    return Pow2Quantize(bool(sign), bool(with_zero), int(n), int(m), bool(ste_fine_grained))(x)


class MinMaxQuantize(Function):
    def __init__(self, decay, x_min_max, ema, ste_fine_grained, eps) -> None:
        self.decay, self.x_min_max, self.ema = decay, x_min_max, ema
        self.ste, self.eps = ste_fine_grained, eps

    def _check(self, x, qr_min, qr_max, ql_min, ql_max):
        shapes = {a.shape for a in (qr_min, qr_max, ql_min, ql_max)}
        if (
            len(shapes) != 1
            or ql_min.ndim != x.ndim
            or any(q not in (1, n) for q, n in zip(ql_min.shape, x.shape, strict=True))
        ):
            raise ValueError(
                "min_max_quantize: qr_min, qr_max, ql_min and ql_max need one shape, equal to "
                f"x.shape except for size-1 axes. Received: x.shape={x.shape}, shapes={shapes}"
            )
        if self.needs_input_grad[3] or self.needs_input_grad[4]:
            raise ValueError("min_max_quantize: ql_min and ql_max cannot take a gradient")
        self.axes = tuple(i for i, q in enumerate(ql_min.shape) if q == 1)

    def forward(self, x, qr_min, qr_max, ql_min, ql_max):
        xp = get_array_module(x)
        self.range_shape = qr_min.shape
        if all(a.size == 1 and a.ndim != x.ndim for a in (qr_min, qr_max, ql_min, ql_max)):
            # NNC's r/R/l/L connectors have shape 1: one range for the whole tensor. Views, so
            # the in-place updates below still reach the parameters.
            one = (1,) * x.ndim
            qr_min, qr_max, ql_min, ql_max = (a.reshape(one) for a in (qr_min, qr_max, ql_min,
                                                                       ql_max))  # fmt: skip
        self._check(x, qr_min, qr_max, ql_min, ql_max)
        if self.x_min_max:  # track the range of x, written into the parameters
            lo, hi = x.min(axis=self.axes, keepdims=True), x.max(axis=self.axes, keepdims=True)
            if self.ema:
                lo = self.decay * qr_min + (1 - self.decay) * lo
                hi = self.decay * qr_max + (1 - self.decay) * hi
            qr_min[...], qr_max[...] = lo, hi
        qr_max[...] = xp.where(qr_max - qr_min < self.eps, qr_min + self.eps, qr_max)
        t = x.dtype
        rmin, rmax, lmin, lmax = (a.astype(t) for a in (qr_min, qr_max, ql_min, ql_max))
        scale = (rmax - rmin) / (lmax - lmin)
        # Nudge the zero point onto the integer grid (nnabla's code, not its docs).
        zp = lmin - rmin / scale
        zp = xp.where(zp <= lmin, lmin, xp.where(zp >= lmax, lmax, _round_half_away(xp, zp)))
        self.lo, self.hi = (lmin - zp) * scale, (lmax - zp) * scale
        self.x = x
        clipped = xp.minimum(xp.maximum(x, self.lo), self.hi)
        return _round_half_away(xp, (clipped - self.lo) / scale) * scale + self.lo

    def backward(self, gy):
        x, lo, hi = self.x, self.lo, self.hi
        gx = gy * ((x >= lo) & (x <= hi)) if self.ste else gy
        if self.x_min_max or self.ema:
            return gx, None, None, None, None
        g_min = (gy * (x < lo)).sum(axis=self.axes, keepdims=True).reshape(self.range_shape)
        g_max = (gy * (x > hi)).sum(axis=self.axes, keepdims=True).reshape(self.range_shape)
        return gx, g_min, g_max, None, None


def min_max_quantize(
    x, qr_min, qr_max, ql_min, ql_max, decay: float = 0.999, x_min_max: bool = False,
    ema: bool = False, ste_fine_grained: bool = True, eps: float = 0.01, quantize: bool = True,
) -> Variable:  # fmt: skip
    """nnabla ``min_max_quantize`` (nnc-behaviour §5.3).

    ``qr_min``/``qr_max`` (the real range) are learned, or tracked from x with ``x_min_max``
    (``ema``: moving average with ``decay``) and written in place; a range narrower than ``eps``
    is widened in place. ``ql_min``/``ql_max`` are the integer levels (e.g. 0 and 255).
    Statistics are taken over the axes where the range parameters have size 1.
    """
    if not quantize:
        return as_variable(x)
    f = MinMaxQuantize(float(decay), bool(x_min_max), bool(ema), bool(ste_fine_grained), float(eps))
    return f(x, qr_min, qr_max, ql_min, ql_max)


# ----------------------------------------------------------------------------- binary


class BinaryTanh(Function):
    def forward(self, x):
        xp = get_array_module(x)
        self.x = x
        return xp.where(x > 0, x.dtype.type(1), x.dtype.type(-1))

    def backward(self, gy):
        return gy * (get_array_module(gy).abs(self.x) < 1)


class BinarySigmoid(Function):
    def forward(self, x):
        self.x = x
        return (x > 0).astype(x.dtype)

    def backward(self, gy):
        return gy * gy.dtype.type(0.5) * (get_array_module(gy).abs(self.x) < 1)


def binary_tanh(x) -> Variable:
    """nnabla ``binary_tanh``: 1 if x > 0 else -1; gradient passes where |x| < 1."""
    return BinaryTanh()(x)


def binary_sigmoid(x) -> Variable:
    """nnabla ``binary_sigmoid``: 1 if x > 0 else 0; gradient 0.5 where |x| < 1."""
    return BinarySigmoid()(x)


class Binarize(Function):
    """``sign(W)`` (0 -> ``zero_to``), times ``alpha = mean |W|`` over the ``fan_in`` axes when
    given; ``Wb`` and ``alpha`` are written in place; the backward is the identity."""

    def __init__(self, wb: Any, alpha: Any, zero_to: float, fan_in: tuple[int, ...] | None):
        self.wb, self.alpha, self.zero_to, self.fan_in = wb, alpha, zero_to, fan_in

    def forward(self, w):
        xp = get_array_module(w)
        t = w.dtype.type
        b = xp.where(w > 0, t(1), xp.where(w < 0, t(-1), t(self.zero_to)))
        if self.wb is not None:
            self.wb[...] = b
        if self.fan_in is None:
            return b
        alpha = xp.abs(w).mean(axis=self.fan_in, keepdims=True)
        if self.alpha is not None:
            self.alpha[...] = alpha.reshape(self.alpha.shape)
        return b * alpha

    def backward(self, gy):
        return gy  # nnabla: d(alpha * Wb) goes to W as is (no alpha factor, no |W| <= 1 cut)


def _binarized(weight, binary_weight, alpha, zero_to, fan_in, name) -> Variable:
    """``Binarize`` of ``weight`` after checking the shapes of the buffers it writes."""
    weight = as_variable(weight)
    wb = None if binary_weight is None else as_variable(binary_weight).data
    if wb is not None and wb.shape != weight.shape:
        raise ValueError(
            f"{name}: binary_weight must have the weight's shape {weight.shape}. "
            f"Received: binary_weight.shape={wb.shape}"
        )
    a = None if alpha is None else as_variable(alpha).data
    if a is not None:
        n_out = weight.size // int(np.prod([weight.shape[i] for i in fan_in]))
        if a.size != n_out:
            raise ValueError(
                f"{name}: alpha needs one value per output ({n_out}). "
                f"Received: alpha.shape={a.shape}"
            )
    return Binarize(wb, a, zero_to, fan_in)(weight)


def binary_connect_affine(
    x, weight, binary_weight, bias=None, base_axis: int = 1, quantize_zero_to: float = 1.0
) -> Variable:
    """nnabla ``binary_connect_affine`` (nnc-behaviour §5.4): affine with ``Wb = sign(W)``
    (written into ``binary_weight``); the gradient of ``Wb`` goes to ``W`` unchanged."""

    wb = _binarized(weight, binary_weight, None, quantize_zero_to, None, "binary_connect_affine")
    return affine(x, wb, bias, base_axis)


def binary_connect_convolution(
    x, weight, binary_weight, bias=None, base_axis: int = 1, pad=None, stride=None,
    dilation=None, group: int = 1, quantize_zero_to: float = 1.0,
) -> Variable:  # fmt: skip
    """nnabla ``binary_connect_convolution``: convolution with ``Wb = sign(W)`` (see the affine)."""

    wb = _binarized(
        weight, binary_weight, None, quantize_zero_to, None, "binary_connect_convolution"
    )
    return convolution(x, wb, bias, base_axis, pad, stride, dilation, group)


def binary_weight_affine(
    x, weight, binary_weight, alpha, bias=None, base_axis: int = 1, quantize_zero_to: float = 1.0
) -> Variable:
    """nnabla ``binary_weight_affine`` (nnc-behaviour §5.5): affine with ``alpha * sign(W)``,
    alpha = mean |W| per output (written into ``alpha``, shape (outputs,)); the bias *is* added
    (NNC's nntxt omits alpha, see the behaviour notes). No gradient reaches alpha."""

    wb = _binarized(weight, binary_weight, alpha, quantize_zero_to, (0,), "binary_weight_affine")
    return affine(x, wb, bias, base_axis)


def binary_weight_convolution(
    x, weight, binary_weight, alpha, bias=None, base_axis: int = 1, pad=None, stride=None,
    dilation=None, group: int = 1, quantize_zero_to: float = 1.0,
) -> Variable:  # fmt: skip
    """nnabla ``binary_weight_convolution``: convolution with ``alpha * sign(W)``, alpha = mean
    |W| per output map (written into ``alpha``, shape (outmaps,))."""

    fan_in = tuple(range(1, as_variable(weight).ndim))
    wb = _binarized(
        weight, binary_weight, alpha, quantize_zero_to, fan_in, "binary_weight_convolution"
    )
    return convolution(x, wb, bias, base_axis, pad, stride, dilation, group)

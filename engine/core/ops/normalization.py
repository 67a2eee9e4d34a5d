"""Normalization layers (NNC category Normalization): nnabla ``batch_normalization``, ...

Signatures and defaults are nnabla's (``python/src/nnabla/normalization_functions.py``); ``beta``
and ``gamma`` may be None (nnabla's ``no_bias``/``no_scale``). NNC's layer defaults differ in places
and are passed explicitly by the layer specs: BatchNormalization and FusedBatchNormalization use
``Epsilon=0.0001`` (nnabla's F default is 1e-5) and ``DecayRate=0.9``; NNC axis properties exclude
the batch axis (+1 here); NNC's initial running variance is 0 (docs/layers.md §4.18).

Hand-written gradients: :class:`BatchNormalization` (which, like nnabla's ``TensorNormalization``,
also normalizes without running statistics: layer, instance and group normalization and weight
standardization are built on it, their affine terms composed from the arithmetic kernels),
:class:`NormNormalization`, :class:`WeightNormalization` and :class:`SpectralNorm`.

Batch normalization in training mode (``batch_stat=True``) normalizes with the biased batch variance
and updates the running statistics *in place* in the ``mean``/``variance`` arrays, the variance with
the unbiased estimate ``var * n / (n - 1)`` (nnabla ``batch_normalization.cpp``,
docs/nnc-behaviour.md §6.5). With ``n == 1`` nnabla divides by zero; here the factor is 1 so the
running variance stays finite.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from engine.core.autograd import DeferredGrad, Function, Variable, as_variable
from engine.core.backend import get_array_module, matmul
from engine.core.ops import _batchnorm_cpu
from engine.core.ops.arithmetic import add2, mul2

__all__ = [
    "batch_normalization", "fused_batch_normalization", "tensor_normalization",
    "norm_normalization", "weight_standardization", "weight_normalization", "spectral_norm",
    "layer_normalization", "instance_normalization", "group_normalization",
]  # fmt: skip


def _axes(axes: int | Sequence[int], ndim: int, fname: str, name: str) -> tuple[int, ...]:
    """Axes as sorted non-negative ints, checked against ``ndim``."""
    raw = [axes] if isinstance(axes, int) else list(axes)
    out = [int(a) + ndim if int(a) < 0 else int(a) for a in raw]
    if any(not 0 <= a < ndim for a in out) or len(set(out)) != len(out):
        raise ValueError(
            f"{fname}: {name} must be distinct axes of a {ndim}-D input. Received: {name}={axes}"
        )
    return tuple(sorted(out))


def _squeezed(shape: Sequence[int]) -> list[int]:
    return [int(d) for d in shape if d != 1]


def _check_param(p: Any, expected: tuple[int, ...], fname: str, name: str, x_shape) -> None:
    """A parameter fits when it has ``expected``'s shape up to size-1 axes ((C,) for (1,C,1,1))."""
    if p is not None and _squeezed(p.shape) != _squeezed(expected):
        raise ValueError(
            f"{fname}: {name} must have shape {expected} for x of shape {tuple(x_shape)}. "
            f"Received: {name}.shape={tuple(p.shape)}"
        )


class BatchNormalization(Function):
    """``gamma * (x - mean) / sqrt(var + eps) + beta``, statistics over the axes not in ``axes``.

    Inputs: ``x``, then ``beta`` and ``gamma`` when present, then the running ``mean`` and
    ``variance`` when present. Outputs ``y`` (and the batch mean and variance with ``output_stat``).
    """

    takes_deferred = True  # a ReLU's deferred gradient on y (see backward)

    def __init__(
        self,
        axes: int | Sequence[int],
        decay_rate: float = 0.9,
        eps: float = 1e-5,
        batch_stat: bool = True,
        output_stat: bool = False,
        has_beta: bool = False,
        has_gamma: bool = False,
        has_stats: bool = False,
        fname: str = "batch_normalization",
    ) -> None:
        if output_stat and not batch_stat:
            raise ValueError(f"{fname}: output_stat=True needs batch_stat=True")
        if not batch_stat and not has_stats:
            raise ValueError(f"{fname}: batch_stat=False needs the running mean and variance")
        self.raw_axes, self.decay_rate, self.eps = axes, decay_rate, eps
        self.batch_stat, self.output_stat, self.fname = batch_stat, output_stat, fname
        self.has = (has_beta, has_gamma, has_stats)

    def _unpack(self, rest: tuple) -> tuple:
        it = iter(rest)
        has_beta, has_gamma, has_stats = self.has
        beta = next(it) if has_beta else None
        gamma = next(it) if has_gamma else None
        mean, var = (next(it), next(it)) if has_stats else (None, None)
        return beta, gamma, mean, var

    def forward(self, x, *rest):
        xp = get_array_module(x)
        beta, gamma, rmean, rvar = self._unpack(rest)
        keep = _axes(self.raw_axes, x.ndim, self.fname, "axes")
        red = tuple(i for i in range(x.ndim) if i not in keep)
        pshape = tuple(d if i in keep else 1 for i, d in enumerate(x.shape))
        for name, p in (("beta", beta), ("gamma", gamma), ("mean", rmean), ("variance", rvar)):
            _check_param(p, pshape, self.fname, name, x.shape)
        self.shapes = (None if beta is None else beta.shape, None if gamma is None else gamma.shape)
        # Work on a (kept, reduced) matrix: the reduced axes in x's memory order, so that for a
        # convolution's channels-major output the matrix is a free view and every pass below runs
        # over contiguous rows with one scalar per row.
        self.perm = keep + tuple(sorted(red, key=lambda i: -abs(x.strides[i])))
        self.x_shape, self.n_keep = x.shape, len(keep)
        x2 = self._rows(x)
        k = x2.shape[0]
        self.n = x2.shape[1]
        if not self.batch_stat and not any(self.needs_input_grad):
            return self._inference(xp, x, x2, (beta, gamma, rmean, rvar), pshape)
        self.fast = _batchnorm_cpu.applies(x2, self.batch_stat, self.output_stat)
        # A ReLU on y may hand its gradient on deferred (ReLU.backward): masked in our passes.
        self.fuses_relu_grad = self.fast and self.needs_input_grad[0] and self.takes_deferred
        self.gamma = None if gamma is None else gamma.reshape(k, 1)
        if self.fast:  # compiled loops, same numbers (see _batchnorm_cpu)
            y, m, v, self.inv_std, self.stats = _batchnorm_cpu.forward(x2, gamma, beta, self.eps)
            self.x2 = x2
            if rmean is not None:
                self._update_running(rmean, rvar, m, v)
            return self._unrows(y)
        if self.batch_stat:
            m = x2.mean(axis=1, keepdims=True)
            self.c = c = x2 - m  # kept (not x-hat): both gradients are row scalars times c
            v = _rowdot(c, c) / x.dtype.type(max(self.n, 1))
            if rmean is not None:
                self._update_running(rmean, rvar, m, v)
        else:
            m = rmean.reshape(k, 1).astype(x.dtype, copy=False)
            v = rvar.reshape(k, 1).astype(x.dtype, copy=False)
            self.c = c = x2 - m
        self.inv_std = 1 / xp.sqrt(v + x.dtype.type(self.eps))
        scale = self.inv_std if gamma is None else self.inv_std * self.gamma
        y = c * scale
        if beta is not None:
            y += beta.reshape(k, 1)
        y = self._unrows(y)
        return (y, m.reshape(pshape), v.reshape(pshape)) if self.output_stat else y

    def _inference(self, xp, x, x2, params, pshape):
        """Running statistics and no gradient wanted (evaluate, forward, search, sweeps): the
        same operations as the path below, ``(x - mean) * (inv_std * gamma) + beta`` element for
        element (the same numbers), keeping nothing for a backward that never comes, and laid
        out as ``x`` is. When the (kept, reduced) matrix is a contiguous view of ``x`` (a
        convolution's output), one compiled pass over its rows; else NumPy broadcasts in
        ``x``'s own layout (no reordered copy of ``x``)."""
        beta, gamma, rmean, rvar = params
        dtype = x.dtype.type
        view = type(x2) is np.ndarray and x2.flags.c_contiguous and np.may_share_memory(x2, x)
        shape = (x2.shape[0], 1) if view else pshape
        mean = rmean.reshape(shape).astype(x.dtype, copy=False)
        inv_std = 1 / xp.sqrt(rvar.reshape(shape).astype(x.dtype, copy=False) + dtype(self.eps))
        scale = inv_std if gamma is None else inv_std * gamma.reshape(shape)
        beta = None if beta is None else beta.reshape(shape)
        if view and _batchnorm_cpu.normalize_applies(x2):
            return self._unrows(_batchnorm_cpu.normalize(x2, mean, scale, beta))
        source = x2 if view else x
        y = xp.subtract(source, mean, out=xp.empty_like(source))  # empty_like keeps the layout
        y *= scale
        if beta is not None:
            y += beta
        return self._unrows(y) if view else y

    def _rows(self, a):
        """``a`` as the (kept, reduced) matrix (a view when its layout allows)."""
        t = a.transpose(self.perm)
        return t.reshape(math.prod(t.shape[: self.n_keep]), -1)

    def _unrows(self, a2):
        """The inverse of :meth:`_rows`: an ``x``-shaped view of a (kept, reduced) matrix."""
        t = a2.reshape(tuple(map(self.x_shape.__getitem__, self.perm)))
        return t.transpose(sorted(range(len(self.perm)), key=self.perm.__getitem__))

    def _update_running(self, rmean, rvar, m, v) -> None:
        d = self.decay_rate
        unbias = self.n / (self.n - 1) if self.n > 1 else 1.0
        rmean[...] = d * rmean + (1 - d) * m.reshape(rmean.shape)
        rvar[...] = d * rvar + (1 - d) * unbias * v.reshape(rvar.shape)

    def backward(self, gy, *gstats):
        xp = get_array_module(gy)
        need = self.needs_input_grad
        has_beta, has_gamma, has_stats = self.has
        relu_of = None
        if type(gy) is DeferredGrad:  # a ReLU's gradient on y, masked in the compiled passes
            fused = self.fast and gy.kind == "relu"
            gy, relu_of = (gy.args[0], self._rows(gy.args[1])) if fused else (gy.value(), None)
        g2, inv_std = self._rows(gy), self.inv_std
        if self.fast:
            args = (self.x2, g2, self.stats, self.gamma, need[0], relu_of)
            gx, s1, s2 = _batchnorm_cpu.backward(*args)
            return self._grads(None if gx is None else self._unrows(gx), s1, s2)
        c = self.c
        scale = inv_std if self.gamma is None else inv_std * self.gamma
        # Row sums of gy and gy * c are the beta and gamma gradients and all gx needs besides.
        s1 = g2.sum(axis=1, keepdims=True) if (need[0] and self.batch_stat) or has_beta else None
        s2 = _rowdot(g2, c) if (need[0] and self.batch_stat) or has_gamma else None
        gx = None
        if need[0] and self.batch_stat:
            n = gy.dtype.type(self.n)
            # gx = scale * (gy - mean(gy) - x_hat * mean(gy * x_hat)), x_hat = c * inv_std
            t = c * (inv_std * inv_std * s2 / n)
            t += s1 / n
            gx = xp.multiply(xp.subtract(g2, t, out=t), scale, out=t)
            if self.output_stat:  # the batch mean and variance are outputs too
                gm, gv = (g.reshape(-1, 1) for g in gstats)
                gx += (gm + c * (2 * gv)) / n
            gx = self._unrows(gx)
        elif need[0]:
            gx = self._unrows(g2 * scale)
        return self._grads(gx, s1, s2)

    def _grads(self, gx, s1, s2) -> tuple:
        """The gradient tuple from gx and the row sums of gy and gy * (x - mean)."""
        need = self.needs_input_grad
        has_beta, has_gamma, has_stats = self.has
        grads = [gx]
        if has_beta:
            grads.append(s1.reshape(self.shapes[0]) if need[1] else None)
        if has_gamma:
            i = 1 + has_beta
            grads.append((s2 * self.inv_std).reshape(self.shapes[1]) if need[i] else None)
        if has_stats:  # running statistics get no gradient (nnabla)
            grads += [None, None]
        return tuple(grads)


def _rowdot(a, b):
    """Row-wise dot products of two (K, M) matrices as (K, 1), fused (no a * b temporary)."""
    return matmul(a[:, None, :], b[:, :, None]).reshape(-1, 1)


class FusedBatchNormalization(BatchNormalization):
    """``relu(batch_normalization(x) + z)`` in one pass (nnabla ``fused_batch_normalization``)."""

    takes_deferred = False  # its output is not the normalized y a ReLU's mask needs

    def __init__(self, *args: Any, has_z: bool = False, **kwargs: Any) -> None:
        super().__init__(*args, fname="fused_batch_normalization", **kwargs)
        self.has_z = has_z

    def forward(self, x, *rest):
        z = rest[-1] if self.has_z else None
        out = super().forward(x, *(rest[:-1] if self.has_z else rest))
        h = out[0] if self.output_stat else out
        if z is not None:
            h = h + z
        self.mask = h > 0
        y = h * self.mask
        return (y, out[1], out[2]) if self.output_stat else y

    def backward(self, gy, *gstats):
        g = gy * self.mask
        grads = super().backward(g, *gstats)
        if self.has_z:
            grads += (g if self.needs_input_grad[-1] else None,)
        return grads


class NormNormalization(Function):
    """``x / (sum |x|^p + eps)^(1/p)`` over ``axes`` (nnabla ``norm_normalization``)."""

    def __init__(self, p: float, axes: Any, eps: float) -> None:
        if p < 1:
            raise ValueError(f"norm_normalization: p must be >= 1. Received: p={p}")
        self.p, self.raw_axes, self.eps = float(p), axes, eps

    def forward(self, x):
        xp = get_array_module(x)
        axes = range(x.ndim) if self.raw_axes is None else self.raw_axes
        self.axes = _axes(axes, x.ndim, "norm_normalization", "axes")
        p = x.dtype.type(self.p)
        self.x = x
        self.s = (xp.abs(x) ** p).sum(axis=self.axes, keepdims=True) + x.dtype.type(self.eps)
        self.norm = self.s ** (1 / p)
        return x / self.norm

    def backward(self, gy):
        xp = get_array_module(gy)
        x = self.x
        dot = (gy * x).sum(axis=self.axes, keepdims=True)
        # d norm / dx = norm / s * |x|^(p-1) sign(x)
        dnorm = xp.abs(x) ** gy.dtype.type(self.p - 1) * xp.sign(x)
        return gy / self.norm - dot / (self.norm * self.s) * dnorm


class WeightNormalization(Function):
    """``g * w / sqrt(sum w^2 + eps)`` with the sum over every axis except ``dim`` (nnabla)."""

    def __init__(self, dim: int, eps: float) -> None:
        if eps <= 0:
            raise ValueError(f"weight_normalization: eps must be positive. Received: eps={eps}")
        self.dim, self.eps = dim, eps

    def forward(self, w, g):
        (dim,) = _axes(self.dim, w.ndim, "weight_normalization", "dim")
        if g.ndim != 1 or g.shape[0] != w.shape[dim]:
            raise ValueError(
                f"weight_normalization: g must be 1-D of size w.shape[{dim}]={w.shape[dim]}. "
                f"Received: g.shape={tuple(g.shape)}"
            )
        xp = get_array_module(w)
        self.axes = tuple(i for i in range(w.ndim) if i != dim)
        gshape = tuple(d if i == dim else 1 for i, d in enumerate(w.shape))
        self.w, self.g = w, g.reshape(gshape)
        self.r = 1 / xp.sqrt((w * w).sum(axis=self.axes, keepdims=True) + w.dtype.type(self.eps))
        return w * self.r * self.g

    def backward(self, gy):
        nw, ng = self.needs_input_grad
        gw = gg = None
        if nw:
            dot = (gy * self.w).sum(axis=self.axes, keepdims=True)
            gw = self.g * self.r * (gy - self.w * (self.r * self.r) * dot)
        if ng:
            gg = (gy * self.w * self.r).sum(axis=self.axes)
        return gw, gg


class SpectralNorm(Function):
    """``w / sigma(w)`` with sigma from ``itr`` power iterations started at ``u`` (nnabla).

    ``w`` is viewed as a matrix with ``w.shape[dim]`` rows (nnabla transposes ``dim`` to the front;
    for the last axis its separate code path is the same computation on the transpose). The
    singular vectors are constants for the gradient, as in nnabla. Unless ``test``, the iterated
    ``u`` is written back into the ``u`` array in place.
    """

    def __init__(self, dim: int, itr: int, eps: float, test: bool, output_u: bool) -> None:
        if itr < 1:
            raise ValueError(f"spectral_norm: itr must be >= 1. Received: itr={itr}")
        if eps <= 0:
            raise ValueError(f"spectral_norm: eps must be positive. Received: eps={eps}")
        self.dim, self.itr, self.eps, self.test, self.output_u = dim, itr, eps, test, output_u

    def forward(self, w, u):
        xp = get_array_module(w)
        (self.axis,) = _axes(self.dim, w.ndim, "spectral_norm", "dim")
        rows = w.shape[self.axis]
        if u.size != rows:
            raise ValueError(
                f"spectral_norm: u must have w.shape[{self.axis}]={rows} elements. "
                f"Received: u.shape={tuple(u.shape)}"
            )
        mat = xp.moveaxis(w, self.axis, 0).reshape(rows, -1)
        eps = w.dtype.type(self.eps)
        left = u.reshape(rows).astype(w.dtype, copy=False)
        for _ in range(self.itr):
            right = matmul(left, mat)
            right = right / xp.sqrt((right * right).sum() + eps)
            left = matmul(mat, right)
            left = left / xp.sqrt((left * left).sum() + eps)
        if not self.test:
            u[...] = left.reshape(u.shape)
        self.sigma = matmul(left, matmul(mat, right))
        self.w, self.left, self.right = w, left, right
        y = w / self.sigma
        return (y, left.reshape(u.shape).copy()) if self.output_u else y

    def backward(self, gy, *gu):
        xp = get_array_module(gy)
        if not self.needs_input_grad[0]:
            return None, None
        # d sigma / d w = u v^T (in the matrix view) with u and v held constant
        outer = xp.outer(self.left, self.right)
        moved = xp.moveaxis(self.w, self.axis, 0).shape
        dsigma = xp.moveaxis(outer.reshape(moved), 0, self.axis)
        gw = gy / self.sigma - (gy * self.w).sum() / (self.sigma * self.sigma) * dsigma
        return gw, None


class _Reshape(Function):
    def __init__(self, shape: tuple[int, ...]) -> None:
        self.shape = shape

    def forward(self, x):
        self.in_shape = x.shape
        return x.reshape(self.shape)

    def backward(self, gy):
        return gy.reshape(self.in_shape)


def _fit(p: Any, shape: tuple[int, ...]) -> Any:
    """``p`` viewed with ``shape`` (parameters may be given as (C,) for (1, C, 1, 1))."""
    p = as_variable(p)
    return p if p.shape == shape else _Reshape(shape)(p)


def _affine(y: Variable, beta: Any, gamma: Any, shape: tuple[int, ...]) -> Variable:
    if gamma is not None:
        y = mul2(y, _fit(gamma, shape))
    if beta is not None:
        y = add2(y, _fit(beta, shape))
    return y


def _present(*params: Any) -> list:
    return [p for p in params if p is not None]


def batch_normalization(
    x,
    beta,
    gamma,
    mean,
    variance,
    axes: int | Sequence[int] = (1,),
    decay_rate: float = 0.9,
    eps: float = 1e-05,
    batch_stat: bool = True,
    output_stat: bool = False,
):
    """nnabla ``F.batch_normalization``; ``axes`` are the kept (channel) axes.

    With ``batch_stat=True`` the ``mean``/``variance`` arrays (when given) are updated in place;
    gradients reach ``x`` (including the batch-statistics terms), ``beta`` and ``gamma``. With
    ``batch_stat=False`` the running statistics normalize and stay unchanged.
    """
    if (mean is None) != (variance is None):
        raise ValueError("batch_normalization: give both mean and variance, or neither")
    f = BatchNormalization(
        axes, decay_rate, eps, batch_stat, output_stat,
        beta is not None, gamma is not None, mean is not None,
    )  # fmt: skip
    return f(x, *_present(beta, gamma, mean, variance))


def fused_batch_normalization(
    x,
    beta,
    gamma,
    mean,
    variance,
    z=None,
    axes: int | Sequence[int] = (1,),
    decay_rate: float = 0.9,
    eps: float = 1e-05,
    batch_stat: bool = True,
    nonlinearity: str = "relu",
    output_stat: bool = False,
):
    """nnabla ``F.fused_batch_normalization``: ``relu(batch_normalization(x, ...) + z)``."""
    if nonlinearity != "relu":
        raise ValueError(
            "fused_batch_normalization: nonlinearity must be 'relu' (the only one nnabla has). "
            f"Received: nonlinearity={nonlinearity!r}"
        )
    if (mean is None) != (variance is None):
        raise ValueError("fused_batch_normalization: give both mean and variance, or neither")
    f = FusedBatchNormalization(
        axes, decay_rate, eps, batch_stat, output_stat,
        beta is not None, gamma is not None, mean is not None, has_z=z is not None,
    )  # fmt: skip
    return f(x, *_present(beta, gamma, mean, variance, z))


def tensor_normalization(
    x, axes, beta=None, gamma=None, eps: float = 1e-05, output_stat: bool = False
):
    """nnabla ``F.tensor_normalization``: normalize over every axis not in ``axes``.

    ``beta``/``gamma`` have ``x``'s shape with size 1 outside ``axes``.
    """
    f = BatchNormalization(
        axes, 0.0, eps, True, output_stat, beta is not None, gamma is not None, False,
        fname="tensor_normalization",
    )  # fmt: skip
    return f(x, *_present(beta, gamma))


def _statistics(x: Variable, keep: tuple[int, ...], eps: float, output_stat: bool, fname: str):
    out = BatchNormalization(keep, eps=eps, output_stat=output_stat, fname=fname)(x)
    return (out[0], out[1:]) if output_stat else (out, ())


def layer_normalization(x, beta, gamma, batch_axis=0, eps: float = 1e-05, output_stat=False):
    """nnabla ``F.layer_normalization``: per-sample statistics; ``beta``/``gamma`` have ``x``'s
    shape with size 1 on the batch axes (NNC: the full sample shape)."""
    x = as_variable(x)
    batch = _axes(batch_axis, x.ndim, "layer_normalization", "batch_axis")
    shape = tuple(1 if i in batch else d for i, d in enumerate(x.shape))
    for name, p in (("beta", beta), ("gamma", gamma)):
        _check_param(p, shape, "layer_normalization", name, x.shape)
    y, stats = _statistics(x, batch, eps, output_stat, "layer_normalization")
    y = _affine(y, beta, gamma, shape)
    return (y, *stats) if output_stat else y


def _channel_params(x: Variable, beta, gamma, channel_axis: int, batch: tuple, fname: str):
    """The shape beta/gamma are used with: (1, C, 1, 1), or (B, C, 1, 1) when given so (nnabla)."""
    channel = tuple(d if i == channel_axis else 1 for i, d in enumerate(x.shape))
    per_sample = tuple(d if i == channel_axis or i in batch else 1 for i, d in enumerate(x.shape))
    shapes = []
    for name, p in (("beta", beta), ("gamma", gamma)):
        if p is not None and tuple(p.shape) == per_sample:
            shapes.append(per_sample)
            continue
        _check_param(p, channel, fname, name, x.shape)
        shapes.append(channel)
    return shapes


def instance_normalization(
    x, beta, gamma, channel_axis=1, batch_axis=0, eps: float = 1e-05, output_stat=False
):
    """nnabla ``F.instance_normalization``: statistics per sample and channel."""
    x = as_variable(x)
    fname = "instance_normalization"
    (channel_axis,) = _axes(channel_axis, x.ndim, fname, "channel_axis")
    batch = _axes(batch_axis, x.ndim, fname, "batch_axis")
    if channel_axis in batch:
        raise ValueError(
            f"{fname}: channel_axis must not be a batch axis. "
            f"Received: channel_axis={channel_axis}, batch_axis={batch_axis}"
        )
    beta_shape, gamma_shape = _channel_params(x, beta, gamma, channel_axis, batch, fname)
    y, stats = _statistics(x, tuple(sorted(batch + (channel_axis,))), eps, output_stat, fname)
    y = _affine(y, None, gamma, gamma_shape)
    y = _affine(y, beta, None, beta_shape)
    return (y, *stats) if output_stat else y


def group_normalization(
    x, beta, gamma, num_groups, channel_axis=1, batch_axis=0, eps: float = 1e-05, output_stat=False
):
    """nnabla ``F.group_normalization``: statistics per sample over groups of channels.

    With ``output_stat`` the mean and variance have the grouped shape, e.g. (B, G, 1, 1, 1).
    """
    x = as_variable(x)
    fname = "group_normalization"
    (channel_axis,) = _axes(channel_axis, x.ndim, fname, "channel_axis")
    batch = _axes(batch_axis, x.ndim, fname, "batch_axis")
    channels = x.shape[channel_axis]
    if num_groups < 1 or channels % num_groups:
        raise ValueError(
            f"{fname}: the channel size {channels} must be a multiple of num_groups. "
            f"Received: num_groups={num_groups}"
        )
    grouped = x.shape[:channel_axis] + (num_groups, channels // num_groups)
    grouped += x.shape[channel_axis + 1 :]
    # in the grouped view, axes after the channel axis move one place to the right
    keep = tuple(sorted([b if b < channel_axis else b + 1 for b in batch] + [channel_axis]))
    shape = tuple(d if i == channel_axis else 1 for i, d in enumerate(x.shape))
    for name, p in (("beta", beta), ("gamma", gamma)):
        _check_param(p, shape, fname, name, x.shape)
    y, stats = _statistics(_Reshape(grouped)(x), keep, eps, output_stat, fname)
    y = _affine(_Reshape(x.shape)(y), beta, gamma, shape)
    return (y, *stats) if output_stat else y


def weight_standardization(w, channel_axis: int = 0, eps: float = 1e-05, output_stat=False):
    """nnabla ``F.weight_standardization``: standardize over every axis except ``channel_axis``."""
    w = as_variable(w)
    keep = _axes(channel_axis, w.ndim, "weight_standardization", "channel_axis")
    y, stats = _statistics(w, keep, eps, output_stat, "weight_standardization")
    return (y, *stats) if output_stat else y


def norm_normalization(x, p: float | None = None, axes=None, eps: float = 1e-12) -> Variable:
    """nnabla ``F.norm_normalization``: ``x / (sum |x|^p + eps)^(1/p)``; ``p=None`` is 2 and
    ``axes=None`` all axes (NNC's default ``Axes=-1,0,1,2`` includes the batch axis too)."""
    return NormNormalization(2.0 if p is None else p, axes, eps)(x)


def weight_normalization(w, g, dim: int = 0, eps: float = 1e-12) -> Variable:
    """nnabla ``F.weight_normalization``: ``g * w / ||w||`` with norms over the axes other than
    ``dim``; ``g`` has ``w.shape[dim]`` elements."""
    return WeightNormalization(dim, eps)(w, g)


def spectral_norm(
    w, u, dim: int = 0, itr: int = 1, eps: float = 1e-12, test: bool = False, output_u=False
):
    """nnabla ``F.spectral_norm``; ``u`` (``w.shape[dim]`` elements) is updated in place unless
    ``test``. With ``output_u`` the iterated ``u`` is returned as a second output.

    NNC's SpectralNorm exports ``Itr`` + 1 (an ``-a`` flag in its definition file); the layer spec
    decides which value reaches ``itr``.
    """
    return SpectralNorm(dim, itr, eps, test, output_u)(w, u)

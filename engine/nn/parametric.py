"""``PF``: layers that own parameters (nnabla ``parametric_functions``), with NNC's naming.

``import engine.nn.parametric as PF``. Each function runs inside its NNC function scope
(docs/layers.md §1.7: ``affine``, ``conv``, ``bn``, ...), so ::

    with nn.parameter_scope("Convolution_2"):
        h = PF.convolution(x, 16, (3, 3))       # creates Convolution_2/conv/W and .../conv/b

names parameters exactly as NNC does; ``name="Convolution_2"`` is a shorthand for the outer
scope. Default initializers are NNC's (e.g. NormalConvolutionGlorot for W, 0 for b, and 0 for
BatchNormalization's running variance, docs/nnc-behaviour.md §6.5); the other arguments keep
nnabla's names and defaults.

Arguments shared by every function:

* ``fix_parameters=True``: the parameters are used with ``need_grad=False`` (not trained here);
  the stored parameters keep their flag, as in nnabla.
* ``lr_mult``: NNC's LRateMultiplier for the parameters this call creates, one number for all
  or a dict by parameter name (``{"W": 1.0, "b": 0.0}``). 0 freezes a parameter, as NNC does;
  other values are stored for solvers created with ``use_lr_multipliers=True``.
* ``name``: an extra scope around the function scope.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

import engine.nn.functions as F
from engine.core.autograd import Variable, as_variable
from engine.nn import initializer as I
from engine.nn.parameter import get_parameter, get_parameter_or_create, parameter_scope

__all__ = [
    "parametric_function_api", "affine", "convolution", "depthwise_convolution", "deconvolution",
    "depthwise_deconvolution", "embed", "batch_normalization", "fused_batch_normalization",
    "layer_normalization", "instance_normalization", "group_normalization",
    "weight_normalization", "spectral_norm", "prelu", "binary_connect_affine",
    "binary_connect_convolution", "binary_weight_affine", "binary_weight_convolution",
    "min_max_quantize", "mean_subtraction",
]  # fmt: skip


def parametric_function_api(scope_name: str) -> Callable:
    """Run the decorated function inside ``parameter_scope(scope_name)`` (and ``name`` outside)."""

    def decorate(func: Callable) -> Callable:
        @functools.wraps(func)
        def wrapper(*args: Any, name: str | None = None, **kwargs: Any) -> Any:
            with parameter_scope(name or ""), parameter_scope(scope_name):
                return func(*args, **kwargs)

        wrapper.__scope_name__ = scope_name  # type: ignore[attr-defined]
        return wrapper

    return decorate


def _param(pname: str, shape: Sequence[int], init: Any, default: Any, fix: bool, lr_mult: Any,
           need_grad: bool = True, default_mult: float = 1.0) -> Variable:  # fmt: skip
    """Get or create ``pname`` in the current scope with NNC's default initializer.

    A single number in ``lr_mult`` applies to the trainable parameters only; statistics and
    buffers (``default_mult`` 0: running mean/var, Wb, t, ...) need a dict entry to change.
    """
    shape = tuple(map(int, shape))  # map: no Python call per element (hot: every step)
    existing = get_parameter(pname)
    if existing is not None and shape[:1] == (1,) and existing.shape == shape[1:]:
        shape = shape[1:]  # loaded in NNC's layout, which leaves out the batch axis: (C, 1, 1)
    if isinstance(lr_mult, dict):
        mult = lr_mult.get(pname, default_mult)
    else:
        mult = default_mult if lr_mult is None or default_mult == 0.0 else lr_mult
    return get_parameter_or_create(
        pname, shape, default if init is None else init, need_grad,
        False if fix else None, lr_mult=mult,
    )  # fmt: skip


def _bias(shape: Sequence[int], b_init: Any, fix: bool, lr_mult: Any, with_bias: bool) -> Any:
    """The bias ``b`` (NNC default: Constant 0), or None without bias."""
    return _param("b", shape, b_init, I.Constant(0.0), fix, lr_mult) if with_bias else None


def _outmaps(n_outmaps: Any) -> list[int]:
    return [int(n) for n in n_outmaps] if hasattr(n_outmaps, "__iter__") else [int(n_outmaps)]


def _axis(axis: int, ndim: int, fn: str, what: str) -> int:
    if not -ndim <= axis < ndim:
        raise ValueError(f"{fn}: {what}={axis} is out of range for an input with {ndim} dims")
    return axis % ndim


def _channels(x: Variable, base_axis: int, channel_last: bool, fn: str) -> int:
    return x.shape[-1] if channel_last else x.shape[_axis(base_axis, x.ndim, fn, "base_axis")]


def _grouped(c: int, group: int, fn: str, what: str = "input channels") -> int:
    if group < 1 or c % group:
        raise ValueError(f"{fn}: group={group} must divide the {c} {what}")
    return c // group


# --------------------------------------------------------------------------------- Basic
@parametric_function_api("affine")
def affine(inp, n_outmaps, base_axis=1, w_init=None, b_init=None, fix_parameters=False, rng=None,
           with_bias=True, lr_mult=None):  # fmt: skip
    """Affine layer (NNC Affine): W (inputs, *n_outmaps) NormalAffineGlorot, b 0."""
    x = as_variable(inp)
    outs = _outmaps(n_outmaps)
    n_in = int(np.prod(x.shape[_axis(base_axis, x.ndim, "affine", "base_axis") :]))
    w = _param("W", [n_in, *outs], w_init, I.NormalAffineGlorot(rng=rng), fix_parameters, lr_mult)
    b = _bias(outs, b_init, fix_parameters, lr_mult, with_bias)
    return F.affine(x, w, b, base_axis)


@parametric_function_api("conv")
def convolution(inp, outmaps, kernel, pad=None, stride=None, dilation=None, group=1,
                channel_last=False, w_init=None, b_init=None, base_axis=1, fix_parameters=False,
                rng=None, with_bias=True, lr_mult=None):  # fmt: skip
    """N-D convolution (NNC Convolution): W (outmaps, C/group, *kernel) NormalConvolutionGlorot
    (channel_last: (outmaps, *kernel, C/group), NormalCLConvGlorot), b 0."""
    x = as_variable(inp)
    kernel = tuple(int(k) for k in kernel)
    cin = _grouped(_channels(x, base_axis, channel_last, "convolution"), group, "convolution")
    shape = (outmaps, *kernel, cin) if channel_last else (outmaps, cin, *kernel)
    default = I.NormalCLConvGlorot(rng=rng) if channel_last else I.NormalConvolutionGlorot(rng=rng)
    w = _param("W", shape, w_init, default, fix_parameters, lr_mult)
    b = _bias((outmaps,), b_init, fix_parameters, lr_mult, with_bias)
    return F.convolution(x, w, b, base_axis, pad, stride, dilation, group, channel_last)


@parametric_function_api("depthwise_conv")
def depthwise_convolution(inp, kernel, pad=None, stride=None, dilation=None, multiplier=1,
                          w_init=None, b_init=None, base_axis=1, fix_parameters=False, rng=None,
                          with_bias=True, lr_mult=None):  # fmt: skip
    """Depthwise convolution (NNC DepthwiseConvolution): W (C·multiplier, *kernel)
    NormalConvolutionGlorot, b 0."""
    x = as_variable(inp)
    maps = _channels(x, base_axis, False, "depthwise_convolution") * int(multiplier)
    kernel = tuple(int(k) for k in kernel)
    w = _param("W", (maps, *kernel), w_init, I.NormalConvolutionGlorot(rng=rng), fix_parameters,
               lr_mult)  # fmt: skip
    b = _bias((maps,), b_init, fix_parameters, lr_mult, with_bias)
    return F.depthwise_convolution(x, w, b, base_axis, pad, stride, dilation, multiplier)


@parametric_function_api("deconv")
def deconvolution(inp, outmaps, kernel, pad=None, stride=None, dilation=None, group=1,
                  channel_last=False, output_padding=None, w_init=None, b_init=None, base_axis=1,
                  fix_parameters=False, rng=None, with_bias=True, lr_mult=None):  # fmt: skip
    """Transposed convolution (NNC Deconvolution): W (C, outmaps/group, *kernel)
    NormalConvolutionHeForward (channel_last: (C, *kernel, outmaps/group)), b 0."""
    x = as_variable(inp)
    kernel = tuple(int(k) for k in kernel)
    cin = _channels(x, base_axis, channel_last, "deconvolution")
    _grouped(cin, group, "deconvolution")
    per_group = _grouped(int(outmaps), group, "deconvolution", "output maps")
    shape = (cin, *kernel, per_group) if channel_last else (cin, per_group, *kernel)
    default = (
        I.NormalCLConvHeForward(rng=rng) if channel_last else I.NormalConvolutionHeForward(rng=rng)
    )
    w = _param("W", shape, w_init, default, fix_parameters, lr_mult)
    b = _bias((outmaps,), b_init, fix_parameters, lr_mult, with_bias)
    return F.deconvolution(x, w, b, base_axis, pad, stride, dilation, group, channel_last,
                           output_padding)  # fmt: skip


@parametric_function_api("depthwise_deconv")
def depthwise_deconvolution(inp, kernel, pad=None, stride=None, dilation=None, divisor=1,
                            w_init=None, b_init=None, base_axis=1, fix_parameters=False, rng=None,
                            with_bias=True, lr_mult=None):  # fmt: skip
    """Depthwise transposed convolution (NNC DepthwiseDeconvolution): W (C, *kernel)
    NormalConvolutionHeForward, b (C/divisor) 0."""
    x = as_variable(inp)
    c = _channels(x, base_axis, False, "depthwise_deconvolution")
    maps = _grouped(c, int(divisor), "depthwise_deconvolution")
    kernel = tuple(int(k) for k in kernel)
    w = _param("W", (c, *kernel), w_init, I.NormalConvolutionHeForward(rng=rng), fix_parameters,
               lr_mult)  # fmt: skip
    b = _bias((maps,), b_init, fix_parameters, lr_mult, with_bias)
    return F.depthwise_deconvolution(x, w, b, base_axis, pad, stride, dilation, divisor)


@parametric_function_api("embed")
def embed(inp, n_inputs, n_features, initializer=None, fix_parameters=False, rng=None,
          lr_mult=None):  # fmt: skip
    """Embedding (NNC Embed): W (n_inputs, *n_features), Uniform(1.0) = U(-1, 1) as NNC."""
    shape = (int(n_inputs), *_outmaps(n_features))
    w = _param("W", shape, initializer, I.Uniform(1.0, rng=rng), fix_parameters, lr_mult)
    return F.embed(inp, w)


# -------------------------------------------------------------------------- Normalization
def _stat_shape(x: Variable, axes: Any, fn: str) -> list[int]:
    """Size of ``x`` along ``axes``, 1 elsewhere (the (1, C, 1, 1) shape of nnabla)."""
    axes = [axes] if isinstance(axes, (int, np.integer)) else list(axes)
    shape = [1] * x.ndim
    for a in axes:
        a = _axis(int(a), x.ndim, fn, "axis")
        shape[a] = x.shape[a]
    return shape


def _bn_params(x, axes, fn, param_init, fix, lr_mult, no_scale=False, no_bias=False):
    """beta 0, gamma 1, mean 0, var 0 (NNC's defaults; running statistics are never trained)."""
    shape = _stat_shape(x, axes, fn)
    init = dict(param_init or {})
    beta = (
        None if no_bias else _param("beta", shape, init.get("beta"), I.Constant(0.0), fix, lr_mult)
    )
    gamma = None if no_scale else _param("gamma", shape, init.get("gamma"), I.Constant(1.0), fix,
                                         lr_mult)  # fmt: skip
    mean = _param("mean", shape, init.get("mean"), I.Constant(0.0), fix, lr_mult, need_grad=False,
                  default_mult=0.0)  # fmt: skip
    var = _param("var", shape, init.get("var"), I.Constant(0.0), fix, lr_mult, need_grad=False,
                 default_mult=0.0)  # fmt: skip
    return beta, gamma, mean, var


@parametric_function_api("bn")
def batch_normalization(inp, axes=(1,), decay_rate=0.9, eps=1e-5, batch_stat=True,
                        output_stat=False, fix_parameters=False, param_init=None, no_scale=False,
                        no_bias=False, lr_mult=None):  # fmt: skip
    """Batch normalization (NNC BatchNormalization); parameters (1, C, 1, 1) beta 0, gamma 1,
    mean 0, var 0 (NNC's initial running variance is 0)."""
    x = as_variable(inp)
    beta, gamma, mean, var = _bn_params(x, axes, "batch_normalization", param_init,
                                        fix_parameters, lr_mult, no_scale, no_bias)  # fmt: skip
    return F.batch_normalization(x, beta, gamma, mean, var, axes, decay_rate, eps, batch_stat,
                                 output_stat)  # fmt: skip


@parametric_function_api("bn")
def fused_batch_normalization(inp, z=None, axes=(1,), decay_rate=0.9, eps=1e-5, batch_stat=True,
                              nonlinearity="relu", output_stat=False, fix_parameters=False,
                              param_init=None, lr_mult=None):  # fmt: skip
    """Batch normalization + optional residual ``z`` + ReLU (NNC FusedBatchNormalization)."""
    x = as_variable(inp)
    beta, gamma, mean, var = _bn_params(x, axes, "fused_batch_normalization", param_init,
                                        fix_parameters, lr_mult)  # fmt: skip
    return F.fused_batch_normalization(x, beta, gamma, mean, var, z, axes, decay_rate, eps,
                                       batch_stat, nonlinearity, output_stat)  # fmt: skip


def _affine_params(shape, param_init, fix, lr_mult, no_scale=False, no_bias=False):
    init = dict(param_init or {})
    beta = (
        None if no_bias else _param("beta", shape, init.get("beta"), I.Constant(0.0), fix, lr_mult)
    )
    gamma = None if no_scale else _param("gamma", shape, init.get("gamma"), I.Constant(1.0), fix,
                                         lr_mult)  # fmt: skip
    return beta, gamma


@parametric_function_api("layer_normalization")
def layer_normalization(inp, batch_axis=0, eps=1e-5, output_stat=False, fix_parameters=False,
                        param_init=None, lr_mult=None):  # fmt: skip
    """Layer normalization (NNC LayerNormalization): beta 0 / gamma 1 with the input's shape,
    1 on the batch axes."""
    x = as_variable(inp)
    batch = [batch_axis] if isinstance(batch_axis, (int, np.integer)) else list(batch_axis)
    batch = {_axis(int(a), x.ndim, "layer_normalization", "batch_axis") for a in batch}
    shape = [1 if i in batch else n for i, n in enumerate(x.shape)]
    beta, gamma = _affine_params(shape, param_init, fix_parameters, lr_mult)
    return F.layer_normalization(x, beta, gamma, batch_axis, eps, output_stat)


@parametric_function_api("instance_normalization")
def instance_normalization(inp, channel_axis=1, batch_axis=0, eps=1e-5, output_stat=False,
                           fix_parameters=False, param_init=None, no_scale=False, no_bias=False,
                           lr_mult=None):  # fmt: skip
    """Instance normalization (NNC InstanceNormalization): beta 0 / gamma 1, (1, C, 1, 1)."""
    x = as_variable(inp)
    shape = _stat_shape(x, channel_axis, "instance_normalization")
    beta, gamma = _affine_params(shape, param_init, fix_parameters, lr_mult, no_scale, no_bias)
    return F.instance_normalization(x, beta, gamma, channel_axis, batch_axis, eps, output_stat)


@parametric_function_api("group_normalization")
def group_normalization(inp, num_groups, channel_axis=1, batch_axis=0, eps=1e-5,
                        output_stat=False, fix_parameters=False, param_init=None, no_scale=False,
                        no_bias=False, lr_mult=None):  # fmt: skip
    """Group normalization (NNC GroupNormalization): beta 0 / gamma 1, (1, C, 1, 1)."""
    x = as_variable(inp)
    shape = _stat_shape(x, channel_axis, "group_normalization")
    beta, gamma = _affine_params(shape, param_init, fix_parameters, lr_mult, no_scale, no_bias)
    return F.group_normalization(x, beta, gamma, num_groups, channel_axis, batch_axis, eps,
                                 output_stat)  # fmt: skip


@parametric_function_api("wn")
def weight_normalization(v, dim=0, eps=1e-12, fix_parameters=False, g_init=None, lr_mult=None):
    """Weight normalization of a weight ``v`` (NNC WeightNormalization): g (v.shape[dim]), 1."""
    v = as_variable(v)
    dim = _axis(dim, v.ndim, "weight_normalization", "dim")
    g = _param("g", (v.shape[dim],), g_init, I.Constant(1.0), fix_parameters, lr_mult)
    return F.weight_normalization(v, g, dim, eps)


@parametric_function_api("sn")
def spectral_norm(w, dim=0, itr=1, eps=1e-12, test=False, u_init=None, fix_parameters=True,
                  lr_mult=None):  # fmt: skip
    """Spectral normalization of a weight (NNC SpectralNorm): u (w.shape[dim]), Constant 1 as
    NNC; ``u`` is updated by the function itself, never by a solver (need_grad False)."""
    w = as_variable(w)
    dim = _axis(dim, w.ndim, "spectral_norm", "dim")
    u = _param("u", (w.shape[dim],), u_init, I.Constant(1.0), fix_parameters, lr_mult,
               need_grad=False)  # fmt: skip
    return F.spectral_norm(w, u, dim, itr, eps, test)


# ----------------------------------------------------------------------------- Activation
@parametric_function_api("prelu")
def prelu(inp, base_axis=1, shared=True, fix_parameters=False, slope_init=None, lr_mult=None):
    """Parametric ReLU (NNC PReLU): slope () when ``shared`` else (C,), Constant 0.25."""
    x = as_variable(inp)
    shape = () if shared else (x.shape[_axis(base_axis, x.ndim, "prelu", "base_axis")],)
    slope = _param("slope", shape, slope_init, I.Constant(0.25), fix_parameters, lr_mult)
    return F.prelu(x, slope, base_axis)


# ------------------------------------------------------------------------------- Quantize
def _binary_weights(shape, w_init, wb_init, default, fix, lr_mult):
    """W (trained) and Wb (its binarized copy, written by the function; LR multiplier 0)."""
    w = _param("W", shape, w_init, default, fix, lr_mult)
    wb = _param("Wb", shape, wb_init, I.Constant(0.0), fix, lr_mult, default_mult=0.0)
    return w, wb


@parametric_function_api("bicon_affine")
def binary_connect_affine(inp, n_outmaps, base_axis=1, quantize_zero_to=1.0, w_init=None,
                          wb_init=None, b_init=None, fix_parameters=False, rng=None,
                          with_bias=True, lr_mult=None):  # fmt: skip
    """BinaryConnectAffine: W UniformAffineGlorot, Wb 0 (not trained), b 0."""
    x = as_variable(inp)
    outs = _outmaps(n_outmaps)
    n_in = int(np.prod(x.shape[_axis(base_axis, x.ndim, "binary_connect_affine", "base_axis") :]))
    w, wb = _binary_weights([n_in, *outs], w_init, wb_init, I.UniformAffineGlorot(rng=rng),
                            fix_parameters, lr_mult)  # fmt: skip
    b = _bias(outs, b_init, fix_parameters, lr_mult, with_bias)
    return F.binary_connect_affine(x, w, wb, b, base_axis, quantize_zero_to)


@parametric_function_api("bicon_conv")
def binary_connect_convolution(inp, outmaps, kernel, pad=None, stride=None, dilation=None,
                               group=1, quantize_zero_to=1.0, w_init=None, wb_init=None,
                               b_init=None, base_axis=1, fix_parameters=False, rng=None,
                               with_bias=True, lr_mult=None):  # fmt: skip
    """BinaryConnectConvolution: W UniformConvolutionGlorot, Wb 0 (not trained), b 0."""
    x = as_variable(inp)
    kernel = tuple(int(k) for k in kernel)
    cin = _grouped(_channels(x, base_axis, False, "binary_connect_convolution"), group,
                   "binary_connect_convolution")  # fmt: skip
    default = I.UniformConvolutionGlorot(rng=rng)
    w, wb = _binary_weights(
        (outmaps, cin, *kernel), w_init, wb_init, default, fix_parameters, lr_mult
    )
    b = _bias((outmaps,), b_init, fix_parameters, lr_mult, with_bias)
    return F.binary_connect_convolution(x, w, wb, b, base_axis, pad, stride, dilation, group,
                                        quantize_zero_to)  # fmt: skip


@parametric_function_api("bwn_affine")
def binary_weight_affine(inp, n_outmaps, base_axis=1, quantize_zero_to=1.0, w_init=None,
                         wb_init=None, b_init=None, fix_parameters=False, rng=None,
                         with_bias=True, lr_mult=None):  # fmt: skip
    """BinaryWeightAffine: W UniformAffineGlorot, Wb 0, alpha 0 (both written by the function,
    not trained), b 0. Unlike NNC's generated nntxt, the bias is really added."""
    x = as_variable(inp)
    outs = _outmaps(n_outmaps)
    n_in = int(np.prod(x.shape[_axis(base_axis, x.ndim, "binary_weight_affine", "base_axis") :]))
    w, wb = _binary_weights([n_in, *outs], w_init, wb_init, I.UniformAffineGlorot(rng=rng),
                            fix_parameters, lr_mult)  # fmt: skip
    alpha = _param("alpha", outs, None, I.Constant(0.0), True, lr_mult, need_grad=False,
                   default_mult=0.0)  # fmt: skip
    b = _bias(outs, b_init, fix_parameters, lr_mult, with_bias)
    return F.binary_weight_affine(x, w, wb, alpha, b, base_axis, quantize_zero_to)


@parametric_function_api("bwn_conv")
def binary_weight_convolution(inp, outmaps, kernel, pad=None, stride=None, dilation=None,
                              group=1, quantize_zero_to=1.0, w_init=None, wb_init=None,
                              b_init=None, base_axis=1, fix_parameters=False, rng=None,
                              with_bias=True, lr_mult=None):  # fmt: skip
    """BinaryWeightConvolution: W UniformConvolutionGlorot, Wb and alpha 0 (not trained), b 0."""
    x = as_variable(inp)
    kernel = tuple(int(k) for k in kernel)
    cin = _grouped(_channels(x, base_axis, False, "binary_weight_convolution"), group,
                   "binary_weight_convolution")  # fmt: skip
    default = I.UniformConvolutionGlorot(rng=rng)
    w, wb = _binary_weights(
        (outmaps, cin, *kernel), w_init, wb_init, default, fix_parameters, lr_mult
    )
    alpha = _param("alpha", (outmaps,), None, I.Constant(0.0), True, lr_mult, need_grad=False,
                   default_mult=0.0)  # fmt: skip
    b = _bias((outmaps,), b_init, fix_parameters, lr_mult, with_bias)
    return F.binary_weight_convolution(x, w, wb, alpha, b, base_axis, pad, stride, dilation, group,
                                       quantize_zero_to)  # fmt: skip


@parametric_function_api("min_max_quantize")
def min_max_quantize(x, ql_min=0, ql_max=255, decay=0.999, x_min_max=False, ema=False,
                     ste_fine_grained=True, eps=0.01, qr_min_init=None, qr_max_init=None,
                     fix_parameters=False, lr_mult=None):  # fmt: skip
    """MinMaxQuantize with a proper scope (NNC names them ``/r``, ``/R``, ``/l``, ``/L``):
    qr_min −6 and qr_max 6 (learned unless x_min_max/ema), ql_min and ql_max fixed."""
    x = as_variable(x)
    shape = (1,) * x.ndim  # one range for the whole tensor, broadcast over x
    learn = not (x_min_max or ema)
    qr_min = _param("qr_min", shape, qr_min_init, I.Constant(-6.0), fix_parameters, lr_mult,
                    need_grad=learn)  # fmt: skip
    qr_max = _param("qr_max", shape, qr_max_init, I.Constant(6.0), fix_parameters, lr_mult,
                    need_grad=learn)  # fmt: skip
    ql_lo = _param("ql_min", shape, None, I.Constant(float(ql_min)), True, lr_mult, need_grad=False,
                   default_mult=0.0)  # fmt: skip
    ql_hi = _param("ql_max", shape, None, I.Constant(float(ql_max)), True, lr_mult, need_grad=False,
                   default_mult=0.0)  # fmt: skip
    return F.min_max_quantize(x, qr_min, qr_max, ql_lo, ql_hi, decay, x_min_max, ema,
                              ste_fine_grained, eps)  # fmt: skip


# ------------------------------------------------------------------------------ Pre process
@parametric_function_api("mean_subtraction")
def mean_subtraction(inp, base_axis=1, update_running_mean=True, fix_parameters=False,
                     lr_mult=None):  # fmt: skip
    """MeanSubtraction: running mean (x.shape[base_axis:]) and count t (1,), both 0 and updated
    by the function itself (never by a solver)."""
    x = as_variable(inp)
    shape = x.shape[_axis(base_axis, x.ndim, "mean_subtraction", "base_axis") :]
    mean = _param("mean", shape, None, I.Constant(0.0), fix_parameters, lr_mult, need_grad=False,
                  default_mult=0.0)  # fmt: skip
    t = _param("t", (1,), None, I.Constant(0.0), fix_parameters, lr_mult, need_grad=False,
               default_mult=0.0)  # fmt: skip
    return F.mean_subtraction(x, mean, t, base_axis, update_running_mean)

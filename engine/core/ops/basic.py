"""Basic layers: Affine, Convolution, DepthwiseConvolution, Deconvolution, DepthwiseDeconvolution,
Embed (nnabla ``F.affine``, ``F.convolution``, ...; see docs/layers.md §4.4).

Convolutions are im2col + one GEMM for the whole batch (no cuDNN; cuBLAS on CuPy); the layout is
explained in :mod:`engine.core.ops._im2col`. Deconvolution is the adjoint: GEMM + col2im forward,
im2col + GEMM backward. Gradients nobody asked for are not computed (``needs_input_grad``).
"""

from __future__ import annotations

from functools import partial

from engine.core import backend
from engine.core.autograd import Function, Variable
from engine.core.backend import get_array_module, matmul, scatter_add
from engine.core.ops import _depthwise, _direct_conv, _im2col_cpu, _later
from engine.core.ops._conv_geometry import ConvGeometry
from engine.core.ops._im2col import (
    as_int_tuple,
    channel_matrix,
    channels_major,
    channels_major_contiguous,
    col2im,
    conv_out_size,
    deconv_out_size,
    from_channels_major,
    im2col,
    pointwise,
    prefer_batch_last,
    prod,
)
from engine.core.ops._indexing import as_indices
from engine.core.ops._special_conv import AdaptiveSeparableConvolution, DeformableConvolution

__all__ = [
    "affine",
    "convolution",
    "depthwise_convolution",
    "deconvolution",
    "depthwise_deconvolution",
    "embed",
    "deformable_convolution",
    "adaptive_separable_convolution",
]


# --------------------------------------------------------------------------------------- Affine
class Affine(Function):
    """``y = x.reshape(B, I) @ W.reshape(I, O) + b`` with B = prod(x.shape[:base_axis])."""

    def __init__(self, base_axis: int = 1) -> None:
        self.base_axis = base_axis

    def forward(self, x, w, b=None):
        axis = self.base_axis if self.base_axis >= 0 else x.ndim + self.base_axis
        batch = x.shape[:axis]
        n_in = prod(x.shape[axis:])
        if w.ndim < 1 or w.shape[0] != n_in:
            raise ValueError(
                f"affine: weight.shape[0] must equal the {n_in} input elements per sample "
                f"(x.shape[{axis}:]={x.shape[axis:]}). Received: weight.shape={w.shape}"
            )
        n_out = prod(w.shape[1:])
        w2 = w.reshape(n_in, n_out)
        # A batch-innermost input (from a convolution or pooling) is the transpose of a contiguous
        # (inputs, B) matrix: hand that to BLAS instead of copying it into (B, inputs).
        xt = get_array_module(x).moveaxis(x, 0, -1) if axis == 1 and x.ndim > 2 else None
        self.batch_last = xt is not None and xt.flags.c_contiguous and not x.flags.c_contiguous
        x2 = xt.reshape(n_in, -1).T if self.batch_last else x.reshape(prod(batch), n_in)
        y = matmul(x2, w2)
        if b is not None:
            y += b.reshape(n_out)
        self.x2, self.w2 = x2, w2
        self.shapes = (x.shape, w.shape, None if b is None else b.shape)
        return y.reshape(batch + w.shape[1:])

    def backward(self, gy):
        x_shape, w_shape, b_shape = self.shapes
        need = self.needs_input_grad
        g2 = gy.reshape(self.x2.shape[0], self.w2.shape[1])
        gx = None
        if need[0] and self.batch_last:  # hand the gradient back in the input's layout
            gx = get_array_module(gy).moveaxis(
                matmul(self.w2, g2.T).reshape(x_shape[1:] + x_shape[:1]), -1, 0
            )
        elif need[0]:
            gx = matmul(g2, self.w2.T).reshape(x_shape)
        gw = matmul(self.x2.T, g2).reshape(w_shape) if need[1] else None
        if b_shape is None:
            return gx, gw
        gb = g2.sum(axis=0).reshape(b_shape) if need[2] else None
        return gx, gw, gb


def affine(x, weight, bias=None, base_axis: int = 1) -> Variable:
    """Fully connected layer (nnabla ``F.affine``); ``weight`` is (inputs, *outputs)."""
    args = (x, weight) if bias is None else (x, weight, bias)
    return Affine(base_axis)(*args)


# -------------------------------------------------------------------------- convolution core
def _matmul_bt(a, b):
    """``a @ b^T`` over a long shared axis (weight gradients). OpenBLAS is up to 2x faster with
    the operand that has more rows on the left, so swap the roles and transpose the (small) result.
    """
    if a.shape[-2] < b.shape[-2]:
        return matmul(b, a.swapaxes(-1, -2)).swapaxes(-1, -2)
    return matmul(a, b.swapaxes(-1, -2))


def _matmul_k(a, b):
    """``a @ b``; with a contraction of length 1 (the depthwise input gradient,
    (C, k, 1) @ (C, 1, P)) that is an outer product, which NumPy runs as C tiny GEMMs about 10x
    slower than the broadcast product it is."""
    if a.shape[-1] == 1:
        return a * b
    return matmul(a, b)


# Columns are kept for the weight gradient while they are small (LeNet: 6 MB); above that they
# are rebuilt in backward from the input the graph holds anyway, as saving them would cost
# prod(kernel) times the activation memory (gigabytes for a CIFAR ResNet).
SAVE_COLUMNS_BYTES = 64 * 2**20
# Larger im2col buffers are built one batch slice at a time to bound the peak memory.
CHUNK_BYTES = 256 * 2**20


def _batch_slices(n: int, bytes_per_sample: int) -> list[slice]:
    per = max(1, CHUNK_BYTES // max(1, bytes_per_sample))
    return [slice(s, min(n, s + per)) for s in range(0, n, per)]


class Convolution(Function):
    """N-D grouped convolution (nnabla ``Convolution``/``DepthwiseConvolution``)."""

    def __init__(
        self,
        fn: str,
        base_axis: int,
        pad,
        stride,
        dilation,
        group: int,
        channel_last: bool,
        multiplier: int | None = None,
    ) -> None:
        self.fn, self.base_axis, self.group = fn, base_axis, group
        self.args = (pad, stride, dilation)
        self.channel_last, self.multiplier = channel_last, multiplier

    def forward(self, x, w, b=None):
        xp = get_array_module(x)
        depthwise = self.multiplier is not None
        layout = "depthwise" if depthwise else "conv"
        geo = ConvGeometry(
            self.fn, x, w, self.base_axis, *self.args, self.group, self.channel_last, layout
        )
        x4, w4 = geo.x, geo.w
        n, c = x4.shape[:2]
        if depthwise:
            maps = c * self.multiplier
            if w.shape[0] != maps:
                raise ValueError(
                    f"{self.fn}: weight.shape[0] must be channels*multiplier = "
                    f"{c}*{self.multiplier}. "
                    f"Received: weight.shape={w.shape}"
                )
            geo.group = c
            w4 = w4.reshape((maps, 1) + geo.kernel)
        maps = w4.shape[0]
        geo.check_groups(
            c, w4.shape[1], maps, "(outmaps, channels/group, *kernel) with outmaps % group == 0"
        )
        g = geo.group
        out = tuple(
            conv_out_size(*a)
            for a in zip(x4.shape[2:], geo.kernel, geo.pad, geo.stride, geo.dilation, strict=True)
        )
        if min(out) < 1:
            raise ValueError(
                f"{self.fn}: the output would be empty ({out}). Received: x.shape={x.shape}, "
                f"weight.shape={w.shape}, pad={geo.pad}, stride={geo.stride}, "
                f"dilation={geo.dilation}"
            )
        self.geo, self.x4, self.out, self.w_shape = geo, x4, out, w.shape
        self.b_shape = None if b is None else b.shape
        self.bl = bl = prefer_batch_last(n, geo.stride)
        ck = c * prod(geo.kernel)
        self.wmat = w4.reshape(maps, ck) if g == 1 else w4.reshape(g, maps // g, ck // g)
        self.slices = _batch_slices(n, ck * prod(out) * x4.dtype.itemsize)
        self.colmat = None
        self.direct = _depthwise.applies(x4, maps, g, geo.nk, bl)
        self.dense = not self.direct and _direct_conv.applies(x4, g, geo.kernel, bl)
        if self.direct:  # one map per group: a direct kernel, no columns
            self.xc = channels_major_contiguous(x4, True)
            self.wk = w4.reshape((maps,) + geo.kernel)
            y = _depthwise.forward(self.xc, self.wk, geo.pad, geo.stride, geo.dilation, out)
        elif self.dense:  # a register-blocked kernel, no columns
            self.xp = _direct_conv.padded(channels_major(x4, True), geo.pad)  # one copy
            y = _direct_conv.forward(self.xp, w4, geo.stride, geo.dilation, out)
        elif len(self.slices) == 1:
            colmat = self._columns(x4)
            y = matmul(self.wmat, colmat).reshape(maps, -1)
            if self.needs_input_grad[1] and colmat.nbytes <= SAVE_COLUMNS_BYTES:
                self.colmat = colmat
            y = y.reshape((maps,) + (out + (n,) if bl else (n,) + out))
        else:
            y = xp.empty((maps,) + (out + (n,) if bl else (n,) + out), dtype=x4.dtype)
            for sl in self.slices:
                part = matmul(self.wmat, self._columns(x4[sl])).reshape(maps, -1)
                nc = sl.stop - sl.start
                if bl:
                    y[..., sl] = part.reshape((maps,) + out + (nc,))
                else:
                    y[:, sl] = part.reshape((maps, nc) + out)
        if b is not None:
            y += b.reshape((maps,) + (1,) * (y.ndim - 1))
        # The (O, P*N) buffer is handed out as its (N, O, *out) view: no transposed copy.
        return geo.to_user(from_channels_major(y, bl))

    def _columns(self, x4):
        """im2col of a batch slice as the GEMM operand (C*K, P*n) or (G, C/G*K, P*n)."""
        geo = self.geo
        col, _ = im2col(x4, geo.kernel, geo.pad, geo.stride, geo.dilation, self.bl)
        return col.reshape(self.wmat.shape[:-2] + (self.wmat.shape[-1], -1))

    def backward(self, gy):
        g4 = self.geo.from_user(gy)
        if self.direct:
            return self._direct_backward(g4)
        if self.dense:
            return self._dense_backward(g4)
        return self._gemm_backward(g4, self.needs_input_grad)

    def _gemm_backward(self, g4, need):
        """Gradients through columns: the GEMMs of the forward transposed, and col2im."""
        xp = get_array_module(g4)
        geo, bl = self.geo, self.bl
        n, c = self.x4.shape[:2]
        groups = geo.group
        gx = gw = gb = None
        parts = []
        # A column gradient for the compiled col2im gets padded rows (GEMM up to 1.7x faster).
        padded = not pointwise(geo.kernel, geo.pad, geo.stride)
        padded = padded and _im2col_cpu.applies(g4, geo.nk, bl)
        for sl in self.slices:
            g2 = channel_matrix(g4[sl], bl)
            if len(self.inputs) == 3 and need[2]:
                gb = g2.sum(axis=1) if gb is None else gb + g2.sum(axis=1)
            g2g = g2 if groups == 1 else g2.reshape(groups, -1, g2.shape[1])
            if need[1]:
                col = self.colmat if self.colmat is not None else self._columns(self.x4[sl])
                part = _matmul_bt(g2g, col)
                gw = part if gw is None else gw + part
            if need[0]:
                nc, wt = sl.stop - sl.start, self.wmat.swapaxes(-1, -2)
                gcol = _im2col_cpu.matmul(wt, g2g, nc) if padded else _matmul_k(wt, g2g)
                gcol = gcol.reshape(
                    (c,) + geo.kernel + (self.out + (nc,) if bl else (nc,) + self.out)
                )
                x_shape = (nc,) + self.x4.shape[1:]
                parts.append(
                    col2im(gcol, x_shape, geo.kernel, geo.pad, geo.stride, geo.dilation, bl)
                )
        if need[0]:
            gx = parts[0] if len(parts) == 1 else xp.concatenate(parts, axis=0)
            gx = geo.to_user(gx)
        if need[1]:
            gw = self._to_user()(gw)
        if self.b_shape is None:
            return gx, gw
        return gx, gw, (None if gb is None else gb.reshape(self.b_shape))

    def _to_user(self):
        """A weight gradient in the geometry's (O, C/G, *k) layout -> the caller's (no reference
        to self: a pool thread may apply it once the walk has released this function)."""
        keep = self.multiplier is not None
        return partial(self.geo.user_weight, keep_layout=keep, shape=self.w_shape)

    def _dense_backward(self, g4):
        """Gradients through the direct kernels (see :mod:`._direct_conv`)."""
        geo, need = self.geo, self.needs_input_grad
        gyc = channels_major_contiguous(g4, True)
        gx = gw = None
        if need[1]:  # first: a pool thread may compute it while this one goes on
            args = (self.xp, gyc, geo.kernel, geo.stride, geo.dilation)
            gw = _later.leaf_grad(self.inputs[1], _direct_conv.weight_grad, args, self._to_user())
        if need[0]:
            args = (self.x4.shape[2:], geo.pad, geo.stride, geo.dilation)
            gxc = _direct_conv.input_grad(gyc, geo.w, *args)
            gx = geo.to_user(from_channels_major(gxc, True))
        return _with_bias_grad(self, gx, gw, gyc)

    def _direct_backward(self, g4):
        """Gradients through the direct depthwise kernel (see :mod:`._depthwise`)."""
        geo, need = self.geo, self.needs_input_grad
        gyc = channels_major_contiguous(g4, True)
        args = (self.xc, self.wk, gyc, geo.pad, geo.stride, geo.dilation)
        gx = gw = None
        if need[1]:  # first: a pool thread may compute it while this one goes on
            gw = _later.leaf_grad(self.inputs[1], _depthwise.weight_grad, args, self._to_user())
        if need[0]:
            gx = geo.to_user(from_channels_major(_depthwise.input_grad(*args), True))
        return _with_bias_grad(self, gx, gw, gyc)


class Deconvolution(Function):
    """N-D grouped transposed convolution (nnabla ``Deconvolution``/``DepthwiseDeconvolution``)."""

    def __init__(
        self,
        fn: str,
        base_axis: int,
        pad,
        stride,
        dilation,
        group: int,
        channel_last: bool,
        output_padding,
        divisor: int | None = None,
    ) -> None:
        self.fn, self.base_axis, self.group = fn, base_axis, group
        self.args = (pad, stride, dilation)
        self.channel_last, self.output_padding, self.divisor = channel_last, output_padding, divisor

    def forward(self, x, w, b=None):
        depthwise = self.divisor is not None
        layout = "depthwise_deconv" if depthwise else "deconv"
        geo = ConvGeometry(
            self.fn, x, w, self.base_axis, *self.args, self.group, self.channel_last, layout
        )
        x4, w4 = geo.x, geo.w
        n, c = x4.shape[:2]
        if depthwise:
            if self.divisor < 1 or c % self.divisor or w.shape[0] != c:
                raise ValueError(
                    f"{self.fn}: weight.shape[0] must equal the {c} input channels and "
                    f"divisor={self.divisor} must divide them. Received: weight.shape={w.shape}"
                )
            geo.group = c // self.divisor
            w4 = w4.reshape((c, 1) + geo.kernel)
        g = geo.group
        if g < 1 or c % g or w4.shape[0] != c:
            raise ValueError(
                f"{self.fn}: weight must be (inmaps={c}, outmaps/group, *kernel) and "
                f"group={g} must "
                f"divide the inmaps. Received: x.shape={x.shape}, weight.shape={w.shape}"
            )
        maps = w4.shape[1] * g
        out_pad = as_int_tuple(self.output_padding, geo.nk, 0, self.fn, "output_padding")
        if any(
            p < 0 or (p >= s and p >= d)
            for p, s, d in zip(out_pad, geo.stride, geo.dilation, strict=True)
        ):
            raise ValueError(
                f"{self.fn}: output_padding must be >= 0 and smaller than stride or dilation. "
                f"Received: output_padding={out_pad}, stride={geo.stride}, dilation={geo.dilation}"
            )
        in_sp = x4.shape[2:]
        out = tuple(
            deconv_out_size(s, k, p, st, d, op)
            for s, k, p, st, d, op in zip(
                in_sp, geo.kernel, geo.pad, geo.stride, geo.dilation, out_pad, strict=True
            )
        )
        if min(out) < 1:
            raise ValueError(
                f"{self.fn}: the output would be empty: {out}. Received: x.shape={x.shape}"
            )
        self.geo, self.in_sp, self.w_shape = geo, x4.shape[2:], w.shape
        self.b_shape = None if b is None else b.shape
        bl = self.bl = prefer_batch_last(n, geo.stride)
        self.dense = _direct_conv.applies(x4, g, geo.kernel, bl)
        if self.dense:  # a convolution's input gradient, by the direct kernels
            self.xc, self.w4 = channels_major_contiguous(x4, True), w4
            y = _direct_conv.input_grad(self.xc, w4, out, geo.pad, geo.stride, geo.dilation)
            y = from_channels_major(y, True)
            if b is not None:
                y += b.reshape((maps,) + (1,) * geo.nk)
            return geo.to_user(y)
        kk = prod(geo.kernel)
        xmat = channel_matrix(x4, bl)
        if g == 1:
            wmat = w4.reshape(c, maps * kk)
            col = matmul(wmat.T, xmat)
        else:
            wmat = w4.reshape(g, c // g, maps // g * kk)
            xmat = xmat.reshape(g, c // g, -1)
            col = matmul(wmat.swapaxes(1, 2), xmat)
        col = col.reshape((maps,) + geo.kernel + (in_sp + (n,) if bl else (n,) + in_sp))
        y = col2im(col, (n, maps) + out, geo.kernel, geo.pad, geo.stride, geo.dilation, bl)
        if b is not None:
            y += b.reshape((maps,) + (1,) * geo.nk)
        need = self.needs_input_grad
        if need[1]:
            self.xmat = xmat
        if need[0]:
            self.wmat = wmat
        return geo.to_user(y)

    def backward(self, gy):
        geo, need = self.geo, self.needs_input_grad
        xp = get_array_module(gy)
        g = geo.group
        g4 = geo.from_user(gy)
        if self.dense:
            return self._dense_backward(g4)
        n, maps = g4.shape[:2]
        bl = self.bl
        col, out = im2col(g4, geo.kernel, geo.pad, geo.stride, geo.dilation, bl)
        if out != self.in_sp:  # output_padding >= stride (allowed when < dilation): extra windows
            skip = (slice(None),) * (1 + geo.nk if bl else 2 + geo.nk)
            col = col[skip + tuple(slice(0, s) for s in self.in_sp)]
        col = col.reshape(maps * prod(geo.kernel), -1)
        if g > 1:
            col = col.reshape(g, -1, col.shape[1])
        gx = gw = None
        if need[0]:
            spatial = self.in_sp + (n,) if bl else (n,) + self.in_sp
            gx = matmul(self.wmat, col).reshape((-1,) + spatial)
            gx = geo.to_user(from_channels_major(gx, bl))
        if need[1]:
            gw = _matmul_bt(self.xmat, col)
            if geo.channel_last and self.divisor is None:
                gw = gw.reshape(geo.w.shape)
                gw = xp.moveaxis(gw, 1, -1)
            gw = gw.reshape(self.w_shape)
        if self.b_shape is None:
            return gx, gw
        gb = None
        if need[2]:
            axes = (0,) + tuple(range(2, g4.ndim))
            gb = g4.sum(axis=axes).reshape(self.b_shape)
        return gx, gw, gb

    def _dense_backward(self, g4):
        """Gradients through the direct kernels: the input gradient is a convolution of the
        output gradient, the weight gradient a convolution's with the roles swapped."""
        geo, need = self.geo, self.needs_input_grad
        gyc = channels_major_contiguous(g4, True)
        gp = _direct_conv.padded(gyc, geo.pad)
        gx = gw = None
        if need[0]:
            gxc = _direct_conv.forward(gp, self.w4, geo.stride, geo.dilation, self.in_sp)
            gx = geo.to_user(from_channels_major(gxc, True))
        if need[1]:
            gw = _direct_conv.weight_grad(gp, self.xc, geo.kernel, geo.stride, geo.dilation)
            if geo.channel_last:
                gw = get_array_module(gw).moveaxis(gw, 1, -1)
            gw = gw.reshape(self.w_shape)
        return _with_bias_grad(self, gx, gw, gyc)


def _with_bias_grad(f: Function, gx, gw, gyc):
    """``(gx, gw)``, and the bias gradient summed from the contiguous (maps, *out, N) output
    gradient when the layer has a bias."""
    if f.b_shape is None:
        return gx, gw
    gb = gyc.sum(axis=(1, 2, 3)).reshape(f.b_shape) if f.needs_input_grad[2] else None
    return gx, gw, gb


def _call(f: Function, x, weight, bias):
    return f(x, weight) if bias is None else f(x, weight, bias)


def convolution(
    x,
    weight,
    bias=None,
    base_axis: int = 1,
    pad=None,
    stride=None,
    dilation=None,
    group: int = 1,
    channel_last: bool = False,
) -> Variable:
    """N-D convolution (nnabla ``F.convolution``); weight (outmaps, inmaps/group, *kernel)."""
    f = Convolution("convolution", base_axis, pad, stride, dilation, group, channel_last)
    return _call(f, x, weight, bias)


def depthwise_convolution(
    x,
    weight,
    bias=None,
    base_axis: int = 1,
    pad=None,
    stride=None,
    dilation=None,
    multiplier: int = 1,
) -> Variable:
    """Depthwise convolution (nnabla ``F.depthwise_convolution``), weight (C*mult, *kernel)."""
    f = Convolution("depthwise_convolution", base_axis, pad, stride, dilation, 1, False, multiplier)
    return _call(f, x, weight, bias)


def deconvolution(
    x,
    weight,
    bias=None,
    base_axis: int = 1,
    pad=None,
    stride=None,
    dilation=None,
    group: int = 1,
    channel_last: bool = False,
    output_padding=None,
) -> Variable:
    """Transposed convolution (nnabla ``F.deconvolution``), weight (inmaps, outmaps/group, *k)."""
    f = Deconvolution(
        "deconvolution", base_axis, pad, stride, dilation, group, channel_last, output_padding
    )
    return _call(f, x, weight, bias)


def depthwise_deconvolution(
    x, weight, bias=None, base_axis: int = 1, pad=None, stride=None, dilation=None, divisor: int = 1
) -> Variable:
    """Depthwise transposed convolution (nnabla ``F.depthwise_deconvolution``), weight (C, *k)."""
    f = Deconvolution(
        "depthwise_deconvolution", base_axis, pad, stride, dilation, 1, False, None, divisor
    )
    return _call(f, x, weight, bias)


# ---------------------------------------------------------------------------------------- Embed
class Embed(Function):
    """``y = w[x0]``; the gradient goes to ``w`` only (indices are not differentiable)."""

    def forward(self, x0, w):
        xp = get_array_module(w)
        x0 = as_indices(x0, "embed", "x0")
        bad = (x0 < 0) | (x0 >= w.shape[0])
        backend.check_later(  # NumPy would wrap negative indices around silently
            bad.any(),
            lambda: ValueError(
                f"embed: x0 holds indices outside [0, {w.shape[0]}) (the weight's first axis). "
                f"Received: x0={x0[bad][:5].tolist()}"
            ),
        )
        self.x0, self.w_shape = x0, w.shape
        return xp.take(w, xp.clip(x0, 0, w.shape[0] - 1), axis=0)

    def backward(self, gy):
        if not self.needs_input_grad[1]:
            return None, None
        xp = get_array_module(gy)
        gw = xp.zeros(self.w_shape, dtype=gy.dtype)
        scatter_add(gw, self.x0.reshape(-1), gy.reshape((-1,) + self.w_shape[1:]))
        return None, gw


def embed(x0, w) -> Variable:
    """Look-up table (nnabla ``F.embed``): ``x0`` indexes the first axis of ``w`` (floats are
    truncated to integers, as nnabla casts them)."""
    return Embed()(x0, w)


# ------------------------------------------------------------ rare convolutions (_special_conv)
def deformable_convolution(
    x,
    weight,
    offset,
    mask=None,
    bias=None,
    base_axis: int = 1,
    pad=None,
    stride=None,
    dilation=None,
    group: int = 1,
    deformable_group: int = 1,
    channel_last: bool = False,
) -> Variable:
    """2-D modulated deformable convolution (nnabla ``F.deformable_convolution``, DCNv2).

    ``offset`` is (N, deformable_group*2*kh*kw, H, W) with (dy, dx) pairs per kernel cell and
    ``mask`` (N, deformable_group*kh*kw, H, W), both read at ``output position * stride`` as in
    nnabla; maps of the output's size are accepted too.
    """
    f = DeformableConvolution(
        base_axis,
        pad,
        stride,
        dilation,
        group,
        deformable_group,
        channel_last,
        mask is not None,
        bias is not None,
    )
    args = [x, weight, offset] + [a for a in (mask, bias) if a is not None]
    return f(*args)


def adaptive_separable_convolution(x, kernel_v, kernel_h) -> Variable:
    """Per-pixel separable filtering (nnabla ``F.adaptive_separable_convolution``)."""
    return AdaptiveSeparableConvolution()(x, kernel_v, kernel_h)

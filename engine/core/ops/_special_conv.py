"""The two rare convolutions of NNC's Basic category, kept apart from the fast im2col path:
DeformableConvolution (modulated, DCNv2) and AdaptiveSeparableConvolution. Public functions are
in :mod:`engine.core.ops.basic`.

Both follow nnabla's CPU kernels (``deformable-im2col-internal.cpp``,
``adaptive_separable_convolution.cpp``): bilinear sampling with zeros outside the image, the
offset and mask maps indexed at ``output position * stride`` of an input-sized map.
"""

from __future__ import annotations

from engine.core.autograd import Function
from engine.core.backend import get_array_module, matmul, scatter_add
from engine.core.ops._im2col import as_int_tuple, conv_out_size


def _bilinear_corners(xp, py, px, height: int, width: int):
    """For sample positions (py, px): per corner (flat index, weight, d weight/dpy, d weight/dpx).

    As nnabla, a sample outside (-1, H) x (-1, W) reads 0 and corners outside the image count 0.
    """
    inside = (py > -1) & (px > -1) & (py < height) & (px < width)
    y0 = xp.floor(py)
    x0 = xp.floor(px)
    ly, lx = py - y0, px - x0
    hy, hx = 1 - ly, 1 - lx
    one = py.dtype.type(1)
    corners = []
    for dy, dx, wgt, gy_, gx_ in (
        (0, 0, hy * hx, -hx, -hy),
        (0, 1, hy * lx, -lx, hy),
        (1, 0, ly * hx, hx, -ly),
        (1, 1, ly * lx, lx, ly),
    ):
        yc, xc = y0 + dy, x0 + dx
        valid = inside & (yc >= 0) & (yc <= height - 1) & (xc >= 0) & (xc <= width - 1)
        idx = (xp.clip(yc, 0, height - 1) * width + xp.clip(xc, 0, width - 1)).astype(xp.int64)
        v = valid * one
        corners.append((idx, wgt * v, gy_ * v, gx_ * v))
    return corners


class DeformableConvolution(Function):
    """2-D modulated deformable convolution; inputs (x, w, offset[, mask][, b])."""

    def __init__(
        self,
        base_axis,
        pad,
        stride,
        dilation,
        group: int,
        deformable_group: int,
        channel_last: bool,
        has_mask: bool,
        has_bias: bool,
    ) -> None:
        self.base_axis, self.group, self.dg = base_axis, group, deformable_group
        self.args = (pad, stride, dilation)
        self.channel_last, self.has_mask, self.has_bias = channel_last, has_mask, has_bias

    def _canon(self, a, channels_last_axis: bool):
        xp = get_array_module(a)
        if self.channel_last and channels_last_axis:
            a = xp.moveaxis(a, -1, -3)
        return a.reshape((-1,) + a.shape[-3:])

    def forward(self, x, w, offset, *rest):
        xp = get_array_module(x)
        fn = "deformable_convolution"
        mask = rest[0] if self.has_mask else None
        b = rest[-1] if self.has_bias else None
        if w.ndim != 4 or x.ndim < 3:
            raise ValueError(
                f"{fn}: only 2-D kernels are supported (weight (O, C/group, kh, kw)). "
                f"Received: x.shape={x.shape}, weight.shape={w.shape}"
            )
        self.user_shapes = (x.shape, w.shape, offset.shape, None if mask is None else mask.shape)
        x4 = self._canon(x, True)
        w4 = xp.moveaxis(w, -1, 1) if self.channel_last else w
        off4 = self._canon(offset, True)
        m4 = None if mask is None else self._canon(mask, True)
        n, c, height, width = x4.shape
        maps, cg, kh, kw = w4.shape
        g, dg, k = self.group, self.dg, kh * kw
        pad = as_int_tuple(self.args[0], 2, 0, fn, "pad")
        stride = as_int_tuple(self.args[1], 2, 1, fn, "stride")
        dil = as_int_tuple(self.args[2], 2, 1, fn, "dilation")
        ho = conv_out_size(height, kh, pad[0], stride[0], dil[0])
        wo = conv_out_size(width, kw, pad[1], stride[1], dil[1])
        if c != cg * g or maps % g or c % dg or min(ho, wo) < 1:
            raise ValueError(
                f"{fn}: x has {c} channels; group={g} and deformable_group={dg} must divide them, "
                f"weight must be (outmaps, channels/group, kh, kw) and the output non-empty. "
                f"Received: x.shape={x.shape}, weight.shape={w.shape}"
            )
        # Offsets/mask: nnabla's maps have the input's size and are read at out * stride; maps of
        # the output's size (NNC's documented shape) are read directly.
        self.sample = (
            slice(None),
            slice(None),
            slice(0, ho * stride[0], stride[0]),
            slice(0, wo * stride[1], stride[1]),
        )
        for name, a, ch in (("offset", off4, dg * 2 * k), ("mask", m4, dg * k)):
            if a is None:
                continue
            at_input = (
                a.shape[2:] == (height, width)
                and (ho - 1) * stride[0] < height
                and (wo - 1) * stride[1] < width
            )
            if a.shape[0] != n or a.shape[1] != ch or not (at_input or a.shape[2:] == (ho, wo)):
                raise ValueError(
                    f"{fn}: {name} must be (N, {ch}, H, W) with the input's H, W (read at output "
                    f"position * stride, which must stay inside) or the output's ({ho}, {wo}). "
                    f"Received: {name}.shape={a.shape}, x.shape={x.shape}"
                )
        self.out = (ho, wo)
        off = self._sampled(off4, height, width).reshape(n, dg, k, 2, ho * wo)
        ki, kj = xp.divmod(xp.arange(k), kw)
        base_y = (xp.arange(ho) * stride[0] - pad[0])[:, None] + xp.zeros(wo, dtype=xp.int64)[
            None, :
        ]
        base_x = (xp.arange(wo) * stride[1] - pad[1])[None, :] + xp.zeros(ho, dtype=xp.int64)[
            :, None
        ]
        py = (ki[:, None] * dil[0] + base_y.reshape(1, -1)).astype(x.dtype) + off[:, :, :, 0]
        px = (kj[:, None] * dil[1] + base_x.reshape(1, -1)).astype(x.dtype) + off[:, :, :, 1]
        corners = _bilinear_corners(xp, py, px, height, width)  # each (n, dg, k, P)
        xg = x4.reshape(n, dg, c // dg, height * width)
        values = [xp.take_along_axis(xg, idx.reshape(n, dg, 1, -1), axis=3) for idx, *_ in corners]
        val = sum(
            v * wt.reshape(n, dg, 1, -1) for v, (_, wt, _, _) in zip(values, corners, strict=True)
        )
        val = val.reshape(n, dg, c // dg, k, ho * wo)
        mk = None
        if m4 is not None:
            mk = self._sampled(m4, height, width).reshape(n, dg, 1, k, ho * wo)
        col = (val if mk is None else val * mk).reshape(n, g, cg * k, ho * wo)
        wmat = w4.reshape(g, maps // g, cg * k)
        y = matmul(wmat, col).reshape(n, maps, ho, wo)
        if b is not None:
            y = y + b.reshape(1, maps, 1, 1)
        self.saved = (
            x4.shape,
            w4,
            off4.shape,
            None if m4 is None else m4.shape,
            col,
            val,
            mk,
            corners,
            values,
        )
        y = y.reshape(x.shape[: x.ndim - 3] + y.shape[1:])
        return xp.moveaxis(y, -3, -1) if self.channel_last else y

    def _sampled(self, a, height: int, width: int):
        return a[self.sample] if a.shape[2:] == (height, width) and a.shape[2:] != self.out else a

    def _place(self, xp, small, shape, height: int, width: int):
        """The gradient of a sampled offset/mask map, in the map's own shape."""
        if shape[2:] != (height, width) or shape[2:] == self.out:
            return small.reshape(shape)
        full = xp.zeros(shape, dtype=small.dtype)
        full[self.sample] = small.reshape(shape[:2] + full[self.sample].shape[2:])
        return full

    def _to_user(self, xp, a, shape):
        if self.channel_last:
            a = xp.moveaxis(a, -3, -1)
        return a.reshape(shape)

    def backward(self, gy):
        xp = get_array_module(gy)
        need = self.needs_input_grad
        x_shape, w4, off_shape, m_shape, col, val, mk, corners, values = self.saved
        n, c, height, width = x_shape
        maps, cg, kh, kw = w4.shape
        g, dg, k = self.group, self.dg, kh * kw
        if self.channel_last:
            gy = xp.moveaxis(gy, -1, -3)
        g4 = gy.reshape(n, g, maps // g, -1)
        p = g4.shape[-1]
        wmat = w4.reshape(g, maps // g, cg * k)
        grads = [None] * len(self.inputs)
        if need[1]:
            gw = matmul(g4, col.swapaxes(-1, -2)).sum(axis=0).reshape(w4.shape)
            grads[1] = xp.moveaxis(gw, 1, -1) if self.channel_last else gw
        if self.has_bias and need[-1]:
            grads[-1] = g4.sum(axis=(0, 3)).reshape(maps)
        if not (need[0] or need[2] or (self.has_mask and need[3])):
            return tuple(grads)
        gcol = matmul(wmat.swapaxes(-1, -2), g4).reshape(n, dg, c // dg, k, p)
        if self.has_mask and need[3]:
            gm = (gcol * val).sum(axis=2)
            grads[3] = self._to_user(
                xp, self._place(xp, gm, m_shape, height, width), self.user_shapes[3]
            )
        gval = (gcol if mk is None else gcol * mk).reshape(n, dg, c // dg, k * p)
        if need[0]:
            gx = xp.zeros(n * c * height * width, dtype=gy.dtype)
            base = (xp.arange(n * dg * (c // dg)) * (height * width)).reshape(n, dg, c // dg, 1)
            for idx, wt, _, _ in corners:
                flat = base + idx.reshape(n, dg, 1, -1)
                contrib = gval * wt.reshape(n, dg, 1, -1)
                scatter_add(gx, flat.reshape(-1), contrib.reshape(-1))
            grads[0] = self._to_user(xp, gx.reshape(x_shape), self.user_shapes[0])
        if need[2]:
            d_py = sum(
                v * gyw.reshape(n, dg, 1, -1)
                for v, (_, _, gyw, _) in zip(values, corners, strict=True)
            )
            d_px = sum(
                v * gxw.reshape(n, dg, 1, -1)
                for v, (_, _, _, gxw) in zip(values, corners, strict=True)
            )
            g_off = xp.stack([(gval * d_py).sum(axis=2), (gval * d_px).sum(axis=2)], axis=2)
            g_off = g_off.reshape(n, dg, 2, k, p).swapaxes(2, 3)  # (n, dg, k, 2, P): nnabla's order
            grads[2] = self._to_user(
                xp, self._place(xp, g_off, off_shape, height, width), self.user_shapes[2]
            )
        return tuple(grads)


class AdaptiveSeparableConvolution(Function):
    """``y[b,c,h,w] = sum_{j,i} kv[b,j,h,w] kh[b,i,h,w] x[b,c,h+j,w+i]`` (nnabla)."""

    def forward(self, x, kv, kh):
        xp = get_array_module(x)
        if x.ndim != 4 or kv.ndim != 4 or kh.ndim != 4:
            raise ValueError(
                "adaptive_separable_convolution: x, kernel_v and kernel_h must be 4-D. Received: "
                f"x.shape={x.shape}, kernel_v.shape={kv.shape}, kernel_h.shape={kh.shape}"
            )
        nv, nh = kv.shape[1], kh.shape[1]
        oh, ow = x.shape[2] - nv + 1, x.shape[3] - nh + 1
        if (
            min(oh, ow) < 1
            or kv.shape[2] < oh
            or kv.shape[3] < ow
            or kh.shape[2] < oh
            or kh.shape[3] < ow
        ):
            raise ValueError(
                "adaptive_separable_convolution: the filters must cover the output "
                f"(H - Kv + 1, W - Kh + 1). Received: x.shape={x.shape}, "
                f"kernel_v.shape={kv.shape}, kernel_h.shape={kh.shape}"
            )
        kv_, kh_ = kv[:, :, :oh, :ow], kh[:, :, :oh, :ow]
        y = xp.zeros(x.shape[:2] + (oh, ow), dtype=x.dtype)
        for j in range(nv):
            for i in range(nh):
                y += x[:, :, j : j + oh, i : i + ow] * (kv_[:, j] * kh_[:, i])[:, None]
        self.x, self.kv, self.kh, self.shapes = x, kv_, kh_, (kv.shape, kh.shape)
        return y

    def backward(self, gy):
        xp = get_array_module(gy)
        x, kv, kh = self.x, self.kv, self.kh
        nv, nh = kv.shape[1], kh.shape[1]
        oh, ow = gy.shape[2:]
        need = self.needs_input_grad
        gx = xp.zeros_like(x) if need[0] else None
        gkv = xp.zeros(self.shapes[0], dtype=gy.dtype) if need[1] else None
        gkh = xp.zeros(self.shapes[1], dtype=gy.dtype) if need[2] else None
        for j in range(nv):
            for i in range(nh):
                window = (slice(None), slice(None), slice(j, j + oh), slice(i, i + ow))
                if need[0]:
                    gx[window] += gy * (kv[:, j] * kh[:, i])[:, None]
                if need[1] or need[2]:
                    s = (gy * x[window]).sum(axis=1)  # (B, oh, ow)
                    if need[1]:
                        gkv[:, j, :oh, :ow] += s * kh[:, i]
                    if need[2]:
                        gkh[:, i, :oh, :ow] += s * kv[:, j]
        return gx, gkv, gkh

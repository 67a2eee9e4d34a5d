"""The operands of a convolution in canonical form: batch axes folded into one, channels first
(``(N, C, *spatial)``), and its hyper-parameters checked; shared by Convolution and
Deconvolution (:mod:`engine.core.ops.basic`)."""

from __future__ import annotations

from engine.core.backend import get_array_module
from engine.core.ops._im2col import as_int_tuple, prod


class ConvGeometry:
    """Canonical NC* views of a convolution's operands and its hyper-parameters."""

    def __init__(
        self,
        fn: str,
        x,
        w,
        base_axis: int,
        pad,
        stride,
        dilation,
        group: int,
        channel_last: bool,
        w_layout: str,
    ) -> None:
        # w_layout: "conv" (O, C/G, *k), "depthwise" (C*m, *k), "deconv" (C, O/G, *k),
        # "depthwise_deconv" (C, *k).
        per_channel = w_layout.startswith("depthwise")
        nk = w.ndim - (1 if per_channel else 2)
        if nk < 1:
            raise ValueError(
                f"{fn}: weight has {w.ndim} dims, too few. Received: weight.shape={w.shape}"
            )
        if base_axis < 0:
            base_axis += x.ndim
        if x.ndim != base_axis + 1 + nk:
            raise ValueError(
                f"{fn}: x needs {base_axis} batch axes, 1 channel axis and {nk} spatial axes "
                f"(base_axis={base_axis}, weight.shape={w.shape}). Received: x.shape={x.shape}"
            )
        if channel_last:
            xp = get_array_module(x)
            x = xp.moveaxis(x, -1, base_axis)
            if not per_channel:
                w = xp.moveaxis(w, -1, 1)
        self.batch = x.shape[:base_axis]
        x = x.reshape((prod(self.batch),) + x.shape[base_axis:])
        self.fn, self.nk, self.channel_last = fn, nk, channel_last
        self.pad = as_int_tuple(pad, nk, 0, fn, "pad")
        self.stride = as_int_tuple(stride, nk, 1, fn, "stride")
        self.dilation = as_int_tuple(dilation, nk, 1, fn, "dilation")
        self.kernel = tuple(w.shape[-nk:])
        self.x, self.w, self.group = x, w, group
        if min(self.stride) < 1 or min(self.dilation) < 1 or min(self.pad) < 0:
            raise ValueError(
                f"{fn}: stride and dilation must be >= 1 and pad >= 0. Received: "
                f"pad={self.pad}, stride={self.stride}, dilation={self.dilation}"
            )

    def to_user(self, y):
        """(N, C, *sp) -> the caller's layout (batch axes, channel_last)."""
        y = y.reshape(self.batch + y.shape[1:])
        if self.channel_last:
            y = get_array_module(y).moveaxis(y, len(self.batch), -1)
        return y

    def from_user(self, g):
        """The inverse of :meth:`to_user`."""
        if self.channel_last:
            g = get_array_module(g).moveaxis(g, -1, len(self.batch))
        return g.reshape((prod(self.batch),) + g.shape[len(self.batch) :])

    def user_weight(self, gw, keep_layout: bool, shape):
        """A weight gradient in this geometry's (O, C/G, *k) layout -> the caller's ``shape``
        (channels moved last for a channel-last layer unless ``keep_layout``)."""
        gw = gw.reshape(self.w.shape)
        if self.channel_last and not keep_layout:
            gw = get_array_module(gw).moveaxis(gw, 1, -1)
        return gw.reshape(shape)

    def check_groups(self, c_in: int, c_w: int, maps: int, what: str) -> None:
        g = self.group
        if g < 1 or c_in != c_w * g or maps % g:
            raise ValueError(
                f"{self.fn}: x has {c_in} channels; with group={g} the weight must hold "
                f"{what}. Received: x.shape={tuple(self.x.shape)}, "
                f"weight.shape={tuple(self.w.shape)}"
            )

"""The ResNet- and MobileNet-style networks of issue 14, written once against a tiny op interface
and built twice: with NeuroCanvas (``engine.nn``) and with PyTorch (``torch.nn.functional`` on
tensors copied from NeuroCanvas's parameters), so both frameworks run the same graph on the same
weights.

ResNet-style: conv 3x3 16 + BN + ReLU stem; three residual blocks of 32/64/128 maps, each
conv 3x3 stride 2 + BN + ReLU, conv 3x3 + BN, a 1x1 stride-2 projection shortcut + BN, add, ReLU;
global average pooling; affine 10.

ResNet-style, wide (issue 33's heavier network): a conv 3x3 32 + BN + ReLU stem and the first
block at full resolution (32 maps, stride 1, identity shortcut), then blocks of 64/128 maps as
above.

MobileNet-style: the same stem; per stage (32/64/128 maps) a depthwise 3x3 stride 2
(group = channels) + BN + ReLU, a pointwise 1x1 + BN + ReLU, then a depthwise 3x3 stride 1 +
BN + ReLU and a pointwise 1x1 + BN + ReLU; global average pooling; affine 10.
Convolutions followed by BN have no bias (as usual and in both frameworks).
"""

from __future__ import annotations

import numpy as np

import engine.nn as nn
import engine.nn.functions as F
import engine.nn.parametric as PF
import engine.nn.solvers as S
from engine.core import backend


class OursOps:
    """The network's operations in NeuroCanvas (parameters created under their names)."""

    def conv(self, x, name, maps, k, stride=1, depthwise=False):
        pad, stride = (k // 2, k // 2), (stride, stride)
        with nn.parameter_scope(name):
            if depthwise:
                return PF.depthwise_convolution(x, (k, k), pad, stride, with_bias=False)
            return PF.convolution(x, maps, (k, k), pad, stride, with_bias=False)

    def bn(self, x, name):
        with nn.parameter_scope(name):
            return PF.batch_normalization(x)

    relu = staticmethod(F.relu)

    def add(self, a, b):
        return a + b

    def head(self, x, name, n_out):
        h = F.global_average_pooling(x)
        with nn.parameter_scope(name):
            return PF.affine(h, n_out)


class TorchOps:
    """The same operations in PyTorch on tensors holding a copy of NeuroCanvas's parameters."""

    def __init__(self, torch, params: dict, buffers: dict, device: str = "cpu") -> None:
        self.torch, self.f = torch, torch.nn.functional

        def tensor(v):
            return torch.from_numpy(backend.to_numpy(v.d).copy()).to(device)

        self.p = {k: torch.nn.Parameter(tensor(v)) for k, v in params.items()}
        self.b = {k: tensor(v).reshape(-1) for k, v in buffers.items()}

    def conv(self, x, name, maps, k, stride=1, depthwise=False):
        w = self.p[f"{name}/depthwise_conv/W" if depthwise else f"{name}/conv/W"]
        if depthwise:  # ours (C, kh, kw); torch (C, 1, kh, kw) with groups = C
            return self.f.conv2d(x, w.unsqueeze(1), None, stride, k // 2, 1, w.shape[0])
        return self.f.conv2d(x, w, None, stride, k // 2)

    def bn(self, x, name):
        g, b = self.p[f"{name}/bn/gamma"], self.p[f"{name}/bn/beta"]
        rm, rv = self.b[f"{name}/bn/mean"], self.b[f"{name}/bn/var"]
        return self.f.batch_norm(x, rm, rv, g.view(-1), b.view(-1), True, 0.1, 1e-5)

    def relu(self, x):
        return self.f.relu(x)

    def add(self, a, b):
        return a + b

    def head(self, x, name, n_out):
        h = x.mean(dim=(2, 3))
        # ours: W (inputs, outputs); torch linear wants (outputs, inputs)
        return self.f.linear(h, self.p[f"{name}/affine/W"].t(), self.p[f"{name}/affine/b"])


def resnet(ops, x):
    h = ops.relu(ops.bn(ops.conv(x, "stem", 16, 3), "stem_bn"))
    for i, maps in enumerate((32, 64, 128)):
        r = ops.relu(ops.bn(ops.conv(h, f"b{i}c1", maps, 3, 2), f"b{i}n1"))
        r = ops.bn(ops.conv(r, f"b{i}c2", maps, 3), f"b{i}n2")
        s = ops.bn(ops.conv(h, f"b{i}sc", maps, 1, 2), f"b{i}ns")
        h = ops.relu(ops.add(r, s))
    return ops.head(h, "fc", 10)


def resnet_wide(ops, x):
    h = ops.relu(ops.bn(ops.conv(x, "stem", 32, 3), "stem_bn"))
    for i, (maps, stride) in enumerate(((32, 1), (64, 2), (128, 2))):
        r = ops.relu(ops.bn(ops.conv(h, f"b{i}c1", maps, 3, stride), f"b{i}n1"))
        r = ops.bn(ops.conv(r, f"b{i}c2", maps, 3), f"b{i}n2")
        s = h if stride == 1 else ops.bn(ops.conv(h, f"b{i}sc", maps, 1, stride), f"b{i}ns")
        h = ops.relu(ops.add(r, s))
    return ops.head(h, "fc", 10)


def mobilenet(ops, x):
    h = ops.relu(ops.bn(ops.conv(x, "stem", 16, 3), "stem_bn"))
    for i, maps in enumerate((32, 64, 128)):
        for j, stride in enumerate((2, 1)):
            name = f"s{i}_{j}"
            h = ops.relu(ops.bn(ops.conv(h, f"{name}dw", 0, 3, stride, True), f"{name}dn"))
            h = ops.relu(ops.bn(ops.conv(h, f"{name}pw", maps, 1), f"{name}pn"))
    return ops.head(h, "fc", 10)


def ours_and_torch(net, torch, x_np, t_np, ours_step_fn, torch_step_fn, device="cpu"):
    """``(ours_step, torch_step)``: one training step (forward, backward, Adam) of ``net`` in
    each framework (made by the step helpers of bench_train_step), from the same initial weights
    and running statistics."""
    ours, params = ours_step_fn(lambda x: net(OursOps(), x), x_np, t_np)
    if torch is None:
        return ours, None
    with nn.parameter_scope("bench"):
        every = nn.get_parameters(grad_only=False)
    buffers = {k: v for k, v in every.items() if k not in params}
    module = _TorchNet(net, TorchOps(torch, params, buffers, device))
    return ours, torch_step_fn(torch, module, x_np, t_np)


class _TorchNet:
    """Just enough of ``torch.nn.Module`` for the step helper: call and ``parameters()``."""

    def __init__(self, net, ops) -> None:
        self.net, self.ops = net, ops

    def __call__(self, x):
        return self.net(self.ops, x)

    def parameters(self):
        return list(self.ops.p.values())


def batch(in_shape, n, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, *in_shape)).astype(np.float32)
    return x, rng.integers(0, 10, (n, 1))


def adam_steps(net, steps=3, shape=(3, 8, 8), n=16) -> dict[str, bytes]:
    """``steps`` Adam steps of ``net`` on a fixed batch from seed 0: every parameter's bytes
    (running statistics too) and the last loss's, by name (the tests compare runs)."""
    nn.clear_parameters()
    nn.seed(0)
    x_np, t_np = batch(shape, n, seed=1)
    x, t = nn.Variable(x_np), nn.Variable(t_np)
    with nn.parameter_scope("net"):
        net(OursOps(), x)
        params = nn.get_parameters()
    solver = S.Adam(alpha=0.01)
    solver.set_parameters(params)
    for _ in range(steps):
        with nn.parameter_scope("net"):
            y = net(OursOps(), x)
        loss = F.mean(F.softmax_cross_entropy(y, t))
        solver.zero_grad()
        loss.backward(clear_buffer=True)
        solver.update()
    with nn.parameter_scope("net"):
        every = nn.get_parameters(grad_only=False)
    result = {name: np.asarray(v.d).tobytes() for name, v in every.items()}
    result["loss"] = np.asarray(loss.d).tobytes()
    nn.clear_parameters()
    return result

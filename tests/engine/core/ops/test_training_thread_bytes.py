"""A few training steps at one and at two threads end in the same parameters, byte for byte.

The threaded kernels (direct convolution, batch normalization, ReLU, padding) give every row,
map and channel to one thread, summed in one order; here they are made to split however small
the work (the real thresholds keep these tiny layers on one thread). The matrix products go
through :mod:`engine.core.products`, which cuts a long contraction where OpenBLAS's one-thread
and threaded drivers would sum it in different orders: the 784-input network below (the
batch normalization and dropout sample's first layer) differed between counts before it. The
32x32 ResNet-style network runs at the benchmark's size with the real thresholds."""

import sys
from pathlib import Path

import pytest

import engine.nn as nn
import engine.nn.functions as F
import engine.nn.parametric as PF

pytest.importorskip("numba", reason="the threaded kernels are numba's")

from engine.core.ops import _direct_conv, _threads  # noqa: E402 - after the skip

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "benchmarks"))
import _cnn_nets  # noqa: E402 - the benchmark's networks

LANES = _direct_conv._compile()["lanes"]


def _train(net, threads: int, steps: int = 3, shape=(3, 8, 8), batch=LANES) -> dict[str, bytes]:
    _threads.set_count(threads)
    return _cnn_nets.adam_steps(net, steps, shape, batch)


@pytest.mark.parametrize(
    "net", [_cnn_nets.resnet, _cnn_nets.mobilenet], ids=["resnet", "mobilenet"]
)
def test_training_steps_give_the_same_bytes_on_one_and_two_threads(monkeypatch, net):
    before = _threads.count()
    monkeypatch.setattr(_threads, "MIN_ELEMENTS_PER_THREAD", 1)
    monkeypatch.setattr(_threads, "MIN_MAPS_PER_THREAD", 1)
    submitted = []
    pool = _threads._pool
    monkeypatch.setattr(_threads, "_pool", lambda n: submitted.append(n) or pool(n))
    try:
        one = _train(net, 1)
        assert submitted == []  # one thread: nothing handed to the pool
        two = _train(net, 2)
    finally:
        _threads.set_count(before)
    assert submitted  # two threads: the kernels were split
    assert one.keys() == two.keys() and len(one) > 10
    differ = [name for name in one if one[name] != two[name]]
    assert differ == []


def _digits_mlp(ops, x):
    """The batch normalization and dropout sample's shape: 784 inputs, a 256-unit affine
    layer (K = 784 > OpenBLAS's 448 on AVX-512), batch normalization, ReLU, dropout."""
    with nn.parameter_scope("fc1"):
        h = PF.affine(x, 256)
    h = F.dropout(F.relu(ops.bn(h, "bn1")), p=0.5)
    with nn.parameter_scope("fc2"):
        return PF.affine(h, 10)


@pytest.mark.parametrize(
    ("net", "shape", "batch"),
    [(_digits_mlp, (1, 28, 28), 64), (_cnn_nets.resnet, (3, 32, 32), 32)],
    ids=["784-input-mlp", "resnet-32x32"],
)
def test_long_products_give_the_same_bytes_on_one_and_two_threads(net, shape, batch):
    before = _threads.count()
    try:
        one = _train(net, 1, shape=shape, batch=batch)
        two = _train(net, 2, shape=shape, batch=batch)
    finally:
        _threads.set_count(before)
    assert one.keys() == two.keys() and len(one) > 5
    assert [name for name in one if one[name] != two[name]] == []

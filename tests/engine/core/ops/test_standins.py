"""The NumPy stand-ins a fresh machine's first run uses while a second process compiles the
data-movement kernels (engine/core/ops/_standins.py) write the compiled kernels' bytes: NaN
(with payloads and both signs), inf, -inf and -0.0, odd shapes, both layouts the callers pass,
a thread's share of the rows."""

from __future__ import annotations

import numpy as np
import pytest

import engine.nn as nn
import engine.nn.functions as F
import engine.nn.parametric as PF
import engine.nn.solvers as S
from engine.core.ops import _direct_conv, _elementwise_cpu, _jit, _pooling_cpu, _standins

pytest.importorskip("numba", reason="numba not installed")

SPECIAL = np.array(
    [np.nan, -np.nan, np.inf, -np.inf, -0.0, 0.0, 1.5, -2.5, 3e38, -1e-45], dtype=np.float32
)
PAYLOADS = np.array([0x7FC01234, 0xFFC00042, 0x7F800001], dtype=np.uint32).view(np.float32)


def _values(shape, seed: int, dtype=np.float32) -> np.ndarray:
    """Random values with every special float sprinkled in (a third of the entries)."""
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(shape).astype(dtype)
    flat = a.reshape(-1)
    with np.errstate(invalid="ignore"):  # a signalling NaN made float64
        special = np.concatenate([SPECIAL, PAYLOADS]).astype(dtype)
    picks = rng.random(flat.size) < 0.33
    flat[picks] = rng.choice(special, picks.sum())
    return a


def _same(a: np.ndarray, b: np.ndarray) -> None:
    assert a.dtype == b.dtype and a.shape == b.shape
    assert a.tobytes() == b.tobytes(), np.flatnonzero(a.view(np.uint8) != b.view(np.uint8))[:8]


def _kernels(module) -> dict:
    kernels = module._compile()
    assert kernels is not None
    return kernels


@pytest.mark.parametrize("layout", ["A", "C"])
@pytest.mark.parametrize(
    "shape, top, left, bottom, right",
    [((3, 5, 7, 16), 1, 1, 1, 1), ((2, 1, 1, 3), 2, 0, 0, 3), ((5, 4, 3, 2), 0, 2, 3, 0)],
)
def test_pad_stand_in_writes_the_kernels_bytes(layout, shape, top, left, bottom, right):
    x = _values(shape, 1)
    if layout == "A":  # the input image as the first convolution passes it: an NCHW view
        x = np.ascontiguousarray(x.transpose(3, 0, 1, 2)).transpose(1, 2, 3, 0)
        assert not x.flags.c_contiguous
    c, h, w, n = shape
    out_shape = (c, top + h + bottom, left + w + right, n)
    kernel = _kernels(_direct_conv)["pad"]
    for lo, hi in ((0, c), (c // 2, c)):  # all channels, a thread's share
        want, got = np.full(out_shape, 7.0, np.float32), np.full(out_shape, 7.0, np.float32)
        kernel(x, want, top, left, lo, hi)
        _standins.pad(x, got, top, left, lo, hi)
        _same(got, want)


@pytest.mark.parametrize("o_n, k_n, mstride", [(1, 1, 1), (6, 9, 9), (9, 25, 30), (4, 7, 3)])
def test_pack_stand_in_writes_the_kernels_bytes(o_n, k_n, mstride):
    rng = np.random.default_rng(o_n)
    wm = _values(o_n * mstride + 40, o_n)
    wtaps = rng.integers(0, 40, k_n).astype(np.int64)
    wtaps.flags.writeable = False
    size = -(-o_n // 4) * 4 * k_n
    want, got = np.full(size, 5.0, np.float32), np.full(size, 5.0, np.float32)
    _kernels(_direct_conv)["pack"](wm, wtaps, mstride, o_n, want)
    _standins.pack(wm, wtaps, mstride, o_n, got)
    _same(got, want)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("size, lo, hi", [(1, 0, 1), (1001, 0, 1001), (1001, 16, 515)])
def test_relu_stand_ins_write_the_kernels_bytes(dtype, size, lo, hi):
    x, g = _values(size, 2, dtype), _values(size, 3, dtype)
    kernels = _kernels(_elementwise_cpu)
    want, got = np.full(size, 9.0, dtype), np.full(size, 9.0, dtype)
    kernels["relu"](x, want, lo, hi)
    _standins.relu(x, got, lo, hi)
    _same(got, want)
    kernels["relu_grad"](x, g, want, lo, hi)
    _standins.relu_grad(x, g, got, lo, hi)
    _same(got, want)


GEOMETRIES = [  # kernel, stride, pad, output size (partial windows included)
    ((2, 2), (2, 2), (0, 0), (3, 4)),  # LeNet's; 7 x 9 input: the last row and column dropped
    ((2, 2), (2, 2), (1, 1), (4, 5)),  # padding on every side
    ((3, 3), (3, 3), (1, 0), (3, 3)),  # partial windows at the end
    ((3, 3), (2, 2), (1, 1), (4, 5)),  # overlapping windows (forward only)
    ((1, 3), (1, 3), (0, 1), (7, 3)),
]


@pytest.mark.parametrize("kernel, stride, pad, out", GEOMETRIES)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_max_pooling_stand_ins_write_the_kernels_bytes(kernel, stride, pad, out, dtype):
    x = _values((3, 7, 9, 5), 4, dtype)
    x[0, :4, :4] = -np.inf  # windows of -inf only (inside and beside the padding)
    x[1, :2, :2] = np.nan  # windows of NaN only
    geometry = (*kernel, *stride, *pad)
    kernels = _kernels(_pooling_cpu)
    y_shape = (3, *out, 5)
    want = (np.full(y_shape, 3.0, dtype), np.full(y_shape, 3, np.int32))
    got = (np.full(y_shape, 3.0, dtype), np.full(y_shape, 3, np.int32))
    kernels["forward"](x, *geometry, *want)
    _standins.pool_forward(x, *geometry, *got)
    _same(got[0], want[0])
    _same(got[1], want[1])
    assert (want[1] == _pooling_cpu.NO_CELL).any() and (want[1] == 0).any()
    if not _standins.pool_backward_exact(*geometry[:4]):
        return
    gy = _values(y_shape, 5, dtype)
    gx_want, gx_got = np.zeros(x.shape, dtype), np.zeros(x.shape, dtype)
    kernels["backward"](gy, want[1], *geometry, gx_want)
    _standins.pool_backward(gy, got[1], *geometry, gx_got)
    _same(gx_got, gx_want)


def test_only_non_overlapping_windows_take_the_backward_stand_in():
    assert _standins.pool_backward_exact(2, 2, 2, 2) and _standins.pool_backward_exact(2, 3, 3, 3)
    assert not _standins.pool_backward_exact(3, 3, 2, 2)
    assert not _standins.pool_backward_exact(2, 2, 2, 1)


def test_a_pending_kernel_is_stood_in_for_until_the_other_process_has_compiled_it(monkeypatch):
    """The callers run the stand-in while a hook says the kernel is being compiled elsewhere,
    and the kernel once it no longer does; their outputs are the same."""
    kernel = _kernels(_elementwise_cpu)["relu"]
    seen, pending = [], [True]

    def hook(py_func):
        seen.append(py_func.__qualname__)
        return pending[0]

    monkeypatch.setattr(_jit, "PENDING", [hook])
    calls = []
    monkeypatch.setattr(_standins, "relu", lambda *a: calls.append(a) or kernel(*a))
    x = _values((4, 5), 6)
    first = _elementwise_cpu.relu(x)
    assert len(calls) == 1 and seen == ["_build.<locals>.relu"]
    pending[0] = False
    _same(_elementwise_cpu.relu(x), first)
    assert len(calls) == 1


def _steps(standing_in: bool, monkeypatch) -> dict[str, bytes]:
    """Three Adam steps of a small CNN (padded and strided convolutions, ReLU, max pooling
    with and without overlapping windows) on a fixed batch: every parameter's and Adam
    state's bytes, and the loss's; ``standing_in``: every data-movement kernel pending."""
    monkeypatch.setattr(_jit, "PENDING", [lambda py_func: True] if standing_in else [])
    nn.clear_parameters()
    nn.seed(0)
    rng = np.random.default_rng(1)
    x = nn.Variable(rng.standard_normal((32, 3, 11, 9)).astype(np.float32))
    t = nn.Variable(rng.integers(0, 5, (32, 1)))

    def net():
        h = F.relu(PF.convolution(x, 8, (3, 3), pad=(1, 1), name="c1"))
        h = F.max_pooling(h, (2, 2))
        h = F.relu(PF.convolution(h, 8, (3, 3), pad=(1, 1), stride=(2, 2), name="c2"))
        h = F.max_pooling(h, (3, 3), stride=(2, 2), ignore_border=False, pad=(1, 1))
        return PF.affine(h, 5, name="fc")

    net()
    solver = S.Adam(alpha=0.01)
    solver.set_parameters(nn.get_parameters())
    for _ in range(3):
        loss = F.mean(F.softmax_cross_entropy(net(), t))
        solver.zero_grad()
        loss.backward(clear_buffer=True)
        solver.update()
    found = {name: np.asarray(v.d).tobytes() for name, v in nn.get_parameters().items()}
    for name, state in solver.get_states().items():
        for key, value in state.pstate.items():
            found[f"{name}:{key}"] = np.asarray(getattr(value, "d", value)).tobytes()
    found["loss"] = np.asarray(loss.d).tobytes()
    nn.clear_parameters()
    return found


def test_training_steps_with_the_stand_ins_give_the_kernels_bytes(monkeypatch):
    """A CNN trained with every data-movement kernel stood in for (a fresh machine's first
    iterations) ends with the parameters, Adam state and loss of the compiled kernels."""
    calls = []
    real = _standins.pad
    monkeypatch.setattr(_standins, "pad", lambda *a: calls.append(1) or real(*a))
    compiled = _steps(False, monkeypatch)
    assert calls == []
    stood_in = _steps(True, monkeypatch)
    assert calls  # the stand-ins ran
    assert stood_in.keys() == compiled.keys() and len(compiled) > 8
    assert [name for name in compiled if compiled[name] != stood_in[name]] == []

"""engine.core.products: float32 matrix products that sum alike on one and two threads."""

import numpy as np
import pytest
import threadpoolctl

from engine.core import backend, products
from engine.core.ops import _threads

OPENBLAS = any(lib.get("internal_api") == "openblas" for lib in threadpoolctl.threadpool_info())
pytestmark = pytest.mark.skipif(not OPENBLAS, reason="NumPy here is not linked to OpenBLAS")


@pytest.fixture
def on_threads():
    """``on_threads(f)``: f() at one thread and at two, the count restored after."""
    before = _threads.count()

    def run(f):
        _threads.set_count(1)
        one = f()
        _threads.set_count(2)
        return one, f()

    yield run
    _threads.set_count(before)


def _operands(m, k, n, layout, rng):
    a = rng.standard_normal((m, k)).astype(np.float32)
    b = rng.standard_normal((k, n)).astype(np.float32)
    if layout == "a transposed":  # a view, as the weight gradient's x.T
        a = np.ascontiguousarray(a.T).T
    if layout == "b transposed":
        b = np.ascontiguousarray(b.T).T
    return a, b


def test_openblas_blocking_is_found():
    found = products.blocking()
    assert found is not None
    assert found.q % 8 == 0 and 64 <= found.q <= 2048
    assert found.unroll in (1, 2, 4, 8, 16, 32)


SHAPES = [(64, 256), (64, 1000), (128, 128), (32, 2048), (3, 1000), (1, 1000), (1000, 1), (1, 1)]
KS = [256, 449, 456, 500, 640, 784, 897, 1000, 1500, 2048, 8192]


@pytest.mark.parametrize("k", KS)
def test_products_are_the_same_bytes_on_one_and_two_threads(k, on_threads):
    rng = np.random.default_rng(k)
    for m, n in SHAPES:
        for layout in ("plain", "a transposed", "b transposed"):
            a, b = _operands(m, k, n, layout, rng)
            one, two = on_threads(lambda a=a, b=b: products.matmul(a, b))
            assert one.tobytes() == two.tobytes(), (m, k, n, layout)
            np.testing.assert_allclose(one, a.astype(np.float64) @ b, rtol=1e-4, atol=1e-3)


def test_numpy_alone_differs_there(on_threads):
    """The premise: NumPy's own product of the 784-input affine layer's shape differs."""
    a, b = _operands(64, 784, 256, "plain", np.random.default_rng(0))
    one, two = on_threads(lambda: a @ b)
    assert one.tobytes() != two.tobytes()


def test_vectors_stacks_out_and_half_precision(on_threads):
    rng = np.random.default_rng(1)
    v = rng.standard_normal(1000).astype(np.float32)
    w = rng.standard_normal((1000, 1000)).astype(np.float32)
    stack = rng.standard_normal((4, 8, 784)).astype(np.float32)
    cases = {
        "vector @ matrix": (v, w),
        "matrix @ vector": (w, v),
        "vector @ vector": (v, v),
        "stack @ matrix": (stack, w[:784, :300]),
    }
    for name, (a, b) in cases.items():
        one, two = on_threads(lambda a=a, b=b: products.matmul(a, b))
        assert one.shape == np.matmul(a, b).shape, name
        assert one.tobytes() == two.tobytes(), name
        np.testing.assert_allclose(one, np.matmul(a, b), rtol=1e-4, atol=1e-3, err_msg=name)
    out = np.full((64, 256), np.nan, np.float32)
    a, b = _operands(64, 784, 256, "plain", rng)
    assert products.matmul(a, b, out=out) is out
    assert out.tobytes() == products.matmul(a, b).tobytes()
    half_one, half_two = on_threads(
        lambda: backend.matmul(a.astype(np.float16), b.astype(np.float16))
    )
    assert half_one.dtype == np.float16 and half_one.tobytes() == half_two.tobytes()


def _blocks(k, q, unroll, threaded):
    """The K blocks of OpenBLAS's one-thread (driver/level3/level3.c) or threaded
    (level3_thread.c) driver, as their loops cut them."""
    blocks, ls = [], 0
    while ls < k:
        left = k - ls
        if left >= 2 * q:
            size = q
        elif left > q:
            size = (left + 1) // 2 if threaded else -(-(left // 2) // unroll) * unroll
        else:
            size = left
        blocks.append(size)
        ls += size
    return blocks


@pytest.mark.parametrize(("q", "unroll"), [(448, 16), (384, 16), (256, 8), (320, 4), (640, 16)])
def test_every_call_is_cut_alike_by_both_drivers(q, unroll):
    found = products.Blocking(q, unroll)
    for k in range(1, 6 * q):
        cuts = found.cuts(k)
        assert cuts[0][0] == 0 and cuts[-1][1] == k
        assert all(lo < hi for lo, hi in cuts) and len(cuts) <= 2
        for lo, hi in cuts:
            n = hi - lo
            assert _blocks(n, q, unroll, False) == _blocks(n, q, unroll, True), (k, lo, hi)
        if _blocks(k, q, unroll, False) == _blocks(k, q, unroll, True):
            assert len(cuts) == 1, k  # never cut when both drivers agree

"""engine.core.ops._jit: the compiled loops are cached on disk where numba can, and compiled in
memory where no cache folder is writable (a read-only install with no writable home)."""

import os
import subprocess
import sys

import pytest

from engine.core.ops import _jit


class _Numba:
    """Records the options of each ``njit`` call; refuses ``cache=True`` like numba does when
    neither the source's ``__pycache__`` nor a user cache folder can be written."""

    def __init__(self, cache_ok: bool) -> None:
        self.cache_ok, self.calls = cache_ok, []

    def njit(self, **options):
        self.calls.append(options)
        if options.get("cache") and not self.cache_ok:
            raise RuntimeError("cannot cache function 'f': no locator available for file 'x.py'")
        return lambda fn: ("compiled", fn)


@pytest.mark.parametrize("cache_ok", [True, False], ids=["cache-writable", "no-cache-folder"])
def test_njit_caches_on_disk_and_falls_back_to_memory(cache_ok):
    numba = _Numba(cache_ok)

    def kernel(x):
        return x

    assert _jit.njit(numba, fastmath={"reassoc"})(kernel) == ("compiled", kernel)
    first = {"cache": True, "nogil": True, "fastmath": {"reassoc"}}
    assert numba.calls == (
        [first] if cache_ok else [first, {"nogil": True, "fastmath": {"reassoc"}}]
    )


def test_real_kernels_are_cached_beside_their_source_or_in_the_user_folder():
    numba = pytest.importorskip("numba", reason="the compiled loops need numba")
    from engine.core.ops import _im2col_cpu

    kernels = _im2col_cpu._compile()
    assert kernels is not None and _jit.numba() is numba
    assert kernels["im2col"]._cache._cache_path  # a disk cache (numba's dispatcher knows where)


def test_a_second_process_loads_the_direct_convolution_from_the_disk_cache(tmp_path):
    # The SIMD kernels must not be closures over the vector intrinsics: numba keys a closure's
    # cache entry on its captured values, which pickle differently in every process, so every
    # process recompiled them (about 0.7 s each). Two fresh processes share one cache folder.
    pytest.importorskip("numba", reason="the compiled loops need numba")
    code = (
        "import numpy as np\n"
        "from engine.core.ops import _direct_conv as D\n"
        "x = np.ones((2, 4, 4, D._compile()['lanes']), np.float32)\n"
        "w = np.ones((4, 2, 3, 3), np.float32)\n"
        "D.forward(D.padded(x, (1, 1)), w, (1, 1), (1, 1), (4, 4))\n"
    )
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path), "NUMBA_DEBUG_CACHE": "1"}
    runs = [
        subprocess.run(
            [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
        ).stdout
        for _ in range(2)
    ]
    assert "data saved" in runs[0] and "_direct_conv_cpu.conv" in runs[0]
    assert "data loaded" in runs[1] and "data saved" not in runs[1]

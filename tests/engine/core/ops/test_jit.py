"""engine.core.ops._jit: the compiled loops are cached on disk where numba can, and compiled in
memory where no cache folder is writable (a read-only install with no writable home)."""

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

"""numba's set-up in a training process (issue 33's cold start): on a background thread
started by ``train``/``evaluate``, without SciPy, which stays importable afterwards; cached
kernels load without numba's registries, and a compilation loads them without SciPy."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]

CHILD = """
import sys, threading
from engine.core.ops import _jit
_jit.preload()
seen = []
threads = [threading.Thread(target=lambda: seen.append(_jit.numba())) for _ in range(4)]
for t in threads: t.start()
for t in threads: t.join()
import numpy as np
numba = seen[0]
total = numba.njit(lambda x: x.sum())  # a compilation: numba loads its registries now
assert total(np.arange(4.0)) == 6.0
import numba.np.arraymath as arraymath
print(len({id(m) for m in seen}), "scipy" in sys.modules, arraymath._HAVE_BLAS)
import scipy.linalg  # the user's code (the structure search) still gets SciPy
print(scipy.linalg.norm([3.0, 4.0]))
"""


def test_numba_is_set_up_once_on_a_thread_without_scipy_and_scipy_imports_after():
    pytest.importorskip("numba", reason="numba not installed")
    pytest.importorskip("scipy", reason="scipy not installed")
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    done = subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True,
                          env=env, timeout=300)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["1", "False", "False", "5.0"]


CONCURRENT = """
from engine.core.ops import _jit
_jit.preload()
import sklearn.datasets, scipy.linalg  # the main thread meanwhile (the digits dataset does)
assert _jit.numba() is not None
print(scipy.linalg.norm([3.0, 4.0]))
"""


def test_other_threads_import_scipy_while_numba_is_set_up():
    """Only the setting-up thread is refused SciPy: ``train`` builds the digits dataset with
    scikit-learn (SciPy) on the main thread at the same moment (failed before: ImportError)."""
    pytest.importorskip("numba", reason="numba not installed")
    pytest.importorskip("sklearn", reason="scikit-learn not installed")
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    for _ in range(3):  # the two threads meet at a different moment each time
        done = subprocess.run([sys.executable, "-c", CONCURRENT], capture_output=True,
                              text=True, env=env, timeout=300)  # fmt: skip
        assert done.returncode == 0, done.stderr
        assert done.stdout.split() == ["5.0"]


KERNEL = """
import numpy as np
from engine.core.ops import _jit

@_jit.njit(_jit.numba())
def scaled(x, factor):
    out = np.empty_like(x)
    for i in range(x.size):
        out[i] = x[i] * factor
    return out
"""

LOAD = """
import sys
import numpy as np
import kernel_module
print(kernel_module.scaled(np.arange(3.0), 2.0).tolist(),
      sum(kernel_module.scaled.stats.cache_hits.values()), "numba.np.linalg" in sys.modules)
"""


def test_a_cached_kernel_loads_without_numbas_registries(tmp_path):
    """The second process loads the kernel's machine code from the cache without numba's 252
    typing and lowering registries (0.3-0.4 s; they were loaded before: numba.np.linalg was
    among them); the first compiles it, registries and all."""
    pytest.importorskip("numba", reason="numba not installed")
    (tmp_path / "kernel_module.py").write_text(KERNEL)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), str(tmp_path)]),
               NUMBA_CACHE_DIR=str(tmp_path / "cache"))  # fmt: skip
    runs = [subprocess.run([sys.executable, "-c", LOAD], capture_output=True, text=True,
                           env=env, timeout=300) for _ in range(2)]  # fmt: skip
    assert [run.returncode for run in runs] == [0, 0], runs[0].stderr + runs[1].stderr
    assert runs[0].stdout.split("]")[1].split() == ["0", "True"]  # compiled: registries loaded
    assert runs[1].stdout.split() == ["[0.0,", "2.0,", "4.0]", "1", "False"]

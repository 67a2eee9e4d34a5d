"""numba's set-up in a training process (issue 33's cold start): on a background thread
started by ``train``/``evaluate``, without SciPy, which stays importable afterwards."""

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

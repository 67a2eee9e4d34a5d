"""engine.data.float32_text: the same strings as NumPy's ``str(np.float32(v))``, for every
kind of float32 (random bit patterns, subnormals, powers of ten and two, bounds of the
positional range, the largest and smallest values, zeros, infinities, NaNs)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from engine.data import float32_text
from engine.data.float32_text import float32_rows, float32_texts


def _numpy(x: np.ndarray) -> list[str]:
    return [str(np.float32(v)) for v in np.asarray(x, np.float32).reshape(-1)]


def _special_values() -> np.ndarray:
    f32 = np.float32
    values = [0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, 0.1, 1 / 3, 2.5, 999999.94, 1e6, 1e-4,
              1.0001e-4, 16777216.0, 16777217.0, 123456789.0]  # fmt: skip
    tiny, big = np.finfo(f32).smallest_subnormal, np.finfo(f32).max
    values += [tiny, 2 * tiny, 3 * tiny, np.finfo(f32).smallest_normal, big]
    values += [10.0**k for k in range(-45, 39)] + [2.0**k for k in range(-149, 128)]
    x = np.array(values, dtype=f32)
    # each neighbour too: the bounds of the positional range (1e-4, 1e6) and of every decade
    with np.errstate(over="ignore"):
        around = [np.nextafter(x, f32(np.inf)), np.nextafter(x, f32(-np.inf))]
    x = np.concatenate([x, *around])
    return np.concatenate([x, -x])


def test_special_values_are_numpys_text():
    x = _special_values()
    assert float32_texts(x).tolist() == _numpy(x)


def test_every_subnormal_and_the_first_normals_are_numpys_text():
    bits = np.arange(0, 2**23 + 2**16, 7, dtype=np.uint32)  # 1.2 million, every 7th pattern
    x = bits.view(np.float32)
    assert (float32_texts(x) == x.astype(str)).all()


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_random_bit_patterns_are_numpys_text(seed):
    """Four million float32 of every exponent (uniform bit patterns, NaNs and infinities
    among them), a million a seed, compared with NumPy's own formatter."""
    rng = np.random.default_rng(seed)
    x = rng.integers(0, 2**32, size=1_000_000, dtype=np.uint64).astype(np.uint32)
    x = x.view(np.float32)
    got, want = float32_texts(x), x.astype(str)
    wrong = np.flatnonzero(got != want)
    assert wrong.size == 0, [(float(x[i]), got[i], want[i]) for i in wrong[:5]]


def test_network_outputs_are_numpys_text_without_numpys_help():
    """Probabilities and scores (softmax of logits, sigmoids, ReLU outputs) are found by the
    fast path itself: fewer than one in 10,000 is handed to NumPy's formatter (5 of 140,000:
    values half-way between two shortest texts, such as 1.83203125, which NumPy rounds to
    the even digit, 1.8320312)."""
    rng = np.random.default_rng(7)
    logits = rng.normal(scale=6.0, size=(4000, 10))
    p = np.exp(logits - logits.max(1, keepdims=True))
    p /= p.sum(1, keepdims=True)
    flat = logits.ravel()
    values = np.concatenate([p.ravel(), 1 / (1 + np.exp(-flat)), np.maximum(flat, 0), flat])
    values = values.astype(np.float32)
    _, _, unsure = float32_text._shortest(np.abs(values[values != 0]))
    assert unsure.sum() < len(unsure) / 10_000
    assert float32_texts(values).tolist() == _numpy(values)


def test_rows_are_the_texts_joined_with_commas():
    x = np.array([[1 / 3, -0.0, np.nan], [1e-8, 5e20, -2.5]], dtype=np.float32)
    assert float32_rows(x) == ["0.33333334,-0.0,nan", "1e-08,5e+20,-2.5"]
    assert float32_rows(np.zeros((2, 0), np.float32)) == ["", ""]
    assert float32_rows(np.zeros((0, 3), np.float32)) == []
    assert float32_texts(np.float64(0.1)).tolist() == "0.1"  # a float64 is made float32 first


def test_the_layout_table_is_built_on_demand():
    """Importing the module builds none of the 4,000 layouts (~50 ms at import, paid by every
    `evaluate` before): a format builds those of the texts it writes."""
    code = (
        "import numpy as np, engine.data.float32_text as ft\n"
        "print(int(ft._BUILT.sum()))\n"
        "ft.float32_rows(np.array([[0.5, -2.5e-05, 1e+20]], np.float32))\n"
        "print(int(ft._BUILT.sum()))\n"
    )
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[3])}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                         check=True, timeout=120).stdout.split()  # fmt: skip
    assert out == ["0", "3"]

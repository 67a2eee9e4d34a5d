"""What CuPy has: its namespaces and function signatures, recorded from CuPy itself.

``cupy_names.json`` was written from ``cupy-cuda12x`` (the version is in the file) by
``python tools/guard_cupy_names.py`` on a machine where CuPy imports (no GPU needed); rerun it when
CuPy's API moves.
"""

from __future__ import annotations

import json
from importlib import resources

_DATA = json.loads(resources.files(__package__).joinpath("cupy_names.json").read_text())

VERSION: str = _DATA["version"]
CUPY = frozenset(_DATA["cupy"])
UFUNCS = frozenset(_DATA["ufuncs"])
NDARRAY = frozenset(_DATA["cupy.ndarray"])
RANDOM = frozenset(_DATA["cupy.random"])
GENERATOR = frozenset(_DATA["cupy.random.Generator"])
LINALG = frozenset(_DATA["cupy.linalg"])
FFT = frozenset(_DATA["cupy.fft"])
SIGNATURES: dict[str, list[str]] = _DATA["signatures"]

"""What CuPy has: its namespaces and function signatures, recorded from CuPy itself.

``cupy_names.json`` was written from ``cupy-cuda12x`` (the version is in the file) by
``python -m engine.guard.names`` on a machine where CuPy imports (no GPU needed); rerun it when
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


def _record() -> None:  # pragma: no cover - run by hand where CuPy is installed
    import inspect

    import cupy

    def public(obj: object) -> list[str]:
        return sorted(n for n in dir(obj) if not n.startswith("_"))

    spaces = {
        "cupy": cupy, "cupy.random": cupy.random, "cupy.random.Generator": cupy.random.Generator,
        "cupy.linalg": cupy.linalg, "cupy.fft": cupy.fft, "cupy.ndarray": cupy.ndarray,
    }  # fmt: skip
    data: dict = {key: public(obj) for key, obj in spaces.items()}
    data["cupy.ndarray"].append("__array__")
    signatures = {}
    for key, obj in spaces.items():
        for name in data[key]:
            f = getattr(obj, name)
            if not callable(f) or isinstance(f, (type, cupy.ufunc)):
                continue
            try:
                params = inspect.signature(f).parameters
            except (TypeError, ValueError):  # Cython functions without a signature
                continue
            if not any(p.kind is p.VAR_KEYWORD for p in params.values()):
                signatures[f"{key}.{name}"] = [
                    k for k, p in params.items() if p.kind is not p.VAR_POSITIONAL
                ]
    data.update(signatures=signatures, version=cupy.__version__)
    data["ufuncs"] = sorted(n for n in data["cupy"] if isinstance(getattr(cupy, n), cupy.ufunc))
    data["cupyx"] = public(__import__("cupyx"))
    path = resources.files(__package__).joinpath("cupy_names.json")
    path.write_text(json.dumps(data, indent=1, sort_keys=True))  # type: ignore[union-attr]


if __name__ == "__main__":  # pragma: no cover
    _record()

"""Record CuPy's namespaces and function signatures for the guard test backend
(``engine/guard/cupy_names.json``, read by :mod:`engine.guard.names`). Run it by hand on a
machine where CuPy imports (no GPU needed) when CuPy's API moves:

    PYTHONPATH=. python tools/guard_cupy_names.py
"""

from __future__ import annotations

import inspect
import json
from importlib import resources

import cupy
import cupyx


def main() -> None:
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
    data["cupyx"] = public(cupyx)
    path = resources.files("engine.guard").joinpath("cupy_names.json")
    path.write_text(json.dumps(data, indent=1, sort_keys=True))  # type: ignore[union-attr]


if __name__ == "__main__":
    main()

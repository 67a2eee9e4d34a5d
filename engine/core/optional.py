"""Optional and heavy parts, imported on first use: the one place the engine imports lazily.

One mechanism (``tools/import_measures.py`` counts any other import inside a function outside
the entry points, ``engine/cli`` and the plugin scripts):

- :func:`lazy` a library a module uses only on some of its paths (matplotlib for a chart, tqdm
  for a progress bar, scikit-learn for a built-in dataset...), declared at the top of the
  module like an import: ``plt = optional.lazy("matplotlib.pyplot")``; the library is imported
  at the first use of one of its names, so ``neurocanvas train`` does not pay for a chart it
  does not draw (issue 33's cold start).
- :func:`require` an optional library (CuPy, onnx, mpi4py, numba...) now: the module, or
  :class:`MissingDependency` whose one-line message names the library, the extra that brings
  it and the pip command (a lazy module raises the same at its first use).
- :func:`load` an engine module kept off the paths that do not need it (the guard test
  backend, numba's compiled kernels): imported when first asked for.

All are ``importlib.import_module``: a module already imported costs one dictionary look-up.
"""

from __future__ import annotations

import importlib
import sys
from types import ModuleType
from typing import Any

__all__ = ["EXTRAS", "LazyModule", "MissingDependency", "lazy", "load", "require"]

# top-level module -> (pip package, the neurocanvas extra that installs it, or "" for none)
EXTRAS: dict[str, tuple[str, str]] = {
    "cupy": ("cupy-cuda12x", "gpu"),
    "cupyx": ("cupy-cuda12x", "gpu"),
    "onnx": ("onnx", "onnx"),
    "onnxruntime": ("onnxruntime", "onnx"),
    "mpi4py": ("mpi4py", "mpi"),
    "nnabla": ("nnabla", ""),
    "torch": ("torch", "xai-check"),
    "numba": ("numba", ""),
    "threadpoolctl": ("threadpoolctl", ""),
    "h5py": ("h5py", ""),
    "flatbuffers": ("flatbuffers", "tflite"),
    "sklearn": ("scikit-learn", ""),
    "scipy": ("scipy", ""),
    "tqdm": ("tqdm", ""),
    "google": ("protobuf", ""),
    "matplotlib": ("matplotlib", ""),
    "pptx": ("python-pptx", ""),
    "PIL": ("Pillow", ""),
}


class MissingDependency(ImportError):
    """An optional library is not installed; the message is one line with the pip command."""


def install_hint(name: str) -> str:
    """``pip install 'neurocanvas[extra]'`` (or the package) for the top-level module ``name``."""
    package, extra = EXTRAS.get(name.split(".")[0], (name.split(".")[0], ""))
    return f"pip install 'neurocanvas[{extra}]'" if extra else f"pip install {package}"


def require(name: str, purpose: str = "") -> ModuleType:
    """The optional library ``name`` (dotted names too), imported now.

    Raises:
        MissingDependency: it is not installed (an ImportError: ``except ImportError`` holds).
    """
    try:
        return importlib.import_module(name)
    except ImportError as exc:
        top = name.split(".")[0]
        if exc.name is not None and exc.name.split(".")[0] != top:
            raise  # the library is there but one of its own dependencies is missing
        why = f" ({purpose})" if purpose else ""
        raise MissingDependency(
            f"{top} is not installed{why}: {install_hint(name)}", name=exc.name
        ) from None


def load(name: str) -> ModuleType:
    """The engine module ``name``, imported on first use (kept off paths that do not use it)."""
    return importlib.import_module(name)


class LazyModule(ModuleType):
    """Stands for the module ``name`` until one of its names is used, then imports it (through
    :func:`require`: a missing library is a :class:`MissingDependency`) and hands the name on."""

    def __init__(self, name: str, purpose: str = "") -> None:
        super().__init__(name)
        self.__purpose = purpose

    def __getattr__(self, attribute: str) -> Any:
        if attribute.startswith("__"):  # copy, pickle and inspect probe dunders: not a use
            raise AttributeError(attribute)
        return getattr(require(self.__name__, self.__purpose), attribute)

    def __repr__(self) -> str:
        loaded = "loaded" if self.__name__ in sys.modules else "not imported yet"
        return f"<lazy module {self.__name__!r} ({loaded})>"


def lazy(name: str, purpose: str = "") -> LazyModule:
    """The library ``name`` (dotted names too), imported when one of its names is first used;
    ``purpose`` goes into the message when it is missing."""
    return LazyModule(name, purpose)

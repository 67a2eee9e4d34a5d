"""Trained parameters as nnabla's ``.h5`` parameter file, for a ``--target nnabla`` export.

nnabla's ``nn.load_parameters(FILE.h5)`` (``utils/get_file_handle.py``, docs/formats.md §4.4)
reads one float32 dataset per parameter at the path of its name (``Affine/affine/W``), with the
attributes ``need_grad`` and ``index`` (the save order). Written with h5py, atomically.

Normalization statistics keep the batch axis there, as NNC writes them ((1, C, 1, 1) where
NeuroCanvas holds (C, 1, 1), docs/layers.md §4.18), because nnabla's parametric
functions ask for that shape.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from engine.core import optional
from engine.core.atomic import atomic_output
from engine.export.literals import ExportError
from engine.nn.parameter_file import ParameterFileError, load_arrays
from engine.runtime.compiler import compile_network

h5py = optional.lazy("h5py")

__all__ = ["nnabla_shapes", "write_nnabla_h5"]

# Functions whose parameters nnabla shapes like the input, batch axis included.
_STATISTICS = frozenset(
    {"batch_normalization", "fused_batch_normalization", "instance_normalization",
     "group_normalization", "layer_normalization"}
)  # fmt: skip


def nnabla_shapes(project: object, networks: list[str]) -> dict[str, tuple[int, ...]]:
    """Parameter name -> the shape nnabla gives it, where it differs from NeuroCanvas's."""

    shapes: dict[str, tuple[int, ...]] = {}
    for name in networks:
        program = compile_network(project, name)  # type: ignore[arg-type]
        decls = {d.name: tuple(d.shape) for d in program.parameters}
        for step in program.steps:
            if getattr(step.function, "__name__", "") not in _STATISTICS:
                continue
            for ref in step.inputs:
                if ref[0] == "param" and len(decls[ref[1]]) == len(step.shape):
                    shapes[ref[1]] = (1, *decls[ref[1]])
    return shapes


def _entries(path: Path) -> list[tuple[str, np.ndarray, bool]]:
    """(name, array, need_grad) of a NeuroCanvas parameter file, in its order."""
    try:
        arrays, meta = load_arrays(path)
    except ParameterFileError as exc:
        raise ExportError(str(exc)) from None
    if meta is None:
        return [(k, v, True) for k, v in arrays.items()]
    return [(e["name"], arrays[e["key"]], bool(e.get("need_grad", True)))
            for e in meta.get("parameters", [])]  # fmt: skip


def write_nnabla_h5(
    parameters: Path, out: Path, shapes: dict[str, tuple[int, ...]] | None = None
) -> Path:
    """Convert the ``.npz`` parameter file ``parameters`` to nnabla's ``.h5`` at ``out``;
    ``shapes`` (:func:`nnabla_shapes`) reshapes the parameters nnabla shapes differently."""
    try:
        h5_file = h5py.File
    except ImportError:
        raise ExportError("writing nnabla's .h5 parameters needs h5py: pip install h5py") from None
    with atomic_output(out, "w+b") as handle, h5_file(handle, "w") as f:
        for index, (name, value, need_grad) in enumerate(_entries(parameters)):
            value = np.asarray(value, dtype=np.float32)
            if shapes and name in shapes and value.size == np.prod(shapes[name]):
                value = value.reshape(shapes[name])
            data = f.create_dataset(name, data=value)
            data.attrs["need_grad"] = need_grad
            data.attrs["index"] = index
    return out

"""What every exporter of the runtime network (C, ONNX, TFLite) does before writing its format.

Compile the source's runtime network, refuse what the format cannot write with one
:class:`ExportError` naming every layer (before any parameter is read), read the parameters
on the CPU in a private registry (the caller's stays untouched, and the GUI process, which
exports, must never open a CUDA context), and compute the steps that read parameters only (a
weight's quantizer) once, by the engine's own functions, so the file holds the values the
engine computes.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

import engine.nn as nn
from engine.core import backend
from engine.core.messages import in_file
from engine.layers.errors import ExportError
from engine.runtime.compiler import compile_network
from engine.runtime.program import Program, ProgramError

__all__ = ["compiled_runtime", "parameter_values", "constant_steps"]


Unsupported = Callable[[Program], list[str]]


def compiled_runtime(source: Any, format_name: str, unsupported: Unsupported,
                     hint: str = "") -> Program:  # fmt: skip
    """``source.runtime`` compiled; an ExportError names a missing runtime network, a network
    that does not compile, or every piece ``unsupported`` lists (``hint`` ends that line)."""
    if source.runtime is None:
        raise ExportError(f"{source.title}: the project has no executor (runtime network)")
    try:
        program = compile_network(source.project, source.runtime)
    except ProgramError as exc:
        raise ExportError(in_file(getattr(source, "place", ""), exc)) from None
    bad = unsupported(program)
    if bad:
        raise ExportError(f'network "{program.network}" cannot be exported to {format_name}: '
                          f"{', '.join(bad)}{hint}")  # fmt: skip
    return program


def parameter_values(source: Any, program: Program) -> dict[str, np.ndarray]:
    """Parameter name -> its trained (else initial) value, read on the CPU."""
    with nn.parameter_scope("", {}), backend.using("cpu"):
        params = program.create_parameters(source.base)
        if source.parameters is not None:
            nn.load_parameters(source.parameters)
        return {k: backend.to_numpy(v.data) for k, v in params.items()}


def constant_steps(program: Program, values: Mapping[str, np.ndarray],
                   aliases: frozenset[str] = frozenset()) -> dict[str, np.ndarray]:  # fmt: skip
    """Step name -> value of each step computed from parameters only (a weight's
    FixedPointQuantize), run once by the engine's own function; ``aliases`` (step types the
    format writes as their input) are left out."""
    folded: dict[str, np.ndarray] = {}
    with nn.no_grad(), backend.using("cpu"):
        for step in program.steps:
            if not step.inputs or step.type in aliases or step.batch_kwargs:
                continue
            args = []
            for ref in step.inputs:
                if ref[0] == "param":
                    value = np.asarray(values[ref[1]], np.float32)
                    args.append(nn.Variable.from_numpy_array(value))
                elif ref[0] == "step" and ref[1] in folded:
                    args.append(nn.Variable.from_numpy_array(folded[ref[1]]))
                elif ref[0] == "none":
                    args.append(None)
                else:
                    break
            else:
                out = step.function(*args, **step.kwargs)
                folded[step.name] = np.asarray(backend.to_numpy(out.data), dtype=np.float32)
    return folded

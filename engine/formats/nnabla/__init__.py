"""nnabla's model files: ``.nnp`` (ZIP) and ``.nntxt`` (protobuf text), both ways.

* :func:`project_nnp` writes a project with its trained (or initial) parameters as ``.nnp``
  (:mod:`~engine.formats.nnabla.nnp_write`);
* :func:`~engine.formats.nnabla.nnp_read.read_nnp` reads ``.nnp``/``.nntxt`` back as a project;
* :mod:`~engine.formats.nnabla.graph` is the model both the nnabla and the ONNX importers
  produce, and its conversion to layers through the catalogue;
* :mod:`~engine.formats.nnabla.schema` holds nnabla's protobuf schema.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from engine.layers.errors import ExportError

__all__ = ["project_nnp", "project_programs"]


def project_programs(project: Any, folded: bool = False) -> dict[str, Any]:
    """The compiled program of every network an optimizer, monitor or executor names
    (``folded``: loops kept in nnabla's repeat form, as the nntxt writes them)."""
    from engine.runtime.compiler import compile_network  # noqa: PLC0415

    names = [o.network for o in project.optimizers] + [m.network for m in project.monitors]
    names += [e.network for e in project.executors]
    return {name: compile_network(project, name, folded=folded) for name in dict.fromkeys(names)}


def project_nnp(project: Any, parameters: str | Path | None = None) -> bytes:
    """The ``.nnp`` bytes of ``project`` with the parameters file (``.npz``) or initial values.

    Raises:
        ExportError: a network nntxt cannot express (every such layer listed), a layer whose
            arguments nnabla does not have; ProgramError/CompileError: a network that does not
            compile.
    """
    import engine.nn as nn  # noqa: PLC0415
    from engine.core import backend  # noqa: PLC0415
    from engine.formats.nnabla.nnp_write import nnp_bytes, nnp_message, unsupported  # noqa: PLC0415

    programs = project_programs(project)
    folded = project_programs(project, folded=True)
    bad = [f'network "{n}": {b}' for n, p in folded.items() for b in unsupported(p)]
    if bad:
        raise ExportError(f"cannot be written as NNP: {'; '.join(bad)}")
    with nn.parameter_scope("", {}):  # a private registry: the caller's stays untouched
        params: dict[str, Any] = {}
        for program in programs.values():
            params.update(program.create_parameters())
        if parameters is not None:
            nn.load_parameters(parameters)
        values = {k: backend.to_numpy(v.data) for k, v in params.items()}
    return nnp_bytes(nnp_message(project, folded, values, programs))

"""The inference entry point appended to a Python export from a job folder.

It loads the trained parameters copied beside the file, reads each sample file as the dataset
reader does (``engine.data.loaders.load_file``: images as (C, H, W), per-sample CSV matrices,
``.npy``), applies Image Normalization (8-bit images x 1/255) when the job's dataset had it, runs
the runtime network with ``test=True`` and prints the outputs (and the class of a vector output)
in the format of ``neurocanvas forward``.
"""

from __future__ import annotations

from engine.export.literals import ExportError, Identifiers, literal
from engine.runtime.compiler import compile_network

__all__ = ["inference_source"]

TEMPLATE = '''# -- inference: the runtime network {runtime_comment} with the trained parameters

import os as _os
import sys as _sys

import numpy as _np

from engine.core.backend import to_numpy as _to_numpy  # device arrays refuse np.asarray

PARAMETERS = {parameters}  # beside this file
IMAGE_NORMALIZATION = {normalize}
RUNTIME_INPUT = {variable}


def load_trained_parameters(path=None):
    """Replace every parameter with the trained values (default: PARAMETERS beside this file)."""
    here = _os.path.dirname(_os.path.abspath(__file__))
    nn.clear_parameters()
    nn.load_parameters(path or _os.path.join(here, PARAMETERS))


def preprocess(path):
    """One sample file as the dataset reader loads it, normalized as in training."""
    from pathlib import Path

    from engine.data.loaders import load_file, normalization_scale

    raw = load_file(Path(path))
    value = raw.astype(_np.float32)
    scale = normalization_scale(raw.dtype) if IMAGE_NORMALIZATION else None
    return value * _np.float32(scale) if scale else value


def predict(batch):
    """{{output name: numpy array (batch, ...)}} for an input batch (batch, ...)."""
    with nn.no_grad():
        outputs = {function}(nn.Variable(_np.asarray(batch, dtype=_np.float32)), test=True)
    return {{name: _to_numpy(var.data) for name, var in outputs.items()}}


def main(paths):
    load_trained_parameters()
    for path in paths:
        for name, value in predict(preprocess(path)[None]).items():
            flat = value[0].reshape(-1)
            vector = value[0].ndim == 1 and flat.size > 1
            best = f" class {{int(_np.argmax(flat))}}" if vector else ""
            shown = " ".join(f"{{v:.6g}}" for v in flat[:16]) + (" ..." if flat.size > 16 else "")
            print(f"{{path}}\\t{{name}}{{best}}\\t{{shown}}")
    return 0


if __name__ == "__main__":
    if len(_sys.argv) < 2:
        print("usage: python " + _os.path.basename(__file__) + " FILE...", file=_sys.stderr)
        _sys.exit(2)
    _sys.exit(main(_sys.argv[1:]))
'''


def inference_source(source: object, networks: list[str], parameters_file: str) -> str:
    """The entry point for ``source.runtime`` (a network that reads one dataset variable)."""
    runtime = source.runtime  # type: ignore[attr-defined]
    idents = Identifiers()
    function = {name: idents.new("network_" + name, "network") for name in networks}[runtime]
    feeds = list(compile_network(source.project, runtime).feeds)  # type: ignore[attr-defined]
    if len(feeds) != 1:
        raise ExportError(
            f'network "{runtime}" reads {len(feeds)} dataset variables; the inference entry '
            f"point takes one"
        )
    return TEMPLATE.format(
        runtime_comment=literal(runtime).replace("\n", " "),
        parameters=literal(parameters_file),
        normalize=literal(bool(source.normalize)),  # type: ignore[attr-defined]
        variable=literal(feeds[0]),
        function=function,
    )

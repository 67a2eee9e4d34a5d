"""The short ``main`` appended to a Python export.

It loads the trained parameters beside the file (a job's export copies them there; a project's
export has none, and running it says so in one line, with how to get them), reads each sample file
as the dataset reader does (images as (C, H, W), per-sample CSV matrices, ``.npy``), applies Image
Normalization (8-bit images x 1/255) when the job's dataset had it, runs the runtime network with
``test=True`` and prints each output (and the class of a vector output) in the format of
``neurocanvas forward``. A runtime network without real inputs, only generator inputs (a GAN's
image generator), makes ``COUNT`` samples instead and prints them the same way. The ``neurocanvas``
target reads files with NeuroCanvas's own loader; the ``nnabla`` target, which must run without
NeuroCanvas, with Pillow and NumPy.
"""

from __future__ import annotations

from engine.export.literals import ExportError, literal
from engine.runtime.compiler import compile_network

__all__ = ["inference_source"]

TEMPLATE = """# -- main: the runtime network {runtime_comment} with trained parameters

import os
import sys

import numpy as np

PARAMETERS = {parameters}  # beside this file
INPUT_SHAPE = {shape}  # the dataset variable {variable}
IMAGE_NORMALIZATION = {normalize}

{load_input}

{read_input}

{parameters_file}

def main(paths):
    nn.clear_parameters()
    nn.load_parameters(parameters_file())
    x = nn.Variable.from_numpy_array(np.stack([read_input(path) for path in paths]))
    with nn.auto_forward(), nn.no_grad():
        outputs = {function}(x, test=True)
    for name, y in outputs.items():
        for path, row in zip(paths, to_numpy(y.d).reshape(len(paths), -1)):
            best = f" class {{int(np.argmax(row))}}" if y.ndim == 2 and row.size > 1 else ""
            shown = " ".join(f"{{v:.6g}}" for v in row[:16]) + (" ..." if row.size > 16 else "")
            print(f"{{path}}\\t{{name}}{{best}}\\t{{shown}}")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit("usage: python " + os.path.basename(__file__) + " FILE...")
    main(sys.argv[1:])
"""

# A runtime network without real inputs (a GAN's generator): its generator inputs make the
# samples, so main takes how many.
TEMPLATE_GENERATED = """# -- main: the runtime network {runtime_comment} with trained parameters

import os
import sys

import numpy as np

PARAMETERS = {parameters}  # beside this file

{to_numpy}


{parameters_file}

def main(count):
    nn.clear_parameters()
    nn.load_parameters(parameters_file())
    with nn.auto_forward(), nn.no_grad():
        outputs = {function}(batch_size=count, test=True)
    for name, y in outputs.items():
        for i, row in enumerate(to_numpy(y.d).reshape(count, -1)):
            best = f" class {{int(np.argmax(row))}}" if y.ndim == 2 and row.size > 1 else ""
            shown = " ".join(f"{{v:.6g}}" for v in row[:16]) + (" ..." if row.size > 16 else "")
            print(f"sample {{i}}\\t{{name}}{{best}}\\t{{shown}}")


if __name__ == "__main__":
    count = sys.argv[1] if len(sys.argv) == 2 else "1"
    if len(sys.argv) > 2 or not count.isdigit() or int(count) < 1:
        sys.exit("usage: python " + os.path.basename(__file__) + " [COUNT] (samples, default 1)")
    main(int(count))
"""

# Both mains find the parameters so: a project's export runs without them and says how to get them.
PARAMETERS_FILE = """def parameters_file():
    # The trained parameters beside this file; without them, one line on how to get them.
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), PARAMETERS)
    if not os.path.isfile(path):
        name = os.path.basename(__file__)
        sys.exit(f"{name}: no trained parameters beside it ({PARAMETERS}). Export a trained job "
                 f"to get them: neurocanvas export python JOB_FOLDER -o {name}, or in the app "
                 "right-click the job in TRAINING > Export Python code...")
    return path
"""

# A missing, unreadable or wrongly sized input: one line naming it, as a missing parameters file
# gets, not a traceback (load_input raises OSError or ValueError with the reason).
READ_INPUT = """def read_input(path):
    name = os.path.basename(__file__)
    if not os.path.isfile(path):
        sys.exit(f"{name}: input file not found: {path}")
    try:
        return load_input(path)
    except (OSError, ValueError) as exc:
        sys.exit(f"{name}: {exc}" if path in str(exc) else f"{name}: {path}: {exc}")
"""

TO_NUMPY = {
    "neurocanvas": "from engine.core.backend import to_numpy  # device arrays refuse np.asarray",
    "nnabla": "to_numpy = np.asarray  # nnabla's Variable.d is a NumPy array",
}

LOAD_NEUROCANVAS = '''from engine.core.backend import to_numpy  # device arrays refuse np.asarray


def load_input(path):
    """One sample file as NeuroCanvas's dataset reader loads it, normalized as in training."""
    from engine.data.loaders import FileLoadError, load_file, normalization_scale

    try:
        raw = load_file(__import__("pathlib").Path(path))
    except FileLoadError as exc:  # read_input's one line
        raise ValueError(str(exc)) from None
    scale = normalization_scale(raw.dtype) if IMAGE_NORMALIZATION else None
    x = raw.astype(np.float32) * np.float32(scale or 1.0)
    return x.reshape(INPUT_SHAPE)
'''

LOAD_NNABLA = '''to_numpy = np.asarray  # nnabla's Variable.d is a NumPy array


def load_input(path):
    """One sample file as NNC reads it: images (C, H, W), CSV matrices, .npy arrays."""
    ext = os.path.splitext(path)[1].lower()
    if ext == ".npy":
        raw = np.load(path, allow_pickle=False)
    elif ext == ".csv":
        raw = np.loadtxt(path, delimiter=",", ndmin=2)
    else:
        from PIL import Image

        raw = np.asarray(Image.open(path))
        raw = raw[None] if raw.ndim == 2 else raw.transpose(2, 0, 1)
    scale = {"uint8": 1 / 255, "uint16": 1 / 65535}.get(raw.dtype.name, 1.0)
    x = raw.astype(np.float32) * np.float32(scale if IMAGE_NORMALIZATION else 1.0)
    return x.reshape(INPUT_SHAPE)
'''


def inference_source(
    source: object, function: str, parameters_file: str, target: str = "neurocanvas"
) -> str:
    """The entry point for ``source.runtime`` (a network that reads one dataset variable),
    whose exported function is called ``function``."""
    runtime = source.runtime  # type: ignore[attr-defined]
    program = compile_network(source.project, runtime)  # type: ignore[attr-defined]
    feeds = list(program.feeds)
    if not feeds and program.generators:
        return TEMPLATE_GENERATED.format(
            runtime_comment=literal(runtime).replace("\n", " "),
            parameters=literal(parameters_file),
            to_numpy=TO_NUMPY[target if target == "nnabla" else "neurocanvas"],
            parameters_file=PARAMETERS_FILE,
            function=function,
        )
    if len(feeds) != 1:
        raise ExportError(
            f'network "{runtime}" reads {len(feeds)} dataset variables; the inference entry '
            f"point takes one"
        )
    return TEMPLATE.format(
        runtime_comment=literal(runtime).replace("\n", " "),
        parameters=literal(parameters_file),
        shape=literal(tuple(int(n) for n in program.feeds[feeds[0]])),
        variable=literal(feeds[0]).replace("\n", " "),
        normalize=literal(bool(source.normalize)),  # type: ignore[attr-defined]
        load_input=LOAD_NNABLA if target == "nnabla" else LOAD_NEUROCANVAS,
        read_input=READ_INPUT,
        parameters_file=PARAMETERS_FILE,
        function=function,
    )

"""``neurocanvas export c JOB -o DIR``: the runtime network as plain C99 with static memory.

The folder holds ``model.h`` (``model_infer(const float *in, float *out)`` and the sizes as
macros), ``model.c`` (one block of loops per layer, from :data:`kernels.WRITERS`),
``parameters.c`` (the parameters as ``const float`` arrays), ``main.c`` (a program that reads
input files and prints the outputs), a ``Makefile`` and ``export_summary.json`` (flash bytes
of parameters, RAM bytes of the activation arena, per layer and in total, beside NNC's
statistics). Activations live in one static arena planned from the graph's lifetimes
(:mod:`engine.export.c_source.plan`); nothing is allocated at run time.

Every layer the writers cannot express (and a network that is not one input -> one output) is
named in one :class:`ExportError` before anything is written; the files are written into a
temporary folder beside ``DIR`` and moved into place together.
"""

from __future__ import annotations

import json
import math
import os
import re
import shutil
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from engine.export.c_source.integer import (
    FUSABLE,
    INTEGER_WRITERS,
    Codes,
    NotInteger,
    from_float,
    integer_plan,
)
from engine.export.c_source.kernels import WRITERS, flt
from engine.export.c_source.plan import ALIASES, ArenaPlan, plan_arena
from engine.export.c_source.templates import MAIN_C, MAKEFILE
from engine.export.literals import ExportError
from engine.export.runtime_network import compiled_runtime, constant_steps, parameter_values
from engine.graph.derive import counted_as
from engine.graph.project_inference import ProjectInference
from engine.graph.statistics import network_statistics
from engine.runtime.program import Program, Ref, Step

__all__ = ["FILES", "c_files", "export_c", "unsupported_c_steps"]

FILES = ("model.h", "model.c", "parameters.c", "main.c", "Makefile", "export_summary.json")


class _StepError(Exception):
    """A writer cannot express this step (the message says why)."""


class Context:
    """What a writer sees of the model being written (see :mod:`kernels`)."""

    def __init__(self, model: _Model, step: Step) -> None:
        self.model, self.step = model, step
        self.flash = 0

    def inp(self, k: int) -> str:
        return self.model.pointer(self.step.inputs[k])

    @property
    def out(self) -> str:
        return self.model.pointer(("step", self.step.name))

    @property
    def out_type(self) -> str:
        """The output's C element type: float, or the codes of a quantizer fused into it."""
        codes = self.model.fused.get(self.step.name)
        return "float" if codes is None else codes.ctype

    def store(self, index: str, value: str) -> str:
        """``y[index] = value;`` or, fused with the quantizer that reads it, its code."""
        codes = self.model.fused.get(self.step.name)
        if codes is None:
            return f"y[{index}] = {value};"
        return f"{{ const float v = {value}; y[{index}] = {from_float(codes)}; }}"

    def in_shape(self, k: int) -> tuple[int, ...]:
        return self.model.shape(self.step.inputs[k])

    def value(self, k: int) -> np.ndarray | None:
        ref = self.step.inputs[k] if k < len(self.step.inputs) else ("none",)
        if ref[0] == "none":
            return None
        if ref[0] == "step" and ref[1] in self.model.folded:
            return self.model.folded[ref[1]]
        if ref[0] != "param":
            self.fail(f"input {k + 1} must be a parameter (or computed from parameters only)")
        return np.asarray(self.model.values[ref[1]], dtype=np.float32)

    def param_shape(self, k: int) -> tuple[int, ...]:
        value = self.value(k)
        if value is None:
            self.fail(f"input {k + 1} is missing")
        return tuple(value.shape)  # type: ignore[union-attr]

    def param(self, k: int) -> str | None:
        ref = self.step.inputs[k] if k < len(self.step.inputs) else ("none",)
        if ref[0] == "none":
            return None
        value = self.value(k)
        label = str(ref[1]) if ref[0] == "param" else f"{ref[1]} (computed at export)"
        name, new = self.model.array(f"{ref[0]}:{ref[1]}", value, label)  # type: ignore[arg-type]
        self.flash += new
        return name

    def const(self, hint: str, array: Any) -> str:
        value = np.asarray(array, dtype=np.float32)
        name, new = self.model.array(None, value, f"{self.step.name} {hint}")
        self.flash += new
        return name

    def fail(self, message: str) -> None:
        raise _StepError(message)

    def codes(self, k: int) -> Codes | None:
        """The integer codes input ``k`` holds (integer arithmetic), or None (float)."""
        ref = self.step.inputs[k]
        kind = self.model.kinds.get(ref[1]) if ref[0] == "step" else None
        return kind if isinstance(kind, Codes) else None

    def codes_of(self, name: str) -> Codes:
        return self.model.kinds[name]  # type: ignore[no-any-return]

    def codes_array(self, comment: str, array: Any) -> str:
        """Integer codes as int8, or int16 where a code needs it (a 16-bit weight)."""
        values = np.asarray(array)
        wide = values.size and (values.min() < -128 or values.max() > 127)
        name, new = self.model.array(None, values.astype(np.int16 if wide else np.int8), comment)
        self.flash += new
        return name

    def integers(self, comment: str, array: Any) -> str:
        """Integers as int32, or int64 where one needs it (a 16-bit layer's bias in the units
        of its accumulator)."""
        values = np.asarray(array)
        wide = values.size and (values.min() < -(2**31) or values.max() >= 2**31)
        name, new = self.model.array(None, values.astype(np.int64 if wide else np.int32), comment)
        self.flash += new
        return name


class _Model:
    plan: ArenaPlan

    def __init__(self, program: Program, values: Mapping[str, np.ndarray]) -> None:
        self.program, self.values = program, values
        self.arrays: list[tuple[str, np.ndarray, str]] = []  # identifier, value, comment
        self.by_param: dict[str, str] = {}
        self.shapes = {s.name: tuple(s.shape) for s in program.steps}
        self.folded = constant_steps(program, values, ALIASES)
        self.item_bytes: dict[str, int] = {}  # step -> element size of its output (4: float)
        self.kinds: dict[str, Any] = {}  # integer arithmetic (engine.export.c_source.integer)
        self.fused: dict[str, Codes] = {}  # layer -> the codes of the quantizer fused into it

    def pointer(self, ref: Ref) -> str:
        if ref[0] == "feed":
            return "in"
        if ref[0] != "step":
            raise _StepError(f"input {ref!r} is not written")
        buffer = self.plan.of_step[ref[1]]
        if buffer is None:
            return "in"
        codes = self.fused.get(ref[1], self.kinds.get(ref[1]))
        if isinstance(codes, Codes):
            return f"(({codes.ctype} *)nc_arena + {buffer.offset // codes.itemsize})"
        return f"(nc_arena + {buffer.offset // 4})"

    def shape(self, ref: Ref) -> tuple[int, ...]:
        if ref[0] == "feed":
            return tuple(ref[2])
        if ref[0] == "step":
            return self.shapes[ref[1]]
        return tuple(np.shape(self.values[ref[1]]))

    def array(self, param: str | None, value: np.ndarray, comment: str) -> tuple[str, int]:
        """The identifier of ``value`` and the bytes it adds (0: a shared parameter again)."""
        if param is not None and param in self.by_param:
            return self.by_param[param], 0
        if value.dtype.kind == "f" and not np.isfinite(value).all():
            raise _StepError(f"{comment}: holds NaN or infinity")
        name = f"nc_p{len(self.arrays)}"
        self.arrays.append((name, value, f"{comment} {tuple(value.shape)}"))
        if param is not None:
            self.by_param[param] = name
        return name, value.nbytes


_TIME_STEP = re.compile(r"\[t=\d+\]")


def _fusions(program: Program, model: _Model) -> dict[str, str]:
    """FixedPointQuantize (codes) -> the layer (FUSABLE) it alone reads and that only it reads."""
    readers: dict[str, list[str]] = {}
    for step in program.steps:
        for ref in step.inputs:
            if ref[0] == "step":
                readers.setdefault(ref[1], []).append(step.name)
    outputs = {ref[1] for _, ref in program.outputs if ref[0] == "step"}
    types = {s.name: s.type for s in program.steps}
    fused = {}
    for step in program.steps:
        source = step.inputs[0] if step.inputs else ("none",)
        if (isinstance(model.kinds.get(step.name), Codes) and step.type == "FixedPointQuantize"
                and source[0] == "step" and types[source[1]] in FUSABLE
                and source[1] not in model.folded and source[1] not in outputs
                and readers.get(source[1]) == [step.name]):  # fmt: skip
            fused[step.name] = source[1]
    return fused


def unsupported_c_steps(program: Program) -> list[str]:
    """``layer "X" (Type)`` for each step without a C writer, and the generator inputs."""
    bad: list[str] = []
    for step in program.steps:  # an unrolled loop's steps are named once (RecurrentInput[t=3])
        entry = f'layer "{_TIME_STEP.sub("", step.name)}" ({step.type})'
        if step.type not in WRITERS and step.type not in ALIASES and entry not in bad:
            bad.append(entry)
    bad += [f'generator input "{g.name or g.kind}"' for g in program.generators]
    if len(program.feeds) != 1:
        bad.append(f"{len(program.feeds)} inputs (the C export takes one)")
    if len(program.outputs) != 1:
        bad.append(f"{len(program.outputs)} outputs (the C export writes one)")
    elif program.outputs[0][1][0] != "step":
        bad.append("an output that is not a layer's")
    return bad


def _comment(text: str) -> str:
    """Text made safe inside a C block comment (one line, ASCII, no comment end)."""
    safe = "".join(c if 32 <= ord(c) < 127 else "?" for c in str(text))
    return safe.replace("*/", "* /").replace("/*", "/ *")


def c_files(program: Program, values: Mapping[str, np.ndarray], normalize: bool,
            statistics: Mapping[str, Any] | None = None,
            arithmetic: str = "auto") -> dict[str, str]:  # fmt: skip
    """File name -> text of the C export of ``program`` (see the module docstring).

    Raises:
        ExportError: every layer the writers cannot express, listed together.
    """
    network = program.network
    bad = unsupported_c_steps(program)
    if bad:
        raise ExportError(f'network "{network}" cannot be exported to C: {", ".join(bad)}')
    model = _Model(program, values)
    reason = "float arithmetic asked for"
    if arithmetic == "auto":
        try:
            model.kinds = integer_plan(program, model.folded)
            reason = ""
        except NotInteger as exc:
            reason = str(exc)
    quantizers = _fusions(program, model) if model.kinds else {}
    model.fused = {layer: model.kinds[q] for q, layer in quantizers.items()}
    model.item_bytes = {n: k.itemsize for n, k in model.kinds.items() if isinstance(k, Codes)}
    model.item_bytes.update({n: c.itemsize for n, c in model.fused.items()})
    plan = model.plan = plan_arena(program, model.folded, model.item_bytes, set(quantizers))
    blocks: list[str] = []
    layers: list[dict[str, Any]] = []
    problems: list[str] = []
    for step in program.steps:
        if step.name in model.folded:
            continue  # its value is a constant array, written where a layer reads it
        buffer = plan.of_step[step.name]
        row = {
            "name": step.name,
            "type": step.type,
            "shape": list(step.shape),
            "flash_bytes": 0,
            "ram_bytes": 0,
            "arena_offset_bytes": None if buffer is None else buffer.offset,
            "shares_input_buffer": buffer is None or buffer.steps[0] != step.name,
        }
        layers.append(row)
        if step.type in ALIASES or step.name in quantizers:
            continue  # a quantizer fused into the layer before it: that layer writes the codes
        ctx = Context(model, step)
        kind = model.kinds.get(step.name)
        key = kind if isinstance(kind, str) else step.type
        writer = INTEGER_WRITERS[key] if kind is not None else WRITERS[step.type]
        try:
            body = writer(ctx, step)
        except (_StepError, ValueError, KeyError, TypeError, IndexError) as exc:
            problems.append(f'layer "{step.name}" ({step.type}): {exc}')
            continue
        row["flash_bytes"] = ctx.flash
        if not row["shares_input_buffer"]:
            row["ram_bytes"] = model.item_bytes.get(step.name, 4) * math.prod(step.shape)
        shape = ",".join(map(str, step.shape))
        blocks.append(f"  /* {_comment(step.name)} ({step.type}) -> {shape} */\n  {{\n"
                      + "".join(f"    {line}\n" for line in body) + "  }\n")  # fmt: skip
    if problems:
        raise ExportError(f'network "{network}" cannot be exported to C: {"; ".join(problems)}')
    (feed, in_shape), ((out_name, out_ref),) = next(iter(program.feeds.items())), program.outputs
    out_size = math.prod(model.shapes[out_ref[1]])
    in_size = math.prod(in_shape)
    flash = sum(a.nbytes for _, a, _ in model.arrays)
    declarations = "".join(f"extern const {_CTYPE[a.dtype.kind, a.itemsize]} {n}[{a.size}]; "
                           f"/* {_comment(c)} */\n" for n, a, c in model.arrays)  # fmt: skip
    out_codes = model.kinds.get(out_ref[1])
    if isinstance(out_codes, Codes):
        copy = (f"  {{\n    const {out_codes.ctype} *x = {model.pointer(out_ref)};\n    int i;\n"
                f"    for (i = 0; i < {out_size}; ++i) out[i] = (float)x[i] * "
                f"{flt(2.0**out_codes.exponent)};\n  }}\n")  # fmt: skip
    else:
        copy = f"  memcpy(out, {model.pointer(out_ref)}, sizeof(float) * {out_size});\n"
    uses_pow2 = any(s.type == "Pow2Quantize" for s in program.steps)
    title = _comment(network)
    header = (
        f"/* {title}: written by neurocanvas export c. */\n"
        "#ifndef NEUROCANVAS_MODEL_H\n#define NEUROCANVAS_MODEL_H\n\n"
        f'/* input "{_comment(feed)}": {", ".join(map(str, in_shape))} (channels first) */\n'
        f"#define MODEL_INPUT_SIZE {in_size}\n"
        f'/* output "{_comment(out_name)}": {", ".join(map(str, model.shapes[out_ref[1]]))} */\n'
        f"#define MODEL_OUTPUT_SIZE {out_size}\n"
        f"#define MODEL_ARENA_BYTES {plan.bytes}\n"
        f"#define MODEL_PARAMETER_BYTES {flash}\n"
        f"/* 1: 8-bit images are divided by 255 before the model (Image Normalization) */\n"
        f"#define MODEL_NORMALIZE {1 if normalize else 0}\n\n"
        "/* One sample: in[MODEL_INPUT_SIZE] -> out[MODEL_OUTPUT_SIZE]. Not reentrant (one "
        "static arena). */\n"
        "void model_infer(const float *in, float *out);\n\n#endif\n"
    )
    source = (
        f"/* {title}: the layers of the runtime network (neurocanvas export c). */\n"
        '#include <math.h>\n#include <stdint.h>\n#include <string.h>\n\n#include "model.h"\n\n'
        + declarations
        + f"\n/* Activations: {plan.bytes} bytes, buffers reused as lifetimes allow. */\n"
        f"static float nc_arena[{max(-(-plan.size // 4), 1)}];\n\n"
        + (_POW2 if uses_pow2 else "")
        + "void model_infer(const float *in, float *out) {\n"
        + "".join(blocks)
        + copy
        + "}\n"
    )
    parameters = (
        f"/* {title}: parameters (neurocanvas export c), {flash} bytes. */\n"
        + "#include <stdint.h>\n\n"
        + declarations
        + "\n"
        + "".join(_array(n, a, c) for n, a, c in model.arrays)
    )
    summary = {
        "network": network,
        "input": {"name": feed, "shape": list(in_shape)},
        "output": {"name": out_name, "shape": list(model.shapes[out_ref[1]])},
        "flash_bytes": flash,
        "ram_bytes": plan.bytes,
        "arithmetic": "integer" if model.kinds else "float",
        "float_because": reason,
        # sums that can pass 2^24 units (exact in int64 here, rounded by the engine) and
        # functions of 16-bit codes (C's float function): a code after them may differ by one
        "rounded_layers": [n for n, k in model.kinds.items() if k in ("mac64", "fn")],
        "arena_buffers": len(plan.buffers),
        "activations_without_reuse_bytes": sum(r["ram_bytes"] for r in layers),
        "layers": layers,
        "nnc_statistics": dict(statistics or {}),
    }
    return {
        "model.h": header,
        "model.c": source,
        "parameters.c": parameters,
        "main.c": MAIN_C,
        "Makefile": MAKEFILE,
        "export_summary.json": json.dumps(summary, indent=2) + "\n",
    }


_POW2 = """/* 2 ** round(log2(a)) (half away from 0), clipped to [p_min, p_max]; below: small */
static float nc_pow2(float a, float p_max, float p_min, float small) {
  float q = a > 0.0f ? exp2f(roundf(log2f(a))) : 0.0f;
  return q > p_max ? p_max : q < p_min ? small : q;
}

"""


_CTYPE = {
    ("f", 4): "float",
    ("i", 1): "int8_t",
    ("i", 2): "int16_t",
    ("i", 4): "int32_t",
    ("i", 8): "int64_t",
}


def _array(name: str, value: np.ndarray, comment: str) -> str:
    flat = value.reshape(-1)
    text = flt if value.dtype.kind == "f" else lambda v: str(int(v))
    per = 8 if value.dtype.kind == "f" else 16
    rows = [", ".join(text(v) for v in flat[i : i + per]) for i in range(0, flat.size, per)]
    body = ",\n".join(f"  {row}" for row in rows)
    ctype = _CTYPE[value.dtype.kind, value.itemsize]
    return f"/* {_comment(comment)} */\nconst {ctype} {name}[{flat.size}] = {{\n{body}\n}};\n\n"


def export_c(source: Any, out: str | Path, force: bool = False,
             arithmetic: str = "auto") -> list[Path]:  # fmt: skip
    """Write the C export of ``source.runtime`` into the folder ``out``; returns the files.
    ``arithmetic``: ``auto`` (integer for a FixedPointQuantize network where exact, see
    :mod:`integer`) or ``float``.

    Raises:
        ExportError: no runtime network, unsupported layers (all named), ``out`` exists
            without ``force``; nothing is written then.
    """
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise ExportError(f"{out}: is a file; -o names the folder to write")
    if out.is_dir() and not force:
        raise ExportError(f"{out}: exists; choose a new folder (--force overwrites the files "
                          "an export writes there)")  # fmt: skip
    if not out.parent.is_dir():
        raise ExportError(f"{out}: the folder {out.parent} does not exist")
    program = compiled_runtime(source, "C", unsupported_c_steps)  # before any parameter is read
    values = parameter_values(source, program)
    files = c_files(program, values, source.normalize, _statistics(source), arithmetic)
    return _write_folder(out, files)


def _statistics(source: Any) -> dict[str, Any]:
    """NNC's statistics of the runtime network (as ``neurocanvas cost``), or {} when unknown."""
    try:
        inference = ProjectInference(source.project, follow=False)
        drawn = counted_as(source.project, source.runtime) or source.runtime
        return dict(network_statistics(inference.network(drawn)).summary())
    except Exception:  # noqa: BLE001 - the statistics are an extra; the export stands alone
        return {}


def _write_folder(out: Path, files: Mapping[str, str]) -> list[Path]:
    """All files into a temporary folder beside ``out``, then moved into place."""
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.", dir=out.parent))
    try:
        for name, text in files.items():
            (tmp / name).write_text(text, encoding="utf-8", newline="\n")
        if not out.exists():
            os.replace(tmp, out)
            return [out / name for name in files]
        for name in files:
            os.replace(tmp / name, out / name)
        return [out / name for name in files]
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

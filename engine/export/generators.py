"""Generator inputs (NNC's Input ``Generator``, a side input's ``<c>.Generator``) in exported code.

nnabla's runtime fills a ``generator_variable`` each iteration with an initializer called on the
variable's shape (``nnabla.utils.load``: Normal -> ``NormalInitializer(sigma=m)``, Uniform ->
``UniformInitializer((-m, m))``, Constant -> ``ConstantInitializer(m)``, Range ->
``RangeInitializer(0, m)``); the engine does the same (``GeneratorDecl.generate``), drawing from
its random generator. Exported code writes that call, with the batch size of the real inputs, so
it draws the engine's numbers in the engine's order under the same ``nn.seed``. A Constant is
``F.constant``, which needs no random generator.
"""

from __future__ import annotations

from engine.export.literals import ExportError, literal
from engine.runtime.program import GeneratorDecl

__all__ = ["generator_call", "generator_doc"]


def generator_call(decl: GeneratorDecl, batch: str) -> str:
    """The expression that makes the generator's batch; ``batch`` is the batch size's source."""
    shape = f"({batch}, {', '.join(literal(int(n)) for n in decl.shape)})"
    m = literal(float(decl.multiplier))
    if decl.kind == "Constant":
        return f"F.constant({m}, {shape})"
    init = {
        "Normal": f"I.NormalInitializer({m})",
        "Uniform": f"I.UniformInitializer(({literal(-float(decl.multiplier))}, {m}))",
        "Range": f"I.RangeInitializer(0.0, {m})",
    }.get(decl.kind)
    if init is None:
        raise ExportError(f"unknown generator {decl.kind!r} (expected Normal, Uniform, Constant "
                          f"or Range)")  # fmt: skip
    return f"nn.Variable.from_numpy_array({init}({shape}))"


def generator_doc(decl: GeneratorDecl) -> str:
    """What the generator makes, for the function's docstring."""
    m = float(decl.multiplier)
    return {
        "Normal": f"Normal noise, sigma {m:g}",
        "Uniform": f"Uniform noise in [{-m:g}, {m:g})",
        "Constant": f"every element {m:g}",
        "Range": f"0, {m:g}, {2 * m:g}, ... along the last axis",
    }.get(decl.kind, decl.kind)

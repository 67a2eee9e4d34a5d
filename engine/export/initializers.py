"""Initializers in exported code: NNC's named initializers written in nnabla's vocabulary.

NNC names an initializer (``NormalConvolutionGlorot``, multiplier 1.0); nnabla's parametric
functions take an initializer object. :func:`initializer_text` writes the object nnabla's
``graph_def._create_initializer`` builds for that name (docs/layers.md §1.7), with the fans
read from the weight shape, e.g. ``I.NormalInitializer(I.calc_normal_std_glorot(1, 16, (3, 3)))``.
Only functions both ``engine.nn.initializer`` and ``nnabla.initializer`` have are written.

:func:`pf_default` says which initializer a parametric function uses when none is passed: the
catalogue's default for ``engine.nn.parametric`` (NeuroCanvas keeps NNC's defaults) and nnabla's
own for ``nnabla.parametric_functions`` (Glorot uniform weights, running variance 1), so the export
passes ``w_init=...`` exactly where the target would otherwise initialize differently.
"""

from __future__ import annotations

from engine.export.literals import ExportError, literal
from engine.layers import find_spec
from engine.nn import initializer as I

__all__ = ["initializer_text", "pf_default"]

_GLOROT_UNIFORM = ("UniformAffineGlorot", "UniformConvolutionGlorot", "UniformCLConvGlorot")
_STD = {
    "HeForward": "calc_normal_std_he_forward",
    "HeBackward": "calc_normal_std_he_backward",
    "Glorot": "calc_normal_std_glorot",
}

# nnabla 1.39 parametric_functions defaults, as NNC initializer names (where one is equivalent).
_NNABLA_AFFINE = ("affine", "binary_connect_affine", "binary_weight_affine")
_NNABLA_CONV = ("convolution", "binary_connect_convolution", "binary_weight_convolution")
_NNABLA_STATS = {"beta": ("Constant", 0.0), "gamma": ("Constant", 1.0),
                 "mean": ("Constant", 0.0), "var": ("Constant", 1.0)}  # fmt: skip


def _number(value: float) -> str:
    return literal(float(value))


def _fans(name: str, shape: tuple[int, ...], fans: tuple[str, str] | None) -> str:
    cls = I.NNC_INITIALIZERS[name]
    inmaps, outmaps, kernel = cls.fans(tuple(shape))
    args = list(fans) if fans else [str(int(inmaps)), str(int(outmaps))]
    if any(int(k) != 1 for k in kernel):
        args.append(literal(tuple(int(k) for k in kernel)))
    return ", ".join(args)


def initializer_text(
    name: str, multiplier: float, shape: tuple[int, ...], fans: tuple[str, str] | None = None
) -> str:
    """``I.<Initializer>(...)`` for NNC initializer ``name`` x ``multiplier`` of a ``shape``;
    ``fans`` replaces the numbers of input and output maps by source text (in a unit body
    they follow the input and the arguments: ``x.shape[1], squeeze``)."""
    if name not in I.NNC_INITIALIZERS:
        raise ExportError(f"unknown initializer {name!r}")
    name = I.NNC_INITIALIZERS[name].nnc_name  # legacy spellings
    m = float(multiplier)
    if name == "Constant":
        return f"I.ConstantInitializer({_number(m)})"
    if name == "Normal":
        return f"I.NormalInitializer({_number(m)})"
    if name == "Uniform":
        return f"I.UniformInitializer(({_number(-m)}, {_number(m)}))"
    if name == "Range":
        return f"I.RangeInitializer(0.0, {_number(m)})"
    if name in _GLOROT_UNIFORM:
        if m == 1.0:
            return f"I.UniformInitializer(I.calc_uniform_lim_glorot({_fans(name, shape, fans)}))"
        bound = I.NNC_INITIALIZERS[name](m).bound(shape) * m
        return f"I.UniformInitializer(({_number(-bound)}, {_number(bound)}))"
    kind = next(k for k in _STD if name.endswith(k))
    std = f"I.{_STD[kind]}({_fans(name, shape, fans)})"
    return f"I.NormalInitializer({std if m == 1.0 else f'{std} * {_number(m)}'})"


def pf_default(
    target: str, layer_type: str, pf: str, pname: str, kwargs: dict
) -> tuple[str, float] | None:
    """(NNC initializer name, multiplier) ``PF.<pf>`` of ``target`` gives parameter ``pname``
    when no initializer is passed; None when no NNC name describes it."""
    spec = find_spec(layer_type)
    declared = next((p for p in spec.parameters if p.name == pname), None) if spec else None
    catalogue = (declared.initializer, declared.multiplier) if declared else None
    if pname == "alpha" and pf.startswith("binary_weight"):  # both PFs: Constant 0, no argument
        return ("Constant", 0.0)
    if target != "nnabla":
        return catalogue
    if pname == "b":
        return ("Constant", 0.0)
    if pname in _NNABLA_STATS:
        return _NNABLA_STATS[pname]
    if pname == "slope":
        return ("Constant", 0.25)
    if pname in ("W", "Wb") and pf in _NNABLA_AFFINE:
        return ("UniformAffineGlorot", 1.0)
    plain = kwargs.get("group", 1) == 1 and not kwargs.get("channel_last", False)
    if pname in ("W", "Wb") and pf in _NNABLA_CONV and plain:
        return ("UniformConvolutionGlorot", 1.0)
    if pf == "mean_subtraction":  # buffers the function writes
        return catalogue
    return None

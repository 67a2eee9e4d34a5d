"""Short constructors for the layer declarations in the category modules.

The groups that repeat across Sony's definition files (the computed ``Input``/``Output``
properties, the four ``<p>.File/Initializer/InitializerMultiplier/LRateMultiplier`` properties of
a parameter, the three ``<c>.Dataset/Generator/GeneratorMultiplier`` properties of a data side
input) are written once here, so each layer declaration reads like its definition file.
"""

from __future__ import annotations

from collections.abc import Mapping

from engine.layers.property_types import (
    BOOLEAN,
    DATASET,
    FILE,
    FLOAT,
    NONNEGATIVE_FLOAT,
    OPTION,
    PINT_ARRAY,
    PINT_ARRAYS,
    TEXT,
    PropertyType,
)
from engine.layers.spec import (
    ArgumentName,
    Component,
    ConnectorKind,
    Inputs,
    LayerSpec,
    OnnxRule,
    Outputs,
    PropertySpec,
    SideConnector,
    Support,
)

__all__ = [
    "prop",
    "output",
    "param",
    "data",
    "param_props",
    "data_props",
    "layer",
    "INPUT",
    "INPUT_IO",
    "INPUTS",
    "PARAMETER_SCOPE",
    "IS_LOSS",
    "SKIP_AT_TEST",
    "BIAS_INIT",
    "AFFINE_INIT",
    "CONV_INIT",
    "CONV_INIT_NO_CL",
    "GENERATORS",
    "Component",
    "OnnxRule",
    "Inputs",
    "Outputs",
    "Support",
]

# Initializer option lists (docs/layers.md §1.7) and data generators (§1.8).
BIAS_INIT = ("Normal", "Uniform", "Constant")
AFFINE_INIT = (
    "Normal", "NormalAffineHeForward", "NormalAffineHeBackward", "NormalAffineGlorot", "Uniform",
    "UniformAffineGlorot", "Constant",
)  # fmt: skip
CONV_INIT_NO_CL = (
    "Normal", "NormalConvolutionHeForward", "NormalConvolutionHeBackward",
    "NormalConvolutionGlorot", "Uniform", "UniformConvolutionGlorot", "Constant",
)  # fmt: skip
CONV_INIT = (
    "Normal", "NormalConvolutionHeForward", "NormalConvolutionHeBackward",
    "NormalConvolutionGlorot", "NormalCLConvHeForward", "NormalCLConvHeBackward",
    "NormalCLConvGlorot", "Uniform", "UniformConvolutionGlorot", "UniformCLConvGlorot", "Constant",
)  # fmt: skip
GENERATORS = ("None", "Normal", "Uniform", "Constant")


def prop(
    name: str,
    type_: PropertyType,
    default: str = "",
    *,
    options: tuple[str, ...] = (),
    computed: bool = False,
    optional: bool = False,
    canvas: bool = False,
    short: str | None = None,
    search: bool = False,
    hidden: bool = False,
    arg: str | None = None,
    legacy: tuple[str, ...] = (),
) -> PropertySpec:
    """A property; the keywords are the flags of the catalogue tables (docs/layers.md §1.1)."""
    return PropertySpec(
        name=name,
        type=type_,
        default=default,
        options=options,
        editable=not computed,
        required=not optional,
        important=canvas,
        short_name=short,
        search=search,
        visible=not hidden,
        argument=ArgumentName.parse(arg) if arg else None,
        legacy_names=legacy,
    )


def output(rule: str = "*Input", type_: PropertyType = PINT_ARRAY) -> PropertySpec:
    """The computed ``Output`` property, whose default is the layer's output-shape rule."""
    return prop("Output", type_, rule, computed=True)


INPUT = prop("Input", PINT_ARRAY, "*GraphInput", computed=True)
INPUT_IO = prop("Input", PINT_ARRAY, "*GraphIO", computed=True)
INPUTS = prop("Inputs", PINT_ARRAYS, "*GraphInputs", computed=True)
PARAMETER_SCOPE = prop("ParameterScope", TEXT, "*Name")
IS_LOSS = prop("IsLossFunction", BOOLEAN, "True", computed=True)
# NNCD reads the old name SkipAtInspection as SkipAtTest (docs/formats.md §1.4).
SKIP_AT_TEST = prop("SkipAtTest", BOOLEAN, "True", legacy=("SkipAtInspection",))


def param(
    name: str,
    shape: str,
    *,
    enable: str = "True",
    short: str | None = None,
    path: str | None = None,
) -> SideConnector:
    """A Kind=Parameter side connector: a parameter the layer owns."""
    return SideConnector(name, ConnectorKind.PARAMETER, shape, enable, short, path)


def data(name: str, shape: str = "*Input", *, short: str | None = None) -> SideConnector:
    """A Kind=Data side connector: an extra data input (wired, dataset variable or generator)."""
    return SideConnector(name, ConnectorKind.DATA, shape, "True", short)


def param_props(
    name: str,
    initializer: str,
    options: tuple[str, ...],
    *,
    multiplier: str = "1.0",
    lr: str = "1.0",
) -> tuple[PropertySpec, ...]:
    """``<p>.File``, ``<p>.Initializer``, ``<p>.InitializerMultiplier``, ``<p>.LRateMultiplier``."""
    return (
        prop(f"{name}.File", FILE, optional=True),
        prop(f"{name}.Initializer", OPTION, initializer, options=options),
        prop(f"{name}.InitializerMultiplier", FLOAT, multiplier),
        prop(f"{name}.LRateMultiplier", NONNEGATIVE_FLOAT, lr),
    )


def data_props(
    name: str,
    *,
    dataset: str = "",
    generator: str = "Constant",
    multiplier: str = "1.0",
    canvas: bool = False,
    optional: bool = True,
) -> tuple[PropertySpec, ...]:
    """``<c>.Dataset``, ``<c>.Generator``, ``<c>.GeneratorMultiplier`` of a data side input."""
    return (
        prop(f"{name}.Dataset", DATASET, dataset, canvas=canvas, optional=optional),
        prop(f"{name}.Generator", OPTION, generator, options=GENERATORS),
        prop(f"{name}.GeneratorMultiplier", FLOAT, multiplier),
    )


def layer(
    type_: str,
    category: str,
    description: str,
    properties: tuple[PropertySpec, ...],
    *,
    costs: Mapping[str, str] | None = None,
    connectors: tuple[SideConnector, ...] = (),
    onnx: OnnxRule | str | None = None,
    **fields: object,
) -> LayerSpec:
    """A :class:`LayerSpec`; ``costs`` maps a statistic to its rule as NNC writes it, ``onnx``
    is an :class:`OnnxRule` or the name of the operator that computes the layer one to one
    (its attributes are the nnabla arguments of the same name, ``alpha``)."""
    return LayerSpec(
        type=type_,
        category=category,
        description=description,
        properties=properties,
        connectors=connectors,
        costs=tuple((costs or {}).items()),
        onnx=OnnxRule(onnx) if isinstance(onnx, str) else onnx,
        **fields,  # type: ignore[arg-type]
    )

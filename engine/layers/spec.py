"""Frozen declarations of NNC layer types: one :class:`LayerSpec` per type.

A spec mirrors Sony's layer definition file (``<Category>/<Layer>.txt``, docs/layers.md §1.1):
pins, side connectors, the ordered properties with NNC's raw default strings, costs as NNC writes
them, plus what NeuroCanvas adds: the ``F`` function that runs the layer and how it is supported.
Shape and cost rules are the raw NNC strings (``*ConvolutionOutputSize``, ``*Calc +*Input``);
:mod:`engine.layers.evaluate` evaluates them.
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property

from engine.core.messages import QT_TRANSLATE_NOOP
from engine.layers.property_types import PropertyType, PropertyValueError, Value

__all__ = [
    "STATISTICS",
    "COST_STATISTICS",
    "Inputs",
    "Outputs",
    "ConnectorKind",
    "Component",
    "Support",
    "ArgumentName",
    "PropertySpec",
    "SideConnector",
    "ParameterSpec",
    "LayerSpec",
    "UnsupportedLayerError",
    "LEGACY_OPTIONS",
    "OnnxRule",
]

# The eight statistics in NNC's order (docs/layers.md §1.6).
STATISTICS = (
    "Output", "CostParameter", "CostAdd", "CostMultiply", "CostMultiplyAdd", "CostDivision",
    "CostExp", "CostIf",
)  # fmt: skip
COST_STATISTICS = STATISTICS[1:]

# What each statistic counts, per sample, as the statistics pane explains it (docs/layers.md §1.6).
STATISTIC_MEANINGS = {
    "Output": "Values the layers output, summed over the network: Input, Parameter and loss "
    "layers included. As in NNC, a Unit layer counts only its own output, not the outputs of "
    "the layers inside it (the costs below do count everything inside), so making a Unit of "
    "some layers lowers Output and leaves the costs unchanged.",
    "CostParameter": "Parameters the layers own (weights, biases, Parameter layers), counting a "
    "parameter shared by name once per layer that uses it.",
    "CostAdd": "Additions and subtractions.",
    "CostMultiply": "Multiplications that are not part of a multiply-add.",
    "CostMultiplyAdd": "Multiply-adds (a convolution or affine layer's products summed).",
    "CostDivision": "Divisions.",
    "CostExp": "Exponentials, logarithms and powers (also inside tanh and sigmoid).",
    "CostIf": "Comparisons and branches (max, ReLU, pooling comparisons).",
    "UniqueParameters": "Parameters counted once each, however many layers share them.",
    "FLOPs": "Floating-point operations of one forward pass: 2 x the multiply-adds.",
    "ParameterBytes": "Memory of the unique parameters at their storage type.",
}


class Inputs(enum.StrEnum):
    """``[IO] Input=``: how many links the main input pin (pin 0) takes."""

    NONE = "None"
    SINGLE = "Single"
    SINGLE_OR_NONE = "SingleOrNone"
    MULTIPLE = "Multiple"


class Outputs(enum.StrEnum):
    """``[IO] Output=``: ``Any`` is one output that may feed any number of layers."""

    NONE = "None"
    ANY = "Any"
    MULTIPLE = "Multiple"


class ConnectorKind(enum.StrEnum):
    PARAMETER = "Parameter"  # a learnable parameter the layer owns (unless a layer is wired in)
    DATA = "Data"  # an extra data input: wired, or a dataset variable / generator


class Component(enum.StrEnum):
    """``[Display] ComponentType``: special layers that do not compute."""

    ARGUMENT = "Argument"
    SETTING = "Setting"
    COMMENT = "Comment"


class Support(enum.StrEnum):
    """How the NeuroCanvas engine runs a layer type."""

    KERNEL = "kernel"  # an ``engine.nn.functions`` function computes it
    GRAPH = "graph"  # the network compiler handles it (inputs, parameters, loops, units)
    ANNOTATION = "annotation"  # computes nothing (comments, arguments, settings)
    UNSUPPORTED = "unsupported"  # opens, shows shapes and costs, but cannot run yet


# Option values older NNC versions wrote (Sony's binary_semantic_segmentation sample uses
# ``NormalConvolutionHe``); they read as today's name (docs/layers.md §1.7 "He(Forward)").
LEGACY_OPTIONS = {
    "NormalConvolutionHe": "NormalConvolutionHeForward",
    "NormalAffineHe": "NormalAffineHeForward",
    "NormalCLConvHe": "NormalCLConvHeForward",
}


class UnsupportedLayerError(Exception):
    """Raised when a run is asked for a layer type the engine cannot run yet."""


@dataclass(frozen=True)
class ArgumentName:
    """``ArgumentName=<fn>_param.<arg> [flags]``: the nnabla argument a property maps to (§1.4)."""

    name: str
    flags: tuple[str, ...] = ()

    @classmethod
    def parse(cls, raw: str) -> ArgumentName:
        name, *flags = raw.split()
        return cls(name, tuple(flags))

    @property
    def is_axis(self) -> bool:
        """``-a``: an axis counted without the batch axis; +1 on export."""
        return "-a" in self.flags

    @property
    def test_value(self) -> bool | None:
        """``-test=<v>``: the value forced in test-modified networks, or None."""
        for flag in self.flags:
            if flag.startswith("-test="):
                return flag.removeprefix("-test=") == "True"
        return None

    def __str__(self) -> str:
        return " ".join((self.name, *self.flags))


@dataclass(frozen=True)
class PropertySpec:
    """One ``[Property_<name>]``; ``default`` is the raw text NNC writes (may be a macro)."""

    name: str
    type: PropertyType
    default: str = ""
    options: tuple[str, ...] = ()
    editable: bool = True  # False: computed by the app (``Editable=False``)
    required: bool = True  # False: may be empty
    important: bool = False  # shown on the canvas box
    short_name: str | None = None
    search: bool = False  # structure search may change it
    visible: bool = True
    argument: ArgumentName | None = None
    legacy_names: tuple[str, ...] = ()

    @property
    def label(self) -> str:
        return self.short_name or self.name

    def parse(self, raw: str) -> Value:
        """The typed value of a literal string, checked against the options of an Option."""
        if raw == "" and not self.required:
            return ""
        return self.check_option(self.type.parse(raw, self.name))

    def coerce(self, value: Value) -> Value:
        """Converts a computed value to this property's type (same checks as :meth:`parse`)."""
        return self.check_option(self.type.coerce(value, self.name))

    def check_option(self, value: Value) -> Value:
        """The value, checked against the options of an Option (legacy names are renamed)."""
        if not self.options or value in self.options:
            return value
        legacy = LEGACY_OPTIONS.get(value) if isinstance(value, str) else None
        if legacy is not None and legacy in self.options:
            return legacy
        if self.options and value not in self.options:
            raise PropertyValueError(
                QT_TRANSLATE_NOOP(
                    "Problems",
                    "property {name}: expected one of {options}. Received: {name}={value}",
                ).format(name=self.name, options=", ".join(self.options), value=value)
            )
        return value


@dataclass(frozen=True)
class SideConnector:
    """An ``[InputSideConnector_<name>]``: pin ``index + 1`` on the layer box."""

    name: str
    kind: ConnectorKind
    shape: str  # shape rule as NNC writes it, e.g. ``*AffineWeightShape``
    enable: str = "True"  # ``True`` or a property macro such as ``*WithBias``
    short_name: str | None = None
    parameter_path: str | None = None  # path inside the built-in unit (LSTM: ``Affine/affine/W``)

    @property
    def label(self) -> str:
        """The text on the connector circle: ShortName or the first letter (§1.9)."""
        return self.short_name or self.name[0]


@dataclass(frozen=True)
class ParameterSpec:
    """A parameter a layer owns, with its initializer defaults from the ``<p>.*`` properties."""

    name: str
    shape: str
    enable: str
    initializer: str
    multiplier: float
    lr_multiplier: float
    path: str | None = None  # fixed inner path (LSTM), else ``<fn scope>/<name>``


@dataclass(frozen=True)
class OnnxRule:
    """How a layer is written as ONNX and read back: the exporter and the importer read only this.

    ``op`` is the operator the layer is written as. ``write(graph, step, inputs)`` returns the
    output tensor after adding the nodes (None: ``op`` one to one, with the step's arguments
    that are attributes of ``op``). ``read(ctx, node)`` turns a node of one of the operators
    ``reads`` into layers (None: the one-to-one reading of ``op``). ``reads`` defaults to
    ``(op,)``; it is empty for a layer that another entry's rule reads back (AddScalar comes
    back through Add2's ``Add``), and each operator is read by one entry only. The ``graph``
    and ``ctx`` interfaces are described in :mod:`engine.layers.onnx_rules`.
    """

    op: str
    write: Callable[..., str] | None = None
    read: Callable[..., None] | None = None
    reads: tuple[str, ...] | None = None
    # ``read`` writes every output of the node (Split), not only the first
    all_outputs: bool = False

    @property
    def operators_read(self) -> tuple[str, ...]:
        return (self.op,) if self.reads is None else self.reads


@dataclass(frozen=True)
class LayerSpec:
    """Everything NeuroCanvas knows about one NNC layer type."""

    type: str
    category: str
    description: str
    properties: tuple[PropertySpec, ...]
    connectors: tuple[SideConnector, ...] = ()
    inputs: Inputs = Inputs.SINGLE
    outputs: Outputs = Outputs.ANY
    # Cost statistic -> rule as NNC writes it; statistics not listed are 0.
    costs: tuple[tuple[str, str], ...] = ()
    function: str | None = None  # engine.nn.functions name (nnabla snake_case)
    support: Support = Support.KERNEL
    fn_scope: str | None = None  # ``[Global] ParameterScope``: ``conv`` in ``Conv1/conv/W``
    export_name: str | None = None  # ``[Global] FunctionName`` as written (Python export hint)
    # How the layer is written as ONNX and read back (export and import both read it).
    onnx: OnnxRule | None = None
    color: int | None = None
    component: Component | None = None
    hidden: bool = False  # ``Hidden=True``: not offered in the palette
    in_palette: bool = True  # listed in layer_component.txt
    is_param: bool | None = None
    position_top: bool = False  # ``Default_Position_Vertical=Top``
    reference: str = ""
    version: int = 1
    legacy_names: tuple[str, ...] = ()
    palette_order: int | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        names = [p.name for p in self.properties]
        if len(set(names)) != len(names):
            raise ValueError(f"layer {self.type}: duplicate property names")
        if self.support is Support.KERNEL and not self.function:
            raise ValueError(f"layer {self.type}: a kernel layer needs its F function name")
        for stat, _ in self.costs:
            if stat not in COST_STATISTICS:
                raise ValueError(f"layer {self.type}: unknown cost statistic {stat}")

    @cached_property
    def _by_name(self) -> dict[str, PropertySpec]:
        table = {p.name: p for p in self.properties}
        for p in self.properties:
            for legacy in p.legacy_names:
                table.setdefault(legacy, p)
        return table

    def prop(self, name: str) -> PropertySpec | None:
        """The property called ``name`` (or by a legacy name), or None."""
        return self._by_name.get(name)

    def defaults(self) -> dict[str, str]:
        """Property name -> raw default text, in declaration order."""
        return {p.name: p.default for p in self.properties}

    @property
    def output_rule(self) -> str | None:
        """The output-shape rule: the default of the computed ``Output`` property."""
        prop = self.prop("Output")
        return prop.default if prop else None

    def cost_rule(self, statistic: str) -> str | None:
        return dict(self.costs).get(statistic)

    @property
    def is_loss(self) -> bool:
        prop = self.prop("IsLossFunction")
        return prop is not None and prop.default == "True"

    @property
    def has_skip_at_test(self) -> bool:
        return self.prop("SkipAtTest") is not None

    def connector(self, name: str) -> SideConnector | None:
        return next((c for c in self.connectors if c.name == name), None)

    def pin_of(self, connector: str) -> int:
        """The link ``DestPinIndex`` of a side connector (1-based; 0 is the main input)."""
        for index, c in enumerate(self.connectors):
            if c.name == connector:
                return index + 1
        raise KeyError(f"layer {self.type} has no side connector {connector}")

    def connector_at(self, pin: int) -> SideConnector | None:
        return self.connectors[pin - 1] if 1 <= pin <= len(self.connectors) else None

    @cached_property
    def parameters(self) -> tuple[ParameterSpec, ...]:
        """The parameters this layer owns: its Kind=Parameter side connectors."""
        result = []
        for c in self.connectors:
            if c.kind is not ConnectorKind.PARAMETER:
                continue
            init = self.prop(f"{c.name}.Initializer")
            mult = self.prop(f"{c.name}.InitializerMultiplier")
            lr = self.prop(f"{c.name}.LRateMultiplier")
            result.append(
                ParameterSpec(
                    name=c.name,
                    shape=c.shape,
                    enable=c.enable,
                    initializer=init.default if init else "Constant",
                    multiplier=float(mult.default) if mult else 0.0,
                    lr_multiplier=float(lr.default) if lr else 1.0,
                    path=c.parameter_path,
                )
            )
        return tuple(result)

    def require_runnable(self) -> None:
        """Raises :class:`UnsupportedLayerError` for a type the engine cannot run yet."""
        if self.support is Support.UNSUPPORTED:
            raise UnsupportedLayerError(
                f"layer type {self.type} is not supported by the engine yet"
            )

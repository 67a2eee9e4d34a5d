"""Evaluate one layer's rules: typed property values, output shape, connector shapes, costs.

:class:`LayerEval` resolves every property lazily from its raw text (the value given in the
project, else the spec default): literals are parsed by the property type, ``*Macro`` values and
expressions go through :mod:`engine.layers.expr`, the closed-utility macros through
:mod:`engine.layers.macros`. What a rule needs from the network around the layer (input shapes,
wired connectors, unit arguments, repeat counts) it asks a :class:`LayerContext`; the graph
package supplies one that knows the network, tests use :class:`StaticContext`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache

from engine.core.messages import QT_TRANSLATE_NOOP, text_of
from engine.layers.expr import (
    ExpressionError,
    evaluate,
    evaluate_calc,
    is_calc,
    product,
)
from engine.layers.macros import MACROS, ShapeError
from engine.layers.property_types import (
    INT,
    PINT_ARRAY,
    PINT_ARRAYS,
    TYPES,
    PropertyType,
    PropertyValueError,
    Value,
)
from engine.layers.spec import LayerSpec

__all__ = [
    "NOT_CONNECTED",
    "LayerContext",
    "StaticContext",
    "LayerEval",
    "RuleError",
    "InputShapeError",
    "Shape",
    "auto_value",
]

Shape = tuple[int, ...]

# A layer with nothing linked into its main input, said as a user would (no property, no
# *GraphInput value): the layer box's tooltip and the problems list show it.
NOT_CONNECTED = QT_TRANSLATE_NOOP(
    "Problems", "nothing is linked into its input: draw a link into it from the layer above"
)
_NO_PROPERTY = QT_TRANSLATE_NOOP("Problems", "layer type {type} has no property {prop}")
_NO_CONNECTOR = QT_TRANSLATE_NOOP("Problems", "layer type {type} has no side connector {name}")
_ITSELF = QT_TRANSLATE_NOOP("Problems", "property {prop} refers to itself ({chain})")
_INSIDE_ONLY = QT_TRANSLATE_NOOP("Problems", "*{name} can only be resolved inside a network")
_UNKNOWN_NAME = QT_TRANSLATE_NOOP("Problems", "unknown name {name}")
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# Text-like types keep a bare word as text; only ``*Macro`` values are resolved.
# ``Inputs`` always holds a list of shapes (BatchMatmul declares it PIntArray, a slip).
_TEXT_TYPES = ("Text", "File", "Dataset", "Option")


class RuleError(ValueError):
    """A property, shape or cost rule that cannot be evaluated; names the property."""

    def __init__(self, message: str, prop: str | None = None) -> None:
        super().__init__(message)
        self.prop = prop


class InputShapeError(RuleError):
    """An input whose producer has no shape; the producer reports the cause."""


class LayerContext:
    """What a layer's rules may ask of the network around it. This base has no network."""

    def input_shapes(self) -> tuple[Shape, ...]:
        """Shapes of the links into the main input (pin 0), in link order."""
        return ()

    def side_input_shape(self, connector: str) -> Shape | None:
        """Shape of the layer wired into a side connector, or None when none is."""
        return None

    def is_wired(self, connector: str) -> bool:
        return self.side_input_shape(connector) is not None

    def required_shape(self) -> Shape | None:
        """The shape the consumers of this layer's output need (``*GraphOutput``), or None."""
        return None

    def argument(self, name: str) -> Value | None:
        """The value of a unit argument visible to this layer, or None."""
        return None

    def graph_macro(self, name: str, arg: str | None, layer: LayerEval) -> Value:
        """Macros that need the network: ``*RepeatTimes``, ``*UnitOutput``, ``*AutoInPlace``..."""
        raise RuleError(_INSIDE_ONLY.format(name=name))


@dataclass
class StaticContext(LayerContext):
    """A fixed context: given input shapes, wired side inputs and arguments (tests, previews)."""

    inputs: tuple[Shape, ...] = ()
    side_inputs: Mapping[str, Shape] = field(default_factory=dict)
    required: Shape | None = None
    arguments: Mapping[str, Value] = field(default_factory=dict)
    macros: Mapping[str, Value] = field(default_factory=dict)

    def input_shapes(self) -> tuple[Shape, ...]:
        return self.inputs

    def side_input_shape(self, connector: str) -> Shape | None:
        return self.side_inputs.get(connector)

    def required_shape(self) -> Shape | None:
        return self.required

    def argument(self, name: str) -> Value | None:
        return self.arguments.get(name)

    def graph_macro(self, name: str, arg: str | None, layer: LayerEval) -> Value:
        if name in self.macros:
            return self.macros[name]
        return super().graph_macro(name, arg, layer)


def auto_value(raw: str) -> Value:
    """A value typed by its look, for arguments declared as Text: ``2`` -> 2, ``1,1`` -> (1, 1)."""
    for type_name in ("Int", "IntArray", "Float", "FloatArray", "Boolean"):
        ptype = TYPES[type_name]
        if ptype.is_literal(raw):
            return ptype.parse(raw)
    return raw


class LayerEval:
    """Lazy, memoized evaluation of one layer instance.

    ``raw`` holds the property texts given in the project; missing properties take the spec
    default, as NNC does (docs/formats.md §1.4).
    """

    def __init__(
        self,
        spec: LayerSpec,
        name: str,
        raw: Mapping[str, str] | None = None,
        context: LayerContext | None = None,
    ) -> None:
        self.spec = spec
        self.name = name
        self._prop = _prop_table(spec).get  # spec.prop without its call (the hottest lookup)
        self._raw = dict(raw or {})
        self.context = context or LayerContext()
        self._values: dict[str, Value] = {}
        self._resolving: list[str] = []
        self._output: Shape | None = None
        self._connectors: dict[str, Shape] = {}
        self._enabled: dict[str, bool] = {}

    def snapshot(self) -> tuple:
        """The values computed so far (for :meth:`restore` into a twin with equal inputs)."""
        return dict(self._values), self._output, dict(self._connectors), dict(self._enabled)

    def restore(self, snapshot: tuple) -> None:
        """Takes the values of a :meth:`snapshot` of a layer whose context answers alike."""
        values, output, connectors, enabled = snapshot
        self._values = dict(values)
        self._output = output
        self._connectors = dict(connectors)
        self._enabled = dict(enabled)

    # -- raw and typed values ----------------------------------------------------------------

    def raw(self, prop: str) -> str:
        """The raw text of a property: the project's value or the spec default.

        Computed properties (``Editable=False``: ``Input``, ``Output``, ``BaseAxis``...) always
        use their rule; a value stored by NNC's ``complete`` command may be stale.
        """
        pspec = self._prop(prop)
        if pspec is None:
            raise RuleError(_NO_PROPERTY.format(type=self.spec.type, prop=prop), prop)
        if not pspec.editable:
            return pspec.default
        if prop in self._raw:
            return self._raw[prop]
        for legacy in pspec.legacy_names:
            if legacy in self._raw:
                return self._raw[legacy]
        return pspec.default

    def resolving(self) -> str | None:
        """The property being resolved now (the innermost), for macros that depend on it."""
        return self._resolving[-1] if self._resolving else None

    def value(self, prop: str) -> Value:
        """The typed value of a property, macros and expressions resolved."""
        if prop in self._values:
            return self._values[prop]
        pspec = self._prop(prop)
        if pspec is None:
            raise RuleError(_NO_PROPERTY.format(type=self.spec.type, prop=prop), prop)
        if prop in self._resolving:
            chain = " -> ".join([*self._resolving[self._resolving.index(prop) :], prop])
            raise RuleError(_ITSELF.format(prop=prop, chain=chain), prop)
        self._resolving.append(prop)
        try:
            raw = self.raw(prop)
            if raw == "" and not pspec.required:
                value: Value = ""
            else:
                ptype = PINT_ARRAYS if prop == "Inputs" else pspec.type
                value = _NOT_LITERAL
                if not raw.startswith("*") and ptype.name not in _TEXT_TYPES:
                    value = _coerced_literal(ptype, raw, prop)
                if value is _NOT_LITERAL:
                    value = ptype.coerce(self._resolve(raw, ptype, prop), prop)
                value = pspec.check_option(value)
        except (PropertyValueError, ExpressionError, ShapeError) as exc:
            raise RuleError(_with_prop(prop, raw, exc), prop) from None
        except RuleError as exc:
            if exc.prop is not None or isinstance(exc, InputShapeError):
                raise
            # A network-level error (unknown unit, recursion...): say which property needed it.
            raise type(exc)(_with_prop(prop, raw, exc), prop) from None
        finally:
            self._resolving.pop()
        self._values[prop] = value
        return value

    def given(self, prop: str) -> str | None:
        """The raw text the project gives for a property (Unit arguments too), or None."""
        return self._raw.get(prop)

    def expression(self, raw: str, what: str = "value") -> Value:
        """An untyped value in this layer's scope (Text unit arguments)."""
        try:
            return evaluate(raw.strip(), _Scope(self, what))
        except (ExpressionError, ShapeError) as exc:
            raise RuleError(_with_prop(what, raw, exc), what) from None

    def evaluate(self, raw: str, ptype: PropertyType = PINT_ARRAY, what: str = "value") -> Value:
        """Any raw value in this layer's scope (connector shapes, unit argument values)."""
        try:
            return ptype.coerce(self._resolve(raw, ptype, what), what)
        except (PropertyValueError, ExpressionError, ShapeError) as exc:
            raise RuleError(_with_prop(what, raw, exc), what) from None

    def _resolve(self, raw: str, ptype: PropertyType, prop: str) -> Value:
        if ptype.name in _TEXT_TYPES and not raw.startswith("*"):
            return raw
        if is_calc(raw):
            return evaluate_calc(raw, _Scope(self, prop))
        if not raw.startswith("*"):
            literal = _literal(ptype, raw)
            if literal is not _NOT_LITERAL:
                return literal  # type: ignore[return-value]
        try:
            return evaluate(raw.strip(), _Scope(self, prop))
        except ExpressionError:
            if _WORD.fullmatch(raw.strip()):  # a word that is no argument: say what was expected
                ptype.parse(raw, prop)
            raise

    # -- shapes ------------------------------------------------------------------------------

    @property
    def input_shapes(self) -> tuple[Shape, ...]:
        """All input shapes: ``Inputs`` when the layer has it, else the pin-0 links."""
        if self._prop("Inputs"):
            value = self.value("Inputs")
            return value if isinstance(value, tuple) else ()
        return self.context.input_shapes()

    @property
    def input_shape(self) -> Shape:
        """The main input shape (``*Input``, ``Input[i]``)."""
        if self._prop("Input"):
            return self.value("Input")  # type: ignore[return-value]
        shapes = self.input_shapes
        if not shapes:
            raise RuleError(NOT_CONNECTED, "Input")
        return shapes[0]

    def output_shape(self) -> Shape | None:
        """The output shape (batch excluded), or None for layers without an output."""
        if self._output is None:
            rule = self.spec.output_rule
            if rule is None:
                return None
            if self._prop("Output").type is PINT_ARRAY:  # type: ignore[union-attr]
                shape = self.value("Output")
            else:  # a count (Flatten, KLMultinomial) or a list of shapes (Unsupported)
                shape = self.evaluate(self.raw("Output"), PINT_ARRAY, "Output")
            self._output = shape  # type: ignore[assignment]
        return self._output

    def connector_shape(self, name: str) -> Shape:
        shape = self._connectors.get(name)
        if shape is None:
            connector = self.spec.connector(name)
            if connector is None:
                raise RuleError(_NO_CONNECTOR.format(type=self.spec.type, name=name))
            shape = self.evaluate(connector.shape, PINT_ARRAY, f"{name} shape")  # type: ignore[assignment]
            self._connectors[name] = shape  # type: ignore[assignment]
        return shape  # type: ignore[return-value]

    def connector_enabled(self, name: str) -> bool:
        enabled = self._enabled.get(name)
        if enabled is None:
            connector = self.spec.connector(name)
            if connector is None:
                return False
            enabled = bool(self.evaluate(connector.enable, TYPES["Boolean"], f"{name} enable"))
            self._enabled[name] = enabled
        return enabled

    # -- costs -------------------------------------------------------------------------------

    def cost(self, statistic: str) -> int:
        """One of the eight statistics of this layer (docs/layers.md §1.6)."""
        if statistic == "Output":
            shape = self.output_shape()
            return int(product(shape)) if shape else 0
        rule = self.spec.cost_rule(statistic)
        if rule is None:
            return 0
        return self.evaluate(rule, INT, statistic)  # type: ignore[return-value]

    # -- names and macros (used by _Scope) ---------------------------------------------------

    def lookup(self, ident: str, current: str) -> Value:
        """A bare name in an expression: ``Input``, a property of this layer, or an argument."""
        if ident == "Input":
            return self.input_shape
        if self._prop(ident) and ident != current:
            return self.value(ident)
        value = self.context.argument(ident)
        if value is None:
            raise ExpressionError(_UNKNOWN_NAME.format(name=ident))
        return value

    def macro(self, ident: str, arg: str | None, current: str) -> Value:
        """A ``*Name`` reference: built-in, closed-utility macro, property, argument or graph."""
        if ident == "Name":
            return self.name
        if ident in ("Input", "GraphInput", "GraphIO"):
            return self._graph_input(ident)
        if ident == "GraphInputs":
            return self._graph_inputs()
        if ident == "GraphOutput":
            return self._required("*GraphOutput")
        if ident in MACROS:
            return MACROS[ident](self)  # type: ignore[return-value]
        if self._prop(ident) and ident != current:
            return self.value(ident)
        value = self.context.argument(ident)
        if value is not None:
            return value
        return self.context.graph_macro(ident, arg, self)

    def _graph_input(self, ident: str) -> Shape:
        if ident == "Input" and self._prop("Input") and "Input" not in self._resolving:
            return self.input_shape
        shapes = self.context.input_shapes()
        if shapes:
            return shapes[0]
        if ident == "GraphIO":
            return self._required("*GraphIO")
        raise ExpressionError(NOT_CONNECTED)

    def _graph_inputs(self) -> tuple[Shape, ...]:
        """Links into pin 0, then the data side inputs (BatchMatmul lists its R here)."""
        shapes = list(self.context.input_shapes())
        for connector in self.spec.connectors:
            if connector.kind.value == "Data":
                wired = self.context.side_input_shape(connector.name)
                shapes.append(wired if wired is not None else self.connector_shape(connector.name))
        return tuple(shapes)

    def _required(self, macro: str) -> Shape:
        shape = self.context.required_shape()
        if shape is None:
            raise ExpressionError(
                QT_TRANSLATE_NOOP(
                    "Problems", "{macro}: the shape cannot be inferred; connect the input or the "
                    "output"
                ).format(macro=macro)
            )  # fmt: skip
        return shape


_NOT_LITERAL = object()


@lru_cache(maxsize=8192)
def _coerced_literal(ptype: PropertyType, raw: str, prop: str) -> object:
    """A literal's typed value as ``value`` makes it, or ``_NOT_LITERAL`` (cached)."""
    literal = _literal(ptype, raw)
    return literal if literal is _NOT_LITERAL else ptype.coerce(literal, prop)  # type: ignore[arg-type]


_PROP_TABLES: dict[int, tuple[LayerSpec, dict[str, object]]] = {}


def _prop_table(spec: LayerSpec) -> dict[str, object]:
    """Property name (or legacy name) -> PropertySpec, as ``spec.prop`` answers."""
    entry = _PROP_TABLES.get(id(spec))
    if entry is None or entry[0] is not spec:
        names = {n for p in spec.properties for n in (p.name, *p.legacy_names)}
        entry = _PROP_TABLES[id(spec)] = (spec, {n: spec.prop(n) for n in names})
    return entry[1]


@lru_cache(maxsize=8192)
def _literal(ptype: PropertyType, raw: str) -> object:
    """The parsed literal, or ``_NOT_LITERAL`` (cached: the same texts recur in every layer)."""
    try:
        return ptype.parse(raw)
    except PropertyValueError:
        return _NOT_LITERAL


@dataclass
class _Scope:
    layer: LayerEval
    current: str

    def name(self, ident: str) -> Value:
        return self.layer.lookup(ident, self.current)

    def macro(self, ident: str, arg: str | None) -> Value:
        return self.layer.macro(ident, arg, self.current)


def _with_prop(prop: str, raw: str, exc: Exception) -> str:
    message = text_of(exc)
    if message.startswith("property ") or message == NOT_CONNECTED:  # in a user's words
        return message
    if "Received:" in message:  # the rule already shows the values it was given
        return QT_TRANSLATE_NOOP("Problems", "property {prop}: {message}").format(
            prop=prop, message=message
        )
    shown = raw if len(raw) <= 60 else f"{raw[:40]}... ({len(raw)} characters)"
    return QT_TRANSLATE_NOOP(
        "Problems", "property {prop}: {message}. Received: {prop}={shown}"
    ).format(prop=prop, message=message, shown=shown)

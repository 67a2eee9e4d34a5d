"""Unit layers in a Python export: one ``network_<unit>(x, <arguments>, test=False)`` function.

The compiler expands a Unit layer inline with its bound arguments; the exporter groups those
steps back into a call ``with nn.parameter_scope('Fire1'): h = network_firemodule(h, 8, 16)``.
Inside the function, a property written ``*Squeeze`` in the unit network becomes the argument
``squeeze``; parametric functions size their parameters from their input, so one body serves
every binding. A unit with a property computed from an argument (``*Expand*2``) is written
inline, as the compiler expanded it, and so is a Unit layer whose body differs from the one for
the unit's default arguments, and a unit whose steps cannot be grouped (several inputs, outputs
or losses inside, parameters outside its scope).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from engine.export.literals import ExportError, Identifiers, doc, literal
from engine.graph import derive, unit_arguments
from engine.graph.infer import NetworkInference
from engine.graph.project import Project
from engine.layers import find_spec
from engine.runtime.program import Ref, Step

_MACRO = re.compile(r"\*([A-Za-z_][A-Za-z0-9_]*)")

__all__ = ["UnitCall", "UnitFunctions", "unit_calls", "group_of", "interface", "symbols_for"]


@dataclass(frozen=True)
class UnitCall:
    """A Unit layer of the exported network (or of a unit body)."""

    layer: str  # its name = the call path prefix of its steps
    network: str  # the unit network
    scope: str  # its ParameterScope
    arguments: tuple[tuple[str, object], ...]  # bound values, in declaration order


def unit_calls(project: Project, name: str) -> dict[str, UnitCall]:
    """Unit layer name -> its call, for the Unit layers drawn in network ``name``."""
    try:
        network = derive.network_for(project, name).network
        inference = NetworkInference(network, project)
        calls = {}
        for layer in network.layers:
            if layer.type != "Unit":
                continue
            sub = inference.expansion(layer.name)
            if sub is None:
                continue
            scope = str(inference.eval(layer.name).value("ParameterScope") or "")
            order = unit_arguments.arguments_of(sub.network)
            args = tuple((k, sub.arguments[k]) for k in order if k in sub.arguments)
            calls[layer.name] = UnitCall(layer.name, sub.network.name, scope, args)
        return calls
    except Exception:  # noqa: BLE001 - grouping is optional: the inline form stays correct
        return {}


def group_of(steps: tuple[Step, ...], start: int, prefix: str) -> list[Step]:
    """The contiguous steps from ``start`` whose names begin with ``prefix``."""
    group = []
    for step in steps[start:]:
        if not step.name.startswith(prefix):
            break
        group.append(step)
    return group


def interface(
    group: list[Step], after: list[Step], outputs: list[Ref], losses: tuple[str, ...]
) -> tuple[Ref, str] | None:
    """(the one external input, the one step used outside) of a unit's steps, or None."""
    names = {s.name for s in group}
    if names & set(losses):
        return None
    external = {r for s in group for r in s.inputs if r[0] in ("step", "feed")
                and not (r[0] == "step" and r[1] in names)}  # fmt: skip
    used = {r[1] for s in after for r in s.inputs if r[0] == "step" and r[1] in names}
    used |= {r[1] for r in outputs if r[0] == "step" and r[1] in names}
    if len(external) != 1 or len(used) != 1:
        return None
    return next(iter(external)), next(iter(used))


def _code(lines: tuple[str, ...] | list[str] | None) -> tuple[str, ...]:
    """The lines without comments: shapes in comments follow the input, the code does not."""
    return tuple(line for line in lines or () if not line.lstrip().startswith("#"))


def _same(a: object, b: object) -> bool:
    try:
        return literal(a) == literal(b)
    except ExportError:
        return False


def symbols_for(
    project: Project, unit: str, prefix: str, binding: dict[str, object], idents: dict[str, str]
) -> Callable[[str, str, object], str | None]:
    """Symbols of a unit body: a value whose property reads ``*<Argument>`` -> the argument."""
    layers = {layer.name: layer for layer in project.network(unit).layers}

    def lookup(step: str, key: str, value: object) -> str | None:
        layer = layers.get(step[len(prefix) :] if step.startswith(prefix) else step)
        if layer is None:
            return None
        raw = layer.properties.get(key)
        spec = find_spec(layer.type)
        if raw is None and spec is not None:
            prop = next((p for p in spec.properties if p.argument is not None
                         and p.argument.name.rsplit(".", 1)[-1] == key), None)  # fmt: skip
            raw = layer.properties.get(prop.name) if prop is not None else None
        name = raw.strip()[1:] if raw and raw.strip().startswith("*") else None
        if name in idents and _same(value, binding.get(name)):
            return idents[name]
        return None

    return lookup


@dataclass
class UnitFunctions:
    """The unit functions of one export: unit network -> its one body (or None: inline)."""

    project: Project
    idents: Identifiers
    names: dict[str, str] = field(default_factory=dict)  # unit network -> function name
    params: dict[str, dict[str, str]] = field(default_factory=dict)  # argument -> identifier
    bodies: dict[str, tuple[str, ...] | None] = field(default_factory=dict)

    def arguments(self, unit: str) -> dict[str, str]:
        """Argument name -> identifier in the unit function (declared order)."""
        if unit not in self.params:
            ids = Identifiers(("x", "test", "nn", "F", "I", "PF", "h"))
            declared = unit_arguments.arguments_of(self.project.network(unit))
            self.params[unit] = {name: ids.new(name, "arg") for name in declared}
        return self.params[unit]

    def register(self, unit: str, body: list[str], reference: list[str] | None) -> str | None:
        """The function name for a call whose body is ``body``; None when it cannot be the one
        function (it differs from the body written before or from ``reference``, the body
        for the unit's default arguments)."""
        if not self.direct(unit):
            return None
        if unit in self.bodies and _code(self.bodies[unit]) != _code(body):
            return None
        if reference is not None and _code(reference) != _code(body):
            return None
        if unit not in self.bodies:  # shape comments as in the unit network itself
            self.bodies[unit] = tuple(reference or body)
        if unit not in self.names:
            self.names[unit] = self.idents.new("network_" + unit, "network")
        return self.names[unit]

    def direct(self, unit: str) -> bool:
        """Every property that reads an argument is just ``*<Argument>`` (no ``*Expand*2``,
        whose value the function could not compute from its arguments)."""
        declared = set(unit_arguments.arguments_of(self.project.network(unit)))
        for layer in self.project.network(unit).layers:
            for raw in layer.properties.values():
                names = set(_MACRO.findall(raw)) & declared
                if names and raw.strip() != "*" + next(iter(names)):
                    return False
        return True

    def keywords(self, call: UnitCall, symbol: Callable[[str, object], str | None]) -> list[str]:
        """The call's argument values (positional, as declared), or the caller's arguments."""
        params = self.arguments(call.network)
        defaults = unit_arguments.default_arguments(self.project.network(call.network))
        out, skipped = [], False
        for name in params:
            value = dict(call.arguments).get(name, defaults.get(name))
            text = symbol(name, value) or literal(value)
            if _same(value, defaults.get(name)) and symbol(name, value) is None:
                skipped = True
                continue
            out.append(f"{params[name]}={text}" if skipped else text)
        return out

    def source(self) -> list[str]:
        return [self._one(unit) for unit in self.names]

    def _one(self, unit: str) -> str:
        params = self.arguments(unit)
        defaults = unit_arguments.default_arguments(self.project.network(unit))
        try:
            args = [f"{ident}={literal(defaults.get(name))}" for name, ident in params.items()]
        except ExportError as exc:
            raise ExportError(f'unit network "{unit}": {exc}') from None
        head = ", ".join(["x", *args, "test=False"])
        out = [f"def {self.names[unit]}({head}):", f'    """Unit \'{doc(unit)}\'."""']
        out.extend("    " + line for line in self.bodies[unit] or ())
        return "\n".join(out) + "\n"

"""Unit layers in a Python export: one ``unit_<name>(x, <arguments>, test=False)`` function.

The compiler expands a Unit layer inline with its bound arguments; the exporter groups those
steps back into a call ``with nn.parameter_scope(<ParameterScope>): h = unit_fire(x, S=16, ...)``.
Shapes and parameter sizes inside a unit depend on its argument values through the catalogue's
shape rules, so a unit function holds the layers for each argument binding the project uses
(one ``if`` branch per distinct body; identical bodies share a branch) and raises ValueError
for other values. A unit whose steps cannot be grouped this way (several inputs, outputs or
losses inside, parameters outside its scope) is written inline, as the compiler expanded it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from engine.export.literals import ExportError, Identifiers, doc, literal
from engine.graph import derive, resolve
from engine.graph.infer import NetworkInference
from engine.graph.project import Project
from engine.runtime.program import Ref, Step

__all__ = ["UnitCall", "UnitFunctions", "unit_calls", "group_of"]


@dataclass(frozen=True)
class UnitCall:
    """A top-level Unit layer of the exported network."""

    layer: str  # its name = the call path prefix of its steps
    network: str  # the unit network
    scope: str  # its ParameterScope
    arguments: tuple[tuple[str, object], ...]  # bound values, in declaration order


def unit_calls(project: Project, name: str) -> dict[str, UnitCall]:
    """Unit layer name -> its call, for the top-level Unit layers of network ``name``."""
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
            order = resolve.arguments_of(sub.network)
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


@dataclass
class UnitFunctions:
    """The unit functions of one export: unit network -> bodies per argument binding."""

    project: Project
    idents: Identifiers
    names: dict[str, str] = field(default_factory=dict)  # unit network -> function name
    params: dict[str, dict[str, str]] = field(default_factory=dict)  # argument -> identifier
    # unit network -> [((input shape, argument values), body lines)]
    bodies: dict[str, list[tuple[tuple[object, ...], tuple[str, ...]]]] = field(
        default_factory=dict
    )

    def function(self, unit: str) -> str:
        if unit not in self.names:
            self.names[unit] = self.idents.new("unit_" + unit, "unit")
            ids = Identifiers(("x", "test", "batch_size", "nn", "F", "I", "arguments", "binding"))
            declared = resolve.arguments_of(self.project.network(unit))
            self.params[unit] = {name: ids.new(name, "arg") for name in declared}
            self.bodies[unit] = []
        return self.names[unit]

    def add(self, call: UnitCall, shape: tuple[int, ...], body: list[str]) -> None:
        """The layers for one binding; the input shape is part of it (it sizes parameters)."""
        values = (tuple(shape), tuple(v for _, v in call.arguments))
        bodies = self.bodies[call.network]
        if not any(b[0] == values and b[1] == tuple(body) for b in bodies):
            bodies.append((values, tuple(body)))

    def keywords(self, call: UnitCall) -> list[str]:
        params = self.params[call.network]
        return [f"{params[k]}={literal(v)}" for k, v in call.arguments if k in params]

    def source(self) -> list[str]:
        return [self._one(unit) for unit in self.names]

    def _one(self, unit: str) -> str:
        params = self.params[unit]
        defaults = resolve.default_arguments(self.project.network(unit))
        try:
            args = [f"{ident}={literal(defaults.get(name))}" for name, ident in params.items()]
        except ExportError as exc:
            raise ExportError(f'unit network "{unit}": {exc}') from None
        head = ", ".join(["x", *args, "test=False"])
        names = ", ".join(doc(n) for n in params) or "none"
        out = [
            f"def {self.names[unit]}({head}):",
            f'    """Unit network \'{doc(unit)}\' (arguments: {names}).',
            "",
            "    Written for the argument values this project passes; others raise ValueError.",
            '    """',
            "    batch_size = x.shape[0]",
            f"    arguments = {_tuple(list(params.values()))}",
            "    binding = (tuple(x.shape[1:]), arguments)",
        ]
        groups: dict[tuple[str, ...], list[tuple[object, ...]]] = {}
        for values, body in self.bodies[unit]:
            groups.setdefault(body, []).append(values)
        for body, bindings in groups.items():
            cases = ", ".join(literal(v) for v in bindings)
            out.append(f"    if binding in ({cases},):  # (input shape, arguments)")
            out.extend("        " + line for line in body)
        out.append(f"    raise ValueError(f'{self.names[unit]}: no layers were exported for the "
                   "input shape and argument values {binding!r}')")  # fmt: skip
        return "\n".join(out) + "\n"


def _tuple(items: list[str]) -> str:
    return f"({items[0]},)" if len(items) == 1 else "(" + ", ".join(items) + ")"

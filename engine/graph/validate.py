"""Validation: every problem of a project, naming network, layer and property.

Problems found: unknown layer types, unconnected or over-connected inputs, links to pins that do
not exist, cycles, shape mismatches (rules that fail, wired side inputs of the wrong shape),
bad property values, unit recursion, unit arguments of the wrong type, config items naming a
missing network or dataset, duplicate names, and dataset variables missing from the dataset
CSV. A layer that fails only because its input has no shape is not reported again.
"""

from __future__ import annotations

import csv
import os
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from engine.core.messages import QT_TRANSLATE_NOOP, Message, Translate, text_of, translated
from engine.core.numbers import shape_text
from engine.graph import config as cfg
from engine.graph import derive, unit_graph
from engine.graph.config_keys import relabel
from engine.graph.infer import NetworkInference
from engine.graph.network import Network
from engine.graph.order import cycles
from engine.graph.project import Project
from engine.graph.project_inference import ProjectInference
from engine.graph.statistics import pooling_disagreements, pooling_message
from engine.layers import find_spec
from engine.layers.evaluate import NOT_CONNECTED, RuleError
from engine.layers.spec import ConnectorKind, Inputs, LayerSpec, Outputs

__all__ = [
    "Problem", "validate_project", "validate_network", "dataset_variables", "settings_problems",
    "run_problems",
]  # fmt: skip

# Types whose F function takes exactly two main inputs (the others of Multiple take any number).
_TWO_INPUTS = {
    "Add2", "Mul2", "Maximum2", "Minimum2", "LogicalAnd", "LogicalOr", "LogicalXor", "Equal",
    "NotEqual", "GreaterEqual", "Greater", "LessEqual", "Less",
}  # fmt: skip


# The problems' texts, marked for the interface's catalogue (engine/core/messages.py).
_T = {
    "recursion": QT_TRANSLATE_NOOP("Problems", "unit recursion: {path}"),
    "duplicate layer": QT_TRANSLATE_NOOP("Problems", "duplicate layer name {name}"),
    "no pin": QT_TRANSLATE_NOOP("Problems", "{type} has no input pin {pin}"),
    "side links": QT_TRANSLATE_NOOP("Problems", "{count} links go into side input {name}"),
    "no output": QT_TRANSLATE_NOOP("Problems", "{type} has no output to link from"),
    "cycle": QT_TRANSLATE_NOOP("Problems", "the links form a cycle: {path}"),
    "no input": QT_TRANSLATE_NOOP("Problems", "{type} takes no input but {count} are linked"),
    "one input": QT_TRANSLATE_NOOP(
        "Problems", "{type} takes one main input but {count} are linked"
    ),
    "two inputs": QT_TRANSLATE_NOOP("Problems", "{type} takes 2 inputs but {count} are linked"),
    "side shape": QT_TRANSLATE_NOOP(
        "Problems", "side input {name} needs shape {expected}, the linked layer gives {wired}"
    ),
    "delay": QT_TRANSLATE_NOOP(
        "Problems", "the recurrent input has shape {shape} but Size is {size}"
    ),
    "duplicate item": QT_TRANSLATE_NOOP("Problems", "{collection}: duplicate name {name}"),
    "no network": QT_TRANSLATE_NOOP("Problems", '{where}: no network "{network}"'),
    "no dataset": QT_TRANSLATE_NOOP("Problems", '{where}: no dataset "{dataset}"'),
    "no variable": QT_TRANSLATE_NOOP("Problems", 'dataset "{dataset}" has no variable {variable}'),
    "network": QT_TRANSLATE_NOOP("Problems", 'network "{name}"'),
    "optimizer": QT_TRANSLATE_NOOP("Problems", 'optimizer "{name}"'),
    "monitor": QT_TRANSLATE_NOOP("Problems", 'monitor "{name}"'),
    "executor": QT_TRANSLATE_NOOP("Problems", 'executor "{name}"'),
    "layer": QT_TRANSLATE_NOOP("Problems", 'layer "{name}"'),
    "property": QT_TRANSLATE_NOOP("Problems", "property {prop}: {message}"),
}


@dataclass(frozen=True)
class Problem:
    """One problem; ``str()`` names the place: ``network "Main", layer "Conv", property K: ...``."""

    message: str
    network: str | None = None
    layer: str | None = None
    prop: str | None = None
    severity: str = "error"  # or "warning"

    def __str__(self) -> str:
        return self.translated(lambda context, text: text)

    def translated(self, translate: Translate, place: bool = True) -> str:
        """The problem in ``translate``'s language (``str()``: English), its place first
        (network and layer) unless ``place`` is false (a layer's own tooltip)."""
        where = []
        if place and self.network is not None:
            where.append(_T["network"].format(name=self.network).translated(translate))
        if place and self.layer is not None:
            where.append(_T["layer"].format(name=self.layer).translated(translate))
        message: str = self.message
        if self.prop is not None and not message.startswith("property "):
            message = _T["property"].format(prop=self.prop, message=message)
        shown = translated(message, translate)
        return ", ".join([*where, shown]) if where else shown

    def as_message(self) -> Message:
        """The problem as one :class:`Message` (its ``str()`` is ``str(problem)``), for an error
        raised with it: the app shows the exception in its language (engine/core/messages.py)."""
        parts: list[object] = []
        if self.network is not None:
            parts.append(_T["network"].format(name=self.network))
        if self.layer is not None:
            parts.append(_T["layer"].format(name=self.layer))
        message: object = self.message
        if self.prop is not None and not str(message).startswith("property "):
            message = _T["property"].format(prop=self.prop, message=message)
        parts.append(message)
        values = {f"part{i}": part for i, part in enumerate(parts)}
        return Message("Problems", ", ".join("{" + key + "}" for key in values), values)


def validate_project(
    project: Project,
    inference: ProjectInference | None = None,
    variables: Mapping[str, set[str]] | None = None,
) -> list[Problem]:
    """All problems of a project. ``variables`` maps dataset name -> its variables; without it
    the CSV headers of datasets whose URI is a readable local file are read."""
    inference = inference or ProjectInference(project, follow=False)
    problems: list[Problem] = []
    for cycle in unit_graph.unit_cycles(project):
        problems.append(Problem(_T["recursion"].format(path=" -> ".join(cycle)), cycle[0]))
    problems += _expansion_problems(project, [n.name for n in project.networks])
    for network in project.networks:
        problems += validate_network(inference.network(network.name))
    problems += settings_problems(project)
    problems += config_problems(project)
    problems += _dataset_problems(project, variables)
    return problems


def validate_network(inference: NetworkInference) -> list[Problem]:
    """The problems of one network (its own layers; unit networks are checked on their own)."""
    network = inference.network
    net = network.name
    # Type mismatches of arguments are warnings: NNC uses such values as written (Sony's
    # object-detection sample passes 0.6 to a PInt argument). An Argument's own default is
    # reported on the Argument layer, which is named like the argument.
    problems = [
        Problem(p.detail, net, p.prop, None, "warning") for p in inference.argument_problems
    ]
    for unit_layer, items in inference.unit_argument_problems().items():
        problems += [Problem(p.detail, net, unit_layer, p.prop, "warning") for p in items]
    links = _link_problems(network)
    problems += links + _cycle_problems(network)
    miswired = {p.layer for p in links}
    for name, result in inference.results().items():
        if result.error and not result.upstream:
            reported = "the links form a cycle" in result.error or (
                name in miswired and NOT_CONNECTED in result.error
            )
            if not reported:
                problems.append(Problem(result.error, net, name, result.prop))
            continue
        spec = find_spec(result.type)
        if spec is None or result.error:
            continue
        problems += _property_problems(inference, name, spec)
        problems += _side_input_problems(inference, name, spec)
    for path, runs, shown in pooling_disagreements(inference):
        unit, _, inner = path.partition("/")  # a layer inside a unit: reported on the Unit
        message = pooling_message(runs, shown, inner)
        problems.append(Problem(message, net, unit, None if inner else "Padding", "warning"))
    return _unique(problems)


def run_problems(project: Project, names: list[str]) -> list[Problem]:
    """The errors (not warnings) of the drawn networks behind ``names`` (``MainValidation``
    is ``Main``) and of every unit they call: what must be fixed before they can run."""
    bases = list(dict.fromkeys(derive.network_for(project, n).base for n in names
                               if _known(project, n)))  # fmt: skip
    problems = _expansion_problems(project, bases)
    if problems:  # expanding such units is what must not happen
        return problems
    todo = list(bases)
    calls = unit_graph.unit_calls(project)
    seen: list[str] = []
    while todo:
        name = todo.pop()
        if name not in seen and project.has_network(name):
            seen.append(name)
            todo += [called for _, called in calls.get(name, [])]
    inference = ProjectInference(project, follow=False)
    try:
        problems = [p for name in seen for p in validate_network(inference.network(name))]
    finally:
        inference.close()
    return [p for p in problems if p.severity == "error"]


def _expansion_problems(project: Project, names: list[str]) -> list[Problem]:
    found = ((name, unit_graph.expansion_problem(project, name)) for name in names)
    return [Problem(message, name) for name, message in found if message]


def _known(project: Project, name: str) -> bool:
    try:
        derive.network_for(project, name)
    except KeyError:
        return False
    return True


def _unique(problems: list[Problem]) -> list[Problem]:
    seen: set[str] = set()
    result = []
    for problem in problems:
        if str(problem) not in seen:
            seen.add(str(problem))
            result.append(problem)
    return result


# -- links ---------------------------------------------------------------------------------------


def _link_problems(network: Network) -> list[Problem]:
    problems = []
    net = network.name
    names = Counter(layer.name for layer in network.layers)
    problems += [
        Problem(_T["duplicate layer"].format(name=repr(n)), net, n)
        for n, k in names.items()
        if k > 1
    ]
    for layer in network.layers:
        spec = find_spec(layer.type)
        if spec is None:
            continue  # reported by inference as an unknown type
        links = network.inputs_of(layer.name)
        main = [k for k in links if k.dest_pin == 0]
        problems += _arity_problems(net, layer.name, spec, len(main))
        pins = Counter(k.dest_pin for k in links if k.dest_pin > 0)
        for pin, count in pins.items():
            connector = spec.connector_at(pin)
            if connector is None:
                problems.append(
                    Problem(_T["no pin"].format(type=layer.type, pin=pin), net, layer.name)
                )
            elif count > 1:
                problems.append(
                    Problem(
                        _T["side links"].format(count=count, name=connector.name), net, layer.name
                    )
                )
        if network.outputs_of(layer.name) and spec.outputs is Outputs.NONE:
            problems.append(Problem(_T["no output"].format(type=layer.type), net, layer.name))
    return problems


def _cycle_problems(network: Network) -> list[Problem]:
    """Cycles of links; a Delay's main input is a recurrent back edge and does not count."""
    types = {layer.name: layer.type for layer in network.layers}
    edges = [(link.source, link.destination) for link in network.links
             if not (link.dest_pin == 0 and types[link.destination] == "Delay")]  # fmt: skip
    problems = []
    for first, cycle in cycles(network.layer_names, edges):
        path = " -> ".join([*cycle, cycle[0]])
        problems.append(Problem(_T["cycle"].format(path=path), network.name, first))
    return problems


def _arity_problems(net: str, layer: str, spec: LayerSpec, count: int) -> list[Problem]:
    if spec.inputs is Inputs.NONE and count:
        return [Problem(_T["no input"].format(type=spec.type, count=count), net, layer)]
    if spec.inputs in (Inputs.SINGLE, Inputs.MULTIPLE) and count == 0:
        return [Problem(NOT_CONNECTED, net, layer)]
    if spec.inputs in (Inputs.SINGLE, Inputs.SINGLE_OR_NONE) and count > 1:
        return [Problem(_T["one input"].format(type=spec.type, count=count), net, layer)]
    if spec.type in _TWO_INPUTS and count != 2:
        return [Problem(_T["two inputs"].format(type=spec.type, count=count), net, layer)]
    return []


# -- properties and side inputs ------------------------------------------------------------------


def _property_problems(inference: NetworkInference, name: str, spec: LayerSpec) -> list[Problem]:
    """Every editable property must evaluate, even those the shape does not need."""
    ev = inference.eval(name)
    problems = []
    for prop in spec.properties:
        if not prop.editable:
            continue
        try:
            ev.value(prop.name)
        except RuleError as exc:
            problems.append(
                Problem(text_of(exc), inference.network.name, name, exc.prop or prop.name)
            )
    return problems


def _side_input_problems(inference: NetworkInference, name: str, spec: LayerSpec) -> list[Problem]:
    """A layer wired into a side connector must have the shape the connector expects."""
    ev = inference.eval(name)
    problems = []
    for connector in spec.connectors:
        try:
            wired = ev.context.side_input_shape(connector.name)
            if wired is None:
                continue
            expected = ev.connector_shape(connector.name)
        except RuleError:
            continue  # the producer reports its own problem
        if tuple(wired) != tuple(expected):
            problems.append(
                Problem(
                    _T["side shape"].format(
                        name=connector.name, expected=shape_text(expected), wired=shape_text(wired)
                    ),
                    inference.network.name,
                    name,
                )
            )
    if spec.type == "Delay":
        problems += _delay_problem(inference, name)
    return problems


def _delay_problem(inference: NetworkInference, name: str) -> list[Problem]:
    ev = inference.eval(name)
    try:
        size = ev.value("Size")
        shapes = ev.context.input_shapes()
    except RuleError:
        return []
    if shapes and tuple(shapes[0]) != tuple(size):  # type: ignore[arg-type]
        return [
            Problem(
                _T["delay"].format(shape=shape_text(shapes[0]), size=shape_text(size)),
                inference.network.name,
                name,
                "Size",
            )
        ]
    return []


# -- config and datasets -------------------------------------------------------------------------


def settings_problems(project: Project) -> list[Problem]:
    """Settings values NNC's editor would refuse (bad numbers, out of range, unknown choices),
    each naming its section as in the ``.sdcproj``: ``[Optimizer_0] "Optimizer" Alpha: ...``."""
    problems = []
    for attr in cfg.SINGLETONS:
        problems += [Problem(message) for message in getattr(project, attr).problems()]
    for attr in cfg.COLLECTIONS:
        for index, item in enumerate(getattr(project, attr)):
            section = item.SECTION.replace("<i>", str(index))
            label = f'[{section}] "{item.name}"'
            problems += [Problem(relabel(m, f"[{item.SECTION}]", label)) for m in item.problems()]
    return problems


def config_problems(project: Project) -> list[Problem]:
    """Names in CONFIG that nothing answers: a duplicate, an optimizer, monitor or executor
    naming a network or dataset link the project lacks."""
    problems = []
    datasets = {d.name for d in project.datasets}
    for collection in ("datasets", "optimizers", "monitors", "executors"):
        items = getattr(project, collection)
        for name, count in Counter(item.name for item in items).items():
            if count > 1:
                problems.append(
                    Problem(_T["duplicate item"].format(collection=collection, name=repr(name)))
                )
    for collection in ("optimizers", "monitors", "executors"):
        for item in getattr(project, collection):
            where = _T[collection[:-1]].format(name=item.name)
            if (
                not project.has_network(item.network)
                and derive.derive(project, item.network) is None
            ):
                problems.append(Problem(_T["no network"].format(where=where, network=item.network)))
            if item.dataset not in datasets:
                problems.append(Problem(_T["no dataset"].format(where=where, dataset=item.dataset)))
    return problems


def _dataset_problems(project: Project, variables: Mapping[str, set[str]] | None) -> list[Problem]:
    known = dict(variables) if variables is not None else {}
    if variables is None:
        for dataset in project.datasets:
            header = dataset_variables(dataset.uri)
            if header is not None:
                known[dataset.name] = header
    problems = []
    items: list[cfg.Optimizer | cfg.Monitor | cfg.Executor] = [
        *project.optimizers, *project.monitors, *project.executors,
    ]  # fmt: skip
    for item in items:
        if item.dataset not in known:
            continue
        try:
            network = derive.network_for(project, item.network).network
        except KeyError:
            continue
        for layer, needed in _needed_variables(network):
            if needed not in known[item.dataset]:
                problems.append(
                    Problem(
                        _T["no variable"].format(dataset=item.dataset, variable=repr(needed)),
                        network.name,
                        layer,
                    )
                )
    return _unique(problems)


def _needed_variables(network: Network) -> list[tuple[str, str]]:
    """(layer, dataset variable) fed from the dataset: Input layers and unwired data inputs."""
    needed = []
    for layer in network.layers:
        spec = find_spec(layer.type)
        if spec is None:
            continue
        defaults = spec.defaults()
        props = {**defaults, **layer.properties}
        if spec.type == "Input" and props.get("Generator", "None") == "None":
            needed.append((layer.name, props.get("Dataset", "")))
        wired = {k.dest_pin for k in network.inputs_of(layer.name)}
        for pin, connector in enumerate(spec.connectors, start=1):
            if connector.kind is not ConnectorKind.DATA or pin in wired:
                continue
            if props.get(f"{connector.name}.Generator", "None") == "None":
                needed.append((layer.name, props.get(f"{connector.name}.Dataset", "")))
    return [(layer, var) for layer, var in needed if var]


def dataset_variables(uri: str) -> set[str] | None:
    """Variable names in a dataset CSV header (``x__0:label`` -> ``x``), or None if unreadable."""
    if not uri or "{" in uri or not os.path.isfile(uri):
        return None
    try:
        with Path(uri).open(newline="", encoding="utf-8-sig") as handle:
            header = next(csv.reader(handle), [])
    except (OSError, UnicodeDecodeError, csv.Error):
        return None
    return {column.split(":", 1)[0].split("__", 1)[0].strip() for column in header}

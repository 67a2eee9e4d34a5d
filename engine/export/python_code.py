"""``neurocanvas export python``: a project's networks as Python code that reads like NNC's export.

The networks are compiled by :func:`engine.runtime.compiler.compile_network` twice, in train and
in test mode, so the file computes exactly what the engine runs. Each network becomes
``network_<name>(<dataset variables>, test=False)`` returning ``{output name: Variable}``; each
unit network that Unit layers call becomes ``network_<unit>(x, <arguments>, test=False)``
returning its output (:mod:`engine.export.units`). Inside, one ``h`` chain per path (``h1``,
``h2`` where paths branch), a ``# Layer -> shape`` comment per layer (the shape where it
changes), parametric layers as ``PF.*`` calls named after the layer, arguments equal to the
defaults left out (:mod:`engine.export.calls`), training-only layers under ``if not test:``.

``target`` picks the imports: ``neurocanvas`` (``engine.nn``) or ``nnabla``; the bodies are the
same but for initializers where nnabla's defaults differ from NNC's.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from engine.export.calls import CallWriter, Symbols, data_refs
from engine.export.generators import generator_call, generator_doc
from engine.export.literals import ExportError, Identifiers, comment, doc, literal
from engine.export.loops import Loop, base, find_loops
from engine.export.units import UnitCall, UnitFunctions, group_of, interface, symbols_for
from engine.export.units import unit_calls as find_unit_calls
from engine.graph import unit_arguments, unit_graph
from engine.graph.project import Project
from engine.runtime.compiler import compile_network
from engine.runtime.program import Program, ProgramError, Ref, Step

__all__ = ["ExportError", "TARGETS", "python_module", "python_source", "exportable_networks"]

TARGETS = ("neurocanvas", "nnabla")
_IMPORTS = {
    "neurocanvas": ("engine.nn", "engine.nn.functions", "engine.nn.initializer",
                    "engine.nn.parametric"),
    "nnabla": ("nnabla", "nnabla.functions", "nnabla.initializer", "nnabla.parametric_functions"),
}  # fmt: skip

# Where a network function's generator noise comes from (nnabla's initializers: NumPy's).
_SEEDED = {
    "neurocanvas": " (noise from the engine's random generator: nn.seed)",
    "nnabla": " (noise from NumPy's global generator: np.random.seed)",
}

HEADER = '''"""{title}

Exported by NeuroCanvas (neurocanvas export python --target {target}). network_* functions take
the dataset variables (batch, ...) and return {{output name: Variable}}; unit functions return
their output. test=True: inference (no Dropout or augmentation, running BatchNormalization
statistics). Parameters are created in the current parameter scope; nn.load_parameters replaces
them with trained values.
"""

import {0} as nn
import {1} as F
import {2} as I
import {3} as PF
'''


@dataclass(frozen=True)
class _Modes:
    train: Program
    test: Program


def exportable_networks(project: Project, extra: tuple[str, ...] = ()) -> list[str]:
    """Drawn networks that compile on their own and that no Unit layer calls, + ``extra``."""
    called = {unit for calls in unit_graph.unit_calls(project).values() for _, unit in calls}
    names = []
    for name in [*project.network_names, *extra]:
        if name in names or (name in called and name not in extra):
            continue
        try:
            compile_network(project, name)
        except ProgramError:
            continue
        names.append(name)
    return names


def python_source(
    project: Project, title: str, networks: list[str], target: str = "neurocanvas"
) -> str:
    """The module text: the header, the unit functions and one function per network."""
    return python_module(project, title, networks, target)[0]


def python_module(
    project: Project, title: str, networks: list[str], target: str = "neurocanvas"
) -> tuple[str, dict[str, str]]:
    """The module text and network name -> its function's name."""
    if target not in TARGETS:
        raise ExportError(f"unknown target {target!r}; expected one of: {', '.join(TARGETS)}")
    idents = Identifiers()
    names = {name: idents.new("network_" + name, "network") for name in networks}
    units = UnitFunctions(project, idents)
    functions = [
        _Writer(project, name, _compile(project, name), target, units).function(names[name])
        for name in networks
    ]
    header = HEADER.format(*_IMPORTS[target], title=doc(title), target=target)
    return "\n\n".join([header, *units.source(), *functions]), names


def _compile(project: Project, name: str) -> _Modes:
    try:
        return _Modes(compile_network(project, name, test_mode=False),
                      compile_network(project, name, test_mode=True))  # fmt: skip
    except ProgramError as exc:
        raise ExportError(str(exc)) from None


@dataclass
class _Node:
    """A step, or a Unit layer's steps written as one call."""

    inputs: list[Ref]  # data inputs
    result: str  # the step whose output it is
    step: Step | None = None
    call: UnitCall | None = None
    function: str = ""
    group: tuple[Step, ...] = ()
    loop: Loop | None = None  # a recurrent loop written as a for loop


class _Writer:
    """The body of one network function or unit function."""

    def __init__(self, project: Project, network: str, modes: _Modes, target: str,
                 units: UnitFunctions | None, *, prefix: str = "", param_prefix: str = "",
                 external: Ref | None = None, symbols: Symbols | None = None,
                 unit: str | None = None, binding: dict | None = None) -> None:  # fmt: skip
        self.project, self.network, self.modes, self.target = project, network, modes, target
        self.units = units
        self.prefix = prefix  # a unit body: its call path, stripped from names
        self.external = external  # a unit body: its input, written "x"
        self.symbols = symbols
        self.unit = unit  # a unit body: its unit network, bound to ``binding``
        self.binding = binding or {}
        self.calls = find_unit_calls(project, unit or network) if units is not None else {}
        self.inline: set[str] = set()  # Unit layers written inline
        decls = {d.name: d for d in modes.train.parameters}
        self.writer = CallWriter(network, decls, target, param_prefix, symbols)
        self.test_steps = {s.name: s for s in modes.test.steps}
        names = Identifiers(("nn", "F", "I", "PF", "test", "batch_size", "h", "h1", "h2", "h3"))
        self.feeds = {} if external else {v: names.new(v, "x") for v in modes.train.feeds}
        self.names = names
        self.loops: dict[str, Loop] = {}  # first step -> the loop it starts
        self.inside: dict[tuple, str] | None = None  # in a loop body: outside values' texts
        self.after: dict[tuple, str] = {}  # loop values read after their loop
        self.splits: dict[str, str] = {}  # a loop's RecurrentInput step -> "<its split>[t]"
        self.t = ""  # the loops' time step variable
        # generator inputs, made inside the function (a unit body leaves them to its caller)
        gens = () if external else modes.train.generators
        self.generated = {i: names.new(g.name, "noise") for i, g in enumerate(gens)}
        self.drawn: set[int] = set()
        if self.feeds:  # the batch size of generators and constants: the first real input's
            self.writer.batch = f"{next(iter(self.feeds.values()))}.shape[0]"
        elif self.generated:
            self.writer.batch = "batch_size"

    # -------------------------------------------------------------- functions
    def function(self, name: str) -> str:
        train = self.modes.train
        results = [(n, r) for n, r in train.outputs] + [(s, ("step", s)) for s in train.losses]
        results = list(dict(results).items())  # a loss may also be an output: once
        loops = find_loops(train.steps, self.test_steps, [r for _, r in results])
        self.loops = {train.steps[x.start].name: x for x in loops if not self._has_unit(x)}
        lines, vars_ = self.body(list(train.steps), [r for _, r in results])
        for _, ref in results:  # an output that is a generator itself: drawn last, as the engine
            lines += self._draw(ref)
        arguments = [*self.feeds.values()]
        if self.writer.batch == "batch_size":  # no real input tells the batch size
            arguments.append(f"batch_size={int(self.project.config.batch_size)}")
        out = [f"def {name}({', '.join([*arguments, 'test=False'])}):", *self._docstring()]
        out += ["    " + line for line in lines]
        items = [f"{literal(n)}: {self._text(r, vars_)}" for n, r in results]
        if len(items) == 1:
            out.append(f"    return {{{items[0]}}}")
        else:
            out += ["    return {", *(f"        {item}," for item in items), "    }"]
        return "\n".join(out) + "\n"

    def _docstring(self) -> list[str]:
        """The network's inputs; the generator inputs and how they are made."""
        train = self.modes.train
        inputs = [f"{v} {_shape(train.feeds[k])}" for k, v in self.feeds.items()]
        if self.writer.batch == "batch_size":
            inputs.append("batch_size samples")
        head = f'    """Network \'{doc(self.network)}\': {comment(", ".join(inputs))}.'
        if not self.generated:
            return [head + '"""']
        gens = [train.generators[i] for i in self.generated]
        seeded = _SEEDED[self.target] * any(g.kind in ("Normal", "Uniform") for g in gens)
        lines = [head, "", f"    Generator inputs, made on each call{seeded}:"]
        for i, var in self.generated.items():
            decl = train.generators[i]
            lines.append(f"    {var} {_shape(decl.shape)}: {comment(generator_doc(decl))}.")
        return [*lines, '    """']

    def _draw(self, ref: Ref) -> list[str]:
        """The lines making generator input ``ref`` where the engine makes it: before its first
        reader (the random draws then follow the engine's order); nothing for other inputs."""
        if ref[0] != "gen" or ref[1] in self.drawn or ref[1] not in self.generated:
            return []
        self.drawn.add(ref[1])
        decl, var = self.modes.train.generators[ref[1]], self.generated[ref[1]]
        try:
            expr = generator_call(decl, self.writer.batch)
        except ExportError as exc:
            raise ExportError(f'network "{self.network}", input {var}: {exc}') from None
        return [f"# {comment(var)}: {decl.kind} generator -> {','.join(map(str, decl.shape))}",
                f"{var} = {expr}"]  # fmt: skip

    def body(
        self, steps: list[Step], results: list[Ref], taken: frozenset[str] = frozenset()
    ) -> tuple[list[str], dict]:
        """The lines computing ``steps``, and step name -> variable for ``results``; ``taken``:
        variables of the enclosing code that stay untouched."""
        nodes = self._nodes(steps)
        last = {}
        for i, node in enumerate(nodes):
            for ref in node.inputs:
                last[_key(ref)] = i
        for ref in results:
            last[_key(ref)] = len(nodes)
        vars_: dict[tuple, str] = {}
        live: dict[str, tuple] = {}
        lines: list[str] = []
        for i, node in enumerate(nodes):
            for ref in node.inputs:
                lines += self._draw(ref)
            if node.loop is not None:  # its values live in named variables, not the h chain
                reading = {vars_[_key(r)] for r in node.inputs if _key(r) in vars_}
                lines += self._loop_lines(node.loop, vars_, taken | set(live) | reading)
                for var in [vars_[_key(r)] for r in node.inputs if last.get(_key(r)) == i
                            and _key(r) in vars_]:  # fmt: skip
                    live.pop(var, None)
                continue
            args = [self._text(r, vars_) for r in node.inputs]
            reuse = next((vars_[_key(r)] for r in node.inputs if r[0] == "step"
                          and r != self.external and last.get(_key(r)) == i
                          and _key(r) in vars_), None)  # fmt: skip
            for ref in node.inputs:  # values read for the last time free their variable
                if last.get(_key(ref)) == i and _key(ref) in vars_:
                    live.pop(vars_[_key(ref)], None)
            var = reuse or _free_name(live, taken)
            live[var] = ("step", node.result)
            vars_[("step", node.result)] = var
            lines += self._lines(node, var, args)
        return lines, vars_

    def _text(self, ref: Ref, vars_: dict) -> str:
        if ref == self.external:
            return "x"
        if self.inside is not None and _key(ref) in self.inside:
            return self.inside[_key(ref)]
        if _key(ref) in self.after:
            return self.after[_key(ref)]
        if ref[0] == "feed":
            return self.feeds[ref[1]]
        if ref[0] == "gen" and ref[1] in self.drawn:
            return self.generated[ref[1]]
        if _key(ref) in vars_:
            return vars_[_key(ref)]
        raise ExportError(f'network "{self.network}": cannot export input {ref!r}')

    # ------------------------------------------------------------------ nodes
    def _nodes(self, steps: list[Step]) -> list[_Node]:
        nodes, i = [], 0
        while i < len(steps):
            name = steps[i].name
            loop = self.loops.get(name) if self.inside is None else None
            if loop is not None:
                reads = [r for r in loop.reads if r[0] in ("step", "feed", "gen")]
                nodes.append(_Node(reads, name, loop=loop))
                i += loop.length * loop.size
                continue
            call = next((c for c in self.calls.values() if c.layer not in self.inline
                         and name.startswith(self.prefix + c.layer + "/")), None)  # fmt: skip
            group = group_of(tuple(steps), i, self.prefix + call.layer + "/") if call else []
            node = (
                self._unit_node(self._bound(call), group, steps[i + len(group) :]) if call else None
            )
            if node is None:
                if call is not None:
                    self.inline.add(call.layer)
                step = steps[i]
                node, group = _Node(data_refs(step), step.name, step=step), [step]
            nodes.append(node)
            i += len(group)
        return nodes

    def _bound(self, call: UnitCall) -> UnitCall:
        """A Unit layer inside a unit body with the values of arguments passed on (``*BS``)."""
        if self.unit is None:
            return call
        layer = next(la for la in self.project.network(self.unit).layers if la.name == call.layer)
        args = []
        for name, value in call.arguments:
            raw = layer.properties.get(name, "").strip()
            outer = raw[1:] if raw.startswith("*") else None
            args.append((name, self.binding[outer] if outer in self.binding else value))
        return UnitCall(call.layer, call.network, call.scope, tuple(args))

    def _unit_node(self, call: UnitCall, group: list[Step], after: list[Step]) -> _Node | None:
        """A Unit layer as one call of its unit function; None: write its steps inline."""
        train = self.modes.train
        found = interface(group, after, [r for _, r in train.outputs], train.losses)
        scope = self.writer.param_prefix + (call.scope + "/" if call.scope else "")
        params = [r[1] for s in group for r in s.inputs if r[0] == "param"]
        if found is None or self.units is None or not all(p.startswith(scope) for p in params):
            return None
        external, result = found
        try:
            body = self._unit_body(call, group, external, result, self.prefix + call.layer + "/",
                                   scope)  # fmt: skip
            reference = self._unit_reference(call, result[len(self.prefix + call.layer) + 1 :])
        except ExportError:
            return None
        function = self.units.register(call.network, body, reference)
        if function is None:
            return None
        return _Node([external], result, call=call, function=function, group=tuple(group))

    def _unit_body(self, call: UnitCall, steps: list[Step], external: Ref, result: str,
                   prefix: str, scope: str) -> list[str]:  # fmt: skip
        assert self.units is not None
        idents = self.units.arguments(call.network)
        symbols = symbols_for(self.project, call.network, prefix, dict(call.arguments), idents)
        sub = _Writer(self.project, self.network, self.modes, self.target, self.units,
                      prefix=prefix, param_prefix=scope, external=external, symbols=symbols,
                      unit=call.network, binding=dict(call.arguments))  # fmt: skip
        lines, vars_ = sub.body(steps, [("step", result)])
        return [*lines, f"return {vars_[('step', result)]}"]

    def _unit_reference(self, call: UnitCall, result: str) -> list[str] | None:
        """The body for the unit network's own default arguments (None: it does not compile)."""
        try:
            modes = _compile(self.project, call.network)
        except ExportError:
            return None
        feeds = list(modes.train.feeds)
        if len(feeds) != 1 or modes.train.generators:
            return None
        external = ("feed", feeds[0], tuple(modes.train.feeds[feeds[0]]))
        defaults = unit_arguments.default_arguments(self.project.network(call.network))
        ref_call = UnitCall(call.layer, call.network, "", tuple(defaults.items()))
        sub = _Writer(self.project, call.network, modes, self.target, self.units, prefix="",
                      external=external, unit=call.network, binding=defaults)  # fmt: skip
        sub.symbols = symbols_for(self.project, call.network, "", dict(ref_call.arguments),
                                  self.units.arguments(call.network))  # fmt: skip
        sub.writer.symbols = sub.symbols
        steps = list(modes.train.steps)
        if not any(s.name == result for s in steps):
            return None
        lines, vars_ = sub.body(steps, [("step", result)])
        return [*lines, f"return {vars_[('step', result)]}"]

    # ------------------------------------------------------------------ lines
    def _lines(self, node: _Node, var: str, args: list[str]) -> list[str]:
        if node.call is not None:
            return self._call_lines(node, var, args)
        step = node.step
        assert step is not None
        test = self.test_steps.get(step.name)
        if test is not None and test.inputs != step.inputs:
            self._check_bypass(step, test)
        expr = self.splits.get(step.name) or self._stacked(step, test, args)
        name = self._local(step.name)
        if self.inside is not None:  # a loop body: block 0 stands for every time step
            name = re.sub(r"\[t=0\]$", "", name)
        head = f"# {comment(name)}{self._arrow(node, step.shape)}"
        if test is not None:
            return [head, f"{var} = {expr}"]
        skip = args[0] if args else "None"  # skipped at test time: passes its input on
        if skip == var:
            return [head, "if not test:", f"    {var} = {expr}"]
        return [head, f"{var} = {skip} if test else {expr}"]

    def _call_lines(self, node: _Node, var: str, args: list[str]) -> list[str]:
        call = node.call
        assert call is not None and self.units is not None
        shape = next(s.shape for s in node.group if s.name == node.result)

        def symbol(name: str, value: object) -> str | None:
            return self.symbols(self.prefix + call.layer, name, value) if self.symbols else None

        arguments = [args[0], *self.units.keywords(call, symbol), "test=test"]
        head = f"# {comment(call.layer)}{self._arrow(node, shape)}"
        expr = f"{var} = {node.function}({', '.join(arguments)})"
        if not call.scope:
            return [head, expr]
        return [head, f"with nn.parameter_scope({literal(call.scope)}):", f"    {expr}"]

    def _arrow(self, node: _Node, shape: tuple[int, ...]) -> str:
        """`` -> C,H,W`` where the layer changes the shape of its (first) input."""
        if node.inputs and self._shape_of(node.inputs[0]) == tuple(shape):
            return ""
        return " -> " + ",".join(str(int(n)) for n in shape)

    def _shape_of(self, ref: Ref) -> tuple[int, ...] | None:
        if ref[0] == "feed":
            return tuple(ref[2])
        if ref[0] == "step":
            return next((tuple(s.shape) for s in self.modes.train.steps if s.name == ref[1]), None)
        return None

    def _local(self, name: str) -> str:
        return name[len(self.prefix) :] if name.startswith(self.prefix) else name

    # ------------------------------------------------------------------ loops
    def _has_unit(self, loop: Loop) -> bool:
        return any(s.name.startswith(c.layer + "/") for c in self.calls.values() for s in loop.body)

    def _loop_lines(self, loop: Loop, outer: dict, taken: set[str]) -> list[str]:
        """A recurrent loop as ``for t in range(T):`` over block 0's steps: each RecurrentInput
        split once before it, each Delay a state variable set from its initial value and from
        its input at the end of each step, each RecurrentOutput's values collected in a list."""
        self.t = self.t or self.names.new("t")  # loops follow each other: one index for all
        t = self.t
        length = loop.length
        lines = [f"# recurrent loop: {length} time steps"]
        for step in loop.body:
            if step.item is not None:
                var = self.names.new(base(step.name)[0].rsplit("/", 1)[-1])  # type: ignore[index]
                args = [self._text(r, outer) for r in data_refs(step)]
                test = self.test_steps.get(step.name)
                expr = self.writer.call(replace(step, item=None),
                                        test and replace(test, item=None), args)  # fmt: skip
                lines.append(f"{var} = {expr}")
                self.splits[step.name] = f"{var}[{t}]"
        self.inside = {_key(r): self._text(r, outer) for r in loop.reads
                       if r[0] in ("step", "feed", "gen")}  # fmt: skip
        states = {}
        for name, initial in loop.carried.items():
            states[name] = self.names.new(_state_name(name, initial) + "_state")
            lines.append(f"{states[name]} = {self._text(initial, outer)}")
            self.inside[_key(initial)] = states[name]
        for name in loop.last - set(states):
            states[name] = self.names.new(name.rsplit("/", 1)[-1] + "_last")
        lists = {name: self.names.new(name.rsplit("/", 1)[-1] + "_steps")
                 for name in set(loop.stacked.values())}  # fmt: skip
        lines += [f"{var} = []" for var in lists.values()]
        needed = [("step", f"{name}[t=0]") for name in [*states, *lists]]
        body, inner = self.body(list(loop.body), needed, frozenset(taken | set(states.values())))
        body += [f"{var} = {inner[('step', f'{n}[t=0]')]}" for n, var in states.items()]
        body += [f"{var}.append({inner[('step', f'{n}[t=0]')]})" for n, var in lists.items()]
        self.inside = None
        for name, var in states.items():
            self.after[("step", f"{name}[t={length - 1}]")] = var
        for name, var in lists.items():
            for k in range(length):
                self.after[("step", f"{name}[t={k}]")] = f"{var}[{k}]"
        return [*lines, f"for {t} in range({length}):", *("    " + line for line in body)]

    def _stacked(self, step: Step, test: Step | None, args: list[str]) -> str:
        """The call; a RecurrentOutput's stack of a loop's list as ``F.stack(*list, ...)``."""
        expr = self.writer.call(step, test, args)
        items = re.fullmatch(r"(\w+)\[0\]", args[0]) if args else None
        if items and args == [f"{items.group(1)}[{k}]" for k in range(len(args))]:
            expr = expr.replace(", ".join(args), "*" + items.group(1), 1)
        return expr

    def _check_bypass(self, step: Step, test_step: Step) -> None:
        """In test mode the inputs may skip layers that pass their input on; nothing else."""
        train_steps = {s.name: s for s in self.modes.train.steps}

        def through(ref: Ref) -> Ref:
            while ref[0] == "step" and ref[1] not in self.test_steps:
                ref = train_steps[ref[1]].inputs[0]
            return ref

        if tuple(through(r) for r in step.inputs) != tuple(test_step.inputs):
            raise self.writer.error(step, "the test-mode network is wired differently")


def _free_name(live: dict[str, tuple], taken: frozenset[str] | set[str]) -> str:
    return _free({**live, **dict.fromkeys(taken, ())})


def _key(ref: Ref) -> tuple:
    return tuple(ref[:2])


def _free(live: dict[str, tuple]) -> str:
    """The first of h, h1, h2, ... not holding a value still needed."""
    n = 0
    while (name := "h" if n == 0 else f"h{n}") in live:
        n += 1
    return name


def _state_name(name: str, initial: Ref) -> str:
    """A Delay's state is named after the Delay (its initial value is ``<Delay>/Initial``) or
    the step giving the initial value (the LSTM layer's ``LSTM/H``)."""
    if initial[0] == "step":
        return initial[1].removesuffix("/Initial").rsplit("/", 1)[-1]
    return name.rsplit("/", 1)[-1]


def _shape(shape: tuple[int, ...]) -> str:
    return "(batch, " + ", ".join(str(int(n)) for n in shape) + ")"

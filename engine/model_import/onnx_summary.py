"""``neurocanvas import --summary MODEL.onnx``: what an ONNX model would become, before anything
is written.

The model goes through the importer's own steps (:mod:`engine.formats.onnx_import`: shapes,
folding, the catalogue's rules), but a node that is refused does not stop the others: every
node is classified, and the operators are listed with how many nodes each has and what they
become (one layer, a composite of layers, folded into the layer before, a constant computed
at import, no layer at all) or why they are refused. When nothing is refused the network is
also built and compiled, as ``import`` would, and its layer count given.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engine.formats import onnx_import as oi
from engine.formats.nnabla.graph import ImportError_
from engine.model_import import _single

__all__ = ["NodeOutcome", "OnnxSummary", "summarize_onnx", "format_summary"]

# kinds of outcome, in the order the summary lists them
ONE = "1:1"
COMPOSITE = "composite"
FOLDED_INTO = "folded into"
FOLDED = "folded"
MERGED = "merged"
PASSES = "no layer"
REFUSED = "refused"
KINDS = (ONE, COMPOSITE, FOLDED_INTO, FOLDED, MERGED, PASSES, REFUSED)


@dataclass
class NodeOutcome:
    """What one ONNX node becomes."""

    node: str  # its name as the file has it (else its first output)
    op: str
    kind: str  # one of KINDS
    layers: tuple[str, ...] = ()  # the layer types it becomes (or is folded into)
    reason: str = ""  # why it is refused

    def how(self) -> str:
        """The outcome in words (the summary's last column)."""
        if self.kind == ONE:
            return f"1:1 {self.layers[0]}"
        if self.kind == COMPOSITE:
            return f"composite: {', '.join(self.layers)}"
        if self.kind == FOLDED_INTO:
            return f"folded into the {self.layers[0]} before it"
        if self.kind == FOLDED:
            return "folded: a constant computed at import"
        if self.kind == MERGED:
            return "merged into the layer of the node that reads it"
        if self.kind == PASSES:
            return "no layer: its input passes on"
        return f"refused: {self.reason}"


@dataclass
class OnnxSummary:
    """Every node's outcome, the model-wide refusals and, when it imports, its layer count."""

    path: str
    opset: int
    inputs: dict[str, tuple[int, ...]]  # without the batch axis
    outputs: list[str]
    nodes: list[NodeOutcome] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)  # refusals not of one node
    layers: int | None = None  # the imported network's layers (None: it does not import)

    @property
    def refused(self) -> list[NodeOutcome]:
        return [n for n in self.nodes if n.kind == REFUSED]

    @property
    def imports(self) -> bool:
        return not self.refused and not self.problems

    def rows(self) -> list[tuple[str, int, str]]:
        """(operator, nodes, outcome) per distinct outcome of an operator, in node order."""
        counts = Counter((n.op, n.how()) for n in self.nodes)
        return [(op, k, how) for (op, how), k in counts.items()]

    def to_json(self) -> dict[str, Any]:
        return {"path": self.path, "opset": self.opset,
                "inputs": {k: list(v) for k, v in self.inputs.items()}, "outputs": self.outputs,
                "imports": self.imports, "layers": self.layers, "problems": self.problems,
                "operators": [{"operator": op, "nodes": k, "becomes": how}
                              for op, k, how in self.rows()],
                "nodes": [{"node": n.node, "operator": n.op, "kind": n.kind,
                           "layers": list(n.layers), "reason": n.reason}
                          for n in self.nodes]}  # fmt: skip


def _reason(exc: Exception, node: Any) -> str:
    """An importer error without its ``file: node "x" (Op):`` start."""
    text = str(exc)
    marker = f"({node.op_type}): "
    return text.split(marker, 1)[1] if marker in text else text


def summarize_onnx(path: str | Path) -> OnnxSummary:
    """Classify every node of the ONNX model at ``path`` (see the module docstring).

    Raises:
        ImportError_: the file cannot be read at all (not ONNX, dynamic axes besides the
            batch, an input that is not a float, shape inference failing), in one line.
    """

    ctx, inputs = oi.prepare(path)
    graph = ctx.model.graph
    summary = OnnxSummary(str(path), ctx.opset, {k: v[1:] for k, v in inputs.items()},
                          [o.name for o in graph.output])  # fmt: skip
    outcome: dict[int, NodeOutcome] = {}

    def refuse(node: Any, reason: str) -> None:
        outcome[id(node)] = NodeOutcome(node.name or node.output[0], node.op_type, REFUSED,
                                        reason=reason)  # fmt: skip

    for node in graph.node:
        if oi.folds(ctx, node):
            try:
                oi._fold(ctx, node)  # noqa: SLF001 - the importer's own step
            except ImportError_ as exc:
                refuse(node, _reason(exc, node))
                continue
            outcome[id(node)] = NodeOutcome(node.name or node.output[0], node.op_type, FOLDED)
        elif node.op_type not in oi.ONNX_OPERATORS:
            refuse(node, "no NNC layer for this operator")
    for node, message in oi.extra_outputs(ctx):
        refuse(node, message)
    recorder = _Recorder(ctx.params)
    ctx.params = recorder
    for node in graph.node:
        if id(node) in outcome:
            continue
        if oi.folds(ctx, node):  # its inputs became constants as they were read
            oi._fold(ctx, node)  # noqa: SLF001 - the importer's own step
            outcome[id(node)] = NodeOutcome(node.name or node.output[0], node.op_type, FOLDED)
            continue
        recorder.touched = set()
        try:
            oi.ONNX_OPERATORS[node.op_type](ctx, node)
        except ImportError_ as exc:
            refuse(node, _reason(exc, node))
            continue
        except Exception:  # a node after a refused one may read what was never made
            if not any(o.kind == REFUSED for o in outcome.values()):
                raise
            refuse(node, "not checked: it follows a refused node")
            continue
        outcome[id(node)] = _converted(ctx, node, bool(recorder.touched))
    ctx.params = dict(recorder)
    _fill_layers(ctx, graph, outcome)
    summary.nodes = [outcome[id(node)] for node in graph.node]
    message = oi.constant_output(ctx)
    if message:
        summary.problems.append(message)
    if summary.imports:
        _count_layers(ctx, inputs, summary)
    return summary


class _Recorder(dict):  # type: ignore[type-arg]
    """The importer's parameters, noting which a rule sets (a node folded into a layer)."""

    touched: set[str]

    def __setitem__(self, key: str, value: Any) -> None:
        self.touched.add(key)
        super().__setitem__(key, value)


def _converted(ctx: Any, node: Any, changed_parameters: bool) -> NodeOutcome:
    """A node the rules took; its layers are filled in once every node is read (a later node
    can take an earlier one's layers: Unsqueeze + Concat is one Stack)."""
    name = node.name or node.output[0]
    if node.output[0] in ctx.alias and changed_parameters:
        fn = ctx.producer(node.output[0])
        return NodeOutcome(name, node.op_type, FOLDED_INTO, (fn.type,) if fn else ("layer",))
    if node.output[0] in ctx.alias:
        return NodeOutcome(name, node.op_type, PASSES)
    return NodeOutcome(name, node.op_type, MERGED)


def _fill_layers(ctx: Any, graph: Any, outcome: dict[int, NodeOutcome]) -> None:
    """The layer types each converted node's functions are (1:1 or composite)."""
    made: dict[int, list[str]] = {}
    for fn in ctx.functions:
        origin = ctx.origin.get(id(fn))
        if origin is not None:
            made.setdefault(id(origin[0]), []).append(fn.type)
    for node in graph.node:
        got = outcome[id(node)]
        types = made.get(id(node))
        if got.kind == REFUSED or not types:
            continue
        got.kind = ONE if len(types) == 1 else COMPOSITE
        got.layers = tuple(types)


def _count_layers(ctx: Any, inputs: dict[str, tuple[int, ...]], summary: OnnxSummary) -> None:
    """Build and compile the network as ``import`` would; a failure is a problem."""

    try:
        imported = _single(oi.finish_graph(ctx, inputs), summary.path)
    except ImportError_ as exc:
        summary.problems.append(str(exc).removeprefix(f"{summary.path}: "))
        return
    summary.layers = len(imported.project.network("Main").layers)


def format_summary(summary: OnnxSummary) -> str:
    """The summary as text: the model, one row per operator and outcome, the verdict."""

    def shape(dims: tuple[int, ...]) -> str:
        return "x".join(map(str, dims)) or "scalar"

    ins = ", ".join(f"{k} ({shape(v)} per sample)" for k, v in summary.inputs.items())
    lines = [f"{summary.path}: ONNX opset {summary.opset}, {len(summary.nodes)} nodes; "
             f"input {ins}; output {', '.join(summary.outputs)}"]  # fmt: skip
    rows = summary.rows()
    width = max([len("Operator")] + [len(op) for op, _, _ in rows])
    lines.append(f"  {'Operator':<{width}}  Nodes  Becomes")
    for op, count, how in sorted(rows, key=lambda row: row[2].startswith("refused")):
        lines.append(f"  {op:<{width}}  {count:>5}  {how}")
    for problem in summary.problems:
        lines.append(f"  the model: refused: {problem}")
    if summary.imports:
        lines.append(f"imports as {summary.layers} layers (nothing written: --summary)")
    else:
        refused = summary.refused
        names = ", ".join(f'{n.op} (node "{n.node}")' for n in refused[:5])
        more = f" and {len(refused) - 5} more" if len(refused) > 5 else ""
        what = f"{len(refused)} node(s) refused: {names}{more}" if refused else "refused"
        lines.append(f"does not import: {what}")
    return "\n".join(lines)

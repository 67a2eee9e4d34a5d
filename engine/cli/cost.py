"""``neurocanvas cost PROJECT [--network NAME] [--json] [--layers] [--exact]``: NNC's statistics.

Prints the eight NNC statistics (Output, CostParameter, CostAdd, CostMultiply,
CostMultiplyAdd, CostDivision, CostExp, CostIf) of every network, or of ``--network NAME``,
plus the unique parameter count, FLOPs (2 x the exact multiply-adds) and parameter bytes
(float32). A derived ``<Net>Validation``/``<Net>Runtime`` is counted as its drawn network, as
NNC does. The totals are NNC's numbers: float32 sums (above 2**24 they are rounded); where the
exact integer differs the text shows it beside them, and ``--exact`` prints the exact integers
instead. ``--layers`` adds one row per layer; ``--json`` prints::

    {"networks": {"<net>": {"Output": n, ..., "CostIf": n, "UniqueParameters": n, ...}},
     "exact": {"<net>": {"Output": n, ..., "CostIf": n}},
     "layers": {"<net>": {"<layer>": {"type": t, "shape": [..], "times": k, "Output": n, ...}}}}

(``times``: how often the layer counts in the totals, the iterations of the repeat blocks and
time steps of the recurrent loops around it; ``layers`` only with ``--layers``; ``errors``
lists layers that failed). Exit status 1 when a layer's shape or statistics cannot be computed
or the network has an error ``train`` refuses (a bad property value, ...), one line each on
stderr naming the file, network, layer and property; the text table is then not printed (its
zeros are no statistics), the JSON still is (with ``errors``). A pooling
layer whose shape NNC's editor shows differently from the one that runs is named on stderr
(``warning:``, both shapes; exit status 0); the statistics are NNC's.
"""

from __future__ import annotations

import argparse
import json
import sys

from engine.cli import UserError, one_line
from engine.core.messages import in_file

_EXTRAS = ("UniqueParameters", "FLOPs", "ParameterBytes")


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> argparse.ArgumentParser:
    parser: argparse.ArgumentParser = sub.add_parser(
        "cost",
        help="print NNC's statistics (parameters, multiply-adds, ...) of a project",
        description="Print the statistics NNC shows for each network: Output, CostParameter, "
        "CostAdd, CostMultiply, CostMultiplyAdd, CostDivision, CostExp, CostIf, plus unique "
        "parameters, FLOPs and parameter bytes.",
    )
    parser.add_argument("project", metavar="PROJECT", help=".ncproj, .sdcproj or network.ini")
    parser.add_argument("--network", metavar="NAME", help="only this network")
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.add_argument("--layers", action="store_true", help="add the values of every layer")
    parser.add_argument(
        "--exact",
        action="store_true",
        help="print the exact integer totals instead of NNC's float32 sums",
    )
    return parser


def run(args: argparse.Namespace) -> int:
    from engine.formats import ProjectFileError, load_project
    from engine.graph.derive import counted_as
    from engine.graph.loops import multipliers
    from engine.graph.project_inference import ProjectInference
    from engine.graph.statistics import network_statistics, pooling_disagreements, pooling_message
    from engine.graph.validate import run_problems

    try:
        project = load_project(args.project)
    except ProjectFileError as exc:
        raise UserError(str(exc)) from None
    names = list(project.network_names)
    if args.network is not None:
        base = counted_as(project, args.network)
        if base is None:
            raise UserError(
                f'no network "{args.network}" in {args.project} '
                f"(networks: {', '.join(names) or 'none'})"
            )
        names = [args.network]
    inference = ProjectInference(project, follow=False)
    report: dict[str, object] = {}
    networks: dict[str, dict[str, int]] = {}
    exact: dict[str, dict[str, int]] = {}
    layers: dict[str, dict] = {}
    errors: list[str] = []
    warnings: list[str] = []  # the statistics are NNC's, but another shape runs
    for name in names:
        network = inference.network(counted_as(project, name) or name)
        stats = network_statistics(network)
        networks[name] = stats.summary(exact=args.exact)
        exact[name] = stats.exact
        times = multipliers(network)
        layers[name] = {
            layer: {
                "type": result.type,
                "shape": list(result.shape) if result.shape else None,
                "times": times.get(layer, 1),
                **stats.layers.get(layer, {}),
            }
            for layer, result in network.results().items()
        }
        errors += [f'network "{name}", layer "{r.name}": {r.error}' for r in network.errors()]
        for path, runs, shown in pooling_disagreements(network):
            layer, _, inner = path.partition("/")
            message = pooling_message(runs, shown, inner)
            warnings.append(f'network "{name}", layer "{layer}": {message}')
    errors += _run_errors(project, names, errors, run_problems)
    report["networks"] = networks
    report["exact"] = exact
    if args.layers:
        report["layers"] = layers
    if errors:
        report["errors"] = errors
    if args.json:
        print(json.dumps(report, indent=2))
    elif not errors:  # a table of zeros before the error would read as the network's numbers
        _print_text(networks, None if args.exact else exact, layers if args.layers else None)
    for message in warnings:
        print(f"neurocanvas cost: warning: {message}", file=sys.stderr)
    for message in errors:
        print(f"neurocanvas cost: error: {one_line(in_file(args.project, message))}",
              file=sys.stderr)  # fmt: skip
    return 1 if errors else 0


def _run_errors(project, names: list[str], reported: list[str], run_problems) -> list[str]:
    """The errors ``train`` refuses (a bad property value, ...) that the statistics did not
    already name: statistics of a network that cannot run are not a success."""
    from engine.graph.derive import counted_as

    def place(problem) -> str:
        where = [f'network "{problem.network}"'] if problem.network is not None else []
        where += [f'layer "{problem.layer}"'] if problem.layer is not None else []
        return ", ".join(where)

    bases = {counted_as(project, name) or name: name for name in names}
    # the statistics name a derived network (MainValidation) as asked; the problems its base
    shown = [error.replace(f'network "{name}"', f'network "{base}"', 1)
             for base, name in bases.items() for error in reported]  # fmt: skip
    return [str(p) for p in run_problems(project, list(bases))
            if not any(e.startswith(place(p)) for e in shown)]  # fmt: skip


def _print_text(networks: dict[str, dict[str, int]], exact: dict | None, layers: dict | None):
    """``exact``: the exact sums, shown beside NNC's float32 totals where they differ."""
    for name, summary in networks.items():
        print(f'Network "{name}"')
        for key, value in summary.items():
            count = exact[name].get(key, value) if exact else value
            beside = f"  (float32 as NNC; exact {count:,})" if count != value else ""
            print(f"  {key:<17}{value:>20,}{beside}")
        if layers is not None:
            _print_layers(layers[name])
        print()


def _print_layers(rows: dict[str, dict]) -> None:
    from engine.layers.spec import STATISTICS

    header = ["Layer", "Type", "Shape", *STATISTICS]
    table = [header]
    for layer, row in rows.items():
        shape = ",".join(map(str, row["shape"])) if row["shape"] else "-"
        table.append([layer, row["type"], shape, *(f"{row.get(s, 0):,}" for s in STATISTICS)])
    widths = [max(len(r[i]) for r in table) for i in range(len(header))]
    for r in table:
        pairs = enumerate(zip(r, widths, strict=True))
        cells = [c.ljust(w) if i < 3 else c.rjust(w) for i, (c, w) in pairs]
        print("  " + "  ".join(cells))

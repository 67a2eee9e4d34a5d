"""ONNX's operator tests against the importer, as a table (``python tools/onnx_operator_table.py``
writes docs/onnx-operators.md).

Every case of ``onnx.backend.test.case.node``, regenerated from the installed ``onnx`` package,
is imported and run: it matches the expected outputs, or is refused with one line; anything else
(another exception, different outputs) is a defect that tests/engine/formats/
test_onnx_node_cases.py reports. The table lists each operator with its cases, how many match,
what a matching case imports as (``neurocanvas import --summary``'s words) and why the others
are refused. The test also checks that docs/onnx-operators.md is this table, so it cannot go
stale: rerun this script after changing an ONNX rule.
"""

from __future__ import annotations

import re
import sys
import tempfile
import warnings
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
TABLE = ROOT / "docs" / "onnx-operators.md"

MATCH, REFUSED, TRACEBACK, MISMATCH = "match", "refused", "traceback", "mismatch"


@dataclass
class CaseResult:
    """One node test: its operator, outcome and what it became or why it was refused."""

    name: str
    op: str
    outcome: str  # MATCH, REFUSED, TRACEBACK, MISMATCH
    detail: str = ""  # the refusal (without file and node names) or the defect
    how: list[str] = field(default_factory=list)  # a match: its operator's outcomes


def cases() -> list:
    from onnx.backend.test.case.node import collect_testcases

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return collect_testcases()


def _operator(case, ops_of: dict[str, str]) -> str:
    """The case's operator; a case that tests ONNX's expansion of a function (its body's
    operators) is listed as that operator's ``(expanded)`` form."""
    if "_expanded" in case.name:
        base = case.name.split("_expanded")[0]
        return f"{ops_of.get(base, case.model.graph.node[0].op_type)} (expanded)"
    return case.model.graph.node[0].op_type


def _reason(text: str, path: Path) -> str:
    """A refusal without the file and the names of the case's nodes and values."""
    text = text.removeprefix(f"{path}: ")
    text = re.sub(r'^node "[^"]*" \([^)]*\): ', "", text)
    if text.startswith("no NNC layer for "):
        return "no NNC layer"
    return re.sub(r'"[^"]*"', '"…"', text)


def _array(value) -> np.ndarray:
    """A data set's value as numpy (ONNX keeps types numpy lacks, float16 and bfloat16 data in
    some cases, as TensorProto)."""
    import onnx
    from onnx import numpy_helper

    return (
        numpy_helper.to_array(value) if isinstance(value, onnx.TensorProto) else np.asarray(value)
    )


def run_case(case, folder: Path) -> CaseResult:
    import onnx

    from engine.model_import import ImportError_, read_model
    from engine.model_import.onnx_summary import summarize_onnx

    sys.path.insert(0, str(ROOT / "tests"))
    from model_kit import outputs

    op = case.model.graph.node[0].op_type
    path = folder / f"{case.name}.onnx"
    onnx.save(case.model, path)
    try:
        imported = read_model(path)
    except ImportError_ as exc:
        if "\n" in str(exc):
            return CaseResult(case.name, op, TRACEBACK, f"a refusal of several lines: {exc}")
        return CaseResult(case.name, op, REFUSED, _reason(str(exc), path))
    except Exception as exc:  # noqa: BLE001 - the defect this harness looks for
        return CaseResult(case.name, op, TRACEBACK, f"import raised {type(exc).__name__}: {exc}")
    ins, expected = case.data_sets[0]
    ins, expected = [_array(v) for v in ins], [_array(v) for v in expected]
    inits = {i.name for i in case.model.graph.initializer}
    names = [i.name for i in case.model.graph.input if i.name not in inits]
    try:
        got = outputs(imported.project, "Main", imported.parameters,
                      {n: np.asarray(v) for n, v in zip(names, ins, strict=False)})  # fmt: skip
    except Exception as exc:  # noqa: BLE001
        return CaseResult(case.name, op, TRACEBACK, f"running raised {type(exc).__name__}: {exc}")
    same = len(got) == len(expected) and all(
        np.asarray(a).size == np.asarray(b).size and np.allclose(
            np.asarray(a).reshape(np.asarray(b).shape), b, rtol=max(case.rtol, 1e-4),
            atol=max(case.atol, 1e-5), equal_nan=True)
        for a, b in zip(got, expected, strict=False)
    )  # fmt: skip
    if not same:
        return CaseResult(case.name, op, MISMATCH, "outputs differ from the expected ones")
    how = sorted({n.how() for n in summarize_onnx(path).nodes if n.op == op})
    return CaseResult(case.name, op, MATCH, how=how)


def run_cases(folder: Path) -> list[CaseResult]:
    """Every node test's result (see the module docstring)."""
    everything = cases()
    ops_of = {c.name: c.model.graph.node[0].op_type for c in everything}
    results = []
    for case in everything:
        result = run_case(case, folder)
        result.op = _operator(case, ops_of)
        if "_expanded" in case.name:
            result.how = ["its function body, node by node"] if result.outcome == MATCH else []
        results.append(result)
    return results


def operator_table(results: list[CaseResult]) -> str:
    """docs/onnx-operators.md: the totals, then one row per operator."""
    import onnx

    count = Counter(r.outcome for r in results)
    by_op: dict[str, list[CaseResult]] = {}
    for r in results:
        by_op.setdefault(r.op, []).append(r)
    lines = [
        "# ONNX operators: the node tests",
        "",
        "<!-- generated by python tools/onnx_operator_table.py; "
        "tests/engine/formats/test_onnx_node_cases.py checks it -->",
        "",
        "## 1. Results",
        "",
        f"ONNX's operator tests (`onnx.backend.test.case.node`, regenerated from the installed "
        f"`onnx` {onnx.__version__}), each imported with `neurocanvas import` and run on its "
        f"inputs: **{len(results):,} cases, {count[MATCH]:,} match** the expected outputs, "
        f"{count[REFUSED]:,} are refused in one line, {count[TRACEBACK]} end in a traceback and "
        f"{count[MISMATCH]} in a silent mismatch. A case that tests ONNX's expansion of an "
        "operator into its function body is listed as that operator's *(expanded)* form. "
        "*Imports as* is what the matching cases' nodes became (`neurocanvas import --summary`'s "
        "words); *Refused* gives each reason with its number of cases (`…` stands for a name "
        "of the case). Most refusals are operators without an NNC layer or inputs that are not "
        "floating point (NNC networks compute in floats).",
        "",
        "## 2. Per operator",
        "",
        "| Operator | Cases | Match | Imports as | Refused |",
        "|---|---|---|---|---|",
    ]
    for op in sorted(by_op, key=str.lower):
        group = by_op[op]
        matched = [r for r in group if r.outcome == MATCH]
        how = sorted({h for r in matched for h in r.how})
        reasons = _grouped(Counter(r.detail for r in group if r.outcome == REFUSED))
        ordered = sorted(reasons.items(), key=lambda item: (-item[1], item[0]))
        refused = "; ".join(f"{k}: {reason}" for reason, k in ordered)
        bad = [r for r in group if r.outcome in (TRACEBACK, MISMATCH)]
        if bad:
            refused += f"; **{len(bad)} defect(s)**"
        cells = [op, str(len(group)), str(len(matched)), "; ".join(how) or "-",
                 refused.replace("|", "\\|") or "-"]  # fmt: skip
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


_TYPE = re.compile(r'^input "…" is of type (\w+); (.*)$')


def _grouped(reasons: Counter) -> Counter:
    """Refusals that differ only in an input's type as one, listing the types."""
    out: Counter = Counter()
    types: dict[str, list[str]] = {}
    for reason, k in reasons.items():
        match = _TYPE.match(reason)
        if match is None:
            out[reason] += k
            continue
        types.setdefault(match.group(2), []).append(match.group(1))
        out[match.group(2)] += k
    for rest, names in types.items():
        k = out.pop(rest)
        out[f'input "…" is of type {", ".join(sorted(names))}; {rest}'] = k
    return out


def main() -> None:
    sys.path.insert(0, str(ROOT))
    with tempfile.TemporaryDirectory() as folder:
        results = run_cases(Path(folder))
    TABLE.write_text(operator_table(results), encoding="utf-8")
    count = Counter(r.outcome for r in results)
    print(f"wrote {TABLE}: {len(results)} cases, " + ", ".join(f"{v} {k}" for k, v in
                                                                  count.items()))  # fmt: skip


if __name__ == "__main__":
    main()

"""ONNX's operator tests, regenerated from the installed ``onnx`` package
(``onnx.backend.test.case.node``): every case either imports and gives the expected outputs,
or is refused with one ImportError_ line. No case may end in another exception (a traceback)
or in outputs that differ (a silent mismatch). The per-operator table of the results,
docs/onnx-operators.md (linked from the README), must be what tools/onnx_operator_table.py
writes from them."""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

import pytest

pytest.importorskip("onnx", reason="onnx not installed")

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "tools"))

from onnx_operator_table import (  # noqa: E402
    MATCH,
    MISMATCH,
    REFUSED,
    TABLE,
    TRACEBACK,
    operator_table,
    run_cases,
)

# 29 before issue 28's work (13 silent mismatches, 3 tracebacks); 90 before the rules for Neg,
# Sqrt, Reciprocal, HardSigmoid, HardSwish, Erf, Gelu, PRelu, Cast/CastLike, Split, ArgMax/ArgMin,
# the trigonometric and hyperbolic functions, Ceil, Floor, Softsign, Celu, ThresholdedRelu, Sum
# with constants
MATCHED_AT_LEAST = 168


def test_onnx_node_cases_match_or_are_refused_in_one_line(tmp_path):
    results = run_cases(tmp_path)
    wrong = [f"{r.name}: {r.detail}" for r in results if r.outcome in (TRACEBACK, MISMATCH)]
    assert not wrong, "\n".join(wrong)
    count = Counter(r.outcome for r in results)
    assert count[MATCH] >= MATCHED_AT_LEAST, (count[MATCH], count[REFUSED])
    assert TABLE.read_text(encoding="utf-8") == operator_table(results), (
        "docs/onnx-operators.md is stale: run python tools/onnx_operator_table.py"
    )

"""ONNX's operator tests, regenerated from the installed ``onnx`` package
(``onnx.backend.test.case.node``): every case either imports and gives the expected outputs,
or is refused with one ImportError_ line. No case may end in another exception (a traceback)
or in outputs that differ (a silent mismatch)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from model_kit import outputs

from engine.model_import import ImportError_, read_model

onnx = pytest.importorskip("onnx", reason="onnx not installed")

# 29 before issue 28's work (13 silent mismatches, 3 tracebacks); 90 before the rules for Neg,
# Sqrt, Reciprocal, HardSigmoid, HardSwish, Erf, Gelu, PRelu, Cast/CastLike, Split, ArgMax/ArgMin,
# the trigonometric and hyperbolic functions, Ceil, Floor, Softsign, Celu, ThresholdedRelu, Sum
# with constants
MATCHED_AT_LEAST = 168


def _array(value):
    """A data set's value as numpy (ONNX keeps types numpy lacks, float8 ..., as TensorProto)."""
    from onnx import numpy_helper

    return (
        numpy_helper.to_array(value) if isinstance(value, onnx.TensorProto) else np.asarray(value)
    )


def _cases():
    from onnx.backend.test.case.node import collect_testcases

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return collect_testcases()


def test_onnx_node_cases_match_or_are_refused_in_one_line(tmp_path):
    matched, refused, wrong = 0, 0, []
    for case in _cases():
        path = tmp_path / f"{case.name}.onnx"
        onnx.save(case.model, path)
        try:
            imported = read_model(path)
        except ImportError_ as exc:
            assert "\n" not in str(exc), case.name
            refused += 1
            continue
        except Exception as exc:  # noqa: BLE001 - the defect this test looks for
            wrong.append(f"{case.name}: import raised {type(exc).__name__}: {exc}")
            continue
        ins, expected = case.data_sets[0]
        expected = [_array(v) for v in expected]
        inits = {i.name for i in case.model.graph.initializer}
        names = [i.name for i in case.model.graph.input if i.name not in inits]
        try:
            got = outputs(imported.project, "Main", imported.parameters,
                          {n: _array(v) for n, v in zip(names, ins, strict=False)})  # fmt: skip
        except Exception as exc:  # noqa: BLE001
            wrong.append(f"{case.name}: running raised {type(exc).__name__}: {exc}")
            continue
        same = len(got) == len(expected) and all(
            np.asarray(a).size == np.asarray(b).size and np.allclose(
                np.asarray(a).reshape(np.asarray(b).shape), b, rtol=max(case.rtol, 1e-4),
                atol=max(case.atol, 1e-5), equal_nan=True)
            for a, b in zip(got, expected, strict=False)
        )  # fmt: skip
        if same:
            matched += 1
        else:
            wrong.append(f"{case.name}: outputs differ from the expected ones")
    assert not wrong, "\n".join(wrong)
    assert matched >= MATCHED_AT_LEAST, (matched, refused)

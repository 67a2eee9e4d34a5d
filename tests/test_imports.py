"""The house's import measures (tools/import_measures.py, issue 31): no engine import hides in a
function outside the entry points, no PLC0415 noqa markers, no circle between packages, no
import running back up the floors; the named optional libraries load through
engine.core.optional only. The last tests plant each fault in a copy and see it counted."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
import import_measures  # noqa: E402


@pytest.fixture(scope="module")
def measures() -> import_measures.Measures:
    return import_measures.measure()


def _printed(code: str) -> list[str]:
    """The lines a fresh interpreter running ``code`` on this tree prints."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=ROOT, env=env, check=True)  # fmt: skip
    return out.stdout.splitlines()


def _lines(imports) -> list[str]:
    return [f"{i.module}:{i.line} -> {i.target}" for i in imports]


def test_no_engine_import_inside_a_function_outside_the_entry_points(measures):
    assert _lines(measures.function_level_engine()) == []


def test_no_plc0415_noqa_markers(measures):
    assert measures.noqa == []


def test_no_circle_between_packages_or_modules(measures):
    assert measures.package_cycles() == []
    assert measures.module_cycles() == []


def test_a_variable_has_its_operators_once_engine_nn_is_imported():
    # autograd no longer imports the arithmetic layers (that was the last module circle):
    # engine.core.ops.arithmetic installs them, and engine.nn, the API, imports it.
    code = (
        "import numpy as np, engine.nn as nn\n"
        "a, b = nn.Variable(np.array([1.0, 2.0])), nn.Variable(np.array([[3.0], [4.0]]))\n"
        "print((a + 1).d.tolist(), (2 - a).d.tolist(), (-a).d.tolist(),"
        " (a ** 2 / a * a).d.tolist(), (nn.Variable(np.array([[1.0, 2.0]])) @ b).d.tolist())"
    )
    assert _printed(code)[0] == "[2.0, 3.0] [1.0, 0.0] [-1.0, -2.0] [1.0, 4.0] [[11.0]]"


def test_no_import_runs_back_up_the_floors(measures):
    assert _lines(measures.upward()) == []


def test_third_party_libraries_load_at_module_level_or_through_one_mechanism(measures):
    # a library used on some paths only is declared ``x = optional.lazy("x")`` at module level
    assert _lines(measures.function_level_third_party()) == []


def test_the_app_imports_its_own_modules_at_module_level_or_through_one_mechanism(measures):
    # what waits for first use (a tab, the plots, the exports) is declared with optional.lazy
    assert _lines(measures.function_level_app()) == []


def test_a_lazy_module_is_imported_at_first_use_and_names_what_is_missing():
    code = (
        "import sys\n"
        "from engine.core import optional\n"
        "colors = optional.lazy('matplotlib.colors')\n"
        "before = 'matplotlib' in sys.modules\n"
        "print(before, colors.to_hex((1, 0, 0)), 'matplotlib.colors' in sys.modules)\n"
        "try:\n"
        "    optional.lazy('no_such_library_x', 'a test').anything\n"
        "except ImportError as exc:\n"
        "    print(type(exc).__name__, exc)\n"
    )
    assert _printed(code) == [
        "False #ff0000 True",
        "MissingDependency no_such_library_x is not installed (a test): "
        "pip install no_such_library_x",
    ]


def _copy(tmp_path: Path) -> Path:
    for package in import_measures.MARKED:
        shutil.copytree(ROOT / package, tmp_path / package,
                        ignore=shutil.ignore_patterns("__pycache__", "*.nbi", "*.nbc"))  # fmt: skip
    shutil.copy(ROOT / "pyproject.toml", tmp_path)
    return tmp_path


def test_each_planted_fault_is_counted(tmp_path, monkeypatch):
    root = _copy(tmp_path)
    monkeypatch.setattr(import_measures, "ROOT", root)  # the copy's pyproject.toml
    atomic = root / "engine" / "core" / "atomic.py"
    atomic.write_text(atomic.read_text() + "\n\ndef _up():\n    import engine.runtime.job\n")
    backend = root / "engine" / "core" / "backend.py"
    marker = "# noqa: " + "PLC" + "0415"  # spelt apart: this file holds no marker itself
    backend.write_text(backend.read_text() + f"\n\ndef _onnx():\n    import onnx  {marker}\n")
    m = import_measures.measure(root)
    up = f"engine.core.atomic:{_last(atomic)} -> engine.runtime.job"
    assert _lines(m.function_level_engine()) == [up]
    assert m.noqa == [("engine/core/backend.py", _last(backend))]
    assert _lines(m.upward()) == [up]
    assert any({"engine.core", "engine.runtime"} <= set(c) for c in m.package_cycles())
    third = [(i.module, i.target) for i in m.function_level_third_party()]
    assert ("engine.core.backend", "onnx") in third


def _last(path: Path) -> int:
    return len(path.read_text().splitlines())

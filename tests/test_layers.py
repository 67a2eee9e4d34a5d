"""The house's floors (pyproject.toml's import-linter contracts) hold, and a new upward import
breaks them with its names: import-linter reads every import, those inside functions too."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("engine", "console_app", "neurocanvas")


def _lint_imports(folder: Path) -> subprocess.CompletedProcess:
    exe = Path(sys.executable).with_name("lint-imports")
    if not exe.exists():
        exe = shutil.which("lint-imports")
    if exe is None:
        pytest.skip("import-linter is not installed (pip install -e '.[test]')")
    env = {**os.environ, "PYTHONPATH": str(folder)}
    return subprocess.run([str(exe), "--no-cache"], cwd=folder, env=env, capture_output=True,
                          text=True, timeout=600)  # fmt: skip


def test_every_contract_is_kept():
    done = _lint_imports(ROOT)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Layers KEPT" in done.stdout and "Contracts: 2 kept, 0 broken." in done.stdout


def test_an_upward_import_breaks_the_layers_contract_naming_it(tmp_path):
    for package in PACKAGES:
        shutil.copytree(ROOT / package, tmp_path / package,
                        ignore=shutil.ignore_patterns("__pycache__", "*.nbi", "*.nbc"))  # fmt: skip
    shutil.copy(ROOT / "pyproject.toml", tmp_path)
    atomic = tmp_path / "engine" / "core" / "atomic.py"
    atomic.write_text(atomic.read_text() + "\n\ndef _up():\n    import engine.runtime.job\n")
    done = _lint_imports(tmp_path)
    assert done.returncode != 0
    assert "Layers BROKEN" in done.stdout
    assert "engine.core is not allowed to import engine.runtime" in done.stdout
    assert "engine.core.atomic -> engine.runtime.job" in done.stdout

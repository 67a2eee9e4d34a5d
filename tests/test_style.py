"""Style is checked by a tool (docs/architecture.md §5.4): ruff lint and format, as configured in
pyproject.toml, over the code and the tests."""

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PATHS = ["engine", "console_app", "tests", "tools"]


def _ruff(*args: str) -> subprocess.CompletedProcess:
    exe = shutil.which("ruff")
    command = [exe] if exe else [sys.executable, "-m", "ruff"]
    return subprocess.run([*command, *args, *PATHS], cwd=ROOT, capture_output=True, text=True)


def test_ruff_lint_is_clean():
    result = _ruff("check", "--output-format", "concise")
    assert result.returncode == 0, result.stdout + result.stderr


def test_ruff_format_is_clean():
    result = _ruff("format", "--check")
    assert result.returncode == 0, result.stdout + result.stderr

"""Modules stay small enough to read in one sitting (docs/architecture.md §5.4)."""

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MAX_LINES = 600


def test_no_module_exceeds_the_size_cap():
    too_long = {}
    for package in ("engine", "console_app"):
        for path in (ROOT / package).rglob("*.py"):
            n = len(path.read_text(encoding="utf-8").splitlines())
            if n > MAX_LINES:
                too_long[str(path.relative_to(ROOT))] = n
    assert not too_long, f"split these modules (cap {MAX_LINES} lines): {too_long}"

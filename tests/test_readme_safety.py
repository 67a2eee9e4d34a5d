"""The README's "Files are safe" section names, for each guarantee, tests that exist."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_every_guarantee_names_existing_tests():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split("## Files are safe\n", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("| ") and "---" not in line]
    assert len(rows) > 5 and rows[0].startswith("| Guarantee |")
    tests = {p.name: p for p in (ROOT / "tests").rglob("test_*.py")}
    for row in rows[1:]:
        named = re.findall(r"`([\w/]*test_\w+\.py)`", row.rsplit("|", 2)[-2])
        assert named, f"a guarantee without a test: {row[:80]}"
        for name in named:
            assert (ROOT / name).is_file() if "/" in name else name in tests, name

"""The design is in the repository: every ``docs/<page>.md §N.N`` the code cites is a heading there.

The code cites the project's own pages (docs/architecture.md §5.4) by numbered section. This test
finds every such citation in engine/, console_app/, tests/ and tools/ and checks that the page
exists and has a heading numbered as cited; it also checks that no citation of the reference
files the project was built from (which users do not get) is left, and that the README links
every page.
"""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
SCANNED = ("engine", "console_app", "tests", "tools")

# docs/page.md, then any number of §N.N joined by commas, "and", "to", "-" or "/", possibly
# across a line break inside a comment or docstring.
_SEP = r"(?:[\s#,/]|\band\b|\bto\b|-)*"
CITATION = re.compile(rf"docs/([a-z0-9-]+\.md)((?:{_SEP}§\s?\d+(?:\.\d+)*)*)")
SECTION = re.compile(r"§\s?(\d+(?:\.\d+)*)")
HEADING = re.compile(r"^#{1,6}\s+(\d+(?:\.\d+)*)\.?\s", re.M)
# The reference files (docs/nnc-behaviour.md, a page of ours, shares one of their names).
OLD_NAMES = re.compile(r"(?<!docs/)\b(nnc-(?:layers|behaviour|formats)\.md|(?:STYLE|DESIGN)\.md)\b")


def headings(page: Path) -> set[str]:
    """The section numbers of a page: ``## 1. Units`` gives "1", ``### 1.2 How`` gives "1.2"."""
    return set(HEADING.findall(page.read_text(encoding="utf-8")))


def broken_citations(text: str, where: str, docs: Path = DOCS) -> list[str]:
    """One line per citation in ``text`` that names a missing page or section."""
    problems = []
    for match in CITATION.finditer(text):
        line = text.count("\n", 0, match.start()) + 1
        page = docs / match.group(1)
        if not page.is_file():
            problems.append(f"{where}:{line}: docs/{match.group(1)} does not exist")
            continue
        known = headings(page)
        for number in SECTION.findall(match.group(2)):
            if number not in known:
                problems.append(f"{where}:{line}: docs/{match.group(1)} has no section {number}")
    return problems


def _sources():
    for folder in SCANNED:
        for path in sorted((ROOT / folder).rglob("*.py")):
            if path != Path(__file__).resolve():  # this file's examples are broken on purpose
                yield path, path.read_text(encoding="utf-8")


def test_every_citation_names_a_heading_of_its_page():
    problems, count = [], 0
    for path, text in _sources():
        count += len(CITATION.findall(text))
        problems += broken_citations(text, str(path.relative_to(ROOT)))
    assert not problems, "\n".join(problems)
    assert count >= 100  # the engine cites the pages in about 130 places


def test_no_citation_of_the_reference_files_users_do_not_have():
    left = [f"{path.relative_to(ROOT)}:{text.count(chr(10), 0, m.start()) + 1}: {m.group(1)}"
            for path, text in _sources() for m in OLD_NAMES.finditer(text)]  # fmt: skip
    assert not left, "cite docs/<page>.md §N instead:\n" + "\n".join(left)


def test_a_broken_citation_is_reported_with_its_place(tmp_path):
    (tmp_path / "page.md").write_text("# Page\n\n## 1. One\n\n### 1.2 Two\n", encoding="utf-8")
    text = (
        '"""Cites docs/page.md §1.2 and §1, then docs/page.md §1.3,\n'
        "docs/missing.md §1 and, across a line, docs/page.md\n"
        '§2 and a range docs/page.md §1-§1.4."""\n'
    )
    assert broken_citations(text, "x.py", docs=tmp_path) == [
        "x.py:1: docs/page.md has no section 1.3",
        "x.py:2: docs/missing.md does not exist",
        "x.py:2: docs/page.md has no section 2",
        "x.py:3: docs/page.md has no section 1.4",
    ]


def test_every_page_has_numbered_sections_and_the_readme_links_it():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    pages = sorted(DOCS.glob("*.md"))
    assert {f"docs/{p.name}" for p in pages} >= {
        "docs/architecture.md", "docs/nnc-behaviour.md", "docs/formats.md", "docs/layers.md",
        "docs/adding-a-layer.md", "docs/job-folder.md",
    }  # fmt: skip
    for page in pages:
        assert headings(page), f"{page.name} has no numbered heading"
        assert f"(docs/{page.name})" in readme, f"README.md does not link docs/{page.name}"


def test_the_pages_links_to_each_other_name_headings_too():
    link = re.compile(r"\[([a-z0-9-]+\.md) §(\d+(?:\.\d+)*)\]\(([a-z0-9-]+\.md)\)")
    problems = []
    for page in sorted(DOCS.glob("*.md")):
        text = page.read_text(encoding="utf-8")
        for match in link.finditer(text):
            shown, number, target = match.groups()
            line = text.count("\n", 0, match.start()) + 1
            if shown != target or not (DOCS / target).is_file():
                problems.append(f"docs/{page.name}:{line}: link to {target} shows {shown}")
            elif number not in headings(DOCS / target):
                problems.append(f"docs/{page.name}:{line}: {target} has no section {number}")
    assert not problems, "\n".join(problems)

"""Slide helpers keep content inside the slide: fitted fonts, split tables."""

from __future__ import annotations

from pptx.util import Emu

from engine.report.slides import HEIGHT, MAX_TABLE_COLUMNS, WIDTH, Deck, fit_font_size


def test_font_shrinks_with_more_text_and_stops_at_the_smallest():
    short = fit_font_size(["Solver : Adam"], 12, 5)
    long = fit_font_size(["word " * 400], 12, 5)
    assert short == 20 and 9 <= long < short
    assert fit_font_size(["word " * 100_000], 12, 5) == 9


def test_wide_and_long_tables_split_over_slides_inside_the_page():
    deck = Deck()
    header = ["Job", *[f"Column {k}" for k in range(1, 15)]]
    rows = [[f"job {r}", *[f"{r * k:,}" for k in range(1, 15)]] for r in range(30)]
    deck.table_slides("Jobs", header, rows)
    tables = []
    for slide in deck.slides:
        (table,) = [s for s in slide.shapes if s.has_table]
        assert Emu(table.left + table.width).inches <= WIDTH
        assert Emu(table.top + table.height).inches <= HEIGHT
        tables.append([[c.text for c in row.cells] for row in table.table.rows])
    assert len(tables) > 2
    assert all(len(t[0]) <= MAX_TABLE_COLUMNS and t[0][0] == "Job" for t in tables)
    # every cell appears exactly once (the first column repeats on each part)
    seen = {(row[0], head, cell) for t in tables for row in t[1:] for head, cell in
            zip(t[0][1:], row[1:], strict=True)}  # fmt: skip
    assert len(seen) == 30 * 14
    titles = [s.shapes.title.text for s in deck.slides]
    assert titles[0] == "Jobs" and set(titles[1:]) == {"Jobs (continued)"}

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


def test_image_grid_keeps_each_images_aspect_and_enlarges_by_whole_pixels():
    import io

    import numpy as np
    from PIL import Image

    from engine.report.figures import tile_png, to_display

    deck = Deck()
    slide = deck.slide("Examples")
    rng = np.random.default_rng(0)
    wide, tall = rng.random((3, 32, 64)), rng.random((40, 10))
    deck.image_grid(slide, [tile_png(to_display(wide)), tile_png(to_display(tall))],
                    ["wide", "tall"], (0.5, 1.3, 12.3, 5.8))  # fmt: skip
    pictures = [s for s in slide.shapes if s.shape_type == 13]  # MSO_SHAPE_TYPE.PICTURE
    ratios = [Emu(p.width).inches / Emu(p.height).inches for p in pictures]
    assert np.allclose(ratios, [2.0, 0.25], rtol=1e-3)
    tall_png = np.asarray(Image.open(io.BytesIO(pictures[1].image.blob)))
    assert tall_png.shape == (360, 90)  # 9x, nearest: every source pixel a 9x9 block
    assert (tall_png[::9, ::9] == tall_png[8::9, 8::9]).all()


def test_an_empty_cell_keeps_the_tables_font_size(tmp_path):
    """An empty cell (a layer without a mixed-precision width) is written at the table's size:
    at the template's 18 pt its row grew taller than the others in LibreOffice."""
    from pptx import Presentation

    deck = Deck()
    deck.table_slides("Layers", ["Layer", "Bits", "Mixed bits"], [["Affine", "4", "8"],
                                                                  ["ReLU", "4", ""]])  # fmt: skip
    deck.save(str(tmp_path / "deck.pptx"))
    (slide,) = Presentation(str(tmp_path / "deck.pptx")).slides
    (table,) = [s.table for s in slide.shapes if s.has_table]
    full = table.cell(1, 2).text_frame.paragraphs[0].runs[0].font.size
    empty = table.cell(2, 2).text_frame.paragraphs[0]._p
    assert full is not None and empty.endParaRPr is not None
    assert int(empty.endParaRPr.get("sz")) == full.pt * 100

"""A 16:9 deck with the few slide kinds the report uses (python-pptx), all sized to fit.

Every text box is sized before it is written: the font shrinks until the wrapped lines fit
(estimated from the text length, then PowerPoint's own "shrink on overflow" is set as well),
tables split their rows and columns over several slides, pictures keep their aspect ratio inside
the space left. Tables are native PowerPoint tables and curves native charts, so users restyle
them in PowerPoint.
"""

from __future__ import annotations

import io
import math
import unicodedata
from collections.abc import Sequence

from PIL import Image as PILImage
from pptx import Presentation
from pptx.chart.data import XyChartData
from pptx.enum.chart import XL_CHART_TYPE, XL_LEGEND_POSITION
from pptx.enum.text import MSO_AUTO_SIZE, PP_ALIGN
from pptx.oxml.ns import qn
from pptx.util import Emu, Inches, Pt

from engine.report.i18n import deck_font, translate

__all__ = ["Deck", "Box", "fit_font_size"]

WIDTH, HEIGHT = 13.333, 7.5  # inches, 16:9
MARGIN = 0.5
TITLE_TOP, TITLE_H = 0.3, 0.9
BODY_TOP = TITLE_TOP + TITLE_H + 0.15
BODY_H = HEIGHT - BODY_TOP - 0.4
TITLE_LAYOUT, TITLE_ONLY_LAYOUT = 0, 5  # the default template's "Title Slide" and "Title Only"
TABLE_ROW_H = 0.36  # inches per table row at the table font size
TABLE_FONT = 14
MAX_TABLE_COLUMNS = 9

Box = tuple[float, float, float, float]  # left, top, width, height in inches


def fit_font_size(
    lines: Sequence[str], width: float, height: float, largest: int = 20, smallest: int = 9
) -> int:
    """The largest point size at which ``lines`` wrapped into ``width`` fits ``height`` (inches).

    An estimate: an average glyph is about half the point size wide, a line 1.2 times it high.
    """
    for size in range(largest, smallest - 1, -1):
        per_line = max(1, int(width * 72 / (0.5 * size)))
        rows = sum(max(1, math.ceil(_width(line) / per_line)) for line in lines)
        if rows * 1.25 * size / 72 <= height:
            return size
    return smallest


def _width(text: str) -> int:
    """Length in average glyphs: a wide (CJK) character counts two."""
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


class Deck:
    """The presentation being written; slides are added in order."""

    def __init__(self) -> None:
        self.prs = Presentation()
        self.prs.slide_width = Inches(WIDTH)
        self.prs.slide_height = Inches(HEIGHT)

    def save(self, target: io.BufferedIOBase | str) -> None:
        font = deck_font()
        if font is not None:
            _name_font(self.prs, font)
        self.prs.save(target)

    @property
    def slides(self):  # noqa: ANN201 - python-pptx's Slides
        return self.prs.slides

    # -- slides ----------------------------------------------------------------------------
    def title_slide(self, title: str, subtitle: str = "") -> None:
        """The project name large, the description below it (the template's boxes are 4:3)."""
        slide = self.prs.slides.add_slide(self.prs.slide_layouts[TITLE_LAYOUT])
        shape = slide.shapes.title
        _place(shape, (1.0, 1.6, WIDTH - 2.0, 1.6))
        shape.text = title
        _shrink(shape.text_frame, [title], WIDTH - 2.2, 1.5, 44, 20)
        body = slide.placeholders[1]
        if subtitle:
            _place(body, (1.0, 3.4, WIDTH - 2.0, 3.4))
            body.text = subtitle
            _shrink(body.text_frame, subtitle.splitlines(), WIDTH - 2.4, 3.2, 20, 10)
        else:
            body._element.getparent().remove(body._element)

    def slide(self, title: str):  # noqa: ANN201 - a python-pptx Slide
        """A "Title Only" slide with ``title`` (shrunk to one or two lines)."""
        slide = self.prs.slides.add_slide(self.prs.slide_layouts[TITLE_ONLY_LAYOUT])
        shape = slide.shapes.title
        _place(shape, (MARGIN, TITLE_TOP, WIDTH - 2 * MARGIN, TITLE_H))
        shape.text = title
        _shrink(shape.text_frame, [title], WIDTH - 2 * MARGIN, TITLE_H, 30, 16)
        return slide

    def text_slide(self, title: str, lines: Sequence[str]) -> None:
        self.text(self.slide(title), lines, (MARGIN, BODY_TOP, WIDTH - 2 * MARGIN, BODY_H))

    def text(self, slide, lines: Sequence[str], box: Box, largest: int = 20) -> None:  # noqa: ANN001
        """Paragraphs of ``lines`` in ``box``, wrapped, at the largest size that fits."""
        shape = slide.shapes.add_textbox(*(Inches(v) for v in box))
        frame = shape.text_frame
        frame.word_wrap = True
        for k, line in enumerate(lines):
            paragraph = frame.paragraphs[0] if k == 0 else frame.add_paragraph()
            paragraph.text = line
        _shrink(frame, list(lines), box[2] - 0.2, box[3] - 0.1, largest, 9)

    def picture(self, slide, png: bytes, box: Box, size: tuple[float, float]) -> None:  # noqa: ANN001
        """``png`` (``size`` = its width, height in inches) scaled into ``box``, centred on top."""
        scale = min(box[2] / size[0], box[3] / size[1])
        width, height = size[0] * scale, size[1] * scale
        left = box[0] + (box[2] - width) / 2
        slide.shapes.add_picture(
            io.BytesIO(png), Inches(left), Inches(box[1]), Inches(width), Inches(height)
        )

    def image_grid(
        self, slide, tiles: Sequence[bytes], captions: Sequence[str], box: Box, columns: int = 5
    ) -> None:  # noqa: ANN001
        """PNG ``tiles`` in square cells, ``columns`` per row inside ``box``, each kept to its
        aspect ratio and centred, a native caption under each."""
        rows = max(1, math.ceil(len(tiles) / columns))
        caption_h = 0.32 if any(captions) else 0.0
        cell_w = box[2] / columns
        side = min(cell_w * 0.9, box[3] / rows - caption_h - 0.1)
        font = fit_font_size(
            [max(captions, key=_width, default="")], cell_w - 0.1, caption_h, 12, 7
        )
        for k, (tile, caption) in enumerate(zip(tiles, captions, strict=True)):
            left = box[0] + (k % columns) * cell_w + (cell_w - side) / 2
            top = box[1] + (k // columns) * (side + caption_h + 0.1)
            width, height = PILImage.open(io.BytesIO(tile)).size
            w, h = side * min(1.0, width / height), side * min(1.0, height / width)
            place = (left + (side - w) / 2, top + (side - h) / 2, w, h)
            slide.shapes.add_picture(io.BytesIO(tile), *(Inches(v) for v in place))
            if caption:
                cell = (box[0] + (k % columns) * cell_w, top + side, cell_w, caption_h)
                frame = slide.shapes.add_textbox(*(Inches(v) for v in cell)).text_frame
                frame.word_wrap = True
                frame.paragraphs[0].text = caption
                frame.paragraphs[0].alignment = PP_ALIGN.CENTER
                frame.paragraphs[0].runs[0].font.size = Pt(font)

    def table(
        self,
        slide,
        header: Sequence[str],
        rows: Sequence[Sequence[str]],
        box: Box,  # noqa: ANN001
        font: int = TABLE_FONT,
    ) -> None:
        """A native table of ``rows`` under ``header``; numbers (``1,234``) right-aligned.

        Columns get widths in proportion to their longest cell, and the font shrinks (down to
        9 pt) until the longest cell of each column fits one line.
        """
        longest = [
            max([title, *(row[c] for row in rows)], key=_width) for c, title in enumerate(header)
        ]
        weights = [_width(text) + 3 for text in longest]
        widths = [box[2] * w / sum(weights) for w in weights]
        for text, width in zip(longest, widths, strict=True):
            # bold headers and digits run wider than the average glyph, and LibreOffice draws
            # Calibri as the wider DejaVu Sans: count 0.75 em per character
            font = min(font, fit_font_size([text + " " * (len(text) // 2)], width - 0.2,
                                           1.25 * font / 72, font, 9))  # fmt: skip
        height = min(box[3], TABLE_ROW_H * (len(rows) + 1))
        shape = slide.shapes.add_table(
            len(rows) + 1, len(header), *(Inches(v) for v in box[:3]), Inches(height)
        )
        table = shape.table
        for column, width in zip(table.columns, widths, strict=True):
            column.width = Inches(width)
        for c, text in enumerate(header):
            _cell(table.cell(0, c), text, font, bold=True)
        for r, row in enumerate(rows, start=1):
            for c, text in enumerate(row):
                _cell(table.cell(r, c), text, font, right=_numeric(text))

    def table_slides(
        self,
        title: str,
        header: Sequence[str],
        rows: Sequence[Sequence[str]],
        intro: Sequence[str] = (),
    ) -> None:
        """``rows`` on as many slides as they need; wide tables repeat the first column."""
        top = BODY_TOP + (0.45 * len(intro) if intro else 0)
        per_slide = max(1, int((HEIGHT - top - 0.4) / TABLE_ROW_H) - 1)
        column_groups = _column_groups(len(header))
        pages = [
            (g, rows[i : i + per_slide])
            for g in column_groups
            for i in range(0, max(1, len(rows)), per_slide)
        ]
        for k, (group, chunk) in enumerate(pages):
            name = title if k == 0 else title + translate("Report", " (continued)")
            slide = self.slide(name)
            if intro:
                self.text(slide, intro, (MARGIN, BODY_TOP, WIDTH - 2 * MARGIN, top - BODY_TOP))
            cells = [[row[c] for c in group] for row in chunk]
            self.table(
                slide,
                [header[c] for c in group],
                cells,
                (MARGIN, top, WIDTH - 2 * MARGIN, HEIGHT - top - 0.4),
            )

    def xy_chart(
        self,
        slide,
        series: Sequence[tuple[str, Sequence[tuple[float, float]]]],  # noqa: ANN001
        box: Box,
        x_title: str,
        y_title: str,
    ) -> None:
        """A native scatter-with-lines chart; ``series``: (name, points)."""
        data = XyChartData()
        for name, points in series:
            s = data.add_series(name)
            for x, y in points:
                s.add_data_point(x, y)
        frame = slide.shapes.add_chart(
            XL_CHART_TYPE.XY_SCATTER_LINES, *(Inches(v) for v in box), data
        )
        chart = frame.chart
        chart.has_legend = True
        chart.legend.position = XL_LEGEND_POSITION.BOTTOM
        chart.legend.include_in_layout = False
        chart.legend.font.size = Pt(12)
        for axis, text in ((chart.category_axis, x_title), (chart.value_axis, y_title)):
            axis.has_title = True
            axis.axis_title.text_frame.text = text
            axis.axis_title.text_frame.paragraphs[0].runs[0].font.size = Pt(12)
            axis.tick_labels.font.size = Pt(11)
            axis.has_major_gridlines = axis is chart.value_axis
        xs = [x for _, points in series for x, _ in points]
        if xs and all(float(x).is_integer() for x in xs):  # epochs: whole-number ticks
            low, high = min(xs), max(xs)
            chart.category_axis.minimum_scale = low
            chart.category_axis.maximum_scale = max(high, low + 1)
            chart.category_axis.major_unit = max(1, math.ceil((high - low) / 10))


def _place(shape, box: Box) -> None:  # noqa: ANN001
    shape.left, shape.top, shape.width, shape.height = (Inches(v) for v in box)


def _name_font(prs, font: str) -> None:  # noqa: ANN001 - a python-pptx Presentation
    """Every text run, table cell and chart of the deck names ``font`` (its Latin and East Asian
    typefaces), so Japanese text gets Japanese glyphs in PowerPoint and LibreOffice alike."""

    def name(run_font) -> None:  # noqa: ANN001
        run_font.name = font
        rpr = run_font._rPr  # noqa: SLF001 - python-pptx has no setter for <a:ea>
        ea = rpr.find(qn("a:ea"))
        if ea is None:
            ea = rpr.makeelement(qn("a:ea"), {})
            latin = rpr.find(qn("a:latin"))
            latin.addnext(ea) if latin is not None else rpr.append(ea)
        ea.set("typeface", font)

    def frames(shape):  # noqa: ANN001, ANN202
        if shape.has_text_frame:
            yield shape.text_frame
        if getattr(shape, "has_table", False) and shape.has_table:
            yield from (cell.text_frame for row in shape.table.rows for cell in row.cells)
        if getattr(shape, "has_chart", False) and shape.has_chart:
            chart = shape.chart
            name(chart.font)
            for axis in (chart.category_axis, chart.value_axis):
                if axis.has_title:
                    yield axis.axis_title.text_frame

    for slide in prs.slides:
        for shape in slide.shapes:
            for frame in frames(shape):
                for paragraph in frame.paragraphs:
                    name(paragraph.font)
                    for run in paragraph.runs:
                        name(run.font)


def _column_groups(count: int) -> list[list[int]]:
    if count <= MAX_TABLE_COLUMNS:
        return [list(range(count))]
    step = MAX_TABLE_COLUMNS - 1
    return [[0, *range(s, min(count, s + step))] for s in range(1, count, step)]


def _numeric(text: str) -> bool:
    return text.replace(",", "").replace(".", "", 1).replace("-", "", 1).replace("e", "").isdigit()


def _cell(cell, text: str, size: int, bold: bool = False, right: bool = False) -> None:  # noqa: ANN001
    cell.text = text
    cell.margin_top = cell.margin_bottom = Emu(Inches(0.03))
    paragraph = cell.text_frame.paragraphs[0]
    paragraph.alignment = PP_ALIGN.RIGHT if right else PP_ALIGN.LEFT
    # an empty cell's paragraph keeps the table's size too (else its row grows to 18 pt)
    paragraph._p.get_or_add_endParaRPr().set("sz", str(size * 100))
    for run in paragraph.runs:
        run.font.size = Pt(size)
        run.font.bold = bold


def _shrink(
    frame,
    lines: Sequence[str],
    width: float,
    height: float,
    largest: int,  # noqa: ANN001
    smallest: int,
) -> None:
    """Set every run to the fitting size; PowerPoint may shrink further on overflow."""
    size = fit_font_size(lines, width, height, largest, smallest)
    frame.word_wrap = True
    frame.auto_size = MSO_AUTO_SIZE.TEXT_TO_FIT_SHAPE
    for paragraph in frame.paragraphs:
        for run in paragraph.runs:
            run.font.size = Pt(size)

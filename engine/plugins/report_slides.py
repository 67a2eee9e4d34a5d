"""The plugin results of a job in its PowerPoint report (listed in
:data:`engine.report.job_report.SLIDE_PROVIDERS`): one slide per result, titled
``Plugin : <name>``, with its first picture, then its first CSV as a table (20 rows at most,
image cells by file name). A result whose files cannot be read gets a slide saying so."""

from __future__ import annotations

import csv
from pathlib import Path
from typing import Any

from PIL import Image

from engine.plugins.runner import list_results
from engine.report.slides import BODY_H, BODY_TOP, MARGIN, WIDTH, Deck

__all__ = ["add_slides"]

MAX_ROWS = 20
_DPI = 100


def add_slides(deck: Deck, context: Any) -> None:
    for result in list_results(context.root):
        title = f"Plugin : {result.plugin} ({result.folder.name})"
        try:
            _result_slides(deck, title, result.folder, result.files)
        except (OSError, ValueError) as exc:
            deck.text_slide(title, [f"This result cannot be reported: {exc}"])


def _result_slides(deck: Deck, title: str, folder: Path, files: list[str]) -> None:
    pictures = [f for f in files if f.lower().endswith((".png", ".jpg", ".jpeg"))]
    tables = [f for f in files if f.lower().endswith(".csv")]
    if pictures:
        path = folder / pictures[0]
        with Image.open(path) as image:
            width, height = image.size
        scale = _DPI if width >= 300 else width / 4  # a small map: shown four inches wide
        slide = deck.slide(title)
        box = (MARGIN, BODY_TOP, WIDTH - 2 * MARGIN, BODY_H)
        deck.picture(slide, path.read_bytes(), box, (width / scale, height / scale))
    if tables:
        with open(folder / tables[0], newline="", encoding="utf-8") as f:
            rows = list(csv.reader(f))
        if not rows:
            return
        header, body = rows[0], rows[1:]
        cells = [[Path(c).name if c.lower().endswith((".png", ".jpg")) else c
                  for c in (row + [""] * len(header))[: len(header)]]
                 for row in body[:MAX_ROWS]]  # fmt: skip
        intro = [f"{tables[0]}: {len(body)} rows" + (f", the first {MAX_ROWS}" if
                 len(body) > MAX_ROWS else "")]  # fmt: skip
        deck.table_slides(title if not pictures else f"{title} : {tables[0]}", header, cells,
                          intro)  # fmt: skip

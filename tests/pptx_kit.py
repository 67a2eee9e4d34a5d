"""Reading decks back for the report tests (``import pptx_kit as kit``): run the CLI, find a
slide by title, its text lines."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def cli(*args: str) -> subprocess.CompletedProcess:
    """``neurocanvas ARGS`` in a child process, as a user runs it."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "engine.cli", *args], capture_output=True,
                          text=True, cwd=ROOT, env=env, timeout=300)  # fmt: skip


def titles(prs) -> list[str]:  # noqa: ANN001 - a python-pptx Presentation
    return [s.shapes.title.text for s in prs.slides]


def slide(prs, title: str):  # noqa: ANN001, ANN201
    return next(s for s in prs.slides if s.shapes.title.text == title)


def texts(sld) -> list[str]:  # noqa: ANN001
    """The paragraphs of every text box but the title, in shape order."""
    lines = []
    for shape in sld.shapes:
        if shape.has_text_frame and shape != sld.shapes.title:
            lines += [p.text for p in shape.text_frame.paragraphs]
    return lines

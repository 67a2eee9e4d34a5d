"""Render slides of a real report to PNGs for the README (needs LibreOffice and poppler).

    python tools/render_report.py [--epochs 3] [-o docs]

Trains ``projects/lenet_digits.ncproj`` (seed 0) in a temporary folder, evaluates it, writes
its report with ``neurocanvas report``, converts the deck to PDF with ``soffice --headless`` and
saves three pages with ``pdftoppm``: ``report_network.png`` (Network Architecture),
``report_examples.png`` (examples of x) and ``report_confusion.png`` (confusion matrix).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PAGES = {
    "report_network.png": "Network Architecture : Main",
    "report_examples.png": 'Dataset : Examples of variable x in "Training"',
    "report_confusion.png": "Experimental Result : Confusion Matrix of y",
}


def _cli(*args: str) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    subprocess.run([sys.executable, "-m", "engine.cli", *args], check=True, env=env, cwd=ROOT)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="README pictures of the PowerPoint report")
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("-o", "--output", type=Path, default=ROOT / "docs")
    args = parser.parse_args(argv)
    soffice, pdftoppm = shutil.which("soffice"), shutil.which("pdftoppm")
    if soffice is None or pdftoppm is None:
        raise SystemExit("needs soffice (LibreOffice Impress) and pdftoppm (poppler-utils)")
    sys.path.insert(0, str(ROOT))
    from pptx import Presentation

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        project = folder / "lenet_digits.ncproj"
        shutil.copyfile(ROOT / "projects" / "lenet_digits.ncproj", project)
        _cli("train", str(project), "-o", str(folder / "job"), "--epochs", str(args.epochs),
             "--seed", "0")  # fmt: skip
        _cli("evaluate", str(folder / "job"))
        deck = folder / "report.pptx"
        _cli("report", str(folder / "job"), "-o", str(deck))
        titles = [s.shapes.title.text for s in Presentation(str(deck)).slides]
        subprocess.run([soffice, "--headless", f"-env:UserInstallation=file://{folder}/lo",
                        "--convert-to", "pdf", "--outdir", str(folder), str(deck)],
                       check=True, capture_output=True)  # fmt: skip
        args.output.mkdir(parents=True, exist_ok=True)
        for name, title in PAGES.items():
            page = str(titles.index(title) + 1)
            stem = folder / name.removesuffix(".png")
            subprocess.run([pdftoppm, "-png", "-r", "72", "-f", page, "-l", page,
                            "-singlefile", str(folder / "report.pdf"), str(stem)],
                           check=True)  # fmt: skip
            shutil.copyfile(stem.with_suffix(".png"), args.output / name)
            print(f"wrote {args.output / name} (slide {page}: {title})")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Render the main window (EDIT tab) with a project to a PNG, offscreen.

    python tools/render_screenshot.py [PROJECT] [-o docs/screenshot.png] [--select LAYER]

Without PROJECT the app's default project is used (``projects/lenet*.ncproj``). The README's
tour shows the result. Settings go to a temporary folder, so the user's are not touched.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def render(project: str | None, output: Path, select: str | None, size=(1500, 900)) -> Path:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QApplication

    sys.path.insert(0, str(ROOT))
    from console_app.main_window import MainWindow
    from console_app.settings import AppSettings

    app = QApplication.instance() or QApplication(sys.argv[:1])
    with tempfile.TemporaryDirectory() as tmp:
        settings = AppSettings(QSettings(str(Path(tmp) / "s.ini"), QSettings.Format.IniFormat))
        window = MainWindow(project, settings=settings)
        window.resize(*size)
        window.show()
        app.processEvents()
        scene = window.edit_tab.current_scene()
        name = select or next(
            (n for n in ("Convolution", "Affine") if n in scene.layer_items), None
        )
        if name:
            scene.select_layers([name])
        window.zoom_fit()
        app.processEvents()
        output.parent.mkdir(parents=True, exist_ok=True)
        if not window.grab().save(str(output)):
            raise SystemExit(f"cannot write {output}")
        window.document.stack.clear()
        window.close()
    return output


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("project", nargs="?", help="project file (default: the default project)")
    parser.add_argument("-o", "--output", type=Path, default=ROOT / "docs" / "screenshot.png")
    parser.add_argument("--select", help="layer to select, so the property pane shows it")
    args = parser.parse_args(argv)
    print(render(args.project, args.output, args.select))
    return 0


if __name__ == "__main__":
    sys.exit(main())

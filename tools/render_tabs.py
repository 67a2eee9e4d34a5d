"""Render the TRAINING and EVALUATION tabs after two short runs to PNGs, offscreen.

    python tools/render_tabs.py [PROJECT] [--epochs 8] [-o docs] [--lang ja]

Copies PROJECT (default ``projects/lenet_digits.ncproj``) to a temporary folder, opens it in
the app and trains it twice with clicks on TRAINING's Run button, as a user does (Max Epoch
``--epochs``; the second run with Batch Size 32). ``training.png`` is taken during the second
run, live; then the first job is evaluated with a click on EVALUATION's Evaluate button and
``evaluation.png`` (output result with thumbnails) and ``evaluation_matrix.png`` (confusion
matrix) are written. Settings go to a temporary folder.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _wait(app, signal, timeout_s: float = 300) -> list:  # noqa: ANN001
    from PySide6.QtCore import QEventLoop, QTimer

    loop, got = QEventLoop(), []
    signal.connect(lambda *args: (got.extend(args), loop.quit()))
    QTimer.singleShot(int(timeout_s * 1000), loop.quit)
    loop.exec()
    if not got:
        raise SystemExit("timed out waiting for the run")
    return got


def _grab(app, window, path: Path) -> None:  # noqa: ANN001
    for _ in range(5):
        app.processEvents()
    if not window.grab().save(str(path)):
        raise SystemExit(f"cannot write {path}")
    print(path)


def render(project: Path, out: Path, epochs: int, size=(1500, 950), lang: str = "en") -> None:  # noqa: ANN001, E501
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCore import QSettings, Qt
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QApplication

    sys.path.insert(0, str(ROOT))
    from console_app.main_window import MainWindow
    from console_app.settings import AppSettings

    app = QApplication.instance() or QApplication(sys.argv[:1])
    if lang != "en":  # the interface in that language, as View > Language sets it
        from console_app import language

        language.install(app, lang)
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / project.name
        shutil.copyfile(project, copy)
        settings = AppSettings(QSettings(str(Path(tmp) / "s.ini"), QSettings.Format.IniFormat))
        window = MainWindow(str(copy), settings=settings)
        window.resize(*size)
        window.show()
        window.zoom_fit()
        if lang != "en":
            _grab(app, window, out / "edit.png")
        tabs = window.project_tabs
        window.tabs.setCurrentWidget(tabs.training)
        tabs.config.set_value("MaxEpoch", str(epochs))
        jobs = []
        for batch in (None, "32"):
            if batch:
                tabs.config.set_value("BatchSize", batch)
            QTest.mouseClick(tabs.training.run_button, Qt.MouseButton.LeftButton)
            jobs.append(tabs.training.current_job)
            if batch:  # the live run: curve, progress and timing as they come in
                while len(tabs.training.live_curve) < max(2, epochs // 2):
                    QTest.qWait(20)
                _grab(app, window, out / "training.png")
            status = _wait(app, tabs.training.run_ended)
            if status != ["finished"]:
                raise SystemExit(f"training {status}: {tabs.training.last_message}")
        window.tabs.setCurrentWidget(tabs.evaluation)
        tabs.evaluation.job_combo.setCurrentIndex(tabs.evaluation.job_combo.findText(jobs[0].name))
        QTest.mouseClick(tabs.evaluation.evaluate_button, Qt.MouseButton.LeftButton)
        if _wait(app, tabs.evaluation.evaluated) != ["finished"]:
            raise SystemExit(f"evaluation failed: {tabs.evaluation.last_message}")
        _grab(app, window, out / "evaluation.png")
        tabs.evaluation.views.setCurrentIndex(1)
        _grab(app, window, out / "evaluation_matrix.png")
        window.document.stack.clear()
        window.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("project", nargs="?", type=Path,
                        default=ROOT / "projects" / "lenet_digits.ncproj")  # fmt: skip
    parser.add_argument("--epochs", type=int, default=8)
    parser.add_argument("-o", "--output", type=Path, default=ROOT / "docs")
    parser.add_argument("--lang", choices=("en", "ja"), default="en",
                        help="the interface's language (ja also writes edit.png)")  # fmt: skip
    args = parser.parse_args(argv)
    render(args.project, args.output, args.epochs, lang=args.lang)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Benchmark: the editor on NNC's largest sample, densenet-161 (6 networks, 102 + 36 layers).

    python tests/benchmarks/bench_editor.py [PROJECT] [--rounds 5] [--edits 20]

Times, offscreen:
- open: ``MainWindow.open_path`` (read the file, build every canvas, infer shapes, statistics
  and problems, paint) until the event queue is empty; target < 3 s;
- update: one property edit (Convolution OutMaps in the DenseNet network) until the canvas,
  the statistics, the problems list and the property pane show the new values and the window
  has repainted; target < 100 ms;
- pan: at 100 % zoom, scroll the DenseNet canvas by 200 px on both scroll bars (bouncing at
  the ends) and repaint the viewport, ``--pans`` times; median and worst frame; target < 16 ms
  per frame (60 fps, "panning stays smooth").
The engine alone (load + inference of every network) is timed in the same run as a reference.
Timings are printed, never asserted.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DEFAULT = (
    ROOT.parent / "shared/nnc-samples/image_recognition/ILSVRC2012/densenet/densenet-161.sdcproj"
)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="editor timings on a large project")
    parser.add_argument("project", nargs="?", type=Path, default=DEFAULT)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--edits", type=int, default=20)
    parser.add_argument("--pans", type=int, default=50)
    args = parser.parse_args(argv)
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    sys.path.insert(0, str(ROOT))
    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QApplication

    from console_app.main_window import MainWindow
    from console_app.settings import AppSettings
    from engine.formats import load_project
    from engine.graph import commands as C
    from engine.graph.project_inference import ProjectInference

    app = QApplication.instance() or QApplication(sys.argv[:1])
    engine_times, open_times, edit_times = [], [], []
    with tempfile.TemporaryDirectory() as tmp:
        settings = AppSettings(QSettings(str(Path(tmp) / "s.ini"), QSettings.Format.IniFormat))
        window = MainWindow(settings=settings)
        window.resize(1500, 900)
        window.show()
        app.processEvents()
        for _ in range(args.rounds):
            start = time.perf_counter()
            project = load_project(args.project)
            inference = ProjectInference(project, follow=False)
            for network in project.networks:
                inference.network(network.name).results()
            engine_times.append(time.perf_counter() - start)

            start = time.perf_counter()
            window.open_path(args.project, ask=False)
            app.processEvents()
            open_times.append(time.perf_counter() - start)

        network = window.document.project.networks[0]
        layer = next(l.name for l in network.layers if l.type == "Convolution")
        window.edit_tab.current_scene().select_layers([layer])  # the pane follows the edit too
        app.processEvents()
        for i in range(args.edits):
            value = str(64 + 8 * (i % 2))
            start = time.perf_counter()
            window.document.push(C.SetProperty(network, layer, "OutMaps", value))
            app.processEvents()
            edit_times.append(time.perf_counter() - start)
        shown = window.edit_tab.current_scene().layer_items[layer].stat_text
        pan_times = _pan(app, window.edit_tab.current_view(), args.pans)
        window.document.stack.clear()
        window.close()

    name = args.project.name
    print(
        f"{name}: {len(project.networks)} networks, "
        f"{sum(len(n.layers) for n in project.networks)} layers; edited {layer} -> {shown}"
    )
    print(f"engine load + inference: median {statistics.median(engine_times) * 1e3:8.1f} ms")
    print(
        f"editor open:             median {statistics.median(open_times) * 1e3:8.1f} ms  "
        f"(best {min(open_times) * 1e3:.1f}; target < 3000)"
    )
    print(
        f"update after an edit:    median {statistics.median(edit_times) * 1e3:8.1f} ms  "
        f"(best {min(edit_times) * 1e3:.1f}; target < 100)"
    )
    print(
        f"pan by 200 px + repaint: median {statistics.median(pan_times) * 1e3:8.1f} ms  "
        f"(worst {max(pan_times) * 1e3:.1f}; target < 16 per frame)"
    )
    return 0


def _bounce(step: int, stride: int, low: int, high: int) -> int:
    """Position after ``step`` strides, going back and forth between low and high."""
    span = high - low
    if span <= 0:
        return low
    travel = (step * stride) % (2 * span)
    return low + (travel if travel <= span else 2 * span - travel)


def _pan(app, view, steps: int) -> list[float]:  # noqa: ANN001
    """Frame times of scrolling both bars by 200 px and repainting the viewport each time.

    At 100 % zoom: opening zooms to fit, where nothing is left to scroll.
    """
    view.resetTransform()
    app.processEvents()
    bars = (view.horizontalScrollBar(), view.verticalScrollBar())
    for bar in bars:
        bar.setValue(bar.minimum())
    view.viewport().repaint()
    app.processEvents()
    times = []
    for step in range(1, steps + 1):
        start = time.perf_counter()
        for bar in bars:
            bar.setValue(_bounce(step, 200, bar.minimum(), bar.maximum()))
        view.viewport().repaint()
        app.processEvents()
        times.append(time.perf_counter() - start)
    return times


if __name__ == "__main__":
    sys.exit(main())

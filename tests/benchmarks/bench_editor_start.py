"""Benchmark: the editor as the user feels it, from ``neurocanvas PROJECT`` to a usable window.

    python tests/benchmarks/bench_editor_start.py [--rounds 5] [--trees NEW OLD]
                                                  [--projects P1 P2] [--display :99]

Each run starts a fresh process, ``python -c BOOT TREE PROJECT``, which runs the same launcher as
the ``neurocanvas`` program (``neurocanvas.main([PROJECT])``) from the source tree TREE. The clock
starts just before the process is started and stops when the main window's network canvas has
been painted (its viewport's first paint inside the event loop) and an event posted to the canvas
after that paint has been processed: the window is visible, drawn and answering input. The same
process then opens the other project with ``MainWindow.open_path`` (File > Open) and times the same
thing: until the canvas has repainted and a posted event is processed; then it shows TRAINING
(``setCurrentIndex``, as a click on its tab: its first display) and times the same for that tab.
"statistics shown" is when the network statistics pane has its values (a tree may fill it just
after the first paint).

Give ``--trees`` two source trees (e.g. this one and ``git worktree add /tmp/editor-base main``)
to compare them: runs alternate tree by tree, round by round, so load changes hit both alike.
With ``--display`` (an X server, e.g. ``Xvfb :99 &``) the window is real; without it Qt draws
offscreen. Settings go to a temporary folder (no recovery prompt, no remembered files).
The process's own CPU time (``time.process_time()``) is printed beside the wall times: on a
loaded machine it is the better guide to what a quiet one would show.
Timings are printed, never asserted.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT.parent / "shared/nnc-samples/image_recognition"
DEFAULTS = (
    SAMPLES / "ILSVRC2012/densenet/densenet-161.sdcproj",
    SAMPLES / "CIFAR10/resnet/resnet-110.sdcproj",
)

# Runs in the child. PySide6.QtWidgets is imported first to hook QApplication.exec: every tree
# imports it before its window shows, so the total is the same.
BOOT = r"""
import os, sys, time, json
tree, project, other = sys.argv[1], sys.argv[2], sys.argv[3]
sys.path.insert(0, tree)
from PySide6.QtCore import QEvent, QObject, QCoreApplication, QTimer
from PySide6.QtWidgets import QApplication, QGraphicsView

marks = {}
POKE = QEvent.Type(QEvent.registerEventType())

def canvas():
    app = QApplication.instance()
    views = [w for w in app.allWidgets() if isinstance(w, QGraphicsView) and w.isVisible()
             and type(w).__name__ != "OverviewView" and w.viewport().width() > 200]
    return max(views, key=lambda w: w.viewport().width() * w.viewport().height())

class Watch(QObject):
    def __init__(self, key, then):
        super().__init__()
        self.key, self.then, self.painted = key, then, False
    def eventFilter(self, obj, event):
        if event.type() == QEvent.Type.Paint and not self.painted:
            self.painted = True
            QCoreApplication.postEvent(obj, QEvent(POKE))
        elif event.type() == POKE:
            marks[self.key] = time.time()
            marks[self.key + "_cpu"] = time.process_time()
            obj.removeEventFilter(self)
            QTimer.singleShot(0, self.then)
            return True
        return False

def watch(key, then, widget=None):
    widget = widget if widget is not None else canvas().viewport()
    w = Watch(key, then)
    watch.keep = w
    widget.installEventFilter(w)
    widget.update()

def main_window():
    return next(w for w in QApplication.topLevelWidgets() if hasattr(w, "open_path"))

def panes():  # the statistics shown (a tree may fill them after the first paint)
    if main_window().edit_tab.statistics.value("CostParameter"):
        marks["panes"] = time.time()
        marks["panes_cpu"] = time.process_time()
        QTimer.singleShot(0, open_other)
    else:
        QTimer.singleShot(1, panes)

def open_other():
    marks["open_start"] = time.time()
    marks["open_start_cpu"] = time.process_time()
    main_window().open_path(other, ask=False)
    watch("open", training)

def training():  # TRAINING clicked for the first time: built (a tree may build it then), drawn
    window = main_window()
    marks["training_start"] = time.time()
    marks["training_start_cpu"] = time.process_time()
    window.tabs.setCurrentIndex(3)
    watch("training", finish, window.tabs.currentWidget())

def finish():
    print("MARKS " + json.dumps(marks), flush=True)
    os._exit(0)

_exec = QApplication.exec
def exec_(*args):
    marks["exec"] = time.time()
    watch("ready", panes)
    return _exec()
QApplication.exec = exec_

import neurocanvas
sys.exit(neurocanvas.main([project]))
"""


def run_once(tree: Path, project: Path, other: Path, env: dict[str, str]) -> dict[str, float]:
    env = dict(env, PYTHONPATH=str(tree))
    start = time.time()
    out = subprocess.run(
        [sys.executable, "-c", BOOT, str(tree), str(project), str(other)],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    line = next((l for l in out.stdout.splitlines() if l.startswith("MARKS ")), None)
    if line is None:
        raise SystemExit(f"{tree}: no result ({out.returncode}): {out.stderr[-2000:]}")
    marks = json.loads(line[6:])
    return {
        "ready": marks["ready"] - start,
        "exec": marks["exec"] - start,
        "panes": marks["panes"] - start,
        "open": marks["open"] - marks["open_start"],
        "training": marks["training"] - marks["training_start"],
        "ready_cpu": marks["ready_cpu"],
        "panes_cpu": marks["panes_cpu"],
        "open_cpu": marks["open_cpu"] - marks["open_start_cpu"],
        "training_cpu": marks["training_cpu"] - marks["training_start_cpu"],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="editor start-up as the user feels it")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--trees", nargs="+", type=Path, default=[ROOT])
    parser.add_argument("--projects", nargs="+", type=Path, default=list(DEFAULTS))
    parser.add_argument("--display", help="X display (e.g. :99); offscreen without it")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, XDG_CONFIG_HOME=tmp, XDG_DATA_HOME=tmp, XDG_CACHE_HOME=tmp)
        env.pop("PYTHONDONTWRITEBYTECODE", None)  # as installed: cached bytecode
        if args.display:
            env["DISPLAY"] = args.display
            env.pop("QT_QPA_PLATFORM", None)
        else:
            env["QT_QPA_PLATFORM"] = "offscreen"
        results: dict[tuple[Path, Path], list[dict[str, float]]] = {}
        for tree in args.trees:  # one unmeasured run each: bytecode written, files cached
            run_once(tree, args.projects[0], args.projects[-1], env)
        for _ in range(args.rounds):
            for project in args.projects:
                other = next((p for p in args.projects if p != project), project)
                for tree in args.trees:
                    results.setdefault((tree, project), []).append(
                        run_once(tree, project, other, env)
                    )
    print(
        f"{'offscreen' if not args.display else 'X display ' + args.display}, "
        f"{args.rounds} rounds, load average {os.getloadavg()[0]:.1f} at the end"
    )
    for (tree, project), runs in results.items():

        def med(key: str, runs=runs) -> float:
            return statistics.median(r[key] for r in runs)

        ready = [r["ready"] for r in runs]
        print(
            f"{tree}  {project.stem:14s} start -> visible+interactive: median {med('ready'):.2f} s "
            f"(min {min(ready):.2f}, max {max(ready):.2f}; event loop at {med('exec'):.2f} s; "
            f"statistics shown at {med('panes'):.2f} s); CPU time of the process: "
            f"{med('ready_cpu'):.2f} s (min {min(r['ready_cpu'] for r in runs):.2f}) to ready, "
            f"{med('panes_cpu'):.2f} s to the statistics\n"
            f"{'':{len(str(tree))}}  {'':14s} then File > Open of the other: median "
            f"{med('open'):.2f} s ({med('open_cpu'):.2f} s CPU); then TRAINING's first display: "
            f"median {med('training'):.2f} s ({med('training_cpu'):.2f} s CPU)"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())

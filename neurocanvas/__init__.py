"""The ``neurocanvas`` program: the desktop app or a command of the engine's CLI.

``neurocanvas`` alone, or with a project file, opens the app (console_app); anything else is a
command (engine.cli). This launcher stands above both so that the engine never names the app.
"""

from __future__ import annotations

import gc
import os
import sys
from pathlib import Path

from engine import cli


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv and not names_a_project(argv):
        return cli.main(argv)
    if argv and not Path(argv[0]).is_file():
        what = "a folder, not a project file" if Path(argv[0]).is_dir() else "no such file"
        print(f"neurocanvas: error: {argv[0]}: {what}", file=sys.stderr)
        return 2
    if no_display():
        print(
            "neurocanvas: error: no display to open the app on (DISPLAY and WAYLAND_DISPLAY "
            "are unset); run a command instead (neurocanvas --help)",
            file=sys.stderr,
        )
        return 2
    collecting = gc.isenabled()
    gc.disable()  # until the window is up: console_app/app.py says why
    from console_app.app import run_app  # Qt only when the app is wanted

    gc.freeze()  # what the imports made lives as long as the process: never scanned again
    return run_app(argv[0] if argv else None, collect_after_start=collecting)


def names_a_project(argv: list[str]) -> bool:
    """``neurocanvas FILE`` opens FILE in the app; a word without an extension that is no file
    (``neurocanvas trian``) is a mistyped command, which argparse then names."""
    arg = argv[0]
    if len(argv) != 1 or arg.startswith("-") or arg in cli.SUBCOMMANDS:
        return False
    return bool(Path(arg).suffix) or Path(arg).exists()


def no_display() -> bool:
    """On Linux and the BSDs with no X or Wayland display and no Qt platform chosen, Qt would
    abort with a core dump and a page of messages about plugins."""
    if not sys.platform.startswith(("linux", "freebsd", "openbsd", "netbsd")):
        return False
    env = os.environ
    return not (env.get("DISPLAY") or env.get("WAYLAND_DISPLAY") or env.get("QT_QPA_PLATFORM"))

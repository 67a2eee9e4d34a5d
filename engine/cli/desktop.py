"""``neurocanvas desktop``: add NeuroCanvas to the Linux desktop's application launchers.

Writes the freedesktop.org entry (``resources/neurocanvas.desktop``) into
``$XDG_DATA_HOME/applications`` with ``Exec`` pointing at this installation, and the icon into
``$XDG_DATA_HOME/icons/hicolor/scalable/apps``; ``--remove`` takes both away again.
"""

from __future__ import annotations

import argparse
import os
import shlex
import sys
from pathlib import Path

from engine.cli import UserError
from engine.core.atomic import atomic_write_bytes
from engine.package_data import data_folder

ENTRY = "neurocanvas.desktop"
ICON = "neurocanvas.svg"


def add_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    parser = sub.add_parser(
        "desktop",
        help="add NeuroCanvas to the desktop's application launchers (Linux)",
        description="Install the launcher entry and icon for this user (freedesktop.org: "
        "$XDG_DATA_HOME, default ~/.local/share), so NeuroCanvas appears in the application "
        "menu and opens .ncproj/.sdcproj files.",
    )
    parser.add_argument("--remove", action="store_true", help="take the entry and icon away")
    return parser


def _data_home() -> Path:
    return Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share")


def _command() -> str:
    """How the launcher starts this installation: its own interpreter and package, so the entry
    works whether or not ``neurocanvas`` is on the desktop session's PATH."""
    return f"{shlex.quote(sys.executable)} -m neurocanvas"


def run(args: argparse.Namespace) -> int:
    if not sys.platform.startswith(("linux", "freebsd", "openbsd", "netbsd")):
        raise UserError("launcher entries are a Linux (freedesktop.org) feature; on this system "
                        "start the app with the command neurocanvas")  # fmt: skip
    home = _data_home()
    entry = home / "applications" / ENTRY
    icon = home / "icons" / "hicolor" / "scalable" / "apps" / ICON
    if args.remove:
        for path in (entry, icon):
            path.unlink(missing_ok=True)
            print(f"removed {path}")
        return 0
    folder = data_folder("neurocanvas_resources", "resources")
    if folder is None or not (folder / ENTRY).is_file():
        raise UserError("this installation has no resources folder (resources/neurocanvas.desktop)")
    text = (folder / ENTRY).read_text(encoding="utf-8")
    text = text.replace("Exec=neurocanvas ", f"Exec={_command()} ")
    try:
        for path, data in ((entry, text.encode()), (icon, (folder / ICON).read_bytes())):
            path.parent.mkdir(parents=True, exist_ok=True)
            atomic_write_bytes(path, data)
            print(f"wrote {path}")
    except OSError as exc:
        raise UserError(f"{exc.filename or home}: {exc.strerror or exc}") from None
    return 0

"""Open any project file by content; save by extension.

``load_project(path)`` reads a native ``.ncproj`` (JSON object with ``"format":
"neurocanvas-project"``) or an NNC ``.sdcproj`` (INI; NNC job folders call it ``network.ini``)
whatever the file is called. ``save_project(project, path)`` writes ``.sdcproj``/``.ini`` as
NNC's INI and anything else as native JSON.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from engine.core.messages import QT_TRANSLATE_NOOP
from engine.formats import native, sdcproj
from engine.formats.errors import ProjectFileError
from engine.graph.project import Project

SDCPROJ_SUFFIXES = (".sdcproj", ".ini")
NATIVE_SUFFIX = ".ncproj"
# A JSON array starts with "[" as an INI section does, but a value follows it, not a name: it is
# JSON that is not a project ("not a NeuroCanvas project"), not an INI without its sections.
_JSON_ARRAY = re.compile(rb'\[\s*(?:[\[{"\]\-0-9]|true\b|false\b|null\b)')


def sniff(data: bytes) -> str:
    """``"native"``, ``"sdcproj"`` or ``"unknown"`` from the first non-blank characters."""
    head = data[:4096].lstrip(b"\xef\xbb\xbf \t\r\n")
    if head.startswith(b"{") or _JSON_ARRAY.match(head):
        return "native"
    if head.startswith(b"[") or head.startswith(b";"):
        return "sdcproj"
    return "unknown"


def load_project(path: str | os.PathLike[str]) -> Project:
    """Read a project file of either format; ``ProjectFileError`` names the file on failure."""
    try:
        data = Path(path).read_bytes()
    except IsADirectoryError:
        raise ProjectFileError(
            path, QT_TRANSLATE_NOOP("Problems", "is a folder, not a project file")
        ) from None
    except OSError as exc:
        raise ProjectFileError(
            path,
            QT_TRANSLATE_NOOP("Problems", "cannot read: {value}").format(value=exc.strerror or exc),
        ) from None
    kind = sniff(data)
    if kind == "native":
        return native.parse_native(data, path)
    if kind == "sdcproj":
        return sdcproj.parse_sdcproj(data, path)
    if not data.strip():
        raise ProjectFileError(path, QT_TRANSLATE_NOOP("Problems", "the file is empty"))
    # Unrecognised content: the extension's parser gives the most precise message (line/column).
    suffix = Path(path).suffix.lower()
    if suffix in SDCPROJ_SUFFIXES:
        return sdcproj.parse_sdcproj(data, path)
    if suffix == NATIVE_SUFFIX:
        return native.parse_native(data, path)
    raise ProjectFileError(
        path,
        QT_TRANSLATE_NOOP(
            "Problems", "not a NeuroCanvas project (.ncproj JSON) or an NNC project (.sdcproj INI)"
        ),
    )


def save_project(project: Project, path: str | os.PathLike[str]) -> None:
    """Atomic save; the format follows the extension (``.sdcproj``/``.ini`` -> NNC INI)."""
    if Path(path).suffix.lower() in SDCPROJ_SUFFIXES:
        sdcproj.write_sdcproj(project, path)
    else:
        native.write_native(project, path)

"""Project file formats: native JSON (``.ncproj``) and NNC's ``.sdcproj``.

``load_project(path)`` opens either by content (NNC job folders call the sdcproj ``network.ini``);
``save_project(project, path)`` picks the format by extension. Every problem with a file's
content is a :class:`ProjectFileError` whose message names the file and, where known, the line
and section.
"""

from __future__ import annotations

from engine.formats.detect import load_project, save_project
from engine.formats.errors import ProjectFileError

__all__ = ["ProjectFileError", "load_project", "save_project"]

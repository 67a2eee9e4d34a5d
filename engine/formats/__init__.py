"""Project file formats: native JSON (``.ncproj``) and NNC's ``.sdcproj``.

``load_project(path)`` opens either by content (NNC job folders call the sdcproj ``network.ini``);
``save_project(project, path)`` picks the format by extension. Every problem with a file's
content is a :class:`ProjectFileError` whose message names the file and, where known, the line
and section.
"""

from __future__ import annotations

import os


class ProjectFileError(ValueError):
    """A project file that cannot be read or written; the message names file, line, section."""

    def __init__(
        self,
        path: str | os.PathLike[str] | None,
        message: str,
        *,
        line: int | None = None,
        section: str | None = None,
        column: int | None = None,
    ) -> None:
        self.path = None if path is None else os.fspath(path)
        self.line = line
        self.column = column
        self.section = section
        self.detail = message
        where = [self.path or "<project>"]
        if line is not None:
            where.append(f"line {line}" + (f", column {column}" if column is not None else ""))
        if section is not None:
            where.append(f"[{section}]")
        super().__init__(f"{', '.join(where)}: {message}")


from engine.formats.detect import load_project, save_project  # noqa: E402  (needs the error above)

__all__ = ["ProjectFileError", "load_project", "save_project"]

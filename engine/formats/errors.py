"""The error every project file format raises (its own module, below the formats that raise it)."""

from __future__ import annotations

import os

from engine.core.messages import QT_TRANSLATE_NOOP

# The file's place first; the message is often a template of its own (engine/core/messages.py).
_IN_FILE = QT_TRANSLATE_NOOP("Problems", "{path}{section}: {message}")
_AT_LINE = QT_TRANSLATE_NOOP("Problems", "{path}, line {line}{section}: {message}")
_AT_COLUMN = QT_TRANSLATE_NOOP(
    "Problems", "{path}, line {line}, column {column}{section}: {message}"
)


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
        place = {"path": self.path or "<project>", "message": message,
                 "section": "" if section is None else f", [{section}]"}  # fmt: skip
        if line is not None and column is not None:
            text = _AT_COLUMN.format(line=line, column=column, **place)
        elif line is not None:
            text = _AT_LINE.format(line=line, **place)
        else:
            text = _IN_FILE.format(**place)
        super().__init__(text)

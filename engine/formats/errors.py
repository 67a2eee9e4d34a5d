"""The error every project file format raises (its own module, below the formats that raise it)."""

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

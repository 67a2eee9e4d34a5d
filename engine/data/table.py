"""Reading an NNC dataset CSV into a checked table: header, variables and rows (docs/formats.md §2).

- UTF-8 with or without BOM; LF, CRLF or CR line ends; standard CSV quoting (quoted cells may
  hold commas and line breaks).
- Header cells ``name[__index][:label]``: the label (after the first ``:``) is display text; the
  name is the text before the first ``__``; ``#`` columns are comments and are dropped. Spaces
  around a header cell are ignored (a name with spaces could never match a project's variable).
- The element columns ``y__0, y__1, ...`` of one vector variable must be adjacent and numbered
  0, 1, ... in column order.
- Every row has as many cells as the header. Rows whose cells are all empty (blank lines, the
  ``,,,`` lines spreadsheets leave at the end) are skipped; nothing else is.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine.core.messages import QT_TRANSLATE_NOOP
from engine.data.errors import DatasetError

# A place in a dataset CSV, in the app's language where it shows a run's error.
_LINE = QT_TRANSLATE_NOOP("Training", '"{path}", line {line}')
_COLUMN = QT_TRANSLATE_NOOP("Training", '"{path}", column {column} ({header})')
_CELL = QT_TRANSLATE_NOOP("Training", '"{path}", line {line}, column {column} ({header})')

__all__ = ["Column", "Table", "read_table"]


@dataclass(frozen=True)
class Column:
    """One data column of the CSV (comment columns are not columns here)."""

    index: int  # 0-based position among the CSV's cells, comment columns included
    header: str  # the header cell as written (stripped of surrounding spaces)
    variable: str
    element: int | None  # the ``__i`` index, None for a whole-variable column
    label: str | None


@dataclass(frozen=True)
class Table:
    """The parsed CSV: header cells, columns grouped by variable, rows and their line numbers."""

    path: Path
    header: tuple[str, ...]  # every header cell as written, comments included
    variables: tuple[tuple[str, tuple[Column, ...]], ...]  # in column order
    rows: list[list[str]]
    lines: list[int]  # the 1-based line where each row starts (the header is line 1)

    def where(self, row: int | None, column: Column | None = None) -> str:
        """``"file.csv", line 7, column 2 (x:image)`` for messages (row is a data-row index)."""
        if row is None and column is None:
            return f'"{self.path}"'
        if row is None:
            assert column is not None
            return _COLUMN.format(path=str(self.path), column=column.index + 1,
                                  header=column.header)  # fmt: skip
        if column is None:
            return _LINE.format(path=str(self.path), line=self.lines[row])
        return _CELL.format(path=str(self.path), line=self.lines[row], column=column.index + 1,
                            header=column.header)  # fmt: skip


def read_table(path: str | Path) -> Table:
    """Read and check the CSV at ``path``; raise :class:`DatasetError` naming line and column."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise DatasetError(
            QT_TRANSLATE_NOOP("Problems", 'dataset CSV not found: "{path}"').format(path=path)
        ) from None
    except OSError as exc:
        raise DatasetError(
            QT_TRANSLATE_NOOP("Problems", 'cannot read dataset CSV "{path}": {value}').format(
                path=path, value=exc.strerror or exc
            )
        ) from None
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise DatasetError(
            QT_TRANSLATE_NOOP(
                "Problems",
                '"{path}", line {line}: the file is not UTF-8 text; save it as UTF-8 (NNC dataset CSVs are UTF-8)',  # noqa: E501 - one string for the catalogue
            ).format(path=path, line=line)
        ) from None
    plain = _plain_rows(text)
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
    try:
        header, rows, lines = plain or _read_rows(reader)
    except csv.Error as exc:
        raise DatasetError(
            QT_TRANSLATE_NOOP("Problems", '"{path}", line {line}: malformed CSV: {exc}').format(
                path=path, line=reader.line_num, exc=exc
            )
        ) from None
    if header is None:
        raise DatasetError(
            QT_TRANSLATE_NOOP(
                "Problems", '"{path}": the file is empty; the first line must be the header'
            ).format(path=path)
        )
    table = Table(path, tuple(header), (), rows, lines)
    variables = _parse_header(table, header)
    _check_widths(table, len(header))
    return Table(path, tuple(header), variables, rows, lines)


def _plain_rows(text: str) -> tuple[list[str] | None, list[list[str]], list[int]] | None:
    """:func:`_read_rows` of a CSV without quotes, carriage returns or NULs (the rows split at
    commas as csv.reader splits them, a blank line skipped), or None for csv.reader to read.
    Every field is within csv.reader's size limit, as it would have checked."""
    if '"' in text or "\r" in text or "\0" in text:
        return None
    texts = text.split("\n")
    if max(map(len, texts)) > csv.field_size_limit():
        return None
    header: list[str] | None = None
    rows: list[list[str]] = []
    lines: list[int] = []
    for number, line in enumerate(texts, 1):
        if not line.replace(",", "").strip():
            continue  # every cell blank, as csv.reader's rows that _read_rows skips
        if header is None:
            header = line.split(",")
        else:
            rows.append(line.split(","))
            lines.append(number)
    return header, rows, lines


def _read_rows(reader: Any) -> tuple[list[str] | None, list[list[str]], list[int]]:
    header: list[str] | None = None
    rows: list[list[str]] = []
    lines: list[int] = []
    while True:
        start = reader.line_num + 1
        try:
            row = next(reader)
        except StopIteration:
            return header, rows, lines
        if not any(cell.strip() for cell in row):
            continue
        if header is None:
            header = row
        else:
            rows.append(row)
            lines.append(start)


def _check_widths(table: Table, width: int) -> None:
    for r, row in enumerate(table.rows):
        if len(row) != width:
            raise DatasetError(
                QT_TRANSLATE_NOOP(
                    "Problems",
                    "{where}: {len_row} cells, but the header has {width} columns (a comma inside a value needs quotes)",  # noqa: E501 - one string for the catalogue
                ).format(where=table.where(r), len_row=len(row), width=width)
            )


def _parse_header(table: Table, header: list[str]) -> tuple[tuple[str, tuple[Column, ...]], ...]:
    groups: dict[str, list[Column]] = {}
    previous: Column | None = None
    for index, cell in enumerate(header):
        text = cell.strip()
        where = f'"{table.path}", line 1, column {index + 1}'
        if not text:
            raise DatasetError(
                QT_TRANSLATE_NOOP(
                    "Problems", "{where}: empty header cell; every column needs a variable name"
                ).format(where=where)
            )
        if text.startswith("#"):
            continue
        column = _parse_header_cell(text, index, where)
        _check_grouping(groups, previous, column, where)
        groups.setdefault(column.variable, []).append(column)
        previous = column
    if not groups:
        raise DatasetError(
            QT_TRANSLATE_NOOP("Problems", '"{path}", line 1: the header names no variable').format(
                path=table.path
            )
        )
    return tuple((name, tuple(columns)) for name, columns in groups.items())


def _parse_header_cell(text: str, index: int, where: str) -> Column:
    name_index, colon, label = text.partition(":")
    name, sep, element_text = name_index.partition("__")
    if not name:
        raise DatasetError(
            QT_TRANSLATE_NOOP(
                "Problems", "{where} ({text}): no variable name before ':' or '__'"
            ).format(where=where, text=text)
        )
    element = None
    if sep:
        if not element_text.isdigit():
            raise DatasetError(
                QT_TRANSLATE_NOOP(
                    "Problems",
                    "{where} ({text}): the text after '__' must be an element index 0, 1, ...; Received: {element_text}",  # noqa: E501 - one string for the catalogue
                ).format(where=where, text=text, element_text=repr(element_text))
            )
        element = int(element_text)
    return Column(index, text, name, element, label if colon else None)


def _check_grouping(
    groups: dict[str, list[Column]], previous: Column | None, column: Column, where: str
) -> None:
    seen = groups.get(column.variable)
    if column.element is None:
        if seen is not None:
            raise DatasetError(
                QT_TRANSLATE_NOOP(
                    "Problems",
                    "{where} ({header}): variable {variable} appears twice (also column {value})",
                ).format(
                    where=where,
                    header=column.header,
                    variable=repr(column.variable),
                    value=seen[0].index + 1,
                )
            )
        return
    if seen is None:
        expected = 0
    elif seen[0].element is None:
        raise DatasetError(
            QT_TRANSLATE_NOOP(
                "Problems",
                "{where} ({header}): variable {variable} is already a whole column (column {value})",  # noqa: E501 - one string for the catalogue
            ).format(
                where=where,
                header=column.header,
                variable=repr(column.variable),
                value=seen[0].index + 1,
            )
        )
    elif previous is None or previous.variable != column.variable:
        raise DatasetError(
            QT_TRANSLATE_NOOP(
                "Problems", "{where} ({header}): the element columns of {variable} must be adjacent"
            ).format(where=where, header=column.header, variable=repr(column.variable))
        )
    else:
        expected = len(seen)
    if column.element != expected:
        raise DatasetError(
            QT_TRANSLATE_NOOP(
                "Problems",
                "{where} ({header}): expected {variable}__{expected}; element columns are numbered 0, 1, ... in order",  # noqa: E501 - one string for the catalogue
            ).format(where=where, header=column.header, variable=column.variable, expected=expected)
        )

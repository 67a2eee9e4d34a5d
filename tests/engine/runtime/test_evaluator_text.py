"""The text of output_result.csv built in bulk is the text built cell by cell: full paths of a
dataset's file column (one pass over the column) against :func:`_full_path` of each cell, and
the joined lines against ``csv.writer``."""

from __future__ import annotations

import csv
import io
import itertools

import pytest

from engine.runtime import evaluator

CELLS = ["./img/a.png", "img/./b.png", "a\\b.png", "././c.png", "", "x/../y.png", "sp ace.png",
         "d/./././e.png", "/abs/x.png", "two\nlines.png", "ü/ß.png"]  # fmt: skip
ROOTS = ["/data/set", "/", "/a/./b", "/back\\slash", "/trailing/"]


@pytest.mark.parametrize("root", ROOTS)
def test_a_columns_full_paths_are_each_cells(root, monkeypatch):
    """Every pair and triple of cells (absolute and multi-line ones send the column cell by
    cell), and a plain column is made full without one call per cell."""
    for size in (1, 2, 3):
        for cells in itertools.permutations(CELLS, size):
            want = [evaluator._full_path(root, cell) for cell in cells]
            assert evaluator._full_paths(root, list(cells)) == want, cells
    calls = []
    one = evaluator._full_path
    monkeypatch.setattr(evaluator, "_full_path", lambda r, c: calls.append(c) or one(r, c))
    plain = [cell for cell in CELLS if not cell.startswith("/") and "\n" not in cell]
    assert evaluator._full_paths(root, plain) == [one(root, cell) for cell in plain]
    assert calls == []


ROWS = [["a.png", "1"], ["b,c.png", "2"], ['q"uote.png', "3"], ["cr\r.png", "4"],
        ["lf\n.png", "5"], ["", "6"], [" spaced ", "7"]]  # fmt: skip


def _csv_writer(header, rows, tails):
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(row + ",".join(tail).split(",") for row, tail in zip(rows, tails, strict=True))
    return buffer.getvalue()


@pytest.mark.parametrize("count", [1, 2, 3])
def test_result_text_is_what_csv_writer_writes(count):
    """Any rows: with a comma, a quote, a CR or LF in a cell (quoted), empty or spaced cells."""
    header = ["x:image", "y", "y'__0", "y'__1"]
    for rows in itertools.permutations(ROWS, count):
        rows = [list(row) for row in rows]
        tails = [["0.5,1e-05"] for _ in rows]
        want = _csv_writer(header, rows, tails)
        assert evaluator._result_text(header, rows, tails) == want

import csv
import io

import pytest

from engine.data import table as table_module
from engine.data.errors import DatasetError
from engine.data.table import read_table


def write(tmp_path, text, name="data.csv", encoding="utf-8"):
    path = tmp_path / name
    path.write_bytes(text.encode(encoding))
    return path


def test_header_variables_labels_elements_and_comments(tmp_path):
    path = write(tmp_path, "x:image,#memo,y__0:cat,y__1:dog,z\na.png,hello,1,0,3\n")
    table = read_table(path)
    assert [name for name, _ in table.variables] == ["x", "y", "z"]
    x, y, z = (cols for _, cols in table.variables)
    assert (x[0].index, x[0].label, x[0].element) == (0, "image", None)
    assert [(c.index, c.element, c.label) for c in y] == [(2, 0, "cat"), (3, 1, "dog")]
    assert (z[0].index, z[0].label) == (4, None)
    assert table.header == ("x:image", "#memo", "y__0:cat", "y__1:dog", "z")
    assert table.rows == [["a.png", "hello", "1", "0", "3"]]


def test_crlf_bom_quotes_and_blank_lines(tmp_path):
    text = '\ufeffx,"y:a, quoted label"\r\n"1,5",2\r\n\r\n3,"multi\r\nline"\r\n,\r\n'
    table = read_table(write(tmp_path, text))
    assert [name for name, _ in table.variables] == ["x", "y"]
    assert table.variables[1][1][0].label == "a, quoted label"
    assert table.rows == [["1,5", "2"], ["3", "multi\r\nline"]]
    assert table.lines == [2, 4]  # the blank line 3 and the empty ",," row are skipped


def test_spaces_around_header_cells_are_ignored(tmp_path):
    table = read_table(write(tmp_path, " x:image , y \n1,2\n"))
    assert [name for name, _ in table.variables] == ["x", "y"]


def test_wrong_column_count_names_line(tmp_path):
    with pytest.raises(DatasetError, match=r'data.csv", line 3: 3 cells, but the header has 2'):
        read_table(write(tmp_path, "x,y\n1,2\n1,2,3\n"))


@pytest.mark.parametrize(
    ("header", "message"),
    [
        ("x,,y", r"line 1, column 2: empty header cell"),
        ("x,x", r"column 2 \(x\): variable 'x' appears twice \(also column 1\)"),
        ("y__0,x,y__1", r"column 3 \(y__1\): the element columns of 'y' must be adjacent"),
        ("y__0,y__2", r"column 2 \(y__2\): expected y__1"),
        ("y__1,y__2", r"column 1 \(y__1\): expected y__0"),
        ("y,y__0", r"variable 'y' is already a whole column"),
        ("y__a", r"after '__' must be an element index"),
        (":label", r"no variable name"),
        ("#only", r"the header names no variable"),
    ],
)
def test_bad_headers(tmp_path, header, message):
    with pytest.raises(DatasetError, match=message):
        read_table(write(tmp_path, header + "\n"))


def test_missing_empty_and_non_utf8_files(tmp_path):
    with pytest.raises(DatasetError, match="dataset CSV not found"):
        read_table(tmp_path / "nope.csv")
    with pytest.raises(DatasetError, match="the file is empty"):
        read_table(write(tmp_path, "\n\n"))
    with pytest.raises(DatasetError, match=r"line 2: the file is not UTF-8"):
        read_table(write(tmp_path, "x\n画像.png\n", encoding="shift_jis"))


def test_malformed_quotes(tmp_path):
    with pytest.raises(DatasetError, match=r"malformed CSV"):
        read_table(write(tmp_path, 'x,y\n"a"b,1\n'))


PLAIN_TEXTS = [
    "x,y\n1,2\n3,4\n",
    "x,y\n1,2\n3,4",  # no final line break
    "x,y\n\n1,2\n , \n,,\n3,4\n\n",  # blank lines and rows of blank cells
    "\n\nx,y\n\t1 , 2\t\n",  # blank lines before the header; cells keep their spaces
    "x,y,z\n1,,3\n,2,\n",  # empty cells in a row that is not blank
    "x\n",  # header only
    "",
    "x,y\nü/ß.png,1\n\x0bvt,\x0c\n\u2028,\u3000\n",  # other whitespace and line separators
    "x,y\n1,2,3\n4\n",  # rows of the wrong width (reported after reading)
]


@pytest.mark.parametrize("text", PLAIN_TEXTS)
def test_plain_csv_rows_are_csv_readers(text):
    """A CSV without quotes, CRs or NULs is split at line breaks and commas (no csv.reader):
    the same header, rows and line numbers as csv.reader's rows read by _read_rows."""
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
    assert table_module._plain_rows(text) == table_module._read_rows(reader)


@pytest.mark.parametrize("text", ['x,y\n"1",2\n', "x,y\r\n1,2\r\n", "x,y\n1\x00,2\n"])
def test_quotes_crs_and_nuls_are_left_to_csv_reader(text):
    assert table_module._plain_rows(text) is None


def test_a_field_over_csv_readers_limit_is_still_refused(tmp_path):
    path = write(tmp_path, "x,y\n" + "a" * (csv.field_size_limit() + 1) + ",1\n")
    with pytest.raises(DatasetError, match="malformed CSV: field larger than field limit"):
        read_table(path)

import itertools
import os

import numpy as np
import pytest
from PIL import Image

import engine.data.csv_dataset as csv_dataset
from engine.data import DatasetError, file_cells, open_dataset


def png(path, array):
    path.parent.mkdir(parents=True, exist_ok=True)
    Image.fromarray(np.asarray(array)).save(path)
    return path


def csv(tmp_path, text, name="data.csv"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def gray(value, shape=(2, 3)):
    return np.full(shape, value, dtype=np.uint8)


def test_numbers_scalars_and_vectors(tmp_path):
    path = csv(tmp_path, "x__0,x__1,x__2,y:label\n1,2,3, 4 \n-1.5,1e-3,nan,0\n")
    ds = open_dataset(path)
    assert [(v.name, v.kind, v.shape, v.dtype) for v in ds.variables] == [
        ("x", "number", (3,), "float32"),
        ("y", "number", (1,), "float32"),
    ]
    batch = ds.get_batch([1, 0, 1])
    assert batch["x"].dtype == np.float32 and batch["x"].shape == (3, 3)
    np.testing.assert_array_equal(batch["x"][1], [1, 2, 3])
    np.testing.assert_array_equal(batch["x"][0][:2], np.float32([-1.5, 1e-3]))
    assert np.isnan(batch["x"][0][2])
    np.testing.assert_array_equal(batch["y"], [[0], [4], [0]])
    assert ds.variable("x").header == "x__0 .. x__2"
    assert ds.variable("y").label == "label"


def test_images_gray_rgb_normalization_and_non_ascii_paths(tmp_path):
    png(tmp_path / "画像" / "ゼロ.png", gray(0))
    png(tmp_path / "画像" / "full.png", gray(255))
    png(tmp_path / "c" / "rgb.png", np.dstack([gray(10), gray(20), gray(30)]))
    png(tmp_path / "c" / "rgb2.png", np.dstack([gray(1), gray(2), gray(3)]))
    text = "x:image,c:colour,y\n./画像/ゼロ.png,c\\rgb.png,0\n画像/full.png,./c/rgb2.png,1\n"
    ds = open_dataset(csv(tmp_path, text), cache=False)
    assert [(v.name, v.kind, v.shape, v.dtype) for v in ds.variables] == [
        ("x", "image", (1, 2, 3), "uint8"),
        ("c", "image", (3, 2, 3), "uint8"),
        ("y", "number", (1,), "float32"),
    ]
    batch = ds.get_batch([1, 0])
    np.testing.assert_allclose(batch["x"][:, 0, 0, 0], [1.0, 0.0])
    np.testing.assert_allclose(batch["c"][1, :, 1, 2], np.float32([10, 20, 30]) / 255, rtol=1e-6)
    raw = open_dataset(tmp_path / "data.csv", normalize=False, cache=False).get_batch([1])
    np.testing.assert_array_equal(raw["x"], np.full((1, 1, 2, 3), 255, np.float32))
    assert ds.file_path("x", 0) == tmp_path / "画像" / "ゼロ.png"


def test_sixteen_bit_images_are_normalized_by_65535(tmp_path):
    Image.fromarray(np.array([[0, 65535], [1000, 30000]], dtype=np.uint16)).save(tmp_path / "a.png")
    ds = open_dataset(csv(tmp_path, "x\na.png\n"), cache=False)
    assert ds.variable("x").dtype == "uint16"
    np.testing.assert_allclose(ds.load_sample(0)["x"][0], [[0, 1], [1000 / 65535, 30000 / 65535]])


def test_stray_spaces_around_a_path_are_forgiven(tmp_path):
    png(tmp_path / "a.png", gray(3))
    ds = open_dataset(csv(tmp_path, "x,y\n ./a.png , 2\n"), normalize=False, cache=False)
    assert ds.load_sample(0)["x"][0, 0, 0] == 3 and ds.load_sample(0)["y"][0] == 2


def test_npy_and_csv_files_are_not_normalized(tmp_path):
    np.save(tmp_path / "v.npy", np.arange(6, dtype=np.int32).reshape(2, 3))
    (tmp_path / "m.csv").write_text("1,2\r\n3,400\r\n", encoding="utf-8")
    ds = open_dataset(csv(tmp_path, "x,t\nv.npy,m.csv\n"), normalize=True, cache=False)
    assert [(v.kind, v.shape) for v in ds.variables] == [("npy", (2, 3)), ("csv", (2, 2))]
    sample = ds.load_sample(0)
    np.testing.assert_array_equal(sample["x"], np.arange(6).reshape(2, 3))
    np.testing.assert_array_equal(sample["t"], [[1, 2], [3, 400]])


def test_missing_file_names_line_and_column(tmp_path):
    png(tmp_path / "a.png", gray(1))
    path = csv(tmp_path, "y,x:image\n0,a.png\n1,b.png\n")
    with pytest.raises(DatasetError) as info:
        open_dataset(path)
    message = str(info.value)
    assert f'"{path}", line 3, column 2 (x:image): file not found: b.png' in message


def test_non_numeric_scalar_column(tmp_path):
    with pytest.raises(DatasetError, match=r"line 2, column 2 \(y\): 'cat' is neither a number"):
        open_dataset(csv(tmp_path, "x,y\n1,cat\n2,dog\n"))


def test_mixed_numbers_and_paths_in_one_column(tmp_path):
    png(tmp_path / "a.png", gray(1))
    with pytest.raises(DatasetError, match=r"line 3, column 1 \(x\): expected a number"):
        open_dataset(csv(tmp_path, "x\n1\na.png\n"))
    with pytest.raises(DatasetError, match=r"line 3, column 1 \(x\): expected a file path"):
        open_dataset(csv(tmp_path, "x\na.png\n2\n"))


def test_vector_columns_must_hold_numbers(tmp_path):
    with pytest.raises(DatasetError, match=r"line 3, column 2 \(v__1\): element columns hold"):
        open_dataset(csv(tmp_path, "v__0,v__1\n1,2\n3,a.png\n"))


def test_mixed_file_kinds_in_one_column(tmp_path):
    png(tmp_path / "a.png", gray(1))
    np.save(tmp_path / "b.npy", np.zeros((1, 2, 3)))
    with pytest.raises(DatasetError, match=r"line 3, column 1 \(x\): a npy file in a column of im"):
        open_dataset(csv(tmp_path, "x\na.png\nb.npy\n"))


@pytest.mark.parametrize("cache", [False, True])
def test_mixed_shapes_are_reported_with_line(tmp_path, cache):
    png(tmp_path / "a.png", gray(1))
    png(tmp_path / "b.png", gray(1))
    png(tmp_path / "c.png", gray(1, shape=(3, 3)))
    ds = open_dataset(csv(tmp_path, "x\na.png\nb.png\nc.png\n"), cache=cache,
                      cache_dir=tmp_path / "cache")  # fmt: skip
    assert ds.variable("x").shape == (1, 2, 3)
    ds.get_batch([0, 1]) if not cache else None
    with pytest.raises(DatasetError, match=r"line 4, column 1 \(x\): shape \(1, 3, 3\) differs"):
        ds.get_batch([2, 0])
    if cache:  # nothing half-built stays behind
        assert not any((tmp_path / "cache" / "arrays").iterdir())


def test_gray_and_rgb_mixed_is_a_shape_error(tmp_path):
    png(tmp_path / "a.png", gray(1))
    png(tmp_path / "b.png", np.dstack([gray(1)] * 3))
    ds = open_dataset(csv(tmp_path, "x\na.png\nb.png\n"), cache=False)
    with pytest.raises(DatasetError, match=r"shape \(3, 2, 3\) differs from \(1, 2, 3\)"):
        ds.load_sample(1)


def test_without_cache_only_requested_rows_are_loaded(tmp_path, monkeypatch):
    for i in range(10):
        png(tmp_path / f"{i}.png", gray(i))
    ds = open_dataset(csv(tmp_path, "x\n" + "".join(f"{i}.png\n" for i in range(10))),
                      cache=False, normalize=False)  # fmt: skip
    calls = []
    real = csv_dataset.load_file
    monkeypatch.setattr(csv_dataset, "load_file", lambda p, k: calls.append(p.name) or real(p, k))
    batch = ds.get_batch([7, 2])
    assert sorted(calls) == ["2.png", "7.png"]
    np.testing.assert_array_equal(batch["x"][:, 0, 0, 0], [7, 2])


def test_cache_is_built_once_reused_and_invalidated(tmp_path, monkeypatch):
    for i in range(5):
        png(tmp_path / f"{i}.png", gray(i))
    path = csv(tmp_path, "x,y\n" + "".join(f"{i}.png,{i}\n" for i in range(5)))
    root = tmp_path / "cache"
    ds = open_dataset(path, normalize=False, cache_dir=root)
    ds.prepare()
    assert len(list((root / "arrays").iterdir())) == 1
    calls = []
    real = csv_dataset.load_file
    monkeypatch.setattr(csv_dataset, "load_file", lambda p, k: calls.append(p.name) or real(p, k))
    again = open_dataset(path, normalize=False, cache_dir=root)
    batch = again.get_batch([4, 1, 4])
    assert calls == ["0.png"]  # only the shape probe of row 0; the rows come from the cache
    np.testing.assert_array_equal(batch["x"][:, 0, 0, 0], [4, 1, 4])
    np.testing.assert_array_equal(batch["y"][:, 0], [4, 1, 4])
    png(tmp_path / "3.png", gray(99))
    os.utime(tmp_path / "3.png", ns=(1, 1))  # a changed file must never be read from the cache
    changed = open_dataset(path, normalize=False, cache_dir=root)
    assert changed.get_batch([3])["x"][0, 0, 0, 0] == 99
    assert len(list((root / "arrays").iterdir())) == 2


def test_cache_root_from_environment(tmp_path, monkeypatch):
    png(tmp_path / "a.png", gray(1))
    monkeypatch.setenv("NEUROCANVAS_CACHE", str(tmp_path / "env-cache"))
    open_dataset(csv(tmp_path, "x\na.png\n")).prepare()
    assert len(list((tmp_path / "env-cache" / "arrays").iterdir())) == 1


def test_rows_cells_lines_and_batches(tmp_path):
    path = csv(tmp_path, "#id,x\r\nfirst,1\r\n\r\nsecond,2\r\nthird,3\r\n")
    ds = open_dataset(path)
    assert ds.header == ("#id", "x") and ds.names == ("x",)
    assert ds.row_cells(1) == ["second", "2"] and ds.line(1) == 4
    got = [(start, b["x"][:, 0].tolist()) for start, b in ds.batches(2)]
    assert got == [(0, [1.0, 2.0]), (2, [3.0])]


def test_selection_and_index_errors(tmp_path):
    ds = open_dataset(csv(tmp_path, "x,y\n1,2\n"))
    assert list(ds.get_batch([0], ["y"])) == ["y"]
    with pytest.raises(DatasetError, match="no variable 'z'; the dataset has x, y"):
        ds.get_batch([0], ["z"])
    with pytest.raises(IndexError):
        ds.get_batch([1])


def test_header_only_dataset(tmp_path):
    ds = open_dataset(csv(tmp_path, "x:image,y__0,y__1\n"))
    assert len(ds) == 0
    assert [(v.kind, v.shape) for v in ds.variables] == [("unknown", None), ("number", (2,))]
    assert list(ds.batches(4)) == []


def test_check_loads_every_row(tmp_path):
    png(tmp_path / "a.png", gray(1))
    (tmp_path / "b.png").write_bytes(b"not an image")
    ds = open_dataset(csv(tmp_path, "x\na.png\nb.png\n"), cache=False)
    with pytest.raises(DatasetError, match=r"line 3, column 1 \(x\): not a readable image"):
        ds.check()


@pytest.mark.skipif(os.sep != "/", reason="the string join serves POSIX paths only")
def test_joined_file_paths_are_what_pathlib_gives():
    """Opening a dataset joins one path per row without pathlib; the text must be pathlib's
    (the cache key and every message use it)."""
    from pathlib import Path

    folders = ["/data/set", "/data/set/sub", "/", ".", "rel/dir", "/with space"]
    cells = ["x.png", "./x.png", "././x.png", ".//x.png", "a//b.png", "a/./b.png", "a/../b.png",
             "../b.png", "a/", "a/.", ".", "./a/b/", "x .png", "/abs/x.png", "//server/x.png",
             "~/x.png", "a/b/c.png", "a\\b.png"]  # fmt: skip
    for folder in folders:
        for cell in cells:
            want = str(Path(cell)) if cell.startswith("/") else str(Path(folder) / cell)
            assert file_cells.join(folder, cell) == want, (folder, cell)


def test_dataset_paths_resolve_relative_to_the_csv(tmp_path):
    png(tmp_path / "img" / "a.png", gray(1))
    png(tmp_path / "b.png", gray(2))
    path = csv(tmp_path, "x\n./img/a.png\nimg/../b.png\n.//img//a.png\n")
    ds = open_dataset(path, cache=False)
    assert [str(ds.file_path("x", i)) for i in range(3)] == [
        str(tmp_path / "img" / "a.png"), str(tmp_path / "img/../b.png"),
        str(tmp_path / "img" / "a.png"),
    ]  # fmt: skip
    assert ds.get_batch(np.arange(3), ["x"])["x"].reshape(3, -1)[:, 0].tolist() == pytest.approx(
        [1 / 255, 2 / 255, 1 / 255]
    )


@pytest.mark.parametrize(
    ("cells", "plain"),
    [
        (["./img/a.png", "img/b.png", "./img/./c.png", "../d/e.png"], True),
        (["./img/a.png", " img/b.png ", "img\\c.png", "../d/e.png"], False),  # spaces, "\\"
    ],
)
def test_plain_and_other_file_cells_resolve_as_the_checked_loop_does(tmp_path, cells, plain):
    """Opening a dataset resolves a column of plain cells in one quick pass; any other cell
    sends the column through the checked loop. Both give the same paths, sizes and times."""
    for name, value in (("img/a.png", 1), ("img/b.png", 2), ("img/c.png", 3)):
        png(tmp_path / "data" / name, gray(value))
    png(tmp_path / "d" / "e.png", gray(4, (3, 3)))
    lines = "".join(f'"{cell}",{i}\n' for i, cell in enumerate(cells))
    data = tmp_path / "data"
    ds = open_dataset(csv(data, "x,y\n" + lines), cache=False)
    paths, stats = list(ds._paths["x"]), ds._stats["x"].copy()
    column = ds.variable("x").columns[0]
    quick = file_cells.resolve_plain(ds._table, column, str(data))
    assert (quick is not None) == plain
    ds._resolve_checked(column)
    assert ds._paths["x"] == paths and np.array_equal(ds._stats["x"], stats)
    assert [os.path.normpath(p) for p in paths] == [
        str(data / "img" / "a.png"), str(data / "img" / "b.png"), str(data / "img" / "c.png"),
        str(tmp_path / "d" / "e.png"),
    ]  # fmt: skip
    want = [(os.stat(p).st_size, os.stat(p).st_mtime_ns) for p in paths]
    assert stats.tolist() == [list(w) for w in want]


ALIKE_CELLS = ["./img/a.png", "img/b.png", "./img/c.PNG", "img/./a.png", "../d/e.png", "img/.png",
               "img/..png", "img/a..png", " img/b.png", "img\\b.png", ".//img/a.png", "img",
               "./img/f.jpg", "./img/missing.png", "./img", "img/a.png/"]  # fmt: skip


def test_a_column_resolved_together_is_resolved_as_cell_by_cell(tmp_path):
    """The column-wide test (resolve_alike: every cell ending with the first one's extension,
    plain text joins) gives what the cell-by-cell loop gives, or leaves the column to it;
    every pair and triple of odd and plain cells, and the plain ones all together."""
    for name in ("img/a.png", "img/b.png", "img/c.PNG", "d/e.png", "img/f.jpg", "img/a..png"):
        png(tmp_path / name, gray(1))
    (tmp_path / "img" / ".png").write_bytes(b"")
    folder = str(tmp_path / "img" / "..")  # not normalized: _join keeps it as written
    taken = 0
    for size in (1, 2, 3):
        for cells in itertools.permutations(ALIKE_CELLS, size):
            quick = file_cells.resolve_alike(list(cells), folder)
            if quick is None:
                continue
            taken += 1
            kind, paths, stats = file_cells.resolve_each(list(cells), folder)
            assert (quick[0], quick[1], quick[2].tolist()) == (kind, paths, stats.tolist())
    assert taken == 6  # a.png and b.png in any order, c.PNG, f.jpg: the rest cell by cell

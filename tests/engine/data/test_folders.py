import numpy as np
import pytest
from PIL import Image

from engine.data import DatasetError, open_dataset
from engine.data.folders import create_from_folders


def make_classes(root, counts, size=(6, 4)):
    """``counts``: {class name: number of images}; image k of a class has value 10*k+class."""
    for c, (name, count) in enumerate(counts.items()):
        for k in range(count):
            value = np.full((size[1], size[0], 3), 10 * k + c, dtype=np.uint8)
            (root / name).mkdir(parents=True, exist_ok=True)
            Image.fromarray(value).save(root / name / f"img_{k}.{'png' if k % 2 else 'jpg'}")
    return root


def test_split_resize_gray_and_labels(tmp_path):
    src = make_classes(tmp_path / "src", {"cat": 10, "dög": 5})
    (src / "cat" / "notes.txt").write_text("ignored", encoding="utf-8")
    paths = create_from_folders(src, tmp_path / "out", size=(8, 3), channel="gray", ratio=0.8)
    training = open_dataset(paths["training"], normalize=False)
    validation = open_dataset(paths["validation"], normalize=False)
    assert (len(training), len(validation)) == (12, 3)  # 8 + 4 and 2 + 1
    assert training.variable("x").shape == (1, 3, 8)
    assert training.header == ("x:image", "y:label")
    labels = training.get_batch(range(12))["y"][:, 0].tolist()
    assert labels == [0] * 8 + [1] * 4
    assert (tmp_path / "out" / "classes.txt").read_text("utf-8") == "cat\ndög\n"
    assert training.row_cells(8)[0].startswith("./dög/img_")
    cells = {c[0] for ds in (training, validation) for c in map(ds.row_cells, range(len(ds)))}
    assert len(cells) == 15  # every image once


def test_same_seed_same_split_and_rgb_kept(tmp_path):
    src = make_classes(tmp_path / "src", {"a": 6, "b": 6})
    first = create_from_folders(src, tmp_path / "one", ratio=0.5, seed=3)
    again = create_from_folders(src, tmp_path / "two", ratio=0.5, seed=3)
    other = create_from_folders(src, tmp_path / "three", ratio=0.5, seed=4)
    text = [p["training"].read_text("utf-8") for p in (first, again, other)]
    assert text[0] == text[1] and text[0] != text[2]
    ds = open_dataset(first["training"], normalize=False)
    assert ds.variable("x").shape == (3, 4, 6)


def test_errors(tmp_path):
    src = make_classes(tmp_path / "src", {"a": 2})
    Image.fromarray(np.zeros((5, 5, 3), np.uint8)).save(src / "a" / "odd.png")
    with pytest.raises(DatasetError, match=r"is (5x5|6x4) but .* is (6x4|5x5); pass a size"):
        create_from_folders(src, tmp_path / "out1")
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "x").write_text("x", encoding="utf-8")
    with pytest.raises(DatasetError, match="exists and is not empty"):
        create_from_folders(src, tmp_path / "full", size=(4, 4))
    (tmp_path / "empty_class" / "none").mkdir(parents=True)
    with pytest.raises(DatasetError, match="holds no images"):
        create_from_folders(tmp_path / "empty_class", tmp_path / "out2")
    with pytest.raises(DatasetError, match="has no sub-folders"):
        create_from_folders(tmp_path / "full", tmp_path / "out3")
    with pytest.raises(DatasetError, match="channel must be gray or rgb"):
        create_from_folders(src, tmp_path / "out4", channel="cmyk")
    (src / "a" / "broken.png").write_bytes(b"nope")
    with pytest.raises(DatasetError, match="cannot read image .*broken.png"):
        create_from_folders(src, tmp_path / "out5", size=(4, 4))

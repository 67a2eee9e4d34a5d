import numpy as np

from engine.data import open_dataset
from engine.data.writers import write_csv, write_image_set


def test_write_csv_quotes_and_is_atomic(tmp_path):
    path = write_csv(tmp_path / "sub" / "d.csv", ["x", "y:a, b"], [["1,5", 2], ["é", 3.5]])
    assert path.read_bytes() == 'x,"y:a, b"\n"1,5",2\né,3.5\n'.encode()
    assert [p.name for p in path.parent.iterdir()] == ["d.csv"]


def test_write_image_set_round_trips(tmp_path):
    images = np.arange(3 * 3 * 2 * 2, dtype=np.uint8).reshape(3, 3, 2, 2)
    rows = write_image_set(tmp_path, "training", images, np.array([1, 0, 1]))
    assert rows == [("./training/1/00000.png", 1), ("./training/0/00001.png", 0),
                    ("./training/1/00002.png", 1)]  # fmt: skip
    write_csv(tmp_path / "t.csv", ["x:image", "y:label"], rows)
    ds = open_dataset(tmp_path / "t.csv", normalize=False, cache=False)
    np.testing.assert_array_equal(ds.get_batch([0, 1, 2])["x"], images)

import csv

import numpy as np
import pytest
from sklearn.datasets import load_digits, load_iris

from engine.data import DatasetError, builtin, open_dataset


def rows(path):
    with open(path, encoding="utf-8", newline="") as f:
        return list(csv.reader(f))


def test_digits_counts_shapes_and_classes(digits):
    training, validation = open_dataset(digits["training"]), open_dataset(digits["validation"])
    assert (len(training), len(validation)) == (1500, 297)
    for ds in (training, validation):
        assert [(v.name, v.kind, v.shape, v.dtype) for v in ds.variables] == [
            ("x", "image", (1, 28, 28), "uint8"), ("y", "number", (1,), "float32")
        ]  # fmt: skip
        assert ds.header == ("x:image", "y:label")
    labels = np.concatenate([ds.get_batch(range(len(ds)), ["y"])["y"][:, 0]
                             for ds in (training, validation)]).astype(int)  # fmt: skip
    np.testing.assert_array_equal(np.bincount(labels), np.bincount(load_digits().target))
    assert set(validation.get_batch(range(297), ["y"])["y"][:, 0]) == set(range(10))
    x = training.get_batch(range(50), ["x"])["x"]
    assert x.min() == 0.0 and x.max() == 1.0  # normalized 8-bit images
    assert x[:, :, :4].max() == 0 and x[:, :, :, 24:].max() == 0  # drawn in the middle 20x20
    assert rows(digits["training"])[1][0].startswith("./training/")


def test_generated_once_then_reused(digits, session_cache):
    before = digits["training"].stat().st_mtime_ns
    assert builtin.ensure("digits", root=session_cache) == digits
    assert digits["training"].stat().st_mtime_ns == before
    assert (session_cache / "datasets" / "digits" / ".neurocanvas-digits.json").is_file()


def test_digits_4or9_is_binary(digits, session_cache):
    paths = builtin.ensure("digits-4or9", root=session_cache)
    assert paths["training"].parent == digits["training"].parent
    for split in ("training", "validation"):
        table = rows(paths[split])
        assert table[0] == ["x:image", "y:9"]
        source = [r for r in rows(digits[split])[1:] if r[1] in ("4", "9")]
        assert [r[0] for r in table[1:]] == [r[0] for r in source]
        assert [r[1] for r in table[1:]] == ["1" if r[1] == "9" else "0" for r in source]
    assert len(open_dataset(paths["training"])) + len(open_dataset(paths["validation"])) == (
        np.isin(load_digits().target, (4, 9)).sum()
    )


def test_iris_split_and_scaling(tmp_path, monkeypatch):
    monkeypatch.setenv("NEUROCANVAS_CACHE", str(tmp_path / "env"))
    paths = builtin.ensure("iris")
    assert paths["training"] == tmp_path / "env" / "datasets" / "iris" / "iris_training.csv"
    training, validation = open_dataset(paths["training"]), open_dataset(paths["validation"])
    assert (len(training), len(validation)) == (120, 30)
    assert [(v.name, v.shape) for v in training.variables] == [("x", (4,)), ("y", (1,))]
    assert training.header[0] == "x__0:sepal length" and training.header[4] == "y:label"
    everything = {
        name: np.concatenate([ds.get_batch(range(len(ds)))[name] for ds in (training, validation)])
        for name in ("x", "y")
    }
    assert np.bincount(validation.get_batch(range(30))["y"][:, 0].astype(int)).tolist() == [10] * 3
    assert everything["x"].min() == 0 and everything["x"].max() == 1
    iris = load_iris()
    lo, hi = iris.data.min(0), iris.data.max(0)
    expected = np.round((iris.data - lo) / (hi - lo), 4).astype(np.float32)
    got = sorted(map(tuple, np.c_[everything["x"], everything["y"]].tolist()))
    want = sorted(map(tuple, np.c_[expected, iris.target].astype(np.float32).tolist()))
    assert got == want


def test_interrupted_generation_is_redone(tmp_path):
    stale = tmp_path / "datasets" / "iris"
    stale.mkdir(parents=True)
    (stale / "iris_training.csv").write_text("half written", encoding="utf-8")
    paths = builtin.ensure("iris", root=tmp_path)
    assert len(open_dataset(paths["training"])) == 120
    assert not list((tmp_path / "datasets").glob(".tmp-*"))


def test_unknown_name():
    with pytest.raises(DatasetError, match="unknown built-in dataset 'emnist'; choose one of dig"):
        builtin.ensure("emnist")


def test_nnc_sample_uris_map_to_builtins():
    sdc = "{SDCPATH}samples\\sample_dataset\\"
    assert builtin.for_nnc_uri(sdc + "mnist\\small_mnist_4or9_training.csv") == (
        "mnist-4or9", "training")  # fmt: skip
    assert builtin.for_nnc_uri(sdc + "MNIST\\mnist_test.csv") == ("mnist", "validation")
    assert builtin.for_nnc_uri(sdc + "CIFAR10\\cifar10_training.csv") == ("cifar10", "training")
    assert builtin.for_nnc_uri(
        sdc + "iris_flower_dataset\\iris_flower_dataset_validation_delo.csv"
    ) == ("iris", "validation")
    assert builtin.for_nnc_uri("K:\\dbs\\texttest\\validation\\validation.csv") is None


def test_bit_majority_sequences_and_labels(tmp_path):
    paths = builtin.ensure("bit-majority", root=tmp_path)
    for split, count in (("training", 2000), ("validation", 500)):
        table = rows(paths[split])
        assert table[0] == ["x:bits", "y:majority"] and len(table) == count + 1
        ones = []
        for cell, label in table[1:]:  # every sequence read back with NumPy's own reader
            bits = np.loadtxt(paths[split].parent / cell, ndmin=2)
            assert bits.shape == (15, 1) and set(np.unique(bits)) <= {0.0, 1.0}
            assert label == ("1" if bits.sum() >= 8 else "0")
            ones.append(bits.sum())
        assert 0.4 < np.mean(np.array(ones) >= 8) < 0.6  # both classes, about evenly
    dataset = open_dataset(paths["validation"])
    assert [(v.name, v.kind, v.shape) for v in dataset.variables] == [
        ("x", "csv", (15, 1)), ("y", "number", (1,))
    ]  # fmt: skip

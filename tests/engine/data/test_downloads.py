import dataclasses
import gzip
import hashlib
import io
import struct
import tarfile
import urllib.error

import numpy as np
import pytest

from engine.data import DownloadError, builtin, downloads, open_dataset


def idx_bytes(array):
    array = np.asarray(array, dtype=np.uint8)
    return (
        bytes([0, 0, 8, array.ndim])
        + struct.pack(f">{array.ndim}I", *array.shape)
        + array.tobytes()
    )


def sha(data):
    return hashlib.sha256(data).hexdigest()


def offline(url):
    raise urllib.error.URLError("[Errno -3] Temporary failure in name resolution")


@pytest.fixture
def synthetic_mnist(monkeypatch):
    """Tiny MNIST archives in the official format; the built-in's checksums point at them."""
    rng = np.random.default_rng(0)
    train_x = rng.integers(0, 256, (6, 28, 28), dtype=np.uint8)
    test_x = rng.integers(0, 256, (3, 28, 28), dtype=np.uint8)
    files = {
        "train-images-idx3-ubyte.gz": gzip.compress(idx_bytes(train_x)),
        "train-labels-idx1-ubyte.gz": gzip.compress(idx_bytes([4, 9, 1, 4, 9, 0])),
        "t10k-images-idx3-ubyte.gz": gzip.compress(idx_bytes(test_x)),
        "t10k-labels-idx1-ubyte.gz": gzip.compress(idx_bytes([9, 2, 4])),
    }
    archives = tuple(downloads.Archive(name, sha(data), len(data),
                                       (f"https://mirror-a.invalid/{name}",
                                        f"https://mirror-b.invalid/{name}"))
                     for name, data in files.items())  # fmt: skip
    spec = dataclasses.replace(builtin.BUILTINS["mnist"], archives=archives)
    monkeypatch.setitem(builtin.BUILTINS, "mnist", spec)
    return files, train_x, test_x


def test_offline_message_names_files_and_folder(tmp_path, monkeypatch):
    tried = []
    monkeypatch.setattr(downloads, "_open_url", lambda url: tried.append(url) or offline(url))
    with pytest.raises(DownloadError) as info:
        builtin.ensure("mnist", root=tmp_path)
    message = str(info.value)
    assert "cannot download the mnist dataset" in message
    assert "Temporary failure in name resolution" in message and "offline" in message
    assert "train-images-idx3-ubyte.gz, train-labels-idx1-ubyte.gz" in message
    assert str(tmp_path / "downloads" / "mnist") in message
    assert "digits and iris need no download" in message
    assert len(tried) == 2  # both mirrors of the first file, then it stops
    assert not (tmp_path / "datasets" / "mnist").exists()
    assert list((tmp_path / "downloads" / "mnist").iterdir()) == []  # no partial file left


def test_download_with_checksum_then_mnist_csvs(tmp_path, monkeypatch, synthetic_mnist):
    files, train_x, test_x = synthetic_mnist
    served = []

    def serve(url):
        served.append(url)
        if "mirror-a" in url:  # the first mirror is down, the second serves the file
            raise urllib.error.HTTPError(url, 503, "Service Unavailable", None, None)
        return io.BytesIO(files[url.rsplit("/", 1)[1]])

    monkeypatch.setattr(downloads, "_open_url", serve)
    paths = builtin.ensure("mnist", root=tmp_path)
    assert len(served) == 8
    for name, data in files.items():
        assert (tmp_path / "downloads" / "mnist" / name).read_bytes() == data
    training = open_dataset(paths["training"], normalize=False)
    validation = open_dataset(paths["validation"], normalize=False)
    assert paths["training"].name == "mnist_training.csv"
    assert paths["validation"].name == "mnist_test.csv"
    assert (len(training), len(validation)) == (6, 3)
    batch = training.get_batch(range(6))
    np.testing.assert_array_equal(batch["x"][:, 0], train_x)
    assert batch["y"][:, 0].tolist() == [4, 9, 1, 4, 9, 0]
    assert training.row_cells(1) == ["./training/9/00001.png", "9"]
    np.testing.assert_array_equal(validation.get_batch([2])["x"][0, 0], test_x[2])
    binary = builtin.ensure("mnist-4or9", root=tmp_path)  # derived, no download
    assert len(served) == 8
    small = open_dataset(binary["training"])
    assert small.header == ("x:image", "y:9") and len(small) == 4
    assert small.get_batch(range(4))["y"][:, 0].tolist() == [0, 1, 0, 1]
    assert len(open_dataset(binary["validation"])) == 2


def test_files_copied_by_hand_need_no_network(tmp_path, monkeypatch, synthetic_mnist):
    files, _, _ = synthetic_mnist
    folder = tmp_path / "downloads" / "mnist"
    folder.mkdir(parents=True)
    for name, data in files.items():
        (folder / name).write_bytes(data)
    monkeypatch.setattr(downloads, "_open_url", offline)
    paths = builtin.ensure("mnist", root=tmp_path)
    assert len(open_dataset(paths["training"])) == 6


def test_checksum_mismatch(tmp_path, monkeypatch, synthetic_mnist):
    monkeypatch.setattr(downloads, "_open_url", lambda url: io.BytesIO(b"tampered"))
    with pytest.raises(DownloadError, match="SHA-256 [0-9a-f]{64} does not match"):
        builtin.ensure("mnist", root=tmp_path)
    assert list((tmp_path / "downloads" / "mnist").iterdir()) == []
    (tmp_path / "downloads" / "mnist" / "train-images-idx3-ubyte.gz").write_bytes(b"partial")
    with pytest.raises(DownloadError, match="incomplete or a different file. Delete it"):
        builtin.ensure("mnist", root=tmp_path)


def test_cifar10_binary_archive(tmp_path, monkeypatch):
    rng = np.random.default_rng(1)
    members, images = {}, {}
    for name in (*downloads.CIFAR10_TRAIN, *downloads.CIFAR10_TEST):
        labels = rng.integers(0, 10, 2, dtype=np.uint8)
        pixels = rng.integers(0, 256, (2, 3, 32, 32), dtype=np.uint8)
        members[name] = np.c_[labels, pixels.reshape(2, -1)].astype(np.uint8).tobytes()
        images[name] = (pixels, labels)
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    data = buffer.getvalue()
    archive = downloads.Archive(
        "cifar-10-binary.tar.gz", sha(data), len(data), ("https://x.invalid/c",)
    )
    monkeypatch.setitem(
        builtin.BUILTINS,
        "cifar10",
        dataclasses.replace(builtin.BUILTINS["cifar10"], archives=(archive,)),
    )
    monkeypatch.setattr(downloads, "_open_url", lambda url: io.BytesIO(data))
    paths = builtin.ensure("cifar10", root=tmp_path)
    training = open_dataset(paths["training"], normalize=False)
    assert len(training) == 10 and training.variable("x").shape == (3, 32, 32)
    batch = training.get_batch([2, 3])  # the rows of data_batch_2
    pixels, labels = images[downloads.CIFAR10_TRAIN[1]]
    np.testing.assert_array_equal(batch["x"], pixels)
    assert batch["y"][:, 0].tolist() == labels.tolist()
    test = open_dataset(paths["validation"], normalize=False)
    np.testing.assert_array_equal(
        test.get_batch([1])["x"][0], images[downloads.CIFAR10_TEST[0]][0][1]
    )


def test_format_errors():
    with pytest.raises(DownloadError, match="not an unsigned-byte IDX file"):
        downloads.read_idx(b"\x00\x00\x0d\x01\x00\x00\x00\x01\x00")
    with pytest.raises(DownloadError, match="3 data bytes, expected 4"):
        downloads.read_idx(idx_bytes(np.zeros((2, 2)))[:-1])
    assert all(len(a.sha256) == 64 for b in builtin.BUILTINS.values() for a in b.archives)

import wave

import numpy as np
import pytest
from PIL import Image

from engine.data.loaders import FileLoadError, file_kind, load_file, normalization_scale


def test_kinds_by_extension():
    assert [file_kind(p) for p in ("a.PNG", "b.jpeg", "c.Tif", "d.csv", "e.npy", "f.wav")] == [
        "image", "image", "image", "csv", "npy", "wav"
    ]  # fmt: skip
    assert file_kind("g.dcm") is None and file_kind("cat") is None
    with pytest.raises(FileLoadError, match="unsupported file type '.dcm'"):
        load_file(__import__("pathlib").Path("x.dcm"))


@pytest.mark.parametrize("ext", ["png", "bmp", "gif", "tif", "jpg"])
def test_image_formats_gray_and_rgb(tmp_path, ext):
    gray = np.arange(12, dtype=np.uint8).reshape(3, 4) * 20
    rgb = np.dstack([gray, gray // 2, 255 - gray])
    Image.fromarray(gray).save(tmp_path / f"g.{ext}")
    Image.fromarray(rgb).save(tmp_path / f"c.{ext}")
    g, c = load_file(tmp_path / f"g.{ext}"), load_file(tmp_path / f"c.{ext}")
    assert (g.shape, g.dtype, c.shape, c.dtype) == ((1, 3, 4), np.uint8, (3, 3, 4), np.uint8)
    if ext != "jpg":  # lossless formats give the pixels back exactly
        np.testing.assert_array_equal(g[0], gray)
        np.testing.assert_array_equal(c, rgb.transpose(2, 0, 1))


def test_palette_alpha_bilevel_and_16_bit_images(tmp_path):
    gray = np.arange(12, dtype=np.uint8).reshape(3, 4)
    Image.fromarray(gray).convert("P").save(tmp_path / "p.png")  # gray palette stays gray
    Image.fromarray(np.dstack([gray] * 3 + [gray])).save(tmp_path / "a.png")
    Image.fromarray(gray > 5).save(tmp_path / "b.png")
    Image.fromarray(gray.astype(np.uint16) * 5000).save(tmp_path / "w.png")
    assert load_file(tmp_path / "p.png").shape == (1, 3, 4)
    np.testing.assert_array_equal(load_file(tmp_path / "p.png")[0], gray)
    assert load_file(tmp_path / "a.png").shape == (4, 3, 4)  # alpha is kept, as nnabla's loader
    np.testing.assert_array_equal(load_file(tmp_path / "b.png")[0], (gray > 5) * 255)
    wide = load_file(tmp_path / "w.png")
    assert wide.dtype == np.uint16 and wide[0, 2, 3] == 55000


def test_normalization_scale():
    assert normalization_scale(np.dtype(np.uint8)) == 1 / 255
    assert normalization_scale(np.dtype(np.uint16)) == 1 / 65535
    assert normalization_scale(np.dtype(np.float32)) is None


def test_corrupt_and_missing_images(tmp_path):
    (tmp_path / "bad.png").write_bytes(b"\x89PNG garbage")
    with pytest.raises(FileLoadError, match="not a readable image"):
        load_file(tmp_path / "bad.png")
    with pytest.raises(FileLoadError, match="file not found"):
        load_file(tmp_path / "none.png")


def test_npy_never_unpickles(tmp_path):
    np.save(tmp_path / "ok.npy", np.ones((2, 2), dtype=np.float64))
    assert load_file(tmp_path / "ok.npy").shape == (2, 2)
    np.save(tmp_path / "obj.npy", np.array([{"a": 1}], dtype=object), allow_pickle=True)
    with pytest.raises(FileLoadError, match="need pickle to load; NeuroCanvas never unpickles"):
        load_file(tmp_path / "obj.npy")
    np.save(tmp_path / "str.npy", np.array(["a", "b"]))
    with pytest.raises(FileLoadError, match="<U1 values; a numeric array is needed"):
        load_file(tmp_path / "str.npy")


def test_per_sample_csv_matrix(tmp_path):
    (tmp_path / "m.csv").write_bytes("\ufeff1,2,3\r\n4,5,6\r\n".encode())
    (tmp_path / "row.csv").write_text("7,8\n", encoding="utf-8")
    (tmp_path / "ragged.csv").write_text("1,2\n3\n", encoding="utf-8")
    (tmp_path / "text.csv").write_text("1,x\n", encoding="utf-8")
    np.testing.assert_array_equal(load_file(tmp_path / "m.csv"), [[1, 2, 3], [4, 5, 6]])
    assert load_file(tmp_path / "row.csv").shape == (1, 2)
    with pytest.raises(FileLoadError, match="data row 2 has 1 values, the first row has 2"):
        load_file(tmp_path / "ragged.csv")
    with pytest.raises(FileLoadError, match="data row 1, value 2 is not a number: 'x'"):
        load_file(tmp_path / "text.csv")


def test_wav_integer_pcm(tmp_path):
    samples = np.array([[0, 100], [-200, 32767], [5, -32768]], dtype="<i2")
    with wave.open(str(tmp_path / "s.wav"), "wb") as w:
        w.setnchannels(2)
        w.setsampwidth(2)
        w.setframerate(8000)
        w.writeframes(samples.tobytes())
    np.testing.assert_array_equal(load_file(tmp_path / "s.wav"), samples)
    (tmp_path / "bad.wav").write_bytes(b"RIFF0000WAVE")
    with pytest.raises(FileLoadError, match="unsupported or corrupt WAV"):
        load_file(tmp_path / "bad.wav")

import json
import urllib.error
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from engine.cli import main
from engine.data import downloads


@pytest.fixture(autouse=True)
def _private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("NEUROCANVAS_CACHE", str(tmp_path / "cache"))


@pytest.fixture
def image_csv(tmp_path):
    for k in range(3):
        Image.fromarray(np.full((4, 5), k, np.uint8)).save(tmp_path / f"{k}.png")
    path = tmp_path / "d.csv"
    path.write_text("x:image,y__0,y__1\n" + "".join(f"{k}.png,{k},0\n" for k in range(3)), "utf-8")
    return path


def test_info_table_and_check(image_csv, capsys):
    assert main(["dataset", "info", str(image_csv), "--check"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == f"CSV        {image_csv}"
    assert out[1:3] == ["Rows       3", "Variables  2"]
    assert out[3].split() == ["Name", "Header", "Type", "Shape"]
    assert out[4].split() == ["x", "x:image", "image", "(uint8)", "1,4,5"]
    assert out[5].split() == ["y", "y__0", "..", "y__1", "number", "2"]
    assert out[6] == "Checked    all 3 rows load"


def test_info_json(image_csv, capsys):
    assert main(["dataset", "info", str(image_csv), "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["rows"] == 3
    assert info["variables"][0] == {"name": "x", "header": "x:image", "type": "image",
                                    "shape": [1, 4, 5], "dtype": "uint8"}  # fmt: skip


def test_info_errors_are_one_line(tmp_path, capsys):
    bad = tmp_path / "bad.csv"
    bad.write_text("x,y\n1\n", encoding="utf-8")
    assert main(["dataset", "info", str(bad)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert err.startswith(f'neurocanvas dataset: error: "{bad}", line 2: 1 cells, but the header')


def test_create_from_folders(tmp_path, capsys):
    for name, count in (("ants", 5), ("bees", 5)):
        (tmp_path / "src" / name).mkdir(parents=True)
        for k in range(count):
            Image.fromarray(np.full((9, 7, 3), k, np.uint8)).save(
                tmp_path / "src" / name / f"{k}.png"
            )
    code = main(["dataset", "create", "--from-folders", str(tmp_path / "src"), "-o",
                 str(tmp_path / "out"), "--size", "4x3", "--channel", "gray", "--ratio", "60",
                 "--seed", "1"])  # fmt: skip
    assert code == 0
    out = capsys.readouterr().out.splitlines()
    assert out == [f"training    {tmp_path / 'out' / 'training.csv'}  (6 rows)",
                   f"validation  {tmp_path / 'out' / 'validation.csv'}  (4 rows)"]  # fmt: skip
    assert main(["dataset", "info", str(tmp_path / "out" / "training.csv"), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["variables"][0]["shape"] == [1, 3, 4]


@pytest.mark.parametrize("existing", [False, True], ids=["new folder", "empty folder"])
def test_create_with_a_broken_image_leaves_no_half_made_dataset(tmp_path, capsys, existing):
    for name in ("a", "b"):
        (tmp_path / "src" / name).mkdir(parents=True)
        Image.fromarray(np.zeros((4, 4), np.uint8)).save(tmp_path / "src" / name / "0.png")
    (tmp_path / "src" / "b" / "1.png").write_bytes(b"not a png")  # converted after b/0.png
    out = tmp_path / "out"
    if existing:
        out.mkdir()
    code = main(["dataset", "create", "--from-folders", str(tmp_path / "src"), "-o", str(out)])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "1.png" in err, err
    assert (sorted(out.iterdir()) == []) if existing else not out.exists()
    assert (tmp_path / "src" / "b" / "0.png").is_file()  # the source is left alone


@pytest.mark.parametrize(
    ("extra", "message"),
    [(["--size", "0"], "--size must be N or WIDTHxHEIGHT"), (["--size", "3y4"], "--size must"),
     (["--ratio", "0"], "--ratio is the training percentage")],
)  # fmt: skip
def test_create_bad_options(tmp_path, capsys, extra, message):
    assert main(["dataset", "create", "--from-folders", str(tmp_path), "-o",
                 str(tmp_path / "o"), *extra]) == 2  # fmt: skip
    assert message in capsys.readouterr().err


def test_builtin_list_generate_and_offline(tmp_path, capsys, monkeypatch):
    assert main(["dataset", "builtin", "--list"]) == 0
    listing = capsys.readouterr().out
    assert [line.split()[0] for line in listing.splitlines()] == [
        "digits", "digits-4or9", "iris", "mnist", "mnist-4or9", "fashion-mnist", "cifar10",
        "bit-majority",
    ]  # fmt: skip
    assert main(["dataset", "builtin", "iris"]) == 0
    folder = tmp_path / "cache" / "datasets" / "iris"
    assert capsys.readouterr().out.splitlines() == [
        f"training    {folder / 'iris_training.csv'}",
        f"validation  {folder / 'iris_validation.csv'}",
    ]

    def offline(url):
        raise urllib.error.URLError("Network is unreachable")

    monkeypatch.setattr(downloads, "_open_url", offline)
    assert main(["dataset", "builtin", "cifar10"]) == 2
    err = capsys.readouterr().err
    assert "cannot download the cifar10 dataset" in err and "Network is unreachable" in err
    assert main(["dataset", "builtin", "imagenet"]) == 2
    assert "unknown built-in dataset 'imagenet'" in capsys.readouterr().err
    assert main(["dataset", "builtin"]) == 2
    assert "name a built-in dataset" in capsys.readouterr().err


def test_dataset_without_action_prints_help(capsys):
    assert main(["dataset"]) == 2
    assert "info" in capsys.readouterr().out


def test_the_list_states_the_rows_that_the_local_builtins_have(capsys):
    assert main(["dataset", "builtin", "--list"]) == 0
    listing = {line.split()[0]: line for line in capsys.readouterr().out.splitlines()}
    for name in ("digits", "digits-4or9", "iris", "bit-majority"):  # made here, no download
        assert main(["dataset", "builtin", name]) == 0
        csvs = [line.split()[1] for line in capsys.readouterr().out.splitlines()]
        rows = [len(Path(csv).read_text(encoding="utf-8").splitlines()) - 1 for csv in csvs]
        assert f"({rows[0]:,} / {rows[1]:,} rows" in listing[name], (listing[name], rows)
